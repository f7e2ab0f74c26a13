"""Dense linear algebra over `?` batch and matrix dims (frontend/decompositions/linalg.py):
factorizations as while loops (stablehlo.while), compiled once and compared with eager (LAPACK)
at several sizes."""

from __future__ import annotations

import torch
from torch.export import Dim

import symhlo
from e2e_harness import check_model


def spd(b: int, n: int) -> torch.Tensor:
    a = torch.randn(b, n, n)
    return a @ a.mT + n * torch.eye(n)


class Solve(torch.nn.Module):
    def forward(self, a, rhs):                      # (b, n, n), (b, n, 2)
        return torch.linalg.solve(a, rhs)


class Cholesky(torch.nn.Module):
    def forward(self, a):
        return torch.linalg.cholesky(a), torch.linalg.cholesky(a, upper=True)


def test_solve_with_dynamic_batch():
    b = Dim("b", min=1, max=64)
    sizes = [(torch.randn(k, 6, 6), torch.randn(k, 6, 2)) for k in (1, 3, 17)]
    check_model("linalg.solve", Solve(), (torch.randn(4, 6, 6), torch.randn(4, 6, 2)),
                ({0: b}, {0: b}), sizes, rtol=1e-4, atol=1e-4)


def test_cholesky_with_dynamic_batch_and_size():
    spec = ({0: Dim("b", min=1, max=64), 1: Dim("n", min=2, max=64), 2: Dim("n", min=2, max=64)},)
    sizes = [(spd(k, n),) for k, n in ((1, 2), (3, 5), (9, 33))]
    check_model("linalg.cholesky", Cholesky(), (spd(4, 6),), spec, sizes, rtol=1e-4, atol=1e-4)


class CholeskyOfProduct(torch.nn.Module):
    def forward(self, a):
        return torch.linalg.cholesky(a @ a.mT + torch.eye(a.shape[-1]))


def test_cholesky_of_a_computed_matrix():
    """The factored matrix is computed in the program (not an input): retracing the loop binds
    `n` to a carried tensor's stride, which the importer folds into a size product."""
    spec = ({0: Dim("b", min=1, max=64), 1: Dim("n", min=2, max=64), 2: Dim("n", min=2, max=64)},)
    sizes = [(torch.randn(k, n, n),) for k, n in ((1, 2), (3, 5), (9, 17))]
    check_model("linalg.cholesky(a @ a.mT + eye)", CholeskyOfProduct(), (torch.randn(4, 6, 6),),
                spec, sizes, rtol=1e-4, atol=1e-4)


def test_factorization_is_a_loop_over_the_dynamic_size():
    spec = ({0: Dim("b", min=1, max=64), 1: Dim("n", min=2, max=64), 2: Dim("n", min=2, max=64)},)
    text = symhlo.export(Cholesky(), (spd(4, 6),), dynamic_shapes=spec).text
    assert "stablehlo.while" in text and "tensor<?x?x?xf32>" in text
    assert "custom_call" not in text and "stablehlo.cholesky" not in text


class LUFamily(torch.nn.Module):
    def forward(self, a):                           # (b, n, n)
        lu, piv = torch.linalg.lu_factor(a)
        sign, logabs = torch.linalg.slogdet(a)
        return torch.linalg.det(a), sign, logabs, lu, piv


def test_lu_family_with_dynamic_batch_and_size():
    """det / slogdet / lu_factor (pivots exact) from one module: three getrf loops over `?` b
    and n."""
    n = Dim("n", min=2, max=64)
    spec = ({0: Dim("b", min=1, max=64), 1: n, 2: n},)
    gen = torch.Generator().manual_seed(0)
    sizes = [(torch.randn(k, m, m, generator=gen),) for k, m in ((1, 2), (3, 5), (6, 9))]
    check_model("linalg LU family", LUFamily(), (torch.randn(4, 6, 6),), spec, sizes,
                rtol=1e-4, atol=1e-4)


class LUSolve(torch.nn.Module):
    def forward(self, a, rhs):                      # (b, n, n), (b, n, 2)
        lu, piv = torch.linalg.lu_factor(a)
        return (torch.linalg.lu_solve(lu, piv, rhs), torch.linalg.lu_solve(lu, piv, rhs, adjoint=True),
                torch.linalg.lu_solve(lu, piv, rhs.mT, left=False))


class TriangularSolve(torch.nn.Module):
    def forward(self, a, rhs):                      # (b, n, n), (b, n, 2)
        return torch.linalg.solve_triangular(a.triu() + 4 * torch.eye(a.shape[-1]), rhs, upper=True)


