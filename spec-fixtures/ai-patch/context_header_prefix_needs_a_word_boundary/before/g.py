def name_other(x):
    return x
