class Base:
    def run(self):
        raise NotImplementedError
