"""symhlo-prepare-for-iree: rewrite the pure-StableHLO forms IREE 3.13 rejects into ones it takes.

IREE 3.13 fails on every `stablehlo.dynamic_reshape`, and on `dynamic_broadcast_in_dim` with a
dynamic operand axis unless told which axes expand. The portable artifact stays pure; this pass
runs only on the copy handed to iree-compile.

A dynamic_reshape that the size facts (lib/size_facts.py: each size as an expression over the
arguments' sizes, through get_dimension_size -> multiply -> concatenate -> the shape operand)
prove to only merge and split adjacent axes becomes `tensor.collapse_shape` / `expand_shape`,
which IREE fuses through (`b, s -> b*s`; `s*h -> s, h`; keepdim `?x? -> ?x?x1`); the decision is
never taken from the types (`?x8 -> ?x?x8` is refused unless the rows are proven the product):

    %n = multiply(get_dimension_size %x, 0, get_dimension_size %x, 1)
    %r = stablehlo.dynamic_reshape %x, concatenate(%n, 256) : (tensor<?x?x256xf32>, ...) -> tensor<?x256xf32>
  ==>
    %r = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x256xf32> into tensor<?x256xf32>

Any other dynamic_reshape becomes `tensor.reshape` (IREE cannot fuse across it: 39 dispatches
against 28 on a d=256 GPT layer):

    %r = stablehlo.dynamic_reshape %x, %s : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x4x2xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %y, %t, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x5xf32>
  ==>
    %i = arith.index_cast %s : tensor<3xi64> to tensor<3xindex>
    %r = tensor.reshape %x(%i) : (tensor<?x8xf32>, tensor<3xindex>) -> tensor<?x4x2xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %y, %t, dims = [0, 1],
           known_expanding_dimensions = [1], known_nonexpanding_dimensions = [0] : ...

In a function symhlo exported (it carries `symhlo.symbols` / `symhlo.arg_shapes`), the hints
follow torch's contract: a `?` operand axis maps to an equal-sized result axis (torch.export proved
it), a static 1 under a larger or dynamic result axis expands.

StableHLO from other exporters (jax.export, torch_xla, hand-written) has no such contract: a `?`
operand axis may be 1 at run time and expand. There a `?` axis is marked non-expanding only where
the IR proves its size equal to the result's (lib/size_facts.py: the same `get_dimension_size`
arithmetic, operands of one elementwise op, equalities the recorded shape assertions check), and
a broadcast that only inserts unit axes becomes a `tensor.expand_shape` (IREE's canonicalizer
would merge it into the next broadcast and lose that broadcast's hints):

    %e = stablehlo.dynamic_broadcast_in_dim %m, %s1, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x1xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %e, %s2, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  ==>  (when %s1[0] and %s2[0] are provably the size of %m)
    %e = tensor.expand_shape %m [[0, 1]] output_shape [%d, 1] : tensor<?xf32> into tensor<?x1xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %e, %s2, dims = [0, 1], known_expanding_dimensions = [1],
           known_nonexpanding_dimensions = [0] : ...

A `?` axis whose size the IR does not prove is refused, naming the op: IREE would otherwise
assume it does not expand and compute wrong numbers when it is 1.

Two forms IREE compiles but runs badly are rewritten too: a `dynamic_broadcast_in_dim`'s shape
operand is rebuilt from its size expressions as index arithmetic on the arguments' `tensor.dim`
(IREE otherwise computed the shape tensor on the device and read it back mid-call), and a
`concatenate` with a `?` result dim becomes insert_slices into a `tensor.empty` (IREE lowered
it element by element).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torch_mlir import ir

from .contract_attrs import CONTRACT_ATTRS
from .builder import (OpBuilder, apply_patterns, dot_dimension_numbers, dot_numbers, gather_dimension_numbers,
                      gather_numbers)
from .ir_util import defining_op, enclosing_func, walk_ops, is_dynamic
from .registry import Pass, PassFailure
from .simplify_broadcasts import is_identity_broadcast
from .size_facts import SizeFacts, facts_for, monomial, reassociation


@dataclass(frozen=True)
class ReshapePlan:
    """How one dynamic_reshape is proven a reassociation: (source axes, result axes) per group,
    the result type's sizes with every size the facts prove constant made static, and for each
    `?` result axis the source axis of provably equal size (or None: read the shape operand)."""

    groups: tuple
    src_shape: tuple
    dst_shape: tuple
    same_as_src: tuple
    dst_exprs: tuple = ()   # each result size as a size expression (lib/size_facts.py)


_INDEX_PLUMBING = ("stablehlo.dynamic_broadcast_in_dim", "stablehlo.broadcast_in_dim",
                   "stablehlo.concatenate", "stablehlo.convert", "stablehlo.reshape",
                   "stablehlo.dynamic_reshape", "stablehlo.select", "stablehlo.add",
                   "stablehlo.subtract", "stablehlo.multiply", "stablehlo.clamp")


def _feeds_gather_or_scatter(v: ir.Value, depth: int = 4) -> bool:
    """Whether `v` reaches the operand of a gather, or a scatter's indices or updates, through
    at most `depth` broadcasts / concatenates / elementwise ops."""
    for use in v.uses:
        user = use.owner
        if user.name == "stablehlo.gather" and use.operand_number == 0:
            return True
        if user.name == "stablehlo.scatter" and use.operand_number >= 1:
            return True
        if depth > 0 and user.name in _INDEX_PLUMBING and any(
                _feeds_gather_or_scatter(r, depth - 1) for r in user.results):
            return True
    return False


def plan_stablehlo_dynamic_reshape(op: ir.Operation, facts: SizeFacts) -> ReshapePlan | None:
    """The reassociation that the size facts prove for `op`, or None (not proven, or the reshape
    feeds the operand of a gather, or a scatter's indices or updates: IREE 3.13 fuses the
    collapse/expand_shape with its producers into that dispatch and then sized a stack buffer
    from the unbounded `?` (histc over `?` n: 'exceeded stack allocation limit') or left an
    unrealized_conversion_cast in its LLVM code (`x[:, :, 0][idx]`: a gather from a collapsed
    unit slice); the tensor.reshape keeps them apart)."""
    if _feeds_gather_or_scatter(op.results[0]):
        return None
    x, shape = op.operands
    src_t, dst_t = ir.RankedTensorType(x.type), ir.RankedTensorType(op.results[0].type)
    vec = facts.vector(shape)
    if vec is None or len(vec) != dst_t.rank or src_t.rank == 0 or dst_t.rank == 0:
        return None
    src = [facts.dim(x, i) for i in range(src_t.rank)]
    dst = [int(s) if not is_dynamic(s) else vec[k] for k, s in enumerate(dst_t.shape)]
    groups = reassociation(facts, src, dst)
    if groups is None:
        return None

    def refined(exprs, shape):
        out = []
        for e, s in zip(exprs, shape):
            m = monomial(facts, e)
            out.append(m[0] if m is not None and not m[1] else s)
        return tuple(out)

    src_shape, dst_shape = refined(src, src_t.shape), refined(dst, dst_t.shape)
    same = []
    for k, s in enumerate(dst_shape):
        match = None
        if is_dynamic(s):
            match = next((i for i in range(src_t.rank)
                          if is_dynamic(src_shape[i]) and facts.equal(src[i], dst[k])), None)
        same.append(match)
    return ReshapePlan(tuple((tuple(a), tuple(b)) for a, b in groups), src_shape, dst_shape,
                       tuple(same), tuple(dst))


_ARITH = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli", "div": "arith.divsi",
          "rem": "arith.remsi", "max": "arith.maxsi", "min": "arith.minsi"}
_CMP = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}  # arith.cmpi
_BITWISE = {"and": "arith.andi", "or": "arith.ori", "xor": "arith.xori"}   # on i1 or on index


def materialize_size(expr, args, b: OpBuilder, memo: dict) -> ir.Value | None:
    """A size expression as `index` arithmetic on the function arguments' tensor.dim (host
    scalars IREE folds and hoists), or None when it has an opaque leaf. Reading the size from
    the shape tensor instead (tensor.extract) made IREE 3.13 compute that tensor on the device
    and read it back in the middle of a call."""
    import json

    key = json.dumps(expr)
    if key in memo:
        return memo[key]
    out = None
    if isinstance(expr, int):
        out = b.const_index(expr)
    elif expr[0] == "dim":
        out = b.tensor_dim_op(args[expr[1]], expr[2])
    elif expr[0] in _ARITH or expr[0] in _CMP or expr[0] in _BITWISE or expr[0] == "select":
        parts = [materialize_size(e, args, b, memo) for e in expr[1:]]
        if all(p is not None for p in parts):
            if expr[0] in _ARITH:
                out = b.index_op(_ARITH[expr[0]], *parts)
            elif expr[0] in _BITWISE:
                out = b.value(_BITWISE[expr[0]], [parts[0].type], parts) \
                    if parts[0].type == parts[1].type else None
            elif expr[0] in _CMP:
                out = b.cmpi(_CMP[expr[0]], *parts)
            else:
                c = parts[0]
                if not isinstance(c.type, ir.IntegerType) or ir.IntegerType(c.type).width != 1:
                    c = b.cmpi("ne", c, b.const_index(0))
                out = b.arith_select(c, parts[1], parts[2])
    memo[key] = out
    return out


class EntrySizes:
    """Size expressions materialized (materialize_size) at the entry of the function that uses
    them, one builder and memo per function: every use in the function shares one value."""

    def __init__(self):
        self._entry: dict[str, tuple] = {}

    def value(self, expr, at: ir.Operation) -> ir.Value | None:
        """`expr` built at the entry of `at`'s function, None when it has an opaque leaf."""
        func = enclosing_func(at)
        name = str(func.attributes["sym_name"])
        if name not in self._entry:
            block = func.regions[0].blocks[0]
            self._entry[name] = (OpBuilder(ip=ir.InsertionPoint.at_block_begin(block),
                                           loc=at.location), list(block.arguments), {})
        b, args, memo = self._entry[name]
        return materialize_size(expr, args, b, memo)


