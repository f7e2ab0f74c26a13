"""The special functions of symhlo/special.py on IREE vs eager PyTorch, at dynamic sizes.

Each family compiles once (one module returning every function of the family) with a `?` length
and runs at two lengths, on inputs that mix a realistic range with the edge cases eager defines
(0 and -0, poles, negative integers, large |x|, +-inf, NaN). Tolerances are a few ulp relative
(rtol 2e-6 to 1e-5, see each family) plus an absolute term that only matters near the
functions' zeros. Ops symhlo leaves to torch-mlir (float64) are refused with UnsupportedOpError
naming the op and this file's line.
"""

from __future__ import annotations

import math

import pytest
import torch
from torch.export import Dim

import symhlo
from e2e_harness import check_model

INF, NAN = math.inf, math.nan


class Family(torch.nn.Module):
    """forward(*xs) -> tuple(fn(*xs) for fn in fns)."""

    def __init__(self, fns):
        super().__init__()
        self.fns = list(fns)

    def forward(self, *xs):
        return tuple(fn(*xs) for fn in self.fns)


def _values(n: int, lo: float, hi: float, edges, seed: int) -> torch.Tensor:
    """n float32 values: the edge cases first, then uniform ones on [lo, hi)."""
    edges = torch.tensor(edges, dtype=torch.float32)
    g = torch.Generator().manual_seed(seed)
    rest = lo + (hi - lo) * torch.rand(n - len(edges), generator=g)
    return torch.cat([edges, rest])


def _case(names, fns, make_inputs, sizes):
    """check_model's (label, model, example, dynamic_shapes, sizes) for Family(fns): every
    input's axis 0 is one `?` dim `n`; outputs are numbered in `names`' order."""
    example = make_inputs(sizes[0])
    dyn = (tuple({0: Dim("n", min=2)} for _ in example),)
    return ("special: " + ", ".join(names))[:80], Family(fns), example, dyn, \
        [make_inputs(s) for s in sizes]


_ERF_EDGES = [0.0, -0.0, INF, -INF, NAN, 1e-30, 0.5, 1.0, 2.0, 10.0, 30.0, -27.0, 1e4, -9.5]


def test_error_function_family():
    fns = {"erfc": torch.erfc, "erfcx": torch.special.erfcx, "log_ndtr": torch.special.log_ndtr}
    check_model(*_case(list(fns), fns.values(),
                       lambda n: (_values(n, -9.0, 9.0, _ERF_EDGES, n),), (40, 77, 123)),
                rtol=2e-6, atol=1e-7, equal_nan=True)


def test_inverse_error_functions():
    edges = [0.0, -0.0, 1.0, -1.0, 1.5, -2.0, NAN, 0.7, -0.7, 0.99999, 1e-30]
    check_model(*_case(["erfinv"], [torch.erfinv],
                       lambda n: (_values(n, -1.0, 1.0, edges, n),), (30, 64, 101)),
                rtol=2e-6, atol=1e-7, equal_nan=True)
    edges = [0.0, 1.0, -0.1, 1.1, NAN, 0.1353352832366127, 1e-30, 1e-10, 0.5]
    check_model(*_case(["ndtri"], [torch.special.ndtri],
                       lambda n: (_values(n, 0.0, 1.0, edges, n),), (30, 64, 101)),
                rtol=2e-6, atol=1e-7, equal_nan=True)


_GAMMA_EDGES = [0.0, -0.0, -1.0, -2.0, -3.5, 1.0, 2.0, 1e-30, 1e30, INF, -INF, NAN, 10.0, 6.5,
                -1e7 + 0.5, 0.75, 1.25, 1.5, 2.5]


