"""Bool (i1) tensors on CPU through IREE vs eager: arithmetic on bools, masks multiplied into
floats, bool reductions and outputs, each module compiled once and called at 3 sizes."""

from __future__ import annotations

import torch
from torch.export import Dim

import symhlo

SIZES = (2, 7, 33)


def _args(n, seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(n, 5, generator=g) > 0.5, torch.rand(n, 5, generator=g) > 0.5,
            torch.randn(n, 5, generator=g))


class BoolArith(torch.nn.Module):
    """bool + bool is a logical or in torch and StableHLO; IREE 3.13 added i1 with wrap-around
    (True + True came back False, silently)."""

    def forward(self, m, k, x):
        return m + m, m + k, (m + k).sum(0), m * k, x * (m + k), m.any(-1), k.all(0), ~m | k


def test_bool_arithmetic_matches_eager():
    m = BoolArith()
    b = Dim("b", min=2, max=4096)
    cm = symhlo.compile(m, _args(8, 0), dynamic_shapes=({0: b},) * 3)
    for n in SIZES:
        args = _args(n, n)
        got, ref = cm(*args), m(*args)
        for i, (g, r) in enumerate(zip(got, ref)):
            assert g.dtype == r.dtype and torch.equal(g, r), (n, i)


class MaskSlice(torch.nn.Module):
    """A float times a `?`-length slice of a bool mask (promoted to float)."""

    def forward(self, x, mask):
        return x * mask[: x.shape[0]], x.unsqueeze(-1) * mask[: x.shape[0]]


def test_float_times_bool_mask_slice():
    m = MaskSlice()
    cm = symhlo.compile(m, (torch.randn(5), torch.rand(10) > 0.5),
                        dynamic_shapes=({0: Dim("m", min=1, max=64)}, {0: Dim("n", min=2, max=4096)}))
    for k, n in ((1, 3), (4, 10), (9, 20)):
        x = torch.randn(k)
        mask = torch.rand(n, generator=torch.Generator().manual_seed(n)) > 0.5
        for g, r in zip(cm(x, mask), m(x, mask)):
            assert torch.equal(g, r), (k, n)


class Uint8Extremes(torch.nn.Module):
    """max/min over uint8 (values both sides of 128) inside a module with int64 in and out:
    torch-mlir started the reductions from int8's extremes, 128 and 127 (amax of 0..6 was 128)."""

    def forward(self, x):
        u = x.to(torch.uint8)
        return (u.amax(0).long(), u.max(-1).values.long(), u.amin(0).long(),
                (u % 7).amax(0).long(), (u // 2 + 128).amin(-1).long())


def test_uint8_max_min_match_eager():
    m = Uint8Extremes()
    cm = symhlo.compile(m, (torch.arange(40).reshape(8, 5),),
                        dynamic_shapes=({0: Dim("b", min=2, max=4096)},))
    for n in SIZES:
        x = torch.randint(0, 256, (n, 5), generator=torch.Generator().manual_seed(n))
        for i, (g, r) in enumerate(zip(cm(x), m(x))):
            assert torch.equal(g, r), (n, i)


class Uint8Boundary(torch.nn.Module):
    """uint8 in and out of the module (IREE 3.13 could not legalize a ui8 hal.tensor.import):
    an image-style uint8 input read as float, uint8 reductions returned."""

    def forward(self, u):
        return u.amax(0), u.amin(-1), u.float() / 255, u.to(torch.int32) * 2


def test_uint8_inputs_and_outputs():
    m = Uint8Boundary()
    cm = symhlo.compile(m, (torch.arange(40, dtype=torch.uint8).reshape(8, 5),),
                        dynamic_shapes=({0: Dim("b", min=2, max=4096)},))
    for n in SIZES:
        u = torch.randint(0, 256, (n, 5), generator=torch.Generator().manual_seed(n)).to(torch.uint8)
        for i, (g, r) in enumerate(zip(cm(u), m(u))):
            assert g.dtype == r.dtype and torch.equal(g, r), (n, i)


class Uint8Wrapping(torch.nn.Module):
    """uint8 through ops whose IREE lowering read a `?` size of the uint8 value ('failed to
    legalize tensor.dim': flip, cat, a slice plus a constant; roll and sort stopped earlier, in
    torch-mlir's lowering, on an i8 / ui8 mismatch) and ops whose result depends on the
    sign (compare, divide, remainder, max/min, clamp, widening converts), all wrapping like eager:
    250 + 250 is 244."""

    def forward(self, u, f):
        return (torch.flip(u, [0]), u + 250, u[:, 0] + 250, torch.cat([u, u * 3], 0),
                torch.maximum(u, u.flip(1)), torch.minimum(u, u.flip(0)), u > 200, u // 3, u % 7,
                u.clamp(10, 200), u.float() * 0.5, u.to(torch.int32) - 128, (f * 100).to(torch.uint8),
                u.amax(-1).long(), torch.roll(u, 1, 0), u.sort(0).values)


def test_uint8_wrapping_and_sign_dependent_ops_match_eager():
    m = Uint8Wrapping()
    b = Dim("b", min=2, max=4096)
    cm = symhlo.compile(m, (torch.arange(40, dtype=torch.uint8).reshape(8, 5), torch.rand(8, 5)),
                        dynamic_shapes=({0: b}, {0: b}))
    for n in SIZES:
        g = torch.Generator().manual_seed(n)
        u = torch.randint(0, 256, (n, 5), generator=g).to(torch.uint8)
        f = torch.rand(n, 5, generator=g) * 2.5
        for i, (got, ref) in enumerate(zip(cm(u, f), m(u, f))):
            assert got.dtype == ref.dtype and torch.equal(got, ref), (n, i)
