import os
import sys

print(1)