def test_gamma_family():
    # near the roots of lgamma and digamma on x < 0 only an absolute error is meaningful
    fns = {"lgamma": torch.lgamma, "digamma": torch.digamma}
    check_model(*_case(list(fns), fns.values(),
                       lambda n: (_values(n, -9.0, 9.0, _GAMMA_EDGES, n),), (40, 61, 97)),
                rtol=1e-5, atol=1e-5, equal_nan=True)
    # trigamma reflects with sin of eager's float32 pi*x: NaN past |pi x| = 1.5e7 (sincos)
    check_model(*_case(["polygamma(1)"], [lambda x: torch.polygamma(1, x)],
                       lambda n: (_values(n, -9.0, 9.0, _GAMMA_EDGES[:14], n),), (40, 61, 97)),
                rtol=1e-5, atol=1e-5, equal_nan=True)


def test_polygamma_via_zeta():
    """polygamma(k >= 2) = +-k! zeta(k + 1, x): at x < 0 zeta's terms (q + j)^-(k+1) of both signs
    cancel in float32 (eager sums in float64), so there the error is absolute, ~1e-7 of the
    largest term (k! 2^(k+1) near half-integers: atol 1e-4 at k = 4)."""
    fns = {f"polygamma({k})": (lambda x, k=k: torch.polygamma(k, x)) for k in (2, 3, 4)}
    check_model(*_case(list(fns), fns.values(),
                       lambda n: (_values(n, -9.0, 9.0, _GAMMA_EDGES[:-5], n),), (40, 61, 97)),
                rtol=1e-5, atol=1e-4, equal_nan=True)


def test_mvlgamma_and_zeta():
    check_model(*_case(["mvlgamma(p=3)"], [lambda x: torch.mvlgamma(x, 3)],
                       lambda n: (_values(n, 1.01, 30.0, [1.5, 2.0, 1e3], n),), (20, 41, 64)),
                rtol=2e-6, atol=1e-6, equal_nan=True)
    pairs = [(1.0, 2.0), (0.5, 2.0), (2.0, -2.0), (2.0, -1.5), (3.0, 0.0), (INF, 2.0),
             (INF, 1.0), (NAN, 1.0), (4.0, -0.25), (1.5, 1e-3), (30.0, 0.5)]

    def inputs(n):
        g = torch.Generator().manual_seed(n)
        x = 1.0 + 11.0 * torch.rand(n - len(pairs), generator=g)
        x[::3] = torch.round(x[::3])                  # integer x: defined for q < 0 too
        q = -9.0 + 18.0 * torch.rand(n - len(pairs), generator=g)
        ex, eq = zip(*pairs)
        return torch.cat([torch.tensor(ex), x]), torch.cat([torch.tensor(eq), q])

    check_model(*_case(["zeta"], [torch.special.zeta], inputs, (30, 53, 77)),
                rtol=1e-5, atol=1e-6, equal_nan=True)


_BESSEL_EDGES = [0.0, -0.0, 1e-30, 2.0, 5.0, 8.0, 8.5, 90.0, -90.0, INF, -INF, NAN, 1e4, -1e4,
                 2.09, -2.09, 103.9, 1e-5, 2.404825557695773]


def test_bessel_family():
    fns = {"i0": torch.i0, "i0e": torch.special.i0e, "i1": torch.special.i1,
           "i1e": torch.special.i1e, "modified_bessel_i0": torch.special.modified_bessel_i0,
           "modified_bessel_i1": torch.special.modified_bessel_i1,
           "modified_bessel_k0": torch.special.modified_bessel_k0,
           "modified_bessel_k1": torch.special.modified_bessel_k1,
           "scaled_modified_bessel_k0": torch.special.scaled_modified_bessel_k0,
           "scaled_modified_bessel_k1": torch.special.scaled_modified_bessel_k1,
           "bessel_j0": torch.special.bessel_j0, "bessel_j1": torch.special.bessel_j1,
           "bessel_y0": torch.special.bessel_y0, "bessel_y1": torch.special.bessel_y1,
           "spherical_bessel_j0": torch.special.spherical_bessel_j0,
           "airy_ai": torch.special.airy_ai}
    check_model(*_case(list(fns), fns.values(),
                       lambda n: (_values(n, -30.0, 30.0, _BESSEL_EDGES, n),), (40, 75, 111)),
                rtol=3e-6, atol=2e-7, equal_nan=True)


