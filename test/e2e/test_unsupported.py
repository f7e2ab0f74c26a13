"""Ops symhlo cannot lower raise symhlo.UnsupportedOpError naming the op and where it came from."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import symhlo
from e2e_harness import randn


class DataDependent(torch.nn.Module):
    def __init__(self, which: str):
        super().__init__()
        self.which = which

    def forward(self, x):
        if self.which == "unique_dim":
            return torch.unique(x.long(), dim=0)
        return torch.bincount((x[0] * 3).long().abs())


# nonzero, masks, unique, repeat_interleave, combinations, tensor_split and item are lowered
# (test_data_dependent_sizes.py); other ops that make a data-dependent size are refused by name.
@pytest.mark.parametrize("which, op", [("unique_dim", r"aten\.unique_dim"),
                                       ("bincount", r"aten\.bincount")])
def test_data_dependent_sizes_are_rejected_by_name(which, op):
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=rf"unsupported op '{op}[^']*' \(FX node '\w+'\) at .*test_unsupported\.py:\d+ "
                             r"in forward: .*data-dependent size"):
        symhlo.export(DataDependent(which), (randn(4, 5),), dynamic_shapes=({0: Dim("b", min=2, max=64)},))


class Eig(torch.nn.Module):
    def forward(self, x):
        # a general eigendecomposition (complex results): no decomposition, no lowering
        return torch.linalg.eigvals(x @ x.mT + 8 * torch.eye(8)).abs()


def test_op_without_stablehlo_lowering_is_named_with_location():
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"unsupported op 'aten\.linalg_eig' at .*test_unsupported\.py:\d+ "
                             r"in forward: a general \(non-symmetric\) eigendecomposition"):
        symhlo.export(Eig(), (randn(4, 8, 8),),
                      dynamic_shapes=({0: Dim("b", min=2, max=64)},))


@torch.library.custom_op("symhlo_test::opaque_scale", mutates_args=())
def _opaque_scale(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@_opaque_scale.register_fake
def _(x):
    return torch.empty_like(x)


class CustomOp(torch.nn.Module):
    def forward(self, x):
        return torch.ops.symhlo_test.opaque_scale(x) + 1


def test_custom_op_without_decomposition_is_named_with_location():
    """A user's torch.library custom op: no decomposition, no lowering; refused naming it and the
    line that called it, never half-lowered. (transformers' MoE grouped matmul, the custom op
    users met first, has a decomposition: test/models/test_moe.py.)"""
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"unsupported op 'torch\.symhlo_test\.opaque_scale' at .*test_unsupported\.py\"?:\d+"):
        symhlo.compile(CustomOp(), (randn(4, 3),), dynamic_shapes=({0: Dim("b", min=2, max=64)},))


class Effects(torch.nn.Module):
    def __init__(self, which: str):
        super().__init__()
        self.which = which

    def forward(self, a):
        if self.which == "print":
            torch.ops.aten._print("a side effect")
            return a * 2
        return a.to(torch.complex128)


@pytest.mark.parametrize("which, message", [
    ("print", r"unsupported op 'aten\._print\.default' .* at .*test_unsupported\.py:\d+ in "
              r"forward: a side effect, which a StableHLO program cannot carry"),
    ("complex128", r"unsupported op 'aten\.to\.dtype' .* at .*test_unsupported\.py:\d+ in "
                   r"forward: it makes a complex128 tensor"),
])
def test_what_the_importer_cannot_take_is_refused_by_name(which, message):
    """Side effects (torch.export's with_effects), element types torch-mlir's FX importer has
    no code for raise UnsupportedOpError naming the op and the user's source line (they were the
    FX importer's NotImplementedError / KeyError)."""
    a = randn(2, 5, 5)
    dims = {0: Dim.AUTO, 1: Dim.AUTO, 2: Dim.AUTO}
    with pytest.raises(symhlo.UnsupportedOpError, match=message):
        symhlo.export(Effects(which), (a,), dynamic_shapes=(dims,))