def rebuild_shape_operand(op: ir.Operation, exprs: list) -> bool:
    """Replaces a broadcast's shape operand by `tensor.from_elements` of its sizes computed on
    index scalars (materialize_size), when every size is expressible. IREE reads an expanding
    axis's size from the shape tensor; built from StableHLO ops on 0-d tensors it was computed
    on the device and read back mid-call (a host-device sync per decode step)."""
    elt = ir.RankedTensorType(op.operands[1].type).element_type
    b = OpBuilder(op)
    args, memo = _func_args(op), {}
    values = []
    for e in exprs:
        v = materialize_size(e, args, b, memo)
        if v is None or not isinstance(v.type, ir.IndexType):
            return False
        values.append(v)
    op.operands[1] = b.tensor_from_elements([b.index_cast(v, elt) for v in values], elt)
    return True


def _func_args(op: ir.Operation) -> list:
    func = enclosing_func(op)
    return list(func.regions[0].blocks[0].arguments) if func is not None else []


def convert_stablehlo_dynamic_reshape_reassociation(op: ir.Operation, plan: ReshapePlan) -> None:
    """stablehlo.dynamic_reshape whose size facts prove it merges/splits adjacent axes ->
    tensor.collapse_shape and/or tensor.expand_shape (IREE fuses these; it cannot see through
    tensor.reshape).

        %s = concatenate [dim(%x, 0) * dim(%x, 1), 256]
        %r = stablehlo.dynamic_reshape %x, %s : (tensor<?x?x256xf32>, tensor<2xi64>) -> tensor<?x256xf32>
      ==>
        %r = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x256xf32> into tensor<?x256xf32>

        %s = concatenate [dim(%y, 0), dim(%y, 1), 4, 64]
        %r = stablehlo.dynamic_reshape %y, %s : (tensor<?x?x256xf32>, tensor<4xi64>) -> tensor<?x?x4x64xf32>
      ==>
        %r = tensor.expand_shape %y [[0], [1], [2, 3]] output_shape [%d0, %d1, 4, 64] : ...

    A `?` result size is `tensor.dim` of the source axis it provably equals, else its size
    expression computed on index scalars from the arguments' sizes (else read from the shape
    operand). Sizes the facts prove constant become static (with tensor.cast at the ends).
    """
    b = OpBuilder(op)
    x, shape = op.operands
    src_t = ir.RankedTensorType(x.type)
    result_t = ir.RankedTensorType(op.results[0].type)
    elt = src_t.element_type
    dyn = ir.ShapedType.get_dynamic_size()

    def cast(v: ir.Value, shape) -> ir.Value:
        return b.tensor_cast(v, ir.RankedTensorType.get(list(shape), elt))

    args, memo = _func_args(op), {}

    def dst_size(k: int) -> ir.Value:
        i = plan.same_as_src[k]
        if i is not None:
            return b.tensor_dim_op(x, i)
        if plan.dst_exprs:
            v = materialize_size(plan.dst_exprs[k], args, b, memo)
            if v is not None and isinstance(v.type, ir.IndexType):
                return v
        return b.index_cast(b.tensor_extract(shape, [b.const_index(k)]))

    v = cast(x, plan.src_shape)
    src_groups = [g[0] for g in plan.groups]
    dst_groups = [g[1] for g in plan.groups]
    if any(len(g) > 1 for g in src_groups):
        mid = []
        for g in src_groups:
            sizes = [plan.src_shape[i] for i in g]
            mid.append(dyn if any(is_dynamic(s) for s in sizes) else math.prod(sizes))
        v = b.collapse_shape(v, src_groups, ir.RankedTensorType.get(mid, elt))
    if any(len(g) > 1 for g in dst_groups):
        sizes = [dst_size(k) for k, s in enumerate(plan.dst_shape) if is_dynamic(s)]
        v = b.expand_shape(v, dst_groups, ir.RankedTensorType.get(list(plan.dst_shape), elt), sizes)
    v = cast(v, result_t.shape)
    op.results[0].replace_all_uses_with(v)
    op.erase()


