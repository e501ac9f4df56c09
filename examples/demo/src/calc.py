"""A small calculator: the file the polypatch demo patches."""


def add(a, b):
    return a + b


def divide(a, b):
    return a / b


class Calculator:
    """Keeps a running total."""

    def __init__(self):
        self.total = 0

    def push(self, value):
        self.total += value
        return self.total
