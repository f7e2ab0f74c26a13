"""The small model the hardening tests share. Not in conftest.py: every test directory's conftest
is imported as the module `conftest`, so `from conftest import ...` gets whichever was loaded last."""

from __future__ import annotations

import torch


class TwoInputs(torch.nn.Module):
    def forward(self, x, y):
        return x * 2.0 + 1.0, y * y.sum()


def two_inputs_dynamic_shapes():
    b = torch.export.Dim("b", min=2)
    s = torch.export.Dim("s", min=2, max=64)
    return ({0: b}, {0: s})


def two_inputs_example():
    g = torch.Generator().manual_seed(0)
    return torch.randn(3, 4, generator=g), torch.randn(5, generator=g)