def convert_stablehlo_concatenate(op: ir.Operation) -> bool:
    """stablehlo.concatenate with a `?` result dim -> tensor.empty + one tensor.insert_slice per
    operand. IREE 3.13 lowers a dynamic-shape concatenate to one generic over the flattened
    result that selects the operand element by element (scalar loads behind nested scf.if):
    the KV-cache append of a decode step took ~1 ms per layer that way. Static concatenates
    and padding by a broadcast constant are left to IREE.

        %r = stablehlo.concatenate %a, %b, dim = 2 : (tensor<?x2x?x64xf32>, tensor<?x2x1x64xf32>) -> tensor<?x2x?x64xf32>
      ==>
        %e = tensor.empty(%n, %la + 1) : tensor<?x2x?x64xf32>
        %0 = tensor.insert_slice %a into %e[0, 0, 0, 0] [%n, 2, %la, 64] [1, 1, 1, 1]
        %r = tensor.insert_slice %b into %0[0, 0, %la, 0] [%n, 2, 1, 64] [1, 1, 1, 1]
    """
    result_t = ir.RankedTensorType(op.results[0].type)
    if result_t.has_static_shape or len(op.operands) < 2 or result_t.rank == 0:
        return False
    for v in op.operands:
        src = defining_op(v)
        if (src is not None and src.name == "stablehlo.dynamic_broadcast_in_dim"
                and ir.RankedTensorType(src.operands[0].type).rank == 0):
            # Padding by a broadcast constant (ceil_mode pooling's edge): as insert_slices IREE
            # fused it into the pooling dispatch with an unbounded stack allocation
            # (EfficientNet); IREE's own lowering of this form compiles.
            return False
    axis = ir.IntegerAttr(op.attributes["dimension"]).value
    if all(v == op.operands[0] for v in op.operands):
        return concatenate_of_one_value_as_broadcast(op, axis)
    b = OpBuilder(op)

    def dim(v: ir.Value, d: int):
        size = ir.RankedTensorType(v.type).shape[d]
        if not is_dynamic(size):
            return int(size)
        return b.tensor_dim_op(v, d)

    def add(x, y):
        if isinstance(x, int) and isinstance(y, int):
            return x + y
        if isinstance(x, int) and x == 0:
            return y
        x = b.const_index(x) if isinstance(x, int) else x
        y = b.const_index(y) if isinstance(y, int) else y
        return b.index_op("arith.addi", x, y)

    first = op.operands[0]
    total = 0
    lengths = []
    for v in op.operands:
        lengths.append(dim(v, axis))
        total = add(total, lengths[-1])
    dyn_sizes = []
    for d, size in enumerate(result_t.shape):
        if is_dynamic(size):
            v = total if d == axis else dim(first, d)
            dyn_sizes.append(b.const_index(v) if isinstance(v, int) else v)
    acc = b.tensor_empty(result_t, dyn_sizes)
    offset = 0
    for k, (v, length) in enumerate(zip(op.operands, lengths)):
        offs = [0] * result_t.rank
        offs[axis] = offset
        part = [dim(v, d) for d in range(ir.RankedTensorType(v.type).rank)]
        part[axis] = length
        acc = b.insert_slice(v, acc, offs, part)
        if k + 1 < len(lengths):
            offset = add(offset, length)
    op.results[0].replace_all_uses_with(acc)
    op.erase()
    return True


