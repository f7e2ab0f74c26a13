"""Small helpers over torch-mlir's MLIR Python bindings shared by every pass."""

from __future__ import annotations

import sys
import types
from typing import Iterable, Sequence

from torch_mlir import ir

_initialized = False


def _register_standin_dialect_modules() -> None:
    """Stops the bindings from re-trying a failing dialect import on every op access (~20 µs each)."""
    for name in ("stablehlo", "chlo", "torch_c"):
        mod = f"torch_mlir.dialects.{name}"
        if mod not in sys.modules:
            try:
                __import__(mod)
            except ImportError:
                sys.modules[mod] = types.ModuleType(mod)


def new_context() -> ir.Context:
    """A context with every dialect symhlo reads or writes: builtin ones, torch, stablehlo, chlo."""
    global _initialized
    from torch_mlir.dialects import torch as torch_d
    from torch_mlir._mlir_libs import _stablehlo

    ctx = ir.Context()
    torch_d.register_dialect(ctx)
    _stablehlo.register_dialect(ctx)
    if not _initialized:
        _register_standin_dialect_modules()
        _initialized = True
    ensure_upstream_registered(ctx)
    return ctx


def ensure_upstream_registered(ctx: ir.Context) -> None:
    """torch-mlir registers its passes (and torch_c/chlo) once a pipeline naming them is parsed."""
    from torch_mlir.passmanager import PassManager

    if getattr(ctx, "_symhlo_ready", False):
        return
    with ctx, ir.Location.unknown():
        # Running the pass once (on an empty module) loads the dialects it depends on, torch_c,
        # stablehlo and chlo among them, so they parse and ops created by name verify.
        PassManager.parse("builtin.module(func.func(convert-torch-to-stablehlo))").run(
            ir.Module.create().operation)
    try:
        ctx._symhlo_ready = True
    except AttributeError:
        pass


def walk_ops(op: ir.Operation) -> list[ir.Operation]:
    """All operations nested under `op` (not `op` itself), in pre-order, as a list snapshot."""
    out: list[ir.Operation] = []

    def visit(o: ir.Operation) -> None:
        for region in o.regions:
            for block in region.blocks:
                for child in block.operations:
                    child = child.operation
                    out.append(child)
                    visit(child)

    visit(op.operation)
    return out


def create(name: str, results: Sequence[ir.Type], operands: Sequence[ir.Value],
           attrs: dict | None = None, *, loc: ir.Location, ip: ir.InsertionPoint,
           regions: int = 0) -> ir.Operation:
    """`name` op with these results, operands, attributes and `regions` empty regions, at `ip`."""
    return ir.Operation.create(name, results=list(results), operands=list(operands),
                               attributes=attrs or {}, loc=loc, ip=ip, regions=regions)




def defining_op(v: ir.Value) -> ir.Operation | None:
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def use_owner(use: ir.OpOperand) -> ir.Operation:
    """The operation that holds `use` (an OpView's generic ir.Operation)."""
    owner = use.owner
    return owner.operation if hasattr(owner, "operation") else owner


def constant_ints(v: ir.Value) -> list[int] | None:
    """The values of a `stablehlo.constant` / `arith.constant` rank-1 integer tensor, else None."""
    op = defining_op(v)
    if op is None or op.name not in ("stablehlo.constant", "arith.constant"):
        return None
    attr = ir.DenseIntElementsAttr(op.attributes["value"])
    n = ir.RankedTensorType(v.type).shape[0]
    return [int(attr[0])] * n if attr.is_splat else [int(x) for x in attr]


def constant_index(v: ir.Value) -> int | None:
    """The value of a scalar `arith.constant` integer or index (a tensor.dim axis, a
    tensor.extract position), else None."""
    op = defining_op(v)
    if op is None or op.name != "arith.constant" or \
            not isinstance(op.attributes["value"], ir.IntegerAttr):
        return None
    return ir.IntegerAttr(op.attributes["value"]).value


def i64_array(op: ir.Operation, name: str) -> list[int]:
    """An op's DenseI64ArrayAttr `name` as a list ([] when the op has no such attribute)."""
    return list(ir.DenseI64ArrayAttr(op.attributes[name])) if name in op.attributes else []


# Ops whose regions run a data-dependent number of times or branches (stablehlo's, and the scf
# ops symhlo-prepare-loops-for-iree and IREE's input conversion make of them).
CONTROL_FLOW_OPS = frozenset({"stablehlo.while", "stablehlo.if", "stablehlo.case", "scf.while",
                              "scf.if", "scf.for", "scf.index_switch"})


def torch_constant(v: ir.Value):
    """The value of a torch.constant.int / torch.constant.bool operand, else None."""
    d = defining_op(v)
    if d is None:
        return None
    if d.name == "torch.constant.int":
        return ir.IntegerAttr(d.attributes["value"]).value
    if d.name == "torch.constant.bool":
        return ir.BoolAttr(d.attributes["value"]).value
    return None


