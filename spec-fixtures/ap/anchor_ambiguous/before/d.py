def f():
    x = 1

def f():
    x = 1
