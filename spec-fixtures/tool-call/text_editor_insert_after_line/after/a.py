import os
import sys
import re

print(1)
