"""symhlo-lower-torch-control-flow: torch.prim.If -> stablehlo.if, while-form torch.prim.Loop ->
stablehlo.while, on torch backend IR, `?` dims and all.

convert-torch-to-stablehlo has no pattern for torch's region ops (torch-mlir's own path sends them
to `scf`, which is not StableHLO). symhlo imports `torch.cond` as `torch.prim.If` and
torch.export's `while_loop` as torch-mlir's `torch.prim.Loop` (trip count INT64_MAX, the
condition re-evaluated at the end of each iteration); this pass moves their regions into the
StableHLO ops unchanged, so the torch ops inside are converted with everything else and every
`?` size inside is computed from the region's own values (get_dimension_size of a block
argument: a size that changes from one iteration to the next stays `?`):

    %r = torch.prim.If %b -> (!torch.vtensor<[?,4],f32>) {
      ... torch.prim.If.yield %t
    } else { ... torch.prim.If.yield %f }
  ==>
    %p = torch_c.to_builtin_tensor %pred : !torch.vtensor<[],i1> -> tensor<i1>
         (or tensor.from_elements (torch_c.to_i1 %b) for a size predicate; both end as a
          0-d StableHLO predicate after symhlo-shape-to-stablehlo)
    %i = "stablehlo.if"(%p) ({ ... stablehlo.return %t' }, { ... stablehlo.return %f' })
    %r = torch_c.from_builtin_tensor %i : tensor<?x4xf32> -> !torch.vtensor<[?,4],f32>

    %r = torch.prim.Loop %int64_max, %c0, init(%x) {
    ^bb0(%iter: !torch.int, %x1: !torch.vtensor<[?],f32>):
      %y = ... ; %c1 = <condition of %y>
      torch.prim.Loop.condition %c1, iter(%y)
    } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  ==>
    %w = stablehlo.while(%x1 = %x') : tensor<?xf32>
      cond { %c = <condition of %x1> ; stablehlo.return %c }
      do { %y = ... ; stablehlo.return %y' }
    %r = torch_c.from_builtin_tensor %w

The condition's ops are cloned into `cond` when they read only what the body yields (as
while_loop, scan and map import); otherwise the go/stop flag is carried as the first loop value
(`cond { stablehlo.return %go }`, the body returning the next flag). A `torch.prim.Loop` with a
finite trip count or whose body reads the iteration counter is left alone (and fails later by
name).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, torch_constant_int, vtensor_builtin_type
from .contract_attrs import UNBOUNDED
from .ir_util import defining_op, ensure_upstream_registered, walk_ops
from .registry import Pass, PassFailure


def _i1_scalar_type() -> ir.Type:
    return ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))


def _builtin(v: ir.Value, what: str, op: ir.Operation) -> ir.Type:
    t = vtensor_builtin_type(v.type)
    if t is None:
        raise PassFailure(f"{op.name}: a {what} of type {v.type} is not a tensor",
                          [(str(op.location), f"symhlo lowers control flow over tensors only, "
                            f"not {v.type}")])
    return t[0]


def predicate(b: OpBuilder, cond: ir.Value) -> ir.Value:
    """A `!torch.bool` -> the 0-d tensor<i1> StableHLO branches on.

    `torch.aten.Bool.Tensor %t` of a one-element bool tensor is `%t` itself; any other bool (a
    size comparison, `torch_c.from_i1 (arith.cmpi ...)` by now) goes through torch_c.to_i1 and
    tensor.from_elements, which symhlo-shape-to-stablehlo turns into the compare's own 0-d result.
    """
    d = defining_op(cond)
    if d is not None and d.name == "torch.aten.Bool.Tensor":
        t = vtensor_builtin_type(d.operands[0].type)
        if t is not None and t[1] == "i1" and all(s == 1 for s in t[0].shape):
            p = b.value("torch_c.to_builtin_tensor", [t[0]], [d.operands[0]])
            return p if t[0].rank == 0 else b.hlo_reshape(p, [])
    i1 = b.value("torch_c.to_i1", [ir.IntegerType.get_signless(1)], [cond])
    return b.value("tensor.from_elements", [_i1_scalar_type()], [i1])


def _move_body(src: ir.Block, dst: ir.Block) -> ir.Operation:
    """Moves every op of `src` to the end of `dst`; returns the moved terminator."""
    ops = [o.operation for o in src.operations]
    ip = ir.InsertionPoint(dst)
    for o in ops:
        o.detach_from_parent()
        ip.insert(o)
    return ops[-1]


def _to_builtin(b: OpBuilder, values, types) -> list[ir.Value]:
    return [b.value("torch_c.to_builtin_tensor", [t], [v]) for v, t in zip(values, types)]


def _from_builtin(b: OpBuilder, values, torch_types) -> list[ir.Value]:
    return [b.value("torch_c.from_builtin_tensor", [t], [v]) for v, t in zip(values, torch_types)]


def convert_torch_prim_if(op: ir.Operation) -> None:
    """torch.prim.If -> stablehlo.if with the same regions."""
    b = OpBuilder(op)
    result_types = [_builtin(r, "result", op) for r in op.results]
    pred = predicate(b, op.operands[0])
    new = b.create("stablehlo.if", result_types, [pred], regions=2)
    for old_region, new_region in zip(op.regions, new.regions):
        block = new_region.blocks.append()
        yield_op = _move_body(old_region.blocks[0], block)
        rb = OpBuilder(yield_op)
        rb.create("stablehlo.return", [], _to_builtin(rb, yield_op.operands, result_types))
        yield_op.erase()
    for old, value in zip(op.results, _from_builtin(b, new.results, [r.type for r in op.results])):
        old.replace_all_uses_with(value)
    cond = op.operands[0]
    op.erase()
    _erase_dead(cond)  # a torch.aten.Bool.Tensor the predicate was read through


def _condition_slice(body: ir.Block, go: ir.Value, values: list[ir.Value]):
    """The ops of `body` computing the loop condition `go` from the yielded `values` (and values
    from outside the loop), in block order; None when it also reads anything else of the
    iteration (a block argument: the values before the step, or a body value not yielded)."""
    block_ops = [o.operation for o in body.operations]
    inside = {o: k for k, o in enumerate(block_ops)}
    picked: set[int] = set()
    work = [go]
    while work:
        v = work.pop()
        if any(v == y for y in values):
            continue
        if isinstance(v.owner, ir.Block):
            if v.owner == body:
                return None
            continue  # an argument of an enclosing block: from outside the loop
        d = defining_op(v)
        k = inside.get(d)
        if k is None or k in picked:
            continue
        picked.add(k)
        for nested in walk_ops(d):  # operands of ops in the op's own regions, too
            work.extend(nested.operands)
        work.extend(d.operands)
    return [block_ops[k] for k in sorted(picked)]


def _clone_condition(ops: list[ir.Operation], go: ir.Value, values: list[ir.Value],
                     args: list[ir.Value], b: OpBuilder) -> ir.Value:
    """Clones `ops` at `b`, reading `args[i]` where they read `values[i]`; returns `go`'s clone."""
    mapping = list(zip(values, args))

    def mapped(v: ir.Value) -> ir.Value:
        return next((new for old, new in mapping if old == v), v)

    for o in ops:
        c = o.clone(ip=b.ip)
        for inner in [c] + walk_ops(c):
            for i, v in enumerate(inner.operands):
                m = mapped(v)
                if m != v:
                    inner.operands[i] = m
        mapping.extend(zip(o.results, c.results))
    return mapped(go)


