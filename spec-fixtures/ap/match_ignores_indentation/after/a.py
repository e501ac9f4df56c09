class A:
    def f(self):
        if x:
            z()
        return 1