def splat_value(v: ir.Value):
    """The scalar of a splat `stablehlo.constant` / `arith.constant` (float, int or bool), else
    None (no looking through broadcasts: see splat_constant for that)."""
    op = defining_op(v)
    if op is None or op.name not in ("stablehlo.constant", "arith.constant"):
        return None
    attr = ir.DenseElementsAttr(op.attributes["value"])
    if not attr.is_splat:
        return None
    s = attr.get_splat_value()
    if isinstance(s, ir.BoolAttr):
        return ir.BoolAttr(s).value
    if isinstance(s, ir.FloatAttr):
        return ir.FloatAttr(s).value
    if isinstance(s, ir.IntegerAttr):
        t = ir.IntegerType(s.type)
        x = ir.IntegerAttr(s).value
        return bool(x & 1) if t.width == 1 else x
    return None


def reduce_combiner(op: ir.Operation | None) -> str | None:
    """The op name ("stablehlo.add", "stablehlo.maximum", ...) of a one-input stablehlo.reduce
    whose body combines its two block arguments with that one binary op and returns it, else
    None."""
    if op is None or op.name != "stablehlo.reduce" or len(op.operands) != 2 \
            or len(op.regions[0].blocks) != 1:
        return None
    ops = [o.operation for o in op.regions[0].blocks[0].operations]
    if len(ops) != 2 or ops[1].name != "stablehlo.return" or len(ops[0].operands) != 2:
        return None
    args = list(op.regions[0].blocks[0].arguments)
    if set(ops[0].operands) != set(args) or ops[1].operands[0] != ops[0].results[0]:
        return None
    return ops[0].name


def splat_constant(v: ir.Value) -> float | None:
    """The value of `v` when it is a splat `stablehlo.constant` seen through broadcasts, reshapes
    (static or dynamic), converts and negations, as a float (None otherwise). torch's pow(q, -x)
    of a full_like x arrives as negate(dynamic_reshape(dynamic_broadcast(c))); torch's -inf as
    broadcast(convert(reshape(convert(c : f64)))) before canonicalization."""
    sign = 1.0
    op = defining_op(v)
    while op is not None and op.name in ("stablehlo.broadcast_in_dim", "stablehlo.reshape",
                                         "stablehlo.convert", "stablehlo.dynamic_broadcast_in_dim",
                                         "stablehlo.dynamic_reshape", "stablehlo.negate"):
        if op.name == "stablehlo.negate":
            sign = -sign
        op = defining_op(op.operands[0])
    if op is None or op.name != "stablehlo.constant":
        return None
    attr = ir.DenseElementsAttr(op.attributes["value"])
    if not attr.is_splat:
        return None
    value = attr.get_splat_value()
    if isinstance(value, (ir.FloatAttr, ir.IntegerAttr)):
        return sign * float(value.value)
    return None


def enclosing_func(op: ir.Operation) -> ir.Operation | None:
    """The func.func that holds `op` (at any depth), None outside one."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return None if parent is None else parent.operation


def transpose_perm(op: ir.Operation) -> list[int]:
    """A stablehlo.transpose's permutation: result axis i is operand axis perm[i]."""
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def inverse_perm(perm: list[int]) -> list[int]:
    """The permutation that undoes `perm`."""
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def transpose_chain(v: ir.Value):
    """(value, q) for `v` and each value a chain of stablehlo.transposes defining it reads,
    outermost first: axis i of `v` is axis q[i] of that value."""
    q = list(range(ir.RankedTensorType(v.type).rank))
    while True:
        yield v, q
        d = defining_op(v)
        if d is None or d.name != "stablehlo.transpose":
            return
        p = transpose_perm(d)
        q = [p[i] for i in q]
        v = d.operands[0]


def through_transposes(v: ir.Value) -> tuple[ir.Value, list[int]]:
    """(x, q): `v` is `x` through a chain of stablehlo.transposes composing to `q` (axis i of
    `v` is axis q[i] of `x`); (`v`, identity) without one."""
    for v, q in transpose_chain(v):
        pass
    return v, q


def is_dynamic(d: int) -> bool:
    return d == ir.ShapedType.get_dynamic_size()


def remove_dead_ops(root: ir.Operation, names: Iterable[str]) -> None:
    """Erases ops named in `names` whose results are unused, users first, in one reverse sweep."""
    names = set(names)
    for op in reversed(walk_ops(root)):
        if op.name in names and not op.regions and all(_unused(r) for r in op.results):
            op.erase()


def _unused(v: ir.Value) -> bool:
    for _ in v.uses:
        return False
    return True
