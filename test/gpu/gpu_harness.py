"""Shared by the test/gpu suites: the GPU model suite (from scripts/gpu_check.py), exported once.

Every test module here imports this file (not a conftest: test/e2e's conftest is imported as
`conftest` too). Each model is exported once per session and the StableHLOProgram reused for every
target, so the suite costs one export per model plus one iree-compile per (model, target).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GPU_CHECK = ROOT / "scripts" / "gpu_check.py"


def _load_gpu_check():
    name = "symhlo_scripts_gpu_check"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GPU_CHECK)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


gpu_check = _load_gpu_check()
SUITE = gpu_check.SUITE
CASES = {c.name: c for c in SUITE}
compare = gpu_check.compare


@functools.lru_cache(maxsize=None)
def exported(name: str):
    """(eager model, StableHLOProgram) for a suite case, exported once per session."""
    return gpu_check.export_case(CASES[name])


def main_signature(stablehlo_text: str) -> tuple[list[str], list[str]]:
    """(argument types, result types) of @main in StableHLO text, e.g. ["tensor<?x32xf32>"]."""
    m = re.search(r"func\.func @main\((.*?)\)\s*->\s*(\(.*?\)|tensor<[^>]*>)", stablehlo_text, re.S)
    assert m, "no @main in the StableHLO"
    return re.findall(r"tensor<[^>]*>", m.group(1)), re.findall(r"tensor<[^>]*>", m.group(2))


def vmfb_signature_types(declaration: str) -> tuple[list[str], list[str]]:
    """(argument types, result types) of an IREE `iree.abi.declaration` string."""
    args, _, results = declaration.partition("->")
    return re.findall(r"tensor<[^>]*>", args), re.findall(r"tensor<[^>]*>", results)
