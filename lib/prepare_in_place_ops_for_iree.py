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

* A `stablehlo.while` result returned as it is shares its buffer with the loop's in-place state:
  `inv(a)` (a Gauss-Jordan loop) beside `lu_factor(a)` returning the LU loop's result, over an
  unbatched `?x?` matrix, gave an all-NaN inverse (the same program with `lu * 2` returned was
  right). Such a returned value is materialized the same way, so the output has a buffer of its
  own:

    return %w#1          (%w = stablehlo.while ...)
  ==>
    return stablehlo.reduce(stablehlo.pad (reshape %w#1 -> [..., 1]), -0.0, high = [.., 1]) add
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .ir_util import is_dynamic
from .registry import Pass

_I64 = lambda: ir.IntegerType.get_signless(64)  # noqa: E731


def _unused(v: ir.Value) -> bool:
    for _ in v.uses:
        return False
    return True


def _shape_of(b: OpBuilder, x: ir.Value) -> ir.Value | None:
    """x's shape as tensor<rank x i64> when some axis is `?`, else None."""
    t = ir.RankedTensorType(x.type)
    if not any(is_dynamic(s) for s in t.shape):
        return None
    return b.hlo_concat([b.hlo_dim(x, axis) for axis in range(t.rank)])


def _never_above_inf(b: OpBuilder, d: ir.Value) -> ir.Value:
    """`d > +inf` elementwise as tensor<...xi1>: false for every element."""
    t = ir.RankedTensorType(d.type)
    if not isinstance(t.element_type, ir.FloatType) or isinstance(t.element_type, ir.F64Type):
        d = b.hlo_convert(d, ir.F32Type.get())
    elt = ir.RankedTensorType(d.type).element_type
    inf = b.hlo_scalar(float("inf"), elt)
    infb = b.hlo_broadcast_in_dim(inf, ir.RankedTensorType.get(t.shape, elt), [], _shape_of(b, d))
    return b.hlo_compare("GT", d, infb, "FLOAT")


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
    b = OpBuilder(before)
    t = ir.RankedTensorType(v.type)
    rank, elt = t.rank, t.element_type
    col_t = ir.RankedTensorType.get(list(t.shape) + [1], elt)
    shape = _shape_of(b, v)
    if shape is None:
        col = b.hlo_reshape(v, col_t.shape)
    else:
        col = b.hlo_dynamic_reshape(v, b.hlo_concat([shape, b.hlo_const([1], _I64())]), col_t)
    # The identity of the sum, exactly: -0.0 for floats (x + -0.0 is x, -0.0 included), 0 for
    # integers; booleans combine with `or`.
    zero_scalar = b.hlo_scalar(-0.0 if isinstance(elt, ir.FloatType) else 0, elt)
    pair = b.hlo_pad(col, zero_scalar, [0] * (rank + 1), [0] * rank + [1], [0] * (rank + 1))
    combine = "or" if isinstance(elt, ir.IntegerType) and ir.IntegerType(elt).width == 1 else "add"
    return b.hlo_reduce(pair, zero_scalar, [rank], t, combine)


def _loop_result(v: ir.Value) -> bool:
    """Whether v is a result of a stablehlo.while."""
    d = v.owner
    return not isinstance(d, ir.Block) and d.name == "stablehlo.while"


def isolate_in_place_operands(func: ir.Operation) -> None:
    """Each cheap-produced operand a sort or scatter overwrites, and each loop result returned
    as it is -> the same values out of a reduction (_materialized), so the in-place op touches
    no other reader's values."""
    def isolate(op: ir.Operation, overwritten: range, shared=_cheap) -> None:
        for i in overwritten:
            v = op.operands[i]
            if shared(v) and isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).rank > 0:
                op.operands[i] = _materialized(v, op)

    apply_patterns(func, {
        "stablehlo.sort": lambda op: isolate(op, range(len(op.operands))),
        # a scatter overwrites its inputs, not its indices / updates
        "stablehlo.scatter": lambda op: isolate(op, range((len(op.operands) - 1) // 2)),
        "func.return": lambda op: isolate(op, range(len(op.operands)), _loop_result)})


def convert_stablehlo_sort(op: ir.Operation) -> bool:
    """Makes a live result of `op` read each unused one through a zero term (module doc)."""
    results = list(op.results)
    dead = [r for r in results if _unused(r)]
    live = [r for r in results if not _unused(r)]
    if not dead or not live:
        return False
    target = live[0]
    uses = [(u.owner, u.operand_number) for u in target.uses]
    b = OpBuilder(ip=ir.InsertionPoint.after(op), loc=op.location)
    t = ir.RankedTensorType(target.type)
    acc = target
    for d in dead:
        z = b.hlo_convert(_never_above_inf(b, d), t.element_type)
        acc = b.hlo_binary("subtract" if isinstance(t.element_type, ir.FloatType) else "add", acc, z)
    for owner, index in uses:
        owner.operands[index] = acc
    return True


@dataclass(frozen=True)
class PrepareInPlaceOpsForIree(Pass):
    """Make every sort result read, every cheap operand a sort / scatter overwrites and every
    returned loop result private."""

    name = "symhlo-prepare-in-place-ops-for-iree"
    summary = ("stablehlo.sort / scatter / while for IREE's in-place lowering: unused sort results "
               "read through a zero term, iota / splat operands they overwrite and returned loop "
               "results materialized privately")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {"func.func": isolate_in_place_operands})
            apply_patterns(module.operation, {"stablehlo.sort": convert_stablehlo_sort})
