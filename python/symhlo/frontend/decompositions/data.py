"""ATen decompositions for ops whose output size comes from tensor data (floor 2, frontend
decompositions): nonzero, argwhere, where(cond), boolean-mask indexing, masked_select, unique,
unique_consecutive, repeat_interleave, combinations, tensor_split by a tensor.

torch.export gives each such size an unbacked symbol (`u0`). Here every one of them gets a value
computed from the data: a count (`mask.sum()`, the number of run starts, `repeats.sum()`) read
with `.item()`, whose new unbacked symbol torch rebinds to the op's own `u0`. The op's result is
then exactly that long: a full-size result computed with static-size ops (a stable sort that moves
the selected positions first, scatters into per-group slots) narrowed to the count, so the
StableHLO result is `?` and sized at run time, never padded. The narrowing is a slice with a
data-dependent end (symhlo-lower-data-dependent-slices: a clamped stablehlo.real_dynamic_slice, so
a count of 0 gives an empty result), and the `torch._check`s that narrowing needs are proven or
become call-time checks (symhlo-lower-torch-runtime-asserts).

    nonzero(mask)  ==>  order = sort(mask.flatten() ? i : i + n).values        (true positions first)
                        k = mask.sum().item()                                 (u0)
                        flat = order.narrow(0, 0, k); coordinates = flat // strides % sizes
"""

from __future__ import annotations

import warnings
from typing import Callable

import torch

from ...errors import UnsupportedOpError
from .indexing import index_put as integer_index_put, index_tensor as integer_index_tensor
from .views import current_source_line

aten = torch.ops.aten


def _unsupported(op: str, why: str):
    return UnsupportedOpError(f"unsupported op '{op}' at {current_source_line()}: {why}")


def _count(t: torch.Tensor, limit) -> int:
    """`t` (a 0-d integer tensor) as an unbacked size: `.item()` checked >= 0 and <= limit."""
    k = t.item()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)   # _check_is_size is deprecated in 2.13
        torch._check_is_size(k)
    if limit is not None:
        torch._check(k <= limit)
    return k


def _first_positions(keep: torch.Tensor) -> torch.Tensor:
    """The positions of `keep` (1-d bool) in increasing order, every kept position first, as a
    full-length int64 tensor: the sorted keys `keep ? i : i + n` (distinct, so any sort is
    stable). (Sorting `not keep` and reading only the indices failed in IREE 3.13: a sort whose
    key result is unused became an unbounded stack allocation over a `?` axis.)"""
    n = keep.shape[0]
    pos = torch.arange(n, dtype=torch.int64)
    return torch.sort(torch.where(keep, pos, pos + n)).values


def _compact(keep: torch.Tensor) -> torch.Tensor:
    """The positions where the 1-d bool `keep` is true: int64 of length `keep.sum()`."""
    n = keep.shape[0]
    k = _count(keep.to(torch.int64).sum(), n)
    return _first_positions(keep).narrow(0, 0, k)


def nonzero(mask):
    """aten.nonzero ==> the flat positions of the true elements (a stable sort moves them first),
    narrowed to their count, as coordinates (flat // stride % size per axis)."""
    if mask.dim() == 0:
        raise _unsupported("aten.nonzero", "nonzero of a 0-d tensor (a (count, 0) result)")
    flat = _compact(mask.reshape(-1) != 0)
    if mask.dim() == 1:
        return flat.unsqueeze(1)
    # Positions are >= 0, so truncating integer division is floor division (torch's floor
    # `//` and `%` on int64 went through f64, which IREE demotes to f32: inexact past 2**24).
    # A symbolic size divides as a 0-d tensor: `div.Tensor_mode(q, s)` with a SymInt divisor is
    # no valid torch op (torch-mlir: "operand #1 must be Any Torch tensor type").
    q, coords = flat, []
    for size in reversed(mask.shape[1:]):
        if isinstance(size, torch.SymInt):
            size = torch.full((), size, dtype=torch.int64)
        nxt = torch.div(q, size, rounding_mode="trunc")
        coords.append(q - nxt * size)
        q = nxt
    coords.append(q)
    return torch.stack(coords[::-1], 1)


