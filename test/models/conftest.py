"""pytest hooks for test/models. The helpers live in models_harness.py: every test directory's
conftest is imported under the one module name `conftest`, so tests must not import helpers from it."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from models_harness import pytest_terminal_summary  # noqa: E402,F401
