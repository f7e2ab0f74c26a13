"""ATen decompositions for selection, scans, scatters and reductions (sort family, cum*, norms)
(floor 2, frontend decompositions).

Each rewrites an op torch-mlir cannot lower with `?` dims (or lowers with other semantics) into
ATen ops that it lowers, with eager's tie and NaN rules; none pins a size to the example's. Sorts
go to `aten.sort`, which symhlo-lower-torch-sort lowers to a `stablehlo.sort` whose comparator
orders NaN as the largest value and breaks ties by index (torch's stable order).
"""

from __future__ import annotations

from typing import Callable

import torch
from torch._higher_order_ops.while_loop import while_loop

from symhlo.passes.contract_attrs import MAX_DIM_SIZE

from ...errors import UnsupportedOpError
from .views import current_source_line

aten = torch.ops.aten


# -- helpers ---------------------------------------------------------------------------------------

def _upper_bound(n) -> int | None:
    """An upper bound of a size (int or SymInt) from its symbols' ranges; None when unbounded."""
    if isinstance(n, int):
        return n
    bound = n.node.shape_env.bound_sympy(n.node.expr).upper
    return int(bound) if bound.is_Integer else None


def _unsupported(op: str, why: str):
    return UnsupportedOpError(f"unsupported op '{op}' at {current_source_line()}: {why}")


def _lowest(dtype: torch.dtype):
    return -float("inf") if dtype.is_floating_point else torch.iinfo(dtype).min


def _highest(dtype: torch.dtype):
    return float("inf") if dtype.is_floating_point else torch.iinfo(dtype).max


# Axis bound up to which a scan is a masked reduction over an n x n triangle (O(n^2)), as
# symhlo-decompose-symbolic-torch-ops does for cumsum; longer or unbounded axes take a
# log-step (Hillis-Steele) scan in a loop, O(n log n).
_TRIANGLE_MAX = 1024


def _triangle(n) -> torch.Tensor:
    """(n, n) bool, [i, j] = j <= i."""
    i = torch.arange(n)
    return i[None, :] <= i[:, None]


def _shift(x: torch.Tensor, k, fill) -> torch.Tensor:
    """x moved k places up the last axis (k an int or a 0-d int64 tensor), the first k places
    `fill`: a gather of clamp(j - k, 0), masked (no cat or slice, whose contiguity checks would
    guard on n)."""
    j = torch.arange(x.shape[-1])
    moved = torch.index_select(x, -1, torch.clamp(j - k, min=0))
    return torch.where(j >= k, moved, torch.full((), fill, dtype=x.dtype))


def _log_step_scan(x: torch.Tensor, combine, fill) -> torch.Tensor:
    """Inclusive scan of x along the last axis (Hillis-Steele), a `while_loop` (stablehlo.while)
    of ceil(log2 n) steps for the n the call brings:

        k = 1
        while k < n:  x = combine(shift(x, k), x) ; k = 2 * k

    `fill` is the combination's identity. Unrolled to the axis bound instead (31 steps when
    unbounded), five scans made 184 dispatches and a 70 s compile, every call ran all 31 steps,
    and each step had to combine through a reduction over a stacked 2-element axis: IREE 3.13
    clones gathers and elementwise producers into their consumers, and an elementwise chain of
    31 gather steps compiled for over 300 s (cummax). In the loop one step is one region, so the
    combination is elementwise. The body closes over no tensor: x's size is read from the loop
    state (see decompositions.linalg).

    The state carries x flattened, beside a `ruler` of the axis' length: IREE 3.13 miscompiles a
    loop carrying a tensor two of whose `?` dims are one SSA value (linalg.vander's `n x n`
    columns: "region branch point has 4 operands, but region successor needs 5 inputs" in its
    stream conversion), and a 1-D state has one dim. The state must also have the body's strides
    (contiguous): x is often a movedim'd view (a scan over any axis but the last), which torch's
    while_loop refuses to carry."""
    def cond(k, flat, ruler):
        return k < ruler.shape[0]

    def body(k, flat, ruler):
        rows = flat.view(-1, ruler.shape[0])
        return k * 2, combine(_shift(rows, k, fill), rows).to(rows.dtype).reshape(-1), ruler.clone()

    ruler = torch.zeros(x.shape[-1], dtype=torch.int8)
    _, flat, _ = while_loop(cond, body, (torch.ones((), dtype=torch.int64),
                                         x.contiguous().reshape(-1), ruler))
    return flat.view(x.shape)


# kind -> (reduction over the last axis, elementwise combination, identity for x's dtype);
# max / min propagate NaN both ways, as eager's cummax / cummin
_SCANS = {
    "prod": (lambda t: t.prod(-1), torch.mul, lambda dt: 1),
    "max": (lambda t: t.amax(-1), torch.maximum, _lowest),
    "min": (lambda t: t.amin(-1), torch.minimum, _highest),
    "logaddexp": (lambda t: torch.logsumexp(t, -1), torch.logaddexp, lambda dt: -float("inf")),
    "sum": (lambda t: t.sum(-1), torch.add, lambda dt: 0),
}


