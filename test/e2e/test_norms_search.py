"""Norms, distances, closeness, searching and histograms over `?` dims vs eager: vector / matrix
norm, dist, cdist, pdist, rms_norm, addmv, isclose, fmax / fmin, searchsorted, histc, histogram.

torch-mlir lowers none of these with `?` dims (or, fmax / fmin, only for equal shapes);
symhlo.frontend.decompositions.select rewrites them with eager's formulas: isclose's rule,
searchsorted's binary search step by step (so NaN in the sequence gives eager's index), histc /
histogram's binning with bin edges from eager's fused-multiply-add linspace. One module per test,
three sizes.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.export import Dim

from e2e_harness import check_model

NAN, INF = float("nan"), float("inf")


class Norms(torch.nn.Module):
    def forward(self, a, b, w, mat, vec, x1, x2):
        out = [torch.linalg.vector_norm(a, ord, dim=1) for ord in (2, 1, INF, -INF, 0, 3.5)]
        out += [torch.linalg.norm(a), torch.linalg.norm(a, "fro"), torch.linalg.norm(a, dim=0),
                torch.dist(a, b, 3), torch.dist(a, b),
                F.rms_norm(a, [a.shape[-1]], weight=w, eps=1e-6), F.rms_norm(a, [a.shape[-1]]),
                torch.addmv(vec, mat, w), torch.addmv(vec, mat, w, beta=0.5, alpha=2.0)]
        out += [torch.cdist(x1, x2, p) for p in (2.0, 1.0, INF, 0.0)]
        out += [F.pdist(x1[0]), F.pdist(x1[0], 1.0)]
        return tuple(out)


def norm_args(r: int, c: int, p: int, q: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(r, c, generator=g)
    a[0, 0] = 0.0                                      # a zero for ord=0
    return (a, torch.randn(r, c, generator=g), torch.randn(c, generator=g),
            torch.randn(r, c, generator=g), torch.randn(r, generator=g),
            torch.randn(2, p, 3, generator=g), torch.randn(2, q, 3, generator=g))


def test_norms_distances_addmv():
    # torch.export itself specializes matrix norms ord=inf / 1 (not used here) and bounds cdist's
    # sizes by its matmul switch (P, R <= 25); pdist needs 3 rows for a `?` pair count.
    r, c, p, q = Dim("r", min=2, max=64), Dim("c", min=2, max=64), Dim("p", min=3, max=25), \
        Dim("q", min=2, max=25)
    dyn = ({0: r, 1: c}, {0: r, 1: c}, {0: c}, {0: r, 1: c}, {0: r}, {1: p}, {1: q})
    check_model("norms / distances", Norms(), norm_args(3, 5, 4, 6, 0), dyn,
                [norm_args(*s, seed=sum(s)) for s in [(2, 3, 3, 3), (7, 9, 25, 24), (20, 33, 11, 5)]],
                rtol=1e-4, atol=1e-4)


class Search(torch.nn.Module):
    def forward(self, a, b, s, v, h, hw, hs):
        return (torch.isclose(a, b), torch.isclose(a, b, equal_nan=True),
                torch.isclose(a, b, rtol=0.0, atol=0.0), torch.isclose(a, b, rtol=0.1, atol=0.5),
                torch.fmax(a, b), torch.fmin(a, b), torch.fmax(a, b[:1]),
                torch.searchsorted(s, v), torch.searchsorted(s, v, right=True),
                torch.searchsorted(s[0], v, side="right"),
                torch.searchsorted(s, v, out_int32=True),
                torch.histc(h, bins=7, min=-2, max=2), torch.histc(h, bins=5),
                torch.histogram(hs, 6), torch.histogram(hs, 4, range=(-1.0, 1.5), weight=hw),
                torch.histogram(hs, 3, density=True))


def search_args(r: int, c: int, m: int, k: int, n: int):
    g = torch.Generator().manual_seed(r * c * m * k * n)
    a = torch.randint(-3, 4, (r, c), generator=g).float() / 2
    b = a + torch.randint(-1, 2, (r, c), generator=g).float() * 0.3
    a[0, :2], b[0, 1:3] = NAN, NAN                         # NaN against NaN and a number
    a[-1, 0], b[-1, 0] = INF, INF
    s = torch.sort(torch.randint(-4, 5, (r, m), generator=g).float()).values
    s[0, -1] = NAN                                         # a NaN ends the first sequence
    v = torch.randint(-5, 6, (r, k), generator=g).float()
    v[0, 0] = NAN
    h = (torch.randint(-40, 41, (n,), generator=g).float() / 16)   # values on the bin edges too
    hs = (torch.randint(-40, 41, (40,), generator=g).float() / 16)
    return a, b, s, v, h, torch.rand(40, generator=g), hs


def test_isclose_fmax_searchsorted_histograms():
    r, c, m, k, n = (Dim("r", min=2, max=16), Dim("c", min=3, max=64), Dim("m", min=2, max=4096),
                     Dim("k", min=2, max=64), Dim("n", min=2, max=4096))
    # histogram's input is static: torch.export has no fake kernel for aten.histogram.bin_ct
    # over a `?` size (its own failure, before symhlo).
    dyn = ({0: r, 1: c}, {0: r, 1: c}, {0: r, 1: m}, {0: r, 1: k}, {0: n}, None, None)
    check_model("isclose / searchsorted / histograms", Search(), search_args(3, 4, 5, 6, 30), dyn,
                [search_args(*s) for s in [(2, 3, 2, 3, 5), (4, 9, 33, 7, 100), (5, 5, 700, 20, 999)]],
                rtol=1e-5, atol=1e-5, equal_nan=True)
