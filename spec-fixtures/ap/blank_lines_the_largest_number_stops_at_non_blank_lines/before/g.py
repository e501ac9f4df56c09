a()


def gone():
    pass


b()
