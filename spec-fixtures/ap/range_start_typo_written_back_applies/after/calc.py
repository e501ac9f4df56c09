import math


def total(items):
    return sum(i.price * i.qty for i in items)


def mean(xs):
    return sum(xs) / len(xs)
