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
ones. Rows that are a tensor.extract_slice with `?` sizes (a prefill's LM head at the last
position), whose pad IREE 3.13 failed to compile, are gathered instead where there is at least
one row (`clamped_rows`: the rows past the real ones repeat the last real one). Llama prefill
(d=256, vocab 4096) at (4, 128), per dispatch (AMD EPYC, 5 alternated rounds, medians): the
head's matmul + unpack 0.44 -> 0.19 ms (static 0.16), its 16-row tiles now 8.

The bound is the interval of the rows' size expression (lib/size_facts.py) over the ranges
`symhlo.symbols` gives the arguments' axes: only a function with symhlo's contract is rewritten,
and the call checks (symhlo-insert-call-checks-for-iree) refuse a call outside the ranges before
anything runs, so the pad amount is never negative. Runs on the copy for IREE only; the portable
artifact keeps its `?` rows. Matched: a 2-D `dot_general` with no batch axes contracting the lhs's
last axis with the rhs's first, `?` lhs rows, and static contraction and result columns.

Between two such matmuls the rows stay padded (`keep_rows_padded`, option `keep-padded`, on
by default): a padded matmul's operand that is computed from earlier padded matmuls' row slices
through row-wise ops (float elementwise ops, reductions over other axes, broadcasts along the
rows, reshapes keeping axis 0) is computed by the same ops on the padded rows, so the slice, the
pad and IREE's separate unpack dispatch between them go away (Llama decode step: 50 -> 47
dispatches). Whatever the padding rows then hold (garbage, even NaN) reaches only padding rows:
every op on the way is row-wise, a row-crossing op (a reduction over the rows) reads the real
rows (the slice) and is a leaf, and only a pad whose every user is such a matmul's lhs is
replaced. Measured at (1, 128), process CPU per call, medians of 7-9 alternated rounds, load
3-4: 1.67 -> 1.65 and 1.68 -> 1.58 ms (static 1.13, 1.14).

Measured (Llama decode step, batch 1, past 128; 1-minute load 9-10 on 2 vCPUs, process CPU per
call, median of 8 alternated runs): 3.02 -> 1.48 ms, the static module 0.98 ms.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, dot_dimension_numbers, reassociation_groups
from .contract_attrs import CONTRACT_ATTRS
from .fold_size_ranges import Interval, contract_ranges, interval_mul
from .ir_util import defining_op, is_dynamic, walk_ops
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


def pad_rows(b: OpBuilder, x: ir.Value, bound: int, n: ir.Value | None = None) -> ir.Value:
    """`x` (`?` rows, the other axes static) zero-padded at the end of axis 0 to `bound` rows."""
    t = ir.RankedTensorType(x.type)
    elt = t.element_type
    n = n if n is not None else b.tensor_dim_op(x, 0)
    high = b.index_op("arith.subi", b.const_index(bound), n)
    zero = b.constant(elt, 0.0 if isinstance(elt, ir.FloatType) else 0)
    rest = [0] * (t.rank - 1)
    return b.tensor_pad(x, [0, *rest], [high, *rest], zero,
                        ir.RankedTensorType.get([bound, *t.shape[1:]], elt))


def clamped_rows(b: OpBuilder, x: ir.Value, bound: int, n: ir.Value) -> ir.Value:
    """`x` (`n` rows, 1 <= n <= bound, the other axes static) as `bound` rows, the rows past
    `n` copies of its last one: a linalg.generic reading `x[min(i, n - 1), j..]`. For a
    tensor.extract_slice of `?` rows, whose tensor.pad IREE 3.13 failed to compile:

        %p = linalg.generic outs(tensor<8x256xf32>) { tensor.extract %x[min(i, %n - 1), j] }
    """
    t = ir.RankedTensorType(x.type)
    out = b.tensor_empty(ir.RankedTensorType.get([bound, *t.shape[1:]], t.element_type), [])
    result, g, _ = b.parallel_generic(out)
    ix = [g.linalg_index(d) for d in range(t.rank)]
    last = g.index_op("arith.subi", n, g.const_index(1))
    row = g.index_op("arith.minsi", ix[0], last)
    g.create("linalg.yield", [], [g.tensor_extract(x, [row, *ix[1:]])])
    return result


def _rows_of_dynamic_slice(v: ir.Value) -> bool:
    """`v` is (through reshapes) a tensor.extract_slice with `?` sizes: IREE 3.13 failed to
    compile the pad of such a slice ("failed to resolve workgroup count hint in terms of workload
    ordinals"; an LM head's last position, symhlo-slice-matmul-rows-for-iree)."""
    d = defining_op(v)
    while d is not None and d.name in ("tensor.collapse_shape", "tensor.expand_shape"):
        d = defining_op(d.operands[0])
    return d is not None and d.name == "tensor.extract_slice" and any(
        is_dynamic(x) for x in ir.DenseI64ArrayAttr(d.attributes["static_sizes"]))


