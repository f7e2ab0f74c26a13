"""ATen decompositions of dense linear algebra over `?` matrix and batch dims: loops as
`while_loop` (stablehlo.while), one matrix column or row per iteration (floor 2, frontend
decompositions).

jax.export lowers these to LAPACK custom_calls no other consumer runs, and StableHLO's
`cholesky` / `triangular_solve` are not taken by IREE 3.13 with `?` sizes. Here each
factorization is a loop of n steps whose body is masked elementwise arithmetic and reductions
over the whole (..., n, n) batch, so every size stays symbolic. The loop bodies close over nothing: the matrices they read ride
in the loop state and sizes are read from it (closures over broadcast operands' sizes left
placeholders without metadata when two loops followed each other, which torch.export's verifier
refuses):

    aten.linalg_cholesky(a)                              a: (..., n, n), n = ?
  ==>
    while j < n:                                         (torch._higher_order_ops.while_loop)
      v = a[..., :, j] - L @ (L[..., j, :] * [k < j])    (rows and columns picked by one-hot masks)
      L[..., :, j] = where(i > j, v / sqrt(v[j]), where(i == j, sqrt(v[j]), 0))

LU uses partial pivoting (the row of largest |a[i, k]|, i >= k, swapped up, as LAPACK's getrf),
and det / slogdet / logdet come from it; solve and inv are one Gauss-Jordan loop with the same
pivoting over [a | b]. Work is O(n^3) per matrix, like LAPACK,
but without blocking: for small and medium n.

Error checks: torch's `linalg.cholesky`, `solve` and `inv` raise on a non-positive-definite or
singular input (`_linalg_check_errors`, a side effect torch.export keeps). A compiled program
cannot raise from inside; here those inputs give NaN or inf (a negative square root, a zero
pivot), never a plausible number. torch.export keeps composite ops such as `linalg.inv` and
`linalg.tensorinv` whole, so decomposing them here (not through torch's `*_ex` + check
composites) leaves no side effect behind. The `*_ex` variants return LAPACK's `info`, computed
here from the same factors (the first zero or non-positive pivot). Documented in README
(Complex numbers, FFT and linear algebra).
"""

from __future__ import annotations

from typing import Callable

import torch
from torch._higher_order_ops.while_loop import while_loop

from ...errors import UnsupportedOpError
from .orthogonal import fresh
from .views import current_source_line

aten = torch.ops.aten


def _col(m, e):
    """m[..., :, j] for the one-hot row vector e (n,) or (..., n)."""
    return (m * e.unsqueeze(-2)).sum(-1)


def _row(m, e):
    """m[..., j, :] for the one-hot e."""
    return (m * e.unsqueeze(-1)).sum(-2)


def _matvec(m, v):
    """m @ v over the last axis, elementwise (no matmul: v is (..., n))."""
    return (m * v.unsqueeze(-2)).sum(-1)


def _index(n, like):
    return torch.arange(n, device=like.device)


def _diag(m):
    """The diagonal of (..., n, n) as a masked row sum (torch.diagonal's n * n flattening made
    IREE 3.13 place a size computation shared with a loop outside any execution region)."""
    idx = _index(m.shape[-1], m)
    return (m * (idx.unsqueeze(-1) == idx).to(m.dtype)).sum(-1)


def cholesky(a, upper: bool = False):
    """aten.linalg_cholesky ==> the left-looking Cholesky loop above; upper: its transpose."""
    def cond(j, low, a):
        return j < a.shape[-1]

    def body(j, low, a):
        idx = _index(a.shape[-1], a)
        e = (idx == j).to(a.dtype)
        v = _col(a, e) - _matvec(low, _row(low, e) * (idx < j).to(a.dtype))
        d = (v * e).sum(-1, keepdim=True)
        s = torch.sqrt(d)
        col = torch.where(idx > j, v / s, torch.where(idx == j, s, torch.zeros_like(v)))
        return j + 1, low + col.unsqueeze(-1) * e, a.clone()

    _, low, _ = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), torch.zeros_like(a), a))
    return low.mT if upper else low


def solve_triangular(a, b, *, upper: bool, left: bool = True, unitriangular: bool = False):
    """aten.linalg_solve_triangular ==> substitution, one row of x per iteration (forward for
    lower, backward for upper). b: (..., n, k)."""
    if not left:
        return solve_triangular(a.mT, b.mT, upper=not upper, unitriangular=unitriangular).mT
    n = a.shape[-1]
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = a.expand(*batch, n, n), b.expand(*batch, *b.shape[-2:])

    def cond(t, x, a, b):
        return t < a.shape[-1]

    def body(t, x, a, b):
        idx = _index(a.shape[-1], a)
        # row n - 1 - t for upper: the flipped index (a size minus a tensor made an
        # aten.sub.Tensor of a !torch.int, which torch-mlir's backend pipeline rejects)
        e = ((idx.flip(0) if upper else idx) == t).to(a.dtype)
        row = _row(a, e)                                   # (..., n)
        rhs = (b * e.unsqueeze(-1)).sum(-2)                # b[..., i, :]: (..., k)
        acc = (row.unsqueeze(-1) * x).sum(-2)              # x's other rows (row i of x is 0)
        xi = rhs - acc
        if not unitriangular:
            xi = xi / (row * e).sum(-1, keepdim=True)
        return t + 1, x + e.unsqueeze(-1) * xi.unsqueeze(-2), a.clone(), b.clone()

    _, x, _, _ = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), torch.zeros_like(b), a, b))
    return x


