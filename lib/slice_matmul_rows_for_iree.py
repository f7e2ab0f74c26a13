"""symhlo-slice-matmul-rows-for-iree: a matmul read only through one slice of its rows -> the
matmul of the sliced rows.

A causal LM's head computes the logits of every position and `logits[:, -1]` keeps the last
one: the head's matmul over all `batch x seq` rows (Llama d=256, vocab 4096, at (4, 512): 4.3 of
its 10.2 GFLOP) is sliced to `batch` rows after it. Each row of a matmul's result depends on its
own row of the lhs only, so the slice can be taken of the lhs, through the reshape that groups
the rows, before the matmul:

    %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]
           : (tensor<?x256xf32>, tensor<256x4096xf32>) -> tensor<?x4096xf32>
    %r = stablehlo.dynamic_reshape %d, [b, s, 4096] : (tensor<?x4096xf32>, tensor<3xi64>) -> tensor<?x?x4096xf32>
    %l = stablehlo.real_dynamic_slice %r, [0, s - 1, 0], [b, s, 4096], [1, 1, 1] -> tensor<?x1x4096xf32>
  ==>
    %h = stablehlo.dynamic_reshape %x, [b, s, 256] : (tensor<?x256xf32>, tensor<3xi64>) -> tensor<?x?x256xf32>
    %hl = stablehlo.real_dynamic_slice %h, [0, s - 1, 0], [b, s, 256], [1, 1, 1] -> tensor<?x1x256xf32>
    %xl = stablehlo.dynamic_reshape %hl, [b * 1, 256] -> tensor<?x256xf32>
    %dl = stablehlo.dot_general %xl, %w, contracting_dims = [1] x [0] -> tensor<?x4096xf32>
    %l = stablehlo.dynamic_reshape %dl, [b, 1, 4096] -> tensor<?x1x4096xf32>

(the matmul stays 2-D: IREE 3.13 fails on the reshape its own lowering makes of a dot_general
with two `?` free lhs axes).

Matched (where the slice provably keeps every row, nothing is done: a decode step's single
position): a dot_general without batching axes whose rhs is a static `K x N` matrix contracted on
its first axis and whose lhs is `rows x K`, read (besides size reads) only by one reshape
(`stablehlo.reshape` or `dynamic_reshape`) that keeps `N` as its last axis, or by the slice
itself; that value read only by one slice (`stablehlo.slice`, `real_dynamic_slice` or
`dynamic_slice`) that takes the last axis whole (start 0, its full size, stride 1; SizeFacts
read the `?` slices' index vectors). The reshape keeping `N` last means its leading axes
multiply to the rows, so `x` has those leading axes too (`%h`); the slice of `%h` takes the same
leading positions with all `K` columns. Size reads of the reshaped product read `%h` instead and
of the product `x`'s rows, so the whole-row matmul dies. Each result element is the same dot
product over the same operands as before (its summation order is IREE's choice either way).

Runs on the copy for IREE only (the portable artifact keeps the model's order; XLA's algebraic
simplifier does the same there). Not matched: elementwise ops between the matmul and the
reshape (a bias), a product read by two slices, batched matmuls.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, dot_dimension_numbers, dot_numbers
from .ir_util import defining_op, is_dynamic, use_owner
from .registry import Pass
from .size_facts import facts_by_function

_SIZE_READ = "stablehlo.get_dimension_size"
_RESHAPES = ("stablehlo.reshape", "stablehlo.dynamic_reshape")
_SLICES = ("stablehlo.slice", "stablehlo.real_dynamic_slice", "stablehlo.dynamic_slice")


def _shape(v: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(v.type).shape)


def _readers(v: ir.Value) -> list[ir.Operation]:
    """The ops reading `v` other than size reads."""
    return [use_owner(u) for u in v.uses if use_owner(u).name != _SIZE_READ]


def _row_matmul(dot: ir.Operation) -> bool:
    """`rows x K` times a static `K x N` matrix, contracting K, no batching axes."""
    nums = dot_dimension_numbers(dot)
    lhs, rhs = dot.operands
    return (len(_shape(lhs)) == 2 and len(_shape(rhs)) == 2
            and ir.RankedTensorType(rhs.type).has_static_shape
            and not nums["lhs_batching_dimensions"] and nums["lhs_contracting_dimensions"] == [1]
            and nums["rhs_contracting_dimensions"] == [0])


def _whole_last_axis(s: ir.Operation, v: ir.Value, facts) -> bool:
    """The slice `s` of `v` takes `v`'s last axis whole, at stride 1."""
    n, last = _shape(v)[-1], len(_shape(v)) - 1
    if s.name == "stablehlo.slice":
        start, limit, step = (list(ir.DenseI64ArrayAttr(s.attributes[k]))
                              for k in ("start_indices", "limit_indices", "strides"))
        return (start[last], limit[last], step[last]) == (0, n, 1)
    if s.name == "stablehlo.dynamic_slice":
        sizes = list(ir.DenseI64ArrayAttr(s.attributes["slice_sizes"]))
        return sizes[last] == n  # the start is clamped to 0 when the slice is the whole axis
    starts, limits, steps = (facts.vector(o) for o in s.operands[1:4])
    if starts is None or limits is None or steps is None:
        return False
    return starts[last] == 0 and limits[last] == n and steps[last] == 1


