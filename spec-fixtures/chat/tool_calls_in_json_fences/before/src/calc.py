import math


def area(r):
    return 3.14 * r * r


def double(x):
    return x + x
