"""Sorting and selection over `?` dims vs eager: sort, argsort, msort, topk, kthvalue, median,
nanmedian, mode, with ties and NaN.

torch-mlir's sort lowering did not verify over `?` dims and, even static, left NaN where it was (its
comparator was a bare GT); symhlo-lower-torch-sort sorts with NaN as the largest value and equal
keys in input order (eager's stable order), and symhlo.frontend.decompositions.select builds the
selection ops on that sort. Each test compiles one module and runs it at three or more sizes.

Where eager's index among equal values is unspecified (topk: partial_sort / nth_element,
kthvalue: quickselect, median: nth_element, the unstable sort past 16 elements), the inputs
compared exactly are tie-free, and test_ties_pick_equal_values checks the tied case by what it
must satisfy: eager's values, and indices that name distinct elements holding them.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import symhlo
from e2e_harness import check_model

NAN = float("nan")


def ties(b: int, n: int, seed: int) -> torch.Tensor:
    """Few distinct values (ties everywhere), NaN in every other row."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 4, (b, n), generator=g).float()
    x[::2, torch.randint(0, n, (2,), generator=g)] = NAN
    return x


def distinct(b: int, n: int, seed: int) -> torch.Tensor:
    """All values distinct, one NaN per row and per column at most (the diagonal)."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randperm(b * n, generator=g).float().reshape(b, n) - b * n / 2
    k = min(b, n)
    y[torch.arange(k), torch.arange(k)] = NAN
    return y


class SortFamily(torch.nn.Module):
    def forward(self, x, y):
        return (torch.sort(x, dim=-1, stable=True),                   # ties + NaN: stable order
                torch.sort(x, dim=0, descending=True, stable=True),
                torch.argsort(x, dim=1, descending=True, stable=True),
                torch.msort(x),
                torch.sort(y, -1),                                  # tie-free: any sort
                torch.topk(y, 3, -1),
                torch.topk(y, 2, 0, largest=False),
                torch.kthvalue(y, 2, 1),
                torch.kthvalue(y, 1, 0, keepdim=True))


# The index outputs above whose pick among equal elements of y is unspecified (sort without
# stable=True, topk, kthvalue), as {flat output: (input, dim, keepdim)}. The test's own y is
# tie-free and compared exactly; the size fuzzer tiles y (rows repeat at b=5 from b=4), and there
# those indices must name equal values, distinct elements. The stable sorts (outputs 1, 3, 4)
# stay exact at every size.
SORT_FAMILY_TIE_PICKS = {7: (1, -1, True), 9: (1, -1, True), 11: (1, 0, True),
                         13: (1, 1, False), 15: (1, 0, True)}

def test_sort_argsort_msort_topk_kthvalue():
    b, n = Dim("b", min=2, max=64), Dim("n", min=3, max=4096)
    sizes = [(2, 5), (5, 20), (3, 33), (4, 1500)]
    check_model("sort family", SortFamily(), (ties(3, 7, 0), distinct(3, 7, 1)),
                ({0: b, 1: n}, {0: b, 1: n}),
                [(ties(bb, nn, bb + nn), distinct(bb, nn, bb * nn)) for bb, nn in sizes],
                rtol=0, atol=0, equal_nan=True, tie_picks=SORT_FAMILY_TIE_PICKS)


class Medians(torch.nn.Module):
    def forward(self, x, y, z):
        return (torch.median(y, 1),                 # tie-free: values and indices
                torch.median(y, 0, keepdim=True),
                torch.median(x),                    # all elements; NaN present -> NaN
                torch.median(y[1:]),
                torch.nanmedian(x, 1).values,       # ties: the values are eager's exactly
                torch.nanmedian(x),
                torch.nanmedian(y, 1),
                torch.mode(z, 1),                   # ties; a row of at most 16 (see module doc)
                torch.mode(z, 0, keepdim=True))


def _nan_row(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    x[-1] = NAN                                     # an all-NaN row for nanmedian
    return x


def _small_ints(b: int, m: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(-2, 2, (b, m), generator=g).float()


def test_median_nanmedian_mode():
    b, n, m = Dim("b", min=3, max=16), Dim("n", min=3, max=4096), Dim("m", min=2, max=16)
    sizes = [(3, 5, 4), (5, 20, 16), (4, 301, 7)]
    check_model("median / nanmedian / mode", Medians(),
                (_nan_row(ties(3, 7, 0)), distinct(3, 7, 1), _small_ints(3, 5, 2)),
                ({0: b, 1: n}, {0: b, 1: n}, {0: b, 1: m}),
                [(_nan_row(ties(bb, nn, nn)), distinct(bb, nn, bb), _small_ints(bb, mm, mm))
                 for bb, nn, mm in sizes], rtol=0, atol=0, equal_nan=True)


class Tied(torch.nn.Module):
    def forward(self, x):
        return (torch.topk(x, 4, -1), torch.topk(x, 3, -1, largest=False),
                torch.kthvalue(x, 3, -1), torch.median(x, -1))


def test_ties_pick_equal_values():
    """Ties where eager's pick among equal elements is unspecified: values as eager's, indices
    distinct elements of the input holding exactly those values."""
    x = ties(3, 9, 0)
    cm = symhlo.compile(Tied(), (x,), dynamic_shapes=({0: Dim("b", min=1, max=8),
                                                       1: Dim("n", min=5, max=4096)},))
    for shape in [(3, 9), (2, 40), (5, 700)]:
        x = ties(*shape, seed=sum(shape))
        for (gv, gi), (ev, ei) in zip(cm(x), Tied()(x)):
            torch.testing.assert_close(gv, ev, rtol=0, atol=0, equal_nan=True)
            gi2 = gi if gi.dim() == x.dim() else gi.unsqueeze(-1)
            picked = torch.take_along_dim(x, gi2, -1).reshape(gv.shape)
            torch.testing.assert_close(picked, gv, rtol=0, atol=0, equal_nan=True)
            assert (gi2.sort(-1).values.diff(dim=-1) != 0).all(), "an element picked twice"
