"""symhlo-fold-key-transpose-for-iree: `q @ (transpose(k) * s)` -> `(q * s) @ k` contracting k's own axis;
repeated (grouped-query) keys and values read unrepeated.

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
load 3-4): 1.51 -> 1.37 ms (static 1.00), 47 -> 45 dispatches.

Second rewrite (`fold_repeated_kv_into_dot`, option `repeated-kv`, on by default): grouped-query
attention repeats each key / value head over G query heads (`repeat_kv`: a broadcast of a unit
axis, collapsed into the matmul's batch axis); IREE materialized the repeat over the `?` cache
(the values' repeat a dispatch of 258 tiles per layer at one token, past 128). Reading the
operand unrepeated, with G rows of the other operand per row of it, removes it. Decode step
(4, 512), process CPU per call, medians of 7 alternated rounds: 7.11 -> 5.31 ms (static 6.17);
(1, 128): 1.56 -> 1.34 ms (static 1.05; medians of 11, load 2-4), 45 -> 44 dispatches. Rounding: `(q*s)*s . k` against
`(q*s) . (k*s)` differs by an ulp or so per product, like symhlo-defer-softmax-normalization-for-iree.
Runs on the copy for IREE only; the portable artifact keeps torch's order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, dot_dimension_numbers, dot_numbers, reassociation_groups
from .ir_util import defining_op, is_dynamic, transpose_perm
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
            if perm[d] < 0:
                continue  # no single axis of `k` has this size
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
    return b.hlo_broadcast_like(s, like, [], ir.RankedTensorType(like.type).element_type)


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
    perm = transpose_perm(tr)
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


def _collapse_chain(v: ir.Value) -> tuple[ir.Value, list[list[int]], list[ir.Operation]]:
    """`v` = collapse_shape(...collapse_shape(x)) -> (x, the composed groups, the collapses)."""
    ops: list[ir.Operation] = []
    rank = ir.RankedTensorType(v.type).rank
    groups = [[a] for a in range(rank)]
    while True:
        op = defining_op(v)
        if op is None or op.name != "tensor.collapse_shape":
            return v, groups, ops
        inner = reassociation_groups(op)
        groups = [[a for j in g for a in inner[j]] for g in groups]
        ops.append(op)
        v = op.operands[0]


def fold_repeated_kv_into_dot(dot: ir.Operation) -> bool:
    """dot(p, collapse(broadcast(x) repeating a unit axis inside the batch group)) ->
    the groups of p's batch rows matched with x's rows (grouped-query attention's repeat_kv):

        %b = stablehlo.dynamic_broadcast_in_dim %e, %s, dims = [0, 1, 2, 3, 4]
               : (tensor<?x2x1x?x64xf32>, ...) -> tensor<?x2x2x?x64xf32>      (axis 2 repeated)
        %v = tensor.collapse_shape %b [[0, 1, 2], [3], [4]] : ... into tensor<?x?x64xf32>
        %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1]
               : (tensor<?x1x?xf32>, tensor<?x?x64xf32>) -> tensor<?x1x64xf32>
      ==>
        %v1 = tensor.collapse_shape %e [[0, 1, 2], [3], [4]] : ... into tensor<?x?x64xf32>
        %p1 = %p expanded [[0, 1], [2], [3]] to (n/2) x 2 x 1 x ?, collapsed [[0], [1, 2], [3]]
        %o1 = stablehlo.dot_general %p1, %v1, ... -> tensor<?x2x64xf32>
        %o  = %o1 expanded [[0], [1, 2], [3]], collapsed [[0, 1], [2], [3]] : tensor<?x1x64xf32>

    Batch row n of p is (j, g) = (n / G, n % G) with j the row of the unrepeated x (the repeated
    axis is the innermost of the collapsed batch group), so each group of G rows of p reads one
    row of x: the broadcast is never materialized. Matched: rank-3 operands, batch axis 0 on
    both, the lhs's free axis 1, one rhs free axis, and a broadcast whose only expanded axis is
    the innermost of the rhs's batch group (static unit operand axis, every other axis equal:
    static and equal, or `?` in known_nonexpanding_dimensions)."""
    lhs, rhs = dot.operands
    lt, rt = ir.RankedTensorType(lhs.type), ir.RankedTensorType(rhs.type)
    if lt.rank != 3 or rt.rank != 3:
        return False
    dn = dot_dimension_numbers(dot)
    if dn["lhs_batching_dimensions"] != [0] or dn["rhs_batching_dimensions"] != [0] or \
            dn["lhs_contracting_dimensions"] != [2]:
        return False
    x, groups, collapses = _collapse_chain(rhs)
    users = [dot] + collapses[:-1]
    if not collapses or not all(_only_value_use(c.results[0], u) for c, u in zip(collapses, users)):
        return False
    bc = defining_op(x)
    if bc is None or bc.name != "stablehlo.dynamic_broadcast_in_dim" or \
            not _only_value_use(x, collapses[-1]):
        return False
    e = bc.operands[0]
    et, xt = ir.RankedTensorType(e.type), ir.RankedTensorType(x.type)
    if list(ir.DenseI64ArrayAttr(bc.attributes["broadcast_dimensions"])) != list(range(xt.rank)):
        return False
    nonexp = set(ir.DenseI64ArrayAttr(bc.attributes["known_nonexpanding_dimensions"])) \
        if "known_nonexpanding_dimensions" in bc.attributes else set()
    a = groups[0][-1]
    if et.shape[a] != 1 or is_dynamic(xt.shape[a]) or xt.shape[a] <= 1:
        return False
    for i in range(xt.rank):
        if i == a:
            continue
        if is_dynamic(xt.shape[i]) or is_dynamic(et.shape[i]):
            if i not in nonexp:
                return False
        elif xt.shape[i] != et.shape[i]:
            return False
    g = int(xt.shape[a])
    b = OpBuilder(dot)
    elt = lt.element_type
    dyn = ir.ShapedType.get_dynamic_size()
    # x's rows without the repeat
    eshape = []
    for grp in groups:
        sizes = [et.shape[i] for i in grp]
        eshape.append(dyn if any(is_dynamic(d) for d in sizes) else math.prod(sizes))
    v1 = b.collapse_shape(e, groups, ir.RankedTensorType.get(eshape, et.element_type))
    # p's batch rows in groups of g: (n/g) x (g*m) x k
    n = b.tensor_dim(lhs, 0)
    rows = b.index_op("arith.divui", n, b.const_index(g))
    m, k = lt.shape[1], lt.shape[2]
    sizes4 = [dyn, g, m, k]
    dyn_sizes = [rows] + ([b.tensor_dim(lhs, 1)] if is_dynamic(m) else []) + \
        ([b.tensor_dim(lhs, 2)] if is_dynamic(k) else [])
    p4 = b.expand_shape(lhs, [[0, 1], [2], [3]], ir.RankedTensorType.get(sizes4, elt), dyn_sizes)
    gm = dyn if is_dynamic(m) else g * m
    p1 = b.collapse_shape(p4, [[0], [1, 2], [3]], ir.RankedTensorType.get([dyn, gm, k], elt))
    out_t = ir.RankedTensorType(dot.results[0].type)
    f = out_t.shape[2]
    o1 = b.hlo_dot_general(p1, v1, ir.RankedTensorType.get([dyn, gm, f], out_t.element_type),
                           dot.attributes["dot_dimension_numbers"], like=dot)
    o_sizes = [rows] + ([b.tensor_dim(lhs, 1)] if is_dynamic(m) else []) + \
        ([b.tensor_dim(o1, 2)] if is_dynamic(f) else [])
    o4 = b.expand_shape(o1, [[0], [1, 2], [3]], ir.RankedTensorType.get([dyn, g, m, f], out_t.element_type),
                        o_sizes)
    out = b.collapse_shape(o4, [[0, 1], [2], [3]], out_t)
    dot.results[0].replace_all_uses_with(out)
    dot.erase()
    for c in collapses:  # size reads of a single-axis group read the collapse's operand
        cg = reassociation_groups(c)
        _move_size_reads(c.results[0], c.operands[0], [g[0] if len(g) == 1 else -1 for g in cg])
    _move_size_reads(x, e, [i if i != a else -1 for i in range(xt.rank)])  # unexpanded axes
    for op in [*collapses, bc]:  # kept while a size read still uses it
        if not list(op.results[0].uses):
            op.erase()
    return True


@dataclass(frozen=True)
class FoldKeyTransposeForIree(Pass):
    """q @ (transpose(k) * s) -> (q * s) @ k with the transpose folded into the dot."""

    name = "symhlo-fold-key-transpose-for-iree"
    summary = ("a dot_general's transposed (and scalar-scaled) rhs read in its own layout: the "
               "transpose folded into the dimension numbers, the scalar moved to the lhs; "
               "with repeated-kv, a rhs repeated over a batch axis read unrepeated")
    repeated_kv: bool = True

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {"stablehlo.dot_general": fold_key_transpose_into_dot})
            if self.repeated_kv:
                apply_patterns(module.operation, {"stablehlo.dot_general": fold_repeated_kv_into_dot})
