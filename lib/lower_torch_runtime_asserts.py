"""symhlo-lower-torch-runtime-asserts: the `torch.runtime.assert`s left on torch backend IR (the
`torch._check` / `aten._assert_scalar` facts torch.export keeps about data-dependent sizes) ->
erased when proven, else call-time checks: extra results of @main that the runtime wrapper reads.

A StableHLO program has no way to raise, and IREE drops `custom_call @shape_assertion`, so a check
that only the data can decide becomes a 0-d i64 result (1 = holds) appended to @main, and its
message is recorded in `symhlo.runtime_checks` (one string per extra result, in order). The
runtime wrapper strips those results and raises symhlo.RuntimeCheckError with the message when
one is 0. Proven conditions are erased: a data-dependent count that is a sum of values known
non-negative (a mask's popcount, `x.ne(0).sum()`) compared `>= 0`, the check torch.export adds
for every unbacked size. A value checked `>= c` and not proven is read as max(value, c) by its
other users, so a call whose check fails still sizes nothing negative before the wrapper raises.

    %n = torch.aten.Int.Tensor %k : !torch.vtensor<[],si64> -> !torch.int
    %c = torch.aten.le.int %n, %size : !torch.int, !torch.int -> !torch.bool
    torch.runtime.assert %c, "Runtime assertion failed for expression u0 <= s0 on node 'le'"
    return %y : !torch.vtensor<[?],f32>
  ==>
    %i = torch.aten.Int.bool %c : !torch.bool -> !torch.int
    %t = torch.prim.NumToTensor.Scalar %i : !torch.int -> !torch.vtensor<[],si64>
    return %y, %t : !torch.vtensor<[?],f32>, !torch.vtensor<[],si64>
    (@main gets symhlo.runtime_checks = ["Runtime assertion failed for expression u0 <= s0 ..."])
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder
from .contract_attrs import RUNTIME_CHECKS
from .ir_util import defining_op, ensure_upstream_registered, walk_ops
from .registry import Pass

# Ops whose value is >= 0 when their (tensor) operands are; a convert from i1 is >= 0 outright.
_NONNEG_IF_OPERANDS = {"torch.aten.sum", "torch.aten.sum.dim_IntList", "torch.aten.to.dtype",
                       "torch.prims.convert_element_type", "torch.aten.add.Tensor",
                       "torch.aten.mul.Tensor", "torch.aten.Int.Tensor", "torch.aten.item",
                       "torch.aten._local_scalar_dense", "torch_c.to_i64", "arith.index_cast",
                       "torch_c.from_i64", "arith.addi", "arith.muli", "torch.aten.add.int",
                       "torch.aten.mul.int", "torch.aten.abs", "torch.aten.amax", "torch.aten.max"}


def _is_bool_tensor(v: ir.Value) -> bool:
    return str(v.type).endswith(",i1>") or str(v.type).endswith("[],i1>") or str(v.type) == "i1"


def known_nonnegative(v: ir.Value, depth: int = 0) -> bool:
    """Whether `v` (a tensor, `!torch.int` or integer/index scalar) is provably >= 0."""
    if depth > 24:
        return False
    if _is_bool_tensor(v):
        return True
    d = defining_op(v)
    if d is None:
        return False
    if d.name in ("torch.constant.int", "arith.constant"):
        try:
            return ir.IntegerAttr(d.attributes["value"]).value >= 0
        except (ValueError, TypeError):
            return False
    if d.name in ("torch.aten.size.int", "shape.get_extent", "tensor.dim"):
        return True
    if d.name in ("torch.aten.to.dtype", "torch.prims.convert_element_type") and _is_bool_tensor(d.operands[0]):
        return True
    if d.name in _NONNEG_IF_OPERANDS:
        operands = [o for o in d.operands
                    if str(o.type).startswith(("!torch.vtensor", "!torch.int", "i64", "index"))
                    and not (d.name.startswith("torch.aten.sum") and o != d.operands[0])
                    and not (d.name in ("torch.aten.to.dtype", "torch.prims.convert_element_type",
                                        "torch.aten.amax", "torch.aten.max") and o != d.operands[0])]
        if d.name in ("torch.aten.add.Tensor",):
            operands = list(d.operands[:2])
        return bool(operands) and all(known_nonnegative(o, depth + 1) for o in operands)
    return False


def _condition(v: ir.Value) -> tuple[str, ir.Value, ir.Value] | None:
    """(predicate, lhs, rhs) of the comparison an assert's `!torch.bool` comes from."""
    d = defining_op(v)
    while d is not None and d.name in ("torch.aten.Bool.int", "torch.aten.Int.bool", "torch_c.from_i1"):
        d = defining_op(d.operands[0])
    if d is None:
        return None
    if d.name == "arith.cmpi":
        pred = ["eq", "ne", "slt", "sle", "sgt", "sge"][ir.IntegerAttr(d.attributes["predicate"]).value] \
            if ir.IntegerAttr(d.attributes["predicate"]).value < 6 else None
        return (pred, d.operands[0], d.operands[1]) if pred else None
    names = {"torch.aten.ge.int": "sge", "torch.aten.gt.int": "sgt", "torch.aten.le.int": "sle",
             "torch.aten.lt.int": "slt", "torch.aten.eq.int": "eq", "torch.aten.ne.int": "ne"}
    if d.name in names:
        return names[d.name], d.operands[0], d.operands[1]
    return None


def _constant(v: ir.Value):
    d = defining_op(v)
    if d is not None and d.name in ("torch.constant.int", "arith.constant"):
        try:
            return ir.IntegerAttr(d.attributes["value"]).value
        except (ValueError, TypeError):
            return None
    return None


