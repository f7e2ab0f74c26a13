"""symhlo-block-attention-for-iree: attention over `?` queries and keys, computed in blocks of 16.

IREE 3.13's data tiling packs a matmul operand into 16-row tiles (AVX-512; 8 on AVX2 and NEON).
Over `?` rows the pack needs padding, and a pack with a padding value stays a dispatch of its own
that re-reads its operand: attention's probabilities (`q x k` per head, the largest tensor of a
transformer at long sequences) were written by the softmax dispatch and read again by that pack,
and the scores' unpack, the masking and the row reductions ran over `?` tiles. The pack only
moves into its producer when every packed axis is static, and IREE's propagation of a pack through
a `collapse_shape` needs the collapsed axes' innermost size static too (the pack of the `? x ?`
probabilities tiles both the query rows and, with a tile of 1, the contracted keys).

So between the scores' matmul and the values' matmul this pass computes the query axis q and the
key axis k as `ceil(q / 16) x 16` and `ceil(k / 16) x 16` (option `block`): the scores' operands
are zero-padded to whole blocks, the scores are expanded into blocks, every op in between (scale,
mask, softmax's max, exp, sum and normalization) runs on the blocked shape, each reduction over
the keys reads its own init value at the padded keys (a max / min / and / or repeats its init
harmlessly, an add or multiply only reduces so from its identity), the probabilities are zero at
the padded keys, and the values' matmul reads them collapsed back, over zero-padded values; its
real query rows are sliced out:

    %s = stablehlo.dot_general %q, %kt, batching_dims = [0] x [0], contracting_dims = [2] x [1]
           : (tensor<?x?x64xf32>, tensor<?x64x?xf32>) -> tensor<?x?x?xf32>          (BH x q x k)
    ... scale, mask, softmax over the last axis ...   : tensor<?x?x?xf32>
    %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1]
           : (tensor<?x?x?xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  ==>
    %qp = tensor.pad %q low[0, 0, 0] high[0, %QB * 16 - %q, 0]   (likewise %kt over k, %v over k)
    %s0 = stablehlo.dot_general %qp, %ktp, ... -> tensor<?x?x?xf32>
    %s = tensor.expand_shape %s0 [[0], [1, 2], [3, 4]] : ... into tensor<?x?x16x?x16xf32>
    ... the same ops on tensor<?x?x16x?x16xf32>; a reduction over the keys reads
        select(kb * 16 + j < k, x, init) ...
    %p0 = stablehlo.select %valid, %p, %zero : tensor<?x?x16x?x16xi1>, tensor<?x?x16x?x16xf32>
    %pc = tensor.collapse_shape %p0 [[0], [1, 2], [3, 4]] : ... into tensor<?x?x?xf32>
    %o0 = stablehlo.dot_general %pc, %vp, ... -> tensor<?x?x64xf32>
    %o = tensor.extract_slice %o0[0, 0, 0] [%BH, %q, 64] [1, 1, 1]

The probabilities' pack then fuses into the dispatch of softmax's sum and normalization, as in a
static module. An operand of the region computed from iotas alone (a causal mask) is recomputed
on the blocked shape; any other operand with query or key axes is padded too. The pads of q, k
and v cost three small dispatches (and fills) per attention, which short sequences do not
repay (GPT d=256 at (1, 32): 1.79 against 1.64 ms CPU per call; the transformer block at
(1, 32) 0.12 against 0.13). Option `min-length` > 1 puts the blocked ops under `scf.if (q >= min-length and
k >= min-length)` with the original ones in its else branch; it is off (1) by default: IREE 3.13
splits a call at host control flow into separately allocated executions, which made Llama
prefill at (4, 512) 1.23 -> 1.78x the static module (GPT d=256 1.28 -> 1.19, the transformer
block 1.63 -> 1.07, the block at (1, 32) still 1.51 against 1.21 unblocked).

Every op between the two matmuls acts on each query row by itself (elementwise, broadcasts,
reductions over other axes), so a padded row changes no real one; the padded key
columns are masked out of every key reduction and contribute zero to the values' product. The
region is rewritten only when all of it is understood: a value used by anything else (returned,
another matmul's rhs, a reduction over the query axis, a transpose), a sum or product not from its
identity, a size SizeFacts cannot express, a region inside a loop or branch, or two values
matmuls of which the first's result is used before the second leaves it unchanged. Runs on the copy
for IREE before symhlo-defer-softmax-normalization-for-iree (a blocked region keeps softmax's
normalization before the values' matmul, where the pack fuses); the portable artifact is
unchanged.

Where a padded operand is the collapse of a transpose (the heads split off and transposed,
`q.view(b, s, h, d).transpose(1, 2)`), it is padded before the transpose instead, its padded
axis split into (blocks, 16), then transposed and collapsed (option `pad-in-blocks`, on): the
matmul's operand is then a collapse of (blocks, 16) with the 16 static, and IREE folds the
transpose and the padding's copy into the pack as it does for a static module. GPT d=256, one
layer, at (4, 512), process CPU per call, medians of 3 alternated rounds: 52.6 -> 50.6 ms (static
44.2), 28 -> 26 dispatches (the q and k transposes, padding copies and packs 3.3 -> 1.6 ms); the
transformer block at (4, 512) 13.6 -> 13.5 (static 12.5), 27 -> 25 dispatches. Padded below the
transpose without the split into blocks, nothing changed (54.1 vs 54.0 ms, the transposes stayed
dispatches of their own). The same on the way out (option `slice-after-transposes`, on): the
values' product read by transpose(expand_shape) (heads put back beside the sequence) is
expanded with its padded query axis as (blocks, 16), transposed and collapsed before its real
rows are sliced, and the transpose folds into the matmul's unpack: GPT d=256 (4, 512) 56.6 ->
53.8 ms, 26 -> 25 dispatches; the block (4, 512) 14.4 -> 14.2, 25 -> 24.

A max (or min) over the keys reads its input masked, and so does every later reader of that
input (option `mask-at-source`, on): the padded keys of any value in the region are read by
nothing but key reductions, which mask them themselves, and the final zeroing of the
probabilities, so which value they hold there is free. The scores are then read only masked, the
select joins the dispatch that computes them (the scores' unpack, with the causal mask), and
softmax's max-and-exp dispatch reads them unmasked: IREE 3.13 collapsed the (blocks, 16) keys
into one `?` axis there and rebuilt each key's position with a division and a remainder per
element, which kept that dispatch from being peeled into whole vectors (symhlo's CPU flags ask
for peeling: symhlo.backend.targets). Llama prefill (4, 512), the max-and-exp dispatch: 8.0 ->
2.9 ms CPU per call (the static module's: 2.8), the unpack's 3.6 -> 4.5.

16 is the row tile of IREE's f32 matmuls on AVX-512 and a multiple of the 8-row tiles on AVX2 and
NEON (both use a contraction tile of 1), so the blocks need no second padding there either (reasoned
from IREE's tile choices, measured on AVX-512 only). Measured (attention alone over (4, 4, 500, 64),
`?` batch and sequence, process CPU per call, medians): dynamic 29.1 ms -> 24.0 ms, static 23.4 ms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from torch_mlir import ir
from torch_mlir.dialects import scf

from .builder import (OpBuilder, dot_dimension_numbers, dot_result_axis,
                      reassociation_groups)
from .ir_util import (constant_index, defining_op, enclosing_func, i64_array, is_dynamic,
                      reduce_combiner, splat_value, transpose_perm, use_owner, walk_ops)
from .prepare_for_iree import materialize_size
from .registry import Pass
from .size_facts import ELEMENTWISE, SizeFacts

_BROADCASTS = ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim")
_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")
_DYN = ir.ShapedType.get_dynamic_size()
_SIZE_READS = ("tensor.dim", "stablehlo.get_dimension_size")
_OLD = "symhlo.block_attention_old"   # a transient mark (see _Rewriter.run)


def _size_read_axis(op: ir.Operation, facts: SizeFacts):
    """The axis a tensor.dim / stablehlo.get_dimension_size reads (None when not constant)."""
    if op.name == "tensor.dim":
        return facts.scalar(op.operands[1])
    return ir.IntegerAttr(op.attributes["dimension"]).value


class _Abort(Exception):
    """The region is not rewritten (something in it is not understood)."""


def _attrs(op: ir.Operation) -> dict:
    """An op's attributes, to copy onto its blocked twin (without the rewrite's mark)."""
    return {n: op.attributes[n] for n in op.attributes if n != _OLD}


def _shape(v: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(v.type).shape)


def _elt(v: ir.Value) -> ir.Type:
    return ir.RankedTensorType(v.type).element_type


def _new_pos(i: int, blocked: tuple) -> int:
    """Where old axis `i` lands once each axis in `blocked` became two."""
    return i + sum(1 for b in blocked if b is not None and b < i)


def _blocked_shape(shape: list[int], axes: tuple, block: int) -> list[int]:
    out = []
    for i, s in enumerate(shape):
        out += [_DYN, block] if i in axes else [s]
    return out


def _init_may_repeat(combiner: str, init: ir.Value) -> bool:
    """Whether combining a reduction's init once more per padded key leaves its result alone:
    always for the idempotent max / min / and / or (the init is combined at least once already),
    for add and multiply only when the init is their identity (0, 1)."""
    if combiner in ("stablehlo.maximum", "stablehlo.minimum", "stablehlo.and", "stablehlo.or"):
        return True
    x = splat_value(init)
    if x is None or isinstance(x, bool):
        return False
    return x == (0 if combiner == "stablehlo.add" else 1 if combiner == "stablehlo.multiply" else None)


@dataclass
class _Region:
    """The ops between one scores matmul and its values matmuls, with each value's (q, k) axes."""

    d1: ir.Operation
    axes: dict = field(default_factory=dict)        # region value -> (q axis, k axis or None)
    ops: list = field(default_factory=list)         # region ops in block order (d1 first)
    finals: list = field(default_factory=list)      # values matmuls (lhs in the region)
    dims: list = field(default_factory=list)        # tensor.dim ops reading a region value
    q: object = None                                # size expressions of q and k
    k: object = None


