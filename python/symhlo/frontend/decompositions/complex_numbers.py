"""ATen decompositions of complex64 arithmetic into real and imaginary float32 parts (floor 2,
frontend decompositions).

convert-torch-to-stablehlo legalizes only float and integer element types, so every arithmetic
op on a complex tensor is rewritten here into float32 ops on its two parts, which torch-mlir
lowers with every size symbolic; the parts enter and leave through two primitives only:

    aten.mul.Tensor(a, b)          (a, b complex64)
  ==>
    ar, ai = view_as_real(a)[..., 0], view_as_real(a)[..., 1]      (same for b)
    aten.complex(ar * br - ai * bi, ar * bi + ai * br)

`aten.view_as_real` and `aten.complex` (and `aten.view_as_complex`, which user code calls) are
lowered by the lib pass symhlo-lower-torch-complex to `stablehlo.real` / `stablehlo.imag` /
`stablehlo.complex`, so a program's complex inputs and outputs stay `complex<f32>` in the
artifact, and a `view_as_real(complex(re, im))` pair between two decomposed ops folds away.
Views, reshapes, slices, cat and broadcasts of complex tensors are not decomposed: they move
elements without arithmetic and torch-mlir lowers them for any element type.

Each decomposition returns NotImplemented when no operand is complex (the op is then traced
unchanged, or by the table entry it wraps, see `complex_decompositions`). complex128 and
complex32 are refused before this runs (frontend.refusals).
"""

from __future__ import annotations

from typing import Callable

import torch

from .special import sincos

aten = torch.ops.aten


def _is_complex(x) -> bool:
    if isinstance(x, torch.Tensor):
        return x.is_complex()
    return isinstance(x, complex)


def parts(z):
    """(re, im) of a complex tensor or Python number; (z, None) for a real one (im = 0)."""
    if isinstance(z, complex):
        return z.real, z.imag
    if isinstance(z, torch.Tensor) and z.is_complex():
        r = torch.view_as_real(z)
        return r[..., 0], r[..., 1]
    return z, None


def make_complex(re, im):
    """aten.complex(re, im) over the broadcast of the two parts (im None: 0)."""
    if im is None:
        im = torch.zeros_like(re)
    re, im = torch.broadcast_tensors(re, im)
    return torch.complex(re, im)


def _float_part(x, like):
    """A real operand as a float tensor of the complex result's part dtype."""
    if isinstance(x, torch.Tensor):
        return x.to(like)
    return x


def _part_dtype(*xs) -> torch.dtype:
    for x in xs:
        if isinstance(x, torch.Tensor) and x.is_complex():
            return torch.float32 if x.dtype == torch.complex64 else torch.float64
    return torch.float32


def _binary(fn):
    """fn(ar, ai, br, bi) -> (re, im) as a decomposition of `op(a, b)`; ai/bi None for real."""
    def decomposition(a, b, *rest, **kwargs):
        if not (_is_complex(a) or _is_complex(b)):
            return NotImplemented
        dt = _part_dtype(a, b)
        ar, ai = parts(a)
        br, bi = parts(b)
        ar, br = _float_part(ar, dt), _float_part(br, dt)
        return make_complex(*fn(ar, ai, br, bi, *rest, **kwargs))
    return decomposition


def _add(ar, ai, br, bi, alpha=1):
    return ar + alpha * br, _opt_add(ai, None if bi is None else alpha * bi)


def _sub(ar, ai, br, bi, alpha=1):
    return ar - alpha * br, _opt_add(ai, None if bi is None else -alpha * bi)


def _opt_add(a, b):
    if a is None:
        return b
    return a if b is None else a + b


def _mul(ar, ai, br, bi):
    if ai is None:
        return ar * br, ar * bi
    if bi is None:
        return ar * br, ai * br
    return ar * br - ai * bi, ar * bi + ai * br


def _div(ar, ai, br, bi, rounding_mode=None):
    if rounding_mode is not None:
        raise NotImplementedError("complex division with a rounding mode")
    if bi is None:
        return ar / br, None if ai is None else ai / br
    d = br * br + bi * bi
    if ai is None:
        return ar * br / d, -ar * bi / d
    return (ar * br + ai * bi) / d, (ai * br - ar * bi) / d


def _unary(fn):
    def decomposition(z, *args, **kwargs):
        if not _is_complex(z):
            return NotImplemented
        re, im = parts(z)
        out = fn(re, im, *args, **kwargs)
        return make_complex(*out) if isinstance(out, tuple) else out
    return decomposition


