"""Command-line usage errors exit 1 with an `error:` line, like every other bad input."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("argv, pattern", [
    ([], r"symhlo: error: the following arguments are required: cmd"),
    (["bogus"], r"symhlo: error: argument cmd: invalid choice: 'bogus'"),
    (["export"], r"symhlo export: error: the following arguments are required: MODEL"),
    (["compile", "m.pt2", "--target", "metal", "-o", "m.vmfb"],
     r"symhlo compile: error: argument --target: invalid choice: 'metal'"),
    (["run", "m.vmfb", "--nope"], r"symhlo: error: unrecognized arguments: --nope"),
])
def test_usage_error_exits_1(argv, pattern):
    proc = subprocess.run([sys.executable, "-m", "symhlo.tools.cli", *argv], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    import re
    assert re.search(pattern, proc.stderr), proc.stderr