def _solve_sizes():
    gen = torch.Generator().manual_seed(1)
    return [(torch.randn(k, m, m, generator=gen), torch.randn(k, m, 2, generator=gen))
            for k, m in ((1, 2), (3, 5), (6, 9))]


def _solve_spec():
    n = Dim("n", min=2, max=64)
    return ({0: Dim("b", min=1, max=64), 1: n, 2: n}, {0: Dim("b", min=1, max=64), 1: n})


def test_lu_solve_with_dynamic_batch_and_size():
    """lu_factor then lu_solve (a x = b, a^T x = b, x a = b^T): the getrf loop, the
    row-permutation loop and two substitutions; the adjoint as a Gauss-Jordan loop on the
    transposed rebuilt a."""
    check_model("linalg.lu_solve", LUSolve(), (torch.randn(4, 6, 6), torch.randn(4, 6, 2)),
                _solve_spec(), _solve_sizes(), rtol=1e-4, atol=1e-4)


def test_solve_triangular_with_dynamic_batch_and_size():
    check_model("linalg.solve_triangular", TriangularSolve(),
                (torch.randn(4, 6, 6), torch.randn(4, 6, 2)), _solve_spec(), _solve_sizes(),
                rtol=1e-4, atol=1e-4)


class MatrixExp(torch.nn.Module):
    def forward(self, a):
        return torch.linalg.matrix_exp(a)


def test_matrix_exp_with_dynamic_size():
    """Scaling and squaring over a `?` n: norms from 0.2 to ~60 need 0 to 6 squarings (each
    squaring doubles the relative rounding error: rtol 1e-3, as the OpInfo comparison)."""
    n = Dim("n", min=2, max=64)
    gen = torch.Generator().manual_seed(2)
    sizes = [(torch.randn(m, m, generator=gen) * scale,) for m, scale in ((2, 0.1), (5, 2.0), (9, 6.0))]
    check_model("linalg.matrix_exp", MatrixExp(), (torch.randn(6, 6),), ({0: n, 1: n},), sizes,
                rtol=1e-3, atol=1e-4)


def _check_on_square_matrices(name, model, seed, rtol):
    """One compile over one unbatched `?x?` well-conditioned matrix (n in [2, 64]), checked
    against eager at n = 2, 5, 9."""
    n = Dim("n", min=2, max=64)
    gen = torch.Generator().manual_seed(seed)
    sizes = [(torch.randn(m, m, generator=gen) + m * torch.eye(m),) for m in (2, 5, 9)]
    check_model(name, model, (torch.randn(6, 6) + 6 * torch.eye(6),), ({0: n, 1: n},), sizes,
                rtol=rtol, atol=1e-4)


class InvBesideLU(torch.nn.Module):
    def forward(self, a):                           # (n, n), no batch
        return torch.linalg.inv(a), torch.linalg.lu_factor(a)[0]


def test_inverse_beside_the_lu_of_one_unbatched_matrix():
    """Two loops over one `?x?` matrix, the LU loop's result returned as it is: IREE 3.13 gave an
    all-NaN inverse until symhlo-prepare-in-place-ops-for-iree materialized returned loop results."""
    _check_on_square_matrices("inv beside lu_factor", InvBesideLU(), seed=3, rtol=1e-4)


class LoopsBesideConstants(torch.nn.Module):
    def forward(self, a):                           # (n, n), no batch
        lu, piv = torch.linalg.lu_factor(a)
        return (torch.linalg.inv(a), torch.linalg.det(a), lu, piv, torch.linalg.matrix_exp(a * 0.1),
                torch.linalg.qr(a)[1], torch.zeros_like(a), torch.eye(a.shape[0]), a)


def test_loops_beside_constant_outputs_of_one_unbatched_matrix():
    """Five loops over one `?x?` matrix (Gauss-Jordan, getrf twice, matrix_exp's squaring, QR),
    whose states start from constants (I, zeros), returned beside zeros, I and the input: each
    output its own values. With symhlo-prepare-in-place-ops-for-iree's returned-loop-result
    materialization switched off, IREE 3.13 returned a wrong matrix_exp here (all 25 elements at
    n = 5), while the test above (inv beside lu_factor) still passed."""
    _check_on_square_matrices("loops beside constants", LoopsBesideConstants(), seed=5, rtol=1e-3)


class InverseEx(torch.nn.Module):
    def forward(self, a, t):                        # (n, n); (n, 2, 2n)
        inv, info = torch.linalg.inv_ex(a)
        return inv, info, torch.linalg.tensorinv(t, ind=2)


