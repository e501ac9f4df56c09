import os

def helper():
    return 1

def main():
    pass
