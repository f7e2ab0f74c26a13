"""`aten.as_strided`, `as_strided_copy` and `as_strided_scatter` -> the reshape / permute they
express, or a gather / scatter at computed flat positions, or a typed refusal (floor 2, frontend
decompositions).

torch's decompositions restride results with `as_strided` (AdaptiveAvgPool1d(1) in Swin's pooler
becomes `mean` + `as_strided(m, [s0, 32, 1, 1], [32, 1, 32, 32])`), and torch-mlir's FX
importer takes `as_strided` only with static sizes ("size must be a static int list"). When the
sizes and strides describe a permutation of a contiguous layout of every element of a
contiguous input at offset 0, the op is a view:

    as_strided(x, [s0, 32, 1, 1], [32, 1, 32, 32])          (x contiguous, s0 * 32 elements)
  ==> reshape(x, [s0, 32]) -> unsqueeze back the size-1 axes -> [s0, 32, 1, 1]

    as_strided(x, [s0, 4, 8], [32, 1, 4])                   (strides sorted: [s0, 8, 4] contiguous)
  ==> reshape(x, [s0, 8, 4]).permute(0, 2, 1)

Any other as_strided of a source known contiguous at offset 0 (part of it, overlapping windows,
an offset) reads the source's flat elements at exactly the positions eager's strides name:

    as_strided(x, [n - 2, 3], [1, 1], off)                  (x contiguous, x.numel() elements)
  ==> p = off + iota(n - 2)[:, None] * 1 + iota(3)[None, :] * 1        (int64, shape [n - 2, 3])
      x.reshape(-1)[p]                                                  (one gather)

    as_strided_scatter(x, src, size, stride, off)           (x contiguous, the positions distinct)
  ==> x.reshape(-1).index_put([p.reshape(-1)], src.reshape(-1)).reshape(x.shape)

`as_strided_copy` is the gather (torch-mlir has no lowering for it, static or not). The gather
needs its last position `off + sum((size_k - 1) * stride_k)` below `x.numel()` for every size in
the Dim ranges (eager raises past the storage's end; a gather would clamp): proved, or a
call-time check (require_sizes, ShapeError where eager raises). The scatter needs its positions
distinct (eager refuses a write through overlapping strides): proved, or refused.

Every fact is checked with `statically_known_true`. A source that is not known contiguous at
offset 0 (a transposed or sliced view: eager reads its storage, which a value-semantic program
does not have) raises UnsupportedOpError naming the op and the model's source line, instead of
the importer's ValueError.
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


def _refuse(op: str, size, stride, why: str):
    return UnsupportedOpError(
        f"unsupported op '{op}' with symbolic sizes {size}, strides {stride} at "
        f"{current_source_line()}: {why}")


def as_strided_view(x: torch.Tensor, size, stride, storage_offset=None):
    """aten.as_strided with symbolic sizes -> reshape + permute when it is a view, else a gather
    at the flat positions its strides name (module doc)."""
    size, stride = list(size), list(stride)
    if not any(_symbolic(v) for v in [*size, *stride, *x.shape]) and not _symbolic(storage_offset):
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
    return strided_gather("aten.as_strided", x, size, stride, storage_offset)


def as_strided_copy(x: torch.Tensor, size, stride, storage_offset=None):
    """aten.as_strided_copy ==> the gather at the flat positions its strides name (module doc)."""
    return strided_gather("aten.as_strided_copy", x, list(size), list(stride), storage_offset)


def as_strided_scatter(x: torch.Tensor, src: torch.Tensor, size, stride, storage_offset=None):
    """aten.as_strided_scatter ==> x flattened, `src` written at the flat positions the strides
    name (an index_put, the positions proved distinct), reshaped back (module doc)."""
    op = "aten.as_strided_scatter"
    size, stride = list(size), list(stride)
    pos = flat_positions(op, x, size, stride, storage_offset)
    why = _overlap(size, stride)
    if why is not None:
        raise _refuse(op, size, stride, f"{why}; eager refuses to write through overlapping "
                                        "strides")
    flat = x.reshape(-1)
    values = src.to(x.dtype).reshape(-1)
    return torch.index_put(flat, [pos.reshape(-1)], values).reshape(x.shape)


def strided_gather(op: str, x: torch.Tensor, size, stride, storage_offset):
    """x's flat elements at the positions `size` / `stride` / `storage_offset` name."""
    pos = flat_positions(op, x, size, stride, storage_offset)
    return x.reshape(-1)[pos]


def flat_positions(op: str, x: torch.Tensor, size, stride, storage_offset) -> torch.Tensor:
    """int64 of shape `size`: offset + sum_k i_k * stride_k, the storage position of each
    element of as_strided(x, size, stride, offset), for x contiguous at offset 0. Refuses
    (UnsupportedOpError) when x is not known to be such a source, or a position may fall past
    x's last element at some size in the Dim ranges."""
    offset = 0 if storage_offset is None else storage_offset
    if not _known(x.storage_offset() == 0):
        raise _refuse(op, size, stride, "the source is itself offset into a storage, which a "
                                        "value-semantic program does not have")
    if not known_contiguous(x):
        raise _refuse(op, size, stride, "the source is not known to be contiguous (eager reads "
                                        "its storage in memory order); symhlo lowers as_strided "
                                        "of a contiguous tensor only")
    if any(not _known(s >= 0) for s in stride) or not _known(offset >= 0):
        raise _refuse(op, size, stride, f"a negative stride or storage offset {offset}")
    last = offset
    for n, s in zip(size, stride):
        last = last + (n - 1) * s
    if not any(_known(n == 0) for n in size):
        require_sizes(last < x.numel(), f"{op}: its last position {last} is past the source's "
                                        f"{x.numel()} elements")
    pos = torch.full((), offset, dtype=torch.int64, device=x.device)
    for k, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[k] = n
        pos = pos + (torch.arange(n, dtype=torch.int64, device=x.device) * s).reshape(shape)
    return pos.expand(size) if size else pos


def require_sizes(cond, why: str) -> None:
    """`cond` (a comparison of sizes) as a precondition that eager enforces (it raises where
    `cond` is false): nothing when it holds for every size, else a guard that the importer
    (refusals.reject_decomposition_guards) turns into a call-time check, so a call at sizes
    that break it raises ShapeError before anything runs, where eager raises too."""
    if not isinstance(cond, torch.SymBool) or _known(cond):
        torch._check(bool(cond), lambda: why)
        return
    guards = cond.node.shape_env.guards
    before = len(guards)
    torch._check(cond, lambda: why)
    marks = getattr(guards, "preconditions", None)
    if marks is not None:
        marks.update(id(g) for g in guards[before:])


def known_contiguous(x: torch.Tensor) -> bool:
    """Whether x's strides are the contiguous ones for every size (size-1 axes' strides are
    free, as in torch's is_contiguous)."""
    expected = 1
    for n, s in reversed(list(zip(x.shape, x.stride()))):
        if not _known(n == 1) and not _known(s == expected):
            return False
        expected = expected * n
    return True


def _overlap(size, stride) -> str | None:
    """None when the positions of (size, stride) are distinct for every size: with the axes
    sorted by stride, each stride exceeds the span of the axes below it; else why not."""
    keep = [i for i, n in enumerate(size) if not _known(n <= 1)]
    order = memory_order(keep, stride)[::-1]          # smallest stride first
    span = 0
    for i in order:
        if not _known(stride[i] > span):
            return (f"strides {stride} may name one storage position twice (axis {i}: stride "
                    f"{stride[i]} within the span {span} of the smaller-strided axes)")
        span = span + (size[i] - 1) * stride[i]
    return None


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
