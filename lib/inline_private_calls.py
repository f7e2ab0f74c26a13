"""symhlo-inline-private-calls: inline `func.call`s to private functions, then drop the dead ones.

jax.export's `@main` reads the input sizes and calls a private `@_wrapped_jax_export_main` with
them, which calls private helpers (`@floor_divide`, `@remainder`, `@cumsum`, ...). Inlined, every
size computation is in `@main`, in terms of `@main`'s arguments, where the size analysis
(symhlo-lower-shape-assertions, the broadcast proofs of symhlo-prepare-for-iree) can read it:

    func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
      %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
      %r = call @_wrapped(%n, %x) : (tensor<i32>, tensor<?xf32>) -> tensor<?xf32>
      return %r : tensor<?xf32>
    }
    func.func private @_wrapped(%n: tensor<i32>, %x: tensor<?xf32>) -> tensor<?xf32> {
      %y = stablehlo.add %x, %x : tensor<?xf32>
      return %y : tensor<?xf32>
    }
  ==>
    func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
      %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
      %y = stablehlo.add %x, %x : tensor<?xf32>
      return %y : tensor<?xf32>
    }

A call to a public function is inlined as well (its meaning is the callee's body; the callee stays);
recursive calls stay. Nothing else is simplified (MLIR's inliner runs with no cleanup pipeline).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir
from torch_mlir.passmanager import PassManager

from .ir_util import ensure_upstream_registered, walk_ops
from .registry import Pass


@dataclass(frozen=True)
class InlinePrivateCalls(Pass):
    """Inline calls to private functions (jax.export's wrapper and helpers), drop dead privates."""

    name = "symhlo-inline-private-calls"
    summary = "Inline func.call to private functions and erase the private functions left unused"

    def run(self, module: ir.Module) -> None:
        ctx = module.context
        ensure_upstream_registered(ctx)
        with ctx, ir.Location.unknown():
            if not any(op.name == "func.call" for op in walk_ops(module.operation)):
                return
            pm = PassManager.parse("builtin.module(inline{default-pipeline=''}, symbol-dce)")
            pm.run(module.operation)
