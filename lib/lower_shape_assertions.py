"""symhlo-lower-shape-assertions: `custom_call @shape_assertion` -> call-time checks on `@main`.

jax.export states its shape rules (every symbolic dim >= 1, dims that share a name are equal, `2*k`
is even, ...) as side-effecting `stablehlo.custom_call @shape_assertion(%pred, %args...)` ops with
an `error_message` whose `{0}`, `{1}`, ... are the `%args`. IREE drops them silently, so a call
that breaks them would run anyway (and may read past a buffer). This pass reads each predicate
and message argument back to the sizes of `@main`'s arguments and records them on `@main`, where
symhlo's runtime checks them before every call (ShapeError with jax's message); the custom calls
go:

    func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %b = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
      %ok = stablehlo.compare GE, %b, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.custom_call @shape_assertion(%ok, %b) {error_message = "b = {0} < 1", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
      ...
  ==>
    func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {symhlo.shape_assertions = [
        {args = "[[\22dim\22, 0, 0]]", cond = "[\22ge\22, [\22dim\22, 0, 0], 1]", message = "b = {0} < 1"}]} {
      ...                                                    (no custom_call)

`cond` and `args` are JSON expressions over `["dim", argument, axis]` (lib/size_exprs.py gives
the grammar). A predicate that depends on anything but input sizes (tensor values), or an
assertion outside the entry function (run symhlo-inline-private-calls first), fails the pass
naming the op: a shape rule is never dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from torch_mlir import ir

from .ir_util import enclosing_func, walk_ops
from .registry import Pass, PassFailure
from .contract_attrs import SHAPE_ASSERTIONS
from .size_exprs import key as _key
from .size_facts import SizeFacts, main_function


def _has_opaque(e) -> bool:
    return isinstance(e, list) and (e[0] == "opaque" or any(_has_opaque(a) for a in e[1:]))


def _is_shape_assertion(op: ir.Operation) -> bool:
    return (op.name == "stablehlo.custom_call"
            and ir.StringAttr(op.attributes["call_target_name"]).value == "shape_assertion")


def implied_size_checks(main: ir.Operation, facts: SizeFacts) -> list[ir.Attribute]:
    """Checks for the size equalities StableHLO's op rules require of the inputs (the operands of
    `stablehlo.add %x, %y` have equal shapes): IREE trusts them, and a call breaking one would read
    past a buffer. Only equalities between input sizes not already the same expression."""
    from .ir_util import is_dynamic

    for op in walk_ops(main):
        for r in op.results:
            if isinstance(r.type, ir.RankedTensorType):
                for axis, size in enumerate(ir.RankedTensorType(r.type).shape):
                    if is_dynamic(size):
                        facts.dim(r, axis)
    out, seen = [], set()
    for a, b, op in facts.implied:
        key = tuple(sorted((_key(a), _key(b))))
        if key[0] == key[1] or key in seen or _has_opaque(a) or _has_opaque(b) \
                or isinstance(a, int) and isinstance(b, int):
            continue
        seen.add(key)
        line = str(op.location)
        out.append(ir.DictAttr.get({
            "cond": ir.StringAttr.get(json.dumps(["eq", a, b])),
            "args": ir.StringAttr.get(json.dumps([a, b])),
            "message": ir.StringAttr.get(
                f"input sizes {{0}} and {{1}} must be equal: {op.name} at {line} needs "
                f"{_describe(a)} == {_describe(b)}")}))
    return out


def _describe(e) -> str:
    if isinstance(e, list) and e and e[0] == "dim":
        return f"arg{e[1]}: axis {e[2]}"
    return json.dumps(e)


@dataclass(frozen=True)
class LowerShapeAssertions(Pass):
    """Record `custom_call @shape_assertion` ops as call-time checks on @main and erase them."""

    name = "symhlo-lower-shape-assertions"
    summary = ("custom_call @shape_assertion -> symhlo.shape_assertions on @main (checked before "
               "each call, with the assertion's message)")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            ops = [op for op in walk_ops(module.operation) if _is_shape_assertion(op)]
            main = main_function(module)
            if main is None and not ops:
                return
            diags = []
            facts = SizeFacts(main) if main is not None else None
            records = []
            for op in ops:
                parent = enclosing_func(op)
                if main is None or parent is None or parent != main:
                    diags.append((str(op.location), "shape assertion outside the entry function "
                                  "(run symhlo-inline-private-calls first)"))
                    continue
                exprs = [facts.scalar(v) for v in op.operands]
                if not exprs or any(e is None or _has_opaque(e) for e in exprs):
                    diags.append((str(op.location), "shape assertion whose predicate or message "
                                  "arguments do not follow from the input sizes"))
                    continue
                message = (ir.StringAttr(op.attributes["error_message"]).value
                           if "error_message" in op.attributes else "shape assertion failed")
                if exprs[0] == 1:
                    continue  # holds for every call
                records.append(ir.DictAttr.get({
                    "cond": ir.StringAttr.get(json.dumps(exprs[0])),
                    "args": ir.StringAttr.get(json.dumps(exprs[1:])),
                    "message": ir.StringAttr.get(message)}))
            if diags:
                raise PassFailure(f"{len(diags)} shape assertion(s) cannot be checked at call time",
                                  diags)
            records += implied_size_checks(main, facts)
            if SHAPE_ASSERTIONS in main.attributes:
                records = list(ir.ArrayAttr(main.attributes[SHAPE_ASSERTIONS])) + records
            if records:
                main.attributes[SHAPE_ASSERTIONS] = ir.ArrayAttr.get(records)
            for op in ops:
                op.erase()
