"""symhlo-lower-dynamic-operand-ops: ops whose windows or slices are tensor operands -> static-attribute ops.

jax.export emits, for shape-polymorphic code, ops whose padding, window or slice sizes are runtime
tensors; IREE 3.13 has no lowering for any of them. This pass rewrites them, in pure StableHLO,
into the forms the rest of the IREE preparation handles (the padding that stays dynamic becomes
one `stablehlo.dynamic_pad`, which symhlo-prepare-for-iree turns into `tensor.pad`):

* `stablehlo.dynamic_conv` -> `stablehlo.convolution` (padding constant: as its attribute;
  otherwise `dynamic_pad` of the spatial axes, with lhs dilation as interior padding, and a
  convolution without padding):

    %y = "stablehlo.dynamic_conv"(%x, %k, %pad) <{dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>,
           window_strides = array<i64: 2, 2>, ...}> : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<2x2xi32>) -> tensor<?x4x?x?xf32>
  ==>
    %p = stablehlo.dynamic_pad %x, %zero, [0, 0, %pad[0][0], %pad[1][0]], [0, 0, %pad[0][1], %pad[1][1]], [0, 0, 0, 0]
    %y = stablehlo.convolution(%p, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2]} ...

* `custom_call @stablehlo.dynamic_reduce_window` (jax's reduce_window with symbolic padding, and
  cumsum / cummax) -> `stablehlo.reduce_window` when the window, strides and dilations are
  constants (dynamic padding as above, filled with the init value); a prefix scan (window = the
  whole axis `n`, padding `n - 1` before, stride 1) -> a masked `stablehlo.reduce` over an
  `n x n` triangle (quadratic in `n`, exact for any reducer whose init value is its identity):

    %y = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %zero, [1, n], [1, 1], [1, 1], [1, 1], [[0, 0], [n-1, 0]])
           {called_computations = [@add_reducer]} : (tensor<?x?xf32>, ...) -> tensor<?x?xf32>
  ==>
    %b = stablehlo.dynamic_broadcast_in_dim %x, [d0, n, n], dims = [0, 2]        x[b, i] at [b, j, i]
    %m = stablehlo.compare LE, (dynamic_iota dim 2), (dynamic_iota dim 1)        i <= j
    %y = stablehlo.reduce(stablehlo.select %m, %b, %zero) applies stablehlo.add across dimensions = [2]

* `stablehlo.dynamic_gather` of one window (jax's `x[:n // 2]`: a single start index vector, no
  collapsed axes) -> `stablehlo.real_dynamic_slice` from the clamped start, as gather clamps.

Anything else of these kinds is reported with its location.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from torch_mlir._mlir_libs import _stablehlo

from .builder import OpBuilder, apply_patterns, dense_attr, gather_dimension_numbers, symbol_refs
from .ir_util import is_dynamic, walk_ops
from .registry import Pass, PassFailure
from .size_exprs import make
from .size_facts import SizeFacts

_I64 = lambda: ir.IntegerType.get_signless(64)  # noqa: E731


def _padded_type(x_t: ir.RankedTensorType, low, high, interior) -> ir.RankedTensorType:
    shape = []
    for s, lo, hi, it in zip(x_t.shape, low, high, interior):
        static = all(isinstance(v, int) for v in (lo, hi, it)) and not is_dynamic(s)
        shape.append(s + lo + hi + max(s - 1, 0) * it if static else ir.ShapedType.get_dynamic_size())
    return ir.RankedTensorType.get(shape, x_t.element_type)


def _pad(b: OpBuilder, x: ir.Value, value: ir.Value, low: list, high: list, interior: list[int]) -> ir.Value:
    """Pads `x`; amounts are ints or tensor<1xi..> values. stablehlo.pad when all are ints."""
    x_t = ir.RankedTensorType(x.type)
    if all(isinstance(v, int) for v in low + high):
        return b.hlo_pad(x, value, low, high, interior)
    elt = next(ir.RankedTensorType(v.type).element_type for v in low + high if not isinstance(v, int))
    as_vec = lambda vs: b.hlo_concat([v if not isinstance(v, int) else b.hlo_const([v], elt) for v in vs])  # noqa: E731
    result_t = _padded_type(x_t, [v if isinstance(v, int) else None for v in low],
                            [v if isinstance(v, int) else None for v in high], interior)
    return b.value("stablehlo.dynamic_pad", [result_t],
                [x, value, as_vec(low), as_vec(high), b.hlo_const(interior, elt)])


def convert_stablehlo_dynamic_conv(op: ir.Operation, facts: SizeFacts) -> str | None:
    """stablehlo.dynamic_conv -> [dynamic_pad +] stablehlo.convolution. Returns an error or None."""
    x, k, padding = op.operands
    numbers = op.attributes["dimension_numbers"]
    if not _stablehlo.ConvDimensionNumbers.isinstance(numbers):
        return "dynamic_conv with an unreadable dimension_numbers attribute"
    # The input axes in window order.
    spatial = list(_stablehlo.ConvDimensionNumbers(numbers).input_spatial_dimensions)
    rows = facts.matrix(padding)
    attrs = {n: op.attributes[n] for n in op.attributes if n != "padding"}
    b = OpBuilder(op)
    if rows is not None and all(isinstance(v, int) for r in rows for v in r):
        attrs["padding"] = dense_attr([v for r in rows for v in r], _I64(), [len(rows), 2])
        new = b.value("stablehlo.convolution", [op.results[0].type], [x, k], attrs)
    else:
        x_t = ir.RankedTensorType(x.type)
        lhs_dil = ([int(v) for v in ir.DenseI64ArrayAttr(attrs["lhs_dilation"])]
                   if "lhs_dilation" in attrs else [1] * len(spatial))
        low, high, interior = [0] * x_t.rank, [0] * x_t.rank, [0] * x_t.rank
        for w, axis in enumerate(spatial):
            low[axis], high[axis] = b.hlo_element(padding, [w, 0]), b.hlo_element(padding, [w, 1])
            interior[axis] = lhs_dil[w] - 1
        padded = _pad(b, x, b.hlo_scalar(0, x_t.element_type), low, high, interior)
        attrs.pop("lhs_dilation", None)
        new = b.value("stablehlo.convolution", [op.results[0].type], [padded, k], attrs)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return None


_REDUCERS = ("stablehlo.add", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.multiply",
             "stablehlo.and", "stablehlo.or")


def _reducer_op(module: ir.Module, op: ir.Operation) -> str | None:
    """The single binary op of a dynamic_reduce_window's called computation, or None."""
    if "called_computations" not in op.attributes:
        return None
    names = [ir.FlatSymbolRefAttr(a).value for a in ir.ArrayAttr(op.attributes["called_computations"])]
    if len(names) != 1:
        return None
    for f in module.body.operations:
        f = f.operation
        if f.name == "func.func" and ir.StringAttr(f.attributes["sym_name"]).value == names[0]:
            block = f.regions[0].blocks[0]
            body = [o.operation for o in block.operations]
            args = list(block.arguments)
            if (len(body) == 2 and body[0].name in _REDUCERS and body[1].name == "func.return"
                    and list(body[0].operands) == args and list(body[1].operands) == [body[0].results[0]]):
                return body[0].name
    return None