def _steps(a):
    """min(r, c) of (..., r, c), without a guard when the matrices are provably square."""
    return a.shape[-1] if _square(a) else torch.sym_min(a.shape[-2], a.shape[-1])


def _getrf(a):
    """Partial-pivoting LU of (..., r, c) as LAPACK's getrf: (LU packed: unit L below the
    diagonal and U on and above it; the row interchanges as a one-hot (..., min(r, c), r)
    matrix, pv[k, p] = 1: row k was swapped with row p at step k). The pivot is the first row of
    largest |a[i, k]|, i >= k (isamax's choice)."""
    def cond(k, m, pv):
        return k < torch.sym_min(m.shape[-2], m.shape[-1])

    def body(k, m, pv):
        rows, cols = _index(m.shape[-2], m), _index(m.shape[-1], m)
        ek, ck = (rows == k).to(m.dtype), (cols == k).to(m.dtype)
        col = _col(m, ck)
        mag = torch.where(rows >= k, col.abs(), torch.full_like(col, -1.0))
        ep = (rows == mag.argmax(-1, keepdim=True)).to(m.dtype)
        rk, rp = _row(m, ek), _row(m, ep)
        m = m + (ek - ep).unsqueeze(-1) * (rp - rk).unsqueeze(-2)   # rows k and p swapped
        pv = pv + ek.unsqueeze(-1) * ep.unsqueeze(-2)               # pv[k, p] = 1
        row_k = _row(m, ek)
        pivot = (row_k * ck).sum(-1, keepdim=True)         # (..., 1)
        below, right = (rows > k).to(m.dtype), (cols > k).to(m.dtype)
        # a zero pivot (singular a) leaves the column unscaled, as getf2 does: det is then 0
        zero = pivot == 0
        col_k = _col(m, ck) * below
        l = torch.where(zero, 0.0, col_k / torch.where(zero, 1.0, pivot))
        # rows below k: columns right of k eliminated, column k replaced by the multipliers
        m = m - l.unsqueeze(-1) * (row_k * right).unsqueeze(-2) + (l - col_k).unsqueeze(-1) * ck
        return k + 1, m, pv

    # The interchanges ride in the loop as a one-hot (..., r, r) matrix of a's dtype: IREE
    # 3.13's stream conversion failed on a loop carrying an integer (..., n) pivot vector beside
    # the matrix ("region successor needs 8 inputs").
    r = a.shape[-2]
    pv0 = torch.zeros((*a.shape[:-2], r, r), dtype=a.dtype, device=a.device)
    _, m, pv = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), a.clone(), pv0))
    return m, (pv if _square(a) else pv[..., :_steps(a), :])


def lu_factor(a):
    """getrf of (..., r, c): (LU packed; pivots (..., min(r, c)) int32, 1-based: row k was
    swapped with row pivots[k] - 1 at step k; the number of row swaps (...,) int64)."""
    steps = _steps(a)
    if _known_zero(a.shape[-1]) or _known_zero(a.shape[-2]):
        # nothing to pivot (argmax over no rows cannot be traced)
        return a.clone(), torch.zeros((*a.shape[:-2], steps), dtype=torch.int32, device=a.device), \
            torch.zeros(a.shape[:-2], dtype=torch.int64, device=a.device)
    m, pv = _getrf(a)
    on_diag = (_index(steps, a).unsqueeze(-1) == _index(a.shape[-2], a)).to(a.dtype)
    swaps = ((pv * on_diag).sum(-1) == 0).sum(-1)
    return m, (pv.argmax(-1) + 1).to(torch.int32), swaps


def _first_failure(bad):
    """LAPACK's `info` from a (..., n) mask of failed steps: the first one, 1-based, else 0."""
    return torch.where(bad.any(-1), bad.to(torch.int32).argmax(-1) + 1, 0).to(torch.int32)


def lu_info(m):
    """getrf's `info` from the packed LU (..., r, c): the first k (1-based) with U[k, k] == 0,
    else 0 (int32)."""
    rows, cols = _index(m.shape[-2], m), _index(m.shape[-1], m)
    return _first_failure(((m == 0) & (rows.unsqueeze(-1) == cols)).any(-1))   # U[k, k] == 0


