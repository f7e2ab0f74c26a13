# lit configuration for symhlo: FileCheck tests of passes (.mlir) and of the Python import (.py).
#
#   make lit        # == lit -sv test
#
# Substitutions: `symhlo-opt` runs this checkout's tools/symhlo-opt with the running Python,
# `iree-opt` is the venv's, `FileCheck` is the `filecheck` package (a Python port of LLVM's
# FileCheck), `%python` is the interpreter running lit (the venv's).

import os
import shutil
import sys

import lit.formats

config.name = "symhlo"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

# pytest suites and helpers live under test/ too; lit must not collect them.
config.excludes = ["e2e", "api", "gpu", "fuzz", "hardening", "foreign", "models", "opinfo", "Output", "lit.cfg.py",
                   "__init__.py", "conftest.py", "__pycache__"]

_root = os.path.dirname(config.test_source_root)
_bin = os.path.dirname(sys.executable)


def _filecheck() -> str:
    """The pip `filecheck` package installs `filecheck` next to the interpreter."""
    for candidate in (os.path.join(_bin, "filecheck"), shutil.which("filecheck")):
        if candidate and os.path.exists(candidate):
            return candidate
    lit_config.fatal("the `filecheck` command is missing: pip install filecheck")


# The Python port ignores FILECHECK_OPTS, so the flag is also part of the substitution; the
# variable still applies if an LLVM FileCheck is put in its place.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    (r"(?<![\w/.-])symhlo-opt(?![\w.-])",
     f"{sys.executable} {os.path.join(_root, 'tools', 'symhlo-opt')}"))
config.substitutions.append((r"(?<![\w/.-])FileCheck(?![\w.-])",
                             f"{_filecheck()} --enable-var-scope"))
# `iree-opt` / `iree-compile` are the ones iree-base-compiler installs next to the interpreter
# (test/iree-3.13-faults keeps IREE's own faults that symhlo works around as sentinels).
for _tool in ("iree-opt", "iree-compile"):
    _path = os.path.join(_bin, _tool)
    if os.path.exists(_path):
        config.substitutions.append((rf"(?<![\w/.-]){_tool}(?![\w.-])", _path))

# Python tests import symhlo (the editable install) and must not pick up a user's site dir.
config.environment["PYTHONNOUSERSITE"] = "1"
for var in ("HOME", "TMPDIR", "SYMHLO_DEBUG"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
