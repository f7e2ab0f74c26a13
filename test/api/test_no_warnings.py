"""No warnings from symhlo's own code while exporting, compiling, calling, saving and loading (a
FutureWarning from symhlo's importer used to print on every compile), and none from torch's
internals that symhlo triggers and a user cannot act on."""

import warnings
from pathlib import Path

import torch
from torch.export import Dim

import symhlo

ROOT = Path(symhlo.__file__).resolve().parents[2]


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        h = self.lin(x).reshape(x.shape[0], -1, 2)
        return torch.softmax(h, -1).flatten(1) + x


def test_compile_call_save_load_warn_nothing(tmp_path):
    x = torch.randn(3, 8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cm = symhlo.compile(Block(), (x,), dynamic_shapes=({0: Dim("n", max=64)},))
        cm.save(tmp_path / "m.symhlo")
        cm2 = symhlo.load(tmp_path / "m.symhlo")
        y = cm2(torch.randn(5, 8))
    shown = [f"{w.category.__name__} at {w.filename}:{w.lineno}: {w.message}" for w in caught]
    ours = [s for s in shown if str(ROOT) in s.split(": ")[0]]
    assert ours == [], "\n".join(ours)   # symhlo's own code (python/symhlo, lib/)
    assert shown == [], "\n".join(shown)
    assert y.shape == (5, 8)
