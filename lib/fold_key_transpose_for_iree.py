"""symhlo-fold-key-transpose-for-iree: `q @ (transpose(k) * s)` -> `(q * s) @ k` contracting k's own axis.

Attention's scores are `q @ k^T`; torch's scaled_dot_product_attention decomposes it as a
transpose of the keys, scaled (transformers scales q and k by sqrt(1/sqrt(d)) each), then a
batched matmul. Over a `?` key axis IREE 3.13 runs the scaled transpose as a dispatch of its own
that writes the whole transposed key tensor (a Llama decode step: 2 of its 32 ms-scale
dispatches per layer, 48 tiles each at one token), and then packs it for the matmul. The
transpose folds into the dot's dimension numbers (the pack reads k in its own layout) and the
scalar factor moves to the other operand, which in attention is never larger (q: queries x d;
k: keys x d):

    %t = stablehlo.transpose %k, dims = [0, 1, 3, 2] : (tensor<?x4x?x64xf32>) -> tensor<?x4x64x?xf32>
    %m = stablehlo.multiply %t, %sb : tensor<?x4x64x?xf32>      (%sb: a broadcast of a scalar %s)
    %r = tensor.collapse_shape %m [[0, 1], [2], [3]] : tensor<?x4x64x?xf32> into tensor<?x64x?xf32>
    %d = stablehlo.dot_general %q, %r, batching_dims = [0] x [0], contracting_dims = [2] x [1]
  ==>
    %q2 = stablehlo.multiply %q, (broadcast of %s to %q's shape)
    %r = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<?x4x?x64xf32> into tensor<?x?x64xf32>
    %d = stablehlo.dot_general %q2, %r, batching_dims = [0] x [0], contracting_dims = [2] x [2]

Matched: a dot_general whose rhs is, through an optional collapse_shape whose multi-axis groups
the transpose leaves in place, a single-use multiply of a single-use transpose by a broadcast of
a rank-0 value; the rhs's free axes must keep their order (the result's axes follow it). The
transpose alone (no multiply) is folded the same way. Only a rhs with a `?` axis is rewritten
(the static module's transpose already fuses into its pack), and only when the lhs's free axes
(the queries) are static, as in a decode step: on GPT d=256 and the Llama prefill at (4, 512),
whose queries are `?`, it measured no better (process CPU per call 181 -> 183 and 248 -> 252 ms,
medians of 5 alternated rounds), so their IREE input stays as it was.

Measured (Llama decode step at (1, 128), process CPU per call, medians of 7 alternated rounds,
load 3-4): 1.51 -> 1.37 ms (static 1.00), 47 -> 45 dispatches. Rounding: `(q*s)*s . k` against
`(q*s) . (k*s)` differs by an ulp or so per product, like symhlo-defer-softmax-normalization-for-iree.
Runs on the copy for IREE only; the portable artifact keeps torch's order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, dot_dimension_numbers, dot_numbers, reassociation_groups
from .ir_util import defining_op, is_dynamic
from .registry import Pass

_BROADCASTS = ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim")


def _only_use(v: ir.Value, user: ir.Operation) -> bool:
    uses = list(v.uses)
    return len(uses) == 1 and uses[0].owner == user


def _only_value_use(v: ir.Value, user: ir.Operation) -> bool:
    """`user` is the only use of `v`'s elements: every other use reads a size of it
    (`stablehlo.get_dimension_size`, which `_move_size_reads` points at the transpose's operand)."""
    uses = [u.owner for u in v.uses]
    return sum(1 for u in uses if u == user) == 1 and \
        all(u == user or u.name == "stablehlo.get_dimension_size" for u in uses)


def _move_size_reads(v: ir.Value, k: ir.Value, perm: list[int]) -> None:
    """Each `get_dimension_size %v, dim = d` of the transpose's result (or of the multiply of it)
    reads axis perm[d] of the transpose's operand `k` instead."""
    for u in [u.owner for u in v.uses]:
        if u.name == "stablehlo.get_dimension_size":
            d = ir.IntegerAttr(u.attributes["dimension"]).value
            u.operands[0] = k
            u.attributes["dimension"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), perm[d])


def _scalar_of(v: ir.Value) -> ir.Value | None:
    """The rank-0 value `v` broadcasts, when `v` is a broadcast of one."""
    op = defining_op(v)
    if op is None or op.name not in _BROADCASTS:
        return None
    x = op.operands[0]
    return x if ir.RankedTensorType(x.type).rank == 0 else None


def _broadcast_scalar(b: OpBuilder, s: ir.Value, like: ir.Value) -> ir.Value:
    """`s` (rank 0) broadcast to `like`'s type (its sizes read with tensor.dim when `?`)."""
    t = ir.RankedTensorType(like.type)
    attrs = {"broadcast_dimensions": ir.DenseI64ArrayAttr.get([])}
    if t.has_static_shape:
        return b.value("stablehlo.broadcast_in_dim", [t], [s], attrs)
    i64 = ir.IntegerType.get_signless(64)
    sizes = [b.value("arith.index_cast", [i64], [b.tensor_dim(like, a)]) for a in range(t.rank)]
    shape = b.value("tensor.from_elements", [ir.RankedTensorType.get([t.rank], i64)], sizes)
    return b.value("stablehlo.dynamic_broadcast_in_dim", [t], [s, shape], attrs)


