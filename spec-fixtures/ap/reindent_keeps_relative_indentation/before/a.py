class A:
    def f(self):
        if x:
            y()
        return 1
