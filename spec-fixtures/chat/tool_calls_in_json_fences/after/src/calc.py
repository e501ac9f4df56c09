import math


def area(r):
    return math.pi * r * r


def double(x):
    return 2 * x