def _plan_region(d1: ir.Operation, facts: SizeFacts) -> _Region | None:
    """The region seeded by the scores matmul `d1`, or None when it is not rewritable."""
    out_t = _shape(d1.results[0])
    nb = len(dot_dimension_numbers(d1)["lhs_batching_dimensions"])
    # one free axis on each side: the queries' (result axis nb) and the keys' (nb + 1)
    if len(out_t) != nb + 2 or [dot_result_axis(d1, a)[0] for a in (nb, nb + 1)] != [0, 1] \
            or not isinstance(_elt(d1.results[0]), ir.FloatType):
        return None
    if d1.parent.name != "func.func":   # in a loop or branch body: left alone
        return None
    qa, ka = nb, nb + 1
    if not (is_dynamic(out_t[qa]) and is_dynamic(out_t[ka])):
        return None
    region = _Region(d1)
    region.axes[d1.results[0]] = (qa, ka)
    region.ops.append(d1)
    region.q, region.k = facts.dim(d1.results[0], qa), facts.dim(d1.results[0], ka)
    work = [d1.results[0]]
    seen_ops = {d1}
    try:
        while work:
            v = work.pop()
            for use in list(v.uses):
                user = use_owner(use)
                if user in seen_ops:
                    continue
                seen_ops.add(user)
                if user.name in _SIZE_READS:
                    axis = _size_read_axis(user, facts)
                    if not isinstance(axis, int) or _opaque(facts.dim(v, axis)):
                        raise _Abort
                    region.dims.append(user)
                    continue
                res = _classify(user, v, use.operand_number, region, facts)
                if res is None:
                    continue  # a values matmul: the region ends there
                for r, ax in res:
                    for a, n in enumerate(_shape(r)):
                        if is_dynamic(n) and a not in ax and _opaque(facts.dim(r, a)):
                            raise _Abort
                    region.axes[r] = ax
                    work.append(r)
                region.ops.append(user)
        # The walk classified each op from the first region operand it reached: every other
        # region operand must agree (an elementwise op's operands share their axes).
        for op in region.ops[1:]:
            if op.name in ELEMENTWISE:
                want = region.axes[op.results[0]]
                if any(o in region.axes and region.axes[o] != want for o in op.operands):
                    raise _Abort
        for d2 in region.finals:
            if d2.operands[1] in region.axes:
                raise _Abort
    except _Abort:
        return None
    if not region.finals:
        return None
    order = {op: i for i, op in enumerate(walk_ops(d1.parent))}
    region.ops.sort(key=lambda o: order[o])
    region.finals.sort(key=lambda o: order[o])
    # The values matmuls' results are first used after the last of them (where the rewrite
    # puts the scf.if that selects between the blocked and the original ops).
    last = order[region.finals[-1]]
    for f in region.finals[:-1]:
        for use in f.results[0].uses:
            user = use_owner(use)
            while user.parent is not None and user.parent != d1.parent:
                user = user.parent
            if order.get(user, -1) < last:
                return None
    return region


