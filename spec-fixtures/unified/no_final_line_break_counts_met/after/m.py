class Migration:
    def database_forwards(self, app_label):
        pass

    reversible = False
