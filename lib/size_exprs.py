"""Size expressions: the one grammar, builder and evaluator of sizes over a function's inputs,
and the one parser of their text form (the contract's `symhlo.arg_shapes`: `parse`, below).

Not a pass, and no MLIR: lib/size_facts.py derives these expressions from the IR,
symhlo-lower-shape-assertions records them on @main (`symhlo.shape_assertions`), and
python/symhlo/contract/shape_assertions.py validates the recorded ones and evaluates them at
call time. Expressions are JSON-friendly trees over the function's argument sizes:

    ["dim", k, axis]            size of argument k along `axis` (the leaves)
    7                           an integer constant (booleans are 0 / 1)
    ["add", a, b], ["sub", ...], ["mul", ...], ["div", ...] (truncating, as stablehlo.divide),
    ["rem", ...] (sign of the dividend), ["max", ...], ["min", ...], ["neg", a], ["abs", a],
    ["sign", a], ["and", a, b], ["or", ...], ["xor", ...], ["not", a] (booleans),
    ["eq" | "ne" | "lt" | "le" | "gt" | "ge", a, b], ["select", c, a, b]
    ["opaque", n, axis]         a size the analysis cannot express (equal only to itself; never
                                recorded, so `validate` refuses it)
"""

from __future__ import annotations

import json
from typing import Any, Sequence

Expr = Any  # int | list

_MAX_NODES = 10_000


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trunc_rem(a: int, b: int) -> int:
    return a - b * _trunc_div(a, b)


# Each operation's value on integers (x / 0 and x % 0 are None: no value).
OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: _trunc_div(a, b) if b else None,
    "rem": lambda a, b: _trunc_rem(a, b) if b else None,
    "max": max, "min": min, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "eq": lambda a, b: int(a == b), "ne": lambda a, b: int(a != b), "lt": lambda a, b: int(a < b),
    "le": lambda a, b: int(a <= b), "gt": lambda a, b: int(a > b), "ge": lambda a, b: int(a >= b),
    "neg": lambda a: -a, "abs": abs, "sign": lambda a: (a > 0) - (a < 0), "not": lambda a: 1 - a,
    "select": lambda c, a, b: a if c else b,
}
_ARITY = {"neg": 1, "abs": 1, "sign": 1, "not": 1, "select": 3}


def key(e: Expr) -> str:
    """One spelling of `e` (to compare and hash expressions)."""
    return json.dumps(e)


def make(op: str, *args: Expr) -> Expr:
    """Builds `[op, *args]`, folding constants and a few identities."""
    if all(isinstance(a, int) for a in args):
        v = OPS[op](*args)
        if v is not None:
            return v
    if op in ("add", "sub") and args[1] == 0:
        return args[0]
    if op == "add" and args[0] == 0:
        return args[1]
    if op == "mul" and 1 in args:
        return args[1] if args[0] == 1 else args[0]
    if op == "div" and args[1] == 1:
        return args[0]
    if op == "and" and 0 in args:      # bitwise, as stablehlo.and: also for i1
        return 0
    if op == "or" and 0 in args:
        return args[1] if args[0] == 0 else args[0]
    if op == "select" and isinstance(args[0], int):
        return args[1] if args[0] else args[2]
    if op == "select" and key(args[1]) == key(args[2]):
        return args[1]
    if op in ("add", "mul", "max", "min", "eq", "ne", "and", "or") and key(args[1]) < key(args[0]):
        args = (args[1], args[0])  # commutative: one spelling
    return [op, *args]


def validate(e: Any, num_inputs: int | None = None, _count: list | None = None) -> None:
    """Checks that `e` (data, e.g. read from a file) is an expression of the grammar without an
    opaque leaf, and not over `num_inputs` inputs when given (ValueError otherwise)."""
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
    arity = _ARITY.get(op, 2 if op in OPS else None)
    if arity is None or len(args) != arity:
        raise ValueError(f"unknown size operation: {str(e)[:80]}")
    for a in args:
        validate(a, num_inputs, count)


def evaluate(e: Expr, shapes: Sequence[Sequence[int]]) -> int:
    """The value of `e` for the argument shapes `shapes`. x / 0 and x % 0 are 0 (StableHLO leaves
    them implementation-defined; never a Python error here). ValueError for an opaque leaf or an
    axis past an argument's rank."""
    if isinstance(e, int):
        return e
    if e[0] == "dim":
        shape = shapes[e[1]]
        if e[2] >= len(shape):
            raise ValueError(f"input {e[1]} has rank {len(shape)}; a shape assertion reads axis {e[2]}")
        return int(shape[e[2]])
    if e[0] == "opaque":
        raise ValueError("an opaque size has no value")
    v = OPS[e[0]](*(evaluate(a, shapes) for a in e[1:]))
    return 0 if v is None else v