def nonzero_numpy(x):
    """aten.nonzero_numpy (nonzero(as_tuple=True)) ==> nonzero's columns."""
    if x.dim() == 0:
        raise _unsupported("aten.nonzero_numpy", "nonzero(as_tuple=True) of a 0-d tensor")
    return list(torch.unbind(nonzero(x), 1))


def argwhere(x):
    """aten.argwhere ==> nonzero."""
    return nonzero(x)


def where_cond(cond):
    """aten.where (one argument) ==> nonzero's columns."""
    return list(torch.unbind(nonzero(cond), 1))


def masked_select(x, mask):
    """aten.masked_select ==> the broadcast x, flattened, at the true positions of the broadcast
    mask."""
    shape = torch.broadcast_shapes(x.shape, mask.shape)
    flat_x = x.expand(shape).reshape(-1)
    flat_m = mask.expand(shape).reshape(-1)
    return torch.index_select(flat_x, 0, _compact(flat_m))


def index_tensor(x, indices):
    """aten.index.Tensor with a bool / uint8 mask among the indices ==> the mask's nonzero
    columns as integer indices (eager's rule: a k-d mask stands for k index tensors), then
    aten.index.Tensor with integer indices only."""
    if not any(_is_mask(i) for i in indices):
        return integer_index_tensor(x, indices)
    out = []
    for i in indices:
        if i is not None and i.dtype in (torch.bool, torch.uint8):
            if i.dim() == 0:
                raise _unsupported("aten.index.Tensor", "a 0-d boolean index")
            out.extend(torch.unbind(nonzero(i), 1))
        else:
            out.append(i)
    if len(out) == 1 and out[0] is not None:
        return torch.index_select(x, 0, out[0])
    r = integer_index_tensor(x, out)
    return aten.index.Tensor(x, out) if r is NotImplemented else r


def _is_mask(i) -> bool:
    return i is not None and i.dtype in (torch.bool, torch.uint8)


def index_put(x, indices, values, accumulate=False):
    """aten.index_put with a bool / uint8 mask among the indices (`x[mask] = v`, `x[mask] += v`).

    One leading mask and values that broadcast over the selected elements' trailing axes (a
    scalar, a row): no data-dependent size at all, `where(mask, v, x)` (`x + v` when
    accumulating). Otherwise the mask's nonzero columns as integer indices, then the integer
    index_put (values of the selection's `?` length scatter into place).
    """
    if not any(_is_mask(i) for i in indices):
        return integer_index_put(x, indices, values, accumulate)
    if len(indices) == 1 and indices[0].dim() >= 1:
        mask = indices[0].to(torch.bool)
        rest = x.dim() - mask.dim()
        if values.dim() <= rest or (values.dim() == rest + 1 and type(values.shape[0]) is int
                                    and values.shape[0] == 1):
            v = values.reshape(values.shape[1:]) if values.dim() == rest + 1 else values
            v = v.to(x.dtype)
            m = mask.reshape(list(mask.shape) + [1] * rest)
            return torch.where(m, x + v if accumulate else v, x)
    out = []
    for i in indices:
        if _is_mask(i):
            if i.dim() == 0:
                raise _unsupported("aten.index_put", "a 0-d boolean index")
            out.extend(torch.unbind(nonzero(i), 1))
        else:
            out.append(i)
    r = integer_index_put(x, out, values, accumulate)
    return aten.index_put.default(x, out, values, accumulate) if r is NotImplemented else r


def _runs(vals: torch.Tensor):
    """(first, group) of a 1-d tensor: whether each element starts a run of equal values, and
    the run number of each element (a cumulative sum of `first`, minus 1)."""
    n = vals.shape[0]
    pos = torch.arange(n)
    prev = torch.index_select(vals, 0, torch.clamp(pos - 1, min=0))
    first = (pos == 0) | (vals != prev)
    group = torch.cumsum(first.to(torch.int64), 0) - 1
    return first, group


