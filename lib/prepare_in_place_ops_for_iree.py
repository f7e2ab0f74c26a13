"""symhlo-prepare-in-place-ops-for-iree: stablehlo.sort / scatter in forms IREE 3.13 gets right.

IREE lowers `stablehlo.sort` to an in-place `iree_linalg_ext.sort` over all its operands, and
`stablehlo.scatter` to an in-place `iree_linalg_ext.scatter` into its destination. Two
consequences, both fixed here on IREE's copy only (symhlo-stablehlo-to-iree-input-pipeline; the
portable artifact is unchanged):

* A result that is never read (argsort reads only the indices, msort only the values) becomes a
  dispatch-local stack buffer: with a `?` axis an unbounded `memref.alloca` ("expected no
  unbounded stack allocations"), with a static one over 32 KiB past the stack limit (argsort of
  10000 floats). iree-compile failed either way. Each unused result `%d` is read by a live one
  `%r` through a term that is zero for every value but that no folder can prove zero:

    %s:2 = "stablehlo.sort"(%x, %iota) ...          return %s#1          (%s#0 unused)
  ==>
    %z = stablehlo.compare GT, %s#0, +inf (broadcast), FLOAT    (false for every float, NaN too)
    %r = stablehlo.add %s#1, (stablehlo.convert %z : i64)      (%s#1 + 0)

  A float live result takes `r - convert(z)`, i.e. `r - 0.0`, which keeps -0.0 and NaN; a dead
  integer result is compared after a convert to f32 (finite, so never above +inf).

* An operand made by a cheap producer (iota, broadcast of a constant) is overwritten in place
  even when other ops read the same values, because IREE clones and merges such producers
  across ops. With `?` dims: two topk of one tensor gave the second sort the first one's
  permutation as its "iota"; mode's argmax read sorted indices; and plain
  `zeros_like(x).scatter_add(0, i, a), zeros_like(x).scatter_add(0, j, b)` (torch-mlir's own
  lowering) returned each other's sums. All silently wrong. Such an operand of a sort, or
  destination of a scatter, is replaced by the same values out of a reduction, a dispatch root
  that IREE neither fuses into the in-place op nor merges with another producer (adding zero
  elementwise instead was fused into the in-place operand and failed to compile):

    %s = "stablehlo.sort"(%x, %iota)
  ==>
    %p = stablehlo.pad (reshape %iota -> [..., 1]), 0, high = [0, .., 1]       ([iota, 0])
    %s = "stablehlo.sort"(%x, stablehlo.reduce(%p) applies stablehlo.add across the last axis)

  Static shapes were not affected, nor operands that are arguments or computed values.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import apply_patterns
from .ir_util import create, is_dynamic
from .registry import Pass

_I64 = lambda: ir.IntegerType.get_signless(64)  # noqa: E731


def _unused(v: ir.Value) -> bool:
    for _ in v.uses:
        return False
    return True


def _shape_of(loc, ip, x: ir.Value) -> ir.Value | None:
    """x's shape as tensor<rank x i64> when some axis is `?`, else None."""
    t = ir.RankedTensorType(x.type)
    if not any(is_dynamic(s) for s in t.shape):
        return None
    i32, i64 = ir.IntegerType.get_signless(32), _I64()
    parts = []
    for axis, size in enumerate(t.shape):
        one = ir.RankedTensorType.get([1], i64)
        if is_dynamic(size):
            d = create("stablehlo.get_dimension_size", [ir.RankedTensorType.get([], i32)], [x],
                       {"dimension": ir.IntegerAttr.get(i64, axis)}, loc=loc, ip=ip).result
            d = create("stablehlo.convert", [ir.RankedTensorType.get([], i64)], [d], loc=loc, ip=ip).result
            parts.append(create("stablehlo.reshape", [one], [d], loc=loc, ip=ip).result)
        else:
            parts.append(create("stablehlo.constant", [one], [], {"value": ir.DenseElementsAttr.get_splat(
                one, ir.IntegerAttr.get(i64, size))}, loc=loc, ip=ip).result)
    if len(parts) == 1:
        return parts[0]
    return create("stablehlo.concatenate", [ir.RankedTensorType.get([len(parts)], i64)], parts,
                  {"dimension": ir.IntegerAttr.get(i64, 0)}, loc=loc, ip=ip).result


def _never_above_inf(loc, ip, d: ir.Value) -> ir.Value:
    """`d > +inf` elementwise as tensor<...xi1>: false for every element."""
    t = ir.RankedTensorType(d.type)
    f32 = ir.F32Type.get()
    if not isinstance(t.element_type, ir.FloatType) or isinstance(t.element_type, ir.F64Type):
        d = create("stablehlo.convert", [ir.RankedTensorType.get(t.shape, f32)], [d], loc=loc, ip=ip).result
    elt = ir.RankedTensorType(d.type).element_type
    scalar = ir.RankedTensorType.get([], elt)
    inf = create("stablehlo.constant", [scalar], [], {"value": ir.DenseElementsAttr.get_splat(
        scalar, ir.FloatAttr.get(elt, float("inf")))}, loc=loc, ip=ip).result
    shape = _shape_of(loc, ip, d)
    full_t = ir.RankedTensorType.get(t.shape, elt)
    if shape is None:
        infb = create("stablehlo.broadcast_in_dim", [full_t], [inf],
                      {"broadcast_dimensions": ir.DenseI64ArrayAttr.get([])}, loc=loc, ip=ip).result
    else:
        infb = create("stablehlo.dynamic_broadcast_in_dim", [full_t], [inf, shape],
                      {"broadcast_dimensions": ir.DenseI64ArrayAttr.get([])}, loc=loc, ip=ip).result
    return create("stablehlo.compare", [ir.RankedTensorType.get(t.shape, ir.IntegerType.get_signless(1))],
                  [d, infb], {
                      "comparison_direction": ir.Attribute.parse("#stablehlo<comparison_direction GT>"),
                      "compare_type": ir.Attribute.parse("#stablehlo<comparison_type FLOAT>")},
                  loc=loc, ip=ip).result