def _classify(op: ir.Operation, v: ir.Value, operand: int, region: _Region, facts: SizeFacts):
    """(result, (q axis, k axis)) pairs of a region op using region value `v`; None for a values
    matmul (recorded in region.finals); raises _Abort for anything not understood."""
    qa, ka = region.axes[v]
    name = op.name
    if name in ELEMENTWISE:
        res = op.results[0]
        rank = len(_shape(res))
        for o in op.operands:
            if o in region.axes and region.axes[o] != (qa, ka):
                raise _Abort
            if o not in region.axes and len(_shape(o)) == rank:
                _plan_outside(o, qa, ka, facts, region)
        return [(res, (qa, ka))]
    if name == "stablehlo.reduce":
        if len(op.operands) != 2 or operand != 0:
            raise _Abort
        red = i64_array(op, "dimensions")
        comb = reduce_combiner(op)
        if qa in red or comb is None:
            raise _Abort
        if ka is not None and ka in red and not _init_may_repeat(comb, op.operands[1]):
            raise _Abort
        nq = qa - sum(1 for d in red if d < qa)
        nk = None if ka is None or ka in red else ka - sum(1 for d in red if d < ka)
        return [(op.results[0], (nq, nk))]
    if name in _RESHAPES:
        groups = reassociation_groups(op)
        expand = name == "tensor.expand_shape"
        many = _shape(op.results[0]) if expand else _shape(op.operands[0])
        new = []
        for a in (qa, ka):
            if a is None:
                new.append(None)
                continue
            # `a` is an axis of the source; expand: its group on the result side; collapse: the
            # group (on the source side) holding it.
            if expand:
                g = groups[a]
            else:
                g = next(g for g in groups if a in g)
            dyn = [x for x in g if many[x] != 1]
            if len(dyn) != 1 or not is_dynamic(many[dyn[0]]):
                raise _Abort
            new.append(dyn[0] if expand else groups.index(g))
        return [(op.results[0], tuple(new))]
    if name in _BROADCASTS:
        if operand != 0:
            raise _Abort
        dims = i64_array(op, "broadcast_dimensions")
        src, res = _shape(op.operands[0]), _shape(op.results[0])
        nq = dims[qa]
        if ka is not None:
            nk = dims[ka]
        else:
            # the key axis is the one `?` axis the broadcast creates (or expands from a 1)
            made = [i for i in range(len(res)) if is_dynamic(res[i])
                    and (i not in dims or src[dims.index(i)] == 1)]
            if len(made) > 1:
                raise _Abort
            nk = made[0] if made else None
            if nk is not None and not facts.equal(facts.dim(op.results[0], nk), region.k):
                raise _Abort
        if src[qa] == 1 or (ka is not None and src[ka] == 1):
            raise _Abort
        return [(op.results[0], (nq, nk))]
    if name == "stablehlo.dot_general" and operand == 0 and ka is not None:
        dn = dot_dimension_numbers(op)
        rank = len(_shape(v))
        if dn["lhs_contracting_dimensions"] != [ka] or qa in dn["lhs_batching_dimensions"] \
                or sorted(dn["lhs_batching_dimensions"] + [qa, ka]) != list(range(rank)):
            raise _Abort
        if op.operands[1] in region.axes:
            raise _Abort
        region.finals.append(op)
        return None
    raise _Abort


def _plan_outside(v: ir.Value, qa, ka, facts: SizeFacts, region: _Region, depth: int = 0) -> None:
    """Checks that a value from outside the region can be blocked at (qa, ka): its sizes must be
    expressible (the rewrite materializes them); raises _Abort otherwise."""
    if qa is None and ka is None:
        return
    for a, s in enumerate(_shape(v)):
        if is_dynamic(s) and a not in (qa, ka) and _opaque(facts.dim(v, a)):
            raise _Abort
    how, arg = _outside_plan(v, qa, ka)
    if how == "broadcast" and any(i is not None for i in arg):
        _plan_outside(defining_op(v).operands[0], arg[0], arg[1], facts, region, depth + 1)
    elif how == "recompute":
        for o, oq, ok in arg:
            _plan_outside(o, oq, ok, facts, region, depth + 1)

def _outside_plan(v: ir.Value, qa, ka, depth: int = 0):
    """How a value from outside the region is blocked at (qa, ka): ("broadcast", operand axes),
    ("recompute", [(operand, q, k)...]) for an index computation (iotas, elementwise ops,
    broadcasts and reshapes of them: a causal mask) rebuilt on the blocked shape instead of
    padded, or ("pad", None)."""
    op = defining_op(v)
    if op is None:
        return "pad", None
    if op.name in _BROADCASTS:
        dims = i64_array(op, "broadcast_dimensions")
        src = _shape(op.operands[0])
        inner = tuple(dims.index(a) if a is not None and a in dims and src[dims.index(a)] != 1
                      else None for a in (qa, ka))
        return "broadcast", inner
    if depth < 16 and _index_only(v, depth):
        return "recompute", _index_children(op, v, qa, ka)
    return "pad", None