def gauss_jordan(a, b):
    """x with a x = b, b: (..., n, k): Gauss-Jordan elimination with partial pivoting on [a | b],
    one pivot column per iteration (one loop: the pivot row swapped up, scaled to 1, eliminated
    from every other row), O(n^2 (n + k)) per matrix."""
    n = a.shape[-1]
    if _empty(a):
        return b.to(a.dtype).clone()
    m0 = torch.cat([a, b.to(a.dtype)], dim=-1)                # (..., n, n + k)

    def cond(k, m):
        return k < m.shape[-2]

    def body(k, m):
        idx, cols = _index(m.shape[-2], m), _index(m.shape[-1], m)
        ek = (idx == k).to(a.dtype)
        ck = (cols == k).to(a.dtype)
        col = _col(m, ck)
        mag = torch.where(idx >= k, col.abs(), torch.full_like(col, -1.0))
        ep = (idx == mag.argmax(-1, keepdim=True)).to(a.dtype)
        rk, rp = _row(m, ek), _row(m, ep)
        m = m + (ek - ep).unsqueeze(-1) * (rp - rk).unsqueeze(-2)   # rows k and p swapped
        rk = _row(m, ek)
        rk = rk / (rk * ck).sum(-1, keepdim=True)                  # pivot row scaled to 1
        f = _col(m, ck) * (1.0 - ek)                               # multipliers, 0 at row k
        m = m - f.unsqueeze(-1) * rk.unsqueeze(-2)
        m = m + ek.unsqueeze(-1) * (rk - _row(m, ek)).unsqueeze(-2)
        return k + 1, m

    _, m = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), m0))
    return m[..., n:]


def _as_matrix_rhs(a, b):
    """(b as (..., n, k), whether it was a vector), torch.linalg.solve's rule."""
    vector = b.dim() == 1 or (b.dim() == a.dim() - 1 and b.shape == a.shape[:-1])
    return (b.unsqueeze(-1) if vector else b), vector


def solve(a, b, *, left: bool = True):
    """aten.linalg_solve ==> LU with partial pivoting, then two triangular solves."""
    if not left:
        return solve(a.mT, b.mT).mT
    bm, vector = _as_matrix_rhs(a, b)
    batch = torch.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    a = a.expand(*batch, *a.shape[-2:])
    bm = bm.expand(*batch, *bm.shape[-2:])
    x = gauss_jordan(a, bm)
    return x.squeeze(-1) if vector else x


def linalg_lu_factor(a, *, pivot: bool = True):
    """aten.linalg_lu_factor ==> (LU, pivots). pivot=False is not decomposed."""
    if not pivot:
        return NotImplemented
    m, piv, _ = lu_factor(a)
    return m, piv


def inv(a):
    """aten.linalg_inv ==> solve(a, I)."""
    n = a.shape[-1]
    eye = torch.eye(n, dtype=a.dtype, device=a.device).expand(a.shape)
    return solve(a, eye)


def inv_ex(a, *, check_errors: bool = False):
    """aten.linalg_inv_ex ==> (solve(a, I), getrf's info), as torch computes it (linalg_solve_ex
    against I): info the first zero pivot of the LU, 1-based, else 0."""
    info = lu_info(lu_factor(a)[0])
    return inv(a), info


def tensorinv(a, ind: int = 2):
    """aten.linalg_tensorinv ==> inv of a as a (prod(a.shape[:ind]), prod(a.shape[ind:])) matrix,
    reshaped to a.shape[ind:] + a.shape[:ind] (torch's own composite reaches inv through inv_ex
    and the `_linalg_check_errors` side effect, which a compiled program cannot raise: a
    singular input gives inf / NaN, as linalg.inv)."""
    rows, cols = a.shape[:ind], a.shape[ind:]
    n = 1
    for d in rows:
        n = n * d
    return inv(a.reshape(n, -1)).reshape(*cols, *rows)


def det(a):
    """aten.linalg_det ==> (-1)^swaps * prod(diag(U))."""
    m, _, swaps = lu_factor(a)
    sign = 1.0 - 2.0 * torch.remainder(swaps, 2).to(a.dtype)
    return sign * _diag(m).prod(-1)


def slogdet(a):
    """aten.linalg_slogdet ==> (sign, log|det|) from the LU diagonal."""
    m, _, swaps = lu_factor(a)
    diag = _diag(m)
    sign = (1.0 - 2.0 * torch.remainder(swaps, 2).to(a.dtype)) * torch.sign(diag).prod(-1)
    return sign, diag.abs().log().sum(-1)


def logdet(a):
    """aten.logdet ==> log(det): NaN for a negative determinant, -inf for zero (torch's rule)."""
    sign, logabs = slogdet(a)
    return torch.where(sign < 0, torch.full_like(logabs, float("nan")),
                       torch.where(sign == 0, torch.full_like(logabs, -float("inf")), logabs))


def triangular_solve(b, a, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False):
    """aten.triangular_solve (the old API: solves a x = b, a^T x = b when transpose) ==>
    (x, a.clone())."""
    coeff = a.mT if transpose else a
    x = solve_triangular(coeff, b, upper=upper != transpose, unitriangular=unitriangular)
    return x, a.clone()


def cholesky_solve(b, factor, upper: bool = False):
    """aten.cholesky_solve ==> two triangular solves with the factor (a = L L^T, or U^T U)."""
    low = factor.mT if upper else factor
    y = solve_triangular(low, b, upper=False)
    return solve_triangular(low.mT, y, upper=True)


def cholesky_inverse(factor, upper: bool = False):
    """aten.cholesky_inverse ==> cholesky_solve(I, factor)."""
    n = factor.shape[-1]
    eye = torch.eye(n, dtype=factor.dtype, device=factor.device).expand(factor.shape)
    return cholesky_solve(eye, factor, upper)