def _reduce_region(op_created: ir.Operation, body_op: str, scalar_t: ir.Type) -> None:
    block = op_created.regions[0].blocks.append(scalar_t, scalar_t)
    b = OpBuilder(ip=ir.InsertionPoint(block), loc=op_created.location)
    b.create("stablehlo.return", [], [b.value(body_op, [scalar_t], list(block.arguments))])


def convert_dynamic_reduce_window(module: ir.Module, op: ir.Operation, facts: SizeFacts) -> str | None:
    """custom_call @stablehlo.dynamic_reduce_window -> reduce_window or a masked reduce."""
    x, init, wdims, wstrides, bdil, wdil, padding = op.operands
    body = _reducer_op(module, op)
    if body is None:
        return "dynamic_reduce_window whose reducer is not one add/max/min/mul/and/or"
    x_t = ir.RankedTensorType(x.type)
    rank = x_t.rank
    window, strides, base, wd = (facts.vector(v) for v in (wdims, wstrides, bdil, wdil))
    rows = facts.matrix(padding)
    if None in (window, strides, base, wd) or rows is None:
        return "dynamic_reduce_window whose window operands are not read from sizes"
    scalar_t = ir.RankedTensorType(init.type)
    b = OpBuilder(op)
    consts = lambda vs: all(isinstance(v, int) for v in vs)  # noqa: E731
    if consts(window) and consts(strides) and consts(base) and consts(wd):
        arr = ir.DenseI64ArrayAttr.get
        attrs = {"window_dimensions": arr(window), "window_strides": arr(strides),
                 "window_dilations": arr(wd)}
        if consts([v for r in rows for v in r]):
            attrs["padding"] = dense_attr([v for r in rows for v in r], _I64(), [rank, 2])
            attrs["base_dilations"] = arr(base)
            src = x
        else:
            low = [r[0] if isinstance(r[0], int) else b.hlo_element(padding, [a, 0]) for a, r in enumerate(rows)]
            high = [r[1] if isinstance(r[1], int) else b.hlo_element(padding, [a, 1]) for a, r in enumerate(rows)]
            src = _pad(b, x, init, low, high, [v - 1 for v in base])
        new_op = b.create("stablehlo.reduce_window", [op.results[0].type], [src, init], attrs,
                          regions=1)
        _reduce_region(new_op, body, scalar_t)
        new = new_op.result
    else:
        scan = [a for a in range(rank) if window[a] != 1]
        ok = len(scan) == 1 and consts(strides) and set(strides) == {1} and consts(base) \
            and set(base) == {1} and consts(wd) and set(wd) == {1}
        if ok:
            a = scan[0]
            n = facts.dim(x, a)
            ok = (facts.equal(window[a], n) and facts.equal(rows[a][0], _minus_one(n))
                  and rows[a][1] == 0 and all(rows[d] == [0, 0] for d in range(rank) if d != a))
        if not ok:
            return "dynamic_reduce_window with a window computed from sizes that is not a prefix scan"
        new = _prefix_scan(b, x, init, scan[0], body, ir.RankedTensorType(op.results[0].type))
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return None


