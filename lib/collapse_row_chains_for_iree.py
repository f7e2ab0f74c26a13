"""symhlo-collapse-row-chains-for-iree: a norm before a matmul computed on the matmul's rows.

A transformer's matmul reads its `(batch, seq, d)` input collapsed to `(batch * seq) x d` rows.
When that input is a norm (a reduction over `d` and row-wise ops), IREE 3.13 computes the norm in
3-D and packs the collapsed rows for its data-tiled matmul in a dispatch of its own: the pack of
`?` rows cannot move above a collapse of two `?` axes (it would need the sequence to be a whole
number of 16-row tiles, as it is in a static module at seq 128, where the norm and the pack are
one dispatch). Here the collapse moves to the chain's inputs, so the norm runs on the rows the
matmul reads and IREE fuses it into the pack:

    %s = stablehlo.multiply %x, %x : tensor<?x?x256xf32>
    %r = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [2]
           : (tensor<?x?x256xf32>, tensor<f32>) -> tensor<?x?xf32>
    %e = tensor.expand_shape %r [[0], [1, 2]] : tensor<?x?xf32> into tensor<?x?x1xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %e, %shape3, dims = [0, 1, 2] : ... -> tensor<?x?x256xf32>
    %y = stablehlo.multiply %x, %b : tensor<?x?x256xf32>
    %c = tensor.collapse_shape %y [[0, 1], [2]] : tensor<?x?x256xf32> into tensor<?x256xf32>
    %m = stablehlo.dot_general %c, %w, contracting_dims = [1] x [0] : ... -> tensor<?x256xf32>
  ==>
    %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x256xf32> into tensor<?x256xf32>
    %n = tensor.dim %x2, %c0
    %s = stablehlo.multiply %x2, %x2 : tensor<?x256xf32>
    %r = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [1] : tensor<?xf32>
    %e = tensor.expand_shape %r [[0, 1]] : tensor<?xf32> into tensor<?x1xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %e, [%n, 256], dims = [0, 1] : ... -> tensor<?x256xf32>
    %y = stablehlo.multiply %x2, %b : tensor<?x256xf32>
    %m = stablehlo.dot_general %y, %w, ...

The chain: elementwise ops of the full shape, `stablehlo.reduce` over the last axis, the
`tensor.expand_shape` of its result to a unit last axis, and `dynamic_broadcast_in_dim` of a
scalar, of a last-axis vector, or of a chain value whose leading axes the op's hints say do not
expand (a rotary table broadcast over the batch is an input of the chain, not part of it). An op
is in the chain only when every user of its result is: a value read elsewhere too (the residual
stream) is collapsed where the chain reads it and computed once. Only chains that hold a
reduction are rewritten (IREE moves a collapse through elementwise ops itself). Runs on the copy
for IREE only.

Measured (`bench/dispatch_profile.py`, AMD EPYC, 2 cores, 5 alternated rounds, medians), and not
in symhlo-stablehlo-to-iree-input-pipeline for it: Llama prefill (d=256, 2 layers) at (4, 128)
with only the first norm rewritten by hand, its reduction and the pack became one dispatch of
0.13 ms against 0.09 + 0.19 (static 0.10), process CPU per call 24.5 -> 23.5 ms (static 19.3).
With this pass (four of the five norms rewritten; the last one is read through the LM head's
slice) the norms fused the same way, but two dispatches appeared (a 1-D transpose and a pack of
its own) and the module was no faster: all dispatches 11.19 -> 11.94 ms, process CPU 23.1 ->
24.2 (static 23.3 in that run); GPT d=256 at (1, 512): 16.16 -> 16.10 ms over all dispatches,
25 -> 27 dispatches. Of those two, one is a fill of the splat gamma (the bench models' norm
weights are ones) broadcast to the rows and read by each norm; leaving the broadcasts of scalars
and vectors out of the chain removed it, and the module was still no faster (Llama prefill 22.26
-> 22.16 ms over all dispatches). The other is no new work: the attention output's row pack,
which had shared its executable with the norm's separate pack. The pack a fused norm saves is a
copy of the rows (512 KB at (4, 128)). Runnable by name (`symhlo-opt --symhlo-collapse-row-chains-for-iree`) for
the next look at where those two dispatches come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, reassociation_groups
from .ir_util import constant_index, defining_op, i64_array, is_dynamic, use_owner
from .registry import Pass
from .size_facts import ELEMENTWISE


def _rows_collapse(op: ir.Operation) -> int | None:
    """Rank r >= 3 of the source when `op` collapses all axes but the last into one and keeps a
    static last axis, else None."""
    src_t = ir.RankedTensorType(op.operands[0].type)
    r = src_t.rank
    if r < 3 or is_dynamic(src_t.shape[-1]):
        return None
    if reassociation_groups(op) != [list(range(r - 1)), [r - 1]]:
        return None
    return r


def _chain_kind(op: ir.Operation, r: int) -> bool:
    """Whether `op` computes a row-wise value of the chain (see the module docstring)."""
    if len(op.results) != 1 or op.regions and op.name != "stablehlo.reduce":
        return False
    t = ir.RankedTensorType(op.results[0].type) if isinstance(
        op.results[0].type, ir.RankedTensorType) else None
    if t is None:
        return False
    if op.name in ELEMENTWISE:
        return t.rank == r and all(ir.RankedTensorType(v.type).rank == r for v in op.operands)
    if op.name == "stablehlo.reduce":
        return (len(op.operands) == 2 and t.rank == r - 1 and i64_array(op, "dimensions") == [r - 1]
                and ir.RankedTensorType(op.operands[0].type).rank == r)
    if op.name == "tensor.expand_shape":
        return (t.rank == r and t.shape[-1] == 1
                and reassociation_groups(op) == [[i] for i in range(r - 2)] + [[r - 2, r - 1]])
    if op.name == "stablehlo.dynamic_broadcast_in_dim":
        if t.rank != r or is_dynamic(t.shape[-1]):
            return False
        x_t = ir.RankedTensorType(op.operands[0].type)
        dims = i64_array(op, "broadcast_dimensions")
        if x_t.rank == 0:
            return True
        if x_t.rank == 1:
            return dims == [r - 1] and not is_dynamic(x_t.shape[0])
        nonexpanding = set(i64_array(op, "known_nonexpanding_dimensions"))
        return (x_t.rank == r and dims == list(range(r))
                and set(range(r - 1)) <= nonexpanding)
    return False


def _chain_operands(op: ir.Operation) -> list[ir.Value]:
    """The operands of a chain op that carry rows (a broadcast's shape, a reduce's init and an
    expand's sizes do not)."""
    if op.name in ("stablehlo.reduce", "stablehlo.dynamic_broadcast_in_dim", "tensor.expand_shape"):
        return [op.operands[0]]
    return list(op.operands)


def _size_axis(user: ir.Operation) -> int | None:
    """The axis a `stablehlo.get_dimension_size` or a `tensor.dim` with a constant index reads,
    else None."""
    if user.name == "stablehlo.get_dimension_size":
        return ir.IntegerAttr(user.attributes["dimension"]).value
    if user.name == "tensor.dim":
        return constant_index(user.operands[1])
    return None


def _collect_chain(src: ir.Value, root: ir.Operation, r: int) -> list[ir.Operation]:
    """The chain ops computing `src` (see the module docstring), in no particular order."""
    found: dict[ir.Operation, None] = {}
    stack = [src]
    block = root.block
    while stack:
        v = stack.pop()
        op = defining_op(v)
        if op is None or op in found or op.block != block or not _chain_kind(op, r):
            continue
        found[op] = None
        stack.extend(_chain_operands(op))
    # Keep only ops whose every user is in the chain (or the root): drop the others until none
    # is left to drop; what they compute becomes an input of the chain.
    chain = set(found)
    changed = True
    while changed:
        changed = False
        for op in list(chain):
            users = [use_owner(u) for u in op.results[0].uses]
            if not all(u in chain or u == root or _size_axis(u) is not None for u in users):
                chain.discard(op)
                changed = True
    # Only what `src` still reaches through the chain.
    reached: set[ir.Operation] = set()
    stack = [src]
    while stack:
        op = defining_op(stack.pop())
        if op is None or op not in chain or op in reached:
            continue
        reached.add(op)
        stack.extend(_chain_operands(op))
    return list(reached)


def collapse_row_chain(root: ir.Operation) -> bool:
    """tensor.collapse_shape (all axes but the last) of a row-wise chain holding a reduction,
    read by a dot_general's lhs -> the chain on collapsed rows (module docstring)."""
    r = _rows_collapse(root)
    if r is None:
        return False
    if not any(use_owner(u).name == "stablehlo.dot_general" and u.operand_number == 0
               for u in root.results[0].uses):
        return False
    src = root.operands[0]
    chain = _collect_chain(src, root, r)
    members = set(chain)
    producer = defining_op(src)
    if producer is None or producer not in members or not any(
            o.name == "stablehlo.reduce" for o in chain):
        return False
    order = {o.operation: i for i, o in enumerate(root.block.operations)}
    chain.sort(key=lambda o: order[o])
    inputs = []  # the chain's inputs (not computed by it) that carry rows
    for op in chain:
        for v in _chain_operands(op):
            d = defining_op(v)
            if (d is None or d not in members) and v not in inputs and not (
                    op.name == "stablehlo.dynamic_broadcast_in_dim"
                    and ir.RankedTensorType(v.type).rank < r):
                inputs.append(v)

    def position(v: ir.Value) -> int:
        d = defining_op(v)
        return -1 if d is None else order.get(d, len(order))

    # The chain values' size reads will read the earliest input of rank r (it has their leading
    # axes); it must come before each of them.
    full_inputs = sorted((v for v in inputs if ir.RankedTensorType(v.type).rank == r), key=position)
    if not full_inputs:
        return False
    full = full_inputs[0]
    for op in chain:
        for use in op.results[0].uses:
            user = use_owner(use)
            if user in members or user == root:
                continue
            if user.block != root.block or order[user] <= position(full):
                return False
    b = OpBuilder(root)
    i64 = ir.IntegerType.get_signless(64)
    rows_t = ir.RankedTensorType(root.results[0].type)
    rows_dim = rows_t.shape[0]
    new: dict[ir.Value, ir.Value] = {}
    n = None

    def flat(v: ir.Value) -> ir.Value:
        """The chain's 2-D (or, for per-row values, 1-D) form of `v`."""
        nonlocal n
        if v in new:
            return new[v]
        t = ir.RankedTensorType(v.type)
        if t.rank == r:
            out = b.collapse_shape(v, [list(range(r - 1)), [r - 1]],
                                   ir.RankedTensorType.get([rows_dim, t.shape[-1]], t.element_type))
        else:  # a per-row value (rank r - 1)
            out = b.collapse_shape(v, [list(range(r - 1))],
                                   ir.RankedTensorType.get([rows_dim], t.element_type))
        new[v] = out
        if n is None:
            n = b.tensor_dim_op(out, 0)
        return out

    # Inputs first, so that the row count is at hand for the broadcasts' shapes.
    for v in full_inputs + [v for v in inputs if v not in full_inputs]:
        flat(v)
    for op in chain:
        t = ir.RankedTensorType(op.results[0].type)
        if op.name == "tensor.expand_shape":
            out_t = ir.RankedTensorType.get([rows_dim, 1], t.element_type)
            new[op.results[0]] = b.expand_shape(flat(op.operands[0]), [[0, 1]], out_t,
                                                [n] if is_dynamic(rows_dim) else [])
            continue
        shape = None
        if op.name == "stablehlo.dynamic_broadcast_in_dim":
            shape = b.tensor_from_elements(
                [b.index_cast(n, i64), b.constant(i64, t.shape[-1])], i64)
        clone = op.clone(ip=b.ip)
        if op.name == "stablehlo.reduce":
            clone.operands[0] = flat(op.operands[0])
            clone.attributes["dimensions"] = ir.DenseI64ArrayAttr.get([1])
            clone.results[0].set_type(ir.RankedTensorType.get([rows_dim], t.element_type))
        elif op.name == "stablehlo.dynamic_broadcast_in_dim":
            x_t = ir.RankedTensorType(op.operands[0].type)
            clone.operands[1] = shape
            if x_t.rank == r:
                clone.operands[0] = flat(op.operands[0])
                dims, axis = [0, 1], (lambda a: 0 if a < r - 1 else 1)
            else:
                dims, axis = ([] if x_t.rank == 0 else [1]), (lambda a: a)
            clone.attributes["broadcast_dimensions"] = ir.DenseI64ArrayAttr.get(dims)
            for name in ("known_expanding_dimensions", "known_nonexpanding_dimensions"):
                if name in op.attributes:
                    clone.attributes[name] = ir.DenseI64ArrayAttr.get(
                        sorted({axis(a) for a in i64_array(op, name)}))
            clone.results[0].set_type(ir.RankedTensorType.get([rows_dim, t.shape[-1]],
                                                              t.element_type))
        else:  # elementwise
            for i, v in enumerate(op.operands):
                clone.operands[i] = flat(v)
            clone.results[0].set_type(ir.RankedTensorType.get([rows_dim, t.shape[-1]],
                                                              t.element_type))
        new[op.results[0]] = clone.results[0]
    root.results[0].replace_all_uses_with(new[src])
    root.erase()
    for op in reversed(chain):
        _read_sizes_elsewhere(op.results[0], full, r)
        op.erase()
    return True


def _read_sizes_elsewhere(v: ir.Value, full: ir.Value, r: int) -> None:
    """The size reads of the chain value `v` (all its remaining users) read `full`, an input of
    the chain of rank `r` with the same leading axes, or the constant of a static last axis."""
    t = ir.RankedTensorType(v.type)
    for use in list(v.uses):
        user = use_owner(use)
        axis = _size_axis(user)
        if axis < r - 1 or ir.RankedTensorType(full.type).shape[axis] == t.shape[axis]:
            user.operands[0] = full
            continue
        b = OpBuilder(user)
        if user.name == "tensor.dim":
            user.results[0].replace_all_uses_with(b.const_index(t.shape[axis]))
        else:
            user.results[0].replace_all_uses_with(
                b.hlo_const([t.shape[axis]], ir.IntegerType.get_signless(32), []))
        user.erase()


@dataclass(frozen=True)
class CollapseRowChainsForIree(Pass):
    """A norm before a matmul over collapsed `?` rows -> the norm on those rows."""

    name = "symhlo-collapse-row-chains-for-iree"
    summary = ("row-wise ops with a reduction (a norm) between a `(batch, seq, d)` value and a "
               "matmul over its collapsed rows -> the same ops on the collapsed rows (IREE then "
               "fuses the norm into the matmul's row pack)")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {"tensor.collapse_shape": collapse_row_chain})
