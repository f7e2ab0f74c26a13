"""symhlo-lower-torch-scatter-reduce: torch.aten.scatter_reduce.two -> stablehlo.scatter with its reducer.

torch-mlir's StableHLO lowering has `scatter` / `scatter_add` (a `stablehlo.scatter` whose region
replaces or adds) but no `scatter_reduce`. This pass, on torch backend IR, lowers the reductions
a scatter region can express exactly, over `?` dims, in the form torch-mlir gives scatter_add
(each update's full coordinate: `index` along `dim`, an iota along every other axis):

    %r = torch.aten.scatter_reduce.two %self, %int0, %index, %src, %str_amax, %true
           : !torch.vtensor<[?,?],f32>, !torch.int, !torch.vtensor<[?,?],si64>, !torch.vtensor<[?,?],f32>, !torch.str, !torch.bool -> !torch.vtensor<[?,?],f32>
  ==>
    %u = stablehlo.real_dynamic_slice %src, 0, shape(%index), 1            (src[:index.shape])
    %k = stablehlo.concatenate (dynamic_reshape %index -> [?,?,1]), (dynamic_iota dim 1 -> [?,?,1]), dim = 2
    %k32 = stablehlo.convert (stablehlo.clamp -1, %k, 2**31 - 1) : tensor<?x?x2xi32>
    %r = "stablehlo.scatter"(%self, %k32, %u) ({ stablehlo.maximum }) {inserted_window_dims = [0, 1],
           scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2}

Reducers: sum -> add, prod -> multiply, amax -> maximum, amin -> minimum (NaN propagates, as in
eager). Only `include_self = true` reaches this pass: symhlo.frontend.decompositions.select rewrites
include_self=False (positions hit first reset to the reducer's identity) and `mean` (a sum and a
count) before import. Anything else is an error naming the op.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from torch_mlir._mlir_libs import _stablehlo

from .builder import OpBuilder, apply_patterns, builtin_type, replace_with_builtin
from .ir_util import defining_op, ensure_upstream_registered, torch_constant
from .registry import Pass, PassFailure

_I64 = lambda: ir.IntegerType.get_signless(64)  # noqa: E731

_REDUCERS = {"sum": "stablehlo.add", "prod": "stablehlo.multiply",
             "amax": "stablehlo.maximum", "amin": "stablehlo.minimum"}


def _string(v: ir.Value) -> str | None:
    d = defining_op(v)
    if d is None or d.name != "torch.constant.str":
        return None
    return ir.StringAttr(d.attributes["value"]).value


def convert_torch_aten_scatter_reduce_two(op: ir.Operation) -> None:
    """torch.aten.scatter_reduce.two (include_self) -> stablehlo.scatter with the reducer (module doc)."""
    self_v, dim_v, index_v, src_v, reduce_v, include_v = op.operands
    reduce, include_self, dim = _string(reduce_v), torch_constant(include_v), torch_constant(dim_v)
    if reduce not in _REDUCERS or include_self is not True or dim is None:
        raise PassFailure(
            f"failed to legalize operation '{op.name}': reduce '{reduce}' with include_self="
            f"{include_self} (symhlo lowers sum / prod / amax / amin with include_self=True here)",
            [(str(op.location), "unsupported scatter_reduce form")])
    b = OpBuilder(op)
    self_t, _ = builtin_type(self_v.type)
    index_t, _ = builtin_type(index_v.type)
    src_t, _ = builtin_type(src_v.type)
    rank = index_t.rank
    if rank == 0 or self_t.rank != rank:
        raise PassFailure(f"failed to legalize operation '{op.name}': 0-d or rank-mismatched "
                          "operands", [(str(op.location), "scatter_reduce rank")])
    dim = dim + rank if dim < 0 else dim
    x = b.value("torch_c.to_builtin_tensor", [self_t], [self_v])
    index = b.value("torch_c.to_builtin_tensor", [index_t], [index_v])
    src = b.value("torch_c.to_builtin_tensor", [src_t], [src_v])
    index = b.hlo_convert(index, _I64())
    sizes = [b.hlo_dim(index, a) for a in range(rank)]
    shape = b.hlo_concat(sizes)
    splat = lambda n: b.hlo_const([n] * rank, _I64())  # noqa: E731
    updates_t = ir.RankedTensorType.get(index_t.shape, src_t.element_type)
    updates = b.value("stablehlo.real_dynamic_slice", [updates_t], [src, splat(0), shape, splat(1)])
    col_t = ir.RankedTensorType.get(list(index_t.shape) + [1], _I64())
    col_shape = b.hlo_concat(sizes + [b.hlo_const([1], _I64())])
    columns = []
    for a in range(rank):
        if a == dim:
            columns.append(b.value("stablehlo.dynamic_reshape", [col_t], [index, col_shape]))
        else:
            columns.append(b.value("stablehlo.dynamic_iota", [col_t], [col_shape],
                                   {"iota_dimension": ir.IntegerAttr.get(_I64(), a)}))
    coords_t = ir.RankedTensorType.get(list(index_t.shape) + [rank], _I64())
    coords = columns[0] if rank == 1 else b.value(
        "stablehlo.concatenate", [coords_t], columns, {"dimension": ir.IntegerAttr.get(_I64(), rank)})
    # i32 coordinates, clamped first so an out-of-range index stays out of range. IREE 3.13
    # rewrites i64 scatter indices to i32 itself, and fails ("unresolved source
    # materialization") when one i64 index tensor feeds two scatters (mean's sum and count).
    i32 = ir.IntegerType.get_signless(32)
    lo, hi = (b.hlo_scalar(v) for v in (-1, 2**31 - 1))
    coords = b.value("stablehlo.clamp", [coords_t], [lo, coords, hi])
    coords = b.hlo_convert(coords, i32)
    axes = list(range(rank))
    numbers = _stablehlo.ScatterDimensionNumbers.get(
        update_window_dims=[], inserted_window_dims=axes, input_batching_dims=[],
        scatter_indices_batching_dims=[], scattered_dims_to_operand_dims=axes, index_vector_dim=rank)
    scatter = b.create("stablehlo.scatter", [self_t], [x, coords, updates],
                       {"scatter_dimension_numbers": numbers,
                        "indices_are_sorted": ir.BoolAttr.get(False),
                        "unique_indices": ir.BoolAttr.get(False)}, regions=1)
    scalar = ir.RankedTensorType.get([], self_t.element_type)
    body = OpBuilder(ip=ir.InsertionPoint(scatter.regions[0].blocks.append(scalar, scalar)), loc=b.loc)
    combined = body.value(_REDUCERS[reduce], [scalar], list(scatter.regions[0].blocks[0].arguments))
    body.create("stablehlo.return", [], [combined])
    replace_with_builtin(op, [scatter.result])


@dataclass(frozen=True)
class LowerTorchScatterReduce(Pass):
    """Lower torch.aten.scatter_reduce.two (include_self) to stablehlo.scatter with its reducer."""

    name = "symhlo-lower-torch-scatter-reduce"
    summary = "torch.aten.scatter_reduce.two sum/prod/amax/amin (include_self) -> stablehlo.scatter with add/multiply/maximum/minimum"

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation,
                           {"torch.aten.scatter_reduce.two": convert_torch_aten_scatter_reduce_two})
