"""symhlo-widen-narrow-region-values-for-iree: a `?`-shaped value with elements narrower than 32
bits (bool, i8 / i16, f16 / bf16) that a stablehlo.while carries, or a stablehlo.if / case
returns, crosses the region boundary as a 32-bit tensor, on IREE's copy only.

IREE 3.13 packs the `?`-sized values one execution region produces into one allocation and
carries each one's byte offset through the scf.while / scf.if the region op becomes. With offsets
aligned to 64 its integer range analysis folded such an offset to a wrong constant (the loop read
one state's bytes for another's, silently); symhlo compiles modules with region control flow with
`--iree-stream-resource-min-offset-alignment=4` (backend.compiler.control_flow_offset_flags), where
an offset after a `?`-sized slice of 4-byte multiples needs no `util.align` and keeps its value.
The size of a `?`-shaped f16 or bool tensor is no multiple of 4 IREE can prove: a while_loop
swapping two `?x?` f16 states came back wrong at alignment 4 too. Such values are carried as
f32 / i32 instead (the conversions are exact both ways):

    %w:2 = stablehlo.while(%a = %k, %s = %h) : tensor<f32>, tensor<?x?xf16>
      cond { ^bb0(%a, %s): ... uses %s ... }
      do   { ^bb0(%a, %s): ... stablehlo.return %a1, %s1 }
    use(%w#1)
  ==>
    %hw = stablehlo.convert %h : (tensor<?x?xf16>) -> tensor<?x?xf32>
    %w:2 = stablehlo.while(%a = %k, %sw = %hw) : tensor<f32>, tensor<?x?xf32>
      cond { ^bb0(%a, %sw): %s = stablehlo.convert %sw : -> tensor<?x?xf16> ... uses %s ... }
      do   { ^bb0(%a, %sw): %s = stablehlo.convert %sw ...
             stablehlo.return %a1, (stablehlo.convert %s1 : -> tensor<?x?xf32>) }
    use(stablehlo.convert %w#1 : -> tensor<?x?xf16>)

A stablehlo.if / case result is widened the same way (each branch returns the 32-bit value).
Static-shaped values are left alone (their sizes are constants). The portable artifact keeps the
narrow types.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .ir_util import is_dynamic
from .registry import Pass


def _wide_type(t: ir.Type) -> ir.RankedTensorType | None:
    """The 32-bit twin of a `?`-shaped tensor type with narrower elements, else None."""
    if not isinstance(t, ir.RankedTensorType):
        return None
    t = ir.RankedTensorType(t)
    if not any(is_dynamic(s) for s in t.shape):
        return None
    elt = t.element_type
    if isinstance(elt, ir.IntegerType) and ir.IntegerType(elt).width < 32:
        return ir.RankedTensorType.get(t.shape, ir.IntegerType.get_signless(32))
    if isinstance(elt, (ir.F16Type, ir.BF16Type)):
        return ir.RankedTensorType.get(t.shape, ir.F32Type.get())
    return None


def _uses(v: ir.Value) -> list[tuple[ir.Operation, int]]:
    return [(u.owner, u.operand_number) for u in v.uses]


def _narrow_in_place(v: ir.Value, wide: ir.Type, b: OpBuilder) -> None:
    """Gives `v` the type `wide` and its former readers `convert(v)` back to the narrow type,
    built by `b`."""
    narrow = ir.RankedTensorType(v.type)
    readers = _uses(v)
    v.set_type(wide)
    back = b.hlo_convert(v, narrow.element_type)
    for owner, index in readers:
        owner.operands[index] = back


def _widen_returned(block: ir.Block, index: int, wide: ir.RankedTensorType) -> None:
    """The `index`-th value `block`'s terminator returns, converted to `wide`."""
    ret = [o.operation for o in block.operations][-1]
    ret.operands[index] = OpBuilder(ret).hlo_convert(ret.operands[index], wide.element_type)


def widen_narrow_loop_values(op: ir.Operation) -> bool:
    """stablehlo.while carrying narrow `?`-shaped values -> the same loop carrying them as 32-bit
    values (module doc). Returns whether it changed `op`."""
    cond, body = (r.blocks[0] for r in op.regions)
    changed = False
    for i, result in enumerate(op.results):
        wide = _wide_type(result.type)
        if wide is None:
            continue
        op.operands[i] = OpBuilder(op).hlo_convert(op.operands[i], wide.element_type)
        for block in (cond, body):
            first = [o.operation for o in block.operations][0]
            _narrow_in_place(block.arguments[i], wide, OpBuilder(first))
        _widen_returned(body, i, wide)
        _narrow_in_place(result, wide, OpBuilder(ip=ir.InsertionPoint.after(op), loc=op.location))
        changed = True
    return changed


def widen_narrow_branch_results(op: ir.Operation) -> bool:
    """stablehlo.if / case returning narrow `?`-shaped values -> each branch returns them as
    32-bit values, converted back after the op. Returns whether it changed `op`."""
    changed = False
    for i, result in enumerate(op.results):
        wide = _wide_type(result.type)
        if wide is None:
            continue
        for region in op.regions:
            _widen_returned(region.blocks[0], i, wide)
        _narrow_in_place(result, wide, OpBuilder(ip=ir.InsertionPoint.after(op), loc=op.location))
        changed = True
    return changed


@dataclass(frozen=True)
class WidenNarrowRegionValuesForIree(Pass):
    """Carry narrow `?`-shaped loop values and branch results as 32-bit tensors (IREE 3.13)."""

    name = "symhlo-widen-narrow-region-values-for-iree"
    summary = ("stablehlo.while / if / case: `?`-shaped bool, i8 / i16, f16 / bf16 values cross "
               "the region boundary as i32 / f32 (IREE's packed offsets stay 4-byte multiples)")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {
                "stablehlo.while": widen_narrow_loop_values,
                "stablehlo.if": widen_narrow_branch_results,
                "stablehlo.case": widen_narrow_branch_results})
