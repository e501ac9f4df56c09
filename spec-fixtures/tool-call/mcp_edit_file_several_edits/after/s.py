def f():
    return 10

def g():
    return 20
