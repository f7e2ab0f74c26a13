"""Ops the OpInfo suite found silently wrong, checked against eager at two sizes.

- `remainder` / `%` / `__rmod__` computed C's fmod (the dividend's sign) instead of Python's
  remainder (the divisor's sign), even fully static.
- `tan` lost up to 1.5% near its poles (IREE's CPU tan is sin/cos); eager is within 1e-7.
- `roll` by a multiple of a `?` axis' size; huber_loss's f64 scalar constants (IREE).
"""

import math

import pytest
import torch
from torch.export import Dim

import symhlo

A = Dim.AUTO


class Remainders(torch.nn.Module):
    def forward(self, x, y, i, j):
        return torch.remainder(x, y), x % 3.0, 5.0 % y, torch.remainder(i, j), i % -3, 7 % j


def test_remainder_takes_the_divisors_sign():
    def inputs(n, m):
        g = torch.Generator().manual_seed(n * 100 + m)
        x = torch.randn(n, m, generator=g) * 10
        y = torch.randn(n, m, generator=g) * 3
        i = torch.randint(-20, 20, (n, m), generator=g)
        j = torch.randint(1, 6, (n, m), generator=g) * torch.where(torch.rand(n, m, generator=g) < .5, -1, 1)
        return x, y, i, j

    args = inputs(4, 5)
    dyn = tuple({0: A, 1: A} for _ in args)
    cm = symhlo.compile(Remainders(), args, dynamic_shapes=dyn)
    for n, m in ((4, 5), (7, 3)):
        args = inputs(n, m)
        got, want = cm(*args), Remainders()(*args)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    # A negative dividend with a positive divisor is where C's fmod differs: -7 % 3 == 2.
    assert cm(*[torch.full((2, 2), v) for v in (-7.0, 3.0)], torch.full((2, 2), -7),
              torch.full((2, 2), 3))[3][0, 0].item() == 2


class Tan(torch.nn.Module):
    def forward(self, x):
        return torch.tan(x)


def test_tan_is_accurate_near_its_poles():
    poles = torch.tensor([k * math.pi / 2 for k in (1, -1, 3, 5, 101, -2001, 5001)], dtype=torch.float64)
    near = torch.cat([poles + d for d in (-1e-3, -1e-5, 1e-5, 2e-4)]).float()
    x = torch.cat([near, torch.linspace(-20, 20, 4001), torch.tensor([8000.0, -8191.0])])
    cm = symhlo.compile(Tan(), (x[:10],), dynamic_shapes=({0: A},))
    for xs in (x[:10], x):
        ref = torch.tan(xs.double())
        rel = ((cm(xs).double() - ref).abs() / ref.abs().clamp_min(1e-30)).max().item()
        assert rel < 5e-6, rel  # eager: 8e-8; IREE's own tan: 1.5e-2
    # Past 8192 the f32 reduction cannot be trusted: NaN, not a plausible number.
    assert torch.isnan(cm(torch.tensor([8193.0, 1e9, -1e20]))).all()


class Roll(torch.nn.Module):
    def __init__(self, shifts, dims):
        super().__init__()
        self.shifts, self.dims = shifts, dims

    def forward(self, x):
        return torch.roll(x, self.shifts, self.dims)


@pytest.mark.parametrize("shifts, dims", [(2, 1), (0, 0), ((-7, 1), (2, 0)), (3, None)])
def test_roll_by_a_multiple_of_the_axis_size(shifts, dims):
    """roll came out wrong where the shift is a multiple of a `?` axis (torch-mlir's two-slice
    form): roll(x, 2, 1) at size 2 returned x, roll(x, 0, 0) twice as long."""
    m = Roll(shifts, dims) if dims is not None else Roll(shifts, ())
    cm = symhlo.compile(m, (torch.randn(5, 5, 5),), dynamic_shapes=({0: A, 1: A, 2: A},))
    for shape in ((5, 5, 5), (2, 2, 7), (7, 2, 3), (3, 4, 2)):
        x = torch.randn(*shape)
        g, w = cm(x), m(x)
        assert g.shape == w.shape and torch.equal(g, w)


class Huber(torch.nn.Module):
    def forward(self, x, y):
        return torch.nn.functional.huber_loss(x, y, reduction="sum", delta=8.7)


def test_float_scalar_constants_with_a_reduction():
    """huber_loss(reduction='sum', delta=8.7) summed to about half its value: IREE miscompiled
    torch-mlir's f64 scalar constants once symhlo stopped demoting f64 (fixed by
    symhlo-narrow-f64-constants-for-iree)."""
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(5, generator=g) * 5, torch.randn(5, generator=g) * 5
    cm = symhlo.compile(Huber(), (x, y), dynamic_shapes=({0: A}, {0: A}))
    for n in (5, 9):
        x, y = torch.randn(n, generator=g) * 5, torch.randn(n, generator=g) * 5
        torch.testing.assert_close(cm(x, y), Huber()(x, y), rtol=1e-5, atol=1e-5)


class ClampByTensors(torch.nn.Module):
    def forward(self, x, lo, hi):
        return torch.clamp(x, lo), torch.clamp(x, None, hi), torch.clamp(lo, x, hi)


def test_clamp_with_broadcast_tensor_bounds():
    """torch-mlir's stablehlo.clamp took bounds of another shape (invalid StableHLO; IREE
    refused the call): clamp.Tensor is decomposed into maximum / minimum, which broadcast."""
    def inputs(b, n, w):
        g = torch.Generator().manual_seed(b * 100 + n * 10 + w)
        return (torch.randn(b, n, w, generator=g), torch.randn(b, 1, w, generator=g) - 0.5,
                torch.randn(n, w, generator=g) + 0.5)

    args = inputs(5, 10, 5)
    dyn = ({0: A, 1: A, 2: A}, {0: A, 2: A}, {0: A, 1: A})
    cm = symhlo.compile(ClampByTensors(), args, dynamic_shapes=dyn)
    for b, n, w in ((5, 10, 5), (3, 7, 4)):
        args = inputs(b, n, w)
        for got, want in zip(cm(*args), ClampByTensors()(*args)):
            assert got.shape == want.shape
            torch.testing.assert_close(got, want, rtol=0, atol=0)
