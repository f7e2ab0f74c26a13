"""The one op builder and the one pattern driver of symhlo's passes.

`OpBuilder` creates ops at one insertion point and location (by default in front of an anchor op,
at its location) and holds the helpers every pass shares: index arithmetic, `tensor.dim`, and
StableHLO constants, sizes, slices, pads and compares. `TorchBuilder` adds torch-dialect scalars
and lists. `apply_patterns` is the name-dispatch rewrite loop.

`!torch.vtensor` types have no Python binding in torch-mlir (no ValueTensorType in
`torch_mlir.dialects.torch` or `_torchMlir`), so `vtensor_sizes_and_dtype` is the one place that
reads one from its text.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from torch_mlir import ir
from torch_mlir._mlir_libs import _stablehlo
from torch_mlir.dialects import linalg

from .ir_util import create, defining_op, is_dynamic, walk_ops


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _index() -> ir.Type:
    return ir.IndexType.get()


def scalar_attr(elt: ir.Type, value) -> ir.Attribute:
    """`value` as an IntegerAttr (integer or index `elt`) or a FloatAttr of `elt`."""
    if isinstance(elt, (ir.IntegerType, ir.IndexType)):
        return ir.IntegerAttr.get(elt, int(value))
    return ir.FloatAttr.get(elt, float(value))


def dense_attr(values: Sequence, elt: ir.Type, shape: Sequence[int]) -> ir.DenseElementsAttr:
    """A dense elements attribute of `shape` holding `values` (row-major) of `elt`."""
    t = ir.RankedTensorType.get(list(shape), elt)
    if not values:
        return ir.Attribute.parse(f"dense<> : {t}")
    if len(set(values)) == 1:
        return ir.DenseElementsAttr.get_splat(t, scalar_attr(elt, values[0]))
    return ir.DenseElementsAttr.get([scalar_attr(elt, v) for v in values], type=t)


def symbol_refs(attr: ir.Attribute) -> set[str]:
    """The symbol names an attribute refers to, through arrays and dictionaries."""
    if isinstance(attr, ir.FlatSymbolRefAttr):
        return {attr.value}
    if isinstance(attr, ir.SymbolRefAttr):
        return set(attr.value)
    if isinstance(attr, ir.ArrayAttr):
        return set().union(*(symbol_refs(a) for a in attr))
    if isinstance(attr, ir.DictAttr):
        return set().union(*(symbol_refs(attr[i].attr) for i in range(len(attr))))
    return set()


# ---------------------------------------------------------------------------------------------
# The pattern driver


def apply_patterns(root: ir.Operation,
                   patterns: Mapping[str, Callable[[ir.Operation], object]], *,
                   reverse: bool = False) -> bool:
    """Calls `patterns[op.name](op)` on every op nested under `root` that has a pattern.

    The ops are collected from one pre-order snapshot (`walk_ops`) before any pattern runs, so a
    pattern may erase ops after its root; `reverse` visits the snapshot users-first. A pattern
    returns False when it left its op alone; anything else (True, None: it rewrote or raised)
    counts as a change. Returns whether any pattern changed something.
    """
    ops = walk_ops(root)
    if reverse:
        ops.reverse()
    work = [(op, patterns[op.name]) for op in ops if op.name in patterns]
    changed = False
    for op, pattern in work:
        if pattern(op) is not False:
            changed = True
    return changed


# ---------------------------------------------------------------------------------------------
# !torch.vtensor types (no binding exists: read from the type's text)


def vtensor_sizes_and_dtype(t: ir.Type) -> tuple[list[int | None], str] | None:
    """`!torch.vtensor<[2,?],f32>` -> ([2, None], "f32"); None for any other type."""
    text = str(t)
    head, tail = "!torch.vtensor<[", ">"
    if not text.startswith(head) or not text.endswith(tail) or "]," not in text:
        return None
    sizes_text, dtype = text[len(head):-len(tail)].split("],", 1)
    sizes = [None if s.strip() == "?" else int(s) for s in sizes_text.split(",") if s.strip()]
    return sizes, dtype


def vtensor_type(sizes: Sequence[int | None], dtype: str) -> ir.Type:
    """`!torch.vtensor<[sizes],dtype>`; None sizes are `?`."""
    return ir.Type.parse("!torch.vtensor<[" + ",".join("?" if s is None else str(s) for s in sizes)
                         + f"],{dtype}>")


def builtin_element_type(dtype: str) -> ir.Type | None:
    """A torch dtype's builtin element type as torch-mlir's StableHLO type conversion makes it
    (`si64` -> i64, `ui8` -> ui8: a `to_builtin_tensor` of a ui8 tensor to `i8` left torch-mlir an
    unresolved i8 / ui8 materialization, so `torch.roll` / `sort` of uint8 failed); None for
    dtypes without one (`!torch.qint8`, ...)."""
    if dtype[:2] == "si" and dtype[2:].isdigit():
        dtype = dtype[1:]
    if dtype.startswith("!"):
        return None
    return ir.Type.parse(dtype)


def vtensor_builtin_type(t: ir.Type) -> tuple[ir.RankedTensorType, str] | None:
    """`!torch.vtensor<[?,4],si64>` -> (tensor<?x4xi64>, "si64"); None for other types."""
    parts = vtensor_sizes_and_dtype(t)
    if parts is None:
        return None
    sizes, dtype = parts
    elt = builtin_element_type(dtype)
    if elt is None:
        return None
    dyn = ir.ShapedType.get_dynamic_size()
    return ir.RankedTensorType.get([dyn if s is None else s for s in sizes], elt), dtype


def builtin_type(t: ir.Type) -> tuple[ir.RankedTensorType, str]:
    """`!torch.vtensor<[?,4],si64>` -> (tensor<?x4xi64>, "si64")."""
    parts = vtensor_builtin_type(t)
    if parts is None:
        raise ValueError(f"not a ranked value tensor: {t}")
    return parts


def replace_with_builtin(op: ir.Operation, values: list[ir.Value]) -> None:
    """Replaces op's results by builtin tensors `values`, cast back with from_builtin_tensor."""
    b = OpBuilder(op)
    for res, v in zip(op.results, values):
        res.replace_all_uses_with(b.value("torch_c.from_builtin_tensor", [res.type], [v]))
    op.erase()