def fold_key_transpose_into_dot(dot: ir.Operation) -> bool:
    """Rewrites one matched contraction (see the module docstring); False when it does not match."""
    rhs = dot.operands[1]
    collapse = defining_op(rhs)
    if collapse is not None and collapse.name == "tensor.collapse_shape" and _only_use(rhs, dot):
        inner = collapse.operands[0]
        groups = reassociation_groups(collapse)
    else:
        collapse, inner = None, rhs
        groups = [[a] for a in range(ir.RankedTensorType(rhs.type).rank)]
    mul = defining_op(inner)
    scalar = None
    if mul is not None and mul.name == "stablehlo.multiply" and _only_value_use(inner, collapse or dot):
        for i in (0, 1):
            s = _scalar_of(mul.operands[1 - i])
            t_op = defining_op(mul.operands[i])
            if s is not None and t_op is not None and t_op.name == "stablehlo.transpose" and \
                    _only_value_use(mul.operands[i], mul):
                scalar, tr = s, t_op
                break
        else:
            return False
    elif mul is not None and mul.name == "stablehlo.transpose" and _only_value_use(inner, collapse or dot):
        tr, mul = mul, None
    else:
        return False
    it = ir.RankedTensorType(inner.type)
    if not isinstance(it.element_type, ir.FloatType) or it.has_static_shape:
        return False  # static: IREE fuses the transpose into the pack itself
    perm = list(ir.DenseI64ArrayAttr(tr.attributes["permutation"]))
    # multi-axis groups stay in place; the singleton groups' axes may be permuted among themselves
    singles = {g[0] for g in groups if len(g) == 1}
    for g in groups:
        if len(g) > 1 and any(perm[a] != a for a in g):
            return False
    if any(perm[a] not in singles for a in singles):
        return False
    # rhs axis j (group j of the transpose's result) is group j' of the collapse of k itself
    src_group = {}
    for j, g in enumerate(groups):
        src_group[j] = next(i for i, h in enumerate(groups) if h[0] == perm[g[0]])
    dn = dot_dimension_numbers(dot)
    lt = ir.RankedTensorType(dot.operands[0].type)
    lb, lc = dn["lhs_batching_dimensions"], dn["lhs_contracting_dimensions"]
    if any(is_dynamic(lt.shape[a]) for a in range(lt.rank) if a not in lb and a not in lc):
        return False  # `?` queries (a prefill): measured no better, left as it was
    rb, rc = dn["rhs_batching_dimensions"], dn["rhs_contracting_dimensions"]
    rank = len(groups)
    free = [a for a in range(rank) if a not in rb and a not in rc]
    new_free = [src_group[a] for a in free]
    if new_free != sorted(new_free):
        return False
    k = tr.operands[0]
    b = OpBuilder(dot)
    new_rhs = k
    if collapse is not None:
        kt = ir.RankedTensorType(k.type)
        shape = []
        for g in groups:
            sizes = [kt.shape[a] for a in g]
            shape.append(ir.ShapedType.get_dynamic_size() if any(is_dynamic(d) for d in sizes)
                         else math.prod(sizes))
        new_rhs = b.collapse_shape(k, groups, ir.RankedTensorType.get(shape, kt.element_type))
    lhs = dot.operands[0]
    if scalar is not None:
        lhs = b.value("stablehlo.multiply", [lhs.type], [lhs, _broadcast_scalar(b, scalar, lhs)])
    numbers = dot_numbers(dn["lhs_contracting_dimensions"], [src_group[a] for a in rc],
                          dn["lhs_batching_dimensions"], [src_group[a] for a in rb])
    out = b.hlo_dot_general(lhs, new_rhs, dot.results[0].type, numbers, like=dot)
    dot.results[0].replace_all_uses_with(out)
    dot.erase()
    if collapse is not None:
        collapse.erase()
    if mul is not None:
        _move_size_reads(mul.results[0], k, perm)
        mul.erase()
    _move_size_reads(tr.results[0], k, perm)
    tr.erase()
    return True


@dataclass(frozen=True)
class FoldKeyTransposeForIree(Pass):
    """q @ (transpose(k) * s) -> (q * s) @ k with the transpose folded into the dot."""

    name = "symhlo-fold-key-transpose-for-iree"
    summary = ("a dot_general's transposed (and scalar-scaled) rhs read in its own layout: the "
               "transpose folded into the dimension numbers, the scalar moved to the lhs")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {"stablehlo.dot_general": fold_key_transpose_into_dot})
