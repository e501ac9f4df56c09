import math


def area(r):
    return 3.14 * r * r


def add(a, b):
    return a + b
