"""symhlo-convert-unsigned-to-signless-for-iree: every unsigned integer tensor (`ui8`, `ui16`,
`ui32`) becomes a signless one of the same width, with the ops whose result depends on the sign
computed on zero-extended values.

IREE 3.13 converts unsigned element types to signless while it lowers StableHLO, but ops whose
lowering reads their operands' sizes (`reverse`, `concatenate`, `sort`, slices, the tensor ops
symhlo's own preparation emits) build a `tensor.dim` or a `tensor.insert_slice` of the still
unsigned value, which it then cannot legalize: `torch.flip(u8)` over a `?` axis, `u8[:, 0] + 250`,
`torch.cat` / `torch.sort` / `cumsum` of a uint8 tensor all failed in iree-compile ("failed to
legalize operation 'tensor.dim'"). After this pass no unsigned type is left for IREE to convert.
It runs last in the IREE preparation (the portable artifact keeps its `ui8`), so that the sizes
the earlier passes read off a `ui8` argument (`tensor.dim %arg0`) read its signless bitcast:

    func.func private @f(%x: tensor<?x5xui8>) -> (tensor<?x5xui8>, tensor<?x5xi1>, tensor<?x5xf32>) {
      %c = stablehlo.constant dense<250> : tensor<5xui8>
      %r = stablehlo.reverse %x, dims = [0] : tensor<?x5xui8>
      %m = stablehlo.maximum %x, %r : tensor<?x5xui8>
      %g = stablehlo.compare GT, %x, %r, SIGNED : (tensor<?x5xui8>, tensor<?x5xui8>) -> tensor<?x5xi1>
      %f = stablehlo.convert %x : (tensor<?x5xui8>) -> tensor<?x5xf32>
  ==>
    func.func private @f(%x: tensor<?x5xi8>) -> (tensor<?x5xi8>, tensor<?x5xi1>, tensor<?x5xf32>) {
      %c = stablehlo.constant dense<-6> : tensor<5xi8>              (the same bits)
      %r = stablehlo.reverse %x, dims = [0] : tensor<?x5xi8>        (sign-agnostic: types only)
      %xw = stablehlo.and (stablehlo.convert %x : -> tensor<?x5xi32>), 255   (zero extension)
      %rw = ... the same for %r
      %m = stablehlo.convert (stablehlo.maximum %xw, %rw) : (tensor<?x5xi32>) -> tensor<?x5xi8>
      %g = stablehlo.compare GT, %xw, %rw, SIGNED : (tensor<?x5xi32>, ...) -> tensor<?x5xi1>
      %f = stablehlo.convert %xw : (tensor<?x5xi32>) -> tensor<?x5xf32>

Ops whose bits do not depend on the sign (add, multiply, shifts left, bitwise ops, data movement,
reductions, sort, control flow) only change types; their regions' ops are rewritten like any
other. Compare, divide, remainder, maximum, minimum, clamp, abs, sign, power and
shift_right_arithmetic run on operands zero-extended to i32 (i64 for ui32) and are truncated
back; a convert from unsigned to float or to a wider integer zero-extends first; a convert from
float to unsigned goes through the wide signed type (as eager's cast does); unsigned gather /
slice indices are zero-extended. A public function keeps its unsigned signature (the runtime
reads its element types) and bitcasts at its entry and returns. An op on unsigned values that
none of these rules covers is refused, naming it: guessing a signedness would give wrong numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from torch_mlir import ir

from .builder import OpBuilder
from .ir_util import walk_ops
from .registry import Pass, PassFailure


class UnsignedOpFailure(PassFailure):
    """An op on unsigned values that this pass has no rule for (symhlo.compile raises
    UnsupportedOpError)."""

    unsupported_op = True


# Ops whose result bits are the same whatever the sign of their integer operands: only types change.
_SIGN_AGNOSTIC = frozenset(
    [f"stablehlo.{n}" for n in (
        "add", "subtract", "multiply", "negate", "and", "or", "xor", "not", "shift_left",
        "shift_right_logical", "popcnt", "count_leading_zeros", "select", "broadcast_in_dim",
        "dynamic_broadcast_in_dim", "broadcast", "reshape", "dynamic_reshape", "transpose",
        "reverse", "slice", "dynamic_slice", "dynamic_update_slice", "real_dynamic_slice",
        "concatenate", "pad", "dynamic_pad", "gather", "dynamic_gather", "scatter", "iota",
        "dynamic_iota", "get_dimension_size", "return", "reduce", "reduce_window",
        "select_and_scatter", "sort", "map", "while", "if", "case", "optimization_barrier",
        "dot_general", "dot", "convolution", "bitcast_convert", "constant", "convert")]
    + ["func.return", "func.call", "tensor.dim", "tensor.empty", "tensor.cast", "tensor.extract",
       "tensor.extract_slice", "tensor.insert", "tensor.insert_slice", "tensor.reshape",
       "tensor.expand_shape", "tensor.collapse_shape", "tensor.from_elements", "tensor.splat",
       "tensor.pad", "tensor.yield", "linalg.fill", "linalg.yield"])

# Ops computed on zero-extended operands (and truncated back, but for compare's i1).
_WIDENED = frozenset(f"stablehlo.{n}" for n in (
    "compare", "divide", "remainder", "maximum", "minimum", "clamp", "abs", "sign", "power",
    "shift_right_arithmetic"))

# Operand positions that are indices or sizes (`None`: from this position to the end).
_INDEX_OPERANDS = {"stablehlo.gather": (1, 2), "stablehlo.dynamic_gather": (1, None),
                   "stablehlo.dynamic_slice": (1, None), "stablehlo.dynamic_update_slice": (2, None),
                   "stablehlo.real_dynamic_slice": (1, None), "stablehlo.dynamic_pad": (2, None),
                   "stablehlo.dynamic_broadcast_in_dim": (1, 2), "stablehlo.dynamic_reshape": (1, 2),
                   "stablehlo.dynamic_iota": (0, 1)}


def _unsigned_width(t: ir.Type) -> int | None:
    """The width of `t`'s unsigned integer elements (`tensor<?xui8>` or `ui8` -> 8), else None."""
    elt = ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t
    if isinstance(elt, ir.IntegerType) and ir.IntegerType(elt).is_unsigned:
        return ir.IntegerType(elt).width
    return None


