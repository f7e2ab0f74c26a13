"""symhlo-fold-size-ranges: integer size arithmetic decided by the sizes' ranges.

torch-mlir normalizes every slice bound it cannot see is in range: `x[:, :n]` of a 64-wide
buffer (BERT-family `token_type_ids[:, :seq]`) ends at `select(min(max(n, -64), 64) >= 0, ...)`.
With `n` in [2, 60] each step is the identity, but IREE cannot see that either: the slice's
extent and the `?` it is broadcast to are different values, and IREE 3.13 fails to compile the
dispatch ("failed to resolve workgroup count hint in terms of workload ordinals", ConvBERT).

This pass computes an integer interval for every 0-d integer value of a function (sizes from
`get_dimension_size` get the range of the symbol `symhlo.arg_shapes` names for that axis, from
`symhlo.symbols`; any other size is in [0, 2**31 - 1]) and folds what the intervals decide:

    %m = stablehlo.maximum %n, %c_m64 : tensor<i64>       (n in [2, 60])
    %k = stablehlo.minimum %m, %c_64 : tensor<i64>
    %p = stablehlo.compare GE, %k, %c_0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %e = stablehlo.select %p, %k, %w : tensor<i1>, tensor<i64>
  ==>
    uses of %e are uses of %n

`maximum` / `minimum` whose operands' intervals do not overlap become the larger / smaller one,
`clamp` inside its bounds its operand, `compare` a constant, `select` on a decided predicate the
chosen operand, `remainder` of a non-negative value below a positive constant that value.
Nothing is folded from a guess: an undecided op stays as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, comparison_direction
from .contract_attrs import ARG_SHAPES, MAX_DIM_SIZE, symbol_ranges
from .ir_util import defining_op, remove_dead_ops
from .registry import Pass
from .size_exprs import parse

_INF = float("inf")
Interval = tuple[float, float]
_ANY_SIZE: Interval = (0, MAX_DIM_SIZE)


def _scalar_int_type(v: ir.Value) -> bool:
    t = v.type
    return isinstance(t, ir.RankedTensorType) and t.rank == 0 and \
        isinstance(t.element_type, ir.IntegerType)


def _one_int(v: ir.Value) -> bool:
    """A 0-d or one-element rank-1 integer tensor (a size, or a size as a shape tensor)."""
    t = v.type
    return isinstance(t, ir.RankedTensorType) and isinstance(t.element_type, ir.IntegerType) and \
        (t.rank == 0 or list(t.shape) == [1])


def _constant(v: ir.Value) -> int | None:
    op = defining_op(v)
    if op is None or op.name != "stablehlo.constant" or not _one_int(v):
        return None
    attr = ir.DenseIntElementsAttr(op.attributes["value"])
    if ir.IntegerType(ir.RankedTensorType(v.type).element_type).width == 1:
        return int(bool(attr[0]))
    return int(attr[0])


def _expr_interval(text: str, ranges: dict[str, Interval]) -> Interval:
    """Interval of a size expression such as `2*h`, `h + 1`, `s // 2` (read by size_exprs.parse;
    + - * and // by a positive constant; anything else is any size)."""
    try:
        tree = parse(text)
    except ValueError:
        return _ANY_SIZE

    def walk(e) -> Interval:
        if isinstance(e, int):
            return (e, e)
        if e[0] == "sym":
            return ranges.get(e[1], _ANY_SIZE)
        if e[0] in ("add", "sub", "mul", "floordiv"):
            a, b = walk(e[1]), walk(e[2])
            if e[0] == "add":
                return (a[0] + b[0], a[1] + b[1])
            if e[0] == "sub":
                return (a[0] - b[1], a[1] - b[0])
            if e[0] == "mul":
                return interval_mul(a, b)
            if b[0] == b[1] and b[0] > 0 and a[0] >= 0:
                return (a[0] // b[0], a[1] // b[0] if a[1] != _INF else _INF)
        raise ValueError

    try:
        lo, hi = walk(tree)
    except (ValueError, RecursionError):
        return _ANY_SIZE
    return (max(lo, 0), min(hi, MAX_DIM_SIZE))


def interval_mul(a: Interval, b: Interval) -> Interval:
    prods = [x * y for x in a for y in b if not ((x == 0 and abs(y) == _INF) or
                                                 (y == 0 and abs(x) == _INF))] or [0]
    return (min(prods), max(prods))


def contract_ranges(func: ir.Operation) -> list[list[Interval]] | None:
    """Per argument, per axis: the interval of its size from the contract (None without one)."""
    attrs = func.attributes
    if ARG_SHAPES not in attrs:
        return None
    ranges: dict[str, Interval] = {s: (lo, MAX_DIM_SIZE if hi is None else min(hi, MAX_DIM_SIZE))
                                   for s, (lo, hi) in symbol_ranges(func).items()}
    out = []
    for shape in ir.ArrayAttr(attrs[ARG_SHAPES]):
        out.append([_expr_interval(ir.StringAttr(e).value, ranges) for e in ir.ArrayAttr(shape)])
    return out


class SizeIntervals:
    """Integer intervals of the 0-d integer values of one function, computed on demand."""

    def __init__(self, func: ir.Operation):
        self.args = list(func.regions[0].blocks[0].arguments)
        self.arg_ranges = contract_ranges(func)
        self.cache: dict[int, Interval] = {}

    def __call__(self, v: ir.Value) -> Interval:
        key = hash(v)
        if key not in self.cache:
            self.cache[key] = self._compute(v)
        return self.cache[key]

    def _dim(self, op: ir.Operation) -> Interval:
        axis = ir.IntegerAttr(op.attributes["dimension"]).value
        src = op.operands[0]
        if self.arg_ranges is not None and src in self.args:
            k = self.args.index(src)
            if k < len(self.arg_ranges) and axis < len(self.arg_ranges[k]):
                return self.arg_ranges[k][axis]
        shape = ir.RankedTensorType(src.type).shape
        if shape[axis] != ir.ShapedType.get_dynamic_size():
            return (shape[axis], shape[axis])
        return _ANY_SIZE

    def _compute(self, v: ir.Value) -> Interval:
        c = _constant(v)
        if c is not None:
            return (c, c)
        op = defining_op(v)
        if op is None or not _one_int(v):
            return (-_INF, _INF)
        name = op.name
        if name == "stablehlo.get_dimension_size":
            return self._dim(op)
        if name in ("stablehlo.convert", "stablehlo.reshape") and _one_int(op.operands[0]):
            return self(op.operands[0])
        ops = [self(x) for x in op.operands]
        if name == "stablehlo.add":
            return (ops[0][0] + ops[1][0], ops[0][1] + ops[1][1])
        if name == "stablehlo.subtract":
            return (ops[0][0] - ops[1][1], ops[0][1] - ops[1][0])
        if name == "stablehlo.multiply":
            return interval_mul(ops[0], ops[1])
        if name == "stablehlo.negate":
            return (-ops[0][1], -ops[0][0])
        if name == "stablehlo.maximum":
            return (max(ops[0][0], ops[1][0]), max(ops[0][1], ops[1][1]))
        if name == "stablehlo.minimum":
            return (min(ops[0][0], ops[1][0]), min(ops[0][1], ops[1][1]))
        if name == "stablehlo.clamp":  # clamp(min, x, max)
            lo, x, hi = ops
            return (max(lo[0], min(x[0], hi[0])), min(hi[1], max(x[1], lo[1])))
        if name == "stablehlo.select":
            return (min(ops[1][0], ops[2][0]), max(ops[1][1], ops[2][1]))
        if name == "stablehlo.divide":
            (a, b) = ops
            if a[0] >= 0 and b[0] == b[1] and b[0] > 0:
                return (a[0] // b[0], a[1] // b[0] if a[1] != _INF else _INF)
        if name == "stablehlo.remainder":
            (a, b) = ops
            if a[0] >= 0 and b[0] > 0:
                return (0, min(a[1], b[1] - 1))
        if name == "stablehlo.compare":
            decided = decide_compare(op, ops[0], ops[1])
            return (decided, decided) if decided is not None else (0, 1)
        return (-_INF, _INF)


def decide_compare(op: ir.Operation, a: Interval, b: Interval) -> int | None:
    """1 / 0 when the intervals decide `compare` (integer comparison), else None."""
    direction = comparison_direction(op)
    if direction in ("LT", "GE"):
        if a[1] < b[0]:
            return int(direction == "LT")
        if a[0] >= b[1]:
            return int(direction == "GE")
    if direction in ("LE", "GT"):
        if a[1] <= b[0]:
            return int(direction == "LE")
        if a[0] > b[1]:
            return int(direction == "GT")
    if direction in ("EQ", "NE"):
        if a[1] < b[0] or b[1] < a[0]:
            return int(direction == "NE")
        if a[0] == a[1] == b[0] == b[1]:
            return int(direction == "EQ")
    return None


def fold_by_ranges(op: ir.Operation, iv: SizeIntervals) -> ir.Value | None:
    """The value `op`'s result folds to (an operand, or a new constant), or None."""
    name = op.name
    if not op.results or not _scalar_int_type(op.results[0]):
        return None
    if name in ("stablehlo.maximum", "stablehlo.minimum"):
        a, b = (iv(x) for x in op.operands)
        first_larger, second_larger = a[0] >= b[1], b[0] >= a[1]
        if name == "stablehlo.maximum":
            return op.operands[0] if first_larger else op.operands[1] if second_larger else None
        return op.operands[1] if first_larger else op.operands[0] if second_larger else None
    if name == "stablehlo.clamp":
        lo, x, hi = (iv(v) for v in op.operands)
        return op.operands[1] if lo[1] <= x[0] and x[1] <= hi[0] else None
    if name == "stablehlo.remainder":
        a, b = (iv(v) for v in op.operands)
        return op.operands[0] if a[0] >= 0 and b[0] > 0 and a[1] < b[0] else None
    if name == "stablehlo.select" and _scalar_int_type(op.operands[0]):
        p = iv(op.operands[0])
        if p[0] == p[1]:
            return op.operands[1] if p[0] else op.operands[2]
        return None
    if name == "stablehlo.compare" and _scalar_int_type(op.operands[0]):
        decided = decide_compare(op, iv(op.operands[0]), iv(op.operands[1]))
        if decided is None:
            return None
        t = op.results[0].type
        attr = ir.DenseElementsAttr.get_splat(t, ir.BoolAttr.get(bool(decided)))
        return OpBuilder(op).hlo_constant(attr)
    return None


_FOLDABLE = ("stablehlo.maximum", "stablehlo.minimum", "stablehlo.clamp", "stablehlo.remainder",
             "stablehlo.select", "stablehlo.compare")


@dataclass(frozen=True)
class FoldSizeRanges(Pass):
    """Fold max/min/clamp/remainder/compare/select on sizes whose ranges decide them."""

    name = "symhlo-fold-size-ranges"
    summary = "Fold integer size arithmetic (max, min, clamp, compare, select) decided by size ranges"

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            for func in module.body.operations:
                func = func.operation
                if func.name != "func.func" or not func.regions[0].blocks:
                    continue
                iv = SizeIntervals(func)

                def fold(op: ir.Operation, iv=iv) -> bool:
                    new = fold_by_ranges(op, iv)
                    if new is None:
                        return False
                    op.results[0].replace_all_uses_with(new)
                    return True

                # Pre-order is def-before-use inside a function body: a fold's operands are
                # already folded, and the cache holds intervals of values that stay.
                apply_patterns(func, dict.fromkeys(_FOLDABLE, fold))
            remove_dead_ops(module.operation, _FOLDABLE + ("stablehlo.constant",))