def _erase_dead(v: ir.Value) -> None:
    """Erases the op defining `v` once nothing uses it, then its operands' ops likewise."""
    d = defining_op(v)
    if d is None or len(d.regions) or any(len(list(r.uses)) for r in d.results):
        return
    operands = list(d.operands)
    d.erase()
    for o in operands:
        _erase_dead(o)


def convert_torch_prim_loop_while(op: ir.Operation) -> bool:
    """torch.prim.Loop (trip count INT64_MAX, counter unused) -> stablehlo.while. Returns False
    (left alone) for any other loop.

    When the condition at the end of the body reads only the values the body yields (what
    while_loop, scan and map import as), its ops are cloned into the `cond` region, on the
    region's arguments: StableHLO's own form, which IREE's Vulkan target needs (it fails on a
    `?`-shaped loop carrying a data-dependent flag). Otherwise the go/stop flag is carried as the
    first loop value and `cond` returns it.
    """
    max_trip, init_cond, *inits = op.operands
    body = op.regions[0].blocks[0]
    if torch_constant_int(max_trip) != UNBOUNDED or len(list(body.arguments[0].uses)) != 0:
        return False
    b = OpBuilder(op)
    torch_types = [r.type for r in op.results]
    types = [_builtin(r, "loop value", op) for r in op.results]
    term = [o.operation for o in body.operations][-1]
    go, *yielded = term.operands
    cond_ops = _condition_slice(body, go, list(yielded))
    flag = [] if cond_ops is not None else [_i1_scalar_type()]
    operands = ([] if cond_ops is not None else [predicate(b, init_cond)]) + \
        _to_builtin(b, inits, types)
    loop_types = flag + types
    new = b.create("stablehlo.while", loop_types, operands, regions=2)
    cond_block = new.regions[0].blocks.append(*loop_types)
    cb = OpBuilder(ip=ir.InsertionPoint(cond_block), loc=op.location)
    if cond_ops is not None:
        args = _from_builtin(cb, list(cond_block.arguments), torch_types)
        stop = _clone_condition(cond_ops, go, list(yielded), args, cb)
        cb.create("stablehlo.return", [], [predicate(cb, stop)])
        _erase_dead(stop)  # the bool a tensor predicate was read through
    else:
        cb.create("stablehlo.return", [], [cond_block.arguments[0]])
    body_block = new.regions[1].blocks.append(*loop_types)
    entry = OpBuilder(ip=ir.InsertionPoint(body_block), loc=op.location)
    carried = _from_builtin(entry, list(body_block.arguments)[len(flag):], torch_types)
    for old, value in zip(list(body.arguments)[1:], carried):
        old.replace_all_uses_with(value)
    term = _move_body(body, body_block)
    tb = OpBuilder(term)
    go, *values = term.operands
    head = [predicate(tb, go)] if flag else []
    tb.create("stablehlo.return", [], head + _to_builtin(tb, values, types))
    term.erase()
    _erase_dead(go)  # the condition's ops in the body now computed in `cond`, or the bool read through
    for old, value in zip(op.results, _from_builtin(b, list(new.results)[len(flag):], torch_types)):
        old.replace_all_uses_with(value)
    op.erase()
    _erase_dead(init_cond)  # the first condition, before the loop (or the bool it was read through)
    return True


@dataclass(frozen=True)
class LowerTorchControlFlow(Pass):
    """Lower torch.prim.If and while-form torch.prim.Loop to stablehlo.if / stablehlo.while."""

    name = "symhlo-lower-torch-control-flow"
    summary = "torch.prim.If -> stablehlo.if; while-form torch.prim.Loop -> stablehlo.while"

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            # Outermost first: an inner region op moves along with its parent's region, intact,
            # and is converted where it lands (the snapshot holds it either way).
            apply_patterns(module.operation, {"torch.prim.If": convert_torch_prim_if,
                                              "torch.prim.Loop": convert_torch_prim_loop_while})