def _mentions_unsigned(t: ir.Type) -> bool:
    """Whether `t` holds unsigned integers anywhere (also inside tuples)."""
    if isinstance(t, ir.TupleType):
        return any(_mentions_unsigned(ir.TupleType(t).get_type(i)) for i in range(ir.TupleType(t).num_types))
    return _unsigned_width(t) is not None


def signless_type(t: ir.Type) -> ir.Type:
    """`t` with unsigned integer elements made signless (`tensor<?x5xui8>` -> `tensor<?x5xi8>`)."""
    width = _unsigned_width(t)
    if width is None:
        return t
    elt = ir.IntegerType.get_signless(width)
    if isinstance(t, ir.RankedTensorType):
        return ir.RankedTensorType.get(t.shape, elt, t.encoding)
    if isinstance(t, ir.ShapedType):
        return ir.UnrankedTensorType.get(elt)
    return elt


def _wide(width: int) -> ir.Type:
    """The signless type holding every value of a `width`-bit unsigned integer."""
    if width >= 64:
        raise ValueError("no wider integer type for a 64-bit unsigned integer")
    return ir.IntegerType.get_signless(32 if width <= 16 else 64)


def _with_element(t: ir.Type, elt: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(ir.RankedTensorType(t).shape, elt)


def _splat_like(b: OpBuilder, like: ir.Value, value: int) -> ir.Value:
    """A tensor of `like`'s type filled with `value` (a dynamic broadcast of a 0-d constant when
    `like` has `?` dims, its shape read with get_dimension_size)."""
    t = ir.RankedTensorType(like.type)
    if t.has_static_shape:
        return b.hlo_splat(t, value)
    scalar = b.hlo_splat(ir.RankedTensorType.get([], t.element_type), value)
    shape = b.hlo_concat([b.hlo_dim(like, a) for a in range(t.rank)])
    return b.hlo_broadcast_in_dim(scalar, t, [], shape=shape)


def zero_extend(b: OpBuilder, v: ir.Value, width: int, to: ir.Type) -> ir.Value:
    """The signless `width`-bit integers in `v` read as unsigned, as integers of type `to`:
    stablehlo.convert (which sign-extends) masked with 2^width - 1."""
    wide = b.hlo_convert(v, to)
    return b.hlo_binary("and", wide, _splat_like(b, wide, (1 << width) - 1))


def convert_stablehlo_constant_unsigned(op: ir.Operation) -> None:
    """stablehlo.constant dense<250> : tensor<ui8> -> dense<-6> : tensor<i8> (the same bits)."""
    attr = ir.DenseIntElementsAttr(op.attributes["value"])
    t = signless_type(attr.type)
    width = _unsigned_width(attr.type)
    if attr.is_splat:
        v = int(attr.get_splat_value().value)
        v = v - (1 << width) if v >= 1 << (width - 1) else v
        new = ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(ir.RankedTensorType(t).element_type, v))
    else:
        signed = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[width]
        new = ir.DenseElementsAttr.get(np.ascontiguousarray(np.array(attr)).view(signed), type=t)
    op.attributes["value"] = new


