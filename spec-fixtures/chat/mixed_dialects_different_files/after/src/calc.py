import math


def area(r):
    return math.pi * r * r


def double(x):
    return x + x