# ---------------------------------------------------------------------------------------------
# StableHLO attributes, read and built with the StableHLO bindings (they are not downcast
# automatically: wrap them explicitly)


def comparison_direction(op: ir.Operation) -> str:
    """A stablehlo.compare's direction: "EQ", "NE", "LT", "LE", "GT" or "GE"."""
    return _stablehlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value


def dot_dimension_numbers(op: ir.Operation) -> dict[str, list[int]]:
    """A stablehlo.dot_general's `dot_dimension_numbers`, by field name."""
    d = _stablehlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    return {"lhs_batching_dimensions": list(d.lhs_batching_dimensions),
            "rhs_batching_dimensions": list(d.rhs_batching_dimensions),
            "lhs_contracting_dimensions": list(d.lhs_contracting_dimensions),
            "rhs_contracting_dimensions": list(d.rhs_contracting_dimensions)}


def dot_result_axis(op: ir.Operation, axis: int) -> tuple[int, int]:
    """(operand index, operand axis) whose size a stablehlo.dot_general's result axis `axis`
    has: the result is the lhs's batching axes, then the lhs's free axes (neither batching nor
    contracting), then the rhs's free axes, each in order."""
    nums = dot_dimension_numbers(op)
    lb = nums["lhs_batching_dimensions"]
    free = [[a for a in range(ir.RankedTensorType(o.type).rank)
             if a not in nums[f"{side}_batching_dimensions"] + nums[f"{side}_contracting_dimensions"]]
            for o, side in zip(op.operands, ("lhs", "rhs"))]
    order = [(0, a) for a in lb] + [(0, a) for a in free[0]] + [(1, a) for a in free[1]]
    return order[axis]


def gather_dimension_numbers(attr: ir.Attribute) -> dict[str, list[int] | int]:
    """A `#stablehlo.gather<...>` attribute, by field name."""
    g = _stablehlo.GatherDimensionNumbers(attr)
    return {"offset_dims": list(g.offset_dims), "collapsed_slice_dims": list(g.collapsed_slice_dims),
            "operand_batching_dims": list(g.operand_batching_dims),
            "start_indices_batching_dims": list(g.start_indices_batching_dims),
            "start_index_map": list(g.start_index_map), "index_vector_dim": g.index_vector_dim}


def gather_numbers(offset_dims: Sequence[int], collapsed_slice_dims: Sequence[int],
                   start_index_map: Sequence[int], index_vector_dim: int,
                   operand_batching_dims: Sequence[int] = (),
                   start_indices_batching_dims: Sequence[int] = ()) -> ir.Attribute:
    """A `#stablehlo.gather<...>` attribute."""
    return _stablehlo.GatherDimensionNumbers.get(
        offset_dims=list(offset_dims), collapsed_slice_dims=list(collapsed_slice_dims),
        operand_batching_dims=list(operand_batching_dims),
        start_indices_batching_dims=list(start_indices_batching_dims),
        start_index_map=list(start_index_map), index_vector_dim=index_vector_dim)


def dot_numbers(lhs_contracting: Sequence[int], rhs_contracting: Sequence[int],
                lhs_batching: Sequence[int] = (), rhs_batching: Sequence[int] = ()) -> ir.Attribute:
    """A `#stablehlo.dot<...>` attribute."""
    return _stablehlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lhs_batching), rhs_batching_dimensions=list(rhs_batching),
        lhs_contracting_dimensions=list(lhs_contracting),
        rhs_contracting_dimensions=list(rhs_contracting))


