import math


def total(items):
    subtotal = sum(i.price for i in items)
    return subtotal


def mean(xs):
    return sum(xs) / len(xs)