def _unique_runs(x, vals, perm, return_inverse: bool, return_counts: bool):
    """values, inverse, counts of the runs of equal values of `vals` (x flattened and permuted
    by `perm`; None: not permuted)."""
    n = vals.shape[0]
    first, group = _runs(vals)
    k = _count(first.to(torch.int64).sum(), n)
    values = torch.zeros_like(vals).scatter(0, group, vals).narrow(0, 0, k)
    if return_inverse:
        inverse = group if perm is None else torch.zeros_like(group).scatter(0, perm, group)
        inverse = inverse.reshape(x.shape)
    else:
        inverse = torch.zeros((0,), dtype=torch.int64)
    if return_counts:
        counts = torch.zeros((n,), dtype=torch.int64).scatter_add(
            0, group, torch.ones((n,), dtype=torch.int64)).narrow(0, 0, k)
    else:
        counts = torch.zeros((0,), dtype=torch.int64)
    return values, inverse, counts


def _reject_float_nan(op: str, x: torch.Tensor) -> None:
    if x.dtype.is_floating_point or x.dtype.is_complex:
        # eager keeps every NaN its own value; a run split on `!=` would too, but sort's NaN
        # order and -0.0 / 0.0 ties are not checked here: integers only.
        raise _unsupported(op, f"unique of a {x.dtype} tensor (symhlo lowers unique of integer "
                               "and bool tensors only: NaN and signed-zero runs are not handled)")


def _unique_bool(x, flat, return_inverse: bool, return_counts: bool):
    """unique of a bool tensor by counting, no sort: [False, True] without the absent ones.
    (A sort of the mask converted to an integer failed in IREE 3.13: an unbounded stack
    allocation when the sort's permutation is unused.)"""
    trues = flat.to(torch.int64).sum()
    falses = torch.logical_not(flat).to(torch.int64).sum()
    has_false = falses > 0
    k = _count(has_false.to(torch.int64) + (trues > 0).to(torch.int64), 2)
    values = torch.stack([torch.logical_not(has_false), torch.ones((), dtype=torch.bool)]).narrow(0, 0, k)
    inverse = (torch.where(has_false, flat.to(torch.int64), 0).reshape(x.shape) if return_inverse
               else torch.zeros((0,), dtype=torch.int64))
    counts = (torch.stack([torch.where(has_false, falses, trues), trues]).narrow(0, 0, k)
              if return_counts else torch.zeros((0,), dtype=torch.int64))
    return values, inverse, counts


def unique2(x, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False):
    """aten._unique2 (torch.unique) ==> a stable sort, run starts (v[i] != v[i-1]), their count
    as the number of unique values; each run's value scattered to its slot, counts by a
    scatter-add of ones, inverse = run number scattered back through the sort's permutation."""
    _reject_float_nan("aten._unique2", x)
    if not sorted:
        raise _unsupported("aten._unique2", "torch.unique(sorted=False): eager's order is that of "
                                            "its hash set on CPU, which symhlo does not reproduce; "
                                            "use sorted=True")
    flat = x.reshape(-1)
    if flat.dtype == torch.bool:
        return _unique_bool(x, flat, return_inverse, return_counts)
    vals, perm = torch.sort(flat, stable=True)
    return _unique_runs(x, vals, perm, return_inverse, return_counts)


