"""symhlo-narrow-f64-constants-for-iree: f64 constants that are only ever converted to a narrower
float -> constants of that type.

torch-mlir materializes every Python float scalar (`huber_loss(delta=8.7)`, `x * 0.5`) as an f64
constant that is reshaped and converted to the tensor's type. IREE 3.13 on CPU, compiling without
f64->f32 demotion (symhlo's default, so that float64 stays float64), miscompiled such chains:
`huber_loss(x, y, reduction='sum', delta=8.7)` summed to 112.66 instead of 216.01, while the same
program with f32 constants (or with demotion) was exact. Folding the chain removes the f64 values
the program never needed; the portable artifact is unchanged (this runs on the IREE copy only):

    %c = stablehlo.constant dense<8.7> : tensor<1xf64>
    %0 = stablehlo.convert %c : tensor<1xf64>
    %1 = stablehlo.reshape %0 : (tensor<1xf64>) -> tensor<f64>
    %2 = stablehlo.convert %1 : (tensor<f64>) -> tensor<f32>
  ==>
    %2 = stablehlo.constant dense<8.700000e+00> : tensor<f32>
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .ir_util import defining_op, remove_dead_ops
from .registry import Pass

_NARROW = {"f32": np.float32, "f16": np.float16}


def _f64_constant_source(v: ir.Value) -> tuple[np.ndarray, list[int]] | None:
    """(values, shape) when `v` is an f64 constant seen through reshapes and f64 converts."""
    op = defining_op(v)
    if op is None:
        return None
    if op.name == "stablehlo.constant":
        t = ir.RankedTensorType(v.type)
        if str(t.element_type) != "f64":
            return None
        attr = ir.DenseElementsAttr(op.attributes["value"])
        if attr.is_splat:
            values = np.full(t.shape, float(ir.FloatAttr(attr.get_splat_value()).value))
        else:
            values = np.array(attr, dtype=np.float64).reshape(t.shape)
        return values, list(t.shape)
    if op.name in ("stablehlo.reshape", "stablehlo.convert"):
        t = ir.RankedTensorType(v.type)
        if str(t.element_type) != "f64" or not t.has_static_shape:
            return None
        src = _f64_constant_source(op.operands[0])
        if src is None:
            return None
        return src[0].reshape(t.shape), list(t.shape)
    return None


def convert_stablehlo_convert_of_f64_constant(op: ir.Operation) -> bool:
    """stablehlo.convert (f64 constant chain -> f32/f16) -> stablehlo.constant. Returns whether
    it rewrote."""
    t = ir.RankedTensorType(op.results[0].type)
    kind = _NARROW.get(str(t.element_type))
    if kind is None or not t.has_static_shape:
        return False
    src = _f64_constant_source(op.operands[0])
    if src is None:
        return False
    values = np.ascontiguousarray(src[0].astype(kind).reshape(t.shape))
    attr = ir.DenseElementsAttr.get(values, type=t.element_type, shape=list(t.shape))
    new = OpBuilder(op).hlo_constant(attr)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


@dataclass(frozen=True)
class NarrowF64ConstantsForIree(Pass):
    """Fold f64 constants that only feed converts to f32/f16 into constants of that type."""

    name = "symhlo-narrow-f64-constants-for-iree"
    summary = "convert(f64 constant [-> reshape]) to f32/f16 -> an f32/f16 constant"

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            if apply_patterns(module.operation,
                              {"stablehlo.convert": convert_stablehlo_convert_of_f64_constant}):
                remove_dead_ops(module.operation, {"stablehlo.constant", "stablehlo.convert",
                                                   "stablehlo.reshape"})
