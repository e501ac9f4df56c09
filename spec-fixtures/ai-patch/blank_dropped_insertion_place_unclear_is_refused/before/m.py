import os

def main():
    pass
