"""Determinism: the same model exported twice gives byte-identical StableHLO text and portable
artifact, compiled twice an identical vmfb, and a second process (another PYTHONHASHSEED) gives
the same bytes again.

The vmfb is identical for the same machine only: the default CPU target is
`--iree-llvmcpu-target-cpu=host`, so another CPU model gives other (equally deterministic) code.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import torch

import symhlo

from harness import PYTHON, ROOT

HERE = os.path.dirname(os.path.abspath(__file__))


class Mlp(torch.nn.Module):
    """Weights (inline constants), a reshape of a symbolic size and size arithmetic."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.a = torch.nn.Parameter(torch.randn(6, 16, generator=g))
        self.b = torch.nn.Parameter(torch.randn(16, 3, generator=g))

    def forward(self, x):
        h = torch.relu(x @ self.a) @ self.b
        return h.reshape(x.shape[0] * 3) + x.shape[0] // 2


def fingerprint() -> dict:
    """sha256 of the text, the portable artifact and the vmfb of one export + compile of Mlp."""
    prog = symhlo.export(Mlp(), (torch.randn(4, 6),), dynamic_shapes=({0: torch.export.Dim("n", min=2)},))
    cm = symhlo.compile(prog)
    h = lambda b: hashlib.sha256(b if isinstance(b, bytes) else b.encode()).hexdigest()  # noqa: E731
    return {"text": h(prog.text), "artifact": h(prog.portable_artifact()), "vmfb": h(cm.vmfb),
            "has_dynamic_dims": "?x" in prog.text or "tensor<?" in prog.text}


def test_export_and_compile_twice_are_byte_identical():
    prog1 = symhlo.export(Mlp(), (torch.randn(4, 6),), dynamic_shapes=({0: torch.export.Dim("n", min=2)},))
    prog2 = symhlo.export(Mlp(), (torch.randn(5, 6),), dynamic_shapes=({0: torch.export.Dim("n", min=2)},))
    assert prog1.text == prog2.text
    assert "tensor<?x6xf32>" in prog1.text
    assert prog1.portable_artifact() == prog2.portable_artifact()
    assert symhlo.compile(prog1).vmfb == symhlo.compile(prog2).vmfb


def test_another_process_gives_the_same_bytes():
    here = fingerprint()
    code = (f"import sys, json; sys.path.insert(0, {HERE!r}); "
            "import test_deterministic_output as t; print(json.dumps(t.fingerprint()))")
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONNOUSERSITE="1")
    p = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    there = json.loads(p.stdout.strip().splitlines()[-1])
    assert here["has_dynamic_dims"]
    assert there == here


def test_symhlo_opt_output_is_stable(tmp_path):
    src = os.path.join(ROOT, "test", "symhlo-shape-to-stablehlo", "shape_ops.mlir")
    outs = []
    for k in range(2):
        out = tmp_path / f"out{k}.mlir"
        p = subprocess.run([PYTHON, os.path.join(ROOT, "tools", "symhlo-opt"), src, "--split-input-file",
                            "--symhlo-shape-to-stablehlo", "--canonicalize", "-o", str(out)],
                           capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, PYTHONHASHSEED=str(k + 1)))
        assert p.returncode >= 0 and "Traceback" not in p.stderr, p.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0]
