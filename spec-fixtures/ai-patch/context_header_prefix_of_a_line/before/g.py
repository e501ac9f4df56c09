class Greeter:
    def name(self, x):
        return x

    def other(self):
        return 0
