"""symhlo-prepare-loops-for-iree: a `stablehlo.while`'s `cond` region reads every `?` size of its
loop values, on IREE's copy only.

IREE 3.13 carries a `?`-shaped loop value of an `scf.while` together with its sizes, and loses
track of them when the `cond` region never reads them: a `stablehlo.if` (a `torch.cond`) in the
body of such a loop then fails with "'tensor.dim' op unexpected during shape cleanup; dynamic
dimensions must have been resolved prior to leaving the flow dialect" (seen for a loop counted by
a constant, or by a data value, over a `?x4` or `?x?` state). The same loop compiles and runs
correctly once `cond` reads the sizes, so each one is read into a condition that always holds:

    cond { %p = ... ; stablehlo.return %p : tensor<i1> }      (%h : tensor<?x4xf32>)
  ==>
    cond {
      %p = ...
      %d = stablehlo.get_dimension_size %h, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
      %ok = stablehlo.compare GE, %d, %c0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %q = stablehlo.and %p, %ok : tensor<i1>
      stablehlo.return %q : tensor<i1>
    }

A size the region already reads is left alone. The portable artifact keeps the plain loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .ir_util import is_dynamic, walk_ops
from .registry import Pass


def read_loop_sizes_in_cond(op: ir.Operation) -> bool:
    """stablehlo.while -> the same loop whose `cond` also checks each `?` size of its loop values
    is >= 0. Returns whether it changed `op`."""
    block = op.regions[0].blocks[0]
    ret = [o.operation for o in block.operations][-1]
    read = [(o.operands[0], ir.IntegerAttr(o.attributes["dimension"]).value)
            for top in block.operations for o in [top.operation] + walk_ops(top.operation)
            if o.name == "stablehlo.get_dimension_size"]
    b = OpBuilder(ret)
    pred = ret.operands[0]
    changed = False
    i32 = ir.IntegerType.get_signless(32)
    for arg in block.arguments:
        if not isinstance(arg.type, ir.RankedTensorType):
            continue
        for axis, size in enumerate(ir.RankedTensorType(arg.type).shape):
            if not is_dynamic(size) or any(v == arg and a == axis for v, a in read):
                continue
            d = b.hlo_get_dimension_size(arg, axis)
            ok = b.hlo_compare("GE", d, b.hlo_scalar(0, i32), "SIGNED")
            pred = b.hlo_binary("and", pred, ok)
            changed = True
    if changed:
        ret.operands[0] = pred
    return changed


@dataclass(frozen=True)
class PrepareLoopsForIree(Pass):
    """Make each stablehlo.while's cond region read the `?` sizes of its loop values (IREE 3.13)."""

    name = "symhlo-prepare-loops-for-iree"
    summary = "stablehlo.while: cond reads every `?` size of the loop values (IREE loses them otherwise)"

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {"stablehlo.while": read_loop_sizes_in_cond})
