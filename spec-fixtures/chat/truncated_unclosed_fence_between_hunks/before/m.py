class Migration:
    def database_forwards(self, app_label):
        pass

    reversible = True


def helper():
    return 1