def _index_children(op: ir.Operation, v: ir.Value, qa, ka) -> list:
    """(operand, q axis, k axis) of an index-computation op (see _outside_plan)."""
    if op.name in ELEMENTWISE:
        rank = len(_shape(v))
        return [(o, qa, ka) if len(_shape(o)) == rank else (o, None, None) for o in op.operands]
    if op.name in _RESHAPES:
        groups = reassociation_groups(op)
        src_axes = []
        for a in (qa, ka):
            if a is None:
                src_axes.append(None)
            elif op.name == "tensor.expand_shape":
                src_axes.append(next(i for i, g in enumerate(groups) if a in g))
            else:
                src_axes.append(next(x for x in groups[a] if _shape(op.operands[0])[x] != 1))
        return [(op.operands[0], *src_axes)]
    return []   # dynamic_iota: its shape operand is rebuilt


def _index_only(v: ir.Value, depth: int) -> bool:
    """Whether `v` is computed from iotas and constants only, through elementwise ops,
    broadcasts and reshapes whose `?` axes are single (no more than 16 ops deep)."""
    op = defining_op(v)
    if op is None or depth > 16:
        return False
    if op.name in ("stablehlo.constant", "arith.constant"):
        return True
    if op.name == "stablehlo.dynamic_iota":
        return isinstance(_elt(v), ir.IntegerType)
    if op.name in ELEMENTWISE or op.name in _BROADCASTS:
        srcs = op.operands if op.name in ELEMENTWISE else op.operands[:1]
        return all(_index_only(o, depth + 1) for o in srcs)
    if op.name in _RESHAPES:
        many = _shape(op.results[0]) if op.name == "tensor.expand_shape" else _shape(op.operands[0])
        for g in reassociation_groups(op):
            if sum(1 for x in g if many[x] != 1) > 1 and any(is_dynamic(many[x]) for x in g):
                return False
        return _index_only(op.operands[0], depth + 1)
    return False

def _opaque(e) -> bool:
    if isinstance(e, list):
        return e[0] == "opaque" or any(_opaque(x) for x in e[1:])
    return False


def _split_at(r: int, p: int) -> list[int]:
    """Where axis `r` goes when axis `p` is split in two: [r], [p, p + 1] or [r + 1]."""
    return [r] if r < p else [p, p + 1] if r == p else [r + 1]


