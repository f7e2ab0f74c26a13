"""symhlo-split-sliced-matmuls-for-iree: a matmul whose result is only read in static slices of
one axis -> one matmul per slice, over the matching slice of its static operand.

A fused projection (GPT-2's `c_attn`, a `qkv` Linear) computes q, k and v in one matmul and
splits the result along its static feature axis. With `?` rows the split is three
`real_dynamic_slice`s, which IREE 3.13 runs as copies of their own (`slow_memcpy` dispatches)
before the head reshapes and transposes; with static rows it fuses them. Slicing the weight
instead gives each of q, k and v its own matmul, whose result feeds the head transpose directly:

    %w = stablehlo.transpose %cst, dims = [1, 0] : (tensor<768x256xf32>) -> tensor<256x768xf32>
    %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x256xf32>, ...) -> tensor<?x768xf32>
    %a = stablehlo.add %d, (dynamic_broadcast_in_dim %bias, [n, 768], dims = [1]) : tensor<?x768xf32>
    %r = stablehlo.dynamic_reshape %a, [b, s, 768] : (tensor<?x768xf32>, tensor<3xi64>) -> tensor<?x?x768xf32>
    %q = stablehlo.real_dynamic_slice %r, [0, 0, 0], [b, s, 256], [1, 1, 1] -> tensor<?x?x256xf32>
    %k = stablehlo.real_dynamic_slice %r, [0, 0, 256], [b, s, 512], [1, 1, 1] -> tensor<?x?x256xf32>
  ==>
    %wq = stablehlo.slice %w [0:256, 0:256]                             (a constant's slice: folded)
    %dq = stablehlo.dot_general %x, %wq, contracting_dims = [1] x [0] -> tensor<?x256xf32>
    %aq = stablehlo.add %dq, (dynamic_broadcast_in_dim (stablehlo.slice %bias [0:256]), [n, 256], dims = [1])
    %q  = stablehlo.dynamic_reshape %aq, [b, s, 256] -> tensor<?x?x256xf32>
    (likewise %k over [256:512])

Matched: a dot_general whose result reaches, through ops each read by the next one only (and by
`get_dimension_size` of another axis), a value read only by unit-stride `real_dynamic_slice`s
along one static axis, each taking every other axis whole (the size facts prove its limits are
the value's sizes). The ops between: elementwise ops whose other operands are broadcasts of
static-shaped values, and `dynamic_reshape`s that keep that axis last. The sliced axis must be a
free axis of the dot's static-shaped operand. The slices together may not read more than the
axis once over (no work is added). The `get_dimension_size` reads of the old values are
rewired to the dot's operand, or to the reshape's shape, so the old chain dies.

Measured (bench/dispatch_profile.py --drop-pass, GPT d=256, one layer, at (4, 512), process CPU
per call, medians of 3 alternated rounds, Xeon, 2 cores): 58.5 -> 54.7 ms (static 46.2; 31 -> 29
dispatches: the three `slow_memcpy` copies and the wide unpack go, the three matmuls share one
executable with the output projection and take what the wide one took). The transformer block
at d=64, (4, 512): 13.7 -> 13.8 ms (no change; static 12.9). Fires on transformers' GPT-2
(Conv1D's addmm then split) and Phi-3 (its fused qkv_proj and gate_up_proj), which match eager
(test/models/test_llms.py). Only `?`-row slices (real_dynamic_slice) are matched: written by
hand into the model, the split made the static module slower (44.1 -> 46.1 ms in dispatches).
Runs on the copy for IREE only; the portable artifact keeps the fused matmul. Each element is the same dot product over the same
operands as in the fused matmul (its summation order is IREE's choice in either form).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, dot_dimension_numbers, dot_result_axis
from .ir_util import constant_ints, defining_op, is_dynamic, use_owner
from .registry import Pass
from .size_facts import facts_by_function

_ELEMENTWISE = {"stablehlo." + n for n in (
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "convert", "negate", "tanh",
    "logistic", "exponential", "abs", "sqrt", "rsqrt")}
_BROADCAST = "stablehlo.dynamic_broadcast_in_dim"


def _shape(v: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(v.type).shape)


@dataclass
class _Plan:
    dot: ir.Operation
    chain: list[tuple[ir.Operation, int]]          # (op, the sliced axis of its result), dot first
    slices: list[tuple[ir.Operation, int, int]]    # (real_dynamic_slice, start, length)
    size_reads: list[tuple[ir.Operation, int]]     # (get_dimension_size, index into chain)


def _size_reads_only(v: ir.Value, axis: int, skip: ir.Operation | None) -> list[ir.Operation] | None:
    """The get_dimension_size ops reading `v` at an axis other than `axis`, when every use of `v`
    but `skip` is one; else None."""
    reads = []
    for use in v.uses:
        user = use_owner(use)
        if skip is not None and user == skip:
            continue
        if user.name != "stablehlo.get_dimension_size" or \
                ir.IntegerAttr(user.attributes["dimension"]).value == axis:
            return None
        reads.append(user)
    return reads


def _dot_axis_operand(dot: ir.Operation, axis: int) -> tuple[int, int] | None:
    """(operand index, operand axis) of the dot result's `axis` when it is a free axis of a
    static-shaped operand; else None."""
    if axis < len(dot_dimension_numbers(dot)["lhs_batching_dimensions"]):
        return None
    index, operand_axis = dot_result_axis(dot, axis)
    return (index, operand_axis) if ir.RankedTensorType(dot.operands[index].type).has_static_shape else None


def _side_operand_ok(v: ir.Value, axis: int, full: int) -> bool:
    """A broadcast of a static-shaped value whose slice along `axis` is a slice of that value
    (or the value itself, where it is broadcast along `axis`)."""
    d = defining_op(v)
    if d is None or d.name != _BROADCAST or not ir.RankedTensorType(d.operands[0].type).has_static_shape:
        return False
    dims = list(ir.DenseI64ArrayAttr(d.attributes["broadcast_dimensions"]))
    if axis not in dims:
        return True
    return _shape(d.operands[0])[dims.index(axis)] in (1, full)


def plan_split(dot: ir.Operation, facts_of) -> _Plan | None:
    """What split_sliced_matmul would rewrite for `dot`, or None (nothing to do)."""
    if len(dot.results) != 1 or not any(is_dynamic(s) for s in _shape(dot.results[0])):
        return None
    # Walk up to the value the slices read, collecting the chain; the axis is fixed at the end.
    chain_ops = [dot]
    v = dot.results[0]
    while True:
        users = [use_owner(u) for u in v.uses if use_owner(u).name != "stablehlo.get_dimension_size"]
        if len(users) != 1 or users[0].name not in _ELEMENTWISE | {"stablehlo.dynamic_reshape"} \
                or len(users[0].results) != 1:
            break
        if users[0].name == "stablehlo.dynamic_reshape" and users[0].operands[0] != v:
            break
        chain_ops.append(users[0])
        v = users[0].results[0]
    slice_ops = [use_owner(u) for u in v.uses if use_owner(u).name != "stablehlo.get_dimension_size"]
    if not slice_ops or any(s.name != "stablehlo.real_dynamic_slice" or s.operands[0] != v for s in slice_ops):
        return None
    shape = _shape(v)
    facts = facts_of(dot)
    axis, slices = None, []
    for s in slice_ops:
        starts, steps = constant_ints(s.operands[1]), constant_ints(s.operands[3])
        limits = facts.vector(s.operands[2])
        if starts is None or steps is None or limits is None or any(k != 1 for k in steps):
            return None
        cut = [a for a in range(len(shape)) if starts[a] != 0 or not facts.equal(limits[a], facts.dim(v, a))]
        if len(cut) != 1 or (axis is not None and cut[0] != axis):
            return None
        axis = cut[0]
        if is_dynamic(shape[axis]) or not isinstance(limits[axis], int):
            return None
        if not 0 <= starts[axis] < limits[axis] <= shape[axis]:
            return None
        if _shape(s.results[0]) != [limits[axis] - starts[axis] if a == axis else n for a, n in enumerate(shape)]:
            return None
        slices.append((s, starts[axis], limits[axis] - starts[axis]))
    if sum(n for _, _, n in slices) > shape[axis]:
        return None
    # Walk back down, mapping the axis onto each value and checking each op.
    chain, a = [], axis
    for k in range(len(chain_ops) - 1, -1, -1):
        op = chain_ops[k]
        chain.append((op, a))
        full = _shape(op.results[0])[a]
        if op.name == "stablehlo.dynamic_reshape":
            src = _shape(op.operands[0])
            if a != len(_shape(op.results[0])) - 1 or src[-1] != full:
                return None
            a = len(src) - 1
        elif op.name in _ELEMENTWISE:
            below = chain_ops[k - 1].results[0]
            if any(o != below and not _side_operand_ok(o, a, full) for o in op.operands):
                return None
            if _shape(below) != _shape(op.results[0]):
                return None
        elif _dot_axis_operand(op, a) is None:
            return None
    chain.reverse()
    size_reads = []
    for k, (op, a) in enumerate(chain):
        nxt = chain[k + 1][0] if k + 1 < len(chain) else None
        reads = _size_reads_only(op.results[0], a, nxt) if nxt is not None else \
            [use_owner(u) for u in op.results[0].uses if use_owner(u).name == "stablehlo.get_dimension_size"]
        if reads is None or any(ir.IntegerAttr(r.attributes["dimension"]).value == a for r in reads):
            return None
        size_reads += [(r, k) for r in reads]
    return _Plan(dot, chain, slices, size_reads)


def _size_source(plan: _Plan, k: int, axis: int) -> tuple[str, ir.Value, int]:
    """Where axis `axis` (not the sliced one) of chain value `k` can be read without it:
    ("dim", value, axis) or ("shape", shape tensor, index)."""
    while True:
        op, _ = plan.chain[k]
        if op.name == "stablehlo.dynamic_reshape":
            return "shape", op.operands[1], axis
        if k == 0:
            index, operand_axis = dot_result_axis(op, axis)
            return "dim", op.operands[index], operand_axis
        k -= 1


def _rewire_size_read(plan: _Plan, read: ir.Operation, k: int) -> None:
    """get_dimension_size of chain value `k` -> the same size read from below the chain."""
    axis = ir.IntegerAttr(read.attributes["dimension"]).value
    kind, v, i = _size_source(plan, k, axis)
    b = OpBuilder(read)
    t = read.results[0].type
    if kind == "dim":
        new = b.hlo_get_dimension_size(v, i)
    else:
        new = b.hlo_convert(b.value("stablehlo.reshape", [ir.RankedTensorType.get([], ir.RankedTensorType(
            v.type).element_type)], [b.hlo_slice(v, [i], [i + 1])]), ir.RankedTensorType(t).element_type)
    read.results[0].replace_all_uses_with(new)
    read.erase()


def _narrowed(t: ir.Type, axis: int, n: int) -> ir.Type:
    rt = ir.RankedTensorType(t)
    return ir.RankedTensorType.get([n if a == axis else s for a, s in enumerate(rt.shape)], rt.element_type)


def _sliced_operand(b: OpBuilder, v: ir.Value, axis: int, lo: int, n: int) -> ir.Value:
    """`v` (static-shaped) sliced to [lo, lo + n) along `axis`."""
    shape = _shape(v)
    return b.hlo_slice(v, [lo if a == axis else 0 for a in range(len(shape))],
                       [lo + n if a == axis else s for a, s in enumerate(shape)])


def _sliced_broadcast(b: OpBuilder, bc: ir.Operation, axis: int, lo: int, n: int) -> ir.Value:
    x, shape = bc.operands
    dims = list(ir.DenseI64ArrayAttr(bc.attributes["broadcast_dimensions"]))
    if axis in dims and _shape(x)[dims.index(axis)] != 1:
        x = _sliced_operand(b, x, dims.index(axis), lo, n)
    attrs = {k: bc.attributes[k] for k in bc.attributes}
    return b.value(_BROADCAST, [_narrowed(bc.results[0].type, axis, n)], [x, b.hlo_with_entry(shape, axis, n)], attrs)


def _build_slice(plan: _Plan, s: ir.Operation, lo: int, n: int) -> ir.Value:
    b = OpBuilder(s)
    v = prev = None  # the chain starts at its dot_general; prev: the last op's result
    for op, a in plan.chain:
        t = _narrowed(op.results[0].type, a, n)
        attrs = {k: op.attributes[k] for k in op.attributes}
        if op.name == "stablehlo.dot_general":
            index, operand_axis = _dot_axis_operand(op, a)
            operands = list(op.operands)
            operands[index] = _sliced_operand(b, operands[index], operand_axis, lo, n)
            v = b.value(op.name, [t], operands, attrs)
        elif op.name == "stablehlo.dynamic_reshape":
            v = b.value(op.name, [t], [v, b.hlo_with_entry(op.operands[1], a, n)], attrs)
        else:
            below = v
            operands = [below if o == prev else _sliced_broadcast(b, defining_op(o), a, lo, n)
                        for o in op.operands]
            v = b.value(op.name, [t], operands, attrs)
        prev = op.results[0]
    return v


def split_sliced_matmul(plan: _Plan) -> None:
    """Rewrites `plan.dot` and its chain into one matmul per slice (see the module docstring)."""
    for read, k in plan.size_reads:
        _rewire_size_read(plan, read, k)
    for s, lo, n in plan.slices:
        s.results[0].replace_all_uses_with(_build_slice(plan, s, lo, n))
        s.erase()
    values = [op.results[0] for op, _ in plan.chain]
    side = [defining_op(o) for op, _ in plan.chain[1:] for o in op.operands if o not in values]
    for op, _ in reversed(plan.chain):
        op.erase()
    for d in dict.fromkeys(side):
        if not list(d.results[0].uses):
            d.erase()


class SplitSlicedMatmulsForIree(Pass):
    """A matmul read only in static slices of one axis -> one matmul per slice."""

    name = "symhlo-split-sliced-matmuls-for-iree"
    summary = ("a dot_general (through elementwise ops and reshapes) read only by `?`-row slices of "
               "one static axis -> one dot_general per slice over its static operand's slice")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            facts_of = facts_by_function()
            # Plan every split before rewriting any: the size facts are read on the unchanged IR.
            plans = []
            apply_patterns(module.operation, {"stablehlo.dot_general":
                                              lambda op: plans.append(plan_split(op, facts_of))})
            for plan in plans:
                if plan is not None:
                    split_sliced_matmul(plan)
