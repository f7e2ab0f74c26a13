"""Differential test of max / avg pooling options vs eager, with the batch alone and H/W dynamic.

SqueezeNet's `MaxPool2d(3, 2, ceil_mode=True)` came out silently wrong (torch-mlir gave half of
ceil mode's extra padding to the low side, and none at all over `?` sizes: see
symhlo/pooling.py). These tests cross ceil_mode, dilation, padding, count_include_pad,
divisor_override and return_indices for 1-D / 2-D / 3-D pooling. To keep compiles few, each test
compiles ONE module returning every configuration's output, then compares each output (naming
its configuration) at several sizes, including ones where ceil_mode changes the output size:
with kernel 3 / stride 2, an even size n gives floor n/2 - 1 but ceil n/2, an odd one the same.
H is `2 * Dim + 1` (odd) and W `2 * Dim` (even): torch.export needs the parity to decide ceil
mode's "last window starts inside the input" rule. Indices over dynamic spatial dims (a window
gather, symhlo/pooling.py) are tested with NaN inputs and the backward op.
(max_pool1d over a dynamic length is not tested: torch.export itself specializes it.)
"""

from __future__ import annotations

import itertools

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import symhlo

_MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
_AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}


def max_configs(nd, indices=(False,), dilations=(1, 2)):
    out = []
    for ceil, dil, pad, ri in itertools.product([False, True], dilations, [0, 1], indices):
        out.append((f"max_pool{nd}d(3, 2, padding={pad}, dilation={dil}, ceil_mode={ceil}, "
                    f"return_indices={ri})",
                    lambda x, f=_MAX[nd], c=ceil, d=dil, p=pad, r=ri:
                        f(x, 3, 2, p, d, ceil_mode=c, return_indices=r)))
    return out


def avg_configs(nd):
    out = []
    for ceil, pad, cip, div in itertools.product([False, True], [0, 1], [False, True], [None, 5]):
        if nd == 1 and div is not None:
            continue
        kw = {} if nd == 1 else {"divisor_override": div}
        out.append((f"avg_pool{nd}d(3, 2, padding={pad}, ceil_mode={ceil}, count_include_pad={cip}"
                    f", divisor_override={div})",
                    lambda x, f=_AVG[nd], c=ceil, p=pad, i=cip, kw=kw:
                        f(x, 3, 2, p, ceil_mode=c, count_include_pad=i, **kw)))
    return out


class Many(torch.nn.Module):
    def __init__(self, configs):
        super().__init__()
        self.fns = [f for _, f in configs]

    def forward(self, x):
        return tuple(f(x) for f in self.fns)


def _spec(nd, mode):
    batch = Dim("batch", min=1, max=8)
    if mode == "batch":
        return ({0: batch},)
    dims = [2 * Dim("h", min=3, max=20) + 1, 2 * Dim("w", min=4, max=20),
            2 * Dim("d", min=3, max=20) + 1][:nd]
    return ({0: batch, **{2 + i: dm for i, dm in enumerate(dims)}},)


# (example spatial, [call spatial sizes]); batch-only calls keep the example's spatial sizes,
# which include an even one (ceil changes the size) and an odd one (it does not).
_SIZES = {
    ("batch", 1): ([8], None), ("batch", 2): ([9, 8], None), ("batch", 3): ([7, 6, 8], None),
    ("hw", 1): ([9], [[7], [11], [13]]), ("hw", 2): ([9, 8], [[7, 8], [11, 10], [13, 14]]),
    ("hw", 3): ([9, 8, 7], [[7, 8, 7], [11, 10, 9]]),
}