def _minus_one(n):
    return make("add", n, -1)


def _prefix_scan(b: OpBuilder, x: ir.Value, init: ir.Value, a: int, body: str,
                 result_t: ir.RankedTensorType) -> ir.Value:
    """y[.., j, ..] = reduce(x[.., i, ..] for i <= j): a masked reduce over an n x n triangle."""
    x_t = ir.RankedTensorType(x.type)
    rank, elt = x_t.rank, x_t.element_type
    i64 = _I64()
    sizes = [b.hlo_dim(x, d, i64) for d in range(rank)]
    shape_v = b.hlo_concat(sizes + [sizes[a]])
    big = list(x_t.shape) + [x_t.shape[a]]
    big_t = ir.RankedTensorType.get(big, elt)
    arr = ir.DenseI64ArrayAttr.get
    dims = [d if d != a else rank for d in range(rank)]
    xb = b.value("stablehlo.dynamic_broadcast_in_dim", [big_t], [x, shape_v],
              {"broadcast_dimensions": arr(dims), "known_expanding_dimensions": arr([]),
               "known_nonexpanding_dimensions": arr(list(range(rank)))})
    idx_t = ir.RankedTensorType.get(big, i64)
    j = b.value("stablehlo.dynamic_iota", [idx_t], [shape_v], {"iota_dimension": ir.IntegerAttr.get(i64, a)})
    i = b.value("stablehlo.dynamic_iota", [idx_t], [shape_v], {"iota_dimension": ir.IntegerAttr.get(i64, rank)})
    mask = b.hlo_compare("LE", i, j)
    fill = b.value("stablehlo.dynamic_broadcast_in_dim", [big_t], [init, shape_v],
                {"broadcast_dimensions": arr([]), "known_expanding_dimensions": arr([]),
                 "known_nonexpanding_dimensions": arr([])})
    masked = b.value("stablehlo.select", [big_t], [mask, xb, fill])
    red = b.create("stablehlo.reduce", [result_t], [masked, init], {"dimensions": arr([rank])},
                   regions=1)
    _reduce_region(red, body, ir.RankedTensorType.get([], elt))
    return red.result


