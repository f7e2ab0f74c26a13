"""symhlo-narrow-matmuls-as-reductions-for-iree: a matmul over `?` rows by a tiny constant-shape
matrix -> a broadcast product reduced over the contraction.

IREE 3.13's data tiling packs a `?`-row matmul's lhs into 16-row tiles, unpacks its result, and
fuses the lhs's producer into that pack. A CNN's classifier head (global average pool, then a
16 x 10 linear layer) thus ran its pool inside the pack: one workgroup for every row up to 16,
73 us at batch 1 where the static module pools in 8 workgroups in 8 us, and two dispatches
(mmt4d, unpack) for 160 multiply-adds per row. Where the rhs has at most `max-weights` elements
(default 256, under one 16 x 16 tile), the product is the same sum written out:

    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]
           : (tensor<?x16xf32>, tensor<16x10xf32>) -> tensor<?x10xf32>
  ==>
    %xb = stablehlo.dynamic_broadcast_in_dim %x, [n, 16, 10], dims = [0, 1] : tensor<?x16x10xf32>
    %wb = stablehlo.dynamic_broadcast_in_dim %w, [n, 16, 10], dims = [1, 2] : tensor<?x16x10xf32>
    %p = stablehlo.multiply %xb, %wb : tensor<?x16x10xf32>
    %y = stablehlo.reduce(%p init: 0.0) applies stablehlo.add across dimensions = [1]
           : tensor<?x10xf32>

(IREE fuses the broadcasts, the product and the reduction into one dispatch; the pool before it
is a parallel reduction of its own.) Small CNN (3 -> 8 -> 16 -> 16 channels, a 16 -> 10 head),
H/W and batch dynamic, at 128 x 128, iree-benchmark-module wall per call, medians of 5 alternated
rounds (Intel Xeon, 2 threads): batch 1 1.05 -> 0.48 ms (static 0.52), batch 8 3.29 -> 3.15
(static 2.77); dispatches 14 -> 13.

Matched: an f32 `dot_general` without batch axes contracting the lhs's last axis (of `?` rows)
with the rhs's first, the rhs a static `K x N` matrix with K * N <= max-weights, and the lhs
computed by a reduction (through elementwise ops and reshapes: a pool's mean, an activation, a
flatten), which IREE would fuse into the pack. Left alone: a lhs from anything else (a norm's
output, an activation of a matmul: the pack fuses an elementwise producer at no cost), and
narrower floats (the reduce accumulates in its element type; with f16 allowed, an f16 MLP on
Vulkan/lavapipe read 17 off eager, cause not pinned down).
The sum's order over K is IREE's choice either way. Runs on the copy for IREE only.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, dot_dimension_numbers
from .ir_util import defining_op, is_dynamic
from .registry import Pass
from .size_facts import ELEMENTWISE


# Ops a pooled value passes through between its reduction and the head's matmul: elementwise
# ops (a mean's division, an activation) and reshapes (a flatten).
_THROUGH = ELEMENTWISE | {"stablehlo.reshape", "stablehlo.dynamic_reshape"}


def computed_by_reduction(value: ir.Value, depth: int = 6) -> bool:
    """Whether `value` is a stablehlo.reduce's result, seen through up to `depth` elementwise ops
    and reshapes (their tensor operands are followed; a broadcast or anything else stops)."""
    op = defining_op(value)
    if depth < 0 or op is None:
        return False
    if op.name == "stablehlo.reduce":
        return True
    if op.name not in _THROUGH:
        return False
    operands = op.operands[:1] if op.name == "stablehlo.dynamic_reshape" else op.operands
    return any(computed_by_reduction(v, depth - 1) for v in operands)


def narrow_matmul_as_reduction(op: ir.Operation, max_weights: int) -> bool:
    """stablehlo.dot_general `?` x K (from a reduction) by a static f32 K x N (K * N <=
    max_weights) -> broadcast product + stablehlo.reduce over K."""
    lhs, rhs = op.operands
    lt, rt = ir.RankedTensorType(lhs.type), ir.RankedTensorType(rhs.type)
    out_t = ir.RankedTensorType(op.results[0].type)
    if lt.rank != 2 or rt.rank != 2 or not is_dynamic(lt.shape[0]) or not rt.has_static_shape:
        return False
    f32 = ir.F32Type.get()
    if lt.element_type != f32 or rt.element_type != f32 or out_t.element_type != f32:
        return False
    d = dot_dimension_numbers(op)
    if d["lhs_batching_dimensions"] or d["lhs_contracting_dimensions"] != [1] or \
            d["rhs_contracting_dimensions"] != [0]:
        return False
    k, n = rt.shape
    if k * n > max_weights or lt.shape[1] != k or not computed_by_reduction(lhs):
        return False
    b = OpBuilder(op)
    i64 = ir.IntegerType.get_signless(64)
    shape = b.tensor_from_elements([b.index_cast(b.tensor_dim(lhs, 0), i64), b.constant(i64, k),
                                    b.constant(i64, n)], i64)
    prod_t = ir.RankedTensorType.get([lt.shape[0], k, n], lt.element_type)
    known = {"known_expanding_dimensions": [], "known_nonexpanding_dimensions": [0, 1]}
    xb = b.hlo_broadcast_in_dim(lhs, prod_t, [0, 1], shape, known)
    wb = b.hlo_broadcast_in_dim(rhs, prod_t, [1, 2], shape, known)
    prod = b.hlo_binary("multiply", xb, wb)
    zero = b.hlo_scalar(0.0, lt.element_type)
    op.results[0].replace_all_uses_with(b.hlo_reduce(prod, zero, [1], out_t))
    op.erase()
    return True


@dataclass(frozen=True)
class NarrowMatmulsAsReductionsForIree(Pass):
    """A pooled `?`-row matmul by at most `max_weights` weights -> product + reduction."""

    name = "symhlo-narrow-matmuls-as-reductions-for-iree"
    summary = ("an f32 matmul over `?` pooled rows by a static matrix of at most max-weights "
               "elements (a classifier head) -> a broadcast product reduced over the contraction")
    max_weights: int = 256

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {
                "stablehlo.dot_general":
                    lambda op: narrow_matmul_as_reduction(op, self.max_weights)})