def concatenate_of_one_value_as_broadcast(op: ir.Operation, axis: int) -> bool:
    """A dynamic-shape stablehlo.concatenate of n copies of one value (rotary embeddings'
    `cat((freqs, freqs), -1)`) -> a broadcast over a new axis of n before `axis`, collapsed into
    it. As insert_slices each copy was a memcpy dispatch of its own; a broadcast and a collapse
    fuse into the reader (a Llama's cosine and sine tables: 5 -> 3 dispatches per call).

        %r = stablehlo.concatenate %x, %x, dim = 2 : (tensor<1x?x32xf32>, tensor<1x?x32xf32>) -> tensor<1x?x64xf32>
      ==>
        %b = linalg.generic ins(%x : (d0, d1, d2, d3) -> (d0, d1, d3)) : tensor<1x?x2x32xf32>
        %r = tensor.collapse_shape %b [[0], [1], [2, 3]] : tensor<1x?x2x32xf32> into tensor<1x?x64xf32>
    """
    x = op.operands[0]
    x_t = ir.RankedTensorType(x.type)
    n = len(op.operands)
    b = OpBuilder(op)
    shape = list(x_t.shape)
    wide_t = ir.RankedTensorType.get(shape[:axis] + [n] + shape[axis:], x_t.element_type)
    out = b.tensor_empty(wide_t, [b.tensor_dim_op(x, d) for d, size in enumerate(shape)
                                  if is_dynamic(size)])
    rank = wide_t.rank
    read = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d if d < axis else d + 1)
                                      for d in range(x_t.rank)])
    wide, body, args = b.parallel_generic(out, [x], [read])
    body.create("linalg.yield", [], [args[0]])
    groups = [[d] for d in range(axis)] + [[axis, axis + 1]] + [[d + 1] for d in range(axis + 1, x_t.rank)]
    length = shape[axis]
    wide_len = ir.ShapedType.get_dynamic_size() if is_dynamic(length) else n * length
    collapsed_t = ir.RankedTensorType.get(shape[:axis] + [wide_len] + shape[axis + 1:],
                                          x_t.element_type)
    r = b.collapse_shape(wide, groups, collapsed_t)
    if collapsed_t != op.results[0].type:   # a result type less (or more) refined than x's
        r = b.value("tensor.cast", [op.results[0].type], [r])
    op.results[0].replace_all_uses_with(r)
    op.erase()
    return True


def convert_stablehlo_dynamic_reshape(op: ir.Operation) -> None:
    """stablehlo.dynamic_reshape -> tensor.reshape with a from_elements shape of index extents
    (the general form, for reshapes the size facts do not prove to be reassociations).

    Static result axes become index constants and dynamic ones are extracted from the shape
    operand, so IREE sees the sizes as scalars (an index tensor would cross a dispatch boundary).
    """
    b = OpBuilder(op)
    x, shape = op.operands
    result_t = ir.RankedTensorType(op.results[0].type)
    src_rank = ir.RankedTensorType(x.type).rank
    if result_t.rank == 1 and src_rank >= 1:
        # Flattening to rank 1 is always the full collapse: no extents needed, and IREE folds it
        # (a 1-element index shape tensor would cross a dispatch boundary instead).
        new = b.collapse_shape(x, [range(src_rank)], result_t)
        op.results[0].replace_all_uses_with(new)
        op.erase()
        return
    extents = []
    for i, size in enumerate(result_t.shape):
        if is_dynamic(size):
            elt = b.tensor_extract(shape, [b.const_index(i)])
            if not isinstance(elt.type, ir.IndexType):
                elt = b.index_cast(elt)
        else:
            elt = b.const_index(size)
        extents.append(elt)
    new = b.tensor_reshape(x, b.tensor_from_elements(extents, ir.IndexType.get()), result_t)
    op.results[0].replace_all_uses_with(new)
    op.erase()


