"""symhlo-lower-torch-sort: torch.aten.sort / torch.aten.topk -> stablehlo.sort with torch's order.

torch-mlir's StableHLO lowering of `aten.sort` emits a `stablehlo.iota` of the operand's type,
which does not verify when an axis is `?`, and its comparator is a bare `GT` / `LT`: a NaN then
stays where it was (eager puts NaNs last ascending, first descending), so even a static sort came
out silently wrong on NaN. `aten.topk` becomes the same sort plus a slice, which IREE 3.13
pattern-matches into `chlo.top_k` with i32 indices and then rejects. This pass, on torch backend
IR (before torch-backend-to-stablehlo-backend-pipeline), lowers both itself:

    %v, %i = torch.aten.sort %x, %int-1, %true : !torch.vtensor<[?,?],f32>, !torch.int, !torch.bool
               -> !torch.vtensor<[?,?],f32>, !torch.vtensor<[?,?],si64>
  ==>
    %t = torch_c.to_builtin_tensor %x : !torch.vtensor<[?,?],f32> -> tensor<?x?xf32>
    %s = stablehlo.concatenate (get_dimension_size %t, 0), (get_dimension_size %t, 1) : tensor<2xi64>
    %iota = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<?x?xi64>
    %r:2 = "stablehlo.sort"(%t, %iota) ({
      ^bb0(%a: f32, %b: f32, %ia: i64, %ib: i64):
        before = (a > b) | (isnan(a) & !isnan(b))                 (descending; NaN is largest)
               | ((a == b) | (isnan(a) & isnan(b))) & (ia < ib)   (ties keep the input order)
    }) {dimension = 1, is_stable = true}
    %v = torch_c.from_builtin_tensor %r#0 ; %i = torch_c.from_builtin_tensor %r#1

    %v, %i = torch.aten.topk %x, %k, %dim, %largest, %sorted
  ==>  the sort above (descending when largest) + stablehlo.slice [0, k) along dim

Ties are broken by the index in the comparator itself: the comparator is a strict total order,
so the result is torch's stable sort whatever the sort algorithm (IREE 3.13's CPU sort did not
keep equal keys in order with `is_stable = true` alone). The comparator never starts with a `GT`
compare: IREE's preprocessing turns an iota -> sort -> slice whose comparator's first op is `GT`
into `chlo.top_k`, reading nothing else of the comparator (so NaN and ties would be lost; with
i64 indices it failed to verify instead). Eager's unstable sort (`stable=False`,
the default) may order equal keys otherwise; the stable order is one of the valid answers it
documents. `-0.0 == 0.0` is a tie, as in eager. `topk(sorted=False)` returns them sorted (a valid
answer; eager's order is unspecified). Integers compare signed (unsigned for `ui8` and bool).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, builtin_type, replace_with_builtin
from .ir_util import ensure_upstream_registered, is_dynamic, torch_constant
from .registry import Pass, PassFailure

_I1 = lambda: ir.IntegerType.get_signless(1)    # noqa: E731
_I64 = lambda: ir.IntegerType.get_signless(64)  # noqa: E731


def _comparator(sort: ir.Operation, elt: ir.Type, dtype: str, descending: bool, loc) -> None:
    """The comparator region of `sort` over (value, index) pairs: a strict total order."""
    scalar = ir.RankedTensorType.get([], elt)
    index = ir.RankedTensorType.get([], _I64())
    pred = ir.RankedTensorType.get([], _I1())
    block = sort.regions[0].blocks.append(scalar, scalar, index, index)
    bb = OpBuilder(ip=ir.InsertionPoint(block), loc=loc)
    a, b, ia, ib = block.arguments

    def mk(name, operands):
        return bb.value(name, [pred], operands)

    def compare(direction, x, y, kind):
        return bb.hlo_compare(direction, x, y, kind)

    # The first op is never a GT compare: IREE's IotaSortSliceIsTopK reads only the comparator's
    # first op and would turn sort + slice into a chlo.top_k, dropping the NaN and tie rules.
    direction = "GT" if descending else "LT"
    if isinstance(elt, ir.IntegerType):
        kind = "UNSIGNED" if dtype in ("ui8", "i1") else "SIGNED"
        tie = compare("EQ", a, b, kind)
        before = compare(direction, a, b, kind)
    else:
        a_nan, b_nan = compare("NE", a, a, "FLOAT"), compare("NE", b, b, "FLOAT")
        tie = mk("stablehlo.or", [compare("EQ", a, b, "FLOAT"), mk("stablehlo.and", [a_nan, b_nan])])
        # NaN sorts as the largest value: first when descending, last when ascending.
        first, second = (a_nan, b_nan) if descending else (b_nan, a_nan)
        before = mk("stablehlo.or", [compare(direction, a, b, "FLOAT"),
                                     mk("stablehlo.and", [first, mk("stablehlo.not", [second])])])
    earlier = compare("LT", ia, ib, "SIGNED")
    result = mk("stablehlo.or", [before, mk("stablehlo.and", [tie, earlier])])
    bb.create("stablehlo.return", [], [result])


def _sort(op: ir.Operation, x: ir.Value, axis: int, descending: bool) -> tuple[ir.Value, ir.Value, ir.RankedTensorType, str]:
    """(values, indices) of `x` sorted along `axis`, as builtin tensors."""
    b = OpBuilder(op)
    t, dtype = builtin_type(x.type)
    xt = b.value("torch_c.to_builtin_tensor", [t], [x])
    if t.rank == 0:  # a 0-d sort is the value itself, at index 0
        return xt, b.hlo_scalar(0), t, dtype
    iota = b.hlo_iota(xt, axis)
    sort = b.create("stablehlo.sort", [t, iota.type], [xt, iota],
                    {"dimension": ir.IntegerAttr.get(_I64(), axis),
                     "is_stable": ir.BoolAttr.get(True)}, regions=1)
    _comparator(sort, t.element_type, dtype, descending, b.loc)
    return sort.results[0], sort.results[1], t, dtype


def _axis(op: ir.Operation, v: ir.Value, rank: int) -> int:
    axis = torch_constant(v)
    if axis is None:
        raise PassFailure(f"{op.name} with a non-constant dimension is not supported",
                          [(str(op.location), "dimension must be a constant")])
    axis = axis + max(rank, 1) if axis < 0 else axis
    if not 0 <= axis < max(rank, 1):
        raise PassFailure(f"{op.name} dimension out of range", [(str(op.location), str(axis))])
    return axis


def convert_torch_aten_sort(op: ir.Operation) -> None:
    """torch.aten.sort -> stablehlo.sort over (x, iota) with torch's NaN order and stable ties."""
    x, dim, desc = op.operands
    descending = torch_constant(desc)
    if descending is None:
        raise PassFailure("torch.aten.sort with a non-constant `descending` is not supported",
                          [(str(op.location), "descending must be a constant")])
    rank = builtin_type(x.type)[0].rank
    values, indices, _, _ = _sort(op, x, _axis(op, dim, rank), bool(descending))
    replace_with_builtin(op, [values, indices])


