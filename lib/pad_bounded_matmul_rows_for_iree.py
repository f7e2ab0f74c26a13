"""symhlo-pad-bounded-matmul-rows-for-iree: a matmul over few `?` rows, computed on its row bound.

IREE 3.13's data tiling gives a matmul over `?` rows 16-row tiles, where a static one row gets
1-row tiles: a decode step's matmuls (rows = the batch, 1 at run time) computed 16 rows and read
the weights through a layout made for 16. When the call contract bounds the rows to at most
`max-rows` (default 16: one tile), the matmul runs on that many rows, zero-padded, and the real
rows are sliced back:

    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]
           : (tensor<?x256xf32>, tensor<256x4096xf32>) -> tensor<?x4096xf32>      (rows = batch in [1, 8])
  ==>
    %n = tensor.dim %x, %c0
    %p = tensor.pad %x low[0, 0] high[8 - %n, 0] { 0.0 } : tensor<?x256xf32> to tensor<8x256xf32>
    %q = stablehlo.dot_general %p, %w, contracting_dims = [1] x [0]
           : (tensor<8x256xf32>, tensor<256x4096xf32>) -> tensor<8x4096xf32>
    %y = tensor.extract_slice %q[0, 0] [%n, 4096] [1, 1] : tensor<8x4096xf32> to tensor<?x4096xf32>

Each output row depends on its own input row only, so the padded rows change nothing in the real
ones. The bound is the interval of the rows' size expression (lib/size_facts.py) over the ranges
`symhlo.symbols` gives the arguments' axes: only a function with symhlo's contract is rewritten,
and the call checks (symhlo-insert-call-checks-for-iree) refuse a call outside the ranges before
anything runs, so the pad amount is never negative. Runs on the copy for IREE only; the portable
artifact keeps its `?` rows. Matched: a 2-D `dot_general` with no batch axes contracting the lhs's
last axis with the rhs's first, `?` lhs rows, and static contraction and result columns.

Measured (Llama decode step, batch 1, past 128; 1-minute load 9-10 on 2 vCPUs, process CPU per
call, median of 8 alternated runs): 3.02 -> 1.48 ms, the static module 0.98 ms.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, dot_dimension_numbers
from .contract_attrs import CONTRACT_ATTRS
from .fold_size_ranges import Interval, contract_ranges, interval_mul
from .ir_util import is_dynamic
from .registry import Pass
from .size_facts import SizeFacts, facts_for


def size_interval(expr, arg_ranges: list[list[Interval]]) -> Interval | None:
    """Interval of a size expression (lib/size_facts.py) over the arguments' axis ranges, or
    None when it has a leaf or an operation without a known range."""
    if isinstance(expr, int):
        return (expr, expr)
    if not isinstance(expr, list) or not expr:
        return None
    if expr[0] == "dim":
        k, axis = expr[1], expr[2]
        if k < len(arg_ranges) and axis < len(arg_ranges[k]):
            return arg_ranges[k][axis]
        return None
    parts = [size_interval(e, arg_ranges) for e in expr[1:]]
    if any(p is None for p in parts) or not parts:
        return None
    if expr[0] == "mul":
        out = parts[0]
        for p in parts[1:]:
            out = interval_mul(out, p)
        return out
    if expr[0] == "add":
        return (sum(p[0] for p in parts), sum(p[1] for p in parts))
    if expr[0] in ("max", "min") and len(parts) == 2:
        f = max if expr[0] == "max" else min
        return (f(parts[0][0], parts[1][0]), f(parts[0][1], parts[1][1]))
    return None


def pad_bounded_matmul_rows(op: ir.Operation, facts: SizeFacts, arg_ranges, max_rows: int) -> bool:
    """stablehlo.dot_general over `?` lhs rows bounded by <= max_rows -> the same contraction on
    the bound's rows (tensor.pad, static dot_general, tensor.extract_slice)."""
    lhs, rhs = op.operands
    lt, rt = ir.RankedTensorType(lhs.type), ir.RankedTensorType(rhs.type)
    out_t = ir.RankedTensorType(op.results[0].type)
    if lt.rank != 2 or rt.rank != 2 or out_t.rank != 2 or not is_dynamic(lt.shape[0]):
        return False
    if is_dynamic(lt.shape[1]) or is_dynamic(rt.shape[1]) or is_dynamic(out_t.shape[1]):
        return False
    if isinstance(lt.element_type, ir.ComplexType):
        return False
    d = dot_dimension_numbers(op)
    if d["lhs_batching_dimensions"] or d["lhs_contracting_dimensions"] != [1] or \
            d["rhs_contracting_dimensions"] != [0]:
        return False
    rows = size_interval(facts.dim(lhs, 0), arg_ranges)
    if rows is None or not (1 <= rows[1] <= max_rows):
        return False
    bound = int(rows[1])
    b = OpBuilder(op)
    elt = lt.element_type
    n = b.tensor_dim_op(lhs, 0)
    high = b.index_op("arith.subi", b.const_index(bound), n)
    zero = b.constant(elt, 0.0 if isinstance(elt, ir.FloatType) else 0)
    padded = b.tensor_pad(lhs, [0, 0], [high, 0], zero, ir.RankedTensorType.get([bound, lt.shape[1]], elt))
    attrs = {k: op.attributes[k] for k in ("dot_dimension_numbers", "precision_config", "algorithm")
             if k in op.attributes}
    static_t = ir.RankedTensorType.get([bound, out_t.shape[1]], out_t.element_type)
    dot = b.value("stablehlo.dot_general", [static_t], [padded, rhs], attrs)
    op.results[0].replace_all_uses_with(b.extract_slice(dot, [0, 0], [n, out_t.shape[1]]))
    op.erase()
    return True


@dataclass(frozen=True)
class PadBoundedMatmulRowsForIree(Pass):
    """A matmul over `?` rows the contract bounds to at most `max_rows`, on that many rows."""

    name = "symhlo-pad-bounded-matmul-rows-for-iree"
    summary = ("matmuls over `?` rows that the call contract bounds to one tile (<= max-rows) "
               "computed on the bound's rows, zero-padded, and sliced back")
    max_rows: int = 16

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            for f in module.body.operations:
                f = f.operation
                if f.name != "func.func" or not any(a in f.attributes for a in CONTRACT_ATTRS):
                    continue
                arg_ranges = contract_ranges(f)
                if arg_ranges is None:
                    continue
                facts = facts_for(f, gather_rows=True)
                apply_patterns(f, {"stablehlo.dot_general": lambda op: pad_bounded_matmul_rows(
                    op, facts, arg_ranges, self.max_rows)})