def _scan(x: torch.Tensor, kind: str) -> torch.Tensor:
    """Inclusive scan of `kind` along x's last axis: a masked reduction over the triangle j <= i
    when the axis bound is <= 1024, else a log-step scan of gathers in a loop (NaN propagates in
    max/min as in eager's cummax/cummin)."""
    reduce, combine, identity = _SCANS[kind]
    fill = identity(x.dtype)
    bound = _upper_bound(x.shape[-1])
    if bound is not None and bound <= _TRIANGLE_MAX:
        tri = _triangle(x.shape[-1])
        return reduce(torch.where(tri, x.unsqueeze(-2), torch.full((), fill, dtype=x.dtype)))
    return _log_step_scan(x, combine, fill)


def _scan_axis(x: torch.Tensor, dim: int):
    """(x with `dim` moved last, a function moving a result's last axis back)."""
    dim = dim % max(x.dim(), 1)
    return x.movedim(dim, -1), lambda t: t.movedim(-1, dim)


def sort_stable(x, *, stable=None, dim: int = -1, descending: bool = False):
    """aten.sort.stable(x, stable, dim, descending) ==> aten.sort(x, dim, descending).

    torch-mlir has no lowering for the `stable` overload; symhlo-lower-torch-sort lowers every
    `aten.sort` as a stable sort, so dropping the flag keeps eager's stable order exactly.
    """
    return aten.sort.default(x, dim, descending)


def fmax(a, b):
    """aten.fmax(a, b) ==> where(isnan(a), b, where(isnan(b), a, maximum(a, b))).

    NaN only when both are NaN, as eager. torch-mlir's own lowering compares a broadcast operand
    with itself under the result's type (`chlo.broadcast_compare` 0-d vs `?`), which does not
    verify when the operands' shapes differ.
    """
    return torch.where(torch.isnan(a), b, torch.where(torch.isnan(b), a, torch.maximum(a, b)))


def fmin(a, b):
    """aten.fmin(a, b) ==> where(isnan(a), b, where(isnan(b), a, minimum(a, b)))."""
    return torch.where(torch.isnan(a), b, torch.where(torch.isnan(b), a, torch.minimum(a, b)))


# -- scans -----------------------------------------------------------------------------------------

def cumprod(x, dim: int, *, dtype=None):
    """aten.cumprod(x, dim) ==> prod over the triangle j <= i (axis bound <= 1024) or a log-step
    scan of products; torch-mlir has no lowering of cumprod.

        y[..., i] = prod(where(j <= i, x[..., j], 1), -1)           (bound <= 1024)
        y = y * shift(y, k, 1) for k = 1, 2, 4, ...                  (longer axes)
    """
    if dtype is not None:
        x = x.to(dtype)
    elif not x.dtype.is_floating_point and not x.dtype.is_complex:
        x = x.to(torch.int64)  # integer cumprod accumulates in int64, as eager
    if x.dim() == 0:
        return x.clone()
    moved, back = _scan_axis(x, dim)
    y = _scan(moved, "prod")
    return back(y)


def logcumsumexp(x, dim: int):
    """aten.logcumsumexp(x, dim) ==> logsumexp over the triangle j <= i, or a log-step scan of
    logaddexp; torch-mlir decomposes it into an aten.cumsum of exp after its own cumsum lowering
    ran (left unsupported), and exp(x) overflows where eager does not."""
    if x.dim() == 0:
        return x.clone()
    moved, back = _scan_axis(x, dim)
    y = _scan(moved, "logaddexp")
    return back(y)


def _cum_extreme(x, dim: int, largest: bool):
    """(values, indices) of cummax (largest) / cummin with eager's rules: the index is the last
    j <= i holding the running extreme (eager updates on >= / <=), and once a NaN is seen the
    value is NaN and the index the last NaN's.

        m = scan(max, x)                              (min for cummin; NaN propagates)
        indices = scan(max, where(x == m or both NaN, j, -1))

    The second scan is exact because m is monotone: the last j <= i with x[j] == m[j] has
    m[j] == m[i] (the position where m first reached m[i] is such a j)."""
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    moved, back = _scan_axis(x, dim)
    values = _scan(moved, "max" if largest else "min")
    hit = moved == values
    if x.dtype.is_floating_point:
        hit = hit | (torch.isnan(moved) & torch.isnan(values))
    j = torch.arange(moved.shape[-1])
    indices = _scan(torch.where(hit, j, -1), "max")
    return back(values), back(indices)


def cummax(x, dim: int):
    """aten.cummax ==> running max and the index of its last occurrence (see _cum_extreme)."""
    return _cum_extreme(x, dim, True)


def cummin(x, dim: int):
    """aten.cummin ==> running min and the index of its last occurrence (see _cum_extreme)."""
    return _cum_extreme(x, dim, False)


def linalg_vander(x, *, N=None):
    """aten.linalg_vander(x, N) ==> cumprod over [1, x, x, ...] (N columns): x**i as eager's
    products. torch's own decomposition cats a ones column to a cumprod of a slice, and its
    contiguity checks guard on the `?` size (`n - 1 >= 2`)."""
    x = x.reshape(1) if x.dim() == 0 else x   # a 0-d x is one row, as eager
    n = x.shape[-1] if N is None else N
    if not x.dtype.is_floating_point and not x.dtype.is_complex:
        x = x.to(torch.int64)  # integer inputs give int64, as eager
    i = torch.arange(n)
    cols = torch.where(i == 0, torch.ones((), dtype=x.dtype), x.unsqueeze(-1))
    return cumprod(cols, -1)


# -- selection (through aten.sort: NaN largest, ties in input order) -------------------------------