def proven(cond: ir.Value) -> bool:
    """Whether an assert's condition always holds: `a >= 0` (or `0 <= a`, `a > -1`) of a value
    known non-negative."""
    c = _condition(cond)
    if c is None:
        return False
    pred, lhs, rhs = c
    if pred in ("sle", "slt"):
        pred, lhs, rhs = {"sle": "sge", "slt": "sgt"}[pred], rhs, lhs
    bound = _constant(rhs)
    if bound is None:
        return False
    if pred == "sge" and bound <= 0 or pred == "sgt" and bound < 0:
        return known_nonnegative(lhs)
    return False


def _source_int(v: ir.Value) -> ir.Value | None:
    """The `!torch.int` an index / i64 comparison operand was cast from, if any."""
    while str(v.type) != "!torch.int":
        d = defining_op(v)
        if d is None or d.name not in ("arith.index_cast", "torch_c.to_i64") or not d.operands:
            return None
        v = d.operands[0]
    return v


def clamp_below(v: ir.Value, bound: int, keep: ir.Operation) -> None:
    """Every use of the `!torch.int` `v` except `keep`'s chain reads max(v, bound) instead: a
    data-dependent size whose `>= bound` check fails at call time still sizes nothing negative
    (the check's result reports it; the program must not allocate or index with it first)."""
    chain = _chain(keep.operands[0])
    uses = [(u.owner, u.operand_number) for u in v.uses]
    uses = [(o, k) for o, k in uses if not any(o == c for c in chain)]
    if not uses:
        return
    b = OpBuilder(ip=ir.InsertionPoint.after(defining_op(v)), loc=keep.location)
    i64 = ir.IntegerType.get_signless(64)
    raw = b.value("torch_c.to_i64", [i64], [v])
    clamped = b.value("arith.maxsi", [i64], [raw, b.constant(i64, bound)])
    safe = b.value("torch_c.from_i64", [ir.Type.parse("!torch.int")], [clamped])
    for owner, k in uses:
        owner.operands[k] = safe


def _chain(cond: ir.Value) -> list:
    """The ops from an assert's condition back to its `!torch.int` operands."""
    out, work = [], [cond]
    while work:
        d = defining_op(work.pop())
        if d is None or d.name in ("torch.aten.Int.Tensor", "torch.aten.item",
                                   "torch.aten._local_scalar_dense", "torch.constant.int",
                                   "arith.constant"):
            continue
        out.append(d)
        work.extend(d.operands)
    return out


def lower_torch_runtime_assert(op: ir.Operation, checks: list) -> bool:
    """torch.runtime.assert -> erased when proven, else its condition as a 0-d si64 tensor
    (appended to `checks` with its message); the value a `v >= c` check bounds is clamped to c
    for its other uses. Returns whether it was erased as proven."""
    cond = op.operands[0]
    if proven(cond):
        op.erase()
        return True
    c = _condition(cond)
    if c is not None:
        pred, lhs, rhs = c
        if pred in ("sle", "slt"):
            pred, lhs, rhs = {"sle": "sge", "slt": "sgt"}[pred], rhs, lhs
        bound = _constant(rhs)
        source = _source_int(lhs)
        if bound is not None and pred in ("sge", "sgt") and source is not None \
                and defining_op(source) is not None:
            clamp_below(source, bound if pred == "sge" else bound + 1, op)
    b = OpBuilder(op)
    i = b.value("torch.aten.Int.bool", [ir.Type.parse("!torch.int")], [cond])
    t = b.value("torch.prim.NumToTensor.Scalar", [ir.Type.parse("!torch.vtensor<[],si64>")], [i])
    checks.append((t, ir.StringAttr(op.attributes["message"]).value))
    op.erase()
    return False


def _append_results(func: ir.Operation, checks: list) -> None:
    """Appends the check tensors to `func`'s return and type, and their messages to its
    symhlo.runtime_checks."""
    block = func.regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1].operation
    # The checks are computed where their asserts were; returning them needs them before the
    # return, which they are (same block). Asserts nested in regions are not lowered here.
    values = list(ret.operands) + [t for t, _ in checks]
    OpBuilder(ret).create("func.return", [], values)
    ret.erase()
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(list(ftype.inputs), [v.type for v in values]))
    old = [ir.StringAttr(s).value for s in ir.ArrayAttr(func.attributes[RUNTIME_CHECKS])] \
        if RUNTIME_CHECKS in func.attributes else []
    func.attributes[RUNTIME_CHECKS] = ir.ArrayAttr.get(
        [ir.StringAttr.get(m) for m in old + [m for _, m in checks]])


@dataclass(frozen=True)
class LowerTorchRuntimeAsserts(Pass):
    """torch.runtime.assert -> erased when proven, else a call-time check result of @main."""

    name = "symhlo-lower-torch-runtime-asserts"
    summary = ("torch.runtime.assert (torch._check on data-dependent sizes) -> erased when proven, "
               "else an extra 0-d result of the function named in symhlo.runtime_checks")

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            for func in [op.operation for op in module.body.operations]:
                if func.name != "func.func" or not func.regions or not func.regions[0].blocks \
                        or "sym_visibility" in func.attributes:
                    continue   # only public functions (@main) get check results; callees keep theirs
                checks: list = []
                for op in walk_ops(func):
                    if op.name == "torch.runtime.assert" and op.parent.name == "func.func":
                        lower_torch_runtime_assert(op, checks)
                if checks:
                    _append_results(func, checks)
