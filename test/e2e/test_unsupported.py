"""Ops symhlo cannot lower raise symhlo.UnsupportedOpError naming the op and where it came from."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import symhlo
from e2e_harness import randn


class DataDependent(torch.nn.Module):
    def __init__(self, which: str):
        super().__init__()
        self.which = which

    def forward(self, x):
        if self.which == "nonzero":
            return torch.nonzero(x > 0)
        if self.which == "masked_select":
            return x[x > 0] * 2
        return torch.unique(x)


@pytest.mark.parametrize("which, op", [("nonzero", r"aten\.nonzero"),
                                       ("masked_select", r"aten\.index\.Tensor"),
                                       ("unique", r"aten\._unique2")])
def test_data_dependent_sizes_are_rejected_by_name(which, op):
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=rf"unsupported op '{op}[^']*' \(FX node '\w+'\) at .*test_unsupported\.py:\d+ "
                             r"in forward: .*data-dependent size"):
        symhlo.export(DataDependent(which), (randn(4, 5),), dynamic_shapes=({0: Dim("b", min=2, max=64)},))


class Fft(torch.nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x).abs()


def test_op_without_stablehlo_lowering_is_named_with_location():
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"unsupported op 'torch\.aten\.\w+' at loc\(\".*test_unsupported\.py\":\d+"):
        symhlo.export(Fft(), (randn(4, 8),), dynamic_shapes=({0: Dim("b", min=2, max=64)},))
