class A:
    def f(
        self,
        flag: bool = False,
    ) -> int: ...