def annotate_stablehlo_dynamic_broadcast_in_dim(op: ir.Operation) -> None:
    """stablehlo.dynamic_broadcast_in_dim -> the same with known_(non)expanding_dimensions."""
    src = ir.RankedTensorType(op.operands[0].type)
    dst = ir.RankedTensorType(op.results[0].type)
    dims = [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])]
    expanding, nonexpanding = [], []
    for i, d in enumerate(dims):
        s, r = src.shape[i], dst.shape[d]
        if is_dynamic(s) or (s == r):
            nonexpanding.append(i)
        elif s == 1:
            expanding.append(i)
    op.attributes["known_expanding_dimensions"] = ir.DenseI64ArrayAttr.get(expanding)
    op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(nonexpanding)


@dataclass(frozen=True)
class PrepareForIree(Pass):
    """Rewrite dynamic_reshape and unhinted dynamic broadcasts into forms IREE 3.13 compiles."""

    name = "symhlo-prepare-for-iree"
    summary = ("dynamic_reshape -> collapse/expand_shape where the size facts prove it, else "
               "tensor.reshape; broadcast expansion hints from torch's contract")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            funcs = [op.operation for op in module.body.operations
                     if op.operation.name == "func.func"]
            # Decide every reshape and broadcast before any rewrite changes the IR. Plans are
            # kept by position in one snapshot of each function's ops: an ir.Operation's hash
            # changes when a rewrite replaces one of its operands.
            work = []
            diags = []
            for f in funcs:
                foreign = not any(a in f.attributes for a in CONTRACT_ATTRS)
                ops = walk_ops(f)
                plans: list = [None] * len(ops)
                shapes: list = [None] * len(ops)   # a broadcast's output sizes, as expressions
                if foreign or any(op.name in ("stablehlo.dynamic_reshape",
                                              "stablehlo.dynamic_broadcast_in_dim") for op in ops):
                    facts = _all_facts(f)
                    for k, op in enumerate(ops):
                        if op.name == "stablehlo.dynamic_broadcast_in_dim":
                            shapes[k] = facts.vector(op.operands[1])
                        if op.name == "stablehlo.dynamic_reshape":
                            plans[k] = plan_stablehlo_dynamic_reshape(op, facts)
                        elif op.name == "stablehlo.dynamic_broadcast_in_dim" and foreign:
                            plan = plan_foreign_broadcast(op, facts)
                            if isinstance(plan, str):
                                diags.append((str(op.location), plan))
                            else:
                                plans[k] = plan
                    del facts
                work.append((foreign, ops, plans, shapes))
            if diags:
                raise PassFailure(f"{len(diags)} broadcast(s) of `?` axes that may expand", diags)
            # Not builder.apply_patterns: each rewrite reads its op's plan by position in the
            # planning snapshot, and planned and unplanned ops are rewritten in one pre-order.
            for foreign, ops, plans, shapes in work:
                for op, plan, shape in zip(ops, plans, shapes):
                    if op.name == "stablehlo.dynamic_reshape":
                        if plan is not None:
                            convert_stablehlo_dynamic_reshape_reassociation(op, plan)
                        else:
                            convert_stablehlo_dynamic_reshape(op)
                    elif op.name == "stablehlo.concatenate":
                        convert_stablehlo_concatenate(op)
                    elif op.name == "stablehlo.dynamic_pad":
                        convert_stablehlo_dynamic_pad(op)
                    elif op.name == "stablehlo.gather":
                        convert_stablehlo_gather_unit_index_vector(op)
                    elif op.name == "stablehlo.dot_general":
                        if not convert_stablehlo_dot_general_unit_contraction(op) and foreign:
                            convert_stablehlo_dot_general_flatten(op)
                    elif op.name == "stablehlo.dynamic_broadcast_in_dim":
                        if plan is not None and plan[0] != "hints":
                            apply_foreign_broadcast(op, plan)
                            continue
                        if plan is not None:
                            apply_foreign_broadcast(op, plan)
                        elif is_identity_broadcast(op):
                            op.results[0].replace_all_uses_with(op.operands[0])
                            op.erase()
                            continue
                        else:
                            annotate_stablehlo_dynamic_broadcast_in_dim(op)
                        if shape is not None:
                            rebuild_shape_operand(op, shape)
            # After every broadcast is hinted: compose hinted chains (IREE's own composition
            # drops the hints).
            for f in funcs:
                apply_patterns(f, {"stablehlo.dynamic_broadcast_in_dim":
                                   convert_stablehlo_chained_dynamic_broadcast,
                                   "stablehlo.add": convert_stablehlo_add_of_bools})


def convert_stablehlo_add_of_bools(op: ir.Operation) -> bool:
    """stablehlo.add of i1 tensors (StableHLO: logical or; torch's bool + bool) -> stablehlo.or.

      %r = stablehlo.add %a, %b : tensor<?x5xi1>  ==>  %r = stablehlo.or %a, %b : tensor<?x5xi1>

    IREE 3.13 lowers an i1 add to arith.addi, which wraps: True + True came back False.
    """
    t = op.results[0].type
    if not isinstance(t, ir.ShapedType) or str(ir.ShapedType(t).element_type) != "i1":
        return False
    new = OpBuilder(op).value("stablehlo.or", [t], list(op.operands))
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


