"""symhlo-keep-sort-results-for-iree: a stablehlo.sort result nobody reads -> one read by a no-op.

IREE 3.13 lowers `stablehlo.sort` to an in-place `iree_linalg_ext.sort` over all its operands;
a result that is never read (argsort reads only the indices, msort only the values) becomes a
dispatch-local stack buffer. With a `?` axis that is an unbounded `memref.alloca` ("expected no
unbounded stack allocations"), and with a static one over 32 KiB it exceeds the stack limit
(argsort of 10000 floats): iree-compile fails either way. Reading every result keeps each one a
real buffer. For each unused result `%d` of a sort, a live result `%r` takes a term that is zero
for every value but that no folder can prove zero:

    %s:2 = "stablehlo.sort"(%x, %iota) ({...}) : (tensor<?xf32>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xi64>)
    return %s#1                                              (%s#0 unused)
  ==>
    %z = stablehlo.compare GT, %s#0, +inf (broadcast), FLOAT   (false for every float, NaN too)
    %r = stablehlo.add %s#1, (stablehlo.convert %z : i64)     (%s#1 + 0)
    return %r

A float live result takes `r - convert(z)`, i.e. `r - 0.0`, which keeps -0.0 and NaN. A dead
integer result is compared after a convert to f32 (finite, so never above +inf). This runs on
IREE's copy only (symhlo-stablehlo-to-iree-input-pipeline); the portable artifact is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .ir_util import create, is_dynamic, walk_ops
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
class KeepSortResultsForIree(Pass):
    """Make every stablehlo.sort result read, so IREE keeps it in a buffer of its own."""

    name = "symhlo-keep-sort-results-for-iree"
    summary = "unused stablehlo.sort results -> read through a zero term (IREE's in-place sort needs a buffer for each)"

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            for op in [o for o in walk_ops(module.operation) if o.name == "stablehlo.sort"]:
                convert_stablehlo_sort(op)
