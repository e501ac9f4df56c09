import os  
import sys