def _interchanges(pivots, r, dtype):
    """LAPACK's 1-based pivots (..., k) ==> the one-hot (..., k, r) interchange matrix of _getrf."""
    return (pivots.to(torch.int64).unsqueeze(-1) - 1 == _index(r, pivots)).to(dtype)


def _row_permutation(pv):
    """The one-hot interchanges pv (..., k, r) ==> Q (..., r, r) with Q a = L U (Q = P^T): the
    identity with the swaps applied in order, one per iteration."""
    r = pv.shape[-1]
    q0 = torch.eye(r, dtype=pv.dtype, device=pv.device).expand(*pv.shape[:-2], r, r).clone()

    def cond(k, q, pv):
        return k < pv.shape[-2]

    def body(k, q, pv):
        ek = (_index(pv.shape[-1], pv) == k).to(pv.dtype)
        ep = _row(pv, (_index(pv.shape[-2], pv) == k).to(pv.dtype))     # pv[k, :]
        rk, rp = _row(q, ek), _row(q, ep)
        return k + 1, q + (ek - ep).unsqueeze(-1) * (rp - rk).unsqueeze(-2), pv.clone()

    _, q, _ = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), q0, pv))
    return q


def _empty(a) -> bool:
    """Whether a's matrices are provably 0 x 0."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return statically_known_true(a.shape[-1] == 0)


def _known_zero(size) -> bool:
    """Whether a size is provably 0."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return statically_known_true(size == 0)


def _square(a) -> bool:
    """Whether a's last two sizes are provably equal (asking would guard on the example's)."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return statically_known_true(a.shape[-1] == a.shape[-2])


def _unpack_data(m):
    """(L, U) of the packed (..., r, c) LU: L (..., r, k) unit lower, U (..., k, c) upper."""
    r = m.shape[-2]
    if _square(m):
        low, up = m, m
    else:
        k = _steps(m)
        low, up = m[..., :, :k], m[..., :k, :]
    eye = (_index(r, m).unsqueeze(-1) == _index(low.shape[-1], m)).to(m.dtype)
    return low.tril(-1) + eye, up.triu()


def lu_unpack(lu_data, pivots, unpack_data: bool = True, unpack_pivots: bool = True):
    """aten.lu_unpack ==> (P, L, U); a part not unpacked is an empty (0,) tensor, as torch's."""
    empty = lu_data.new_zeros((0,))
    low, up = _unpack_data(lu_data) if unpack_data else (empty, empty)
    if not unpack_pivots:
        return empty, low, up
    pv = _interchanges(pivots, lu_data.shape[-2], lu_data.dtype)
    return _row_permutation(pv).mT, low, up


def linalg_lu(a, *, pivot: bool = True):
    """aten.linalg_lu ==> (P, L, U) with a = P L U (partial pivoting)."""
    if not pivot:
        return NotImplemented
    if _known_zero(a.shape[-1]) or _known_zero(a.shape[-2]):
        return NotImplemented
    m, pv = _getrf(a)
    return (_row_permutation(pv).mT, *_unpack_data(m))


def linalg_lu_factor_ex(a, *, pivot: bool = True, check_errors: bool = False):
    """aten.linalg_lu_factor_ex ==> (LU, pivots, info): info is getrf's (the first zero pivot,
    1-based, else 0)."""
    if not pivot:
        return NotImplemented
    m, piv, _ = lu_factor(a)
    return m, piv, lu_info(m)


def lu_solve(lu_data, pivots, b, *, left: bool = True, adjoint: bool = False):
    """aten.linalg_lu_solve ==> a x = b with a = P L U: x = U^-1 L^-1 P^T b (left); with
    adjoint a^T x = b: x = P L^-T U^-T b; right-hand forms by transposition."""
    if not left:   # x a = b  <=>  a^T x^T = b^T
        return lu_solve(lu_data, pivots, b.mT, adjoint=not adjoint).mT
    n = lu_data.shape[-1]
    batch = torch.broadcast_shapes(lu_data.shape[:-2], b.shape[:-2])
    lu_data, b = lu_data.expand(*batch, n, n), b.expand(*batch, *b.shape[-2:])
    pv = _interchanges(pivots.expand(*batch, n), n, lu_data.dtype)
    if not adjoint:
        y = solve_triangular(lu_data, _row_permutation(pv) @ b, upper=False, unitriangular=True)
        return solve_triangular(lu_data, y, upper=True)
    # adjoint: a^T x = b solved as a system of its own, a = P L U rebuilt by matmuls and
    # transposed (Gauss-Jordan). Substitution loops with U^T, L^T and then P applied after
    # them (as a matrix product or a row-swap loop) failed iree-compile 3.13 ("'stream.async.
    # dispatch' op : streamable op expected to be in an execution region") or, as a swap loop,
    # returned wrong rows (OpInfo's linalg.lu_solve, adjoint=True, left=True).
    low, up = _unpack_data(lu_data)
    return gauss_jordan((_row_permutation(pv).mT @ (low @ up)).mT, b)


