def a():
    return 10


def b():
    return 2


def c():
    return 30
