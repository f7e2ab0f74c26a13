"""Decompositions for ATen's indexing ops that accept negative indices (floor 2, frontend
decompositions).

torch wraps a negative index `i` of an axis of size `n` to `i + n` in `x[idx]` (aten.index.Tensor),
`x.index_put_(idx, v)`, `x.take(idx)` and `x.index_fill(dim, idx, v)`. torch-mlir lowers them to
`stablehlo.gather` / `scatter`, whose start indices are clamped into range, not wrapped: `x[:, [-2]]`
read column 0 (Falcon's multi-query `_split_heads` did exactly that: its logits were off by ~0.4
with no error), and an index_put with a negative row wrote outside the buffer. Each decomposition
here wraps every integer index tensor with `where(i < 0, i + n, i)` (n symbolic where the axis is
`?`) and re-emits the op; indices are then non-negative, which is all the lowering assumes.

    aten.index.Tensor(x, [None, i])  ==>  aten.index.Tensor(x, [None, where(i < 0, i + size(x, 1), i)])

Indices past the end stay out of range: eager raises for them, and neither gather nor scatter can
report it, so they remain the caller's contract (as for every indexing op IREE runs).
"""

from __future__ import annotations

import threading

import torch

aten = torch.ops.aten

_ACTIVE = threading.local()


class _Reentry:
    """Makes the decompositions below return NotImplemented for the op they re-emit (so torch
    keeps it) instead of decomposing it again without end."""

    def __enter__(self):
        _ACTIVE.depth = getattr(_ACTIVE, "depth", 0) + 1

    def __exit__(self, *exc):
        _ACTIVE.depth -= 1


def _inside() -> bool:
    return getattr(_ACTIVE, "depth", 0) > 0


def _is_integer_index(i) -> bool:
    return isinstance(i, torch.Tensor) and not i.dtype.is_floating_point and \
        i.dtype not in (torch.bool, torch.uint8)


def wrap_negative(i: torch.Tensor, size) -> torch.Tensor:
    """`i` with each negative entry `k` replaced by `k + size`."""
    return torch.where(i < 0, i + size, i)


def _wrapped(x: torch.Tensor, indices) -> list | None:
    """indices (one per leading axis of x, None for a full slice) with integer ones wrapped; None
    when an index is a mask (bool / uint8), which selects by value, not by position."""
    out = []
    for axis, i in enumerate(indices):
        if i is None:
            out.append(None)
        elif _is_integer_index(i):
            out.append(wrap_negative(i, x.shape[axis]))
        else:
            return None
    return out


def index_tensor(x, indices):
    """aten.index.Tensor with integer index tensors -> one index_select over merged axes.

    The advanced indices (after wrapping) are broadcast to a shape B and linearized over the axes
    they index, which are merged into one (moved to the front first when slices separate them,
    as torch places B there); one index_select gathers, a reshape restores B:

        x[:, i, j]  (x: a x b x c x d)  ==>
            index_select(x.reshape(a, b*c, d), 1, (i' * c + j').reshape(-1)).reshape(a, *B, d)

    torch-mlir's own lowering emits a `stablehlo.gather` whose slice sizes are -1 for a `?` axis
    that is not indexed (`x[i]` with x's columns dynamic failed to verify); index_select keeps
    them symbolic.
    """
    if _inside():
        return NotImplemented
    wrapped = _wrapped(x, indices)
    if wrapped is None:
        return NotImplemented
    adv = [k for k, i in enumerate(wrapped) if i is not None]
    if not adv:
        return NotImplemented
    tensors = [wrapped[k] for k in adv]
    if adv != list(range(adv[0], adv[-1] + 1)):  # separated by slices: B goes first
        x = x.permute(adv + [k for k in range(x.dim()) if k not in adv])
        adv = list(range(len(adv)))
    first, m = adv[0], len(adv)
    idx = torch.broadcast_tensors(*tensors)
    lin = idx[0]
    merged = x.shape[first]
    for j in range(1, m):
        lin = lin * x.shape[first + j] + idx[j]
        merged = merged * x.shape[first + j]
    lead, rest = list(x.shape[:first]), list(x.shape[first + m:])
    flat = x.reshape(lead + [merged] + rest) if m > 1 else x
    out = aten.index_select.default(flat, first, lin.reshape(-1))
    return out.reshape(lead + list(idx[0].shape) + rest)


def index_put(x, indices, values, accumulate=False):
    """aten.index_put with integer index tensors -> the same op on wrapped indices."""
    if _inside():
        return NotImplemented
    wrapped = _wrapped(x, indices)
    if wrapped is None:
        return NotImplemented
    with _Reentry():
        return aten.index_put.default(x, wrapped, values, accumulate)


def take(x, index):
    """aten.take(x, i) -> x.reshape(-1)[where(i < 0, i + numel, i)]."""
    flat = x.reshape(-1)
    return aten.index.Tensor(flat, [wrap_negative(index, flat.shape[0])])


def index_fill(x, dim, index, value):
    """aten.index_fill.int_{Scalar,Tensor}(x, dim, i, v) -> where(hit, v, x), no scatter.

    hit[k] = any(wrap(i) == k) over positions k of axis `dim`, broadcast along the other axes:

        index_fill(x, 1, i, v)  ==>  where((arange(n)[None, :] == wrap(i)[:, None]).any(0)[None, :], v, x)
    """
    if not _is_integer_index(index):
        return NotImplemented
    fill = value.to(x.dtype) if isinstance(value, torch.Tensor) else \
        torch.scalar_tensor(value, dtype=x.dtype, device=x.device)
    if x.dim() == 0:
        x = x.reshape(1)
        return index_fill(x, 0, index, fill).reshape(())
    dim = dim % x.dim()
    n = x.shape[dim]
    i = wrap_negative(index.reshape(-1), n)
    hit = (torch.arange(n, device=x.device)[None, :] == i[:, None]).any(0)
    shape = [1] * x.dim()
    shape[dim] = n
    return torch.where(hit.reshape(shape), fill, x)


def indexing_decompositions() -> dict:
    return {
        aten.index.Tensor: index_tensor,
        aten.index_put.default: index_put,
        aten.take.default: take,
        aten.index_fill.int_Scalar: index_fill,
        aten.index_fill.int_Tensor: index_fill,
    }
