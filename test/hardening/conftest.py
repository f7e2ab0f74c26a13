"""Fixtures shared by the hardening tests: one small compiled module (compiled once per session).

The module has one unbounded dim and one bounded dim, so every call-checking rule applies to it:

    forward(x: (b, 4) f32, y: (s,) f32) -> (x * 2 + 1, y * y.sum())
    b: [2, inf) unbounded,  s: [2, 64]
"""

from __future__ import annotations

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))


from hardening_models import TwoInputs, two_inputs_dynamic_shapes, two_inputs_example  # noqa: E402


@pytest.fixture(scope="session")
def two_inputs_module():
    import symhlo

    return symhlo.compile(TwoInputs(), two_inputs_example(), dynamic_shapes=two_inputs_dynamic_shapes())


@pytest.fixture(scope="session")
def saved_module(two_inputs_module, tmp_path_factory):
    """(path of two_inputs_module saved as .symhlo, path of its .vmfb)."""
    d = tmp_path_factory.mktemp("saved")
    path = d / "m.symhlo"
    two_inputs_module.save(path)
    vmfb = d / "m.vmfb"
    vmfb.write_bytes(two_inputs_module.vmfb)
    return path, vmfb
