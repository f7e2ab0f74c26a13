"""symhlo-normalize-softmax-for-iree: softmax's `exp / sum(exp)` -> `exp * (1 / sum(exp))`.

IREE 3.13 raises `max -> sub -> exp -> sum -> divide` to one `linalg.softmax` dispatch. Its CPU
code for that dispatch is quadratic in the row length whenever the row tile of 8 is partial, which
is always the case for a `?` row count (and for a static one that is not a multiple of 8): the
tile-and-fuse step at the reduction level recomputes the row max inside the loop over the sum's
tiles (measured on softmax over (4, 4, 512, 512): 203 ms dynamic against 20 ms static at 512, and
201 ms static at 500; eager 8-13 ms). The same softmax normalized with a multiply by the
reciprocal of the row sum is not raised: IREE forms a max-reduction dispatch and an
exp-sum-multiply dispatch, 18 ms dynamic.

The reciprocal is taken on the reduced rows (n divisions instead of n * m), and the product
differs from the quotient by at most an ulp (torch's vectorized CPU softmax multiplies by the
reciprocal too). Only the softmax normalization is rewritten: the divisor must be a broadcast
(through an optional keepdim reshape) of the add-reduction of the dividend, an exponential.

    %e = stablehlo.exponential %d : tensor<?x?xf32>
    %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : ... -> tensor<?xf32>
    %k = stablehlo.dynamic_reshape %s, %shape1 : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x1xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %k, %shape2, dims = [0, 1] : ... -> tensor<?x?xf32>
    %y = stablehlo.divide %e, %b : tensor<?x?xf32>
  ==>
    %ones = stablehlo.dynamic_broadcast_in_dim %one, [dim(%s, 0)], dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %r = stablehlo.divide %ones, %s : tensor<?xf32>
    %k = stablehlo.dynamic_reshape %r, %shape1 ...
    %b = stablehlo.dynamic_broadcast_in_dim %k, %shape2, dims = [0, 1] ...
    %y = stablehlo.multiply %e, %b : tensor<?x?xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder
from .ir_util import defining_op, is_dynamic, reduce_combiner, walk_ops
from .registry import Pass

_RESHAPES = ("stablehlo.reshape", "stablehlo.dynamic_reshape")
_BROADCASTS = ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim")


def _single_use(v: ir.Value) -> bool:
    """One use besides size queries (get_dimension_size reads only the shape, which stays)."""
    return sum(1 for u in v.uses if u.owner.name != "stablehlo.get_dimension_size") == 1


def _is_add_reduce_of(op: ir.Operation | None, x: ir.Value) -> bool:
    """`op` is a one-input stablehlo.reduce of `x` whose body is a lone add."""
    return reduce_combiner(op) == "stablehlo.add" and op.operands[0] == x


def match_softmax_normalization(op: ir.Operation) -> list[ir.Operation] | None:
    """[reduce, reshape?, broadcast] when `op` (a divide) is softmax's normalization, else None."""
    e, b = op.operands
    if defining_op(e) is None or defining_op(e).name != "stablehlo.exponential":
        return None
    chain = []
    v = b
    cur = defining_op(v)
    if cur is None or cur.name not in _BROADCASTS or not _single_use(v):
        return None
    chain.append(cur)
    v = cur.operands[0]
    cur = defining_op(v)
    if cur is not None and cur.name in _RESHAPES:
        if not _single_use(v):
            return None
        chain.append(cur)
        v = cur.operands[0]
        cur = defining_op(v)
    if not _is_add_reduce_of(cur, e) or not _single_use(v):
        return None
    chain.append(cur)
    return chain[::-1]


def _ones_like(v: ir.Value, b: OpBuilder) -> ir.Value:
    t = ir.RankedTensorType(v.type)
    one = b.hlo_scalar(1.0, t.element_type)
    if not any(is_dynamic(s) for s in t.shape):
        return b.hlo_broadcast_in_dim(one, t, [])
    shape = b.hlo_concat([b.hlo_reshape(b.hlo_get_dimension_size(v, axis), [1]) for axis in range(t.rank)])
    return b.hlo_broadcast_in_dim(one, t, [], shape)


def convert_softmax_divide_to_reciprocal_multiply(op: ir.Operation, chain: list[ir.Operation]) -> None:
    """Rewrites one matched softmax normalization (see the module docstring)."""
    reduce = chain[0]
    s = reduce.results[0]
    after = chain[1]  # the first user of the sum: reshape or broadcast
    b = OpBuilder(ip=ir.InsertionPoint(after), loc=op.location)
    after.operands[0] = b.hlo_binary("divide", _ones_like(s, b), s)
    y = OpBuilder(op).hlo_binary("multiply", op.operands[0], op.operands[1])
    op.results[0].replace_all_uses_with(y)
    op.erase()


@dataclass(frozen=True)
class NormalizeSoftmaxForIree(Pass):
    """softmax's exp / sum(exp) -> exp * (1 / sum(exp)), which IREE 3.13 compiles well."""

    name = "symhlo-normalize-softmax-for-iree"
    summary = ("softmax's `exp / broadcast(sum(exp))` -> `exp * broadcast(1 / sum(exp))` (IREE's "
               "raised linalg.softmax is quadratic in the row length on partial CPU tiles)")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            ops = walk_ops(module.operation)
            matches = [(op, match_softmax_normalization(op)) for op in ops if op.name == "stablehlo.divide"]
            for op, chain in matches:
                if chain is not None:
                    convert_softmax_divide_to_reciprocal_multiply(op, chain)
