import math
import os.path as osp


def area(r):
    return 3.14 * r * r
