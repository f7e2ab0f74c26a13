"""Refusals name the op the user wrote and its source line (found by the OpInfo suite: an op
convert-torch-to-stablehlo does not lower was reported as the `torch.constant.int` it uses, at
`loc(unknown)`)."""

import pytest
import torch
from torch.export import Dim

import symhlo


class GridSample3d(torch.nn.Module):
    # float64: symhlo's grid_sampler_3d decomposition is float32 only, so the op stays
    def forward(self, x, grid):
        return torch.nn.functional.grid_sample(x, grid, align_corners=False)  # THE-LINE


def test_unlowered_op_with_constant_operands_is_named_with_its_line():
    line = next(i for i, text in enumerate(open(__file__), 1) if text.rstrip().endswith("# THE-LINE"))
    x = torch.randn(2, 3, 4, 5, 6, dtype=torch.float64)
    grid = torch.rand(2, 3, 4, 5, 3, dtype=torch.float64) * 2 - 1
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=rf"unsupported op 'torch\.aten\.grid_sampler_3d' at loc\(\".*test_refusals\.py\":{line}:"):
        symhlo.compile(GridSample3d(), (x, grid), dynamic_shapes=({0: Dim.AUTO}, {0: Dim.AUTO}))
