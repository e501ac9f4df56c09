import os
import sys

print(os.getcwd())
