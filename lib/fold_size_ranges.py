"""symhlo-fold-size-ranges-for-iree: size arithmetic that the symbols' ranges decide -> its value.

torch-mlir lowers `x[:, 1:2]` with Python's slice rules spelled out on the sizes: the start is
`n + min(n, max(-n, 1))` or `min(n, max(-n, 1))` depending on its sign, clamped to the axis. For
any n >= 1 that is the constant 1, but the IR computes it from `get_dimension_size`, so IREE
sees a dynamic offset. Two such slices of one tensor fused into one elementwise op fail to
compile in IREE 3.13 ("write affecting operations on global resources are restricted to
workgroup distributed contexts"); with constant offsets the same module compiles.

This pass gives each 0-d integer value an interval: `get_dimension_size` of an argument from
`@main`'s contract (`symhlo.arg_shapes` over `symhlo.symbols`' [min, max], which the runtime
checks before every call; without a contract, [0, 2**31 - 1]), constants, and add / subtract /
multiply / maximum / minimum / negate / convert / reshape / select over them. A `compare` the
intervals decide becomes a constant, a `select` with a constant predicate its chosen operand, and
a `maximum` / `minimum` whose operands' intervals do not overlap the operand it picks:

    %n = stablehlo.convert (stablehlo.get_dimension_size %x, dim = 1)   : n in [2, 64]
    %a = stablehlo.subtract %c0, %n                                     : [-64, -2]
    %b = stablehlo.maximum %a, %c1                                      : %c1
    %s = stablehlo.minimum %n, %b                                       : %c1
    %p = stablehlo.compare GE, %s, %c0                                  : true
    %o = stablehlo.select %p, %s, (stablehlo.add %n, %s)                : %c1
  ==>
    (uses of %o use %c1; canonicalize then folds the constant shape vectors)

It runs on IREE's copy only (symhlo-stablehlo-to-iree-input-pipeline): the portable artifact
keeps torch-mlir's general form.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torch_mlir import ir

from .ir_util import defining_op, walk_ops
from .registry import Pass
from .size_facts import main_function

_INF = float("inf")
_DIM_MAX = 2**31 - 1  # get_dimension_size is i32
_UNBOUNDED = 2**62     # a contract max at or above this means no bound


def _mul(a: float, b: float) -> float:
    return 0 if a == 0 or b == 0 else a * b


def _interval_of_expr(text: str, ranges: dict[str, tuple[float, float]]) -> tuple[float, float]:
    """The interval of a contract size expression (`h`, `2*h + 1`, `5`); [0, 2**31 - 1] for
    anything it cannot read."""
    unknown = (0, _DIM_MAX)
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return unknown

    def iv(n, depth=0):
        if depth > 32:
            raise ValueError
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return (n.value, n.value)
        if isinstance(n, ast.Name):
            if n.id not in ranges:
                raise ValueError
            return ranges[n.id]
        if isinstance(n, ast.BinOp):
            (alo, ahi), (blo, bhi) = iv(n.left, depth + 1), iv(n.right, depth + 1)
            if isinstance(n.op, ast.Add):
                return (alo + blo, ahi + bhi)
            if isinstance(n.op, ast.Sub):
                return (alo - bhi, ahi - blo)
            if isinstance(n.op, ast.Mult) and alo >= 0 and blo >= 0:
                return (_mul(alo, blo), _mul(ahi, bhi))
            if isinstance(n.op, ast.FloorDiv) and alo >= 0 and blo == bhi and blo > 0:
                return (alo // blo, ahi // blo if ahi != _INF else _INF)
        raise ValueError

    try:
        lo, hi = iv(tree)
    except (ValueError, TypeError):
        return unknown
    return (max(lo, 0), min(hi, _DIM_MAX))


def _contract_ranges(func: ir.Operation) -> tuple[dict[str, tuple[float, float]], list[list[str]]]:
    """(symbol -> [min, max], per argument its axes' size expressions) from @main's contract."""
    ranges: dict[str, tuple[float, float]] = {}
    shapes: list[list[str]] = []
    attrs = func.attributes
    if "symhlo.symbols" in attrs:
        for named in ir.DictAttr(attrs["symhlo.symbols"]):
            lo, hi = (ir.IntegerAttr(x).value for x in ir.ArrayAttr(named.attr))
            ranges[named.name] = (lo, _INF if hi >= _UNBOUNDED else hi)
    if "symhlo.arg_shapes" in attrs:
        shapes = [[ir.StringAttr(s).value for s in ir.ArrayAttr(a)]
                  for a in ir.ArrayAttr(attrs["symhlo.arg_shapes"])]
    return ranges, shapes


def _scalar_int(v: ir.Value) -> bool:
    t = v.type
    return (isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).rank == 0
            and isinstance(ir.RankedTensorType(t).element_type, ir.IntegerType))


class _Ranges:
    """Intervals of a function's 0-d integer values (booleans as [0, 1])."""

    def __init__(self, func: ir.Operation, contract: bool):
        self.args = list(func.regions[0].blocks[0].arguments)
        self.ranges, self.shapes = _contract_ranges(func) if contract else ({}, [])
        self.memo: dict[ir.Value, tuple[float, float]] = {}

    def of(self, v: ir.Value, depth: int = 0) -> tuple[float, float]:
        if v in self.memo:
            return self.memo[v]
        r = self._compute(v, depth) if depth < 64 else (-_INF, _INF)
        self.memo[v] = r
        return r

    def _arg_dim(self, x: ir.Value, axis: int) -> tuple[float, float]:
        for k, a in enumerate(self.args):
            if a == x and k < len(self.shapes) and axis < len(self.shapes[k]):
                return _interval_of_expr(self.shapes[k][axis], self.ranges)
        return (0, _DIM_MAX)

    def _compute(self, v: ir.Value, depth: int) -> tuple[float, float]:
        op = defining_op(v)
        if op is None or not _scalar_int(v):
            return (-_INF, _INF)
        name = op.name
        args = [self.of(o, depth + 1) for o in op.operands if _scalar_int(o)]
        if name == "stablehlo.constant":
            attr = ir.DenseIntElementsAttr(op.attributes["value"])
            width = ir.IntegerType(ir.RankedTensorType(v.type).element_type).width
            x = int(attr[0])
            x = x & 1 if width == 1 else x
            return (x, x)
        if name == "stablehlo.get_dimension_size":
            axis = ir.IntegerAttr(op.attributes["dimension"]).value
            return self._arg_dim(op.operands[0], axis)
        if name in ("stablehlo.convert", "stablehlo.reshape") and len(args) == 1:
            src = ir.RankedTensorType(op.operands[0].type).element_type
            dst = ir.RankedTensorType(v.type).element_type
            if ir.IntegerType(dst).width == 1 and ir.IntegerType(src).width != 1:
                lo, hi = args[0]
                return (1, 1) if lo > 0 or hi < 0 else (0, 0) if lo == hi == 0 else (0, 1)
            return args[0]
        if len(args) == 1 and name == "stablehlo.negate":
            return (-args[0][1], -args[0][0])
        if name == "stablehlo.select" and len(args) == 3:
            c, a, b = args
            if c == (1, 1):
                return a
            if c == (0, 0):
                return b
            return (min(a[0], b[0]), max(a[1], b[1]))
        if name == "stablehlo.compare" and len(args) == 2:
            decided = _decide(_direction(op), *args)
            return (0, 1) if decided is None else (int(decided), int(decided))
        if len(args) != 2:
            return (-_INF, _INF)
        (alo, ahi), (blo, bhi) = args
        if name == "stablehlo.add":
            return (alo + blo, ahi + bhi)
        if name == "stablehlo.subtract":
            return (alo - bhi, ahi - blo)
        if name == "stablehlo.multiply" and alo >= 0 and blo >= 0:
            return (_mul(alo, blo), _mul(ahi, bhi))
        if name == "stablehlo.maximum":
            return (max(alo, blo), max(ahi, bhi))
        if name == "stablehlo.minimum":
            return (min(alo, blo), min(ahi, bhi))
        return (-_INF, _INF)


def _direction(op: ir.Operation) -> str:
    return str(op.attributes["comparison_direction"]).split()[-1].strip(">")


def _decide(direction: str, a, b) -> bool | None:
    (alo, ahi), (blo, bhi) = a, b
    table = {"LT": (ahi < blo, alo >= bhi), "LE": (ahi <= blo, alo > bhi),
             "GT": (alo > bhi, ahi <= blo), "GE": (alo >= bhi, ahi < blo),
             "EQ": (alo == ahi == blo == bhi, ahi < blo or bhi < alo),
             "NE": (ahi < blo or bhi < alo, alo == ahi == blo == bhi)}
    if direction not in table:
        return None
    true, false = table[direction]
    return True if true else False if false else None


def _constant_like(op: ir.Operation, value: int) -> ir.Value:
    t = ir.RankedTensorType(op.results[0].type)
    attr = ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(t.element_type, value)) \
        if ir.IntegerType(t.element_type).width != 1 else \
        ir.DenseElementsAttr.get_splat(t, ir.BoolAttr.get(bool(value)))
    new = ir.Operation.create("stablehlo.constant", results=[t], attributes={"value": attr},
                              loc=op.location, ip=ir.InsertionPoint(op))
    return new.results[0]


