import os
import sys

def main():
    pass