def match_sliced_rows(s: ir.Operation, facts_of):
    """(dot, reshape or None) when slice `s` reads a row matmul's product as the module docstring
    describes; else None."""
    if s.name not in _SLICES or is_dynamic(_shape(s.operands[0])[-1]):
        return None
    v = s.operands[0]
    if _readers(v) != [s]:
        return None
    reshape = defining_op(v)
    if reshape is not None and reshape.name in _RESHAPES:
        d = reshape.operands[0]
        if _shape(d)[-1:] != _shape(v)[-1:] or _readers(d) != [reshape]:
            return None
    else:
        reshape, d = None, v
    dot = defining_op(d)
    if dot is None or dot.name != "stablehlo.dot_general" or not _row_matmul(dot):
        return None
    if any(use_owner(u).name == _SIZE_READ and ir.IntegerAttr(
            use_owner(u).attributes["dimension"]).value != 0 for u in d.uses):
        return None
    facts = facts_of(s)
    if not _whole_last_axis(s, v, facts):
        return None
    if all(facts.equal(facts.dim(s.results[0], a), facts.dim(v, a)) for a in range(len(_shape(v)))):
        return None  # every row kept (a decode step's one position): nothing to save
    return dot, reshape


def _rows_times(b: OpBuilder, part: ir.Value, w: ir.Value, out_t: ir.RankedTensorType) -> ir.Value:
    """`part` (`A.. x K`) times `w` (`K x N`) as a 2-D matmul over its `prod(A..)` rows, reshaped
    to `out_t` (`A.. x N`): IREE 3.13 fails to legalize the reshape its own lowering makes of a
    dot_general with two `?` free lhs axes."""
    lead = _shape(part)[:-1]
    k, n = _shape(w)
    elt = out_t.element_type  # the product's (an integer matmul may widen)
    dot = dot_numbers([1], [0])
    if len(lead) == 1:
        return b.value("stablehlo.dot_general", [out_t], [part, w], {"dot_dimension_numbers": dot})
    if not any(is_dynamic(a) for a in lead):
        rows = b.hlo_reshape(part, [math.prod(lead), k])
        return b.hlo_reshape(b.value("stablehlo.dot_general", [ir.RankedTensorType.get(
            [math.prod(lead), n], elt)], [rows, w], {"dot_dimension_numbers": dot}), list(out_t.shape))
    i64 = ir.IntegerType.get_signless(64)
    one = ir.RankedTensorType.get([1], i64)
    sizes = [b.value("stablehlo.reshape", [one], [b.hlo_convert(b.hlo_get_dimension_size(part, a), i64)])
             for a in range(len(lead))]
    count = sizes[0]
    for x in sizes[1:]:
        count = b.hlo_binary("multiply", count, x)
    dyn = ir.ShapedType.get_dynamic_size()
    rows = b.value("stablehlo.dynamic_reshape", [ir.RankedTensorType.get([dyn, k], elt)],
                   [part, b.hlo_concat([count, b.hlo_const([k], i64)])])
    y = b.value("stablehlo.dot_general", [ir.RankedTensorType.get([dyn, n], elt)], [rows, w],
                {"dot_dimension_numbers": dot})
    return b.value("stablehlo.dynamic_reshape", [out_t], [y, b.hlo_concat(sizes + [b.hlo_const([n], i64)])])


