"""jax.export's shape-polymorphic StableHLO, compiled with `symhlo compile IN.mlir`, vs jax's outputs.

The corpus in test/foreign/jax was generated once by scripts/gen_jax_corpus.py (jax in its own
venv; jax is not needed here): NAME.mlir exactly as jax.export prints it, NAME.npz with inputs and
jax's outputs at several sizes per symbolic dim (`s{k}_in{i}`, `s{k}_out{j}`), and for some cases
a call that breaks jax's shape assertions (`bad_in{i}`) with the message jax raised for it.
Each module is compiled once through the CLI (to a .symhlo file, loaded back) and run at every size.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

import symhlo
from symhlo.tools.cli import main as cli

CORPUS = Path(__file__).resolve().parent / "jax"
CASES = sorted(p.stem for p in CORPUS.glob("*.mlir"))


def _calls(data) -> dict[str, tuple[list[np.ndarray], list[np.ndarray]]]:
    out = {}
    for k in sorted({int(m.group(1)) for m in (re.match(r"s(\d+)_in", n) for n in data.files) if m}):
        ins = [data[f"s{k}_in{i}"] for i in range(sum(n.startswith(f"s{k}_in") for n in data.files))]
        outs = [data[f"s{k}_out{j}"] for j in range(sum(n.startswith(f"s{k}_out") for n in data.files))]
        out[f"s{k}"] = (ins, outs)
    return out


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    cache: dict[str, symhlo.CompiledModule] = {}

    def get(name: str):
        if name not in cache:
            path = tmp_path_factory.mktemp("jax") / f"{name}.symhlo"
            assert cli(["compile", str(CORPUS / f"{name}.mlir"), "-o", str(path)]) == 0
            cache[name] = symhlo.load(path)
        return cache[name]
    return get


@pytest.mark.parametrize("name", CASES)
def test_jax_module_matches_jax(name, compiled):
    data = np.load(CORPUS / f"{name}.npz")
    calls = _calls(data)
    sizes = {tuple(a.shape for a in ins) for ins, _ in calls.values()}
    assert len(sizes) >= 2
    cm = compiled(name)
    for key, (ins, want) in calls.items():
        got = cm(*[torch.from_numpy(a) for a in ins])
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        assert len(got) == len(want), key
        for j, (g, w) in enumerate(zip(got, want)):
            assert tuple(g.shape) == w.shape, (key, j)
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-5, err_msg=f"{name} {key} out{j}")


BAD = [n for n in CASES if "bad_message" in np.load(CORPUS / f"{n}.npz").files]


@pytest.mark.parametrize("name", BAD)
def test_broken_shape_assertion_raises_jax_message(name, compiled):
    data = np.load(CORPUS / f"{name}.npz")
    bad = [torch.from_numpy(data[f"bad_in{i}"]) for i in range(sum(n.startswith("bad_in") for n in data.files))]
    with pytest.raises(symhlo.ShapeError) as e:
        compiled(name)(*bad)
    assert str(e.value) == str(data["bad_message"])
