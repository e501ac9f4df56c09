def total(xs):
    s = 0
    for x in xs:
        s += 2 * x
    return s
