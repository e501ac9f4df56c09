import math


def area(r):
    return 3.14 * r * r


def twice(x):
    return 2 * x