def cholesky_ex(a, *, upper: bool = False, check_errors: bool = False):
    """aten.linalg_cholesky_ex ==> (L, info): info is the first k (1-based) whose pivot is not
    positive (potrf's), else 0. L past that step is unspecified in torch (here NaN)."""
    low = cholesky(a)
    info = _first_failure(~(_diag(low) > 0))
    return (low.mT if upper else low), info


def solve_ex(a, b, *, left: bool = True, check_errors: bool = False):
    """aten._linalg_solve_ex ==> (result, LU, pivots, info): Gauss-Jordan for the result, getrf
    for the factors and info."""
    m, piv, _ = lu_factor(a)
    return solve(a, b, left=left), m, piv, lu_info(m)


# Bunch-Kaufman's threshold (LAPACK's dsytf2: alpha = (1 + sqrt(17)) / 8): a 1x1 pivot is kept
# while |a_kk| >= alpha * the largest |a_ik| below it.
_BK_ALPHA = (1.0 + 17.0 ** 0.5) / 8.0


def _swap_symmetric(m, e1, e2, trailing):
    """Rows and columns e1 <-> e2 (one-hot (..., n)) of m's symmetric trailing block (rows and
    columns in `trailing`): the L columns left of it keep their rows, as sytf2's."""
    d = (e1 - e2).unsqueeze(-1)
    m = m + d * ((_row(m, e2) - _row(m, e1)) * trailing).unsqueeze(-2)
    return m + ((_col(m, e2) - _col(m, e1)) * trailing).unsqueeze(-1) * d.mT


