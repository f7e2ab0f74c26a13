"""symhlo-fold-torch-runtime-asserts: erase `torch.runtime.assert`s that the size ranges prove.

torch-mlir's decompositions (var/std, ...) guard their own size arithmetic with
`torch.runtime.assert`, which convert-torch-to-stablehlo cannot legalize. When a small interval
analysis over the `!torch.int` / `!torch.float` ops (sizes are >= 0, symbols carry their ranges)
proves the condition always true, the assert is erased; any other assert stays, so the lowering
fails on it by name rather than dropping a check that might fire:

    %n = torch.aten.size.int %x, %int1 : !torch.vtensor<[?,?],f64>, !torch.int -> !torch.int
    %f = torch.aten.Float.Scalar %n : !torch.int -> !torch.float
    %a = torch.aten.add %f, %float1 : !torch.float, !torch.float -> !torch.float
    %c = torch.aten.ge.float %a, %float1 : !torch.float, !torch.float -> !torch.bool
    torch.runtime.assert %c, "correction value should be less than or equal to productDimSize + 1"
  ==>
    (the assert is erased; the now-dead comparison goes with it)
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .decompose_symbolic_torch_ops import int_range
from .builder import apply_patterns
from .ir_util import ensure_upstream_registered, remove_dead_ops
from .registry import Pass


def fold_torch_runtime_assert(op: ir.Operation) -> bool:
    """torch.runtime.assert with a provably true condition -> erased. Returns whether it was."""
    if int_range(op.operands[0]) != (1, 1):
        return False
    op.erase()
    return True


@dataclass(frozen=True)
class FoldTorchRuntimeAsserts(Pass):
    """Erase torch.runtime.assert ops whose conditions the symbolic size ranges prove true."""

    name = "symhlo-fold-torch-runtime-asserts"
    summary = "torch.runtime.assert proven true by size ranges -> erased (others are kept)"

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            if not apply_patterns(module.operation, {"torch.runtime.assert": fold_torch_runtime_assert}):
                return
            remove_dead_ops(module.operation, {
                "torch.aten.ge.float", "torch.aten.gt.float", "torch.aten.le.float",
                "torch.aten.lt.float", "torch.aten.eq.float", "torch.aten.ne.float",
                "torch.aten.ge.int", "torch.aten.gt.int", "torch.aten.le.int", "torch.aten.lt.int",
                "torch.aten.eq.int", "torch.aten.ne.int", "torch.aten.add", "torch.aten.Float.Scalar",
                "torch.constant.float", "torch.constant.int"})