def convert_stablehlo_dynamic_gather_window(op: ir.Operation) -> bool:
    """dynamic_gather of one window (no batch, no collapsed axes) -> real_dynamic_slice."""
    x, idx, sizes = op.operands
    dn = gather_dimension_numbers(op.attributes["dimension_numbers"])
    x_t, idx_t = ir.RankedTensorType(x.type), ir.RankedTensorType(idx.type)
    if (dn["operand_batching_dims"] or dn["collapsed_slice_dims"] or idx_t.rank != 1
            or dn["index_vector_dim"] != 0 or dn["offset_dims"] != list(range(x_t.rank))
            or is_dynamic(idx_t.shape[0])):
        return False
    b = OpBuilder(op)
    elt = ir.RankedTensorType(sizes.type).element_type
    idx = b.hlo_convert(idx, elt)
    zero = b.hlo_const([0], elt)
    starts = []
    for d in range(x_t.rank):
        if d not in dn["start_index_map"]:
            starts.append(zero)
            continue
        k = dn["start_index_map"].index(d)
        s = b.hlo_element(idx, [k])
        size = b.hlo_element(sizes, [d])
        hi = b.value("stablehlo.subtract", [size.type], [b.hlo_dim(x, d, elt), size])
        starts.append(b.value("stablehlo.clamp", [size.type], [zero, s, hi]))
    start = b.hlo_concat(starts)
    limit = b.value("stablehlo.add", [start.type], [start, sizes])
    ones = b.hlo_const([1] * x_t.rank, elt)
    new = b.value("stablehlo.real_dynamic_slice", [op.results[0].type], [x, start, limit, ones])
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


def _is_dynamic_reduce_window(op: ir.Operation) -> bool:
    return (op.name == "stablehlo.custom_call"
            and ir.StringAttr(op.attributes["call_target_name"]).value == "stablehlo.dynamic_reduce_window")


@dataclass(frozen=True)
class LowerDynamicOperandOps(Pass):
    """Rewrite dynamic_conv, dynamic_reduce_window and one-window dynamic_gather into static-attribute ops."""

    name = "symhlo-lower-dynamic-operand-ops"
    summary = ("dynamic_conv / custom_call @stablehlo.dynamic_reduce_window / one-window "
               "dynamic_gather -> convolution / reduce_window (or a masked reduce) / "
               "real_dynamic_slice, padding as dynamic_pad")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            diags = []
            funcs = [f.operation for f in module.body.operations if f.operation.name == "func.func"]

            def reported(op: ir.Operation, err: str | None) -> bool:
                if err:
                    diags.append((str(op.location), err))
                return not err

            for f in funcs:
                # Each conversion reads fresh SizeFacts: earlier rewrites erased values.
                def conv(op: ir.Operation, f=f) -> bool:
                    return reported(op, convert_stablehlo_dynamic_conv(op, SizeFacts(f)))

                def reduce_window(op: ir.Operation, f=f) -> bool:
                    if not _is_dynamic_reduce_window(op):
                        return False
                    return reported(op, convert_dynamic_reduce_window(module, op, SizeFacts(f)))

                apply_patterns(f, {"stablehlo.dynamic_gather": convert_stablehlo_dynamic_gather_window,
                                   "stablehlo.dynamic_conv": conv,
                                   "stablehlo.custom_call": reduce_window})
            if diags:
                raise PassFailure(f"{len(diags)} op(s) with dynamic windows cannot be lowered", diags)
            _erase_unused_reducers(module)


def _erase_unused_reducers(module: ir.Module) -> None:
    """Erases functions only dynamic_reduce_window custom calls referred to, once none does."""
    refs = set()
    funcs = {}
    for f in module.body.operations:
        f = f.operation
        if f.name == "func.func":
            funcs[ir.StringAttr(f.attributes["sym_name"]).value] = f
    for op in walk_ops(module.operation):
        for a in op.attributes:
            try:
                attr = op.attributes[a]
            except TypeError:
                continue   # dense<...> : complex<f32>, which the bindings cannot cast (no symbols)
            refs |= symbol_refs(attr)
    for name, f in funcs.items():
        if name != "main" and name.startswith("reduce_window_") and name not in refs:
            f.erase()