@pytest.mark.parametrize("fn, fine, past", [
    (torch.special.bessel_j0, 1.4e7, 2e7), (torch.special.bessel_y1, 1.4e7, 3e30),
    (torch.special.spherical_bessel_j0, -1.4e7, -2e7),
    (torch.special.airy_ai, -5e4, -1e5),           # its phase is (2/3) |x|^1.5
])
def test_oscillating_functions_past_the_sincos_range_are_nan(fn, fine, past):
    """sin/cos are exact in float32 up to |x| = 1.5e7 only: past it J0, Y1, sin(x)/x and Ai come
    out NaN, never a plausible number (eager: values of magnitude <= 2e-4)."""
    model = Family([fn])
    cm = symhlo.compile(model, (torch.tensor([1.0, 2.0]),), dynamic_shapes=(({0: Dim("n")},),))
    x = torch.tensor([fine, 1.5, past])
    (g,), (e,) = cm(x), model(x)
    torch.testing.assert_close(g[:2], e[:2], rtol=2e-5, atol=1e-7)
    assert torch.isnan(g[2]) and torch.isfinite(e[2])


def test_orthogonal_polynomials():
    fns = {f"{p}chebyshev_polynomial_{k}": getattr(torch.special,
                                                    f"{p}chebyshev_polynomial_{k}")
           for p in ("", "shifted_") for k in "tuvw"}
    fns.update(hermite_polynomial_h=torch.special.hermite_polynomial_h,
               hermite_polynomial_he=torch.special.hermite_polynomial_he)
    pairs = [(1.0, 5.0), (-1.0, 5.0), (-1.0, 12.0), (0.0, 3.0), (0.0, 9.0), (0.5, 0.0),
             (0.5, 1.0), (0.3, 17.0), (2.5, 30.0), (-2.5, 21.0), (0.3, 128.0), (0.3, 129.0),
             (0.3, 2.5), (0.3, -1.0), (0.3, NAN), (1.0001, 40.0), (0.2, 1e6)]

    def inputs(n):
        g = torch.Generator().manual_seed(n)
        x = -3.0 + 6.0 * torch.rand(n - len(pairs), generator=g)
        deg = torch.randint(-2, 25, (n - len(pairs),), generator=g).to(torch.float32)
        ex, en = zip(*pairs)
        return torch.cat([torch.tensor(ex), x]), torch.cat([torch.tensor(en), deg])

    # the trigonometric forms at |x| < 1 carry acos's rounding times n: absolute 2e-5 on values
    # bounded by 2n + 1
    check_model(*_case(list(fns), fns.values(), inputs, (40, 63, 90)),
                rtol=2e-5, atol=2e-5, equal_nan=True)


def test_polynomials_with_a_python_degree():
    fns = {f"{name}(n={k})": (lambda x, f=getattr(torch.special, name), k=k: f(x, k))
           for name in ("laguerre_polynomial_l", "legendre_polynomial_p") for k in (0, 1, 3, 9)}
    fns.update({  # the .n_scalar / .x_scalar overloads of the tensor-degree families
        "chebyshev_polynomial_t(n=7)": lambda x: torch.special.chebyshev_polynomial_t(x / 3, 7),
        "hermite_polynomial_he(n=5)": lambda x: torch.special.hermite_polynomial_he(x, 5),
        "chebyshev_polynomial_u(0.3, n)":
            lambda x: torch.special.chebyshev_polynomial_u(0.3, torch.round(x * 3))})
    edges = [0.0, 1.0, -1.0, 0.5, INF]       # not NaN: eager returns an uninitialized value
    check_model(*_case(list(fns), fns.values(),
                       lambda n: (_values(n, -3.0, 3.0, edges, n),), (20, 33, 61)),
                rtol=1e-5, atol=1e-5, equal_nan=True)