def ldl_factor_ex(a, *, hermitian: bool = False, check_errors: bool = False):
    """aten.linalg_ldl_factor_ex ==> (LD, pivots, info): LAPACK's sytf2 (lower, Bunch-Kaufman
    pivoting) as one loop of n steps, each matrix at its own column k (a 2x2 pivot takes
    columns k and k + 1, so the matrices of a batch advance apart; k >= n: idle):

        while t < n:
          colmax = max |m[i, k]|, i > k;  rowmax = max |m[imax, j]|, j >= k, j != imax
          1x1 at k     when |m_kk| >= alpha colmax or |m_kk| >= alpha colmax (colmax / rowmax)
          1x1 at imax  when |m[imax, imax]| >= alpha rowmax (k <-> imax swapped), else
          2x2 at k, k + 1 (k + 1 <-> imax swapped)
          trailing block -= X D^-1 X^T; L's column(s) = X D^-1 (sytf2's 2x2 formulas)

    m's trailing block is kept full (symmetric), L's columns below the diagonal (sytf2 swaps
    only the trailing block: L's rows stay). LD is m's lower triangle; pivots LAPACK's (1-based,
    both entries of a 2x2 block -(p + 1)); info the first column (1-based) that was all zero or
    NaN at its step (sytf2 leaves it as it is: LD_kk is 0 or NaN with a 1x1 pivot), else 0.

    IREE 3.13 (CPU) returned this loop wrong, silently, in several forms: with the pivots
    carried from a splat of zeros (all pivots 0), with the step k as a float (the final k in
    the pivots' buffer: [5, 0, 0, 0, 0] for [1, 2, 3, 4, 5]), or with k read from the pivots
    (LD mostly 0). As written (k an integer, the pivots from zeros made out of the data) it
    matched eager's LD and pivots on OpInfo's samples and on 300 random symmetric, indefinite and
    singular matrices (eagerly).

    The 1x1 update subtracts x_i (x_j / d) with one rounding (see the body): eager's LAPACK
    (fused multiply-add) leaves rounding noise, not an exact 0, on a matrix singular in exact
    arithmetic (OpInfo's second size repeats a row and column), and info must agree."""
    if a.is_complex():
        return NotImplemented
    n = a.shape[-1]
    batch = a.shape[:-2]
    if _empty(a):
        return (a.tril(), torch.zeros((*batch, n), dtype=torch.int32, device=a.device),
                torch.zeros(batch, dtype=torch.int32, device=a.device))
    m0 = a.tril()
    m0 = m0 + m0.tril(-1).mT                              # sytrf reads the lower triangle only
    # zeros made from the data, not a splat: carried from a broadcast constant, IREE 3.13 (CPU)
    # returned the pivots all 0 (the loop's updates lost), silently
    d0 = _diag(m0)
    piv0 = torch.where(torch.isfinite(d0), d0 * 0.0, torch.zeros_like(d0))
    # each matrix's step k, an integer: as a float (a splat, or made from the data) IREE 3.13
    # (CPU) returned LD and the pivots wrong
    k0 = torch.zeros(batch, dtype=torch.int64, device=a.device)

    def cond(t, m, piv, k):
        return t < m.shape[-1]

    def body(t, m, piv, k):
        fi = _index(m.shape[-1], m).to(m.dtype)
        kk = k.unsqueeze(-1).to(m.dtype)                    # (..., 1)
        ek = (fi == kk).to(m.dtype)                         # zero once k >= n: nothing changes
        active = ek.sum(-1, keepdim=True) > 0
        trailing = (fi >= kk).to(m.dtype)
        below = fi > kk
        colk = _col(m, ek)
        absakk = (colk * ek).sum(-1, keepdim=True).abs()
        mag = torch.where(below, colk.abs(), torch.full_like(colk, -1.0))
        colmax = mag.amax(-1, keepdim=True).clamp(min=0.0)
        imax = mag.argmax(-1, keepdim=True).to(m.dtype)      # the first largest (idamax)
        ei = (fi == imax).to(m.dtype)
        rowi = _row(m, ei)
        rmag = torch.where((fi >= kk) & (fi != imax), rowi.abs(), torch.full_like(rowi, -1.0))
        rowmax = rmag.amax(-1, keepdim=True).clamp(min=0.0)
        aii = (rowi * ei).sum(-1, keepdim=True).abs()
        zero = (torch.maximum(absakk, colmax) == 0) | torch.isnan(absakk)
        keep = zero | (absakk >= _BK_ALPHA * colmax) | \
            (absakk * torch.where(rowmax > 0, rowmax, 1.0) >= _BK_ALPHA * colmax * colmax)
        two = ~keep & ~(aii >= _BK_ALPHA * rowmax) & active
        kp = torch.where(keep, kk, imax)
        at = torch.where(two, kk + 1, kk)                   # the row swapped with kp
        m = _swap_symmetric(m, (fi == at).to(m.dtype) * active, (fi == kp).to(m.dtype) * active,
                            trailing)
        # 1x1 pivot d = m_kk: L's column x (1 / d), trailing block -= x (x (1 / d))^T (sytf2's
        # dsyr and dscal, rounded as they are: a matrix singular in exact arithmetic then gets
        # LAPACK's rounding-noise pivot, not an exact 0)
        colk = _col(m, ek)
        d = (colk * ek).sum(-1, keepdim=True)
        x = torch.where(below, colk, 0.0)
        l1 = x * (1.0 / torch.where(d == 0, 1.0, d))
        # 2x2 pivot D = [[p, q], [q, r]] at k, k+1: [wk, wk1] = [x, y] D^-1 (sytf2's formulas)
        ek1 = (fi == kk + 1).to(m.dtype)
        col1 = _col(m, ek1)
        p, q, r = d, (colk * ek1).sum(-1, keepdim=True), (col1 * ek1).sum(-1, keepdim=True)
        below2 = fi > kk + 1
        x2, y2 = torch.where(below2, colk, 0.0), torch.where(below2, col1, 0.0)
        qs = torch.where(q == 0, 1.0, q)
        d11, d22 = r / qs, p / qs
        den = d11 * d22 - 1.0
        d21 = 1.0 / torch.where(den == 0, 1.0, den) / qs
        wk, wk1 = d21 * (d11 * x2 - y2), d21 * (d22 * y2 - x2)
        # x_i (x_j / d) subtracted with one rounding, as LAPACK's fused multiply-add (in float64
        # for float32: the product is exact there). Rounded twice, a matrix singular in exact
        # arithmetic got an exact 0 pivot where LAPACK leaves rounding noise (info n vs 0).
        wide = torch.float64 if m.dtype == torch.float32 else m.dtype
        m1 = (m.to(wide) - x.to(wide).unsqueeze(-1) * l1.to(wide).unsqueeze(-2)).to(m.dtype)
        m1 = torch.where((ek.unsqueeze(-2) > 0) & below.unsqueeze(-1), l1.unsqueeze(-1), m1)
        upd2 = x2.unsqueeze(-1) * wk.unsqueeze(-2) + y2.unsqueeze(-1) * wk1.unsqueeze(-2) \
            - (wk - x2).unsqueeze(-1) * ek.unsqueeze(-2) - (wk1 - y2).unsqueeze(-1) * ek1.unsqueeze(-2)
        skip = (zero | ~active).unsqueeze(-1)
        m = torch.where(skip, m, torch.where(two.unsqueeze(-1), m - upd2, m1))
        pk = torch.where(two, -(kp + 1.0), kp + 1.0)
        piv = piv + pk * (ek + ek1 * two.to(m.dtype))
        k = k + ((1 + two.to(k.dtype)) * active.to(k.dtype)).squeeze(-1)
        return t + 1, m, piv, k

    _, m, piv, _ = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), m0, piv0, k0))
    ld = m.tril()
    dk = _diag(ld)
    info = _first_failure((piv > 0) & ((dk == 0) | torch.isnan(dk)))
    return ld, piv.to(torch.int32), info


def ldl_factor(a, *, hermitian: bool = False):
    """aten.linalg_ldl_factor ==> ldl_factor_ex's (LD, pivots). torch raises where info != 0 (an
    all-zero column: `_linalg_check_errors`, which a compiled program cannot raise); here LD is
    NaN there instead of sytf2's partial factors, never a plausible number."""
    out = ldl_factor_ex(a, hermitian=hermitian)
    if out is NotImplemented:
        return out
    ld, piv, info = out
    bad = (info != 0).unsqueeze(-1).unsqueeze(-1)
    return torch.where(bad, torch.full_like(ld, float("nan")), ld), piv


