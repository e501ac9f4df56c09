class A:
    def f(self):
        if x:
            y()
        for i in range(3):
            if i:
                print(i)
        return 1
