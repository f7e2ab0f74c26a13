"""symhlo-fold-safe-softmax-for-iree: safe softmax's fully-masked-row test folded into the softmax.

torch's `_safe_softmax` (scaled_dot_product_attention's math path with a mask, hence every
transformers model on its default `sdpa` attention) zeroes the rows whose inputs are all `-inf`:

    y = where(all(x == -inf, dim), 0, softmax(x, dim))

The row test is a full pass of its own over the score-sized tensor, an `and` reduction of an i1
comparison, which IREE 3.13 vectorizes poorly on CPU: in the Llama prefill at (4, 512) that one
dispatch took 9.0 ms of the static module's 63.7 (14%), more than the softmax's max and exp
together (2.4). The same rows come out of the softmax itself when its max is taken as 0 where it
is `-inf` and its reciprocal sum as 0 where the sum is 0 (jax.nn.softmax's guard):

    m  = max(x, dim)                        m' = select(m == -inf, 0, m)
    e  = exp(x - m)                         e  = exp(x - m')
    s  = sum(e, dim)                ==>     s  = sum(e, dim)
    r  = 1 / s                              r' = select(s == 0, 0, r)
    p  = e * r                              p  = e * r'
    y  = select(all(x == -inf), 0, p)       y  = p

Bit for bit the same: where some x in the row is finite (or +inf, or NaN) m' = m, e, s and r are
unchanged, s >= 1 (or NaN) so r' = r, and the row test was false; where every x is `-inf`, m is
`-inf` (the max propagates NaN, so a NaN row never reads `-inf` there), m' = 0, e = exp(-inf) = 0,
s = 0, r' = 0 and p = 0, which the select used to write. Both new selects act on the reduced
rows, not the score-sized tensor, and fuse into the max's and the sum's dispatches.

Matched after symhlo-normalize-softmax-for-iree (the reciprocal multiply it writes) and
canonicalization: a `stablehlo.select` of a zero splat and the probabilities under the
broadcast row test, where the row test is an `and` reduction (init true) of `x == -inf` over the
same axes as the softmax's max (init `-inf`) and sum (init 0) of the same `x`; each broadcast of
a reduced row is a keepdim reshape (optional) and a broadcast putting the row back along the
reduced axes, and the max, exp, sum, reciprocal and probabilities have no other users (size
reads aside), so no other reader sees the rows that change.

    %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [3]
    %mb = stablehlo.broadcast_in_dim (stablehlo.reshape %m) ...
    %e = stablehlo.exponential (stablehlo.subtract %x, %mb)
    %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [3]
    %r = stablehlo.divide %ones, %s
    %p = stablehlo.multiply %e, (broadcast_in_dim (reshape %r))
    %t = stablehlo.reduce((stablehlo.compare EQ, %x, %ninfs, FLOAT) init: %true) applies stablehlo.and ...
    %y = stablehlo.select (broadcast_in_dim (reshape %t)), %zeros, %p
  ==>
    %m0 = stablehlo.select (stablehlo.compare EQ, %m, -inf), 0, %m     (reduced rows)
    %mb = stablehlo.broadcast_in_dim (stablehlo.reshape %m0) ...
    ...
    %r0 = stablehlo.select (stablehlo.compare EQ, %s, 0), 0, %r       (reduced rows)
    %p = stablehlo.multiply %e, (broadcast_in_dim (reshape %r0))      (%y's uses read %p)

Runs on the copy for IREE; the portable artifact keeps torch's form. Llama prefill (4, 512),
process CPU per call: see README Performance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder
from .ir_util import (defining_op, reduce_combiner, splat_constant, splat_value, use_owner,
                      walk_ops)
from .registry import Pass

_RESHAPES = ("stablehlo.reshape", "stablehlo.dynamic_reshape")
_BROADCASTS = ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim")
_SIZE_READS = ("stablehlo.get_dimension_size", "tensor.dim")


def _users(v: ir.Value) -> list[ir.Operation]:
    """The ops reading `v`, size reads aside (they read only the shape, which stays)."""
    return [use_owner(u) for u in v.uses if use_owner(u).name not in _SIZE_READS]


def _only_user(v: ir.Value) -> ir.Operation | None:
    users = _users(v)
    return users[0] if len(users) == 1 else None


def _reduce(op: ir.Operation | None, combiner: str) -> tuple[ir.Value, list[int]] | None:
    """(input, axes) of a one-input stablehlo.reduce whose body is a lone `combiner`."""
    if reduce_combiner(op) != f"stablehlo.{combiner}":
        return None
    return op.operands[0], list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))


def _row_broadcast(row: ir.Value, axes: list[int], rank: int) -> ir.Operation | None:
    """The broadcast putting a reduced `row` back along `axes` of a rank-`rank` tensor, through an
    optional keepdim reshape (size 1 at `axes`), when `row` and the reshape have no other users."""
    op = _only_user(row)
    if op is not None and op.name in _RESHAPES:
        t = ir.RankedTensorType(op.results[0].type)
        if t.rank != rank or any(t.shape[a] != 1 for a in axes):
            return None
        reshape, op = op, _only_user(op.results[0])
        kept = list(range(rank))
    else:
        reshape, kept = None, [a for a in range(rank) if a not in axes]
    if op is None or op.name not in _BROADCASTS or op.operands[0] != (
            row if reshape is None else reshape.results[0]):
        return None
    if list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])) != kept:
        return None
    return op


@dataclass
class SafeSoftmax:
    """One matched safe softmax: the ops the rewrite reads or changes."""

    select: ir.Operation        # y = select(row test, 0, p)
    max_reduce: ir.Operation    # m
    max_broadcast: ir.Operation  # the first op reading m (reshape or broadcast)
    sum_reduce: ir.Operation    # s
    reciprocal: ir.Operation    # r = 1 / s
    recip_user: ir.Operation    # the first op reading r (reshape or broadcast)
    probs: ir.Value             # p
    test: list[tuple[ir.Operation, ir.Value | None]]  # the row test's ops, users first, each
    #                             with a live value of its result's shape for its size reads


def match_safe_softmax(select: ir.Operation) -> SafeSoftmax | None:
    """The safe softmax `select` ends (see the module docstring), else None."""
    test_b, zeros, probs = select.operands
    if splat_constant(zeros) != 0.0:
        return None
    # The row test: broadcast(reshape?(and-reduce(x == -inf))).
    op = defining_op(test_b)
    while op is not None and op.name in _BROADCASTS + _RESHAPES:
        op = defining_op(op.operands[0])
    red = _reduce(op, "and")
    if red is None or splat_value(op.operands[1]) is not True:
        return None
    cmp, axes = defining_op(red[0]), red[1]
    if cmp is None or cmp.name != "stablehlo.compare" or "EQ" not in str(
            cmp.attributes["comparison_direction"]):
        return None
    a, b = cmp.operands
    x = a if splat_constant(b) == -math.inf else b if splat_constant(a) == -math.inf else None
    if x is None or not isinstance(ir.RankedTensorType(x.type).element_type,
                                   (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)):
        return None
    rank = ir.RankedTensorType(x.type).rank
    test_row = op.results[0]
    tb = _row_broadcast(test_row, axes, rank)
    if tb is None or tb.results[0] != test_b:
        return None
    # The softmax: p = exp(x - broadcast(max(x))) * broadcast(1 / sum(exp)), maybe under an
    # identity broadcast_in_dim (torch-mlir's expand of the probabilities to their own shape).
    prod, reader = defining_op(probs), select
    if prod is not None and prod.name == "stablehlo.broadcast_in_dim" \
            and prod.operands[0].type == probs.type and _only_user(probs) == select \
            and list(ir.DenseI64ArrayAttr(prod.attributes["broadcast_dimensions"])) == list(range(rank)):
        probs, reader = prod.operands[0], prod
        prod = defining_op(probs)
    if prod is None or prod.name != "stablehlo.multiply" or _only_user(probs) != reader:
        return None
    for e_val, rb_val in (prod.operands, prod.operands[::-1]):
        exp = defining_op(e_val)
        if exp is not None and exp.name == "stablehlo.exponential":
            break
    else:
        return None
    users = _users(e_val)
    sums = [u for u in users if _reduce(u, "add") == (e_val, axes)
            and splat_constant(u.operands[1]) == 0.0]
    if len(users) != 2 or len(sums) != 1 or prod not in users:
        return None
    sum_reduce = sums[0]
    recip = _only_user(sum_reduce.results[0])
    if recip is None or recip.name != "stablehlo.divide" or recip.operands[1] != sum_reduce.results[0] \
            or splat_constant(recip.operands[0]) != 1.0:
        return None
    rb = _row_broadcast(recip.results[0], axes, rank)
    if rb is None or rb.results[0] != rb_val:
        return None
    sub = defining_op(exp.operands[0])
    if sub is None or sub.name != "stablehlo.subtract" or sub.operands[0] != x \
            or _only_user(exp.operands[0]) != exp:
        return None
    mb = defining_op(sub.operands[1])
    while mb is not None and mb.name in _BROADCASTS + _RESHAPES:
        mb = defining_op(mb.operands[0])
    if _reduce(mb, "maximum") != (x, axes) or splat_constant(mb.operands[1]) != -math.inf:
        return None
    mbb = _row_broadcast(mb.results[0], axes, rank)
    if mbb is None or mbb.results[0] != sub.operands[1]:
        return None
    first_m, first_r = _only_user(mb.results[0]), _only_user(recip.results[0])
    keepdim = first_m.results[0] if first_m.name in _RESHAPES else None
    test = [(tb, x)] + [(t, keepdim) for t in [defining_op(tb.operands[0])] if t != op]
    test += [(op, mb.results[0]), (cmp, x)]
    if reader != select:   # the identity broadcast of p, dead once the select reads p
        test.insert(0, (reader, probs))
    return SafeSoftmax(select, mb, first_m, sum_reduce, recip, first_r, probs, test)


def _zero_where(b: OpBuilder, row: ir.Value, when: float, value: ir.Value) -> ir.Value:
    """select(row == when, 0, value) on reduced rows."""
    hit = b.hlo_compare("EQ", row, b.hlo_full_like(when, row), "FLOAT")
    return b.hlo_select(hit, b.hlo_full_like(0.0, value), value)


def fold_row_test_into_softmax(m: SafeSoftmax) -> None:
    """Rewrites one matched safe softmax (see the module docstring)."""
    loc = m.select.location
    b = OpBuilder(ip=ir.InsertionPoint(m.max_broadcast), loc=loc)
    m.max_broadcast.operands[0] = _zero_where(b, m.max_reduce.results[0], -math.inf,
                                              m.max_reduce.results[0])
    b = OpBuilder(ip=ir.InsertionPoint(m.recip_user), loc=loc)
    m.recip_user.operands[0] = _zero_where(b, m.sum_reduce.results[0], 0.0,
                                          m.reciprocal.results[0])
    m.select.results[0].replace_all_uses_with(m.probs)
    m.select.erase()
    for op, like in m.test:   # the row test, now read by size reads at most
        result = op.results[0]
        for use in list(result.uses):
            reader = use_owner(use)
            if reader.name in _SIZE_READS and like is not None:
                reader.operands[0] = like
        if not list(result.uses):
            op.erase()


@dataclass(frozen=True)
class FoldSafeSoftmaxForIree(Pass):
    """safe softmax's all(x == -inf) row test -> guards on the softmax's own reduced rows."""

    name = "symhlo-fold-safe-softmax-for-iree"
    summary = ("torch's safe softmax `select(all(x == -inf), 0, softmax(x))` -> the softmax with "
               "its row max taken as 0 where -inf and its reciprocal sum as 0 where the sum is 0 "
               "(bit-identical; drops a score-sized i1 reduction IREE runs slowly)")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            matches = [match_safe_softmax(op) for op in walk_ops(module.operation)
                       if op.name == "stablehlo.select"]
            for m in matches:
                if m is not None:
                    fold_row_test_into_softmax(m)
