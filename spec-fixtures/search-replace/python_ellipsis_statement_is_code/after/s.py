class P:
    def f(self):
        return 1
