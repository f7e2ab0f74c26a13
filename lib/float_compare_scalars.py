"""symhlo-float-compare-scalars: a float tensor compared with an int scalar -> with a float scalar.

torch-mlir 20261001 folds `aten.gt.Scalar` / `aten.eq.Scalar` of a constant float tensor and an
`!torch.int` scalar nondeterministically wrong in torch-decompose-complex-ops: `full((), 2.0) >
0` folded to false in some processes and true in others (eq to false always), and the program
silently computed with the wrong constant. With a `!torch.float` scalar the fold is right. torch
compares a float tensor with an int scalar in the tensor's float type, so the scalar written as a
float is the same comparison:

    %int0 = torch.constant.int 0
    %r = torch.aten.gt.Scalar %x, %int0 : !torch.vtensor<[],f32>, !torch.int -> !torch.vtensor<[],i1>
  ==>
    %float0 = torch.constant.float 0.000000e+00
    %r = torch.aten.gt.Scalar %x, %float0 : !torch.vtensor<[],f32>, !torch.float -> !torch.vtensor<[],i1>
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, vtensor_sizes_and_dtype
from .ir_util import defining_op, ensure_upstream_registered
from .registry import Pass

_COMPARES = {f"torch.aten.{c}.Scalar" for c in ("eq", "ne", "lt", "le", "gt", "ge")}
_FLOATS = ("f16", "bf16", "f32", "f64")


def convert_torch_aten_compare_scalar(op: ir.Operation) -> bool:
    """torch.aten.<cmp>.Scalar (float tensor, constant int) -> the same with a constant float."""
    x, other = op.operands
    parts = vtensor_sizes_and_dtype(x.type)
    if other.type != ir.Type.parse("!torch.int") or parts is None or parts[1] not in _FLOATS:
        return False
    d = defining_op(other)
    if d is None or d.name != "torch.constant.int":
        return False
    value = ir.IntegerAttr(d.attributes["value"]).value
    f = OpBuilder(op).value("torch.constant.float", [ir.Type.parse("!torch.float")], [],
                            {"value": ir.FloatAttr.get(ir.F64Type.get(), float(value))})
    op.operands[1] = f
    return True


@dataclass(frozen=True)
class FloatCompareScalars(Pass):
    """Give float-tensor comparisons with a constant int scalar a float scalar instead."""

    name = "symhlo-float-compare-scalars"
    summary = ("aten.<cmp>.Scalar of a float tensor and a constant int -> a constant float scalar "
               "(torch-mlir folds the int form wrongly on constants)")

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, dict.fromkeys(_COMPARES, convert_torch_aten_compare_scalar))
