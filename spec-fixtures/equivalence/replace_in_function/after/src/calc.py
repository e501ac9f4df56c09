import math


def area(r):
    return math.pi * r * r


def circumference(r):
    return 2 * 3.14 * r