def convert_stablehlo_chained_dynamic_broadcast(op: ir.Operation) -> bool:
    """A hinted dynamic_broadcast_in_dim of a hinted dynamic_broadcast_in_dim -> one broadcast
    of the inner operand, hinted. IREE 3.13 composes such chains itself and drops both ops'
    known_(non)expanding_dimensions, and then fails to legalize the unhinted broadcast of a
    static 1 to a `?` axis (T5's decoder mask: a 1x1x?x? mask broadcast to the batch, then to
    the heads):

        %m = stablehlo.dynamic_broadcast_in_dim %x, %s0, dims = [0, 1, 2, 3]
               {known_expanding_dimensions = [0], known_nonexpanding_dimensions = [1, 2, 3]}
               : (tensor<1x1x?x?xi1>, tensor<4xi64>) -> tensor<?x1x?x?xi1>
        %r = stablehlo.dynamic_broadcast_in_dim %m, %s1, dims = [0, 1, 2, 3]
               {known_expanding_dimensions = [1], known_nonexpanding_dimensions = [0, 2, 3]}
               : (tensor<?x1x?x?xi1>, tensor<4xi64>) -> tensor<?x4x?x?xi1>
      ==>
        %r = stablehlo.dynamic_broadcast_in_dim %x, %s1, dims = [0, 1, 2, 3]
               {known_expanding_dimensions = [0, 1], known_nonexpanding_dimensions = [2, 3]}

    An axis expands if either broadcast expands it and is nonexpanding if both leave it; the
    chain is composed only where every axis is decided that way."""
    inner = defining_op(op.operands[0])
    hints = ("known_expanding_dimensions", "known_nonexpanding_dimensions")
    if inner is None or inner.name != "stablehlo.dynamic_broadcast_in_dim" or not all(
            h in o.attributes for h in hints for o in (op, inner)):
        return False

    def ints(o, name):
        return [int(x) for x in ir.DenseI64ArrayAttr(o.attributes[name])]

    in_dims, out_dims = ints(inner, "broadcast_dimensions"), ints(op, "broadcast_dimensions")
    in_exp, in_non = set(ints(inner, hints[0])), set(ints(inner, hints[1]))
    out_exp, out_non = set(ints(op, hints[0])), set(ints(op, hints[1]))
    expanding, nonexpanding = [], []
    for i, j in enumerate(in_dims):
        if i in in_exp or j in out_exp:
            expanding.append(i)
        elif i in in_non and j in out_non:
            nonexpanding.append(i)
        else:
            return False
    arr = ir.DenseI64ArrayAttr.get
    new = OpBuilder(op).value(
        "stablehlo.dynamic_broadcast_in_dim", [op.results[0].type],
        [inner.operands[0], op.operands[1]],
        {"broadcast_dimensions": arr([out_dims[j] for j in in_dims]),
         hints[0]: arr(expanding), hints[1]: arr(nonexpanding)})
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


def _all_facts(func: ir.Operation) -> SizeFacts:
    """Size facts of `func` with every `?` size computed (so every elementwise equality is known)."""
    facts = facts_for(func)
    for op in walk_ops(func):
        for r in op.results:
            if isinstance(r.type, ir.RankedTensorType):
                for axis, size in enumerate(ir.RankedTensorType(r.type).shape):
                    if is_dynamic(size):
                        facts.dim(r, axis)
    return facts


def plan_foreign_broadcast(op: ir.Operation, facts: SizeFacts):
    """(kind, expanding, nonexpanding) for a broadcast in a function without symhlo's contract,
    where kind is "identity", "expand_shape" or "hints"; or an error message (a `?` operand axis
    the IR does not prove equal to its result axis)."""
    src = ir.RankedTensorType(op.operands[0].type)
    dst = ir.RankedTensorType(op.results[0].type)
    dims = [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])]
    out = facts.vector(op.operands[1])
    expanding, nonexpanding = [], []
    for i, d in enumerate(dims):
        s, r = src.shape[i], dst.shape[d]
        if not is_dynamic(s):
            if s == r:
                nonexpanding.append(i)
            elif s == 1:
                expanding.append(i)
            continue
        want = out[d] if out is not None else None
        if not is_dynamic(r):
            want = r if want is None else want
        have = facts.dim(op.operands[0], i)
        if want is not None and facts.equal(have, want):
            nonexpanding.append(i)
        elif r == 1:
            nonexpanding.append(i)  # a `?` under a static 1 must be 1: nothing expands
        else:
            return (f"operand axis {i} is `?` and may be 1 at run time, expanding to result axis "
                    f"{d}; the IR does not prove its size equal to the result's, and StableHLO "
                    "from other exporters carries no contract saying it never expands")
    if not expanding and len(nonexpanding) == src.rank:
        if dims == list(range(dst.rank)):
            return ("identity", [], nonexpanding)
        extra = [d for d in range(dst.rank) if d not in dims]
        if dims == sorted(dims) and all(dst.shape[d] == 1 for d in extra):
            return ("expand_shape", [], nonexpanding)
    return ("hints", expanding, nonexpanding)


def apply_foreign_broadcast(op: ir.Operation, plan) -> None:
    """Rewrites one planned broadcast (see plan_foreign_broadcast)."""
    kind, expanding, nonexpanding = plan
    x = op.operands[0]
    dst = ir.RankedTensorType(op.results[0].type)
    b = OpBuilder(op)
    if kind == "hints":
        op.attributes["known_expanding_dimensions"] = ir.DenseI64ArrayAttr.get(expanding)
        op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(nonexpanding)
        return
    if kind == "identity":
        new = b.tensor_cast(x, dst)
    else:
        dims = [int(v) for v in ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])]
        groups: list[list[int]] = [[] for _ in dims]
        for r in range(dst.rank):  # a unit axis joins the mapped axis before it (or the first)
            before = [k for k, d in enumerate(dims) if d <= r]
            groups[before[-1] if before else 0].append(r)
        sizes = [b.tensor_dim_op(x, i) for i, d in enumerate(dims) if is_dynamic(dst.shape[d])]
        new = b.expand_shape(x, groups, dst, sizes)
    op.results[0].replace_all_uses_with(new)
    op.erase()


