"""symhlo-lower-power-for-iree: float `stablehlo.power` -> multiplications, or a power of |x| with
the sign restored, wherever a negative base may meet an integral exponent.

IREE 3.13 computes a float `stablehlo.power` as exp(y * log(x)) for most exponents, which is NaN
for every negative base, even where the exponent is an integer and the power is defined:
`torch.linalg.vector_norm(x, ord=6)` (torch's decomposition raises x, not |x|, to an even power)
returned NaN for OpInfo's sample [-8.48, -1.77] where eager returns 8.48, and `x ** 4.0`,
`x ** 5.0`, `x ** -3.0` were NaN on negative x. This pass runs on the IREE copy only (the
portable artifact keeps `stablehlo.power`):

  * An exponent that is a splat constant (seen through broadcasts, reshapes and converts) with an
    integral value n, |n| <= 64, becomes repeated squaring; a negative n divides 1 by it, n = 0 is 1:

        %e = stablehlo.constant dense<6.0> : tensor<f32>
        %b = stablehlo.dynamic_broadcast_in_dim %e, %shape, dims = [] : (...) -> tensor<?xf32>
        %0 = stablehlo.power %x, %b : tensor<?xf32>
      ==>
        %x2 = stablehlo.multiply %x, %x ; %x4 = stablehlo.multiply %x2, %x2
        %0 = stablehlo.multiply %x2, %x4

  * A splat exponent of 0.5 or -0.5 is `stablehlo.sqrt` / `rsqrt`, as in eager's pow kernel
    (sqrt(-inf) is NaN, where C's pow(-inf, 0.5) is inf).

  * Any other exponent (a tensor, a large integral or a non-integral constant) keeps the power,
    taken of |x|, and restores what exp(y * log(x)) loses (also pow(-inf, 2.5) = inf, which
    IREE made NaN):

        %0 = stablehlo.power %x, %y : tensor<?xf32>
      ==>
        %p = stablehlo.power (stablehlo.abs %x), %y
        %int = floor(y) == y ; %odd = %int and floor(y / 2) != y / 2
        %s = select(signbit(x) and %odd, -%p, %p)        (signbit: x < 0 or 1 / x < 0)
        %n = select(x < 0 and is_finite(x) and not %int, NaN, %s)
        %0 = select(y == 0 or x == 1, 1, %n)             (C's pow, as eager: pow(NaN, 0) = 1)

Integer and complex powers are left to IREE.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .ir_util import remove_dead_ops, splat_constant
from .registry import Pass

# Above this |n| the product chain grows long; the |x|-power form is as exact in float32.
MAX_UNROLLED_EXPONENT = 64

_FLOATS = (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)


def _integer_power(e: OpBuilder, x: ir.Value, n: int) -> ir.Value:
    """x ** n for n >= 1 by repeated squaring."""
    result, square = None, x
    while True:
        if n & 1:
            result = square if result is None else e.hlo_binary("multiply", result, square)
        n >>= 1
        if not n:
            return result
        square = e.hlo_binary("multiply", square, square)


def convert_stablehlo_power_integral_constant(e: OpBuilder, x: ir.Value, n: int) -> ir.Value:
    """stablehlo.power(x, splat n), n integral and small -> multiplications (1 / them for n < 0)."""
    if n == 0:
        return e.hlo_full_like(1.0, x)
    p = _integer_power(e, x, abs(n))
    return p if n > 0 else e.hlo_binary("divide", e.hlo_full_like(1.0, x), p)


def convert_stablehlo_power_signed(e: OpBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """stablehlo.power(x, y) -> power(|x|, y), negated where x's sign bit is set and y is an odd
    integer, NaN where x is negative and finite and y is not an integer, 1 where y is 0 or x is 1
    (C's pow, which eager follows)."""
    hlo = e.hlo_binary
    p = hlo("power", e.value("stablehlo.abs", [x.type], [x]), y)
    zero, one = e.hlo_full_like(0.0, x), e.hlo_full_like(1.0, x)
    below_zero = e.hlo_compare("LT", x, zero, "FLOAT")
    sign_bit = hlo("or", below_zero, e.hlo_compare("LT", hlo("divide", one, x), zero, "FLOAT"))
    floor_y = e.value("stablehlo.floor", [y.type], [y])
    integral = e.hlo_compare("EQ", floor_y, y, "FLOAT")
    half = hlo("multiply", y, e.hlo_full_like(0.5, y))
    odd = hlo("and", integral,
              e.hlo_compare("NE", e.value("stablehlo.floor", [half.type], [half]), half, "FLOAT"))
    signed = e.hlo_select(hlo("and", sign_bit, odd), e.value("stablehlo.negate", [p.type], [p]), p)
    finite = e.value("stablehlo.is_finite", [below_zero.type], [x])
    undefined = hlo("and", hlo("and", below_zero, finite),
                    e.value("stablehlo.not", [integral.type], [integral]))
    result = e.hlo_select(undefined, e.hlo_full_like(float("nan"), x), signed)
    unit = hlo("or", e.hlo_compare("EQ", y, e.hlo_full_like(0.0, y), "FLOAT"),
               e.hlo_compare("EQ", x, one, "FLOAT"))
    return e.hlo_select(unit, one, result)


def convert_stablehlo_power(op: ir.Operation) -> bool:
    """A float stablehlo.power -> the forms above. Returns False for integer / complex powers."""
    x, y = op.operands
    elt = ir.RankedTensorType(x.type).element_type
    if not any(isinstance(elt, f) for f in _FLOATS):
        return False
    n = splat_constant(y)
    e = OpBuilder(op)
    if n in (0.5, -0.5):
        new = e.value("stablehlo.sqrt" if n > 0 else "stablehlo.rsqrt", [x.type], [x])
    elif n is not None and n == n and abs(n) <= MAX_UNROLLED_EXPONENT and n == int(n):
        new = convert_stablehlo_power_integral_constant(e, x, int(n))
    else:
        new = convert_stablehlo_power_signed(e, x, y)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


@dataclass(frozen=True)
class LowerPowerForIree(Pass):
    """Rewrite float powers, which IREE 3.13 makes NaN on negative bases."""

    name = "symhlo-lower-power-for-iree"
    summary = ("float stablehlo.power -> repeated multiplication (small integral constant "
               "exponents) or power(|x|, y) with C's sign and special cases restored (IREE's "
               "exp(y log x) is NaN for negative x)")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            if apply_patterns(module.operation, {"stablehlo.power": convert_stablehlo_power}):
                remove_dead_ops(module.operation, {"stablehlo.constant", "stablehlo.convert",
                                                   "stablehlo.reshape", "stablehlo.broadcast_in_dim",
                                                   "stablehlo.dynamic_broadcast_in_dim",
                                                   "stablehlo.concatenate",
                                                   "stablehlo.get_dimension_size"})
