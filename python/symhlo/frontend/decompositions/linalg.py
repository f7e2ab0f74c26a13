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
pivot), never a plausible number, and the `*_ex` variants return `info` = 0. This is
documented in README (Complex numbers, FFT and linear algebra).
"""

from __future__ import annotations

from typing import Callable

import torch
from torch._higher_order_ops.while_loop import while_loop

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


def cholesky_ex(a, upper: bool = False, check_errors: bool = False):
    """aten.linalg_cholesky_ex ==> (cholesky(a), info = 0)."""
    return cholesky(a, upper), torch.zeros(a.shape[:-2], dtype=torch.int32, device=a.device)


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
        i = a.shape[-1] - 1 - t if upper else t
        e = (idx == i).to(a.dtype)
        row = _row(a, e)                                   # (..., n)
        rhs = (b * e.unsqueeze(-1)).sum(-2)                # b[..., i, :]: (..., k)
        acc = (row.unsqueeze(-1) * x).sum(-2)              # x's other rows (row i of x is 0)
        xi = rhs - acc
        if not unitriangular:
            xi = xi / (row * e).sum(-1, keepdim=True)
        return t + 1, x + e.unsqueeze(-1) * xi.unsqueeze(-2), a.clone(), b.clone()

    _, x, _, _ = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), torch.zeros_like(b), a, b))
    return x


def lu_factor(a):
    """Partial-pivoting LU of (..., n, n) as LAPACK's getrf: (LU packed, unit L below the
    diagonal and U on and above it; pivots (..., n) int32, 1-based: row k was swapped with row
    pivots[k] - 1 at step k; the number of row swaps (...,) int64). The pivot is the first row
    of largest |a[i, k]|, i >= k (isamax's choice)."""
    n = a.shape[-1]
    idx = _index(n, a)
    piv0 = torch.zeros(a.shape[:-1], dtype=torch.int64, device=a.device)

    def cond(k, m, piv):
        return k < m.shape[-1]

    def body(k, m, piv):
        idx = _index(m.shape[-1], m)
        ek = (idx == k).to(a.dtype)
        col = _col(m, ek)
        mag = torch.where(idx >= k, col.abs(), torch.full_like(col, -1.0))
        p = mag.argmax(-1, keepdim=True)                   # (..., 1)
        ep = (idx == p).to(a.dtype)
        rk, rp = _row(m, ek), _row(m, ep)
        m = m + (ek - ep).unsqueeze(-1) * (rp - rk).unsqueeze(-2)   # rows k and p swapped
        piv = torch.where(idx == k, p, piv)
        row_k = _row(m, ek)
        pivot = (row_k * ek).sum(-1, keepdim=True)         # (..., 1)
        below = (idx > k).to(a.dtype)
        l = _col(m, ek) / pivot * below                    # multipliers (..., n)
        m = m - l.unsqueeze(-1) * (row_k * below).unsqueeze(-2) + l.unsqueeze(-1) * ek
        return k + 1, m, piv

    _, m, piv = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), a.clone(), piv0))
    swaps = (piv != idx).sum(-1)
    return m, (piv + 1).to(torch.int32), swaps


def gauss_jordan(a, b):
    """x with a x = b, b: (..., n, k): Gauss-Jordan elimination with partial pivoting on [a | b],
    one pivot column per iteration (one loop: the pivot row swapped up, scaled to 1, eliminated
    from every other row), O(n^2 (n + k)) per matrix."""
    n = a.shape[-1]
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


def solve_ex(a, b, *, left: bool = True, check_errors: bool = False):
    """aten._linalg_solve_ex ==> (x, LU, pivots, info = 0), LU and pivots as getrf's."""
    m, piv, _ = lu_factor(a)
    x = solve(a, b, left=left)
    return x, m, piv, torch.zeros(a.shape[:-2], dtype=torch.int32, device=a.device)


def lu_factor_ex(a, *, pivot: bool = True, check_errors: bool = False):
    """aten.linalg_lu_factor_ex ==> (LU, pivots, info = 0). pivot=False is not decomposed."""
    if not pivot:
        return NotImplemented
    m, piv, _ = lu_factor(a)
    return m, piv, torch.zeros(a.shape[:-2], dtype=torch.int32, device=a.device)


def inv(a):
    """aten.linalg_inv ==> solve(a, I)."""
    n = a.shape[-1]
    eye = torch.eye(n, dtype=a.dtype, device=a.device).expand(a.shape)
    return solve(a, eye)


def inv_ex(a, check_errors: bool = False):
    return inv(a), torch.zeros(a.shape[:-2], dtype=torch.int32, device=a.device)


def det(a):
    """aten.linalg_det ==> (-1)^swaps * prod(diag(U))."""
    m, _, swaps = lu_factor(a)
    sign = 1.0 - 2.0 * torch.remainder(swaps, 2).to(a.dtype)
    return sign * torch.diagonal(m, dim1=-2, dim2=-1).prod(-1)


def slogdet(a):
    """aten.linalg_slogdet ==> (sign, log|det|) from the LU diagonal."""
    m, _, swaps = lu_factor(a)
    diag = torch.diagonal(m, dim1=-2, dim2=-1)
    sign = (1.0 - 2.0 * torch.remainder(swaps, 2).to(a.dtype)) * torch.sign(diag).prod(-1)
    return sign, diag.abs().log().sum(-1)


def logdet(a):
    """aten.logdet ==> log(det): NaN for a negative determinant, -inf for zero (torch's rule)."""
    sign, logabs = slogdet(a)
    return torch.where(sign < 0, torch.full_like(logabs, float("nan")),
                       torch.where(sign == 0, torch.full_like(logabs, -float("inf")), logabs))


def linalg_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """The linear-algebra entries symhlo adds to the decomposition table."""
    return {
        aten.linalg_cholesky.default: cholesky,
        aten.linalg_cholesky_ex.default: cholesky_ex,
        aten.cholesky.default: lambda a, upper=False: cholesky(a, upper),
        aten.linalg_solve.default: solve,
        aten.linalg_solve_triangular.default: solve_triangular,
        aten.linalg_inv.default: inv,
        aten.linalg_inv_ex.default: inv_ex,
        aten.linalg_det.default: det,
        aten.det.default: det,
        aten.linalg_slogdet.default: slogdet,
        aten.logdet.default: logdet,
        aten._linalg_solve_ex.default: solve_ex,
        aten.linalg_lu_factor_ex.default: lu_factor_ex,
        aten.linalg_lu_factor.default: lambda a, *, pivot=True: lu_factor_ex(a, pivot=pivot)[:2],
    }