def test_polynomials_with_a_tensor_degree():
    """Laguerre / Legendre with a tensor n: torch's recurrence as one while_loop to max(n), each
    element read at its own degree (negative, NaN, fractional, 0, 1, up to 40; x at 0, +-1)."""
    fns = {"laguerre_polynomial_l": torch.special.laguerre_polynomial_l,
           "legendre_polynomial_p": torch.special.legendre_polynomial_p,
           "legendre_polynomial_p(0.3, n)":
               lambda x, n: torch.special.legendre_polynomial_p(0.3, n),
           "laguerre_polynomial_l(x, 150)":       # past the unrolled .n_scalar's 128
               lambda x, n: torch.special.laguerre_polynomial_l(x / 8, 150)}
    x_edges = [0.0, 1.0, -1.0, -1.0, 0.5, -0.0, 1.0, 2.5]
    n_edges = [3.0, 4.0, 5.0, 0.0, -1.0, NAN, 1.0, 2.7]

    def inputs(n):
        g = torch.Generator().manual_seed(n)
        degrees = torch.randint(-2, 41, (n - len(n_edges),), generator=g).float()
        return (_values(n, -1.5, 1.5, x_edges, n), torch.cat([torch.tensor(n_edges), degrees]))
    check_model(*_case(list(fns), fns.values(), inputs, (20, 33, 61)),
                rtol=1e-4, atol=1e-5, equal_nan=True)


_IGAMMA_EDGES = [(1.0, 0.0), (0.0, 1.0), (0.0, 0.0), (-1.0, 1.0), (2.0, -1.0), (INF, 1.0),
                 (INF, INF), (3.0, INF), (NAN, 1.0), (3.0, NAN), (0.5, 0.3), (25.0, 24.0),
                 (30.0, 35.0), (150.0, 160.0), (300.0, 310.0), (1000.0, 1020.0), (5.0, 1.05),
                 (0.1, 0.8), (2.0, 30.0), (50.0, 3.0)]


def test_incomplete_gamma():
    """igamma / igammac: torch's edge cases, the asymptotic series (a > 20, x ~ a), the power
    series, the igamc series and the continued fraction (while_loops to convergence), on a and x
    log-uniform over [1e-3, 1e4]."""
    fns = {"igamma": torch.igamma, "igammac": torch.igammac}

    def inputs(n):
        g = torch.Generator().manual_seed(n)
        a, x = (torch.tensor(v) for v in zip(*_IGAMMA_EDGES))
        rest = 10.0 ** (torch.rand(2, n - len(_IGAMMA_EDGES), generator=g) * 7.0 - 3.0)
        return torch.cat([a, rest[0]]), torch.cat([x, rest[1]])
    check_model(*_case(list(fns), fns.values(), inputs, (40, 200, 1000)),
                rtol=1e-4, atol=1e-6, equal_nan=True)


_BIT_EDGES = [0.0, -0.0, INF, -INF, NAN, 1e-40, -1e-40, 1.4e-45, 3.4028235e38, -1.17549435e-38,
              1.0, -1.0, 0.5]