def convert_stablehlo_op_widened(op: ir.Operation, width: int) -> None:
    """A sign-dependent op on `width`-bit unsigned operands -> the op on their zero extensions,
    truncated back (compare keeps its i1 result and compares the wide values SIGNED)."""
    b = OpBuilder(op)
    wide = _wide(width)
    operands = [zero_extend(b, v, width, wide) for v in op.operands]
    attrs = {n: op.attributes[n] for n in op.attributes}
    if op.name == "stablehlo.compare":
        new = b.hlo_compare(str(attrs["comparison_direction"]).split()[-1].rstrip(">"),
                            operands[0], operands[1], "SIGNED")
    else:
        result_t = op.results[0].type
        new = b.value(op.name, [_with_element(result_t, wide)], operands, attrs)
        new = b.hlo_convert(new, ir.RankedTensorType(result_t).element_type)
    op.results[0].replace_all_uses_with(new)
    op.erase()


def convert_stablehlo_convert_unsigned(op: ir.Operation, src: ir.Type, dst: ir.Type) -> None:
    """stablehlo.convert from or to unsigned integers (`src`, `dst`: the original element types):
    uiN -> float or a wider integer zero-extends; float -> uiN converts to the wide signed type
    and truncates; the other cases (narrowing, same width, to i1, from signed) keep the signless
    convert, which has the same bits."""
    x = op.operands[0]
    b = OpBuilder(op)
    src_u, dst_u = _unsigned_width(src), _unsigned_width(dst)
    result_elt = ir.RankedTensorType(op.results[0].type).element_type
    if src_u is not None and isinstance(dst, ir.FloatType):
        new = b.hlo_convert(zero_extend(b, x, src_u, _wide(src_u)), result_elt)
    elif src_u is not None and isinstance(dst, ir.IntegerType) and ir.IntegerType(dst).width > src_u:
        new = zero_extend(b, x, src_u, result_elt)
    elif dst_u is not None and isinstance(src, ir.FloatType):
        new = b.hlo_convert(b.hlo_convert(x, _wide(dst_u)), result_elt)
    else:
        return
    op.results[0].replace_all_uses_with(new)
    op.erase()


def _index_positions(op: ir.Operation) -> range:
    if op.name == "stablehlo.scatter":   # inputs..., scatter_indices, updates...
        n = (len(op.operands) - 1) // 2
        return range(n, n + 1)
    lo, hi = _INDEX_OPERANDS.get(op.name, (0, 0))
    return range(lo, len(op.operands) if hi is None else hi)


