"""pytest hooks for test/fuzz: size_fuzz.py is imported as a module of this directory."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
