def a():
    x = 10
    y = 2
    z = 3
    return x + 1