def _run(configs, nd, mode):
    spatial, calls = _SIZES[(mode, nd)]
    model = Many(configs).eval()
    gen = torch.Generator().manual_seed(nd)
    example = torch.randn(2, 3, *spatial, generator=gen)
    cm = symhlo.compile(model, (example,), dynamic_shapes=_spec(nd, mode))
    if calls is None:
        shapes = [(1, 3, *spatial), (3, 3, *spatial), (5, 3, *spatial)]
    else:
        shapes = [(b, 3, *c) for b, c in zip([1, 3, 2], calls)]
    bad = []
    for shape in shapes:
        x = torch.randn(*shape, generator=gen)
        with torch.no_grad():
            expected = model(x)
        got = cm(x)
        for (name, _), e, g in zip(configs, expected, got):
            e = e if isinstance(e, tuple) else (e,)
            g = g if isinstance(g, tuple) else (g,)
            for k, (ee, gg) in enumerate(zip(e, g)):
                if ee.shape != gg.shape:
                    bad.append(f"{name} at {shape}: output {k} shape {tuple(gg.shape)}, eager "
                               f"{tuple(ee.shape)}")
                elif not torch.allclose(gg, ee, rtol=1e-5, atol=1e-5):
                    err = float((gg.double() - ee.double()).abs().max())
                    bad.append(f"{name} at {shape}: output {k} max error {err:.3g}")
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad)


@pytest.mark.parametrize("mode", ["batch", "hw"])
def test_max_pool2d(mode):
    _run(max_configs(2, indices=(False, True) if mode == "batch" else (False,)), 2, mode)


@pytest.mark.parametrize("mode", ["batch", "hw"])
def test_avg_pool2d(mode):
    _run(avg_configs(2), 2, mode)


def test_max_pool1d_batch():
    _run(max_configs(1, indices=(False, True)), 1, "batch")


@pytest.mark.parametrize("mode", ["batch", "hw"])
def test_avg_pool1d(mode):
    _run(avg_configs(1), 1, mode)


@pytest.mark.parametrize("mode", ["batch", "hw"])
def test_pool3d(mode):
    configs = max_configs(3, dilations=(1,)) + [c for c in avg_configs(3) if "padding=1" in c[0]]
    _run(configs, 3, mode)


class PoolIndices(torch.nn.Module):
    """max pooling with return_indices over `?` spatial dims (1-D, 2-D with ceil mode and
    dilation, 3-D with padding), and the backward op that scatters a gradient by the indices."""

    def forward(self, x1, x2, x3):
        v1, i1 = F.max_pool1d(x1, 3, 2, padding=1, return_indices=True)
        v2, i2 = F.max_pool2d(x2, 3, 2, ceil_mode=True, return_indices=True)
        v2d, i2d = F.max_pool2d(x2, (2, 3), 1, padding=1, dilation=(2, 1), return_indices=True)
        v3, i3 = F.max_pool3d(x3, 2, 2, padding=1, return_indices=True)
        back = torch.ops.aten.max_pool2d_with_indices_backward(
            v2d * 2, x2, (2, 3), (1, 1), (1, 1), (2, 1), False, i2d)
        return v1, i1, v2, i2, v2d, i2d, v3, i3, back


def test_max_pool_indices_dynamic_spatial():
    """Values and indices match eager over `?` spatial sizes, NaN included (torch takes the last
    NaN of a window, else the first maximum in row-major order)."""
    def inputs(n):
        xs = [torch.randn(2, 3, n + 4), torch.randn(2, 3, 2 * n + 1, n + 3), torch.randn(1, 2, n, n, n + 1)]
        for x in xs:
            x.view(-1)[[3, 7]] = float("nan")
        return tuple(xs)

    auto = torch.export.Dim.AUTO
    ex = inputs(5)
    dyn = ({0: auto, 2: auto}, {0: auto, 2: auto, 3: auto}, {2: auto, 3: auto, 4: auto})
    prog = symhlo.export(PoolIndices(), ex, dynamic_shapes=dyn)
    cm = symhlo.compile(prog)
    for n in (4, 6, 9):
        args = inputs(n)
        for k, (g, e) in enumerate(zip(cm(*args), PoolIndices()(*args))):
            assert g.shape == e.shape and g.dtype == e.dtype, f"output {k} at n={n}"
            assert torch.allclose(g, e, equal_nan=True), f"output {k} at n={n}"
