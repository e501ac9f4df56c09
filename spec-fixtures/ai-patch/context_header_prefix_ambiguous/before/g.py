def name(a):
    return a

def name_of(b):
    return b

def name(c, d):
    return c