def _abs(re, im):
    """|z| = hypot(re, im), scaled by the larger part so squaring cannot overflow."""
    m = torch.maximum(re.abs(), im.abs())
    safe = torch.where(m == 0, torch.ones_like(m), m)
    r = m * torch.sqrt((re / safe) ** 2 + (im / safe) ** 2)
    return torch.where(m == 0, torch.zeros_like(m), r)


def _exp(re, im):
    s, c = sincos(im)
    e = torch.exp(re)
    return e * c, e * s


def _matmul_parts(mm):
    """(ar @ br - ai @ bi, ar @ bi + ai @ br) for mm or bmm."""
    def fn(ar, ai, br, bi):
        if ai is None:
            return mm(ar, br), mm(ar, bi)
        if bi is None:
            return mm(ar, br), mm(ai, br)
        return mm(ar, br) - mm(ai, bi), mm(ar, bi) + mm(ai, br)
    return fn


def _reduction(red):
    def fn(re, im, *args, **kwargs):
        kwargs.pop("dtype", None)
        return red(re, *args, **kwargs), red(im, *args, **kwargs)
    return fn


def polar(abs_, angle):
    """aten.polar(r, theta) ==> complex(r cos theta, r sin theta); sin/cos from
    decompositions.special (IREE's own lose relative accuracy near 0)."""
    s, c = sincos(angle)
    return make_complex(abs_ * c, abs_ * s)


def complex_of(re, im):
    """aten.complex with parts of different shapes ==> aten.complex over their broadcast (the lib
    pass lowers aten.complex of equal shapes only)."""
    if re.shape == im.shape:
        return NotImplemented
    return make_complex(re, im)


def constant_pad_nd(z, pad, value=0):
    """aten.constant_pad_nd of a complex tensor ==> both parts padded (by `value`'s parts)."""
    if not _is_complex(z):
        return NotImplemented
    re, im = parts(z)
    vr, vi = (value.real, value.imag) if isinstance(value, complex) else (value, 0)
    return make_complex(aten.constant_pad_nd(re, pad, vr), aten.constant_pad_nd(im, pad, vi))


def complex_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """op -> decomposition, each returning NotImplemented when no operand is complex."""
    return {
        aten.add.Tensor: _binary(_add),
        aten.sub.Tensor: _binary(_sub),
        aten.mul.Tensor: _binary(_mul),
        aten.mul.Scalar: _binary(_mul),
        aten.div.Tensor: _binary(_div),
        aten.div.Scalar: _binary(_div),
        aten.div.Tensor_mode: _binary(_div),
        aten.mm.default: _binary(_matmul_parts(torch.mm)),
        aten.bmm.default: _binary(_matmul_parts(torch.bmm)),
        aten.neg.default: _unary(lambda re, im: (-re, -im)),
        aten.conj_physical.default: _unary(lambda re, im: (re, -im)),
        aten._conj_physical.default: _unary(lambda re, im: (re, -im)),
        aten._conj.default: _unary(lambda re, im: (re, -im)),
        aten.resolve_conj.default: _unary(lambda re, im: (re, im)),
        aten.abs.default: _unary(_abs),
        aten.angle.default: _unary(lambda re, im: torch.atan2(im, re)),
        aten.exp.default: _unary(_exp),
        aten.reciprocal.default: _unary(lambda re, im: (re / (re * re + im * im),
                                                       -im / (re * re + im * im))),
        aten.sum.dim_IntList: _unary(_reduction(torch.sum)),
        aten.sum.default: _unary(_reduction(torch.sum)),
        aten.mean.dim: _unary(_reduction(torch.mean)),
        torch.ops.prims.conj_physical.default: _unary(lambda re, im: (re, -im)),
        torch.ops.prims.conj.default: _unary(lambda re, im: (re, -im)),
        aten.constant_pad_nd.default: constant_pad_nd,
        aten.polar.default: polar,
        aten.complex.default: complex_of,
    }


def complex_first(table: dict, complex_table: dict) -> dict:
    """`table` with each op of `complex_table` decomposed by the complex entry when an operand is
    complex, by `table`'s own entry (if any) otherwise."""
    out = dict(table)
    for op, fn in complex_table.items():
        fallback = table.get(op)
        if fallback is None:
            out[op] = fn
            continue

        def both(*args, _fn=fn, _fallback=fallback, **kwargs):
            r = _fn(*args, **kwargs)
            return _fallback(*args, **kwargs) if r is NotImplemented else r
        out[op] = both
    return out
