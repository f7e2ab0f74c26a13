"""symhlo-sink-transposes-for-iree: layout transposes moved below the elementwise ops that follow
them, where they meet their inverse and cancel.

A convolution over `?` spatial dims is lowered channels-last (symhlo-lower-dynamic-windows-for-iree:
im2col or blocked direct), so each one of torch's NCHW convolutions ends in a transpose back to
NCHW and the next one starts with the transpose to NHWC. Between them run the batch norm, the
ReLU and the residual add, per channel, in NCHW: IREE 3.13 gives them a dispatch of their own
that writes the whole activation transposed (ResNet-18 H/W dynamic at batch 1: 8 such
`elementwise_transpose` dispatches, 2.5 of the 29 ms), and the next convolution transposes it
back. Moved below those ops, the two transposes meet and fold away, and the ops run in the
convolution's own layout (they fuse into its matmul's epilogue):

    %t = stablehlo.transpose %y, dims = [0, 3, 1, 2] : (tensor<?x?x?x64xf32>) -> tensor<?x64x?x?xf32>
    %s = stablehlo.dynamic_broadcast_in_dim %scale, %shape, dims = [1, 2, 3] : (tensor<64x1x1xf32>, tensor<4xi64>) -> tensor<?x64x?x?xf32>
    %m = stablehlo.multiply %t, %s : tensor<?x64x?x?xf32>
    %r = stablehlo.maximum %m, %zero : tensor<?x64x?x?xf32>
    %n = stablehlo.transpose %r, dims = [0, 2, 3, 1] : (tensor<?x64x?x?xf32>) -> tensor<?x?x?x64xf32>
  ==>
    %c = stablehlo.transpose %scale, dims = [1, 2, 0] : (tensor<64x1x1xf32>) -> tensor<1x1x64xf32>
    %s = stablehlo.dynamic_broadcast_in_dim %c, (the sizes of %y), dims = [1, 2, 3] : ... -> tensor<?x?x?x64xf32>
    %m = stablehlo.multiply %y, %s : tensor<?x?x?x64xf32>
    %n = stablehlo.maximum %m, %zero' : tensor<?x?x?x64xf32>

Which transposes move: per block and permutation, the transposes of non-constant tensors and the
elementwise ops (and pads and same-rank `tensor.extract_slice`s: a GLU's two channel halves)
they reach form components: an op joins when one of its operands is
in a component and the others are broadcasts, constants, rank-0 values or (one new transpose
each) anything else. A component is rewritten only when that leaves fewer transposes than it
had: each value of it read by an op outside it costs one transpose, except reads that fold
(a transpose composing to the identity, a reduce, a size read). So a transformer's head
transposes, read by a dot_general, stay where they are.

After the rewrite: `transpose(transpose(x))` composes (the identity: `x`), size reads of a
transpose read its operand, and a reduce of a transpose reduces the operand (a global average
pool over NHWC then reduces the outer axes, 16 channels wide, where over NCHW's `?` inner axes
IREE's reduction ran one row at a time). Runs on the copy for IREE only.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .ir_util import defining_op, inverse_perm, remove_dead_ops, transpose_perm, use_owner, walk_ops
from .registry import Pass

# ops whose result element i reads element i of each operand (all of one shape)
_ELEMENTWISE = {
    "stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide",
    "stablehlo.maximum", "stablehlo.minimum", "stablehlo.power", "stablehlo.remainder",
    "stablehlo.atan2", "stablehlo.and", "stablehlo.or", "stablehlo.xor", "stablehlo.compare",
    "stablehlo.select", "stablehlo.clamp", "stablehlo.convert", "stablehlo.negate", "stablehlo.abs",
    "stablehlo.exponential", "stablehlo.exponential_minus_one", "stablehlo.log",
    "stablehlo.log_plus_one", "stablehlo.logistic", "stablehlo.tanh", "stablehlo.sqrt",
    "stablehlo.rsqrt", "stablehlo.cbrt", "stablehlo.sine", "stablehlo.cosine", "stablehlo.floor",
    "stablehlo.ceil", "stablehlo.round_nearest_even", "stablehlo.round_nearest_afz",
    "stablehlo.sign", "stablehlo.not", "stablehlo.is_finite",
}
_BROADCASTS = ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim")
_PAD_ATTRS = ("edge_padding_low", "edge_padding_high", "interior_padding")
# ops that move data per axis: a member reads its first operand only, the others (a pad's value,
# a slice's index operands) stay as they are and its per-axis attributes are permuted
_PER_AXIS = ("stablehlo.pad", "tensor.extract_slice")
_SLICE_ATTRS = ("static_offsets", "static_sizes", "static_strides")


def _rank(v: ir.Value) -> int:
    t = v.type
    return t.rank if isinstance(t, ir.RankedTensorType) else -1


def _is_source(op: ir.Operation, perm: list[int]) -> bool:
    """A transpose by `perm` of a non-constant tensor (a weight's transpose is not a layout)."""
    if op.name != "stablehlo.transpose" or transpose_perm(op) != perm:
        return False
    src = defining_op(op.operands[0])
    return src is None or src.name != "stablehlo.constant"


def _folding_read(user: ir.Operation, perm: list[int]) -> bool:
    """`user` reads a transpose-by-`perm`'s value in a way that folds into the operand:
    the inverse transpose, a size read, a single-input reduce."""
    if user.name == "stablehlo.transpose":
        return [perm[q] for q in transpose_perm(user)] == list(range(len(perm)))
    if user.name == "stablehlo.get_dimension_size":
        return True
    if user.name == "tensor.dim":
        return _const_index(user.operands[1]) is not None
    return user.name == "stablehlo.reduce" and len(user.operands) == 2


def _const_index(v: ir.Value) -> int | None:
    op = defining_op(v)
    if op is None or op.name != "arith.constant":
        return None
    return ir.IntegerAttr(op.attributes["value"]).value


# ---------------------------------------------------------------------------------------------
# Components


@dataclass
class _Component:
    perm: list[int]
    ops: list[ir.Operation]
    sources: int = 0
    new_transposes: int = 0  # operands read through a new inverse transpose


def _components(block: ir.Block, perm: list[int]) -> list[_Component]:
    """The components of `block` for `perm` (see the module docstring), in block order."""
    rank = len(perm)
    comp_of: dict[ir.Value, _Component] = {}
    comps: list[_Component] = []
    for op in block.operations:
        op = op.operation
        if _is_source(op, perm):
            c = _Component(perm, [op], sources=1)
            comps.append(c)
            comp_of[op.results[0]] = c
            continue
        if op.name not in _ELEMENTWISE and op.name not in _PER_AXIS:
            continue
        if len(op.results) != 1 or _rank(op.results[0]) != rank:
            continue  # (a rank-reducing slice too)
        operands = list(op.operands)[:1] if op.name in _PER_AXIS else list(op.operands)
        joined = [comp_of[o] for o in operands if o in comp_of]
        if not joined:
            continue
        c = joined[0]
        for other in joined[1:]:
            if other is not c:  # merge `other` into `c`
                c.ops += other.ops
                c.sources += other.sources
                c.new_transposes += other.new_transposes
                for v, oc in list(comp_of.items()):
                    if oc is other:
                        comp_of[v] = c
                comps.remove(other)
        for o in operands:
            if o not in comp_of and _rank(o) == rank and _operand_kind(o) == "other":
                c.new_transposes += 1
        c.ops.append(op)
        comp_of[op.results[0]] = c
    position = {op.operation: i for i, op in enumerate(block.operations)}
    for c in comps:
        c.ops.sort(key=lambda o: position[o])
    return comps


def _operand_kind(v: ir.Value) -> str:
    """How a non-member operand is carried into the channels-last op: rebuilt broadcast,
    transposed constant, or (other) a new inverse transpose."""
    op = defining_op(v)
    if op is not None and op.name in _BROADCASTS:
        return "broadcast"
    if op is not None and op.name == "stablehlo.constant":
        return "constant"
    return "other"


def _cost(c: _Component) -> int:
    """Transposes left after rewriting `c`: one per new operand transpose and one per member
    value read outside `c` other than by folding reads."""
    members = {op.results[0] for op in c.ops}
    inside = set(c.ops)
    n = c.new_transposes
    for v in members:
        if any(use_owner(u) not in inside and not _folding_read(use_owner(u), c.perm) for u in v.uses):
            n += 1
    return n


# ---------------------------------------------------------------------------------------------
# The rewrite


def _rebuilt_broadcast(b: OpBuilder, bc: ir.Operation, perm: list[int], like: ir.Value) -> ir.Value:
    """`bc` (a broadcast to a transpose-by-`perm`'s shape) as the broadcast to `like`'s shape,
    the untransposed one: operand axis k goes to axis perm[dims[k]]; the operand is transposed
    first where those would not be increasing."""
    x = bc.operands[0]
    dims = [perm[d] for d in ir.DenseI64ArrayAttr(bc.attributes["broadcast_dimensions"])]
    order = sorted(range(len(dims)), key=lambda k: dims[k])
    if order != list(range(len(dims))):
        x = b.hlo_transpose(x, order)
    known = {}
    for name in ("known_expanding_dimensions", "known_nonexpanding_dimensions"):
        if name in bc.attributes:
            old = set(ir.DenseI64ArrayAttr(bc.attributes[name]))
            known[name] = [k for k, o in enumerate(order) if o in old]
    return b.hlo_broadcast_like(x, like, sorted(dims), ir.RankedTensorType(bc.results[0].type).element_type,
                                known)


def sink_component(c: _Component) -> None:
    """Rebuilds every op of `c` on the untransposed values; each old result becomes the
    transpose of the new one (folded away by the cleanup where it meets its inverse)."""
    perm, inv = c.perm, inverse_perm(c.perm)
    plain: dict[ir.Value, ir.Value] = {}  # a member's transposed value -> the untransposed one
    old = []
    for op in c.ops:
        if op.name == "stablehlo.transpose":
            plain[op.results[0]] = op.operands[0]
            continue
        b = OpBuilder(op)
        like = next(plain[o] for o in op.operands if o in plain)
        operands = []
        for i, o in enumerate(op.operands):
            if o in plain:
                operands.append(plain[o])
            elif _rank(o) != len(perm) or (op.name == "stablehlo.pad" and i == 1):
                operands.append(o)  # a rank-0 clamp bound, a pad's value
            elif _operand_kind(o) == "broadcast":
                operands.append(_rebuilt_broadcast(b, defining_op(o), perm, like))
            else:
                operands.append(b.hlo_transpose(o, inv))
        rt = ir.RankedTensorType(op.results[0].type)
        new_t = ir.RankedTensorType.get([rt.shape[i] for i in inv], rt.element_type)
        attrs = {n: op.attributes[n] for n in op.attributes}
        if op.name == "stablehlo.pad":
            for name in _PAD_ATTRS:
                vals = list(ir.DenseI64ArrayAttr(op.attributes[name]))
                attrs[name] = ir.DenseI64ArrayAttr.get([vals[i] for i in inv])
        if op.name == "tensor.extract_slice":
            operands = operands[:1] + _permuted_slice_operands(op, attrs, inv)
        new = b.value(op.name, [new_t], operands, attrs)
        back = b.hlo_transpose(new, perm, rt)
        plain[back] = new
        op.results[0].replace_all_uses_with(back)
        old.append(op)
    for op in reversed(old):
        op.erase()


def _permuted_slice_operands(op: ir.Operation, attrs: dict, inv: list[int]) -> list[ir.Value]:
    """A tensor.extract_slice of a transposed value as one of the untransposed value: its
    static offsets / sizes / strides (in `attrs`) and their dynamic operands, which follow the
    static arrays' dynamic entries in axis order, permuted by `inv` (new axis j = old inv[j]):

        %t = stablehlo.transpose %x, dims = [0, 2, 1]
        %s = tensor.extract_slice %t[0, 256, 0] [%n, 256, %l] [1, 1, 1]
      ==>
        %s' = tensor.extract_slice %x[0, 0, 256] [%n, %l, 256] [1, 1, 1]
    """
    dynamic = ir.ShapedType.get_dynamic_size()
    rest = list(op.operands)[1:]
    groups = []
    for name in _SLICE_ATTRS:
        vals = list(ir.DenseI64ArrayAttr(op.attributes[name]))
        per_axis = []
        for v in vals:
            per_axis.append(rest.pop(0) if v == dynamic else None)
        attrs[name] = ir.DenseI64ArrayAttr.get([vals[i] for i in inv])
        groups.append([per_axis[i] for i in inv if per_axis[i] is not None])
    return [v for g in groups for v in g]


# ---------------------------------------------------------------------------------------------
# Cleanup patterns


def fold_transpose_of_transpose(op: ir.Operation) -> bool:
    """transpose(transpose(x, p), q) -> transpose(x, p[q]), or x for the identity."""
    inner = defining_op(op.operands[0])
    if inner is None or inner.name != "stablehlo.transpose":
        return False
    p, q = transpose_perm(inner), transpose_perm(op)
    composed = [p[i] for i in q]
    x = inner.operands[0]
    if composed == list(range(len(composed))):
        if x.type != op.results[0].type:
            return False
        op.results[0].replace_all_uses_with(x)
    else:
        op.results[0].replace_all_uses_with(OpBuilder(op).hlo_transpose(x, composed))
    op.erase()
    return True


def read_size_through_transpose(op: ir.Operation) -> bool:
    """get_dimension_size(transpose(x, p), d) -> get_dimension_size(x, p[d]); tensor.dim alike."""
    tr = defining_op(op.operands[0])
    if tr is None or tr.name != "stablehlo.transpose":
        return False
    p = transpose_perm(tr)
    if op.name == "stablehlo.get_dimension_size":
        d = ir.IntegerAttr(op.attributes["dimension"]).value
        op.operands[0] = tr.operands[0]
        op.attributes["dimension"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), p[d])
        return True
    d = _const_index(op.operands[1])
    if d is None:
        return False
    b = OpBuilder(op)
    op.results[0].replace_all_uses_with(b.index_op("tensor.dim", tr.operands[0], b.const_index(p[d])))
    op.erase()
    return True