_CHEAP = ("stablehlo.iota", "stablehlo.dynamic_iota", "stablehlo.constant",
          "stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim")


def _cheap(v: ir.Value) -> bool:
    """Whether v comes from a producer IREE clones and merges across ops (iota, splat)."""
    d = v.owner
    return not isinstance(d, ir.Block) and d.name in _CHEAP


def _materialized(v: ir.Value, before: ir.Operation) -> ir.Value:
    """v as the sum over a 2-element axis of [v, 0]: the same values, produced by a reduction
    (a dispatch root in IREE, so it is neither fused into the in-place op nor merged with
    another producer)."""
    ip, loc = ir.InsertionPoint(before), before.location
    t = ir.RankedTensorType(v.type)
    rank, elt = t.rank, t.element_type
    col_t = ir.RankedTensorType.get(list(t.shape) + [1], elt)
    shape = _shape_of(loc, ip, v)
    i64 = _I64()
    if shape is None:
        col = create("stablehlo.reshape", [col_t], [v], loc=loc, ip=ip).result
    else:
        one = create("stablehlo.constant", [ir.RankedTensorType.get([1], i64)], [], {
            "value": ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([1], i64),
                                                    ir.IntegerAttr.get(i64, 1))}, loc=loc, ip=ip).result
        col_shape = create("stablehlo.concatenate", [ir.RankedTensorType.get([rank + 1], i64)],
                           [shape, one], {"dimension": ir.IntegerAttr.get(i64, 0)}, loc=loc, ip=ip).result
        col = create("stablehlo.dynamic_reshape", [col_t], [v, col_shape], loc=loc, ip=ip).result
    # The identity of the sum, exactly: -0.0 for floats (x + -0.0 is x, -0.0 included), 0 for
    # integers; booleans combine with `or`.
    ident = ir.FloatAttr.get(elt, -0.0) if isinstance(elt, ir.FloatType) else ir.IntegerAttr.get(elt, 0)
    zero_scalar = create("stablehlo.constant", [ir.RankedTensorType.get([], elt)], [], {
        "value": ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([], elt), ident)},
        loc=loc, ip=ip).result
    pair_t = ir.RankedTensorType.get(list(t.shape) + [2], elt)
    arr = ir.DenseI64ArrayAttr.get
    pair = create("stablehlo.pad", [pair_t], [col, zero_scalar], {
        "edge_padding_low": arr([0] * (rank + 1)), "edge_padding_high": arr([0] * rank + [1]),
        "interior_padding": arr([0] * (rank + 1))}, loc=loc, ip=ip).result
    red = ir.Operation.create("stablehlo.reduce", results=[t], operands=[pair, zero_scalar],
                              attributes={"dimensions": arr([rank])}, regions=1, loc=loc, ip=ip)
    scalar = ir.RankedTensorType.get([], elt)
    block = red.regions[0].blocks.append(scalar, scalar)
    bip = ir.InsertionPoint(block)
    combine = "stablehlo.or" if isinstance(elt, ir.IntegerType) and ir.IntegerType(elt).width == 1 \
        else "stablehlo.add"
    add = create(combine, [scalar], list(block.arguments), loc=loc, ip=bip).result
    create("stablehlo.return", [], [add], loc=loc, ip=bip)
    return red.result


def isolate_in_place_operands(func: ir.Operation) -> None:
    """Each cheap-produced operand a sort or scatter overwrites -> the same values out of a
    reduction (_materialized), so the in-place op touches no other reader's values."""
    def isolate(op: ir.Operation, overwritten: range) -> None:
        for i in overwritten:
            v = op.operands[i]
            if _cheap(v) and isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).rank > 0:
                op.operands[i] = _materialized(v, op)

    apply_patterns(func, {
        "stablehlo.sort": lambda op: isolate(op, range(len(op.operands))),
        # a scatter overwrites its inputs, not its indices / updates
        "stablehlo.scatter": lambda op: isolate(op, range((len(op.operands) - 1) // 2))})


def convert_stablehlo_sort(op: ir.Operation) -> bool:
    """Makes a live result of `op` read each unused one through a zero term (module doc)."""
    results = list(op.results)
    dead = [r for r in results if _unused(r)]
    live = [r for r in results if not _unused(r)]
    if not dead or not live:
        return False
    target = live[0]
    uses = [(u.owner, u.operand_number) for u in target.uses]
    ip, loc = ir.InsertionPoint.after(op), op.location
    t = ir.RankedTensorType(target.type)
    acc = target
    for d in dead:
        z = create("stablehlo.convert", [t], [_never_above_inf(loc, ip, d)], loc=loc, ip=ip).result
        name = "stablehlo.subtract" if isinstance(t.element_type, ir.FloatType) else "stablehlo.add"
        acc = create(name, [t], [acc, z], loc=loc, ip=ip).result
    for owner, index in uses:
        owner.operands[index] = acc
    return True


@dataclass(frozen=True)
class PrepareInPlaceOpsForIree(Pass):
    """Make every sort result read, and every cheap operand a sort / scatter overwrites private."""

    name = "symhlo-prepare-in-place-ops-for-iree"
    summary = ("stablehlo.sort / scatter for IREE's in-place lowering: unused sort results read "
               "through a zero term, iota / splat operands they overwrite materialized privately")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {"func.func": isolate_in_place_operands})
            apply_patterns(module.operation, {"stablehlo.sort": convert_stablehlo_sort})