def convert_stablehlo_dynamic_pad(op: ir.Operation) -> bool:
    """stablehlo.dynamic_pad -> [stablehlo.pad for interior] + tensor.pad + tensor.extract_slice.

    Edge amounts may be negative (StableHLO crops then): the pad uses max(a, 0) and the slice
    drops max(-a, 0). Returns False (op left) when the interior amounts are not constants.
    """
    x, value, low, high, interior = op.operands
    facts = SizeFacts(enclosing_func(op))

    def _constant_ints(v):
        vec = facts.vector(v)
        return vec if vec is not None and all(isinstance(e, int) for e in vec) else None

    inner = _constant_ints(interior)
    if inner is None:
        return False
    b = OpBuilder(op)
    x_t = ir.RankedTensorType(x.type)
    result_t = ir.RankedTensorType(op.results[0].type)
    rank, dyn = x_t.rank, ir.ShapedType.get_dynamic_size()
    if any(inner):
        x = b.hlo_pad(x, value, [0] * rank, [0] * rank, inner)
        x_t = ir.RankedTensorType(x.type)
    lo_c, hi_c = facts.vector(low), facts.vector(high)  # per axis: an int where constant
    zero = b.const_index(0)

    def split(vec, consts, d):
        """(pad amount: int or index, crop amount: int or index) of axis d."""
        if consts is not None and isinstance(consts[d], int):
            return max(consts[d], 0), max(-consts[d], 0)
        a = b.extract_index(vec, d)
        neg = b.index_op("arith.subi", zero, a)
        return b.index_op("arith.maxsi", a, zero), b.index_op("arith.maxsi", neg, zero)

    amounts = [(split(low, lo_c, d), split(high, hi_c, d)) for d in range(rank)]
    static_low = [lo[0] if isinstance(lo[0], int) else dyn for lo, _ in amounts]
    static_high = [hi[0] if isinstance(hi[0], int) else dyn for _, hi in amounts]
    pad_shape = [s + sl + sh if not is_dynamic(s) and sl != dyn and sh != dyn else dyn
                 for s, sl, sh in zip(x_t.shape, static_low, static_high)]
    padded_t = ir.RankedTensorType.get(pad_shape, x_t.element_type)
    new = b.tensor_pad(x, [lo[0] for lo, _ in amounts], [hi[0] for _, hi in amounts],
                       b.tensor_extract(value), padded_t)
    crops = [(lo[1], hi[1]) for lo, hi in amounts]
    if any(not (isinstance(c, int) and c == 0) or not (isinstance(e, int) and e == 0) for c, e in crops):
        offsets, sizes = [], []
        for d, (clo, chi) in enumerate(crops):
            if isinstance(clo, int) and isinstance(chi, int) and not is_dynamic(pad_shape[d]):
                offsets.append(clo)
                sizes.append(pad_shape[d] - clo - chi)
                continue
            n = b.tensor_dim_op(new, d)
            lo_v = clo if not isinstance(clo, int) else b.const_index(clo)
            hi_v = chi if not isinstance(chi, int) else b.const_index(chi)
            n = b.index_op("arith.subi", n, lo_v)
            n = b.index_op("arith.subi", n, hi_v)
            offsets.append(lo_v)
            sizes.append(n)
        new = b.extract_slice(new, offsets, sizes)
    new = b.tensor_cast(new, result_t)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


def convert_stablehlo_gather_unit_index_vector(op: ir.Operation) -> bool:
    """stablehlo.gather whose indices end in an index vector of one (`?x1`, index_vector_dim =
    last) -> the same gather on the indices without that axis (implicit index vector).

    IREE 3.13 reshapes `?x1` gather indices with a `stablehlo.reshape` that must be static.
    """

    x, idx = op.operands
    idx_t = ir.RankedTensorType(idx.type)
    dn = gather_dimension_numbers(op.attributes["dimension_numbers"])
    ivd = dn["index_vector_dim"]
    if (idx_t.rank < 2 or ivd != idx_t.rank - 1 or idx_t.shape[ivd] != 1
            or not any(is_dynamic(s) for s in idx_t.shape) or dn["operand_batching_dims"]):
        return False
    groups = [[d] for d in range(idx_t.rank - 1)]
    groups[-1].append(idx_t.rank - 1)
    flat_t = ir.RankedTensorType.get(list(idx_t.shape[:-1]), idx_t.element_type)
    flat = OpBuilder(op).collapse_shape(idx, groups, flat_t)
    op.attributes["dimension_numbers"] = gather_numbers(
        dn["offset_dims"], dn["collapsed_slice_dims"], dn["start_index_map"], idx_t.rank - 1,
        dn["operand_batching_dims"], dn["start_indices_batching_dims"])
    op.operands[1] = flat
    return True


