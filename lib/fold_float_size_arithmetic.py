"""symhlo-fold-float-size-arithmetic: integer sizes that torch computes through floats -> integer ops.

torch-mlir lowers `arange(start, end, step)` (which interpolate's decompositions use for their
source indices) with the length `ceil((end - start) / step)` computed in f64. The value is exact,
but a float between two integer sizes hides the size from consumers that reason about integers:
IREE 3.13 pulls the float computation into the dispatch of a later concatenate and then cannot
express the dispatch's workload ("failed to resolve workgroup count hint"). For a constant
integer step k != 0 the length is an integer ceil-division, so the pure StableHLO says so:

    %kf = stablehlo.convert %c1 : (tensor<i64>) -> tensor<f64>
    %xf = stablehlo.convert %x : (tensor<i64>) -> tensor<f64>
    %q = stablehlo.divide %xf, %kf : tensor<f64>
    %c = stablehlo.ceil %q : tensor<f64>
    %n = stablehlo.convert %c : (tensor<f64>) -> tensor<i64>
  ==>
    (uses of %n use %x; for k > 1: %x / k + select(%x % k > 0, 1, 0))
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .ir_util import defining_op
from .registry import Pass


def _integer_constant(v: ir.Value) -> int | None:
    """The value of a 0-d/1-element constant, looking through one stablehlo.convert."""
    op = defining_op(v)
    if op is not None and op.name == "stablehlo.convert":
        op = defining_op(op.operands[0])
    if op is None or op.name != "stablehlo.constant":
        return None
    attr = op.attributes["value"]
    t = ir.RankedTensorType(attr.type)
    if t.rank > 1 or (t.rank == 1 and t.shape[0] != 1):
        return None
    try:
        if isinstance(t.element_type, ir.IntegerType):
            return int(ir.DenseIntElementsAttr(attr)[0])
        value = float(ir.DenseFPElementsAttr(attr)[0])
    except (ValueError, IndexError, TypeError):
        return None
    return int(value) if value == int(value) else None


def _is_int_to_float(op: ir.Operation | None) -> bool:
    if op is None or op.name != "stablehlo.convert":
        return False
    src = ir.RankedTensorType(op.operands[0].type).element_type
    return isinstance(src, ir.IntegerType) and src.width > 1


def convert_stablehlo_convert_ceil_div(op: ir.Operation) -> bool:
    """stablehlo.convert(ceil(convert(x) / k)) with x an integer tensor, k a constant > 0 ->
    integer ceil-division of x by k (x itself for k = 1). A constant k < 0 (`arange(s - 1, -1, -1)`)
    is the ceil-division of -x by -k. Returns whether it rewrote."""
    result_t = ir.RankedTensorType(op.results[0].type)
    if not isinstance(result_t.element_type, ir.IntegerType):
        return False
    ceil = defining_op(op.operands[0])
    if ceil is None or ceil.name != "stablehlo.ceil":
        return False
    div = defining_op(ceil.operands[0])
    if div is None or div.name != "stablehlo.divide":
        return False
    to_float = defining_op(div.operands[0])
    k = _integer_constant(div.operands[1])
    if not _is_int_to_float(to_float) or k is None or k == 0:
        return False
    x = to_float.operands[0]
    if x.type != op.results[0].type:
        return False
    b = OpBuilder(op)
    if k < 0:   # ceil(x / k) == ceil(-x / -k)
        x = b.hlo_unary("negate", x)
        k = -k
    new = x
    if k != 1:
        kk = b.hlo_splat(result_t, k)
        q = b.hlo_binary("divide", x, kk)
        r = b.hlo_binary("remainder", x, kk)
        gt = b.hlo_compare("GT", r, b.hlo_splat(result_t, 0))
        one = b.hlo_select(gt, b.hlo_splat(result_t, 1), b.hlo_splat(result_t, 0))
        new = b.hlo_binary("add", q, one)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


@dataclass(frozen=True)
class FoldFloatSizeArithmetic(Pass):
    """Fold float ceil-divisions of integer sizes by constant integers into integer arithmetic."""

    name = "symhlo-fold-float-size-arithmetic"
    summary = "convert(ceil(convert(x) / k)) with integer x and constant k != 0 -> integer ceil-div"

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {"stablehlo.convert": convert_stablehlo_convert_ceil_div})