class _Rewriter:
    """Builds the blocked region (see the module docstring)."""

    def __init__(self, region: _Region, facts: SizeFacts, block: int, pad_in_blocks: bool = False,
                 slice_after_transposes: bool = False, mask_at_source: bool = False):
        self.r, self.facts, self.block = region, facts, block
        self.pad_in_blocks = pad_in_blocks
        self.slice_after_transposes = slice_after_transposes
        self.mask_at_source = mask_at_source
        func = enclosing_func(region.d1)
        self.args = list(func.regions[0].blocks[0].arguments)
        entry = func.regions[0].blocks[0]
        self.top_block = entry
        self.first = entry.operations[0].operation
        self.top = OpBuilder(ip=ir.InsertionPoint.at_block_begin(entry), loc=region.d1.location)
        self.memo: dict = {}
        self.new: dict = {}            # region value -> blocked value
        i64, idx = ir.IntegerType.get_signless(64), ir.IndexType.get()
        self.i64, self.idx = i64, idx
        t = self.top
        self.q = self.size(region.q)
        self.k = self.size(region.k)
        c1, cb = t.const_index(block - 1), t.const_index(block)
        self.qb = t.index_op("arith.divsi", t.index_op("arith.addi", self.q, c1), cb)
        self.kb = t.index_op("arith.divsi", t.index_op("arith.addi", self.k, c1), cb)
        self.qp = t.index_op("arith.muli", self.qb, cb)
        self.kp = t.index_op("arith.muli", self.kb, cb)
        self.valid = None               # tensor<KBx16xi1>: key position < k

    def size(self, e) -> ir.Value:
        v = materialize_size(e, self.args, self.top, self.memo)
        if v is None:
            raise _Abort
        return v

    # -- sizes of blocked values -----------------------------------------------------------------

    def blocked_sizes(self, v: ir.Value, qa, ka) -> list:
        """Index values (or ints) of each axis of `v` blocked at (qa, ka)."""
        out = []
        for a, s in enumerate(_shape(v)):
            if a == qa:
                out += [self.qb, self.block]
            elif a == ka:
                out += [self.kb, self.block]
            else:
                out.append(s if not is_dynamic(s) else self.size(self.facts.dim(v, a)))
        return out

    def shape_tensor(self, b: OpBuilder, sizes: list) -> ir.Value:
        vals = [b.value("arith.index_cast", [self.i64], [s if not isinstance(s, int)
                                                       else b.const_index(s)]) for s in sizes]
        return b.tensor_from_elements(vals, self.i64)

    def blocked_type(self, v: ir.Value, qa, ka, elt=None) -> ir.Type:
        return ir.RankedTensorType.get(_blocked_shape(_shape(v), (qa, ka), self.block), elt or _elt(v))

    def expand(self, b: OpBuilder, x: ir.Value, qa, ka, sizes: list) -> ir.Value:
        """Expands the padded axes qa, ka of `x` into (blocks, block)."""
        groups, pos = [], 0
        for a in range(len(_shape(x))):
            n = 2 if a in (qa, ka) else 1
            groups.append(list(range(pos, pos + n)))
            pos += n
        t = self.blocked_type(x, qa, ka)
        dyn = [s for s, n in zip(sizes, t.shape) if is_dynamic(n)]
        return b.expand_shape(x, groups, t, dyn)

    def pad(self, b: OpBuilder, x: ir.Value, axes: dict) -> ir.Value:
        """`x` zero-padded on each axis in `axes` (axis -> padded size)."""
        if self.pad_in_blocks and len(axes) == 1:
            below = self.pad_in_blocks_below(b, x, *next(iter(axes.items())))
            if below is not None:
                return below
        return self.pad_here(b, x, axes)

    def pad_in_blocks_below(self, b: OpBuilder, x: ir.Value, axis: int, size: ir.Value) -> ir.Value | None:
        """`x` = collapse_shape(transpose(y)), `axis` a group of its own: y padded along the
        axis, split into (blocks, 16), transposed and collapsed, so that x's padded axis is a
        collapse of (blocks, 16) with the 16 static."""
        c = defining_op(x)
        if c is None or c.name != "tensor.collapse_shape":
            return None
        groups = reassociation_groups(c)
        if len(groups[axis]) != 1:
            return None
        src_axis = groups[axis][0]
        t = defining_op(c.operands[0])
        if t is None or t.name != "stablehlo.transpose":
            return None
        blocks = self.qb if size == self.qp else self.kb if size == self.kp else None
        if blocks is None:
            return None
        perm = transpose_perm(t)
        y = t.operands[0]
        p = perm[src_axis]
        yp = self.pad_here(b, y, {p: size})
        ys = _shape(yp)
        e_shape = ys[:p] + [_DYN, self.block] + ys[p + 1:]
        e_groups = [_split_at(a, p) for a in range(len(ys))]
        dyn = []
        for a, n in enumerate(ys):
            if a == p:
                dyn.append(blocks)
            elif is_dynamic(n):
                dyn.append(b.tensor_dim_op(yp, a))
        e = b.expand_shape(yp, e_groups, ir.RankedTensorType.get(e_shape, _elt(x)), dyn)
        tp = b.hlo_transpose(e, sum((_split_at(q, p) for q in perm), []))
        c_groups = [sum((_split_at(j, src_axis) for j in g), []) for g in groups]
        ct = ir.RankedTensorType.get([_DYN if a == axis else n for a, n in enumerate(_shape(x))], _elt(x))
        return b.collapse_shape(tp, c_groups, ct)

    def slice_after_transpose(self, sl: ir.Value) -> None:
        """The values' product `sl` = the real query rows sliced from the padded product, read
        by transpose(expand_shape(sl)) (heads put back beside the sequence): the padded product
        expanded with its query axis as (blocks, 16), transposed, collapsed, then sliced, so the
        transpose meets the matmul's unpack as in a static module. Nothing changes otherwise."""
        cut = defining_op(sl)
        users = [use_owner(u) for u in sl.uses]
        sizes_read = [u for u in users if u.name == "tensor.dim" and constant_index(u.operands[1]) is not None]
        users = [u for u in users if u not in sizes_read]
        if cut is None or cut.name != "tensor.extract_slice" or len(users) != 1:
            return
        e = users[0]
        src = cut.operands[0]
        qa = 1      # values() slices the query axis, after the one batch axis
        if e.name != "tensor.expand_shape" or len(_shape(src)) != 3 or len(list(e.results[0].uses)) != 1:
            return
        groups = reassociation_groups(e)
        if len(groups[qa]) != 1:
            return
        eq = groups[qa][0]
        t = use_owner(list(e.results[0].uses)[0])
        if t.name != "stablehlo.transpose":
            return
        for d in sizes_read:   # the slice's sizes, read without it
            axis = constant_index(d.operands[1])
            d.results[0].replace_all_uses_with(self.q if axis == qa else OpBuilder(d).tensor_dim_op(src, axis))
            d.erase()
        perm = transpose_perm(t)
        b = OpBuilder(t)
        e_shape = _shape(e.results[0])
        old_dyn = list(e.operands[1:])
        dyn, k = [], 0
        for r, n in enumerate(e_shape):
            if not is_dynamic(n):
                continue
            dyn.append(self.qb if r == eq else old_dyn[k])
            k += 1
        e2_t = ir.RankedTensorType.get(e_shape[:eq] + [_DYN, self.block] + e_shape[eq + 1:], _elt(sl))
        e2 = b.expand_shape(src, [sum((_split_at(r, eq) for r in g), []) for g in groups], e2_t, dyn)
        t2 = b.hlo_transpose(e2, sum((_split_at(p, eq) for p in perm), []))
        tq = perm.index(eq)
        out_shape = _shape(t.results[0])
        c_groups = [_split_at(i, tq) for i in range(len(out_shape))]
        c = b.collapse_shape(t2, c_groups, ir.RankedTensorType.get(
            [_DYN if i == tq else n for i, n in enumerate(out_shape)], _elt(sl)))
        sizes = [self.q if i == tq else (b.tensor_dim_op(c, i) if is_dynamic(n) else n)
                 for i, n in enumerate(out_shape)]
        t.results[0].replace_all_uses_with(b.extract_slice(c, [0] * len(out_shape), sizes))
        t.erase()
        e.erase()
        cut.erase()

    def pad_here(self, b: OpBuilder, x: ir.Value, axes: dict) -> ir.Value:
        shape = _shape(x)
        high = []
        for a, s in enumerate(shape):
            if a in axes:
                cur = b.const_index(s) if not is_dynamic(s) else b.tensor_dim_op(x, a)
                high.append(b.index_op("arith.subi", axes[a], cur))
            else:
                high.append(0)
        elt = _elt(x)
        zero = b.constant(elt, 0.0 if isinstance(elt, ir.FloatType) else 0)
        t = ir.RankedTensorType.get([_DYN if a in axes else s for a, s in enumerate(shape)], elt)
        return b.tensor_pad(x, [0] * len(shape), high, zero, t)

    def key_valid(self) -> ir.Value:
        """tensor<?x16xi1>: whether key position kb * 16 + j is below k (built once, as a
        linalg.generic of its indices: IREE computes it inside each dispatch that reads it,
        where StableHLO iotas compared with a 0-d tensor of k took two dispatches of their own)."""
        if self.valid is None:
            t = self.top
            i1 = ir.IntegerType.get_signless(1)
            vt = ir.RankedTensorType.get([_DYN, self.block], i1)
            valid, b, _ = t.parallel_generic(t.tensor_empty(vt, [self.kb]))
            kb, j = b.linalg_index(0), b.linalg_index(1)
            pos = b.index_op("arith.addi", b.index_op("arith.muli", kb, b.const_index(self.block)), j)
            b.create("linalg.yield", [], [b.cmpi("slt", pos, self.k)])
            self.valid = valid
        return self.valid

    def masked(self, b: OpBuilder, x: ir.Value, qa, ka, fill: ir.Value, sizes: list) -> ir.Value:
        """select(key valid, x, fill) on a blocked value (fill: a 0-d tensor)."""
        t = ir.RankedTensorType(x.type)
        shape = self.shape_tensor(b, sizes)
        kpos = _new_pos(ka, (qa, ka))
        valid = b.value("stablehlo.dynamic_broadcast_in_dim",
                        [ir.RankedTensorType.get(t.shape, ir.IntegerType.get_signless(1))],
                        [self.key_valid(), shape],
                        {"broadcast_dimensions": ir.DenseI64ArrayAttr.get([kpos, kpos + 1]),
                         "known_expanding_dimensions": ir.DenseI64ArrayAttr.get([]),
                         "known_nonexpanding_dimensions": ir.DenseI64ArrayAttr.get([0, 1])})
        f = b.hlo_broadcast_in_dim(fill, t, [], shape)
        return b.hlo_select(valid, x, f)

    # -- outside values --------------------------------------------------------------------------

    def outside(self, b: OpBuilder, v: ir.Value, qa, ka) -> ir.Value:
        """A value from outside the region, blocked at (qa, ka): a broadcast is rebuilt on the
        blocked shape (its operand blocked where it carries q or k), an index computation (a
        causal mask) recomputed on it, anything else padded and expanded."""
        if qa is None and ka is None:
            return v
        sizes = self.blocked_sizes(v, qa, ka)
        op = defining_op(v)
        how, arg = _outside_plan(v, qa, ka)
        t = self.blocked_type(v, qa, ka)
        if how == "broadcast":
            dims = i64_array(op, "broadcast_dimensions")
            inner = arg
            xb = self.outside(b, op.operands[0], *inner)
            new_dims = []
            for i, d in enumerate(dims):
                p = _new_pos(d, (qa, ka))
                new_dims += [p, p + 1] if i in inner else [p]
            attrs = {"broadcast_dimensions": ir.DenseI64ArrayAttr.get(new_dims)}
            for key in ("known_expanding_dimensions", "known_nonexpanding_dimensions"):
                if key in op.attributes:
                    ax = []
                    for i in i64_array(op, key):
                        p = _new_pos(i, inner)
                        ax += [p, p + 1] if i in inner else [p]
                    attrs[key] = ir.DenseI64ArrayAttr.get(ax)
            return b.value("stablehlo.dynamic_broadcast_in_dim", [t], [xb, self.shape_tensor(b, sizes)], attrs)
        if how == "recompute":
            if op.name == "stablehlo.dynamic_iota":
                return self.blocked_iota(b, v, op, qa, ka, sizes)
            if op.name in ELEMENTWISE:
                ops = [self.outside(b, o, oq, ok) for o, oq, ok in arg]
                return b.value(op.name, [t], ops, _attrs(op))
            (src, sq, sk), = arg
            return self.rebuild_reshape(b, op, self.outside(b, src, sq, sk), (sq, sk), (qa, ka))
        axes = {}
        if qa is not None:
            axes[qa] = self.qp
        if ka is not None:
            axes[ka] = self.kp
        return self.expand(b, self.pad(b, v, axes), qa, ka, sizes)

    def blocked_iota(self, b: OpBuilder, v: ir.Value, op: ir.Operation, qa, ka, sizes) -> ir.Value:
        """A dynamic_iota on the blocked shape; along a blocked axis: block * 16 + position."""
        t = self.blocked_type(v, qa, ka)
        shape = self.shape_tensor(b, sizes)
        d = ir.IntegerAttr(op.attributes["iota_dimension"]).value
        p = _new_pos(d, (qa, ka))
        iota = lambda axis: b.value("stablehlo.dynamic_iota", [t], [shape],  # noqa: E731
                                    {"iota_dimension": ir.IntegerAttr.get(self.i64, axis)})
        if d not in (qa, ka):
            return iota(p)
        blk = b.value("stablehlo.dynamic_broadcast_in_dim", [t],
                      [b.hlo_const([self.block], _elt(v), shape=[]), shape],
                      {"broadcast_dimensions": ir.DenseI64ArrayAttr.get([])})
        return b.hlo_binary("add", b.hlo_binary("multiply", iota(p), blk), iota(p + 1))

    def rebuild_reshape(self, b: OpBuilder, op: ir.Operation, src_new: ir.Value, src_axes, res_axes):
        """An expand_shape / collapse_shape on blocked values (the blocked axes split in two)."""
        sq, sk = src_axes
        rq, rk = res_axes
        res = op.results[0]
        expand = op.name == "tensor.expand_shape"
        groups = reassociation_groups(op)
        many_blk, one_blk = ((rq, rk), (sq, sk)) if expand else ((sq, sk), (rq, rk))
        new_groups = []
        for gi, g in enumerate(groups):
            if gi in one_blk:
                p = next(x for x in g if x in many_blk)
                before = [_new_pos(x, many_blk) for x in g if x < p]
                after = [_new_pos(x, many_blk) for x in g if x > p]
                np_ = _new_pos(p, many_blk)
                new_groups += [before + [np_], [np_ + 1] + after]
            else:
                new_groups.append([_new_pos(x, many_blk) for x in g])
        t = self.blocked_type(res, rq, rk)
        if expand:
            sizes = self.blocked_sizes(res, rq, rk)
            dyn = [s for s, n in zip(sizes, t.shape) if is_dynamic(n)]
            return b.expand_shape(src_new, new_groups, t, dyn)
        return b.collapse_shape(src_new, new_groups, t)

    # -- the region ------------------------------------------------------------------------------

    def run(self, min_length: int) -> None:
        r = self.r
        old = [o.operation for o in self.top_block.operations]
        for o in old:   # marked: the ops the rewrite adds are the unmarked ones
            o.attributes[_OLD] = ir.UnitAttr.get()
        for op in r.ops:
            b = OpBuilder(op)
            if op == r.d1:
                self.scores(b, op)
            elif op.name in ELEMENTWISE:
                self.elementwise(b, op)
            elif op.name == "stablehlo.reduce":
                self.reduce(b, op)
            elif op.name in _RESHAPES:
                self.reshape(b, op)
            elif op.name in _BROADCASTS:
                self.broadcast(b, op)
        blocked = [self.values(OpBuilder(d2), d2) for d2 in r.finals]
        for dim_op in r.dims:
            v, axis = dim_op.operands[0], _size_read_axis(dim_op, self.facts)
            size = self.size(self.facts.dim(v, axis))
            if dim_op.name == "stablehlo.get_dimension_size":
                t = ir.RankedTensorType(dim_op.results[0].type)
                size = self.top.value("tensor.from_elements", [t], [self.top.index_cast(size, t.element_type)])
            dim_op.results[0].replace_all_uses_with(size)
            dim_op.erase()
        if min_length <= 1:
            for o in self.top_block.operations:
                if _OLD in o.operation.attributes:
                    del o.operation.attributes[_OLD]
            for d2, v in zip(r.finals, blocked):
                d2.results[0].replace_all_uses_with(v)
            for op in r.finals + list(reversed(r.ops)):
                op.erase()
            if self.slice_after_transposes:
                for v in blocked:
                    self.slice_after_transpose(v)
            return
        # Short sequences keep the unblocked ops (the blocks' pads and masks cost more dispatches
        # than they save there): scf.if (q >= min_length and k >= min_length), the blocked ops
        # in its then-region, the original ones in its else-region.
        new_ops, after_first = [], False
        for o in self.top_block.operations:
            o = o.operation
            after_first = after_first or o == self.first
            if after_first and _OLD not in o.attributes:
                new_ops.append(o)
        for o in self.top_block.operations:
            if _OLD in o.operation.attributes:
                del o.operation.attributes[_OLD]
        t = self.top
        lo = t.const_index(min_length)
        cond = t.value("arith.andi", [ir.IntegerType.get_signless(1)],
                       [t.cmpi("sge", self.q, lo), t.cmpi("sge", self.k, lo)])
        last = r.finals[-1]
        if_op = scf.IfOp(cond, [d2.results[0].type for d2 in r.finals], has_else=True,
                         loc=last.location, ip=ir.InsertionPoint(last))
        for d2, res in zip(r.finals, if_op.results):
            d2.results[0].replace_all_uses_with(res)
        then_yield = scf.YieldOp(blocked, ip=ir.InsertionPoint(if_op.then_block), loc=last.location)
        for o in new_ops:
            o.move_before(then_yield.operation)
        else_yield = scf.YieldOp([d2.results[0] for d2 in r.finals],
                                 ip=ir.InsertionPoint(if_op.else_block), loc=last.location)
        order = {o: i for i, o in enumerate(walk_ops(self.top_block.owner))}
        for o in sorted(r.ops + r.finals, key=lambda o: order[o]):
            o.move_before(else_yield.operation)

    def scores(self, b: OpBuilder, d1: ir.Operation) -> None:
        qa, ka = self.r.axes[d1.results[0]]
        lhs, rhs = d1.operands[0], d1.operands[1]
        (_, lq), (_, rk) = dot_result_axis(d1, qa), dot_result_axis(d1, ka)
        lhs_p, rhs_p = self.pad(b, lhs, {lq: self.qp}), self.pad(b, rhs, {rk: self.kp})
        flat = b.value("stablehlo.dot_general", [d1.results[0].type], [lhs_p, rhs_p],
                       _attrs(d1))
        sizes = []
        for a, s in enumerate(_shape(d1.results[0])):
            if a == qa:
                sizes += [self.qb, self.block]
            elif a == ka:
                sizes += [self.kb, self.block]
            else:
                sizes.append(s if not is_dynamic(s) else b.tensor_dim_op(flat, a))
        self.new[d1.results[0]] = self.expand(b, flat, qa, ka, sizes)

    def operand(self, b: OpBuilder, o: ir.Value, qa, ka, rank: int) -> ir.Value:
        if o in self.new:
            return self.new[o]
        if len(_shape(o)) != rank:
            return o  # a 0-d select predicate
        return self.outside(b, o, qa, ka)

    def elementwise(self, b: OpBuilder, op: ir.Operation) -> None:
        res = op.results[0]
        qa, ka = self.r.axes[res]
        rank = len(_shape(res))
        ops = [self.operand(b, o, qa, ka, rank) for o in op.operands]
        t = self.blocked_type(res, qa, ka)
        self.new[res] = b.value(op.name, [t], ops, _attrs(op))

    def reduce(self, b: OpBuilder, op: ir.Operation) -> None:
        x, init = op.operands[0], op.operands[1]
        qa, ka = self.r.axes[x]
        xb = self.new[x]
        red = i64_array(op, "dimensions")
        comb = reduce_combiner(op).split(".", 1)[1]
        if ka is not None and ka in red:
            xb = self.masked(b, xb, qa, ka, init, self.blocked_sizes(x, qa, ka))
            if comb in ("maximum", "minimum") and self.mask_at_source:
                # Every other reader of x ignores its padded keys too (a key reduction masks its
                # own input, the probabilities are zeroed there), so they may all read the
                # masked x: then x is read only masked, the select joins the dispatch that
                # computes x, and the reduction's dispatch reads it whole (see the docstring).
                self.new[x] = xb
        new_red = []
        for d in red:
            p = _new_pos(d, (qa, ka))
            new_red += [p, p + 1] if d == ka else [p]
        res = op.results[0]
        rq, rk = self.r.axes[res]
        self.new[res] = b.hlo_reduce(xb, init, new_red, self.blocked_type(res, rq, rk), comb)

    def reshape(self, b: OpBuilder, op: ir.Operation) -> None:
        src, res = op.operands[0], op.results[0]
        self.new[res] = self.rebuild_reshape(b, op, self.new[src], self.r.axes[src], self.r.axes[res])

    def broadcast(self, b: OpBuilder, op: ir.Operation) -> None:
        x, res = op.operands[0], op.results[0]
        sq, sk = self.r.axes[x]
        rq, rk = self.r.axes[res]
        dims = i64_array(op, "broadcast_dimensions")
        new_dims = []
        for i, d in enumerate(dims):
            p = _new_pos(d, (rq, rk))
            new_dims += [p, p + 1] if i in (sq, sk) else [p]
        attrs = {"broadcast_dimensions": ir.DenseI64ArrayAttr.get(new_dims)}
        for key in ("known_expanding_dimensions", "known_nonexpanding_dimensions"):
            if key in op.attributes:
                ax = []
                for i in i64_array(op, key):
                    p = _new_pos(i, (sq, sk))
                    ax += [p, p + 1] if i in (sq, sk) else [p]
                attrs[key] = ir.DenseI64ArrayAttr.get(ax)
        t = self.blocked_type(res, rq, rk)
        shape = self.shape_tensor(b, self.blocked_sizes(res, rq, rk))
        self.new[res] = b.value("stablehlo.dynamic_broadcast_in_dim", [t], [self.new[x], shape], attrs)

    def values(self, b: OpBuilder, d2: ir.Operation) -> ir.Value:
        p = d2.operands[0]
        qa, ka = self.r.axes[p]
        # The probabilities are zeroed at the padded keys before the reshapes that lead to the
        # matmul (on the shape of the op that computes them, so that the select joins its
        # dispatch and the matmul's pack follows it there).
        chain, x = [], p
        while (op := defining_op(x)) is not None and op.name in _RESHAPES and op in self.r.ops:
            chain.append(op)
            x = op.operands[0]
        xq, xk = self.r.axes[x]
        zero = b.hlo_const([0.0], _elt(p), shape=[])
        self.new[x] = self.masked(b, self.new[x], xq, xk, zero, self.blocked_sizes(x, xq, xk))
        for op in reversed(chain):
            self.reshape(b, op)
        pb = self.new[p]
        groups, pos = [], 0
        for a in range(len(_shape(p))):
            n = 2 if a in (qa, ka) else 1
            groups.append(list(range(pos, pos + n)))
            pos += n
        flat_t = ir.RankedTensorType.get(_shape(p), _elt(p))
        lhs = b.collapse_shape(pb, groups, flat_t)
        dn = dot_dimension_numbers(d2)
        v = d2.operands[1]
        vp = self.pad(b, v, {dn["rhs_contracting_dimensions"][0]: self.kp})
        out = d2.results[0]
        dot = b.value("stablehlo.dot_general", [out.type], [lhs, vp],
                      _attrs(d2))
        oq = len(dn["lhs_batching_dimensions"])
        sizes_out = []
        for a, s in enumerate(_shape(out)):
            if a == oq:
                sizes_out.append(self.q)
            else:
                sizes_out.append(s if not is_dynamic(s) else b.tensor_dim_op(dot, a))
        return b.extract_slice(dot, [0] * len(sizes_out), sizes_out)


