import math


def area(r):
    return math.pi * r * r


def add(a, b):
    return a + b
