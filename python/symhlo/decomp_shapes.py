"""ATen decompositions for structural ops (shapes, views, splits, copies, scatters, windows)
whose upstream lowering fails or specializes with `?` dims.

Each entry rewrites one ATen op into ATen ops torch-mlir lowers to StableHLO with every size kept
symbolic; size arithmetic uses `torch.sym_min` / `sym_max` (never a Python `if` on a SymInt,
which would add a guard and pin the program to the example). Registered in
symhlo.decompositions.symhlo_decompositions via `shape_decompositions()`.
"""

from __future__ import annotations

import torch

aten = torch.ops.aten


def _known(cond) -> bool:
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return bool(statically_known_true(cond))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    """aten.empty_strided -> aten.empty (permuted back when the strides are a permuted layout).

        empty_strided([s0, 0], [1, 1])            ==> empty([s0, 0])
        empty_strided([s0, s1], [s1, 1])          ==> empty([s0, s1])
        empty_strided([s0, s1], [1, s0])          ==> empty([s1, s0]).permute(1, 0)

    The values are uninitialized either way; torch-mlir lowers empty_strided only when it can
    check that the strides are the default ones, and emits `torch.runtime.assert "not all
    strides are default"` (or keeps the op) for symbolic strides or a zero-size axis, where
    the strides torch picks (`[1, 1]` for `[s0, 0]`) are not the contiguous formula's. A tensor
    with no elements has no layout to keep; otherwise the strides must be statically a
    permutation of a contiguous layout (else the op is kept and named by the lowering).
    """
    from .views import _contiguous_strides, _memory_order

    size, stride = list(size), list(stride)
    kw = dict(dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    if any(_known(s == 0) for s in size):
        return aten.empty.memory_format(size, **kw)
    keep = [i for i, s in enumerate(size) if not _known(s == 1)]
    order = _memory_order(keep, stride)
    expected = _contiguous_strides([size[i] for i in order])
    if not all(_known(stride[i] == e) for i, e in zip(order, expected)):
        return NotImplemented
    if order == keep:
        return aten.empty.memory_format(size, **kw)
    inner = [i for i in order] + [i for i in range(len(size)) if i not in keep]
    out = aten.empty.memory_format([size[i] for i in inner], **kw)
    return out.permute([inner.index(i) for i in range(len(size))])


def shape_decompositions() -> dict:
    """The structural entries symhlo adds to the decomposition table."""
    return {
        aten.empty_strided.default: empty_strided,
    }
