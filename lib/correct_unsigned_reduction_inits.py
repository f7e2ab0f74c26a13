"""symhlo-correct-unsigned-reduction-inits: max/min reductions of unsigned integers get their
unsigned identity as init.

torch-mlir 20261001 lowers `amax`/`max.dim`/`amin` of a uint8 tensor to a stablehlo.reduce whose
init is the *signed* extreme of the width: 128 (int8's min bit pattern) for max, 127 for min. As
ui8 those are ordinary values, so `x.to(torch.uint8).amax(0)` of values 0..6 returned 128 (and a
min over values >= 128 would return 127), silently. The identities are 0 for maximum and 2^w - 1
for minimum:

    %c = stablehlo.constant dense<128> : tensor<ui8>
    %r = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [0]
           : (tensor<?x5xui8>, tensor<ui8>) -> tensor<5xui8>
  ==>
    %c0 = stablehlo.constant dense<0> : tensor<ui8>
    %r = stablehlo.reduce(%x init: %c0) applies stablehlo.maximum across dimensions = [0] ...
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .ir_util import defining_op
from .registry import Pass


def _reducer(op: ir.Operation) -> str | None:
    """The name of a reduce body's single combining op (`stablehlo.maximum`), else None."""
    body = op.regions[0].blocks[0]
    ops = [o.operation.name for o in body.operations]
    return ops[0] if len(ops) == 2 and ops[1] == "stablehlo.return" else None


def convert_stablehlo_reduce_unsigned_init(op: ir.Operation) -> bool:
    """stablehlo.reduce (maximum | minimum) of a uiN tensor whose init is the signed extreme of
    the width -> the same reduce with init 0 (maximum) or 2^N - 1 (minimum)."""
    if len(op.operands) != 2:
        return False
    elt = ir.RankedTensorType(op.operands[0].type).element_type
    if not isinstance(elt, ir.IntegerType) or not ir.IntegerType(elt).is_unsigned:
        return False
    width = ir.IntegerType(elt).width
    kind = _reducer(op)
    wrong, right = {"stablehlo.maximum": (1 << (width - 1), 0),
                    "stablehlo.minimum": ((1 << (width - 1)) - 1, (1 << width) - 1)}.get(kind, (None, None))
    init = defining_op(op.operands[1])
    if wrong is None or init is None or init.name != "stablehlo.constant":
        return False
    attr = ir.DenseIntElementsAttr(init.attributes["value"])
    if not attr.is_splat or int(attr.get_splat_value().value) != wrong:
        return False
    init_t = op.operands[1].type
    new = OpBuilder(op).value("stablehlo.constant", [init_t], [], {
        "value": ir.DenseElementsAttr.get_splat(init_t, ir.IntegerAttr.get(elt, right))})
    op.operands[1] = new
    return True


@dataclass(frozen=True)
class CorrectUnsignedReductionInits(Pass):
    """Give max/min reductions of unsigned integers their unsigned identity as init."""

    name = "symhlo-correct-unsigned-reduction-inits"
    summary = ("reduce max/min of uiN with torch-mlir's signed-extreme init (128 / 127 for ui8) "
               "-> init 0 / 2^N - 1")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {"stablehlo.reduce": convert_stablehlo_reduce_unsigned_init})