# -- the text form ----------------------------------------------------------------------------------
# The contract spells sizes as text over symbol names (`symhlo.arg_shapes`,
# `symhlo.result_shapes`, the sides of `symhlo.relations`): `h`, `2*h + 1`, `(s//2)`,
# `Mod(s, 8)`, `floor(s/2)`, the way sympy prints them. `parse` reads such text into the tree
# form, with two more leaves and a few operations only text has:
#
#   ["sym", name]               the value of a symbol
#   ["floordiv", a, b], ["mod", a, b]   Python's // and % (floor; sign of the divisor)
#   ["truediv", a, b] (exact), ["pow", a, k] (0 <= k <= 8), ["floor", a], ["ceiling", a]
#
# python/symhlo/contract reads the tree as sympy (dims.parse_shape_expr), symhlo-fold-size-ranges
# as an interval. Text is data (a saved module, an .mlir file): it is parsed, never evaluated.

# The functions the text may call (torch's sympy spellings and Python's), by arity.
_TEXT_CALLS = {"Mod": "mod", "PythonMod": "mod", "FloorDiv": "floordiv", "CeilDiv": "ceildiv",
               "floor": "floor", "ceiling": "ceiling", "Max": "max", "Min": "min",
               "max": "max", "min": "min"}
_MAX_TEXT = 4096


def symbols(e: Expr) -> set[str]:
    """The symbols an expression reads."""
    if not isinstance(e, list):
        return set()
    if e[0] == "sym":
        return {e[1]}
    return set().union(*(symbols(a) for a in e[1:]))


def parse(text: str) -> Expr:
    """Size-expression text (`2*s0 + 1`, `(s0//2)`, `Mod(s0, 8)`) -> the tree form, without eval:
    only integers, symbol names, + - * / // % ** (small literal exponents) and the functions of
    _TEXT_CALLS are read. `CeilDiv(a, b)` reads as ceiling(a / b); Max / Min of more than two
    operands nest (of one, are it).

    Raises:
      ValueError: anything else.
    """
    return _parse_text(text, comparison=False)


# Functions torch.export's guard code calls on sizes (its float guards), read by parse_relation.
GUARD_CALLS = ("math.trunc", "math.floor", "math.ceil", "torch.sym_float", "float", "int", "abs",
               "max", "min", "torch.sym_max", "torch.sym_min")