def reduce_through_transpose(op: ir.Operation) -> bool:
    """reduce(transpose(x, p), dims) -> reduce(x, p[dims]), its result transposed where the kept
    axes come out in another order. Only where every read of the transpose folds (no transpose
    is left materialized beside the reduce)."""
    if len(op.operands) != 2:
        return False
    tr = defining_op(op.operands[0])
    if tr is None or tr.name != "stablehlo.transpose":
        return False
    p = transpose_perm(tr)
    if not all(_folding_read(use_owner(u), p) for u in tr.results[0].uses):
        return False
    dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    x = tr.operands[0]
    new_dims = sorted(p[d] for d in dims)
    kept_src = [j for j in range(len(p)) if j not in new_dims]
    kept_wanted = [p[i] for i in range(len(p)) if i not in dims]
    xt = ir.RankedTensorType(x.type)
    rt = ir.RankedTensorType(op.results[0].type)
    new_t = ir.RankedTensorType.get([xt.shape[j] for j in kept_src], rt.element_type)
    b = OpBuilder(op)
    attrs = {n: op.attributes[n] for n in op.attributes}
    attrs["dimensions"] = ir.DenseI64ArrayAttr.get(new_dims)
    new = b.create("stablehlo.reduce", [new_t], [x, op.operands[1]], attrs, regions=1)
    # the combiner moves over whole
    new.regions[0].blocks.append(*[a.type for a in op.regions[0].blocks[0].arguments])
    src_block, dst_block = op.regions[0].blocks[0], new.regions[0].blocks[0]
    for a, na in zip(src_block.arguments, dst_block.arguments):
        a.replace_all_uses_with(na)
    for inner in list(src_block.operations):
        dst_block.append(inner.operation)
    out = new.results[0]
    q = [kept_src.index(j) for j in kept_wanted]
    if q != list(range(len(q))):
        out = b.hlo_transpose(out, q, rt)
    op.results[0].replace_all_uses_with(out)
    op.erase()
    return True


