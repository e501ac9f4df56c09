import math


def area(r):
    return 3.14 * r * r


def circumference(r):
    return 2 * 3.14 * r
