"""symhlo-prepare-for-iree: rewrite the pure-StableHLO forms IREE 3.13 rejects into ones it takes.

IREE 3.13 fails on every `stablehlo.dynamic_reshape`, and on `dynamic_broadcast_in_dim` with a
dynamic operand axis unless told which axes expand. The portable artifact stays pure; this pass
runs only on the copy handed to iree-compile:

    %r = stablehlo.dynamic_reshape %x, %s : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x4x2xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %y, %t, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x5xf32>
  ==>
    %i = arith.index_cast %s : tensor<3xi64> to tensor<3xindex>
    %r = tensor.reshape %x(%i) : (tensor<?x8xf32>, tensor<3xindex>) -> tensor<?x4x2xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %y, %t, dims = [0, 1],
           known_expanding_dimensions = [1], known_nonexpanding_dimensions = [0] : ...

The expansion hints follow torch's contract: a `?` operand axis maps to an equal-sized result axis
(torch.export proved it), a static 1 under a larger or dynamic result axis expands.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .ir_util import create, walk_ops, is_dynamic
from .registry import Pass
from .simplify_broadcasts import is_identity_broadcast


def convert_stablehlo_dynamic_reshape(op: ir.Operation) -> None:
    """stablehlo.dynamic_reshape -> tensor.reshape with a from_elements shape of index extents.

    Static result axes become index constants and dynamic ones are extracted from the shape
    operand, so IREE sees the sizes as scalars (an index tensor would cross a dispatch boundary).
    """
    ip, loc = ir.InsertionPoint(op), op.location
    x, shape = op.operands
    result_t = ir.RankedTensorType(op.results[0].type)
    index = ir.IndexType.get()
    src_rank = ir.RankedTensorType(x.type).rank
    if result_t.rank == 1 and src_rank >= 1:
        # Flattening to rank 1 is always the full collapse: no extents needed, and IREE folds it
        # (a 1-element index shape tensor would cross a dispatch boundary instead).
        reassoc = ir.ArrayAttr.get([ir.ArrayAttr.get(
            [ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i) for i in range(src_rank)])])
        new = create("tensor.collapse_shape", [result_t], [x], {"reassociation": reassoc},
                     loc=loc, ip=ip).result
        op.results[0].replace_all_uses_with(new)
        op.erase()
        return
    extents = []
    for i, size in enumerate(result_t.shape):
        if is_dynamic(size):
            pos = create("arith.constant", [index], [], {"value": ir.IntegerAttr.get(index, i)},
                         loc=loc, ip=ip).result
            elt = create("tensor.extract", [ir.RankedTensorType(shape.type).element_type],
                         [shape, pos], loc=loc, ip=ip).result
            if not isinstance(elt.type, ir.IndexType):
                elt = create("arith.index_cast", [index], [elt], loc=loc, ip=ip).result
        else:
            elt = create("arith.constant", [index], [], {"value": ir.IntegerAttr.get(index, size)},
                         loc=loc, ip=ip).result
        extents.append(elt)
    shape_t = ir.RankedTensorType.get([len(extents)], index)
    idx = create("tensor.from_elements", [shape_t], extents, loc=loc, ip=ip).result
    new = create("tensor.reshape", [result_t], [x, idx], loc=loc, ip=ip).result
    op.results[0].replace_all_uses_with(new)
    op.erase()


def annotate_stablehlo_dynamic_broadcast_in_dim(op: ir.Operation) -> None:
    """stablehlo.dynamic_broadcast_in_dim -> the same with known_(non)expanding_dimensions."""
    src = ir.RankedTensorType(op.operands[0].type)
    dst = ir.RankedTensorType(op.results[0].type)
    dims = [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])]
    expanding, nonexpanding = [], []
    for i, d in enumerate(dims):
        s, r = src.shape[i], dst.shape[d]
        if is_dynamic(s) or (s == r):
            nonexpanding.append(i)
        elif s == 1:
            expanding.append(i)
    op.attributes["known_expanding_dimensions"] = ir.DenseI64ArrayAttr.get(expanding)
    op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(nonexpanding)


@dataclass(frozen=True)
class PrepareForIree(Pass):
    """Rewrite dynamic_reshape and unhinted dynamic broadcasts into forms IREE 3.13 compiles."""

    name = "symhlo-prepare-for-iree"
    summary = "dynamic_reshape -> tensor.reshape; broadcast expansion hints from torch's contract"

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            for op in walk_ops(module.operation):
                if op.name == "stablehlo.dynamic_reshape":
                    convert_stablehlo_dynamic_reshape(op)
                elif op.name == "stablehlo.dynamic_broadcast_in_dim":
                    if is_identity_broadcast(op):
                        op.results[0].replace_all_uses_with(op.operands[0])
                        op.erase()
                    else:
                        annotate_stablehlo_dynamic_broadcast_in_dim(op)