def block_attention(func: ir.Operation, block: int, min_length: int = 1,
                    pad_in_blocks: bool = False, slice_after_transposes: bool = False,
                    mask_at_source: bool = False) -> int:
    """Blocks every rewritable attention region of `func`; returns how many were rewritten."""
    n = 0
    pending = [op for op in walk_ops(func) if op.name == "stablehlo.dot_general"]
    while pending:
        op = pending.pop(0)
        facts = SizeFacts(func)
        region = _plan_region(op, facts)
        if region is None:
            continue
        try:
            rw = _Rewriter(region, facts, block, pad_in_blocks, slice_after_transposes,
                           mask_at_source)
        except _Abort:
            continue
        gone = region.ops + region.finals
        pending = [o for o in pending if o not in gone]   # compared while they still exist
        rw.run(min_length)
        n += 1
    return n


@dataclass(frozen=True)
class BlockAttentionForIree(Pass):
    """Attention over `?` queries and keys computed in blocks of `block` rows and columns."""

    name = "symhlo-block-attention-for-iree"
    summary = ("attention between a scores matmul and a values matmul over `?` queries and keys "
               "computed on blocks of `block` (16) queries x keys, padded and sliced back, so "
               "IREE's packs of the probabilities fuse into the softmax")
    block: int = 16
    # > 1: below this many queries or keys the original ops run (an scf.if on the sizes)
    min_length: int = 1
    # a padded operand that is collapse(transpose(y)): y padded, split into (blocks, block),
    # transposed and collapsed (_Rewriter.pad_in_blocks_below)
    pad_in_blocks: bool = True
    # the values' product read by transpose(expand_shape) is sliced after the transpose
    # (_Rewriter.slice_after_transpose)
    slice_after_transposes: bool = True
    # the input of a max / min over the keys is masked where it is computed: every reader of it
    # reads it masked (_Rewriter.reduce)
    mask_at_source: bool = True

    def run(self, module: ir.Module) -> None:
        if self.block <= 1:
            return
        with module.context, ir.Location.unknown():
            for f in module.body.operations:
                f = f.operation
                if f.name == "func.func" and f.regions[0].blocks:
                    block_attention(f, self.block, self.min_length, self.pad_in_blocks,
                                    self.slice_after_transposes, self.mask_at_source)