def convert_stablehlo_dot_general_flatten(op: ir.Operation) -> bool:
    """dot_general (..., K) x (K, N) without batching, lhs rank > 2 -> tensor.collapse_shape to
    2-D, a 2-D dot_general, tensor.expand_shape back (IREE 3.13 flattens it with a
    dynamic_reshape it cannot compile)."""
    lhs, rhs = op.operands
    lt, rt = ir.RankedTensorType(lhs.type), ir.RankedTensorType(rhs.type)
    nums = dot_dimension_numbers(op)
    if (nums["lhs_batching_dimensions"] or lt.rank <= 2 or rt.rank != 2
            or nums["lhs_contracting_dimensions"] != [lt.rank - 1]
            or nums["rhs_contracting_dimensions"] != [0]
            or not any(is_dynamic(s) for s in lt.shape[:-1])):
        return False
    b = OpBuilder(op)
    result_t = ir.RankedTensorType(op.results[0].type)
    dyn = ir.ShapedType.get_dynamic_size()
    groups = [range(lt.rank - 1), [lt.rank - 1]]  # rows merged, last axis kept
    flat = b.collapse_shape(lhs, groups, ir.RankedTensorType.get([dyn, lt.shape[-1]], lt.element_type))
    dot2_t = ir.RankedTensorType.get([dyn, result_t.shape[-1]], result_t.element_type)
    dot2 = b.hlo_dot_general(flat, rhs, dot2_t, dot_numbers([1], [0]), like=op)
    sizes = [b.tensor_dim_op(lhs, d) for d in range(lt.rank - 1) if is_dynamic(result_t.shape[d])]
    new = b.expand_shape(dot2, groups, result_t, sizes)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


def convert_stablehlo_dot_general_unit_contraction(op: ir.Operation) -> bool:
    """dot_general whose contracting dims are all static 1s, with a `?` dim -> broadcast multiply.

    IREE 3.13 turns such a dot_general (`bmm` of ?x1x1 by ?x1x16: LeViT's and MobileViT's
    attention over one position) into a dynamic_reshape it then fails to legalize. With K = 1
    the product is exact without a reduction over K longer than one element:

        %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1]
               : (tensor<?x1x1xf32>, tensor<?x1x16xf32>) -> tensor<?x1x16xf32>
      ==>
        %a' = dynamic_broadcast_in_dim %a, [n, 1, 16, 1], dims = [0, 1, 3]    (batch, M, N, K)
        %b' = dynamic_broadcast_in_dim %b, [n, 1, 16, 1], dims = [0, 3, 2]
        %r  = reduce(add) (multiply %a', %b') over [3]    : tensor<?x1x16xf32>

    Returns False (nothing changed) for any other dot_general, or mixed element types.
    """
    from torch_mlir._mlir_libs._stablehlo import DotDimensionNumbers

    lhs, rhs = op.operands
    lt, rt = ir.RankedTensorType(lhs.type), ir.RankedTensorType(rhs.type)
    result_t = ir.RankedTensorType(op.results[0].type)
    dn = DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    lb, rb = list(dn.lhs_batching_dimensions), list(dn.rhs_batching_dimensions)
    lc, rc = list(dn.lhs_contracting_dimensions), list(dn.rhs_contracting_dimensions)
    if (not lc or any(lt.shape[d] != 1 for d in lc) or any(rt.shape[d] != 1 for d in rc)
            or not any(is_dynamic(x) for x in list(lt.shape) + list(rt.shape))
            or not (lt.element_type == rt.element_type == result_t.element_type)):
        return False
    lf = [d for d in range(lt.rank) if d not in lb and d not in lc]
    rf = [d for d in range(rt.rank) if d not in rb and d not in rc]
    nb, nl, nr, nk = len(lb), len(lf), len(rf), len(lc)
    # the product's axes: batch, lhs free, rhs free, contracting (all 1s)
    lmap = {**{d: i for i, d in enumerate(lb)}, **{d: nb + j for j, d in enumerate(lf)},
            **{d: nb + nl + nr + c for c, d in enumerate(lc)}}
    rmap = {**{d: i for i, d in enumerate(rb)}, **{d: nb + nl + j for j, d in enumerate(rf)},
            **{d: nb + nl + nr + c for c, d in enumerate(rc)}}
    sources = [(lhs, d) for d in lb] + [(lhs, d) for d in lf] + [(rhs, d) for d in rf]
    prod_shape = [(lt if v is lhs else rt).shape[d] for v, d in sources] + [1] * nk
    elt = result_t.element_type
    prod_t = ir.RankedTensorType.get(prod_shape, elt)
    b = OpBuilder(op)
    i64 = ir.IntegerType.get_signless(64)
    parts = [b.hlo_dim(v, d) for v, d in sources]
    parts.append(b.hlo_const([1] * nk, i64))
    shape = b.hlo_concat(parts)

    def broadcast(v: ir.Value, mapping: dict) -> ir.Value:
        dims = [mapping[d] for d in range(ir.RankedTensorType(v.type).rank)]
        out = b.hlo_broadcast_in_dim(v, prod_t, dims, shape)
        annotate_stablehlo_dynamic_broadcast_in_dim(defining_op(out))
        return out

    product = b.hlo_binary("multiply", broadcast(lhs, lmap), broadcast(rhs, rmap))
    zero = b.hlo_scalar(0, elt)
    red = b.hlo_reduce(product, zero, range(nb + nl + nr, len(prod_shape)), result_t)
    op.results[0].replace_all_uses_with(red)
    op.erase()
    return True
