"""symhlo-simplify-broadcasts: drop dynamic broadcasts that torch's contract makes identities.

torch-mlir wraps every elementwise operand in `dynamic_broadcast_in_dim` to the broadcast shape.
In a torch.export program a dynamic (`?`) axis never broadcasts: a size that may expand is a
static 1, and sizes that meet in a broadcast were proven equal at export (the runtime wrapper
checks the inputs that proof rests on). A broadcast of `?x4` to `?x4` with dims = [0, 1] is then
the identity and goes; one that only adds leading axes or expands static 1s stays:

    %b = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
    %r = stablehlo.add %b, %y : tensor<?x4xf32>
  ==>
    %r = stablehlo.add %x, %y : tensor<?x4xf32>

It also reads each `get_dimension_size` of an elementwise op's result off the operand the
elementwise chain started from (StableHLO's elementwise ops take and give one shape), so the
size of a long elementwise chain (a special function's polynomial, its `where`s against
scalars) is one value: IREE otherwise gets one dim per intermediate and a fused dispatch can
need more than its 64 push constants (polygamma(3, x): 70):

    %e = stablehlo.exponential %x : tensor<?xf32>
    %d = stablehlo.get_dimension_size %e, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  ==>
    %d = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import apply_patterns
from .registry import Pass


def _dims(op: ir.Operation) -> list[int]:
    return [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])]


# Ops whose operands of the result's rank all have the result's shape (select's and clamp's
# other operands may be 0-d scalars; they are skipped by rank).
_ELEMENTWISE = {f"stablehlo.{n}" for n in (
    "abs", "add", "and", "atan2", "cbrt", "ceil", "clamp", "compare", "convert", "cosine",
    "divide", "exponential", "exponential_minus_one", "floor", "is_finite", "log",
    "log_plus_one", "logistic", "maximum", "minimum", "multiply", "negate", "not", "or",
    "popcnt", "power", "remainder", "round_nearest_afz", "round_nearest_even", "rsqrt", "select",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "sign", "sine", "sqrt",
    "subtract", "tan", "tanh", "xor")}


def _rank(t: ir.Type) -> int | None:
    try:
        return ir.RankedTensorType(t).rank
    except ValueError:
        return None


def _shape_root(v: ir.Value) -> ir.Value:
    """The value at the start of the elementwise chain that produced `v` (same shape as v)."""
    rank = _rank(v.type)
    while True:
        owner = v.owner
        if isinstance(owner, ir.Block):
            return v
        op = owner.operation if hasattr(owner, "operation") else owner
        if op.name not in _ELEMENTWISE:
            return v
        same = [o for o in op.operands if rank is not None and _rank(o.type) == rank]
        if not same:
            return v
        v = same[0]


def is_identity_broadcast(op: ir.Operation) -> bool:
    src, dst = op.operands[0].type, op.results[0].type
    return src == dst and _dims(op) == list(range(ir.RankedTensorType(dst).rank))


@dataclass(frozen=True)
class SimplifyBroadcasts(Pass):
    """Fold identity dynamic_broadcast_in_dim ops (same type, identity dims)."""

    name = "symhlo-simplify-broadcasts"
    summary = ("Fold dynamic_broadcast_in_dim ops that torch's broadcasting contract makes "
               "identities; read sizes of elementwise results off their inputs")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            root = module.operation
            apply_patterns(root, {"stablehlo.dynamic_broadcast_in_dim": fold_identity_broadcast})
            apply_patterns(root, {"stablehlo.dynamic_broadcast_in_dim": erase_unused_broadcast},
                           reverse=True)
            apply_patterns(root, {"stablehlo.get_dimension_size": read_size_off_shape_root})


def fold_identity_broadcast(op: ir.Operation) -> bool:
    """An identity dynamic_broadcast_in_dim -> its operand."""
    if not is_identity_broadcast(op):
        return False
    op.results[0].replace_all_uses_with(op.operands[0])
    return True


def erase_unused_broadcast(op: ir.Operation) -> bool:
    if list(op.results[0].uses):
        return False
    op.erase()
    return True


def read_size_off_shape_root(op: ir.Operation) -> bool:
    """get_dimension_size of an elementwise result -> of the input it takes its shape from."""
    root = _shape_root(op.operands[0])
    if root == op.operands[0]:
        return False
    op.operands[0] = root
    return True