def _swap_rows(b, e1, e2):
    """Rows e1 <-> e2 (one-hot (..., n)) of b (..., n, r)."""
    d = (e1 - e2).unsqueeze(-1)
    return b + d * (_row(b, e2) - _row(b, e1)).unsqueeze(-2)


def ldl_solve(ld, pivots, b, *, hermitian: bool = False):
    """aten.linalg_ldl_solve ==> x with a x = b from sytrf's (LD, pivots): LAPACK's sytrs
    (lower) as two loops, each matrix at its own k (a 2x2 block takes two rows):

        forward, k = 0 ..:  rows swapped by pivots[k]; b[i > k] -= L[i, k] b[k] (two columns for
                            a 2x2 block); b[k] /= D_kk (D's 2x2 block solved by sytrs' formulas)
        backward, k = n - 1 ..:  b[k] -= L[i > k, k]^T b[i > k] (and b[k - 1] for a 2x2 block);
                            rows swapped back

    Any pivots are taken as sytrs takes them (a swap with row |p| - 1). The row counters start
    from zeros made out of the data, not a splat (see ldl_factor_ex: IREE 3.13 lost a loop's
    updates to a state carried from a splat)."""
    if ld.is_complex() or b.is_complex():
        return NotImplemented
    n = ld.shape[-1]
    batch = torch.broadcast_shapes(ld.shape[:-2], b.shape[:-2], pivots.shape[:-1])
    ld = ld.expand(*batch, n, n).contiguous()
    b = b.expand(*batch, *b.shape[-2:]).contiguous()
    piv = pivots.expand(*batch, n).to(ld.dtype).contiguous()
    if _empty(ld):
        return b.clone()
    k0 = (piv * 0.0).sum(-1)          # each matrix's row k; data-made zeros, as ldl_factor_ex's

    def forward_cond(t, k, x, ld, piv):
        return t < ld.shape[-1]

    def forward(t, k, x, ld, piv):
        fi = _index(ld.shape[-1], ld).to(ld.dtype)
        kk = k.unsqueeze(-1)
        ek, ek1 = (fi == kk).to(ld.dtype), (fi == kk + 1).to(ld.dtype)
        active = ek.sum(-1, keepdim=True) > 0
        pk = (piv * ek).sum(-1, keepdim=True)
        two = (pk < 0) & active
        at = torch.where(two, kk + 1, kk)
        kp = torch.where(two, -pk - 1, pk - 1)
        x = _swap_rows(x, (fi == at).to(ld.dtype) * active, (fi == kp).to(ld.dtype) * active)
        c0, c1 = _col(ld, ek), _col(ld, ek1)
        x0, x1 = _row(x, ek), _row(x, ek1)                  # (..., r)
        # 1x1: x[i > k] -= L[i, k] x[k]; x[k] /= d
        d = (c0 * ek).sum(-1, keepdim=True)
        l0 = torch.where(fi > kk, c0, 0.0)
        y1 = x - l0.unsqueeze(-1) * x0.unsqueeze(-2)
        y1 = y1 + ek.unsqueeze(-1) * (x0 / d - x0).unsqueeze(-2)
        # 2x2 [[p, q], [q, r]]: x[i > k + 1] -= L[i, k] x[k] + L[i, k + 1] x[k + 1]; then sytrs'
        q = (c0 * ek1).sum(-1, keepdim=True)
        r = (c1 * ek1).sum(-1, keepdim=True)
        below2 = fi > kk + 1
        y2 = x - torch.where(below2, c0, 0.0).unsqueeze(-1) * x0.unsqueeze(-2) \
            - torch.where(below2, c1, 0.0).unsqueeze(-1) * x1.unsqueeze(-2)
        qs = torch.where(q == 0, 1.0, q)
        akm1, ak = d / qs, r / qs
        den = akm1 * ak - 1.0
        bkm1, bk = x0 / qs, x1 / qs
        n0, n1 = (ak * bkm1 - bk) / den, (akm1 * bk - bkm1) / den
        y2 = y2 + ek.unsqueeze(-1) * (n0 - x0).unsqueeze(-2) + ek1.unsqueeze(-1) * (n1 - x1).unsqueeze(-2)
        x = torch.where(active.unsqueeze(-1), torch.where(two.unsqueeze(-1), y2, y1), x)
        k = k + ((1.0 + two.to(k.dtype)) * active.to(k.dtype)).squeeze(-1)
        return t + 1, k, x, ld.clone(), piv.clone()

    def backward(t, k, x, ld, piv):
        # k counts from the end: row n - 1 - k (a flipped iota: see solve_triangular)
        fr = _index(ld.shape[-1], ld).flip(0).to(ld.dtype)
        kk = k.unsqueeze(-1)
        ek, ekm1 = (fr == kk).to(ld.dtype), (fr == kk + 1).to(ld.dtype)
        active = ek.sum(-1, keepdim=True) > 0
        pk = (piv * ek).sum(-1, keepdim=True)
        two = (pk < 0) & active
        after = (fr < kk).to(ld.dtype)                      # rows i > row k
        c0 = _col(ld, ek) * after
        c1 = _col(ld, ekm1) * after
        x = x - ek.unsqueeze(-1) * (c0.unsqueeze(-1) * x).sum(-2).unsqueeze(-2) \
            - (ekm1 * two).unsqueeze(-1) * (c1.unsqueeze(-1) * x).sum(-2).unsqueeze(-2)
        kp = torch.where(two, -pk - 1, pk - 1)
        fi = _index(ld.shape[-1], ld).to(ld.dtype)
        x = _swap_rows(x, ek, (fi == kp).to(ld.dtype) * active)
        k = k + ((1.0 + two.to(k.dtype)) * active.to(k.dtype)).squeeze(-1)
        return t + 1, k, x, ld.clone(), piv.clone()

    state = (torch.zeros((), dtype=torch.int64), k0, b.clone(), ld, piv)
    _, _, x, _, _ = while_loop(forward_cond, forward, state)
    _, _, x, _, _ = while_loop(forward_cond, backward,
                               (torch.zeros((), dtype=torch.int64), (piv * 0.0).sum(-1), fresh(x),
                                ld, piv))
    return x