def reassociation_attr(groups: Sequence[Sequence[int]]) -> ir.ArrayAttr:
    """A collapse_shape / expand_shape `reassociation` attribute: [[0, 1], [2]] -> [[0, 1], [2]]."""
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(_i64(), a) for a in g]) for g in groups])


def reassociation_groups(op: ir.Operation) -> list[list[int]]:
    """A collapse_shape / expand_shape op's `reassociation`, as lists of axes."""
    return [[ir.IntegerAttr(a).value for a in ir.ArrayAttr(g)]
            for g in ir.ArrayAttr(op.attributes["reassociation"])]


def torch_constant_int(v: ir.Value) -> int | None:
    """The value of a `torch.constant.int`, else None."""
    d = defining_op(v)
    if d is not None and d.name == "torch.constant.int":
        return ir.IntegerAttr(d.attributes["value"]).value
    return None


# ---------------------------------------------------------------------------------------------
# The builder


class OpBuilder:
    """Creates ops at `ip` with location `loc`: by default in front of `anchor`, at its location."""

    def __init__(self, anchor: ir.Operation | None = None, *, ip: ir.InsertionPoint | None = None,
                 loc: ir.Location | None = None):
        self.anchor = anchor
        self.ip = ip if ip is not None else ir.InsertionPoint(anchor)
        self.loc = loc if loc is not None else anchor.location

    def create(self, name: str, results: Sequence[ir.Type], operands: Sequence[ir.Value],
               attrs: dict | None = None, *, regions: int = 0) -> ir.Operation:
        """`name` op with these results, operands, attributes and `regions` empty regions."""
        return create(name, results, operands, attrs, loc=self.loc, ip=self.ip, regions=regions)

    def value(self, name: str, results: Sequence[ir.Type], operands: Sequence[ir.Value],
              attrs: dict | None = None) -> ir.Value:
        """The single result of a new `name` op."""
        return self.create(name, results, operands, attrs).result

    # -- index arithmetic -------------------------------------------------------------------

    def const_index(self, v: int) -> ir.Value:
        return self.value("arith.constant", [_index()], [], {"value": ir.IntegerAttr.get(_index(), int(v))})

    def constant(self, elt: ir.Type, value) -> ir.Value:
        """An `arith.constant` scalar of `elt`."""
        return self.value("arith.constant", [elt], [], {"value": scalar_attr(elt, value)})

    def index_op(self, name: str, *operands: ir.Value) -> ir.Value:
        """An index-typed `name` op (`arith.addi`, `shape.get_extent`, ...)."""
        return self.value(name, [_index()], list(operands))

    def fold_index(self, name: str, x: int | ir.Value, y: int | ir.Value) -> int | ir.Value:
        """`x + y` (`name` "arith.addi") or `x * y` ("arith.muli") of ints and index Values:
        an int when both are, the other operand for an identity (+ 0, * 1), else the op."""
        fold, unit = {"arith.addi": (lambda a, c: a + c, 0), "arith.muli": (lambda a, c: a * c, 1)}[name]
        if isinstance(x, int) and isinstance(y, int):
            return fold(x, y)
        if isinstance(x, int) and x == unit:
            return y
        if isinstance(y, int) and y == unit:
            return x
        x = self.const_index(x) if isinstance(x, int) else x
        y = self.const_index(y) if isinstance(y, int) else y
        return self.index_op(name, x, y)

    def ceil_div(self, size: ir.Value, b: int) -> ir.Value:
        """`(size + b - 1) / b` for a non-negative index `size`: how many blocks of `b` cover it."""
        return self.index_op("arith.divsi", self.index_op("arith.addi", size, self.const_index(b - 1)),
                             self.const_index(b))

    def parallel_generic(self, out: ir.Value, ins: Sequence[ir.Value] = (),
                         reads: Sequence[ir.AffineMap] = ()) -> tuple[ir.Value, "OpBuilder", list]:
        """An all-parallel linalg.generic writing `out` (identity map) from `ins`, each read at
        its map in `reads`: (its result, a builder in its body, the body's block arguments: one
        element per input, then out's). The caller ends the body with `linalg.yield`."""
        out_t = ir.RankedTensorType(out.type)
        rank = out_t.rank
        maps = [ir.AffineMapAttr.get(m) for m in reads] + [
            ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))]
        par = ir.Attribute.parse("#linalg.iterator_type<parallel>")
        gen = linalg.GenericOp([out_t], list(ins), [out], ir.ArrayAttr.get(maps),
                               ir.ArrayAttr.get([par] * rank), loc=self.loc, ip=self.ip)
        body = gen.regions[0].blocks.append(
            *[ir.RankedTensorType(v.type).element_type for v in ins], out_t.element_type)
        return gen.results[0], OpBuilder(ip=ir.InsertionPoint(body), loc=self.loc), list(body.arguments)

    def linalg_index(self, dim: int) -> ir.Value:
        """`linalg.index dim` (inside a linalg op's body): the iteration's position along `dim`."""
        return self.value("linalg.index", [_index()], [], {"dim": ir.IntegerAttr.get(_i64(), dim)})

    def cmpi(self, predicate: str, a: ir.Value, b: ir.Value) -> ir.Value:
        pred = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5,
                "ult": 6, "ule": 7, "ugt": 8, "uge": 9}[predicate]
        return self.value("arith.cmpi", [ir.IntegerType.get_signless(1)], [a, b],
                          {"predicate": ir.IntegerAttr.get(_i64(), pred)})

    def arith_select(self, c: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.value("arith.select", [a.type], [c, a, b])

    def tensor_dim(self, t: ir.Value, axis: int) -> ir.Value:
        """Axis `axis` of `t` as an index (a constant when static)."""
        size = ir.RankedTensorType(t.type).shape[axis]
        if not is_dynamic(size):
            return self.const_index(size)
        return self.index_op("tensor.dim", t, self.const_index(axis))

    def index_cast(self, v: ir.Value, to: ir.Type | None = None) -> ir.Value:
        """`arith.index_cast` of `v` to `to` (index by default)."""
        return self.value("arith.index_cast", [to or _index()], [v])

    def tensor_dim_op(self, t: ir.Value, axis: int) -> ir.Value:
        """`tensor.dim %t, axis` as an op, also for a static axis (tensor_dim folds those)."""
        return self.index_op("tensor.dim", t, self.const_index(axis))

    def tensor_extract(self, t: ir.Value, indices: Sequence[ir.Value] = ()) -> ir.Value:
        """`tensor.extract %t[indices]`: one element of `t`, of its element type."""
        return self.value("tensor.extract", [ir.RankedTensorType(t.type).element_type],
                          [t, *indices])

    def extract_index(self, t: ir.Value, i: int) -> ir.Value:
        """Element `i` of a rank-1 integer tensor, as an index."""
        elt = ir.RankedTensorType(t.type).element_type
        v = self.value("tensor.extract", [elt], [t, self.const_index(i)])
        return v if isinstance(elt, ir.IndexType) else self.index_op("arith.index_cast", v)

    # -- tensor -----------------------------------------------------------------------------

    def tensor_cast(self, v: ir.Value, t: ir.Type) -> ir.Value:
        """`tensor.cast %v : ... to t`; `v` itself when it already has type `t`."""
        return v if v.type == t else self.value("tensor.cast", [t], [v])

    def tensor_from_elements(self, values: Sequence[ir.Value], elt: ir.Type | None = None) -> ir.Value:
        """A rank-1 tensor of `values` (of `elt`, by default the values' type)."""
        t = ir.RankedTensorType.get([len(values)], elt or values[0].type)
        return self.value("tensor.from_elements", [t], list(values))

    def tensor_reshape(self, x: ir.Value, shape: ir.Value, result: ir.Type) -> ir.Value:
        """`tensor.reshape %x(%shape)` to `result`."""
        return self.value("tensor.reshape", [result], [x, shape])

    def tensor_empty(self, t: ir.Type, dynamic_sizes: Sequence[ir.Value]) -> ir.Value:
        """`tensor.empty(dynamic_sizes) : t` (one index size per `?` axis of `t`)."""
        return self.value("tensor.empty", [t], list(dynamic_sizes))

    def collapse_shape(self, x: ir.Value, groups: Sequence[Sequence[int]], result: ir.Type) -> ir.Value:
        """`tensor.collapse_shape %x [groups]` into `result`."""
        return self.value("tensor.collapse_shape", [result], [x],
                          {"reassociation": reassociation_attr(groups)})

    def expand_shape(self, x: ir.Value, groups: Sequence[Sequence[int]], result: ir.Type,
                     dynamic_sizes: Sequence[ir.Value]) -> ir.Value:
        """`tensor.expand_shape %x [groups] output_shape [...]` into `result` (one index size
        per `?` axis of `result`)."""
        shape = list(ir.RankedTensorType(result).shape)
        return self.value("tensor.expand_shape", [result], [x, *dynamic_sizes],
                          {"reassociation": reassociation_attr(groups),
                           "static_output_shape": ir.DenseI64ArrayAttr.get(shape)})

    @staticmethod
    def _mixed(parts: Sequence[int | ir.Value]) -> tuple[list[int], list[ir.Value]]:
        """Static values (`?` where a part is an index Value) and the dynamic ones, in order."""
        dyn = ir.ShapedType.get_dynamic_size()
        return ([p if isinstance(p, int) else dyn for p in parts],
                [p for p in parts if not isinstance(p, int)])

    def insert_slice(self, src: ir.Value, dest: ir.Value, offsets: Sequence[int | ir.Value],
                     sizes: Sequence[int | ir.Value]) -> ir.Value:
        """`tensor.insert_slice %src into %dest[offsets] [sizes] [1, ...]` (each offset and
        size an int or an index Value)."""
        s_off, d_off = self._mixed(offsets)
        s_size, d_size = self._mixed(sizes)
        arr = ir.DenseI64ArrayAttr.get
        return self.value("tensor.insert_slice", [dest.type], [src, dest, *d_off, *d_size],
                          {"static_offsets": arr(s_off), "static_sizes": arr(s_size),
                           "static_strides": arr([1] * len(s_off)),
                           "operandSegmentSizes": ir.DenseI32ArrayAttr.get(
                               [1, 1, len(d_off), len(d_size), 0])})

    def extract_slice(self, src: ir.Value, offsets: Sequence[int | ir.Value],
                      sizes: Sequence[int | ir.Value], result: ir.Type | None = None) -> ir.Value:
        """`tensor.extract_slice %src[offsets] [sizes] [1, ...]` (each an int or an index Value;
        a Value size is a `?` axis of the result); `result`: a rank-reduced result type (unit
        sizes dropped)."""
        s_off, d_off = self._mixed(offsets)
        s_size, d_size = self._mixed(sizes)
        elt = ir.RankedTensorType(src.type).element_type
        arr = ir.DenseI64ArrayAttr.get
        return self.value("tensor.extract_slice", [result or ir.RankedTensorType.get(s_size, elt)],
                          [src, *d_off, *d_size],
                          {"static_offsets": arr(s_off), "static_sizes": arr(s_size),
                           "static_strides": arr([1] * len(s_off)),
                           "operandSegmentSizes": ir.DenseI32ArrayAttr.get(
                               [1, len(d_off), len(d_size), 0])})

    def tensor_pad(self, x: ir.Value, low: Sequence[int | ir.Value], high: Sequence[int | ir.Value],
                   value: ir.Value, result: ir.Type) -> ir.Value:
        """`tensor.pad %x low[...] high[...]` to `result`, yielding the scalar `value` (each
        amount an int or an index Value)."""
        s_low, d_low = self._mixed(low)
        s_high, d_high = self._mixed(high)
        arr = ir.DenseI64ArrayAttr.get
        pad = self.create("tensor.pad", [result], [x, *d_low, *d_high],
                          {"static_low": arr(s_low), "static_high": arr(s_high),
                           "operandSegmentSizes": ir.DenseI32ArrayAttr.get(
                               [1, len(d_low), len(d_high)])}, regions=1)
        block = pad.regions[0].blocks.append(*([_index()] * len(s_low)))
        OpBuilder(ip=ir.InsertionPoint(block), loc=self.loc).create("tensor.yield", [], [value])
        return pad.result

    # -- StableHLO --------------------------------------------------------------------------

    def hlo_constant(self, attr: ir.DenseElementsAttr) -> ir.Value:
        """A `stablehlo.constant` of an elements attribute built by the caller."""
        return self.value("stablehlo.constant", [attr.type], [], {"value": attr})

    def hlo_splat(self, t: ir.Type, value) -> ir.Value:
        """A `stablehlo.constant` of type `t` with every element `value`."""
        t = ir.RankedTensorType(t)
        return self.hlo_constant(ir.DenseElementsAttr.get_splat(t, scalar_attr(t.element_type, value)))

    def hlo_full_like(self, value, like: ir.Value) -> ir.Value:
        """A tensor of `like`'s type with every element `value`: a splat constant where `like` is
        static, else a 0-d constant broadcast to `like`'s sizes (`hlo_dim`)."""
        t = ir.RankedTensorType(like.type)
        if t.has_static_shape:
            return self.hlo_splat(t, value)
        scalar = self.hlo_splat(ir.RankedTensorType.get([], t.element_type), value)
        shape = self.hlo_concat([self.hlo_dim(like, a) for a in range(t.rank)])
        return self.hlo_broadcast_in_dim(scalar, t, [], shape)

    def hlo_const(self, values: Sequence, elt: ir.Type, shape: Sequence[int] | None = None) -> ir.Value:
        """A `stablehlo.constant` of `values` (shape [len(values)] by default; [] for a scalar)."""
        attr = dense_attr(values, elt, [len(values)] if shape is None else shape)
        return self.value("stablehlo.constant", [attr.type], [], {"value": attr})

    def hlo_scalar(self, value, elt: ir.Type | None = None) -> ir.Value:
        """A 0-d `stablehlo.constant` (i64 by default)."""
        return self.hlo_const([value], elt or _i64(), shape=[])

    def hlo_convert(self, v: ir.Value, elt: ir.Type) -> ir.Value:
        t = ir.RankedTensorType(v.type)
        if t.element_type == elt:
            return v
        return self.value("stablehlo.convert", [ir.RankedTensorType.get(t.shape, elt)], [v])

    def hlo_reshape(self, v: ir.Value, shape: Sequence[int]) -> ir.Value:
        elt = ir.RankedTensorType(v.type).element_type
        return self.value("stablehlo.reshape", [ir.RankedTensorType.get(list(shape), elt)], [v])

    def hlo_get_dimension_size(self, t: ir.Value, axis: int) -> ir.Value:
        """`stablehlo.get_dimension_size %t, dim = axis`: a tensor<i32>, also for a static axis."""
        i32 = ir.IntegerType.get_signless(32)
        return self.value("stablehlo.get_dimension_size", [ir.RankedTensorType.get([], i32)], [t],
                          {"dimension": ir.IntegerAttr.get(_i64(), axis)})

    def hlo_dim(self, t: ir.Value, axis: int, elt: ir.Type | None = None,
                shape: Sequence[int] = (1,)) -> ir.Value:
        """Axis `axis` of `t` as a tensor<1x`elt`> (`shape` [] : a 0-d tensor; a constant when
        static; `elt` i64 by default)."""
        elt = elt or _i64()
        size = ir.RankedTensorType(t.type).shape[axis]
        if not is_dynamic(size):
            return self.hlo_const([size], elt, shape)
        d = self.hlo_convert(self.hlo_get_dimension_size(t, axis), elt)
        return self.hlo_reshape(d, shape) if list(shape) else d

    def hlo_slice(self, t: ir.Value, start: Sequence[int], limit: Sequence[int],
                  strides: Sequence[int] | None = None) -> ir.Value:
        """`stablehlo.slice` of a static box of `t`."""
        src = ir.RankedTensorType(t.type)
        strides = list(strides) if strides is not None else [1] * len(start)
        shape = [-(-(hi - lo) // s) for lo, hi, s in zip(start, limit, strides)]
        arr = ir.DenseI64ArrayAttr.get
        return self.value("stablehlo.slice", [ir.RankedTensorType.get(shape, src.element_type)], [t],
                          {"start_indices": arr(list(start)), "limit_indices": arr(list(limit)),
                           "strides": arr(strides)})

    def hlo_element(self, t: ir.Value, index: Sequence[int]) -> ir.Value:
        """One element of `t` as a tensor<1xelt>."""
        index = list(index)
        s = self.hlo_slice(t, index, [i + 1 for i in index])
        return s if len(index) == 1 else self.hlo_reshape(s, [1])

    def hlo_concat(self, parts: Sequence[ir.Value]) -> ir.Value:
        """Rank-1 tensors end to end (the one part itself when there is one)."""
        if len(parts) == 1:
            return parts[0]
        elt = ir.RankedTensorType(parts[0].type).element_type
        n = sum(ir.RankedTensorType(p.type).shape[0] for p in parts)
        return self.value("stablehlo.concatenate", [ir.RankedTensorType.get([n], elt)], list(parts),
                          {"dimension": ir.IntegerAttr.get(_i64(), 0)})

    def hlo_with_entry(self, vec: ir.Value, i: int, n: int) -> ir.Value:
        """Rank-1 `vec` (a shape or slice bounds) with entry `i` replaced by the constant `n`."""
        rank = ir.RankedTensorType(vec.type).shape[0]
        elt = ir.RankedTensorType(vec.type).element_type
        parts = [self.hlo_slice(vec, [0], [i])] if i > 0 else []
        parts.append(self.hlo_const([n], elt))
        if i + 1 < rank:
            parts.append(self.hlo_slice(vec, [i + 1], [rank]))
        return self.hlo_concat(parts)

    def hlo_unary(self, name: str, a: ir.Value) -> ir.Value:
        """`stablehlo.<name>` of one operand, of its type."""
        return self.value(f"stablehlo.{name}", [a.type], [a])

    def hlo_broadcast_in_dim(self, x: ir.Value, t: ir.Type, dims: Sequence[int],
                             shape: ir.Value | None = None, known: dict | None = None) -> ir.Value:
        """`stablehlo.broadcast_in_dim` of `x` to `t` (`dynamic_broadcast_in_dim` to the sizes
        in `shape` when given, with the `known_*_dimensions` lists in `known`), operand axis i to
        result axis dims[i]."""
        attrs = {"broadcast_dimensions": ir.DenseI64ArrayAttr.get(list(dims))}
        if shape is None:
            return self.value("stablehlo.broadcast_in_dim", [t], [x], attrs)
        for name, axes in (known or {}).items():
            attrs[name] = ir.DenseI64ArrayAttr.get(list(axes))
        return self.value("stablehlo.dynamic_broadcast_in_dim", [t], [x, shape], attrs)

    def shape_of(self, like: ir.Value) -> ir.Value:
        """`like`'s sizes as a rank-1 i64 tensor (`tensor.dim` where `?`), a dynamic
        broadcast's or reshape's shape operand."""
        rank = ir.RankedTensorType(like.type).rank
        return self.tensor_from_elements(
            [self.index_cast(self.tensor_dim(like, a), _i64()) for a in range(rank)], _i64())

    def hlo_broadcast_like(self, x: ir.Value, like: ir.Value, dims: Sequence[int],
                           elt: ir.Type | None = None, known: dict | None = None) -> ir.Value:
        """`x` broadcast to `like`'s shape (element type `elt`, by default `x`'s), operand axis i
        to result axis dims[i]: a `broadcast_in_dim` where that shape is static, else a
        `dynamic_broadcast_in_dim` to `like`'s sizes (`shape_of`), with `known` (see
        hlo_broadcast_in_dim)."""
        t = ir.RankedTensorType.get(ir.RankedTensorType(like.type).shape,
                                    elt or ir.RankedTensorType(x.type).element_type)
        if t.has_static_shape:
            return self.hlo_broadcast_in_dim(x, t, dims)
        return self.hlo_broadcast_in_dim(x, t, dims, self.shape_of(like), known)

    def hlo_transpose(self, x: ir.Value, perm: Sequence[int], result: ir.Type | None = None) -> ir.Value:
        """`stablehlo.transpose %x, dims = perm` (result axis i is axis perm[i] of `x`; of type
        `result` when given); `x` itself for the identity."""
        perm = list(perm)
        if perm == list(range(len(perm))):
            return x
        if result is None:
            t = ir.RankedTensorType(x.type)
            result = ir.RankedTensorType.get([t.shape[p] for p in perm], t.element_type)
        return self.value("stablehlo.transpose", [result], [x],
                          {"permutation": ir.DenseI64ArrayAttr.get(perm)})

    def hlo_reverse(self, x: ir.Value, dims: Sequence[int]) -> ir.Value:
        """`stablehlo.reverse %x, dims = dims` (same type as `x`)."""
        return self.value("stablehlo.reverse", [x.type], [x],
                          {"dimensions": ir.DenseI64ArrayAttr.get(list(dims))})

    def hlo_dynamic_reshape(self, x: ir.Value, shape: ir.Value, t: ir.Type) -> ir.Value:
        return self.value("stablehlo.dynamic_reshape", [t], [x, shape])

    def hlo_dot_general(self, lhs: ir.Value, rhs: ir.Value, t: ir.Type, numbers: ir.Attribute,
                        like: ir.Operation | None = None) -> ir.Value:
        """`stablehlo.dot_general` with dimension numbers `numbers` (builder.dot_numbers); the
        other attributes (precision_config, algorithm) are copied from `like` when given."""
        attrs = {n: like.attributes[n] for n in like.attributes} if like is not None else {}
        attrs["dot_dimension_numbers"] = numbers
        return self.value("stablehlo.dot_general", [t], [lhs, rhs], attrs)

    def hlo_reduce(self, x: ir.Value, init: ir.Value, dims: Sequence[int], t: ir.Type,
                   combine: str = "add") -> ir.Value:
        """`stablehlo.reduce` of `x` from `init` over `dims` to `t`, whose body is the scalar
        `stablehlo.<combine>`."""
        red = self.create("stablehlo.reduce", [t], [x, init],
                          {"dimensions": ir.DenseI64ArrayAttr.get(list(dims))}, regions=1)
        scalar = init.type
        block = red.regions[0].blocks.append(scalar, scalar)
        body = OpBuilder(ip=ir.InsertionPoint(block), loc=self.loc)
        body.create("stablehlo.return", [], [body.hlo_binary(combine, *block.arguments)])
        return red.result

    def hlo_binary(self, name: str, a: ir.Value, b: ir.Value) -> ir.Value:
        """`stablehlo.<name>` of two operands of one type."""
        return self.value(f"stablehlo.{name}", [a.type], [a, b])

    def hlo_compare(self, direction: str, a: ir.Value, b: ir.Value,
                    compare_type: str | None = None) -> ir.Value:
        """`stablehlo.compare` (direction EQ/NE/LT/...; compare_type SIGNED/FLOAT/... if given)."""
        t = ir.RankedTensorType(a.type)
        attrs = {"comparison_direction": _stablehlo.ComparisonDirectionAttr.get(direction)}
        if compare_type is not None:
            attrs["compare_type"] = _stablehlo.ComparisonTypeAttr.get(compare_type)
        return self.value("stablehlo.compare",
                          [ir.RankedTensorType.get(t.shape, ir.IntegerType.get_signless(1))],
                          [a, b], attrs)

    def hlo_select(self, c: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.value("stablehlo.select", [a.type], [c, a, b])

    def hlo_pad(self, x: ir.Value, value: ir.Value, low: Sequence[int], high: Sequence[int],
                interior: Sequence[int]) -> ir.Value:
        """`stablehlo.pad` by static amounts (`?` axes stay `?`); `x` when nothing pads."""
        low, high, interior = list(low), list(high), list(interior)
        if not any(low) and not any(high) and not any(interior):
            return x
        src = ir.RankedTensorType(x.type)
        shape = [s if is_dynamic(s) else s + lo + hi + max(s - 1, 0) * it
                 for s, lo, hi, it in zip(src.shape, low, high, interior)]
        arr = ir.DenseI64ArrayAttr.get
        return self.value("stablehlo.pad", [ir.RankedTensorType.get(shape, src.element_type)],
                          [x, value], {"edge_padding_low": arr(low), "edge_padding_high": arr(high),
                                       "interior_padding": arr(interior)})

    def hlo_iota(self, like: ir.Value, axis: int, elt: ir.Type | None = None) -> ir.Value:
        """An iota of `like`'s shape along `axis` (dynamic_iota when a dim is `?`; i64 default)."""
        elt = elt or _i64()
        shape = ir.RankedTensorType(like.type).shape
        t = ir.RankedTensorType.get(shape, elt)
        dim = {"iota_dimension": ir.IntegerAttr.get(_i64(), axis)}
        if not any(is_dynamic(s) for s in shape):
            return self.value("stablehlo.iota", [t], [], dim)
        sizes = self.hlo_concat([self.hlo_dim(like, a) for a in range(len(shape))])
        return self.value("stablehlo.dynamic_iota", [t], [sizes], dim)


class TorchBuilder(OpBuilder):
    """OpBuilder with torch-dialect scalars, lists and casts."""

    def int(self, v: int) -> ir.Value:
        return self.value("torch.constant.int", [ir.Type.parse("!torch.int")], [],
                          {"value": ir.IntegerAttr.get(_i64(), v)})

    def bool(self, v: bool) -> ir.Value:
        return self.value("torch.constant.bool", [ir.Type.parse("!torch.bool")], [],
                          {"value": ir.BoolAttr.get(v)})

    def none(self) -> ir.Value:
        return self.value("torch.constant.none", [ir.Type.parse("!torch.none")], [])

    def int_op(self, name: str, *operands: ir.Value) -> ir.Value:
        """A `!torch.int`-typed `name` op."""
        return self.value(name, [ir.Type.parse("!torch.int")], list(operands))

    def add(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """a + b as `!torch.int`, folded where constant."""
        ca, cb = torch_constant_int(a), torch_constant_int(b)
        if ca is not None and cb is not None:
            return self.int(ca + cb)
        if ca == 0:
            return b
        if cb == 0:
            return a
        return self.int_op("torch.aten.add.int", a, b)

    def size(self, x: ir.Value, axis: int) -> ir.Value:
        """x.size(axis): a constant for a static axis, else `torch.aten.size.int`."""
        sizes, _ = vtensor_sizes_and_dtype(x.type)
        if sizes[axis] is not None:
            return self.int(sizes[axis])
        return self.int_op("torch.aten.size.int", x, self.int(axis))

    def list(self, values: Sequence[ir.Value], elt: str) -> ir.Value:
        return self.value("torch.prim.ListConstruct", [ir.Type.parse(f"!torch.list<{elt}>")],
                          list(values))

    def slice(self, x: ir.Value, axis: int, start: ir.Value, end: ir.Value,
              result: ir.Type) -> ir.Value:
        return self.value("torch.aten.slice.Tensor", [result],
                          [x, self.int(axis), start, end, self.int(1)])

    def to_torch_int(self, idx: ir.Value) -> ir.Value:
        """An index as `!torch.int` (index_cast + torch_c.from_i64)."""
        i64 = self.value("arith.index_cast", [_i64()], [idx])
        return self.value("torch_c.from_i64", [ir.Type.parse("!torch.int")], [i64])

    def to_torch_bool(self, i1: ir.Value) -> ir.Value:
        return self.value("torch_c.from_i1", [ir.Type.parse("!torch.bool")], [i1])

    def as_index(self, v: ir.Value) -> ir.Value:
        """A `!torch.int` as an index, looking through constants and `to_torch_int`'s casts."""
        c = torch_constant_int(v)
        if c is not None:
            return self.const_index(c)
        d = defining_op(v)
        if d is not None and d.name == "torch_c.from_i64":
            src = defining_op(d.operands[0])
            if src is not None and src.name == "arith.index_cast":
                return src.operands[0]
        i64 = self.value("torch_c.to_i64", [_i64()], [v])
        return self.index_op("arith.index_cast", i64)
