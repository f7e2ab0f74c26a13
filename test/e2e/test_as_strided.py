"""aten.as_strided with symbolic sizes (symhlo/views.py): a view of a contiguous tensor lowers
to reshape/permute and matches eager; anything else (overlapping windows) raises
UnsupportedOpError naming the op and the source line, not the FX importer's ValueError."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import symhlo


class PermutedView(torch.nn.Module):
    def forward(self, x):                       # x: (n, 32) contiguous
        n = x.shape[0]
        return torch.as_strided(x + 1, (n, 4, 8), (32, 1, 4)) * 2


class Windows(torch.nn.Module):
    def forward(self, x):                       # overlapping windows: an unfold
        return torch.as_strided(x + 1, (x.shape[0] - 2, 3), (1, 1))


def test_as_strided_permuted_view():
    spec = ({0: Dim("n", min=2, max=64)},)
    cm = symhlo.compile(PermutedView(), (torch.randn(5, 32),), dynamic_shapes=spec)
    for n in (2, 5, 17):
        x = torch.randn(n, 32)
        torch.testing.assert_close(cm(x), PermutedView()(x))


def test_as_strided_windows_refused():
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"aten\.as_strided.*test_as_strided\.py.*overlap"):
        symhlo.export(Windows(), (torch.randn(9),), dynamic_shapes=({0: Dim("n", min=4)},))
