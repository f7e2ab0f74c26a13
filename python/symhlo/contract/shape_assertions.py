"""Call-time checks for the shape assertions of StableHLO from other exporters (jax.export)
(floor 1, contract).

symhlo-lower-shape-assertions (lib/lower_shape_assertions.py) turns each
`custom_call @shape_assertion` into a record on `@main`: a predicate and the message's arguments
as JSON expressions over the input sizes (`["ge", ["dim", 0, 0], 1]`; grammar in
lib/size_facts.py), and the exporter's message with `{0}`, `{1}` placeholders. This module reads
those records (data from a file: validated, never evaluated as code) and checks them before a call,
raising ShapeError with the exporter's own message.
"""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

from symhlo.passes.contract_attrs import SHAPE_ASSERTIONS

from ..errors import CompileError, ShapeError

_ARITY = {"neg": 1, "abs": 1, "sign": 1, "not": 1, "select": 3}
_BINARY = ("add", "sub", "mul", "div", "rem", "max", "min", "and", "or", "xor",
           "eq", "ne", "lt", "le", "gt", "ge")
_MAX_NODES = 10_000


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": _trunc_div, "rem": lambda a, b: a - b * _trunc_div(a, b),
    "max": max, "min": min, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "eq": lambda a, b: int(a == b), "ne": lambda a, b: int(a != b), "lt": lambda a, b: int(a < b),
    "le": lambda a, b: int(a <= b), "gt": lambda a, b: int(a > b), "ge": lambda a, b: int(a >= b),
    "neg": lambda a: -a, "abs": abs, "sign": lambda a: (a > 0) - (a < 0), "not": lambda a: 1 - a,
    "select": lambda c, a, b: a if c else b,
}


def validate(e: Any, num_inputs: int | None = None, _count: list | None = None) -> None:
    """Checks that `e` is an expression of the grammar (ValueError otherwise)."""
    count = _count if _count is not None else [0]
    count[0] += 1
    if count[0] > _MAX_NODES:
        raise ValueError("shape assertion expression too large")
    if type(e) is int:
        return
    if not isinstance(e, list) or not e or not isinstance(e[0], str):
        raise ValueError(f"not a size expression: {str(e)[:80]}")
    op, args = e[0], e[1:]
    if op == "dim":
        if len(args) != 2 or any(type(a) is not int or a < 0 for a in args) or (
                num_inputs is not None and args[0] >= num_inputs):
            raise ValueError(f"bad dim reference: {str(e)[:80]}")
        return
    arity = _ARITY.get(op, 2 if op in _BINARY else None)
    if arity is None or len(args) != arity:
        raise ValueError(f"unknown size operation: {str(e)[:80]}")
    for a in args:
        validate(a, num_inputs, count)


def evaluate(e: Any, shapes: Sequence[Sequence[int]]) -> int:
    """The value of a validated expression for the call's input shapes."""
    if type(e) is int:
        return e
    if e[0] == "dim":
        shape = shapes[e[1]]
        if e[2] >= len(shape):
            raise ShapeError(f"input {e[1]} has rank {len(shape)}; a shape assertion reads axis {e[2]}")
        return int(shape[e[2]])
    args = [evaluate(a, shapes) for a in e[1:]]
    if e[0] in ("div", "rem") and args[1] == 0:
        return 0  # StableHLO leaves x / 0 implementation-defined; never a Python error here
    return _OPS[e[0]](*args)


def from_json(records: Any, num_inputs: int | None = None) -> list[dict]:
    """Validated assertions `[{"cond": e, "args": [e, ...], "message": str}, ...]`."""
    if not isinstance(records, list):
        raise ValueError("shape assertions must be a list")
    out = []
    for r in records:
        if not isinstance(r, dict) or not isinstance(r.get("message"), str) \
                or not isinstance(r.get("args"), list):
            raise ValueError("a shape assertion needs cond, args and message")
        validate(r.get("cond"), num_inputs)
        for a in r["args"]:
            validate(a, num_inputs)
        out.append({"cond": r["cond"], "args": list(r["args"]), "message": r["message"]})
    return out


def read_func_attribute(func) -> list[dict]:
    """The assertions recorded on a torch_mlir `func.func` op (`symhlo.shape_assertions`)."""
    from torch_mlir import ir

    if SHAPE_ASSERTIONS not in func.attributes:
        return []
    num_inputs = len(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs)
    try:  # data from the file: parsed and validated, never evaluated as code
        records = []
        for a in ir.ArrayAttr(func.attributes[SHAPE_ASSERTIONS]):
            d = ir.DictAttr(a)
            records.append({"cond": json.loads(ir.StringAttr(d["cond"]).value),
                            "args": json.loads(ir.StringAttr(d["args"]).value),
                            "message": ir.StringAttr(d["message"]).value})
        return from_json(records, num_inputs)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError) as e:
        raise CompileError(f"@main: bad symhlo.shape_assertions: {type(e).__name__}: "
                           f"{str(e)[:200]}") from None


def _format(message: str, values: list[int]) -> str:
    """`{0}`-style placeholders -> values (only `{N}`: the message is data, not a format spec)."""
    def sub(m: re.Match) -> str:
        k = int(m.group(1))
        return str(values[k]) if k < len(values) else m.group(0)
    return re.sub(r"\{(\d+)\}", sub, message)


def check(assertions: Sequence[dict], shapes: Sequence[Sequence[int]]) -> None:
    """Raises ShapeError with the first failing assertion's message (in recorded order)."""
    for a in assertions:
        if not evaluate(a["cond"], shapes):
            raise ShapeError(_format(a["message"], [evaluate(x, shapes) for x in a["args"]]))


def import_foreign(module) -> bool:
    """Runs symhlo-import-foreign-stablehlo-pipeline on a module without symhlo's contract
    attributes (inlines jax's private calls, turns shape assertions into call-time checks).

    Returns:
      True when the module was foreign (and so changed in place), False for symhlo's own.
    Raises:
      CompileError: a shape assertion cannot be checked at call time (it names the op).
    """
    from symhlo.passes.registry import PipelineError, run_pipeline
    from symhlo.passes.size_facts import has_symhlo_contract

    if has_symhlo_contract(module):
        return False
    try:
        run_pipeline(module, "symhlo-import-foreign-stablehlo-pipeline")
    except PipelineError as e:
        raise CompileError(str(e)) from None
    return True
