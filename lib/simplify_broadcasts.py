"""symhlo-simplify-broadcasts: drop dynamic broadcasts that torch's contract makes identities.

torch-mlir wraps every elementwise operand in `dynamic_broadcast_in_dim` to the broadcast shape.
In a torch.export program a dynamic (`?`) axis never broadcasts: a size that may expand is a
static 1, and sizes that meet in a broadcast were proven equal at export (the runtime wrapper
checks the inputs that proof rests on). A broadcast of `?x4` to `?x4` with dims = [0, 1] is then
the identity and goes; one that only adds leading axes or expands static 1s stays:

    %b = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
    %r = stablehlo.add %b, %y : tensor<?x4xf32>
  ==>
    %r = stablehlo.add %x, %y : tensor<?x4xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .ir_util import walk_ops
from .registry import Pass


def _dims(op: ir.Operation) -> list[int]:
    return [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])]


def is_identity_broadcast(op: ir.Operation) -> bool:
    src, dst = op.operands[0].type, op.results[0].type
    return src == dst and _dims(op) == list(range(ir.RankedTensorType(dst).rank))


@dataclass(frozen=True)
class SimplifyBroadcasts(Pass):
    """Fold identity dynamic_broadcast_in_dim ops (same type, identity dims)."""

    name = "symhlo-simplify-broadcasts"
    summary = "Fold dynamic_broadcast_in_dim ops that torch's broadcasting contract makes identities"

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            for op in walk_ops(module.operation):
                if op.name == "stablehlo.dynamic_broadcast_in_dim" and is_identity_broadcast(op):
                    op.results[0].replace_all_uses_with(op.operands[0])
            for op in reversed(walk_ops(module.operation)):
                if op.name == "stablehlo.dynamic_broadcast_in_dim" and not list(op.results[0].uses):
                    op.erase()