def test_inv_ex_and_tensorinv_with_dynamic_size():
    """inv_ex's inverse and getrf's `info` over an unbatched `?x?` matrix; tensorinv of
    (n, 2, 2n) as the inverse of a (2n, 2n) matrix. A singular matrix gets LAPACK's info (the
    first zero pivot) and an inverse that is not finite (torch leaves its values unspecified)."""
    n = Dim("n", min=2, max=32)
    spec = ({0: n, 1: n}, {0: n, 2: 2 * n})
    gen = torch.Generator().manual_seed(6)

    def args(m):
        a = torch.randn(m, m, generator=gen) + m * torch.eye(m)
        t = torch.randn(m, 2, 2 * m, generator=gen) + 2 * m * torch.eye(2 * m).reshape(m, 2, 2 * m)
        return a, t

    compiled = []
    check_model("linalg.inv_ex, tensorinv", InverseEx(), args(4), spec, [args(2), args(5), args(9)],
                rtol=1e-4, atol=1e-4, compiled=compiled)
    a, t = args(6)
    a[:, 2] = 0.0
    got, expected = compiled[0](a, t), InverseEx()(a, t)
    assert got[1].item() == expected[1].item() == 3
    assert not torch.isfinite(got[0]).all() and not torch.isfinite(expected[0]).all()


class LDLSolve(torch.nn.Module):
    def forward(self, ld, piv, rhs):                # (b, n, n), (b, n), (b, n, 3)
        return torch.linalg.ldl_solve(ld, piv, rhs)


def test_ldl_solve_with_dynamic_batch_and_size():
    """sytrs from eager's Bunch-Kaufman factors of symmetric indefinite matrices (1x1 and 2x2
    pivots, row interchanges), each matrix of the batch at its own step: two loops over `?` b
    and n."""
    n = Dim("n", min=2, max=64)
    spec = ({0: Dim("b", min=1, max=64), 1: n, 2: n}, {0: Dim("b", min=1, max=64), 1: n},
            {0: Dim("b", min=1, max=64), 1: n})
    gen = torch.Generator().manual_seed(7)

    def args(k, m):
        a = torch.randn(k, m, m, generator=gen)
        ld, piv = torch.linalg.ldl_factor(a + a.mT)
        return ld, piv, torch.randn(k, m, 3, generator=gen)

    sizes = [args(1, 2), args(3, 5), args(4, 9)]
    assert any((p < 0).any() for _, p, _ in sizes)            # 2x2 pivots are exercised
    check_model("linalg.ldl_solve", LDLSolve(), args(2, 6), spec, sizes, rtol=1e-3, atol=1e-3)


class LDLFactor(torch.nn.Module):
    def forward(self, a):                           # (b, n, n), symmetric
        ld, piv, info = torch.linalg.ldl_factor_ex(a)
        return ld, piv, info, torch.linalg.ldl_factor(a)[0]


def test_ldl_factor_with_dynamic_batch_and_size():
    """sytf2 (Bunch-Kaufman): LD, pivots (exact, 2x2 blocks included) and info equal eager's over
    `?` b and n, each matrix of the batch at its own step; a zero column gives LAPACK's info and
    a NaN LD from ldl_factor (torch raises there). Compiled and compared by hand: the size
    fuzzer's tiled matrices are singular, where L past a rounding-noise pivot is noise / noise
    (eager's included)."""
    n = Dim("n", min=2, max=64)
    spec = ({0: Dim("b", min=1, max=64), 1: n, 2: n},)
    gen = torch.Generator().manual_seed(8)

    def sym(k, m):
        a = torch.randn(k, m, m, generator=gen)
        return a + a.mT

    cm = symhlo.compile(LDLFactor(), (sym(2, 6),), dynamic_shapes=spec)
    pivots_2x2 = False
    for k, m in ((1, 2), (3, 5), (4, 9)):
        a = sym(k, m)
        got, expected = cm(a), LDLFactor()(a)
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype and g.shape == e.shape
            torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-4)
        pivots_2x2 = pivots_2x2 or bool((expected[1] < 0).any())
    assert pivots_2x2
    a = sym(2, 4)
    a[1, 2, :] = 0.0
    a[1, :, 2] = 0.0
    got, expected = cm(a), torch.linalg.ldl_factor_ex(a)
    assert got[2].tolist() == expected.info.tolist() and expected.info[1] > 0
    assert torch.equal(got[1], expected.pivots)
    assert torch.isnan(got[3][1]).all() and not torch.isnan(got[3][0]).any()
