import os


def load(path):
    with open(path) as f:
        data = f.read()
    return data.strip()


def save(path, data):
    with open(path, "w") as f:
        f.write(data)
