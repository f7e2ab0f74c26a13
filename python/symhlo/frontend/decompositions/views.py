"""`aten.as_strided` with symbolic sizes -> the reshape / permute it expresses, or a typed refusal
(floor 2, frontend decompositions).

torch's decompositions restride results with `as_strided` (AdaptiveAvgPool1d(1) in Swin's pooler
becomes `mean` + `as_strided(m, [s0, 32, 1, 1], [32, 1, 32, 32])`), and torch-mlir's FX
importer takes `as_strided` only with static sizes ("size must be a static int list"). When the
sizes and strides describe a permutation of a contiguous layout of every element of a
contiguous input at offset 0, the op is a view:

    as_strided(x, [s0, 32, 1, 1], [32, 1, 32, 32])          (x contiguous, s0 * 32 elements)
  ==> reshape(x, [s0, 32]) -> unsqueeze back the size-1 axes -> [s0, 32, 1, 1]

    as_strided(x, [s0, 4, 8], [32, 1, 4])                   (strides sorted: [s0, 8, 4] contiguous)
  ==> reshape(x, [s0, 8, 4]).permute(0, 2, 1)

Every fact is checked with `statically_known_true` (no guard is added). Any other symbolic
`as_strided` (overlapping windows, an offset, a non-contiguous source) raises
UnsupportedOpError naming the op and the model's source line, instead of the importer's
ValueError.
"""

from __future__ import annotations

import torch

from ...errors import UnsupportedOpError, source_line

aten = torch.ops.aten


def _known(cond) -> bool:
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return bool(statically_known_true(cond))


def _symbolic(v) -> bool:
    return isinstance(v, torch.SymInt) and not v.node.expr.is_number


def current_source_line() -> str:
    """The user's source line of the FX node being decomposed (torch's current trace meta)."""
    import torch.fx.traceback as fx_traceback

    return source_line((fx_traceback.get_current_meta() or {}).get("stack_trace"))


def contiguous_strides(sizes) -> list:
    strides, acc = [], 1
    for s in reversed(list(sizes)):
        strides.insert(0, acc)
        acc = acc * s
    return strides


def as_strided_view(x: torch.Tensor, size, stride, storage_offset=None):
    """aten.as_strided with symbolic sizes -> reshape + permute when it is a view (module doc)."""
    size, stride = list(size), list(stride)
    if not any(_symbolic(v) for v in [*size, *stride, *x.shape]):
        return NotImplemented
    why = _why_not_view(x, size, stride, storage_offset)
    if why is None:
        keep = [i for i, s in enumerate(size) if not _known(s == 1)]
        order = memory_order(keep, stride)      # the kept axes in memory order
        y = x.reshape([size[i] for i in order])
        inverse = [order.index(i) for i in keep]
        if inverse != list(range(len(inverse))):
            y = y.permute(inverse)
        return y.reshape(size) if len(keep) != len(size) else y
    raise UnsupportedOpError(
        f"unsupported op 'aten.as_strided' with symbolic sizes {size}, strides {stride} at "
        f"{current_source_line()}: {why}; symhlo lowers only the as_strided that is a "
        "reshape/permute of a contiguous tensor")


def memory_order(keep: list[int], stride) -> list[int]:
    """The kept axes sorted by stride (largest first), using only statically known comparisons."""
    import functools

    def cmp(a, b):
        if _known(stride[a] > stride[b]):
            return -1
        if _known(stride[a] < stride[b]):
            return 1
        return 0
    return sorted(keep, key=functools.cmp_to_key(cmp))


def _why_not_view(x, size, stride, storage_offset) -> str | None:
    if storage_offset is not None and not _known(storage_offset == 0):
        return f"storage offset {storage_offset}"
    if not _known(x.storage_offset() == 0):
        return "the source is itself offset"
    if not all(_known(a == b) for a, b in zip(x.stride(), contiguous_strides(x.shape))
               if not _known(b == 0)):
        return "the source is not contiguous"
    keep = [i for i, s in enumerate(size) if not _known(s == 1)]
    order = memory_order(keep, stride)
    for a, b in zip(order, order[1:]):
        if not _known(stride[a] > stride[b]):
            return "strides not strictly ordered (overlapping or equal strides)"
    expected = contiguous_strides([size[i] for i in order])
    if not all(_known(stride[i] == e) for i, e in zip(order, expected)):
        return "the strides skip or overlap elements (not a permuted contiguous layout)"
    numel = 1
    for i in keep:
        numel = numel * size[i]
    if not _known(numel == x.numel()):
        return "it covers a part of the source, not all of it"
    return None
