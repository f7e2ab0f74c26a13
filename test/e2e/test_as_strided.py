"""aten.as_strided, as_strided_copy and as_strided_scatter with symbolic sizes (symhlo/views.py):
a view of a contiguous tensor lowers to reshape/permute; any other strides over a contiguous source
(overlapping windows, part of it, an offset) to a gather / scatter at the flat positions eager's
strides name, and all match eager. A position that may fall past the source's end is a call-time
check (ShapeError, where eager raises); a non-contiguous source and a scatter through overlapping
strides raise UnsupportedOpError naming the op and the source line."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import symhlo
from e2e_harness import check_model, randn


class PermutedView(torch.nn.Module):
    def forward(self, x):                       # x: (n, 32) contiguous
        n = x.shape[0]
        return torch.as_strided(x + 1, (n, 4, 8), (32, 1, 4)) * 2


class Strided(torch.nn.Module):
    def forward(self, x, y):                    # x: (4h,), y: (h, 2)
        n = x.shape[0]
        windows = torch.as_strided(x + 1, (n - 2, 3), (1, 1))        # overlapping: an unfold
        part = torch.as_strided_copy(x, (2, 2), (1, 2), 1)           # positions 1..4 only
        scattered = torch.as_strided_scatter(x, y, (y.shape[0], 2), (4, 1), 1)
        return windows, part, scattered


def test_as_strided_permuted_view():
    spec = ({0: Dim("n", min=2, max=64)},)
    cm = symhlo.compile(PermutedView(), (torch.randn(5, 32),), dynamic_shapes=spec)
    for n in (2, 5, 17):
        x = torch.randn(n, 32)
        torch.testing.assert_close(cm(x), PermutedView()(x))


def test_as_strided_gather_scatter():
    h = Dim("h", min=2, max=64)
    compiled: list = []
    check_model("as_strided gather / scatter", Strided(), (randn(24), randn(6, 2)),
                ({0: 4 * h}, {0: h}), [(randn(8), randn(2, 2)), (randn(36), randn(9, 2)),
                                        (randn(20), randn(5, 2))], compiled=compiled)
    # as_strided_copy reads position 4: past the end of a 4-element source (eager raises there)
    with pytest.raises(symhlo.ShapeError):
        compiled[0](randn(4), randn(1, 2))


class Refused(torch.nn.Module):
    def __init__(self, which: str):
        super().__init__()
        self.which = which

    def forward(self, x):                       # x: (n, 4)
        if self.which == "transposed":
            return torch.as_strided(x.t(), (2, x.shape[0]), (1, 4))
        return torch.as_strided_scatter(x, x[:, :2] * 2, (x.shape[0], 2), (1, 1))


@pytest.mark.parametrize("which, why", [("transposed", "not known to be contiguous"),
                                        ("overlapping", "one storage position twice")])
def test_as_strided_refused(which, why):
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=rf"aten\.as_strided.*test_as_strided\.py.*{why}"):
        symhlo.export(Refused(which), (torch.randn(9, 4),), dynamic_shapes=({0: Dim("n", min=4)},))
