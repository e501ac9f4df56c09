class A:
    def f(
        self,
    ) -> int:
        ...