@dataclass(frozen=True)
class ConvertUnsignedToSignlessForIree(Pass):
    """Make every unsigned integer type signless, computing sign-dependent ops on zero
    extensions, before IREE sees the module."""

    name = "symhlo-convert-unsigned-to-signless-for-iree"
    summary = ("uiN tensors -> iN (IREE 3.13 leaves tensor.dim of uiN values illegal): compare, "
               "divide, remainder, max/min, clamp, ... on zero-extended values; uiN -> float or "
               "wider converts zero-extend; public signatures keep uiN through bitcasts")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            ops = walk_ops(module.operation)
            if not any(_mentions_unsigned(t) for op in ops for t in _types_of(op)):
                return
            diags, work = [], []
            for op in ops:
                if op.name == "func.func":
                    continue
                touched = [t for t in _types_of(op) if _mentions_unsigned(t)]
                if not touched:
                    continue
                if any(isinstance(t, ir.TupleType) for t in touched) or (
                        op.name not in _SIGN_AGNOSTIC and op.name not in _WIDENED):
                    diags.append((str(op.location), f"'{op.name}' on unsigned integers has no "
                                  "signless form for IREE (symhlo-convert-unsigned-to-signless-for-iree)"))
                    continue
                if any(_unsigned_width(t) == 64 for t in touched) and op.name in _WIDENED | {"stablehlo.convert"}:
                    diags.append((str(op.location), f"'{op.name}' on 64-bit unsigned integers is not "
                                  "supported for IREE"))
                    continue
                work.append((op, [v.type for v in op.operands], [r.type for r in op.results]))
            if diags:
                raise UnsignedOpFailure(f"{len(diags)} op(s) on unsigned integers cannot be "
                                        "compiled by IREE", diags)
            _convert_signatures(module)
            for op, operand_ts, result_ts in work:
                for r in op.results:
                    r.set_type(signless_type(r.type))
                for region in op.regions:
                    for block in region.blocks:
                        for arg in block.arguments:
                            arg.set_type(signless_type(arg.type))
            for op, operand_ts, result_ts in work:
                _rewrite(op, operand_ts, result_ts)


def _types_of(op: ir.Operation) -> list[ir.Type]:
    """The types of `op`'s operands, results and its regions' block arguments."""
    types = [v.type for v in op.operands] + [r.type for r in op.results]
    for region in op.regions:
        for block in region.blocks:
            types.extend(a.type for a in block.arguments)
    if op.name == "func.func":
        fn = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        types.extend(list(fn.inputs) + list(fn.results))
    return types


def _convert_signatures(module: ir.Module) -> None:
    """Private functions take and return signless types; a public one keeps its unsigned
    signature and bitcasts its arguments at entry and its results before each return."""
    for f in module.body.operations:
        if f.operation.name != "func.func" or not f.regions[0].blocks:
            continue
        f = f.operation
        fn = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
        private = "sym_visibility" in f.attributes and \
            ir.StringAttr(f.attributes["sym_visibility"]).value == "private"
        entry = f.regions[0].blocks[0]
        if private:
            for arg in entry.arguments:
                arg.set_type(signless_type(arg.type))
            f.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
                [signless_type(t) for t in fn.inputs], [signless_type(t) for t in fn.results]))
            continue
        first = entry.operations[0] if len(entry.operations) else None
        for arg in entry.arguments:
            if _unsigned_width(arg.type) is None:
                continue
            b = OpBuilder(first)
            cast = b.create("stablehlo.bitcast_convert", [signless_type(arg.type)], [arg])
            arg.replace_all_uses_except(cast.result, cast)
        for block in f.regions[0].blocks:
            for ret in block.operations:
                if ret.operation.name != "func.return":
                    continue
                ret = ret.operation
                for i, t in enumerate(fn.results):
                    if _unsigned_width(t) is not None:
                        ret.operands[i] = OpBuilder(ret).value("stablehlo.bitcast_convert", [t],
                                                               [ret.operands[i]])


def _rewrite(op: ir.Operation, operand_ts: list[ir.Type], result_ts: list[ir.Type]) -> None:
    """The signless form of one op whose types were made signless (see the module docstring)."""
    if op.name == "stablehlo.constant":
        convert_stablehlo_constant_unsigned(op)
    elif op.name == "stablehlo.bitcast_convert":
        if op.operands[0].type == op.results[0].type:
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()
    elif op.name == "stablehlo.convert":
        convert_stablehlo_convert_unsigned(op, ir.ShapedType(operand_ts[0]).element_type,
                                           ir.ShapedType(result_ts[0]).element_type)
    elif op.name in _WIDENED:
        convert_stablehlo_op_widened(op, _unsigned_width(operand_ts[-1]))
    elif op.name in ("stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution"):
        out = ir.ShapedType(op.results[0].type).element_type
        b = OpBuilder(op)
        for i in range(2):
            w = _unsigned_width(operand_ts[i])
            if w is not None and isinstance(out, ir.IntegerType) and ir.IntegerType(out).width > w:
                op.operands[i] = zero_extend(b, op.operands[i], w, out)
    else:
        b = OpBuilder(op)
        for i in _index_positions(op):
            w = _unsigned_width(operand_ts[i])
            if w is not None:
                op.operands[i] = zero_extend(b, op.operands[i], w, ir.IntegerType.get_signless(64))