def fold_size_op(op: ir.Operation, ranges: _Ranges) -> bool:
    """One compare / select / maximum / minimum decided by the intervals -> its value."""
    name = op.name
    if not op.results or not _scalar_int(op.results[0]):
        return False
    ops = list(op.operands)
    if name == "stablehlo.compare" and all(_scalar_int(o) for o in ops):
        decided = _decide(_direction(op), ranges.of(ops[0]), ranges.of(ops[1]))
        if decided is None:
            return False
        op.results[0].replace_all_uses_with(_constant_like(op, int(decided)))
        return True
    if name == "stablehlo.select" and _scalar_int(ops[0]):
        c = ranges.of(ops[0])
        if c not in ((0, 0), (1, 1)):
            return False
        op.results[0].replace_all_uses_with(ops[1] if c == (1, 1) else ops[2])
        return True
    if name in ("stablehlo.maximum", "stablehlo.minimum"):
        (alo, ahi), (blo, bhi) = ranges.of(ops[0]), ranges.of(ops[1])
        a_wins = ahi <= blo if name == "stablehlo.minimum" else alo >= bhi
        b_wins = bhi <= alo if name == "stablehlo.minimum" else blo >= ahi
        if not (a_wins or b_wins):
            return False
        op.results[0].replace_all_uses_with(ops[0] if a_wins else ops[1])
        return True
    return False


@dataclass(frozen=True)
class FoldSizeRangesForIree(Pass):
    """Fold size compares / selects / max / min that the contract's symbol ranges decide."""

    name = "symhlo-fold-size-ranges-for-iree"
    summary = ("0-d size compare / select / maximum / minimum decided by the symbols' ranges "
               "(@main's contract, checked at call time) -> their value")

    def run(self, module: ir.Module) -> None:
        from .size_facts import has_symhlo_contract

        with module.context, ir.Location.unknown():
            main = main_function(module)
            contract = has_symhlo_contract(module)
            for op in module.body.operations:
                func = op.operation
                if func.name != "func.func":
                    continue
                ranges = _Ranges(func, contract and main is not None and func == main)
                candidates = [o for o in walk_ops(func) if o.name in (
                    "stablehlo.compare", "stablehlo.select", "stablehlo.maximum",
                    "stablehlo.minimum")]
                for o in candidates:   # in program order: operands are folded first
                    fold_size_op(o, ranges)