def _pick(t: torch.Tensor, dim: int, pos: torch.Tensor, keepdim: bool) -> torch.Tensor:
    """t gathered along `dim` at `pos` (keepdim-shaped), squeezed unless keepdim."""
    out = torch.gather(t, dim, pos)
    return out if keepdim else out.squeeze(dim)


def kthvalue(x, k: int, dim: int = -1, keepdim: bool = False):
    """aten.kthvalue ==> the k-th smallest along `dim` of aten.sort (NaN sorts last, as eager's
    kthvalue orders it), and its index."""
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    dim = dim % x.dim()
    s, i = aten.sort.default(x, dim, False)
    v, ix = s.narrow(dim, k - 1, 1), i.narrow(dim, k - 1, 1)
    return (v, ix) if keepdim else (v.squeeze(dim), ix.squeeze(dim))


def _median_position(x, dim: int, ignore_nan: bool) -> torch.Tensor:
    """The sorted position (keepdim-shaped, int64) of the lower median along `dim`.

    median: (n - 1) // 2, or the first NaN (position = count of non-NaN) when there is one, so
    the result is NaN and its index the first NaN's, as eager. nanmedian: (c - 1) // 2 over the
    c non-NaN values, with C's truncation (0 when c = 0: the first NaN, as eager)."""
    count = (~torch.isnan(x)).sum(dim, keepdim=True) if x.dtype.is_floating_point else None
    if ignore_nan and count is not None:
        return torch.where(count > 0, (count - 1) // 2, 0)
    n = x.shape[dim]
    mid = torch.full(count.shape if count is not None else
                     [1 if a == dim else s for a, s in enumerate(x.shape)], (n - 1) // 2,
                     dtype=torch.int64)
    return mid if count is None else torch.where(count < n, count, mid)


def _median_dim(x, dim: int, keepdim: bool, ignore_nan: bool):
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    dim = dim % x.dim()
    s, i = aten.sort.default(x, dim, False)
    pos = _median_position(x, dim, ignore_nan)
    return _pick(s, dim, pos, keepdim), _pick(i, dim, pos, keepdim)


def median_dim(x, dim: int = -1, keepdim: bool = False):
    """aten.median.dim ==> the lower median of aten.sort along `dim` and its index; NaN (and the
    first NaN's index) where the slice holds a NaN."""
    return _median_dim(x, dim, keepdim, ignore_nan=False)


def nanmedian_dim(x, dim: int = -1, keepdim: bool = False):
    """aten.nanmedian.dim ==> the lower median of the non-NaN values along `dim` (NaN sorts
    last) and its index; all-NaN slices give NaN and the first NaN's index, as eager."""
    return _median_dim(x, dim, keepdim, ignore_nan=True)


def median(x):
    """aten.median (all elements) ==> median.dim of the flattened tensor's values."""
    return _median_dim(x.reshape(-1), 0, False, ignore_nan=False)[0]


def nanmedian(x):
    """aten.nanmedian (all elements) ==> nanmedian.dim of the flattened tensor's values."""
    return _median_dim(x.reshape(-1), 0, False, ignore_nan=True)[0]


def mode(x, dim: int = -1, keepdim: bool = False):
    """aten.mode ==> eager's CPU rule over aten.sort: the first longest run of equal values in
    ascending order (so the smallest most frequent value), its value and index taken at the
    run's last element (for equal values, the last in input order).

        s, p = sort(x, dim)                     NaN last; NaN != NaN, so each NaN is a run of 1
        start = cummax(where(s[i] != s[i-1] or i == 0, i, 0))      first position of i's run
        end = s[i] != s[i+1] or i == n - 1                            i ends its run
        i* = argmax(where(end, i - start + 1, 0))                   first longest run
        values, indices = s[i*], p[i*]

    Exact for NaN-free slices (ties: for slices of at most 16, where eager's std::sort is an
    insertion sort, the index is the last occurrence, as here). With NaN eager sorts with `<`,
    which NaN breaks, so its answer depends on positions ([nan, 1, 2] gives NaN, [2, nan, 1]
    gives 1); here NaN sorts last and each NaN is a run of its own.
    """
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    dim = dim % x.dim()
    s, p = aten.sort.default(x, dim, False)
    sm, back = _scan_axis(s, dim)
    n = sm.shape[-1]
    j = torch.arange(n)
    last = torch.full((), n - 1, dtype=torch.int64)
    # Neighbours by gathers, not slices: slicing a `?` axis makes torch guard on its size.
    prev = torch.index_select(sm, -1, torch.clamp(j - 1, min=0))
    nxt = torch.index_select(sm, -1, torch.minimum(j + 1, last))
    starts = (j == 0) | (sm != prev)
    ends = (j == last) | (sm != nxt)
    start = _scan(torch.where(starts, j, 0), "max")
    run = torch.where(ends, j - start + 1, 0)
    best = torch.argmax(run, -1, keepdim=True)     # the first of the longest runs
    return _pick(s, dim, back(best), keepdim), _pick(p, dim, back(best), keepdim)


# -- norms and distances ---------------------------------------------------------------------------

def _torch_decomposition(op):
    from torch._decomp import decomposition_table

    return decomposition_table[op]


def linalg_vector_norm(x, ord=2, dim=None, keepdim: bool = False, *, dtype=None):
    """aten.linalg_vector_norm ==> torch's reference (sum of |x|**ord, amax / amin of |x|, count
    of nonzeros), with a 0-d x taken as its 1-element 1-d view (torch-mlir's reductions over a
    `dim` of a 0-d operand fail)."""
    ref = _torch_decomposition(aten.linalg_vector_norm.default)
    if x.dim() == 0:
        dims = None if dim is None else [0] * (len(dim) if isinstance(dim, (list, tuple)) else 1)
        out = ref(x.reshape(1), ord, dims, keepdim, dtype=dtype)
        return out.reshape(())
    return ref(x, ord, dim, keepdim, dtype=dtype)


def linalg_norm(x, ord=None, dim=None, keepdim: bool = False, *, dtype=None):
    """aten.linalg_norm ==> torch's reference: vector_norm, or matrix_norm for 2-d reductions
    (whose 2 / -2 / 'nuc' orders go through an SVD, which symhlo refuses as `_linalg_svd`)."""
    import torch._refs.linalg as refs

    if isinstance(dim, int):
        dim = [dim]
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and x.dim() == 2)):
        return refs.matrix_norm(x, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    return linalg_vector_norm(x, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


def isclose(a, b, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False):
    """aten.isclose ==> eager's rule: a == b, or both NaN when equal_nan, or (when rtol or atol is
    nonzero) |a - b| finite and <= atol + |rtol * b|; integers compare in the default float
    dtype, as eager."""
    if not a.dtype.is_floating_point and not a.dtype.is_complex and a.dtype != torch.bool:
        a, b = a.to(torch.get_default_dtype()), b.to(torch.get_default_dtype())
    close = a == b
    if equal_nan and a.dtype.is_floating_point:
        close = close | (torch.isnan(a) & torch.isnan(b))
    if rtol == 0 and atol == 0:
        return close
    allowed = atol + torch.abs(rtol * b)
    actual = torch.abs(a - b)
    return close | (torch.isfinite(actual) & (actual <= allowed))


def addmv(self, mat, vec, *, beta=1, alpha=1):
    """aten.addmv ==> torch's decomposition (beta * self + alpha * mat @ vec; beta == 0 ignores
    self, NaN included)."""
    return _torch_decomposition(aten.addmv.default)(self, mat, vec, beta=beta, alpha=alpha)


def dist(a, b, p=2):
    """aten.dist(a, b, p) ==> vector_norm(a - b, p) over all elements."""
    return linalg_vector_norm(a - b, p)


def rms_norm(x, normalized_shape, weight=None, eps=None):
    """aten.rms_norm ==> eager's composite: x * rsqrt(mean(x**2 over the normalized dims) + eps)
    (* weight), computed in float32 for half inputs; eps defaults to the compute dtype's eps."""
    compute = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    eps = torch.finfo(compute).eps if eps is None else eps
    dims = list(range(x.dim() - len(normalized_shape), x.dim()))
    xc = x.to(compute)
    y = (xc * torch.rsqrt(xc.pow(2).mean(dims, keepdim=True) + eps)).to(x.dtype)
    if weight is not None:
        y = (y * weight).to(x.dtype)
    return y


def batch_norm_with_update_functional(x, weight, bias, running_mean, running_var,
                                      momentum: float, eps: float):
    """aten._batch_norm_with_update_functional ==> torch's decomposition (batch statistics,
    updated running stats), its 0-element `reserve` output sliced off x instead of empty(0),
    which torch-mlir lowers to a `tensor.empty` (not StableHLO); a ui8 literal does not lower
    either."""
    out = _torch_decomposition(aten._batch_norm_with_update_functional.default)(
        x, weight, bias, running_mean, running_var, momentum, eps)
    out = list(out)
    out[3] = x.reshape(-1)[:0].to(out[3].dtype)
    return tuple(out)


def _pairwise(x1, x2, p: float):
    """(..., P, R) p-norm distances between rows of x1 (..., P, M) and x2 (..., R, M), from the
    differences (exact, as eager's direct path; no |a|^2 + |b|^2 - 2ab cancellation)."""
    d = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if p == 0:
        return (d != 0).sum(-1).to(x1.dtype)
    if p == float("inf"):
        return d.amax(-1)
    if p == 1:
        return d.sum(-1)
    if p == 2:
        return d.pow(2).sum(-1).sqrt()
    return d.pow(p).sum(-1).pow(1.0 / p)


def cdist_forward(x1, x2, p: float, compute_mode=None):
    """aten._cdist_forward ==> p-norm of the broadcast differences (B, P, R, M).

    Eager's p = 2 path for P or R > 25 (or compute_mode 'use_mm_for_euclid_dist') is a matmul
    form that loses digits to cancellation; the difference form is exact and within its error."""
    return _pairwise(x1, x2, p)


def pdist_forward(x, p: float = 2):
    """aten._pdist_forward(x (n, m), p) ==> the distances of the pairs i < j in row-major order,
    n (n - 1) / 2 of them, gathered from the (n, n) distance matrix.

    Pair k's row i is the largest with start(i) = i n - i (i + 1) / 2 <= k: estimated with the
    f32 root i ~ (2n - 1 - sqrt((2n - 1)**2 - 8k)) / 2 of start(i) = k, then corrected by one
    step each way on exact int64 starts (the estimate is within 1 for n < 2**24); j = k -
    start(i) + i + 1."""
    n = x.shape[0]
    full = _pairwise(x, x, p)                                   # (n, n)
    count = n * (n - 1) // 2
    k = torch.arange(count)
    nn = torch.full((), n, dtype=torch.int64)
    b = 2 * nn - 1
    root = torch.sqrt((b * b - 8 * k).to(torch.float32))
    i = torch.floor((b.to(torch.float32) - root) / 2).to(torch.int64).clamp(min=0)

    def start(r):
        return r * nn - r * (r + 1) // 2

    i = torch.where(start(i) > k, i - 1, i)
    i = torch.where(start(i + 1) <= k, i + 1, i)
    j = k - start(i) + i + 1
    return torch.index_select(full.reshape(-1), 0, i * nn + j)


# -- scatters ----------------------------------------------------------------------------------------

_IDENTITY = {"sum": lambda dt: 0, "prod": lambda dt: 1, "amax": _lowest, "amin": _highest}


def _as_1d(*ts):
    return [t.reshape(1) if t.dim() == 0 else t for t in ts]


def scatter_reduce(self, dim: int, index, src, reduce: str, *, include_self: bool = True):
    """aten.scatter_reduce.two: kept when symhlo-lower-torch-scatter-reduce lowers it (rank >= 1,
    include_self, sum / prod / amax / amin), else _scatter_reduce."""
    if self.dim() > 0 and include_self and reduce in _IDENTITY:
        return NotImplemented
    return _scatter_reduce(self, dim, index, src, reduce, include_self=include_self)


def _scatter_reduce(self, dim: int, index, src, reduce: str, *, include_self: bool = True):
    """aten.scatter_reduce.two ==> forms symhlo-lower-torch-scatter-reduce lowers (a
    stablehlo.scatter whose region is add / multiply / maximum / minimum, include_self=True):

        include_self=False:  self.scatter(dim, index, identity) first (hit positions forget self)
        mean:                sum / count, count = 1 if include_self (0 if not) + hits, 0 -> 1;
                             integer dtypes divide with floor, as eager
    """
    if self.dim() == 0:
        out = _scatter_reduce(*_as_1d(self), dim, *_as_1d(index, src), reduce,
                              include_self=include_self)
        return out.reshape(())
    if reduce == "mean":
        base = self if include_self else self.scatter(dim, index, 0)
        total = aten.scatter_reduce.two(base, dim, index, src, "sum", include_self=True)
        count = torch.full_like(self, 1 if include_self else 0)
        count = aten.scatter_reduce.two(count, dim, index, torch.ones_like(src), "sum",
                                        include_self=True)
        count = torch.where(count == 0, torch.ones((), dtype=self.dtype), count)
        if self.dtype.is_floating_point or self.dtype.is_complex:
            return total / count
        return torch.div(total, count, rounding_mode="floor")
    if reduce not in _IDENTITY:
        return NotImplemented
    if not include_self:
        self = self.scatter(dim, index, _IDENTITY[reduce](self.dtype))
    return aten.scatter_reduce.two(self, dim, index, src, reduce, include_self=True)


def scatter_reduce_legacy(self, dim: int, index, src, *, reduce: str):
    """aten.scatter.reduce (reduce='add' / 'multiply') ==> scatter_reduce sum / prod with self."""
    mode = {"add": "sum", "multiply": "prod"}.get(reduce)
    if mode is None:
        return NotImplemented
    return _scatter_reduce(self, dim, index, src, mode, include_self=True)


def scatter_value_reduce(self, dim: int, index, value, *, reduce: str):
    """aten.scatter.value_reduce ==> scatter.reduce with src = full(index.shape, value)."""
    return scatter_reduce_legacy(self, dim, index, torch.full(index.shape, value, dtype=self.dtype),
                                 reduce=reduce)


def _fit(t: torch.Tensor, sizes) -> torch.Tensor:
    """t read at arange(sizes[d]) along each axis whose size is not statically sizes[d].

    For inputs eager accepts the sizes are equal and this is t itself; the gathers only say so
    without a guard. torch.export does not relate, say, index_reduce's source and self axes
    (its meta checks nothing), while a decomposition through scatter would guard on
    `source.shape[0] <= self.shape[0]` (symhlo.frontend.refusals rejects such guards)."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    for d, n in enumerate(sizes):
        if not statically_known_true(t.shape[d] == n):
            t = torch.index_select(t, d, torch.arange(n))
    return t


def index_reduce(self, dim: int, index, source, reduce: str, *, include_self: bool = True):
    """aten.index_reduce ==> scatter_reduce with the 1-d index broadcast along `dim` over self's
    other axes (source fitted to those sizes, see _fit)."""
    if self.dim() == 0:
        out = index_reduce(self.reshape(1), 0, index, source.reshape(1), reduce,
                           include_self=include_self)
        return out.reshape(())
    dim = dim % self.dim()
    sizes = [index.shape[0] if d == dim else self.shape[d] for d in range(self.dim())]
    shape = [1] * self.dim()
    shape[dim] = -1
    full = index.reshape(shape).expand(sizes)
    return _scatter_reduce(self, dim, full, _fit(source, sizes), reduce, include_self=include_self)


def put(self, index, source, accumulate: bool = False):
    """aten.put ==> scatter (or scatter-add) into the flattened self; negative indices count from
    the end, as eager (source fitted to index's length, see _fit)."""
    flat = self.reshape(-1)
    idx = index.reshape(-1)
    idx = torch.where(idx < 0, idx + torch.full((), flat.shape[0], dtype=idx.dtype), idx)
    src = _fit(source.reshape(-1), [idx.shape[0]])
    out = flat.scatter_add(0, idx, src) if accumulate else flat.scatter(0, idx, src)
    return out.reshape(self.shape)


def masked_scatter(self, mask, source):
    """aten.masked_scatter ==> where(mask, source.flatten()[k], self), k the running count of
    True in mask (row-major, mask broadcast to self), by an inclusive scan minus one."""
    m = mask.expand(self.shape).reshape(-1)
    k = _scan(m.to(torch.int64), "sum") - 1
    taken = torch.index_select(source.reshape(-1), 0, torch.clamp(k, min=0))
    return torch.where(m, taken, self.reshape(-1)).reshape(self.shape)


def embedding_renorm(weight, indices, max_norm: float, norm_type: float):
    """aten.embedding_renorm ==> the rows named by indices, where their norm exceeds max_norm,
    scaled by max_norm / (norm + 1e-7), as eager; other rows unchanged."""
    norms = linalg_vector_norm(weight, norm_type, [1], True)
    scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).to(weight.dtype)
    used = torch.zeros((weight.shape[0],), dtype=torch.int64).scatter(
        0, indices.reshape(-1), 1)
    return torch.where(used.unsqueeze(1) == 1, weight * scale, weight)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode: int = 0,
                  sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """aten.embedding_bag(.padding_idx) ==> each index's bag from `offsets`, then a scatter per
    bag (sum: index_add of the weighted rows; mean: sum / member count, 0 for an empty bag;
    max: scatter amax over zeros, 0 for an empty bag), rows at padding_idx left out, as eager.

        bag[j] = #{b : offsets[b] <= j} - 1        (j beyond the last bag: a dropped slot)

    Only the first result is computed: the other three (offset2bag, bag_size, max_indices) are
    internal, with layouts that vary with eager's code path, so they are `empty` tensors here;
    one that a program returns is refused (`tensor.empty` is not StableHLO) instead of guessed.
    """
    if indices.dim() != 1 or offsets is None or mode not in (0, 1, 2):
        return NotImplemented
    nbags = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    j = torch.arange(indices.shape[0])
    bag = (offsets[None, :] <= j[:, None]).sum(-1) - 1
    if padding_idx is None:
        keep = torch.ones_like(indices, dtype=torch.bool)
    else:  # a negative padding_idx counts from the end of weight, as eager
        pad = torch.full((), padding_idx, dtype=indices.dtype)
        if padding_idx < 0:
            pad = pad + torch.full((), weight.shape[0], dtype=indices.dtype)
        keep = indices != pad
    slots = offsets.shape[0] + 1                       # every bag, then a slot for what is dropped
    bag = torch.where(keep & (bag >= 0) & (bag < nbags), bag, slots - 1)
    rows = torch.index_select(weight, 0, indices)      # (N, D)
    if per_sample_weights is not None and mode == 0:
        rows = rows * per_sample_weights.unsqueeze(1).to(rows.dtype)
    d = weight.shape[1]
    zeros = torch.zeros((slots, d), dtype=weight.dtype)
    if mode == 2:
        out = _scatter_reduce(zeros, 0, bag.unsqueeze(1).expand(rows.shape), rows, "amax",
                              include_self=False)
    else:
        out = zeros.index_add(0, bag, rows)
        if mode == 1:
            count = torch.zeros((slots,), dtype=weight.dtype).index_add(
                0, bag, torch.ones(bag.shape, dtype=weight.dtype))
            out = out / torch.clamp(count, min=1).unsqueeze(1)
    out = out.narrow(0, 0, nbags)
    empty = torch.empty((0,), dtype=torch.int64)
    return out, empty, empty.clone(), empty.clone()


def segment_reduce(data, reduce: str, *, lengths=None, indices=None, offsets=None, axis: int = 0,
                   unsafe: bool = False, initial=None):
    """aten.segment_reduce over axis 0 with 1-d lengths or offsets ==> a scatter per segment:

        seg[j] = #{s : end[s] <= j}       (end = cumsum(lengths), or offsets[1:])
        sum / prod / max / min: scatter_reduce over full(initial or identity), include_self
        mean: (initial + sum) / count, an empty segment giving initial (NaN without one)

    as eager. Other axes and batched lengths keep the op."""
    if axis != 0 or indices is not None or reduce not in ("sum", "mean", "max", "min", "prod"):
        return NotImplemented
    if lengths is not None and lengths.dim() == 1:
        ends = _scan(lengths.to(torch.int64), "sum")
    elif offsets is not None and offsets.dim() == 1:
        ends = torch.index_select(offsets.to(torch.int64), 0, torch.arange(1, offsets.shape[0]))
    else:
        return NotImplemented
    nseg = ends.shape[0]
    j = torch.arange(data.shape[0])
    seg = (ends[None, :] <= j[:, None]).sum(-1)        # nseg: past the last segment, dropped
    rest = list(data.shape[1:])
    seg = seg.reshape([-1] + [1] * len(rest)).expand(data.shape)
    kind = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    shape = [nseg + 1] + rest
    if reduce == "mean":
        base = torch.full(shape, 0 if initial is None else initial, dtype=data.dtype)
        total = _scatter_reduce(base, 0, seg, data, "sum")
        count = _scatter_reduce(torch.zeros(shape, dtype=data.dtype), 0, seg, torch.ones_like(data), "sum")
        fill = float("nan") if initial is None else initial
        out = torch.where(count == 0, torch.full((), fill, dtype=data.dtype), total / count)
    else:
        start = _IDENTITY[kind](data.dtype) if initial is None else initial
        out = _scatter_reduce(torch.full(shape, start, dtype=data.dtype), 0, seg, data, kind)
    return out.narrow(0, 0, nseg)


# -- searching and counting ------------------------------------------------------------------------

def searchsorted(sorted_sequence, values, *, out_int32: bool = False, right: bool = False,
                 side=None, sorter=None):
    """aten.searchsorted.Tensor ==> eager's binary search, step by step, over the last axis:

        lo, hi = 0, m
        repeat ceil(log2(m + 1)) times (31 for an unbounded m):
            mid = (lo + hi) // 2 ; go = lo < hi and not (s[mid] >= v)     (right: s[mid] > v)
            lo, hi = where(go, mid + 1, lo), where(lo < hi and not go, mid, hi)

    The same probes as eager's loop, so also a NaN in the sequence (where a count of smaller
    elements would differ) gives eager's index. A 1-d sequence serves every value."""
    right = right or side == "right"
    s = sorted_sequence if sorter is None else torch.gather(sorted_sequence, -1, sorter)
    m = s.shape[-1]
    v = values
    one_d = s.dim() == 1
    flat_v = v.reshape(-1) if one_d else v
    lo = torch.zeros(flat_v.shape, dtype=torch.int64)
    hi = torch.full(flat_v.shape, m, dtype=torch.int64)
    bound = _upper_bound(m)
    steps = (bound if bound is not None else MAX_DIM_SIZE).bit_length()
    for _ in range(steps):
        open_ = lo < hi
        mid = torch.div(lo + hi, 2, rounding_mode="floor")
        probe = torch.clamp(mid, max=torch.clamp(hi - 1, min=0))
        if one_d:
            at = torch.index_select(s, 0, probe.reshape(-1)).reshape(probe.shape)
        else:
            at = torch.gather(s, -1, probe)
        go = ~(at > flat_v) if right else ~(at >= flat_v)
        lo = torch.where(open_ & go, mid + 1, lo)
        hi = torch.where(open_ & ~go, mid, hi)
    out = lo.reshape(v.shape) if one_d else lo
    return out.to(torch.int32) if out_int32 else out


def searchsorted_scalar(sorted_sequence, value, *, out_int32: bool = False, right: bool = False,
                        side=None, sorter=None):
    """aten.searchsorted.Scalar ==> searchsorted.Tensor of a 0-d value."""
    v = torch.full((), value, dtype=sorted_sequence.dtype)
    return searchsorted(sorted_sequence, v, out_int32=out_int32, right=right, side=side,
                        sorter=sorter)


def _bin_counts(x, pos, keep, bins: int, weight=None):
    """Counts (or summed weights) per bin of the flattened positions `pos` where `keep`, in
    x's dtype: a scatter-add into bins + 1 slots, the last one for what is left out."""
    pos = torch.where(keep, pos, bins)
    w = torch.ones(pos.shape, dtype=x.dtype) if weight is None else weight.reshape(-1).to(x.dtype)
    return torch.zeros((bins + 1,), dtype=x.dtype).index_add(0, pos, w).narrow(0, 0, bins)


def _data_range(x, lo, hi, widen: float):
    """(lo, hi) as 0-d tensors: the given range, or x's min / max when lo == hi, widened by
    `widen` each way when still equal (histc: 1, histogram: 0.5), as eager."""
    if lo == hi:
        lo_t, hi_t = x.min(), x.max()
    else:
        lo_t = torch.full((), lo, dtype=x.dtype)
        hi_t = torch.full((), hi, dtype=x.dtype)
    same = lo_t == hi_t
    return torch.where(same, lo_t - widen, lo_t), torch.where(same, hi_t + widen, hi_t)


def histc(x, bins: int = 100, min=0, max=0):
    """aten.histc ==> eager's linear binning in x's dtype, pos = trunc((x - lo) * bins / (hi -
    lo)), x == hi in the last bin, values outside [lo, hi] and NaN left out; lo == hi takes
    x's min / max (widened by 1 when equal)."""
    flat = x.reshape(-1)
    lo, hi = _data_range(flat, float(min), float(max), 1.0)
    pos = ((flat - lo) * bins / (hi - lo)).to(torch.int64)
    pos = torch.where(pos == bins, bins - 1, pos)
    keep = (flat >= lo) & (flat <= hi)
    return _bin_counts(flat, pos, keep, bins)


def _two_sum(a, b):
    """(s, e): s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a, b, split: float):
    """(p, e): p = fl(a * b) and a * b = p + e exactly (Dekker; `split` = 2**ceil(t/2) + 1)."""
    def halves(v):
        c = v * split
        hi = c - (c - v)
        return hi, v - hi
    p = a * b
    ah, al = halves(a)
    bh, bl = halves(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma(a, b, c, dtype):
    """fl(a * b + c) with one rounding, as eager's vectorized linspace computes it, from
    error-free transformations in `dtype` (exact but for double-rounding ties)."""
    split = {torch.float32: 4097.0, torch.float64: 134217729.0}.get(dtype)
    if split is None:
        return a * b + c
    p, pe = _two_product(a, b, split)
    s, se = _two_sum(p, c)
    return s + (se + pe)


def _linspace(lo, hi, steps: int, dtype):
    """torch.linspace(lo, hi, steps) for 0-d lo / hi, with eager's CPU kernel: step = (hi -
    lo) / (steps - 1), fma(i, step, lo) for i < steps // 2, fma(-(steps - 1 - i), step, hi)
    for the rest."""
    i = torch.arange(steps, dtype=torch.int64)
    step = (hi - lo) / (steps - 1)
    first = _fma(i.to(dtype), step, lo, dtype)
    second = _fma(-(steps - 1 - i).to(dtype), step, hi, dtype)
    return torch.where(i < steps // 2, first, second)


def histogram_bin_ct(x, bins: int = 100, *, range=None, weight=None, density: bool = False):
    """aten.histogram.bin_ct ==> (hist, bin_edges) as eager: edges = linspace(lo, hi, bins + 1)
    (lo == hi from the data, widened by 0.5), each value placed by trunc((x - lo) * bins /
    (hi - lo)) then corrected against the edges on either side (eager's local search), values
    outside [lo, hi] and NaN left out; density divides by the total and the bin widths."""
    flat = x.reshape(-1)
    lo_v, hi_v = (float(range[0]), float(range[1])) if range is not None else (0.0, 0.0)
    lo, hi = _data_range(flat, lo_v, hi_v, 0.5)
    edges = _linspace(lo, hi, bins + 1, x.dtype)
    pos = ((flat - lo) * bins / (hi - lo)).to(torch.int64)
    first = torch.clamp(pos - 1, min=0)
    last = torch.clamp(pos + 2, max=bins + 1)           # upper_bound over edges[first:last]
    found = first - 1
    for t in (0, 1, 2):
        e = torch.index_select(edges, 0, torch.clamp(first + t, 0, bins))
        found = found + ((first + t < last) & (e <= flat)).to(torch.int64)
    pos = torch.where(found == bins, bins - 1, found)
    keep = (flat >= lo) & (flat <= hi)
    hist = _bin_counts(flat, pos, keep, bins, weight)
    if density:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    return hist, edges


def nonzero_static(x, *, size: int, fill_value: int = -1):
    """aten.nonzero_static ==> the first `size` nonzero positions in row-major order, as
    coordinates, rows past the count filled with fill_value, as eager:

        m = flatten(x) != 0 ; r = scan(sum, m) - 1                (rank of each nonzero)
        pos = full(size + 1, -1).scatter(where(m and r < size, r, size), arange(numel))[:size]
        out[:, d] = (pos // stride_d) % size_d, fill_value where pos == -1
    """
    if not isinstance(size, int):
        return NotImplemented
    if size == 0 or x.dim() == 0:  # no rows or no columns: an empty result of the right shape
        # (an arange: torch-mlir lowers a 0-element `full` through empty_strided, unsupported)
        return torch.arange(0, dtype=torch.int64).reshape(size, x.dim()) if size == 0 \
            else torch.arange(0, dtype=torch.int64).reshape(size, 0)
    flat = (x != 0).reshape(-1)
    r = _scan(flat.to(torch.int64), "sum") - 1
    target = torch.where(flat & (r < size), r, size)
    pos = torch.full((size + 1,), -1, dtype=torch.int64).scatter(
        0, target, torch.arange(flat.shape[0])).narrow(0, 0, size)
    cols, stride = [], 1
    for n in reversed(list(x.shape)):
        n_t = torch.full((), n, dtype=torch.int64)
        cols.insert(0, torch.remainder(torch.div(pos, stride, rounding_mode="floor"), n_t))
        stride = stride * n
    if not cols:
        return torch.zeros((size, 0), dtype=torch.int64)
    out = torch.stack(cols, 1)
    return torch.where(pos.unsqueeze(1) < 0, fill_value, out)


def select_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """The decompositions of this module, for symhlo.frontend.decompositions' table."""
    return {
        aten.sort.stable: sort_stable,
        aten.fmax.default: fmax,
        aten.fmin.default: fmin,
        aten.cumprod.default: cumprod,
        aten.logcumsumexp.default: logcumsumexp,
        aten.linalg_vander.default: linalg_vander,
        aten.cummax.default: cummax,
        aten.cummin.default: cummin,
        aten.kthvalue.default: kthvalue,
        aten.median.default: median,
        aten.median.dim: median_dim,
        aten.nanmedian.default: nanmedian,
        aten.nanmedian.dim: nanmedian_dim,
        aten.mode.default: mode,
        aten.linalg_vector_norm.default: linalg_vector_norm,
        aten.linalg_norm.default: linalg_norm,
        aten.linalg_norm.ord_str: linalg_norm,
        aten.isclose.default: isclose,
        aten.addmv.default: addmv,
        aten.dist.default: dist,
        aten.rms_norm.default: rms_norm,
        aten._batch_norm_with_update_functional.default: batch_norm_with_update_functional,
        aten._cdist_forward.default: cdist_forward,
        aten._pdist_forward.default: pdist_forward,
        aten.scatter_reduce.two: scatter_reduce,
        aten.scatter.reduce: scatter_reduce_legacy,
        aten.scatter.value_reduce: scatter_value_reduce,
        aten.index_reduce.default: index_reduce,
        aten.put.default: put,
        aten.masked_scatter.default: masked_scatter,
        aten.embedding_renorm.default: embedding_renorm,
        aten.embedding_bag.padding_idx: embedding_bag,
        aten.embedding_bag.default: embedding_bag,
        aten._embedding_bag.default: embedding_bag,
        aten.segment_reduce.default: segment_reduce,
        aten.searchsorted.Tensor: searchsorted,
        aten.searchsorted.Scalar: searchsorted_scalar,
        aten.histc.default: histc,
        aten.histogram.bin_ct: histogram_bin_ct,
        aten.nonzero_static.default: nonzero_static,
    }