def parse_relation(text: str) -> Expr:
    """A relation the contract relies on (`symhlo.relations`, torch.export's input guards) ->
    a tree, without eval: comparisons joined by and / or / not (["and", a, b], ["or", a, b],
    ["not", a]; `a <= b < c` is ["and", ["le", a, b], ["lt", b, c]]), each side a size
    expression as `parse` reads it, or, where it is none, ["number", t]: one of torch's float
    guards (`math.trunc(1.7 * torch.sym_float(s0)) == 6`), which the caller evaluates with
    Python's int and float arithmetic. t reads int / float literals, ["sym", name], add, sub,
    mul, truediv, floordiv, mod, neg, ["pow", a, k] (0 <= k <= 8) and ["call", f, *args] for f
    in GUARD_CALLS.

    Raises:
      ValueError: anything else.
    """
    import ast

    if not isinstance(text, str):
        raise ValueError(f"not a size relation: {str(text)[:80]!r}")
    src = text.strip()
    try:
        tree = ast.parse(src, mode="eval")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        raise ValueError(f"not a size relation: {text[:80]!r}") from None
    binops = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
              ast.FloorDiv: "floordiv", ast.Mod: "mod"}

    def unexpected(n: ast.AST) -> ValueError:
        return ValueError(f"not a size relation: {text[:80]!r} (unexpected {type(n).__name__})")

    def name_of(f: ast.AST) -> str | None:
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            return f"{f.value.id}.{f.attr}"
        return None

    def number(n: ast.AST, depth: int = 0) -> Expr:
        if depth > 64:
            raise ValueError(f"guard expression nested too deeply: {text[:80]!r}")
        if isinstance(n, ast.Constant) and type(n.value) in (int, float):
            return n.value
        if isinstance(n, ast.Name) and not n.id.startswith("_") and n.id not in GUARD_CALLS:
            return ["sym", n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = number(n.operand, depth + 1)
            return ["neg", v] if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and type(n.op) in binops:
            return [binops[type(n.op)], number(n.left, depth + 1), number(n.right, depth + 1)]
        if (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and isinstance(n.right, ast.Constant)
                and type(n.right.value) is int and 0 <= n.right.value <= 8):
            return ["pow", number(n.left, depth + 1), n.right.value]
        if (isinstance(n, ast.Call) and name_of(n.func) in GUARD_CALLS and not n.keywords
                and 1 <= len(n.args) <= 8):
            return ["call", name_of(n.func), *[number(a, depth + 1) for a in n.args]]
        raise unexpected(n)

    def side(n: ast.AST) -> Expr:
        try:   # a size expression, read as `parse` reads its text
            return parse(ast.get_source_segment(src, n) or "")
        except ValueError:
            return ["number", number(n)]

    def build(n: ast.AST) -> Expr:
        if isinstance(n, ast.BoolOp):
            op, parts = ("and" if isinstance(n.op, ast.And) else "or"), [build(v) for v in n.values]
            out = parts[0]
            for p in parts[1:]:
                out = [op, out, p]
            return out
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return ["not", build(n.operand)]
        if isinstance(n, ast.Compare) and all(type(o).__name__ in _COMPARISONS for o in n.ops):
            sides = [side(n.left)] + [side(c) for c in n.comparators]
            out = None
            for o, a, b in zip(n.ops, sides, sides[1:]):
                cmp = [_COMPARISONS[type(o).__name__], a, b]
                out = cmp if out is None else ["and", out, cmp]
            return out
        raise unexpected(n)

    try:
        return build(tree.body)
    except RecursionError:
        raise ValueError(f"size relation nested too deeply: {text[:80]!r}") from None


def parse_comparison(text: str) -> Expr:
    """One comparison of two size expressions (`2*h <= n`) -> ["le", a, b] (eq, ne, lt, le, gt,
    ge), the sides read as by `parse`. Chained comparisons and and / or / not are refused
    (ValueError), like anything else."""
    return _parse_text(text, comparison=True)


_COMPARISONS = {"Eq": "eq", "NotEq": "ne", "Lt": "lt", "LtE": "le", "Gt": "gt", "GtE": "ge"}


def _parse_text(text: str, comparison: bool) -> Expr:
    import ast

    if not isinstance(text, str) or len(text) > _MAX_TEXT:
        raise ValueError(f"not a size expression: {str(text)[:80]!r}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        raise ValueError(f"not a size expression: {text[:80]!r}") from None
    binops = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
              ast.FloorDiv: "floordiv", ast.Mod: "mod"}

    def build(n: ast.AST) -> Expr:
        if isinstance(n, ast.Constant) and type(n.value) is int and abs(n.value) < 2**64:
            return n.value
        if isinstance(n, ast.Name) and not n.id.startswith("_") and n.id not in _TEXT_CALLS:
            return ["sym", n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = build(n.operand)
            return ["neg", v] if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and type(n.op) in binops:
            return [binops[type(n.op)], build(n.left), build(n.right)]
        if (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and isinstance(n.right, ast.Constant)
                and type(n.right.value) is int and 0 <= n.right.value <= 8):
            return ["pow", build(n.left), n.right.value]
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _TEXT_CALLS
                and not n.keywords and 1 <= len(n.args) <= 8):
            op, args = _TEXT_CALLS[n.func.id], [build(a) for a in n.args]
            if op in ("floor", "ceiling") and len(args) == 1:
                return [op, args[0]]
            if op == "ceildiv" and len(args) == 2:
                return ["ceiling", ["truediv", *args]]
            if op in ("mod", "floordiv") and len(args) == 2:
                return [op, *args]
            if op in ("max", "min"):
                out = args[0]
                for a in args[1:]:
                    out = [op, out, a]
                return out
        raise ValueError(f"not a size expression: {text[:80]!r} (unexpected {type(n).__name__})")

    body = tree.body
    try:
        if not comparison:
            return build(body)
        if not (isinstance(body, ast.Compare) and len(body.ops) == 1
                and type(body.ops[0]).__name__ in _COMPARISONS):
            raise ValueError(f"not a size comparison: {text[:80]!r}")
        return [_COMPARISONS[type(body.ops[0]).__name__], build(body.left), build(body.comparators[0])]
    except RecursionError:
        raise ValueError(f"size expression nested too deeply: {text[:80]!r}") from None
