"""Call-time checks for the shape assertions of StableHLO from other exporters (jax.export)
(floor 1, contract).

symhlo-lower-shape-assertions (lib/lower_shape_assertions.py) turns each
`custom_call @shape_assertion` into a record on `@main`: a predicate and the message's arguments
as JSON expressions over the input sizes (`["ge", ["dim", 0, 0], 1]`; the one grammar and
evaluator are lib/size_exprs.py), and the exporter's message with `{0}`, `{1}` placeholders.
This module reads those records (data from a file: validated, never evaluated as code) and
checks them before a call, raising ShapeError with the exporter's own message.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from torch_mlir import ir

from symhlo.passes.contract_attrs import SHAPE_ASSERTIONS
from symhlo.passes.registry import PipelineError, run_pipeline
from symhlo.passes.size_exprs import evaluate, validate
from symhlo.passes.size_facts import has_symhlo_contract, recorded_assertions

from ..errors import CompileError, ShapeError


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
    if SHAPE_ASSERTIONS not in func.attributes:
        return []
    num_inputs = len(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs)
    try:  # data from the file: parsed and validated, never evaluated as code
        return from_json(recorded_assertions(func), num_inputs)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError) as e:
        raise CompileError(f"@main: bad symhlo.shape_assertions: {type(e).__name__}: "
                           f"{str(e)[:200]}") from None


def _format(message: str, values: list[int]) -> str:
    """`{0}`-style placeholders -> values (only `{N}`: the message is data, not a format spec)."""
    def sub(m: re.Match) -> str:
        k = int(m.group(1))
        return str(values[k]) if k < len(values) else m.group(0)
    return re.sub(r"\{(\d+)\}", sub, message)


def _value(e, shapes: Sequence[Sequence[int]]) -> int:
    try:
        return evaluate(e, shapes)
    except ValueError as err:  # an axis past an input's rank (validated records have no opaque leaf)
        raise ShapeError(str(err)) from None


def check(assertions: Sequence[dict], shapes: Sequence[Sequence[int]]) -> None:
    """Raises ShapeError with the first failing assertion's message (in recorded order)."""
    for a in assertions:
        if not _value(a["cond"], shapes):
            raise ShapeError(_format(a["message"], [_value(x, shapes) for x in a["args"]]))


def import_foreign(module) -> bool:
    """Runs symhlo-import-foreign-stablehlo-pipeline on a module without symhlo's contract
    attributes (inlines jax's private calls, turns shape assertions into call-time checks).

    Returns:
      True when the module was foreign (and so changed in place), False for symhlo's own.
    Raises:
      CompileError: a shape assertion cannot be checked at call time (it names the op).
    """
    if has_symhlo_contract(module):
        return False
    try:
        run_pipeline(module, "symhlo-import-foreign-stablehlo-pipeline")
    except PipelineError as e:
        raise CompileError(str(e)) from None
    return True
