class Greeter:
    def name(self, x):
        return x.upper()

    def other(self):
        return 0