def unique_consecutive(x, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """aten.unique_consecutive ==> the runs of the flattened tensor, as in unique without the
    sort."""
    _reject_float_nan("aten.unique_consecutive", x)
    if dim is not None:
        raise _unsupported("aten.unique_consecutive", "unique_consecutive with dim=")
    return _unique_runs(x, x.reshape(-1), None, return_inverse, return_counts)


def _repeat_index(repeats: torch.Tensor, output_size=None) -> torch.Tensor:
    """For each output position j < repeats.sum(): the i with cum[i-1] <= j < cum[i]
    (a right-side binary search in the inclusive cumulative sum). A negative count (which eager
    refuses) makes the total -1, which fails the total's call-time `>= 0` check."""
    reps = repeats.to(torch.int64)
    cum = torch.cumsum(reps, 0)
    if output_size is not None:
        total = output_size
    else:   # -1 when a count is negative: the count's `>= 0` check then fails at call time
        total = _count(torch.where((reps < 0).any(), -1, reps.sum()), None)
    return torch.searchsorted(cum, torch.arange(total, dtype=torch.int64), right=True)


def repeat_interleave_tensor(repeats, output_size=None):
    """aten.repeat_interleave.Tensor ==> i repeated repeats[i] times: a binary search of each
    output position in the cumulative sum of `repeats`, whose sum is the (unbacked) length."""
    if repeats.dim() != 1:
        raise _unsupported("aten.repeat_interleave", "repeats must be 1-d")
    return _repeat_index(repeats, output_size)


def repeat_interleave_self_tensor(x, repeats, dim=None, output_size=None):
    """aten.repeat_interleave.self_Tensor ==> x gathered along `dim` at repeat_interleave(repeats)
    (a single repeat count is broadcast over the axis first)."""
    if dim is None:
        x, dim = x.reshape(-1), 0
    dim = dim % max(x.dim(), 1)
    reps = repeats.reshape(-1)
    if reps.shape[0] == 1 and x.shape[dim] != 1:
        reps = reps.expand(x.shape[dim])
    return torch.index_select(x, dim, _repeat_index(reps, output_size))


def combinations(x, r: int = 2, with_replacement: bool = False):
    """aten.combinations ==> ATen's own algorithm, its masked_select as nonzero above: the
    coordinates of the r-dimensional index grid where i_1 < i_2 < ... < i_r (<= with
    replacement), their count (C(n, r) or C(n + r - 1, r)) read with `.item()` like every size
    here (the op's output size is an unbacked symbol in torch.export), then x gathered at each
    coordinate column.

        combinations(x, 2)  (x: n)  ==>  c = nonzero(iota(n)[:, None] < iota(n)[None, :])
                                         stack([x[c[:, 0]], x[c[:, 1]]], 1)
    """
    if x.dim() != 1 or r < 0:
        return NotImplemented   # eager raises
    if r == 0:
        return torch.zeros((0,), dtype=x.dtype, device=x.device)
    n = x.shape[0]
    i = torch.arange(n, dtype=torch.int64, device=x.device)
    grids = torch.meshgrid(*([i] * r), indexing="ij")
    keep = torch.ones_like(grids[0], dtype=torch.bool)     # r = 1: every element
    for a, b in zip(grids, grids[1:]):
        keep = keep & ((a <= b) if with_replacement else (a < b))
    return torch.stack([torch.index_select(x, 0, c) for c in torch.unbind(nonzero(keep), 1)], 1)


def tensor_split_tensor(x, tensor_indices_or_sections, dim: int = 0):
    """aten.tensor_split.tensor_indices_or_sections with a 1-d index tensor (its length fixed by
    torch.export) ==> each index read with `.item()` and the pieces sliced between them, as ATen's
    tensor_split slices (`x[..., a:b]` with Python's clamping and negative wrap-around, lowered by
    symhlo-lower-data-dependent-slices):

        tensor_split(x, t, dim)  (t: 2 int64)  ==>  a, b = t[0].item(), t[1].item()
                                                    x[:a], x[a:b], x[b:]   (along dim)

    A 0-d tensor (a number of sections) makes the number of results depend on its value, which
    no program has: refused by name."""
    t = tensor_indices_or_sections
    if t.dim() == 0:
        raise _unsupported("aten.tensor_split", "tensor_split by a 0-d tensor: the number of "
                                                "sections, and so of results, is its value")
    if t.dim() != 1 or t.dtype != torch.int64 or x.dim() == 0:
        return NotImplemented   # eager raises
    if not isinstance(t.shape[0], int):
        raise _unsupported("aten.tensor_split", "a split-index tensor of `?` length (the number "
                                                "of results)")
    dim = dim % x.dim()
    cuts = [t[k].item() for k in range(t.shape[0])]
    bounds = [0, *cuts, x.shape[dim]]
    return [aten.slice.Tensor(x, dim, a, b) for a, b in zip(bounds, bounds[1:])]


def grouped_mm_fallback(x, weight, offs):
    """transformers::grouped_mm_fallback (the grouped matmul of transformers' MoE experts: rows
    sorted by expert, `offs` the running row counts) ==> per expert, its rows sliced at the
    counts read with `.item()`, one matmul, and the product written back to those rows of a
    zero result (rows past the last count stay 0, as in transformers' own loop):

        out = grouped_mm_fallback(x (S, K), w (E, K, N), offs (E,))
      ==>
        out = zeros(S, N); a = 0
        for i in range(E):                      (E static: the weight's leading axis)
            b = offs[i].item()                  (unbacked; torch adds a call-time b <= S check)
            out = out.index_copy(0, a + arange(b - a), x[a:b] @ w[i]); a = b

    The rows of each expert are `?`, sized by the data: exact work, nothing padded. `offs` is
    taken as transformers builds it (a cumulative count: non-decreasing, within [0, S]); the
    slices clamp as transformers' Python slices of `offs.tolist()` do."""
    if x.dim() != 2 or weight.dim() != 3 or offs.dim() != 1 or not isinstance(weight.shape[0], int):
        return NotImplemented
    rows = x.shape[0]
    out = x.new_zeros(rows, weight.shape[2])
    ends = offs.to(torch.int64)
    start = 0
    for i in range(weight.shape[0]):
        end = ends[i].item()
        piece = aten.slice.Tensor(x, 0, start, end) @ weight[i]
        where = torch.arange(piece.shape[0], dtype=torch.int64) + start
        out = out.index_copy(0, where, piece)
        start = end
    return out


def grouped_mm(mat_a, mat_b, offs=None, bias=None, out_dtype=None):
    """aten._grouped_mm (torch.nn.functional.grouped_mm: transformers' MoE on bfloat16) with a
    2-d `mat_a`, a 3-d `mat_b` and `offs` ==> grouped_mm_fallback above, in `out_dtype`."""
    if offs is None or bias is not None or mat_a.dim() != 2 or mat_b.dim() != 3:
        return NotImplemented
    out = grouped_mm_fallback(mat_a, mat_b, offs)
    return out if out_dtype is None else out.to(out_dtype)


def _transformers_decompositions() -> dict:
    """transformers' MoE custom op, when transformers has registered it (a model built from
    transformers.integrations.moe is what puts it in a graph)."""
    try:
        return {torch.ops.transformers.grouped_mm_fallback.default: grouped_mm_fallback}
    except (AttributeError, RuntimeError):
        return {}


def data_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """The decompositions of this module, for symhlo.frontend.decompositions' table."""
    return {
        aten.nonzero.default: nonzero,
        aten.nonzero_numpy.default: nonzero_numpy,
        aten.argwhere.default: argwhere,
        aten.where.default: where_cond,
        aten.masked_select.default: masked_select,
        aten.index.Tensor: index_tensor,
        aten.index_put.default: index_put,
        aten._unique2.default: unique2,
        aten.unique_consecutive.default: unique_consecutive,
        aten.repeat_interleave.Tensor: repeat_interleave_tensor,
        aten.repeat_interleave.self_Tensor: repeat_interleave_self_tensor,
        aten.combinations.default: combinations,
        aten.tensor_split.tensor_indices_or_sections: tensor_split_tensor,
        aten._grouped_mm.default: grouped_mm,
        **_transformers_decompositions(),
    }
