"""Refusals name the op the user wrote and its source line (found by the OpInfo suite: an op
convert-torch-to-stablehlo does not lower was reported as the `torch.constant.int` it uses, at
`loc(unknown)`)."""

import pytest
import torch
from torch.export import Dim

import symhlo


class Hfft(torch.nn.Module):
    def forward(self, x):
        return torch.fft.hfft(x, n=6, dim=1)  # THE-LINE


def test_unlowered_op_with_constant_operands_is_named_with_its_line():
    line = next(i for i, text in enumerate(open(__file__), 1) if text.rstrip().endswith("# THE-LINE"))
    x = torch.randn(4, 5)
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=rf"unsupported op 'torch\.aten\.fft_hfft' at loc\(\".*test_refusals\.py\":{line}:"):
        symhlo.compile(Hfft(), (x,), dynamic_shapes=({0: Dim.AUTO, 1: Dim.AUTO},))
