"""symhlo-flatten-nested-inserts-for-iree: a tensor assembled from slices and then inserted whole
into a larger one is assembled in the larger one's place.

A decode step that returns its KV caches stacked (`torch.stack` of the per-layer `torch.cat`s)
builds each layer's cache from the past and the new token (symhlo-prepare-for-iree turns a
concatenate with a `?` axis into insert_slices), then copies the layer's whole cache into the
stack, and the stack into the output. With static shapes IREE 3.13 places each piece where the
output needs it; over the `?` past it does not, and every level is one more copy of every cache
(a Llama decode step exported at batch 1 with a `?` past, at past 128: 6 of its 79 dispatches
per call, 18% of its dispatches' CPU time).
Here the pieces go straight into the outer tensor, and what else reads an inner tensor (the
layer's attention) reads it back as a slice of the outer one:

    %e = tensor.empty(%n) : tensor<1x2x?x64xf32>
    %a = tensor.insert_slice %past into %e[0, 0, 0, 0] [1, 2, %p, 64] [1, 1, 1, 1]
    %k = tensor.insert_slice %new into %a[0, 0, %p, 0] [1, 2, 1, 64] [1, 1, 1, 1]      (attention reads %k)
    ...
    %s = tensor.empty(%n) : tensor<2x2x?x64xf32>
    %s0 = tensor.insert_slice %k into %s[0, 0, 0, 0] [1, 2, %n, 64] [1, 1, 1, 1]
    %s1 = tensor.insert_slice %k1 into %s0[1, 0, 0, 0] [1, 2, %n, 64] [1, 1, 1, 1]
  ==>
    %s = tensor.empty(%n) : tensor<2x2x?x64xf32>                                          (where %e was)
    %a = tensor.insert_slice %past into %s[0, 0, 0, 0] [1, 2, %p, 64] [1, 1, 1, 1]
    %b = tensor.insert_slice %new into %a[0, 0, %p, 0] [1, 2, 1, 64] [1, 1, 1, 1]
    %k = tensor.extract_slice %b[0, 0, 0, 0] [1, 2, %n, 64] [1, 1, 1, 1]                (attention reads it)
    ... (%k1's pieces go into %b the same way; %s1 is the last of them)

A reader that merges axes of the inner tensor (attention folding the heads into the batch) reads
the outer tensor collapsed the same way, sliced (`_read_collapsed`): IREE 3.13 copies a slice that
a reshape reads, and reads one that a dispatch reads in place.

An inner tensor may reach the outer insert through a reshape that splits its axes
(`tensor.expand_shape`, or a `tensor.reshape` the size facts prove to be one): torch.stack is a
concatenate along axis 0 reshaped to (layers, batch, ...), and an inner piece then lands at
(offset / batch, 0) with (size / batch, batch) rows, which the facts must prove whole. Rewritten
once per nesting level until nothing changes. The outer tensor's own pieces are placed in the
program order of the inner ones; where that differs from the insert order, the pieces must be
provably disjoint (static offsets and sizes along one axis), so no write is reordered past one it
overlaps. A tensor inserted twice (`torch.cat([x, x])`) stays as it is. An uncovered part of an
inner tensor was undefined (tensor.empty) and stays whatever the outer one holds there. Runs on
the copy for IREE only; the portable artifact keeps its concatenates.

Measured (Llama decode step with its caches stacked, bench/models.py, at batch 1, past 128,
dispatch_profile.py --drop-pass, medians of 5 alternated rounds): 83 -> 77 dispatches per call,
wall 1.15 -> 0.97 ms, process CPU 1.70 -> 1.43 ms (the static module 0.67 and 1.01).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

from torch_mlir import ir

from .builder import OpBuilder, reassociation_groups
from .ir_util import defining_op, use_owner, walk_ops
from .registry import Pass
from .size_exprs import make
from .size_facts import SizeFacts, facts_for, monomial, reassociation

_DYN = ir.ShapedType.get_dynamic_size()
_INDEX_ARITH = ("arith.addi", "arith.subi", "arith.muli")
_MAX_REWRITES = 256   # per function; each one removes a nesting level of one chain

Size = Union[int, ir.Value]   # a static size or offset, or an index Value


def slice_parts(op: ir.Operation) -> tuple[list, list, list]:
    """(offsets, sizes, strides) of a tensor.insert_slice / extract_slice, each an int or an
    index Value."""
    first = 2 if op.name == "tensor.insert_slice" else 1
    dyn = list(op.operands)[first:]
    out = []
    for key in ("static_offsets", "static_sizes", "static_strides"):
        vals = []
        for s in ir.DenseI64ArrayAttr(op.attributes[key]):
            vals.append(dyn.pop(0) if s == _DYN else int(s))
        out.append(vals)
    return out[0], out[1], out[2]


def _single_use(v: ir.Value) -> bool:
    return len(list(v.uses)) == 1


def _size_reads(v: ir.Value) -> list[ir.Operation]:
    """The `tensor.dim` ops that read a size of `v` at a constant axis."""
    out = []
    for u in v.uses:
        op = use_owner(u)
        if op.name == "tensor.dim" and u.operand_number == 0:
            axis = defining_op(op.operands[1])
            if axis is not None and axis.name == "arith.constant":
                out.append(op)
    return out


def _value_uses(v: ir.Value) -> list:
    """The uses of `v` that read its elements (not one of its sizes)."""
    reads = _size_reads(v)
    return [u for u in v.uses if use_owner(u) not in reads]


def _read_sizes_elsewhere(v: ir.Value, at: ir.Operation, build: bool, facts: SizeFacts) -> bool:
    """Points each `tensor.dim` of `v` at the size it reads, as available at `at` (in front of
    `v`'s definition: the size the op that makes `v` was given). False when one is not known."""
    for op in _size_reads(v):
        axis = ir.IntegerAttr(defining_op(op.operands[1]).attributes["value"]).value
        size = _earlier_dim(v, axis, at, build, facts)
        if size is None:
            return False
        if build:
            op.result.replace_all_uses_with(size if not isinstance(size, int)
                                            else OpBuilder(op).const_index(size))
            op.erase()
    return True


@dataclass
class FillChain:
    """insert_slices that fill a tensor.empty, in order; each one's result is the next one's
    destination and only that."""

    base: ir.Operation
    inserts: list[ir.Operation]

    @property
    def value(self) -> ir.Value:
        return self.inserts[-1].result


def fill_chain(v: ir.Value) -> FillChain | None:
    """The fill chain whose last insert defines `v`, else None."""
    inserts = []
    while True:
        op = defining_op(v)
        if op is None or op.name != "tensor.insert_slice":
            return None
        src_t, dst_t = (ir.RankedTensorType(o.type) for o in op.operands[:2])
        if src_t.rank != dst_t.rank or any(s != 1 for s in slice_parts(op)[2]):
            return None
        if inserts and op.block != inserts[-1].block:
            return None
        inserts.append(op)
        dest = op.operands[1]
        d = defining_op(dest)
        if d is not None and d.name == "tensor.empty":
            inserts.reverse()
            return FillChain(d, inserts)
        if not _single_use(dest):
            return None
        v = dest


# -- sizes available at a point ------------------------------------------------------------------


def _available(v: ir.Value, at: ir.Operation) -> bool:
    """`v` is defined before `at` (a block argument, a value from an enclosing region, or an op
    earlier in `at`'s block)."""
    op = defining_op(v)
    if op is None or op.block != at.block:
        return True
    return op.is_before_in_block(at)


def _earlier_size(v: Size, at: ir.Operation, build: bool, facts: SizeFacts) -> Size | None:
    """An index Value equal to `v` that is available at `at` (`v` itself, a constant made anew,
    or the size `v` reads through tensor.dim traced to where it was set), or None. Creates
    nothing unless `build`."""
    if isinstance(v, int) or _available(v, at):
        return v
    op = defining_op(v)
    if op.name == "arith.constant":
        value = ir.IntegerAttr(op.attributes["value"]).value
        return OpBuilder(at).const_index(value) if build else value
    if op.name in _INDEX_ARITH:
        parts = [_earlier_size(o, at, build, facts) for o in op.operands]
        if any(x is None for x in parts):
            return None
        if not build:
            return v
        b = OpBuilder(at)
        return b.index_op(op.name, *[b.const_index(x) if isinstance(x, int) else x for x in parts])
    if op.name == "tensor.dim":
        axis = defining_op(op.operands[1])
        if axis is not None and axis.name == "arith.constant":
            found = _earlier_dim(op.operands[0], ir.IntegerAttr(axis.attributes["value"]).value, at,
                                 build, facts)
            if found is not None:
                return found
    return _from_arguments(facts.scalar(v), at, build, facts)


def _from_arguments(e, at: ir.Operation, build: bool, facts: SizeFacts) -> Size | None:
    """The size expression `e` (lib/size_exprs.py) computed from the function's arguments' sizes
    in front of `at`, when it is sums and products of them and constants."""
    if e is None:
        return None
    if isinstance(e, int):
        return e
    if e[0] == "dim":
        arg = facts.args[e[1]]
        return OpBuilder(at).tensor_dim(arg, e[2]) if build else arg
    if e[0] in ("add", "sub", "mul"):
        parts = [_from_arguments(x, at, build, facts) for x in e[1:]]
        if any(x is None for x in parts):
            return None
        if not build:
            return parts[0]
        b = OpBuilder(at)
        vals = [b.const_index(x) if isinstance(x, int) else x for x in parts]
        return b.index_op({"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli"}[e[0]], *vals)
    return None


def _earlier_dim(x: ir.Value, axis: int, at: ir.Operation, build: bool, facts: SizeFacts) -> Size | None:
    """Axis `axis` of `x` as a size available at `at` (see `_earlier_size`)."""
    size = ir.RankedTensorType(x.type).shape[axis]
    if size != _DYN:
        return int(size)
    # Traced to the size the op making `x` was given first: `x` itself may be about to go.
    op = defining_op(x)
    if op is None:
        return OpBuilder(at).tensor_dim_op(x, axis) if build else x
    if op.name == "tensor.insert_slice":
        return _earlier_dim(op.operands[1], axis, at, build, facts)
    if op.name == "tensor.empty":
        k = sum(1 for s in ir.RankedTensorType(x.type).shape[:axis] if s == _DYN)
        return _earlier_size(op.operands[k], at, build, facts)
    if op.name == "tensor.expand_shape":
        out = list(ir.DenseI64ArrayAttr(op.attributes["static_output_shape"]))
        k = sum(1 for s in out[:axis] if s == _DYN)
        return _earlier_size(op.operands[1 + k], at, build, facts)
    if op.name == "tensor.reshape":
        shape = defining_op(op.operands[1])
        if shape is not None and shape.name == "tensor.from_elements":
            e = shape.operands[axis]
            if isinstance(e.type, ir.IndexType):
                return _earlier_size(e, at, build, facts)
    if _available(x, at):
        return OpBuilder(at).tensor_dim_op(x, axis) if build else x
    return None


# -- how an inner tensor's axes sit in the outer piece -------------------------------------------


@dataclass
class AxisMap:
    """The reshape between an inner tensor (rank n) and the outer piece: inner axis j is the
    outer axes `groups[j]`; within a group, the axes before `head[j]` are 1, the axes after it
    are whole (their product `tail[j]`, an Expr), and the head carries
    the inner offset and size divided by the tail product."""

    groups: list[list[int]]
    head: list[int]
    tail: list
    out_shape: list[int]
    reshape: ir.Operation | None

    @staticmethod
    def identity(rank: int, shape: list[int]) -> "AxisMap":
        return AxisMap([[j] for j in range(rank)], list(range(rank)), [1] * rank, shape, None)


def axis_map(src: ir.Value, facts: SizeFacts) -> tuple[ir.Value, AxisMap] | None:
    """The inner tensor `src` reshapes (or `src` itself) and how its axes map onto `src`'s."""
    t = ir.RankedTensorType(src.type)
    op = defining_op(src)
    if op is None or op.name not in ("tensor.expand_shape", "tensor.reshape") or len(_value_uses(src)) != 1:
        return src, AxisMap.identity(t.rank, list(t.shape))
    inner = op.operands[0]
    it = ir.RankedTensorType(inner.type)
    if op.name == "tensor.expand_shape":
        groups = reassociation_groups(op)
    else:
        found = reassociation(facts, [facts.dim(inner, j) for j in range(it.rank)],
                              [facts.dim(src, d) for d in range(t.rank)])
        if found is None or any(len(g[0]) != 1 for g in found):
            return None
        groups = [g[1] for g in found]
    head, tail = [], []
    for g in groups:
        non_unit = [d for d in g if t.shape[d] != 1]
        h = non_unit[0] if non_unit else g[-1]
        head.append(h)
        prod = 1
        for d in g[g.index(h) + 1:]:
            prod = make("mul", prod, facts.dim(src, d))
        tail.append(prod)
    return inner, AxisMap(groups, head, tail, list(t.shape), op)


def _quotient(facts: SizeFacts, v: Size, tail, limit: int) -> Size | None:
    """`v / tail` when `tail` is 1 (then `v`), or a constant k <= limit with v == k * tail proven."""
    if tail == 1:
        return v
    e = v if isinstance(v, int) else facts.scalar(v)
    if e is None:
        return None
    if e == 0:
        return 0
    me, mt = monomial(facts, e), monomial(facts, tail)
    if me is None or mt is None or me[1] != mt[1] or me[0] % mt[0]:
        return None
    k = me[0] // mt[0]
    return k if k <= limit else None


def _map_box(m: AxisMap, facts: SizeFacts, offsets: list, sizes: list, x: ir.Value,
             at: ir.Operation, b: OpBuilder | None) -> tuple[list, list] | None:
    """An inner box (offsets, sizes) in the axes of the outer piece `x` (the reshape's result),
    or None when it does not cover whole tails, a quotient is not proven or a size is not
    available at `at`. Creates ops (the whole axes' sizes) only when `b` is given."""
    n = len(m.out_shape)
    off: list = [0] * n
    size: list = [1] * n
    for j, g in enumerate(m.groups):
        h = m.head[j]
        limit = m.out_shape[h] if m.out_shape[h] != _DYN else 64
        q_off = _quotient(facts, offsets[j], m.tail[j], limit)
        q_size = _quotient(facts, sizes[j], m.tail[j], limit)
        if q_off is None or q_size is None:
            return None
        off[h], size[h] = q_off, q_size
        for d in g[g.index(h) + 1:]:
            whole = _earlier_dim(x, d, at, b is not None, facts)
            if whole is None:
                return None
            size[d] = whole
    return off, size


def _shifted(b: OpBuilder, off: list, outer_off: list) -> list:
    return [b.fold_index("arith.addi", o, oo) for o, oo in zip(off, outer_off)]


def _static(sizes: list) -> list[int]:
    return [s if isinstance(s, int) else _DYN for s in sizes]


@dataclass
class _Inner:
    chain: FillChain
    map: AxisMap
    value: ir.Value      # the inner tensor
    piece: ir.Value      # what the outer insert inserts (the value, or its reshape)


def _inner_of(ins: ir.Operation, facts: SizeFacts) -> _Inner | None:
    src = ins.operands[0]
    found = axis_map(src, facts)
    if found is None:
        return None
    value, m = found
    chain = fill_chain(value)
    if chain is None or chain.inserts[0].block != ins.block or chain.base.block != ins.block:
        return None
    return _Inner(chain, m, value, src)


def _other_uses(inner: _Inner, ins: ir.Operation) -> list:
    """Uses of the inner tensor besides the outer insert (or its reshape)."""
    reader = inner.map.reshape or ins
    return [u for u in _value_uses(inner.value) if use_owner(u) != reader]


def _whole(inner: _Inner, at: ir.Operation, build: bool, facts: SizeFacts) -> list | None:
    """The inner tensor's sizes, available at `at`."""
    t = ir.RankedTensorType(inner.value.type)
    sizes = [_earlier_dim(inner.value, j, at, build, facts) for j in range(t.rank)]
    return None if any(s is None for s in sizes) else sizes


def flatten_outer_chain(last: ir.Operation, facts: SizeFacts) -> bool:
    """Rewrites the fill chain ending at insert `last` when some of its pieces are inner fill
    chains (see the module docstring); False when it left it alone."""
    if any(use_owner(u).name == "tensor.insert_slice" and u.operand_number == 1 for u in last.result.uses):
        return False  # not the end of its chain
    outer = fill_chain(last.result)
    if outer is None:
        return False
    block = last.block
    ops = [o.operation for o in block.operations]
    pos = {op: i for i, op in enumerate(ops)}
    inners = [_inner_of(ins, facts) for ins in outer.inserts]
    taken = [i.value for i in inners if i is not None]
    # a tensor inserted twice (`torch.cat([x, x])`) stays one tensor, inserted as it is
    inners = [i if i is not None and taken.count(i.value) == 1 else None for i in inners]
    if all(i is None for i in inners):
        return False

    def start(k: int) -> int:
        if inners[k] is not None:
            return pos[inners[k].chain.inserts[0]]
        src = defining_op(outer.inserts[k].operands[0])
        return pos[src] + 1 if src is not None and src.block == block else 0

    order = sorted(range(len(inners)), key=start)
    if order != list(range(len(inners))) and not _pairwise_disjoint(outer.inserts):
        return False
    # Feasibility, creating nothing: the pieces' spans follow each other, the base's sizes are
    # available before the first, every inner box maps.
    cursor = 0
    anchors: dict[int, int] = {}
    for k in order:
        if inners[k] is None:
            cursor = anchors[k] = max(cursor, start(k))
            continue
        chain = inners[k].chain
        if pos[chain.inserts[0]] < cursor:
            return False
        anchors[k] = pos[chain.inserts[0]]
        cursor = pos[chain.inserts[-1]]
    first = ops[anchors[order[0]]]
    if any(_earlier_size(v, first, False, facts) is None for v in outer.base.operands):
        return False
    for k, inner in enumerate(inners):
        if inner is None:
            at = ops[anchors[k]]
            offs, sizes, _ = slice_parts(outer.inserts[k])
            if any(_earlier_size(v, at, False, facts) is None for v in offs + sizes):
                return False
            continue
        at = inner.chain.inserts[0]
        if any(_earlier_size(o, at, False, facts) is None for o in slice_parts(outer.inserts[k])[0]):
            return False
        for j in inner.chain.inserts:
            o, s, _ = slice_parts(j)
            if _map_box(inner.map, facts, o, s, inner.piece, j, None) is None:
                return False
        if inner.map.reshape is not None and not _read_sizes_elsewhere(inner.piece, inner.map.reshape, False, facts):
            return False
        if not _read_sizes_elsewhere(inner.value, inner.chain.inserts[-1], False, facts):
            return False
        if _other_uses(inner, outer.inserts[k]):
            whole = _whole(inner, inner.chain.inserts[-1], False, facts)
            if whole is None or _map_box(inner.map, facts, [0] * len(whole), whole, inner.piece,
                                         inner.chain.inserts[-1], None) is None:
                return False
    # Rewrite.
    b = OpBuilder(first)
    base_sizes = [_earlier_size(v, first, True, facts) for v in outer.base.operands]
    acc = b.tensor_empty(outer.base.result.type, base_sizes)
    full = _full_sizes(outer.base.result.type, base_sizes)
    for k in order:
        ins, inner = outer.inserts[k], inners[k]
        offs, sizes, _ = slice_parts(ins)
        if inner is None:
            at = ops[anchors[k]]
            bb = OpBuilder(at)
            acc = bb.insert_slice(ins.operands[0], acc, [_earlier_size(o, at, True, facts) for o in offs],
                                  [_earlier_size(s, at, True, facts) for s in sizes])
            continue
        m = inner.map
        outer_off = [_earlier_size(o, inner.chain.inserts[0], True, facts) for o in offs]
        for j in inner.chain.inserts:
            bj = OpBuilder(j)
            o, s, _ = slice_parts(j)
            off, size = _map_box(m, facts, o, s, inner.piece, j, bj)
            src = j.operands[0]
            if m.reshape is not None:
                t = ir.RankedTensorType.get(_static(size), ir.RankedTensorType(src.type).element_type)
                src = bj.expand_shape(src, m.groups, t, [v for v in size if not isinstance(v, int)])
            acc = bj.insert_slice(src, acc, _shifted(bj, off, outer_off), size)
        if _other_uses(inner, ins):
            end = inner.chain.inserts[-1]
            be = OpBuilder(end)
            whole = _whole(inner, end, True, facts)
            off, size = _map_box(m, facts, [0] * len(whole), whole, inner.piece, end, be)
            size = [_same_size(facts, s_, f) for s_, f in zip(size, full)]
            box_off = _shifted(be, off, outer_off)
            carriers = _carriers(m, size)
            rest = []
            for u in _other_uses(inner, ins):
                reader = use_owner(u)
                if reader.name == "tensor.collapse_shape" and carriers is not None:
                    read = _read_collapsed(be, acc, box_off, size, full, carriers, reader)
                    if read is not None:
                        reader.result.replace_all_uses_with(read)
                        reader.erase()
                        continue
                rest.append(u)
            if not rest:
                continue
            if m.reshape is not None and carriers is not None:
                # one axis of each group is not a unit: read in the inner tensor's own rank
                # (IREE 3.13 copies a slice it must reshape; a rank-reducing slice it reads in place)
                ext = be.extract_slice(acc, box_off, size, inner.value.type)
            else:
                ext = be.extract_slice(acc, box_off, size)
                if m.reshape is not None:
                    elt = ir.RankedTensorType(ext.type).element_type
                    shape = []
                    for g in m.groups:
                        dims = [ir.RankedTensorType(ext.type).shape[d] for d in g]
                        shape.append(_DYN if _DYN in dims else math.prod(dims))
                    ext = be.collapse_shape(ext, m.groups, ir.RankedTensorType.get(shape, elt))
                    ext = be.tensor_cast(ext, inner.value.type)
            for u in rest:
                use_owner(u).operands[u.operand_number] = ext
    last.result.replace_all_uses_with(acc)
    for ins in reversed(outer.inserts):
        ins.erase()
    for inner in inners:
        if inner is None:
            continue
        if inner.map.reshape is not None:
            _read_sizes_elsewhere(inner.piece, inner.map.reshape, True, facts)
            inner.map.reshape.erase()
        _read_sizes_elsewhere(inner.value, inner.chain.inserts[-1], True, facts)
        for j in reversed(inner.chain.inserts):
            j.erase()
        if not list(inner.chain.base.result.uses):
            inner.chain.base.erase()
    if not list(outer.base.result.uses):
        outer.base.erase()
    return True


def _full_sizes(t: ir.Type, dynamic: list) -> list:
    """The sizes of a tensor of type `t` made by `tensor.empty(dynamic)`."""
    dyn = iter(dynamic)
    return [next(dyn) if s == _DYN else int(s) for s in ir.RankedTensorType(t).shape]


def _same_size(facts: SizeFacts, size: Size, full: Size) -> Size:
    """`full` (the outer tensor's whole axis) where `size` is provably equal to it, else `size`:
    IREE 3.13 reads a slice in place when it sees it spans whole axes, which it judges by the
    SSA value, and copies it otherwise."""
    if isinstance(size, int) or isinstance(full, int):
        return size
    a, b = facts.scalar(size), facts.scalar(full)
    return full if a is not None and facts.equal(a, b) else size


def _carriers(m: AxisMap, size: list) -> list[int] | None:
    """Per inner axis, the outer axis that carries it in the box of sizes `size` (the one of its
    group whose size is not 1; its head when all are 1); None when a group has two."""
    out = []
    for j, g in enumerate(m.groups):
        big = [d for d in g if not (isinstance(size[d], int) and size[d] == 1)]
        if len(big) > 1:
            return None
        out.append(big[0] if big else m.head[j])
    return out


def _read_collapsed(b: OpBuilder, acc: ir.Value, off: list, size: list, full: list,
                    carriers: list[int], collapse: ir.Operation) -> ir.Value | None:
    """`collapse` (a collapse_shape of the inner tensor, which is the box `off`/`size` of `acc`)
    as a slice of `acc` collapsed the same way, or None when the box is not whole along the
    merged axes. IREE 3.13 copies a slice that a reshape reads; a slice a dispatch reads it reads
    in place:

        %k = tensor.extract_slice %acc[1, 0, 0, 0, 0] [1, %b, 2, %n, 64] : tensor<4x?x2x?x64xf32> to tensor<?x2x?x64xf32>
        %r = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<?x2x?x64xf32> into tensor<?x?x64xf32>
      ==>
        %c = tensor.collapse_shape %acc [[0], [1, 2], [3], [4]] : tensor<4x?x2x?x64xf32> into tensor<4x?x?x64xf32>
        %r = tensor.extract_slice %c[1, 0, 0, 0] [1, %2b, %n, 64] : tensor<4x?x?x64xf32> to tensor<?x?x64xf32>
    """
    cgroups = reassociation_groups(collapse)
    owner = {carriers[j]: k for k, group in enumerate(cgroups) for j in group}
    groups: list[list[int]] = []
    for d in range(len(full)):
        if d in owner and groups and groups[-1][-1] in owner and owner[groups[-1][-1]] == owner[d]:
            groups[-1].append(d)
        else:
            groups.append([d])
    merged = [g for g in groups if g[0] in owner]
    if [[carriers[j] for j in group] for group in cgroups] != merged:
        return None   # a unit axis sits inside a merged group, or the order differs
    new_off, new_size, shape, kept = [], [], [], []
    for g in groups:
        rest = g[1:]
        if any(not (isinstance(off[d], int) and off[d] == 0) for d in rest):
            return None
        if any(not (size[d] == full[d] if isinstance(size[d], int) == isinstance(full[d], int) else False)
               for d in rest):
            return None
        stride: Size = 1
        for d in rest:
            stride = b.fold_index("arith.muli", stride, full[d])
        new_off.append(b.fold_index("arith.muli", off[g[0]], stride))
        extent: Size = size[g[0]]
        for d in rest:
            extent = b.fold_index("arith.muli", extent, size[d])
        new_size.append(extent)
        dims = [full[d] for d in g]
        shape.append(math.prod(dims) if all(isinstance(x, int) for x in dims) else _DYN)
        if g[0] in owner:
            kept.append(extent if isinstance(extent, int) else _DYN)
    elt = ir.RankedTensorType(acc.type).element_type
    collapsed = b.collapse_shape(acc, groups, ir.RankedTensorType.get(shape, elt))
    read = b.extract_slice(collapsed, new_off, new_size, ir.RankedTensorType.get(kept, elt))
    return b.tensor_cast(read, collapse.result.type)


def _pairwise_disjoint(inserts: list[ir.Operation]) -> bool:
    """Every two inserts write provably disjoint boxes: along some axis both have static offsets
    and sizes, and the two ranges do not meet."""
    boxes = [slice_parts(i)[:2] for i in inserts]
    for x in range(len(boxes)):
        for y in range(x + 1, len(boxes)):
            (ox, sx), (oy, sy) = boxes[x], boxes[y]
            if not any(all(isinstance(v, int) for v in (ox[d], sx[d], oy[d], sy[d]))
                       and (ox[d] + sx[d] <= oy[d] or oy[d] + sy[d] <= ox[d])
                       for d in range(len(ox))):
                return False
    return True


def flatten_nested_inserts(func: ir.Operation) -> bool:
    """Flattens one outer fill chain of `func` by one level; False when none has inner chains.
    (Each rewrite erases ops, so the caller walks afresh after every one.)"""
    facts = facts_for(func, shared_sizes=True)
    # outermost first: an inner chain flattened on its own would leave its values read by the
    # slices it hands out, and no longer be a chain the outer one can take in
    for op in reversed(walk_ops(func)):
        if op.name == "tensor.insert_slice" and flatten_outer_chain(op, facts):
            return True
    return False


@dataclass(frozen=True)
class FlattenNestedInsertsForIree(Pass):
    """Slices assembled into a tensor that is then inserted whole into another go straight into
    the other one (IREE 3.13 copies each level over `?` sizes)."""

    name = "symhlo-flatten-nested-inserts-for-iree"
    summary = ("insert_slice of a tensor built by insert_slices -> the pieces inserted in place "
               "(stacked KV caches: no copy per nesting level)")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            for op in module.body.operations:
                if op.operation.name != "func.func":
                    continue
                for _ in range(_MAX_REWRITES):
                    if not flatten_nested_inserts(op.operation):
                        break