def linalg_eig(a, *args, **kwargs):
    """aten.linalg_eig / linalg_eigvals ==> refused, naming why (torch-mlir's own message only
    named the op): a general eigendecomposition's values and vectors are complex, found by
    LAPACK's geev (Hessenberg reduction, then shifted QR iterations to convergence)."""
    raise UnsupportedOpError(
        f"unsupported op 'aten.linalg_eig' at {current_source_line()}: a general (non-symmetric) "
        "eigendecomposition (torch.linalg.eig / eigvals), whose eigenvalues and eigenvectors are "
        "complex (LAPACK's geev: Hessenberg reduction, then shifted QR iterations); symhlo has "
        "no decomposition of it. For a symmetric matrix use torch.linalg.eigh / eigvalsh")


_EXP_TAYLOR_DEGREE = 18   # 1/19! ~ 8e-18: below float64's epsilon once ||a / 2^s||_1 <= 1


def _squarings(a):
    """s = max(0, ceil(log2 ||a||_1)) per matrix (...,), 0 where the norm is not finite."""
    s = torch.clamp(torch.ceil(torch.log2(a.abs().sum(-2).amax(-1))), min=0.0)
    return torch.where(torch.isfinite(s), s, torch.zeros_like(s))


def matrix_exp(a):
    """aten.linalg_matrix_exp ==> scaling and squaring: s = max(0, ceil(log2 ||a||_1)) per
    matrix, the degree-18 Taylor polynomial of a / 2^s (Horner, unrolled), then a loop squaring
    each matrix while its count is below its s (the loop runs max(s) steps over the batch).

    Unbatched (n, n) only: over (b, n, n) IREE 3.13 failed on the squaring loop ("region
    successor needs N inputs") however s rode in it (a (b,) vector, broadcast to (b, n, n), or
    recomputed from the carried input), so a batch is left to torch-mlir (refused by name);
    unbatched, s is one 0-d count."""
    if a.dim() != 2:
        return NotImplemented
    n = a.shape[-1]
    eye = torch.eye(n, dtype=a.dtype, device=a.device)
    x = a / torch.exp2(_squarings(a))[..., None, None]
    p = eye.expand(a.shape)
    for k in range(_EXP_TAYLOR_DEGREE, 0, -1):
        p = eye + (x @ p) / k

    def cond(k, s, p):
        return k < s

    def body(k, s, p):
        return k + 1, s.clone(), p @ p

    _, _, p = while_loop(cond, body, (torch.zeros((), dtype=a.dtype, device=a.device),
                                      _squarings(a), p))
    return p


def linalg_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """The linear-algebra entries symhlo adds to the decomposition table."""
    return {
        aten.linalg_cholesky.default: cholesky,
        aten.cholesky.default: lambda a, upper=False: cholesky(a, upper),
        aten.linalg_solve.default: solve,
        aten.linalg_solve_triangular.default: solve_triangular,
        aten.linalg_inv.default: inv,
        aten.linalg_inv_ex.default: inv_ex,
        aten.linalg_ldl_solve.default: ldl_solve,
        aten.linalg_eig.default: linalg_eig,
        aten.linalg_eigvals.default: linalg_eig,
        aten.linalg_ldl_factor_ex.default: ldl_factor_ex,
        aten.linalg_ldl_factor.default: ldl_factor,
        aten.linalg_tensorinv.default: tensorinv,
        aten.linalg_det.default: det,
        aten.det.default: det,
        aten.linalg_slogdet.default: slogdet,
        aten.logdet.default: logdet,
        aten.triangular_solve.default: triangular_solve,
        aten.cholesky_solve.default: cholesky_solve,
        aten.cholesky_inverse.default: cholesky_inverse,
        aten.lu_unpack.default: lu_unpack,
        aten.linalg_lu.default: linalg_lu,
        aten.linalg_lu_solve.default: lu_solve,
        aten.linalg_lu_factor.default: linalg_lu_factor,
        aten.linalg_lu_factor_ex.default: linalg_lu_factor_ex,
        aten.linalg_cholesky_ex.default: cholesky_ex,
        aten.linalg_matrix_exp.default: matrix_exp,
        aten._linalg_solve_ex.default: solve_ex,
    }