def pad_bounded_matmul_rows(op: ir.Operation, facts: SizeFacts, arg_ranges, max_rows: int,
                            pads: list | None = None) -> bool:
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
    gather = _rows_of_dynamic_slice(lhs)
    if gather and rows[0] < 1:
        return False  # no last real row to repeat where there may be no rows
    bound = int(rows[1])
    b = OpBuilder(op)
    n = b.tensor_dim_op(lhs, 0)
    if gather:
        padded = clamped_rows(b, lhs, bound, n)
    else:
        padded = pad_rows(b, lhs, bound, n)
        if pads is not None:
            pads.append((padded.owner.operation, bound))
    attrs = {k: op.attributes[k] for k in ("dot_dimension_numbers", "precision_config", "algorithm")
             if k in op.attributes}
    static_t = ir.RankedTensorType.get([bound, out_t.shape[1]], out_t.element_type)
    dot = b.value("stablehlo.dot_general", [static_t], [padded, rhs], attrs)
    op.results[0].replace_all_uses_with(b.extract_slice(dot, [0, 0], [n, out_t.shape[1]]))
    op.erase()
    return True


# Row-wise ops a padded value may go through: every output row is computed from the same row of
# each operand only. Float-only, so that garbage in the padding rows cannot trap (integer division).
_ROWWISE_FLOAT_OPS = {f"stablehlo.{n}" for n in (
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "negate", "abs", "rsqrt", "sqrt",
    "exponential", "log", "logistic", "tanh", "convert")}


def _rest_static(t: ir.RankedTensorType) -> bool:
    """Axis 0 `?`, every other axis static."""
    return t.rank >= 1 and is_dynamic(t.shape[0]) and not any(is_dynamic(d) for d in t.shape[1:])


def _padded_type(t: ir.RankedTensorType, bound: int) -> ir.RankedTensorType:
    return ir.RankedTensorType.get([bound, *t.shape[1:]], t.element_type)


class RowPadding:
    """The values of one block computed on `bound` rows instead of their `?` rows (axis 0).

    `padded(v)` is a value of `bound` rows whose first dim(v, 0) rows are v's; the rows after
    them are unspecified (zeros, or whatever a row-wise op computed from other padding rows).
    It is the padded matmul result when v is its row slice, the same row-wise op on padded
    operands when v is one (`_ROWWISE_FLOAT_OPS`, a reduction over other axes, a broadcast that
    maps v's rows to the operand's rows or broadcasts them, a reshape that keeps axis 0 with
    unit axes only), and otherwise v zero-padded (`pad_rows`). New ops go in front of `anchor`,
    the pad being replaced, which every original value used here dominates.
    """

    def __init__(self, bound: int, row_broadcasts: set):
        self.bound = bound
        self.row_broadcasts = row_broadcasts  # dynamic_broadcast_in_dim results whose rows are the operand's
        self.memo: dict = {}

    def padded(self, v: ir.Value, b: OpBuilder) -> ir.Value:
        key = v
        if key not in self.memo:
            got = self._through(v, b)
            self.memo[key] = got if got is not None else pad_rows(b, v, self.bound)
        return self.memo[key]

    def _through(self, v: ir.Value, b: OpBuilder) -> ir.Value | None:
        t = ir.RankedTensorType(v.type)
        op = defining_op(v)
        if not _rest_static(t) or op is None:
            return None
        if op.block != b.anchor.operation.block or len(op.results) != 1:
            return None
        pt = _padded_type(t, self.bound)
        name = op.name
        if name == "tensor.extract_slice":
            src = op.operands[0]
            st = ir.RankedTensorType(src.type)
            if list(st.shape) != [self.bound, *t.shape[1:]]:
                return None
            offs = ir.DenseI64ArrayAttr(op.attributes["static_offsets"])
            strides = ir.DenseI64ArrayAttr(op.attributes["static_strides"])
            if any(o != 0 for o in offs) or any(s != 1 for s in strides):
                return None
            return src  # its first rows are v's
        if name in _ROWWISE_FLOAT_OPS:
            if not all(isinstance(ir.RankedTensorType(x.type).element_type, ir.FloatType)
                       and x.type == v.type for x in op.operands) and name != "stablehlo.convert":
                return None
            if name == "stablehlo.convert":
                st = ir.RankedTensorType(op.operands[0].type)
                if not (isinstance(st.element_type, ir.FloatType) and isinstance(t.element_type, ir.FloatType)):
                    return None
            ops = [self.padded(x, b) for x in op.operands]
            return b.value(name, [pt], ops)
        if name == "stablehlo.reduce":
            if len(op.operands) != 2 or 0 in list(ir.DenseI64ArrayAttr(op.attributes["dimensions"])):
                return None
            body = op.regions[0].blocks[0].operations
            if len(body) != 2 or not body[0].name.startswith("stablehlo.") or \
                    list(body[0].operands) != list(op.regions[0].blocks[0].arguments):
                return None
            x = op.operands[0]
            if not isinstance(ir.RankedTensorType(x.type).element_type, ir.FloatType):
                return None
            return b.hlo_reduce(self.padded(x, b), op.operands[1],
                                list(ir.DenseI64ArrayAttr(op.attributes["dimensions"])), pt,
                                body[0].name[len("stablehlo."):])
        if name in ("tensor.expand_shape", "tensor.collapse_shape"):
            x = op.operands[0]
            xt = ir.RankedTensorType(x.type)
            if not _rest_static(xt):
                return None
            groups = reassociation_groups(op)
            unit = t if name == "tensor.expand_shape" else xt  # the side whose group 0 has extra axes
            if any(unit.shape[i] != 1 for i in groups[0][1:]):
                return None
            px = self.padded(x, b)
            if name == "tensor.collapse_shape":
                return b.collapse_shape(px, groups, pt)
            return b.expand_shape(px, groups, pt, [])
        if name == "stablehlo.dynamic_broadcast_in_dim":
            x = op.operands[0]
            xt = ir.RankedTensorType(x.type)
            dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
            if any(is_dynamic(d) for d in xt.shape[1:]):
                return None
            if 0 not in dims or xt.shape[dims.index(0)] == 1:
                if any(is_dynamic(d) for d in xt.shape):
                    return None
                return b.hlo_broadcast_in_dim(x, pt, dims)  # the same for every row
            if dims.index(0) != 0 or v not in self.row_broadcasts:
                return None
            return b.hlo_broadcast_in_dim(self.padded(x, b), pt, dims)
        return None