def test_sign_and_bit_ops_are_exact():
    """copysign / signbit / frexp / nextafter through float32 bits: bitwise what eager gives,
    subnormals and negative zeros included (IREE's arithmetic would flush them)."""
    fns = {"copysign": torch.copysign, "copysign(-2.5)": lambda a, b: torch.copysign(a, -2.5),
           "signbit": lambda a, b: torch.signbit(a), "frexp": lambda a, b: torch.frexp(a),
           "nextafter": torch.nextafter, "hypot": torch.hypot, "angle": lambda a, b: torch.angle(a)}

    def inputs(n):
        return _values(n, -1e3, 1e3, _BIT_EDGES, n), _values(n, -1e3, 1e3, _BIT_EDGES[::-1], n + 1)

    model = Family(fns.values())
    n_dim = Dim("n", min=2)
    cm = symhlo.compile(model, inputs(30), dynamic_shapes=(({0: n_dim}, {0: n_dim}),))
    for n in (30, 52, 77):
        xs = inputs(n)
        for name, g, e in zip(fns, cm(*xs), model(*xs)):
            if name == "hypot":    # not bitwise: sqrt(1 + r^2); subnormals flush on IREE
                torch.testing.assert_close(g, e, rtol=2e-7, atol=1e-37, equal_nan=True)
                continue
            for gt, et in zip(*((g, e) if isinstance(g, tuple) else ((g,), (e,)))):
                assert gt.dtype == et.dtype, name
                if et.is_floating_point():     # NaN where eager has NaN, else the same bits
                    nan = torch.isnan(et)
                    assert torch.equal(torch.isnan(gt), nan), f"{name} at n={n}"
                    gt, et = gt.view(torch.int32)[~nan], et.view(torch.int32)[~nan]
                assert torch.equal(gt, et), f"{name} at n={n}"


@pytest.mark.parametrize("dim", [None, 0, (1,), (-1, 0)])
def test_fftshift_over_dynamic_axes(dim):
    model = Family([lambda x: torch.fft.fftshift(x, dim), lambda x: torch.fft.ifftshift(x, dim)])
    spec = (({0: Dim("a", min=2), 1: Dim("b", min=2)},),)
    sizes = [(torch.randn(shape),) for shape in ((5, 7), (6, 9), (2, 2), (9, 4))]
    check_model(f"special: fftshift/ifftshift dim={dim}", model, (torch.randn(5, 7),), spec,
                sizes, rtol=0, atol=0)


def test_dtypes_follow_eager():
    """float16 in, float16 out (computed in float32, as eager); integers promote to float32."""
    model = Family([lambda h, i: torch.erfc(h), lambda h, i: torch.i0(i),
                    lambda h, i: torch.lgamma(h), lambda h, i: torch.special.bessel_j0(i)])
    h = torch.linspace(-4, 4, 19).to(torch.float16)
    i = torch.arange(-9, 10)
    spec = (({0: Dim("n", min=2)}, {0: Dim("m", min=2)}),)
    cm = symhlo.compile(model, (h, i), dynamic_shapes=spec)
    for n in (19, 33, 40):
        xs = (torch.linspace(-4, 4, n).to(torch.float16), torch.arange(n) - n // 2)
        for g, e in zip(cm(*xs), model(*xs)):
            torch.testing.assert_close(g, e, rtol=1e-3 if e.dtype == torch.float16 else 2e-6,
                                       atol=1e-6)


class _Op(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, y):
        return self.fn(x, y)


@pytest.mark.parametrize("fn, op", [
    (lambda x, y: torch.igamma(x.double(), y.double()), "igamma"),
    (lambda x, y: torch.erfc(x.double()), "erfc"),
    (lambda x, y: torch.igammac(x[:, None], y[None, :]), "igammac"),
    (lambda x, y: torch.special.laguerre_polynomial_l(x[:, None], y[None, :]),
     "special_laguerre_polynomial_l"),
])
def test_float64_special_functions_refused(fn, op):
    """float64 has no float32 algorithm, and igamma / igammac and the tensor-degree Laguerre /
    Legendre loops run over vectors only (IREE 3.13 computed wrong values over matrices): the
    op is refused by name, with this file's line."""
    x, y = torch.rand(6) + 0.5, torch.full((6,), 3.0)
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=rf"torch\.aten\.{op}'.*test_special_functions\.py"):
        symhlo.compile(_Op(fn), (x, y), dynamic_shapes=({0: Dim("n")}, {0: Dim("n")}))
