"""Scans over `?` axes vs eager: cumprod, logcumsumexp, cummax / cummin (values and indices),
linalg.vander, with ties and NaN.

torch-mlir has no StableHLO lowering of cumprod, cummax or cummin, and its logcumsumexp becomes a
cumsum after symhlo's cumsum lowering ran. symhlo.frontend.decompositions.select scans with a masked
reduction over the triangle j <= i when the axis is bounded by 1024, and with a log-step scan (a
while loop of ceil(log2 n) steps, each a gather combined elementwise) when it is
longer or unbounded: the two inputs below take one form each, so each test compiles one module
that runs both.
"""

from __future__ import annotations

import torch
from torch.export import Dim

from e2e_harness import check_model, op_names

NAN = float("nan")


def values(b: int, n: int, seed: int) -> torch.Tensor:
    """Few distinct values near 1 (ties; products stay finite), NaN in the first row."""
    g = torch.Generator().manual_seed(seed)
    x = 0.75 + torch.randint(0, 5, (b, n), generator=g).float() / 8
    x[0, n // 2] = NAN
    return x


class Scans(torch.nn.Module):
    def forward(self, x, u):
        out = []
        for t in (x, u):                     # x: triangle form, u: log-step form
            out += [torch.cumprod(t, 1), torch.logcumsumexp(t * 4, 1),
                    torch.cummax(t, 1), torch.cummin(t, 1), torch.cummax(t, 0)]
        out.append(torch.linalg.vander(x[1]))
        return tuple(out)


def test_cumprod_logcumsumexp_cummax_cummin_vander():
    b = Dim("b", min=2, max=16)
    n = Dim("n", min=3, max=64)                      # bound <= 1024: the triangle
    m = Dim("m", min=2)                              # unbounded: the log-step scan
    sizes = [(2, 5, 3), (3, 17, 40), (4, 64, 1100)]
    compiled = []
    check_model("scans", Scans(), (values(3, 7, 0), values(3, 9, 1)),
                ({0: b, 1: n}, {0: b, 1: m}),
                [(values(bb, nn, nn), values(bb, mm, mm)) for bb, nn, mm in sizes],
                rtol=1e-4, atol=1e-5, equal_nan=True, compiled=compiled)
    # one loop per scan over u (cumprod, logcumsumexp, cummax and cummin: values and indices),
    # run ceil(log2 m) times: 2, 6 and 11 steps at the sizes above
    assert op_names(compiled[0].stablehlo).count("stablehlo.while") == 6


class InnerAxisScans(torch.nn.Module):
    """Scans over an unbounded axis that is not the last: the decomposition moves it last (a
    strided view), and the loop's state must still be what its body returns (contiguous). And
    linalg.vander over the unbounded length: its `m x m` columns were a loop state whose two `?`
    dims are one value (IREE 3.13 miscompiled the loop; the scan now carries it flattened)."""

    def forward(self, u):
        w = u[:, :, None] * torch.tensor([1.0, 0.5])          # (b, m, 2), scanned over m
        return (torch.cumprod(w, 1), torch.logcumsumexp(w, 1), torch.cummax(w, 1),
                torch.linalg.vander(u[1] - 0.8))


def test_scans_over_an_inner_unbounded_axis():
    b, m = Dim("b", min=2, max=16), Dim("m", min=3)   # vander: torch guards m != 2
    compiled = []
    check_model("inner-axis scans", InnerAxisScans(), (values(3, 9, 1),), ({0: b, 1: m},),
                [(values(bb, mm, mm),) for bb, mm in [(2, 5), (3, 40), (2, 300)]],
                rtol=1e-4, atol=1e-5, equal_nan=True, compiled=compiled)
    assert op_names(compiled[0].stablehlo).count("stablehlo.while") == 5