def slice_rows_before_matmul(s: ir.Operation, dot: ir.Operation, reshape: ir.Operation | None) -> None:
    """Rewrites `s(reshape(dot(x, w)))` into `dot(s'(reshape'(x)), w)` (module docstring)."""
    x, w = dot.operands
    k = _shape(x)[1]
    elt = ir.RankedTensorType(x.type).element_type
    # x with the reshape's leading axes: every size read of the reshaped product reads it instead
    if reshape is not None:
        b = OpBuilder(reshape)
        lead = _shape(reshape.results[0])[:-1]
        h_t = ir.RankedTensorType.get(lead + [k], elt)
        if reshape.name == "stablehlo.reshape":
            h = b.value("stablehlo.reshape", [h_t], [x])
        else:
            shape = reshape.operands[1]
            h = b.value("stablehlo.dynamic_reshape", [h_t],
                        [x, b.hlo_with_entry(shape, _shape(shape)[0] - 1, k)])
        last = len(lead)
        for u in list(reshape.results[0].uses):
            read = use_owner(u)
            if read.name != _SIZE_READ:
                continue
            if ir.IntegerAttr(read.attributes["dimension"]).value < last:
                read.operands[0] = h  # its leading axes are the product's
            else:  # the columns, N
                rb = OpBuilder(read)
                read.results[0].replace_all_uses_with(rb.hlo_const(
                    [_shape(reshape.results[0])[-1]], ir.RankedTensorType(read.results[0].type).element_type, []))
                read.erase()
    else:
        h = x
    for u in list(dot.results[0].uses):
        if use_owner(u).name == _SIZE_READ:  # the rows (axis 0, matched)
            u.owner.operands[0] = x
    b = OpBuilder(s)
    out_t = ir.RankedTensorType(s.results[0].type)
    part_t = ir.RankedTensorType.get(list(out_t.shape[:-1]) + [k], elt)
    attrs = {a: s.attributes[a] for a in s.attributes}
    if s.name == "stablehlo.slice":
        limit = list(ir.DenseI64ArrayAttr(s.attributes["limit_indices"]))
        attrs["limit_indices"] = ir.DenseI64ArrayAttr.get(limit[:-1] + [k])
        part = b.value(s.name, [part_t], [h], attrs)
    elif s.name == "stablehlo.dynamic_slice":
        sizes = list(ir.DenseI64ArrayAttr(s.attributes["slice_sizes"]))
        attrs["slice_sizes"] = ir.DenseI64ArrayAttr.get(sizes[:-1] + [k])
        part = b.value(s.name, [part_t], [h, *s.operands[1:]], attrs)
    else:
        start, limit, step = s.operands[1:4]
        part = b.value(s.name, [part_t],
                       [h, start, b.hlo_with_entry(limit, _shape(limit)[0] - 1, k), step], attrs)
    s.results[0].replace_all_uses_with(_rows_times(b, part, w, out_t))
    s.erase()
    if reshape is not None:
        reshape.erase()
    dot.erase()


class SliceMatmulRowsForIree(Pass):
    """A matmul read only through one slice of its rows -> the matmul of the sliced rows."""

    name = "symhlo-slice-matmul-rows-for-iree"
    summary = ("a row matmul read (through a reshape keeping its columns last) only by one slice "
               "of its rows -> the matmul of the lhs's slice (an LM head's logits[:, -1])")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            facts_of = facts_by_function()
            # Match everything before rewriting anything: the size facts read the unchanged IR.
            found = []
            apply_patterns(module.operation, {
                name: lambda op: found.append((op, match_sliced_rows(op, facts_of)))
                for name in _SLICES})
            for s, m in found:
                if m is not None:
                    slice_rows_before_matmul(s, *m)
