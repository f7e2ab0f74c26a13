"""ATen decompositions for selection, scans, scatters and reductions (sort family, cum*, norms).

Each rewrites an op torch-mlir cannot lower with `?` dims (or lowers with other semantics) into
ATen ops that it lowers, with eager's tie and NaN rules; none pins a size to the example's. Sorts
go to `aten.sort`, which symhlo-lower-torch-sort lowers to a `stablehlo.sort` whose comparator
orders NaN as the largest value and breaks ties by index (torch's stable order).
"""

from __future__ import annotations

from typing import Callable

import torch

aten = torch.ops.aten


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


def select_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """The decompositions of this module, for symhlo.decompositions' table."""
    return {
        aten.sort.stable: sort_stable,
        aten.fmax.default: fmax,
        aten.fmin.default: fmin,
    }