def _broadcast_keeps_rows(op: ir.Operation, facts: SizeFacts) -> bool:
    """A dynamic_broadcast_in_dim whose result axis 0 is the operand's axis 0, of equal size."""
    dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    if not dims or dims[0] != 0:
        return False
    try:
        return facts.dim(op.operands[0], 0) == facts.dim(op.results[0], 0)
    except Exception:  # noqa: BLE001 - a size SizeFacts cannot read: not proven
        return False


def _rowwise_matmul_lhs(use: ir.Operation, v: ir.Value) -> bool:
    """`use` is a 2-D dot_general with `v` as lhs, rows on axis 0, no batch axes: row-wise in v."""
    if use.name != "stablehlo.dot_general" or len(use.operands) != 2 or use.operands[0] != v or \
            use.operands[1] == v:
        return False
    d = dot_dimension_numbers(use)
    return not d["lhs_batching_dimensions"] and d["lhs_contracting_dimensions"] == [1]


def keep_rows_padded(pads: list, row_broadcasts: set) -> None:
    """Each padded matmul operand computed on the padded rows (`RowPadding`) where the rows
    come from earlier padded matmuls and row-wise ops, instead of their real rows re-padded:

        %q = stablehlo.dot_general %p, %w : (tensor<8x256xf32>, ...) -> tensor<8x688xf32>
        %s = tensor.extract_slice %q[0, 0] [%n, 688] [1, 1] : tensor<8x688xf32> to tensor<?x688xf32>
        %g = stablehlo.logistic %s : tensor<?x688xf32>
        %p2 = tensor.pad %g low[0, 0] high[%h, 0] {...} : tensor<?x688xf32> to tensor<8x688xf32>
        %y = stablehlo.dot_general %p2, %w2 : (tensor<8x688xf32>, ...) -> tensor<8x256xf32>
      ==>
        %g8 = stablehlo.logistic %q : tensor<8x688xf32>
        %y = stablehlo.dot_general %g8, %w2 : (tensor<8x688xf32>, ...) -> tensor<8x256xf32>

    Only a pad whose every user is such a matmul's lhs is replaced: its padding rows only reach
    padding rows of the matmul's result, which the pass slices off."""
    padders: dict = {}
    for pad, bound in pads:
        users = [u.owner for u in pad.result.uses]
        if not users or not all(_rowwise_matmul_lhs(u, pad.result) for u in users):
            continue
        rp = padders.setdefault((pad.block, bound), RowPadding(bound, row_broadcasts))
        b = OpBuilder(pad)
        src = pad.operands[0]
        got = rp._through(src, b) if src not in rp.memo else rp.memo[src]
        if got is None:
            rp.memo[src] = pad.result  # the pad itself stays the padded src
            continue
        rp.memo[src] = got
        pad.result.replace_all_uses_with(got)
        pad.erase()


@dataclass(frozen=True)
class PadBoundedMatmulRowsForIree(Pass):
    """A matmul over `?` rows the contract bounds to at most `max_rows`, on that many rows."""

    name = "symhlo-pad-bounded-matmul-rows-for-iree"
    summary = ("matmuls over `?` rows that the call contract bounds to one tile (<= max-rows) "
               "computed on the bound's rows, zero-padded, and sliced back")
    max_rows: int = 16
    keep_padded: bool = True

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
                row_broadcasts = {op.results[0] for op in walk_ops(f)
                                  if op.name == "stablehlo.dynamic_broadcast_in_dim"
                                  and _broadcast_keeps_rows(op, facts)}
                pads: list = []
                apply_patterns(f, {"stablehlo.dot_general": lambda op: pad_bounded_matmul_rows(
                    op, facts, arg_ranges, self.max_rows, pads)})
                if self.keep_padded:
                    keep_rows_padded(pads, row_broadcasts)