def convert_torch_aten_topk(op: ir.Operation) -> None:
    """torch.aten.topk -> the sort above (descending when `largest`) + a slice of the first k."""
    x, k_v, dim, largest_v, _sorted = op.operands
    k, largest = torch_constant(k_v), torch_constant(largest_v)
    if k is None or largest is None:
        raise PassFailure("torch.aten.topk with a non-constant k or `largest` is not supported",
                          [(str(op.location), "k and largest must be constants")])
    rank = builtin_type(x.type)[0].rank
    axis = _axis(op, dim, rank)
    values, indices, t, _ = _sort(op, x, axis, bool(largest))
    if rank == 0:
        replace_with_builtin(op, [values, indices])
        return
    b = OpBuilder(op)
    out = []
    for v in (values, indices):
        vt = ir.RankedTensorType(v.type)
        shape = list(vt.shape)
        shape[axis] = k
        result = ir.RankedTensorType.get(shape, vt.element_type)
        if not any(is_dynamic(s) for s in shape):
            out.append(b.hlo_slice(v, [0] * rank, shape))
            continue
        limit = b.hlo_concat([b.hlo_dim(v, a) if a != axis else b.hlo_const([k], _I64())
                              for a in range(rank)])
        out.append(b.value("stablehlo.real_dynamic_slice", [result],
                           [v, b.hlo_const([0] * rank, _I64()), limit, b.hlo_const([1] * rank, _I64())]))
    replace_with_builtin(op, out)


PATTERNS = {
    "torch.aten.sort": convert_torch_aten_sort,
    "torch.aten.topk": convert_torch_aten_topk,
}


@dataclass(frozen=True)
class LowerTorchSort(Pass):
    """Lower torch.aten.sort / topk to stablehlo.sort with torch's NaN order and stable ties."""

    name = "symhlo-lower-torch-sort"
    summary = "torch.aten.sort / topk -> stablehlo.sort over (x, dynamic_iota), NaN largest, ties in input order"

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, PATTERNS)
