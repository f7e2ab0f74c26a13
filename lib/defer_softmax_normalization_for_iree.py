"""symhlo-defer-softmax-normalization-for-iree: `(exp * r) @ v` -> `(exp @ v) * r`.

Attention multiplies softmax's probabilities by the values: `softmax(s) @ v`, and softmax is
`e * r` with `e = exp(s - max)` and `r = 1 / sum(e)` constant along the row (the contracted
axis). The factor commutes with the contraction, so it can be applied to the product instead:

    (e * r[..., None]) @ v  ==  (e @ v) * r[..., None]

which scales a `q x d` result instead of the `q x k` probabilities, and, for IREE 3.13, removes one
full pass over the score-sized tensor between the exp-sum dispatch and the matmul's pack. Measured
on attention over (4, 4, 512, 512) scores with a `?` batch and sequence: 20.2 -> 14.1 ms (static
6.9 ms). Only a `?` contracted axis is rewritten: with static rows IREE fuses the multiply into
the pack already, and the rewrite made the static attention slower (6.7 -> 7.1 ms). Rounding
differs from the eager order by an ulp or so per element, like the reciprocal multiply it follows
(symhlo-normalize-softmax-for-iree).

Runs on the copy for IREE, after symhlo-prepare-for-iree (whose proven reshapes are the
`tensor.collapse_shape` the pattern looks through). Matched: a `stablehlo.dot_general` whose lhs
contracts only over its last axis, a `?` one, and is, through an optional collapse_shape keeping
the last axis by itself (a `?` axis rules out a static stablehlo.reshape), a single-use multiply of a
`stablehlo.exponential` by a broadcast that is constant along the last axis:

    %e = stablehlo.exponential %d : tensor<?x4x?x?xf32>
    %x = tensor.expand_shape %r [[0], [1], [2, 3]] ... : tensor<?x4x?xf32> into tensor<?x4x?x1xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %x, %s4, dims = [0, 1, 2, 3] : ... -> tensor<?x4x?x?xf32>
    %p = stablehlo.multiply %e, %b : tensor<?x4x?x?xf32>
    %l = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<?x4x?x?xf32> into tensor<?x?x?xf32>
    %o = stablehlo.dot_general %l, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1]
  ==>
    %l = tensor.collapse_shape %e [[0, 1], [2], [3]] : ...
    %o0 = stablehlo.dot_general %l, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1]
    %r1 = tensor.collapse_shape %x [[0], [1], [2, 3]] ; %r2 = tensor.collapse_shape %r1 [[0, 1], [2]]
    %rb = stablehlo.dynamic_broadcast_in_dim %r2, (dims of %o0), dims = [0, 1]
    %o = stablehlo.multiply %o0, %rb
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, dot_dimension_numbers, reassociation_attr, reassociation_groups
from .ir_util import defining_op, is_dynamic
from .registry import Pass

_BROADCASTS = ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim")


def _only_use(v: ir.Value, user: ir.Operation) -> bool:
    uses = list(v.uses)
    return len(uses) == 1 and uses[0].owner == user


def _i64s(attr: ir.Attribute) -> list[int]:
    return list(ir.DenseI64ArrayAttr(attr))


def _row_factor(b: ir.Value, rank: int) -> tuple[ir.Value, bool] | None:
    """(operand, has a trailing unit axis) when `b` broadcasts it along the last axis only.

    Every leading axis must be known not to expand (equal static sizes, or listed in the
    broadcast's `known_nonexpanding_dimensions`): the factor is reshaped like the lhs, which
    would mix a size-1 axis broadcast along the batch into the wrong rows.
    """
    op = defining_op(b)
    if op is None or op.name not in _BROADCASTS:
        return None
    x = op.operands[0]
    xt, bt = ir.RankedTensorType(x.type), ir.RankedTensorType(b.type)
    dims = _i64s(op.attributes["broadcast_dimensions"])
    if xt.rank == rank and dims == list(range(rank)) and xt.shape[-1] == 1:
        unit = True
    elif xt.rank == rank - 1 and dims == list(range(rank - 1)):
        unit = False
    else:
        return None
    hinted = (set(_i64s(op.attributes["known_nonexpanding_dimensions"]))
              if "known_nonexpanding_dimensions" in op.attributes else set())
    for a in range(rank - 1):
        same = not is_dynamic(xt.shape[a]) and xt.shape[a] == bt.shape[a]
        if not same and a not in hinted:
            return None
    return x, unit


def match_normalized_contraction(dot: ir.Operation):
    """(reshape op or None, exp value, row factor, has unit axis) for a dot_general whose lhs is a
    softmax-style `exp * row-constant` contracted over its last axis (see the module docstring)."""
    lhs = dot.operands[0]
    lt = ir.RankedTensorType(lhs.type)
    dn = dot_dimension_numbers(dot)
    if dn["lhs_contracting_dimensions"] != [lt.rank - 1] or not isinstance(lt.element_type, ir.FloatType):
        return None
    if not is_dynamic(lt.shape[-1]):  # static rows: IREE already fuses the multiply into the pack
        return None
    reshape = defining_op(lhs)
    prod = lhs
    if reshape is not None and reshape.name == "tensor.collapse_shape":
        src_t = ir.RankedTensorType(reshape.operands[0].type)
        if reassociation_groups(reshape)[-1] != [src_t.rank - 1] or not _only_use(lhs, dot):
            return None
        prod = reshape.operands[0]
    else:
        reshape = None
    mul = defining_op(prod)
    if mul is None or mul.name != "stablehlo.multiply" or not _only_use(prod, reshape or dot):
        return None
    rank = ir.RankedTensorType(prod.type).rank
    for e, b in (mul.operands, reversed(list(mul.operands))):
        src = defining_op(e)
        if src is not None and src.name == "stablehlo.exponential":
            factor = _row_factor(b, rank)
            if factor is not None:
                return reshape, e, factor[0], factor[1]
    return None


def _collapse(e: OpBuilder, v: ir.Value, groups: list[list[int]]) -> ir.Value:
    t = ir.RankedTensorType(v.type)
    shape = []
    for g in groups:
        sizes = [t.shape[a] for a in g]
        shape.append(ir.ShapedType.get_dynamic_size() if any(is_dynamic(s) for s in sizes)
                     else math.prod(sizes))
    return e.value("tensor.collapse_shape", [ir.RankedTensorType.get(shape, t.element_type)], [v],
                   {"reassociation": reassociation_attr(groups)})


def defer_softmax_normalization_past_dot(dot: ir.Operation) -> bool:
    """Rewrites one matched contraction (see the module docstring); False when it does not match."""
    m = match_normalized_contraction(dot)
    if m is None:
        return False
    reshape, exp, r, unit = m
    lhs_t = ir.RankedTensorType(dot.operands[0].type)
    out_t = ir.RankedTensorType(dot.results[0].type)
    e = OpBuilder(dot)
    # the exponential in the lhs's place
    lhs = exp
    if reshape is not None:
        clone = reshape.clone(ip=ir.InsertionPoint(dot))
        clone.operands[0] = exp
        lhs = clone.results[0]
    new_dot = e.value("stablehlo.dot_general", [out_t], [lhs, dot.operands[1]],
                      {n: dot.attributes[n] for n in dot.attributes})
    # the row factor with the lhs's leading axes
    rank = ir.RankedTensorType(exp.type).rank
    if unit:
        r = _collapse(e, r, [[a] for a in range(rank - 2)] + [[rank - 2, rank - 1]])
    if reshape is not None:
        r = _collapse(e, r, reassociation_groups(reshape)[:-1])
    # where the lhs's leading axes land in the result: batching dims first, then the free ones
    dn = dot_dimension_numbers(dot)
    batching = dn["lhs_batching_dimensions"]
    free = [a for a in range(lhs_t.rank - 1) if a not in batching]
    where = [batching.index(a) if a in batching else len(batching) + free.index(a)
             for a in range(lhs_t.rank - 1)]
    rb = e.hlo_broadcast_like(r, new_dot, where, out_t.element_type,
                              {"known_expanding_dimensions": [],
                               "known_nonexpanding_dimensions": list(range(len(where)))})
    out = e.value("stablehlo.multiply", [out_t], [new_dot, rb])
    old_mul = defining_op(reshape.operands[0] if reshape else dot.operands[0])
    dot.results[0].replace_all_uses_with(out)
    dot.erase()
    if reshape is not None:
        reshape.erase()
    old_mul.erase()
    return True


@dataclass(frozen=True)
class DeferSoftmaxNormalizationForIree(Pass):
    """(exp * r) @ v -> (exp @ v) * r for a factor r constant along the contracted axis."""

    name = "symhlo-defer-softmax-normalization-for-iree"
    summary = ("softmax's normalization moved past the contraction with the values: "
               "`(exp * r) @ v` -> `(exp @ v) * r`, one pass less over the scores")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation,
                           {"stablehlo.dot_general": defer_softmax_normalization_past_dot})
