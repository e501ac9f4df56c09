def a():
    x = 1
    y = 2
    z = 3
    return x
