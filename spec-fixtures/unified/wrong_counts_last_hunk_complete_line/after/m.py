class Migration:
    def database_forwards(self, app_label):
        pass

    def database_backwards(self, app_label):
        pass

    reversible = True