def _cleanup(root: ir.Operation) -> None:
    for _ in range(4):
        if not apply_patterns(root, {"stablehlo.transpose": fold_transpose_of_transpose}):
            break
    apply_patterns(root, {"stablehlo.get_dimension_size": read_size_through_transpose,
                          "tensor.dim": read_size_through_transpose})
    apply_patterns(root, {"stablehlo.reduce": reduce_through_transpose})
    remove_dead_ops(root, {"stablehlo.transpose", "stablehlo.broadcast_in_dim",
                           "stablehlo.dynamic_broadcast_in_dim"})


def sink_transposes(root: ir.Operation, max_rounds: int = 8) -> int:
    """Rewrites every profitable component under `root` (see the module docstring), round after
    round while a round rewrote one (a rewrite may make another profitable); returns how many."""
    done = 0
    for _ in range(max_rounds):
        keys = {}
        for op in walk_ops(root):
            if op.name == "stablehlo.transpose" and _is_source(op, transpose_perm(op)):
                keys.setdefault((op.block, tuple(transpose_perm(op))), None)
        chosen = [c for blk, perm in keys for c in _components(blk, list(perm))
                  if len(c.ops) > c.sources and _cost(c) < c.sources]
        taken: set[ir.Operation] = set()
        for c in chosen:  # one perm's components are disjoint; another perm's may share an op
            if taken.isdisjoint(c.ops):
                taken.update(c.ops)
                sink_component(c)
                done += 1
        _cleanup(root)
        if not chosen:
            break
    return done


@dataclass(frozen=True)
class SinkTransposesForIree(Pass):
    """Layout transposes sunk below elementwise ops where that leaves fewer of them."""

    name = "symhlo-sink-transposes-for-iree"
    summary = ("transposes moved below the elementwise ops and pads after them when that leaves "
               "fewer transposes (they meet their inverse: NCHW <-> NHWC around convolutions "
               "lowered channels-last); transpose pairs composed, reduces and size reads of a "
               "transpose read its operand")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            sink_transposes(module.operation)
