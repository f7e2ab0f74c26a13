"""symhlo-read-shape-elements-on-host-for-iree: the elements of shape vectors read where they are
made, on host scalars, never out of a vector IREE assembles on the device.

StableHLO builds the sizes and bounds of dynamic ops as small integer vectors: 1-element pieces
(a `get_dimension_size`, a `select` clamping a slice bound) joined by `stablehlo.concatenate`.
The IREE preparation and IREE's own lowering read them back element by element
(`tensor.extract`). IREE 3.13 assembles such a vector on the device when a piece is computed by
a dispatch: the piece's dispatch writes straight into the vector's first half, a fill writes the
constant half, and the element read is a copy of the first half to a staging buffer, which IREE
schedules *in the same concurrent step as the dispatch that writes it*. The copy then races the
dispatch and reads whatever an earlier call left there: a `segment_reduce` output came back with
12 rows instead of 20 under load, a `queue.alloca` asked for terabytes (a size read before it
was written). Silently wrong shapes, seen on a busy 2-core machine only.

This pass, on IREE's copy only (the portable artifact keeps its StableHLO), reads every such
element where it is made:

* an element whose value the size facts (lib/size_facts.py) express over the arguments' sizes is
  computed as `index` arithmetic on `tensor.dim` of the arguments at the function's entry (host
  scalars; no device work, no read-back in the middle of the call):

    %n = stablehlo.get_dimension_size %arg6, dim = 0 : (tensor<?xi64>) -> tensor<i32>
    %m = stablehlo.minimum (stablehlo.add %n', 1), %n' : tensor<i64>
    %v = stablehlo.concatenate (stablehlo.reshape %m), %c4, dim = 0 : (...) -> tensor<2xi64>
    %e = tensor.extract %v[%c0] : tensor<2xi64>
  ==>
    %d = tensor.dim %arg6, %c0 : tensor<?xi64>
    %m = arith.minsi (arith.addi %d, %c1), %d : index
    %e = arith.index_cast %m : index to i64

* any other element (a size that comes from data, or an expression the facts do not know) is
  read from the 1-element piece it came from, through the concatenate, reshapes, slices,
  broadcasts and integer converts between them (a constant piece becomes a constant):

    %v = stablehlo.concatenate %p, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %e = tensor.extract %v[%c0] : tensor<2xi64>
  ==>
    %e = tensor.extract %p[%c0] : tensor<1xi64>

* a shape operand of a dynamic op left for IREE (`real_dynamic_slice`, `dynamic_iota`,
  `dynamic_broadcast_in_dim`, `dynamic_reshape`, `dynamic_pad`, `dynamic_gather`, `dynamic_conv`)
  made by a concatenate, or whose elements are all host arithmetic, becomes a
  `tensor.from_elements` of its elements read as above; IREE's lowering reads elements of it,
  which fold to the scalars:

    %r = stablehlo.real_dynamic_slice %x, %c00, %v, %c11 : (..., tensor<2xi64>, ...) -> tensor<?x4xf32>
  ==>
    %r = stablehlo.real_dynamic_slice %x, %c00, (tensor.from_elements %e, %c4_i64), %c11 : ...

In a function with control flow the host arithmetic is not used (IREE 3.13 failed to convert a
`stablehlo.while` carrying a value sized by the arguments' `tensor.dim`, see
symhlo-lower-dynamic-indexing-for-iree); the pieces are still read directly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .ir_util import CONTROL_FLOW_OPS, constant_index, defining_op, enclosing_func, walk_ops
from .prepare_for_iree import EntrySizes
from .registry import Pass
from .size_facts import facts_by_function

# The shape operands of the dynamic ops IREE's StableHLO lowering reads element by element.
SHAPE_OPERANDS = {
    "stablehlo.real_dynamic_slice": (1, 2, 3),
    "stablehlo.dynamic_iota": (0,),
    "stablehlo.dynamic_broadcast_in_dim": (1,),
    "stablehlo.dynamic_reshape": (1,),
    "stablehlo.dynamic_pad": (2, 3, 4),
    "stablehlo.dynamic_gather": (2,),
    "stablehlo.dynamic_conv": (2,),
}
_MAX_ELEMENTS = 16   # a shape vector, not data


def _int_width(t: ir.Type) -> int | None:
    """The width of a signless integer type (64 for index), None for anything else (unsigned
    types are left to symhlo-convert-unsigned-to-signless-for-iree)."""
    if isinstance(t, ir.IndexType):
        return 64
    if isinstance(t, ir.IntegerType) and ir.IntegerType(t).is_signless:
        return ir.IntegerType(t).width
    return None


def _static_shape(v: ir.Value) -> list[int] | None:
    t = v.type
    if not isinstance(t, ir.RankedTensorType):
        return None
    t = ir.RankedTensorType(t)
    return list(t.shape) if t.has_static_shape else None


def _flat(index: list[int], shape: list[int]) -> int:
    k = 0
    for i, s in zip(index, shape):
        k = k * s + i
    return k


def _unflat(k: int, shape: list[int]) -> list[int]:
    index = []
    for s in reversed(shape):
        index.append(k % s if s else 0)
        k = k // s if s else 0
    return index[::-1]


def _wrap(x: int, width: int) -> int:
    """`x` as a signed integer of `width` bits (a constant through an integer convert)."""
    if width == 1:
        return x & 1
    x &= (1 << width) - 1
    return x - (1 << width) if x >> (width - 1) else x


def trace_element(v: ir.Value, index: list[int]):
    """Follows element `index` of the small integer tensor `v` back to where it is made: through
    rank-1 concatenates, reshapes, slices, broadcasts and integer converts. Returns
    `(source, source_index, widths)`, the element being `source[source_index]` converted through
    the integer `widths` (source's first), or `(int, None, None)` for a constant element."""
    widths: list[int] = []
    while True:
        op = defining_op(v)
        shape = _static_shape(v)
        if op is None or shape is None:
            break
        name = op.name
        if name in ("stablehlo.constant", "arith.constant"):
            attr = op.attributes["value"]
            if not isinstance(attr, ir.DenseIntElementsAttr):
                break
            attr = ir.DenseIntElementsAttr(attr)
            width = _int_width(ir.RankedTensorType(v.type).element_type)
            if width is None:
                break
            x = _wrap(int(attr[0] if attr.is_splat else attr[_flat(index, shape)]), width)
            for w in widths:
                x = _wrap(x, w)
            return x, None, None
        if name == "stablehlo.concatenate" and len(shape) == 1:
            k = index[0]
            for piece in op.operands:
                n = _static_shape(piece)
                if n is None:
                    return v, index, widths
                if k < n[0]:
                    v, index = piece, [k]
                    break
                k -= n[0]
            continue
        src_shape = _static_shape(op.operands[0]) if len(op.operands) else None
        if src_shape is None:
            break
        if name == "stablehlo.reshape":
            v, index = op.operands[0], _unflat(_flat(index, shape), src_shape)
            continue
        if name == "stablehlo.slice":
            start = list(ir.DenseI64ArrayAttr(op.attributes["start_indices"]))
            step = list(ir.DenseI64ArrayAttr(op.attributes["strides"]))
            v, index = op.operands[0], [a + i * s for a, i, s in zip(start, index, step)]
            continue
        if name == "stablehlo.broadcast_in_dim":
            dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
            v, index = op.operands[0], [0 if src_shape[k] == 1 else index[d]
                                        for k, d in enumerate(dims)]
            continue
        if name == "stablehlo.convert":
            src_w = _int_width(ir.RankedTensorType(op.operands[0].type).element_type)
            if src_w is None or _int_width(ir.RankedTensorType(v.type).element_type) is None:
                break
            widths.insert(0, _int_width(ir.RankedTensorType(v.type).element_type))
            v = op.operands[0]
            continue
        break
    return v, index, widths


def _cast_int(b: OpBuilder, x: ir.Value, to: ir.Type) -> ir.Value:
    """An integer or index scalar as `to` (sign-extending; i1 zero-extends, as convert does)."""
    if x.type == to:
        return x
    if isinstance(x.type, ir.IndexType) or isinstance(to, ir.IndexType):
        return b.value("arith.index_cast", [to], [x])
    src, dst = ir.IntegerType(x.type).width, ir.IntegerType(to).width
    if dst < src:
        return b.value("arith.trunci", [to], [x])
    return b.value("arith.extui" if src == 1 else "arith.extsi", [to], [x])


class ElementReader:
    """Reads elements of small integer tensors as scalars (host arithmetic from the size facts,
    else the element's 1-element piece), one per function, sharing the entry-block arithmetic."""

    def __init__(self, root: ir.Operation):
        self.facts_of = facts_by_function()
        self.looped = {str(enclosing_func(op).attributes["sym_name"]) for op in walk_ops(root)
                       if op.name in CONTROL_FLOW_OPS}
        self._entry = EntrySizes()
        self._exprs: dict = {}

    def expression(self, v: ir.Value, index: list[int], at: ir.Operation):
        """The size-facts expression of element `index` of `v`, None when unknown or when the
        function has control flow. Asked before any rewrite of the function (facts read the IR
        as it was)."""
        func = enclosing_func(at)
        if func is None or str(func.attributes["sym_name"]) in self.looped:
            return None
        key = (v, tuple(index))
        if key not in self._exprs:
            facts = self.facts_of(at)
            shape = _static_shape(v) or []
            if math.prod(shape) == 1:
                self._exprs[key] = facts.scalar(v)
            elif len(shape) == 1:
                vec = facts.vector(v)
                self._exprs[key] = vec[index[0]] if vec is not None else None
            else:
                self._exprs[key] = None
        return self._exprs[key]

    def host_value(self, expr, at: ir.Operation) -> ir.Value | None:
        """`expr` as `index` arithmetic at the function's entry, None when it has an opaque leaf."""
        out = None if expr is None else self._entry.value(expr, at)
        return out if out is not None and isinstance(out.type, ir.IndexType) else None

    def read(self, v: ir.Value, index: list[int], at: ir.Operation, b: OpBuilder,
             expr=None) -> ir.Value | None:
        """Element `index` of `v` as a scalar of its element type built before `at`: host
        arithmetic for `expr` when given and expressible, else read from its piece; None when
        the element is not made by anything this pass follows (read `v` itself)."""
        elt = ir.RankedTensorType(v.type).element_type
        host = self.host_value(expr, at)
        if host is not None:
            return _cast_int(b, host, elt)
        src, src_index, widths = trace_element(v, index)
        if isinstance(src, int):
            return b.value("arith.constant", [elt], [], {"value": ir.IntegerAttr.get(elt, src)})
        if src is v:
            return None
        x = b.value("tensor.extract", [ir.RankedTensorType(src.type).element_type],
                    [src, *[b.const_index(i) for i in src_index]])
        for w in widths:
            x = _cast_int(b, x, ir.IntegerType.get_signless(w))
        return _cast_int(b, x, elt)


def _extract_index(op: ir.Operation) -> list[int] | None:
    index = [constant_index(i) for i in op.operands[1:]]
    return None if any(i is None for i in index) else index


def _small_int_tensor(v: ir.Value) -> list[int] | None:
    shape = _static_shape(v)
    if shape is None or _int_width(ir.RankedTensorType(v.type).element_type) in (None, 1):
        return None
    return shape if math.prod(shape) <= _MAX_ELEMENTS else None


def read_tensor_extract_on_host(op: ir.Operation, reader: ElementReader, exprs: dict) -> bool:
    """tensor.extract %v[c...] of a small integer tensor -> the element where it is made."""
    v = op.operands[0]
    index = _extract_index(op)
    if _small_int_tensor(v) is None or index is None:
        return False
    b = OpBuilder(op)
    x = reader.read(v, index, op, b, exprs.get(op))
    if x is None:
        return False
    op.results[0].replace_all_uses_with(x)
    op.erase()
    return True


def read_shape_operands_on_host(op: ir.Operation, reader: ElementReader, exprs: dict) -> bool:
    """A dynamic op's shape vector made by a concatenate (or all host arithmetic) ->
    tensor.from_elements of its elements read where they are made."""
    changed = False
    for k in SHAPE_OPERANDS[op.name]:
        v = op.operands[k]
        shape = _small_int_tensor(v)
        if shape is None or len(shape) != 1:
            continue
        d = defining_op(v)
        if d is None or d.name in ("tensor.from_elements", "stablehlo.constant", "arith.constant"):
            continue
        elems = exprs.get((op, k), [None] * shape[0])
        if d.name != "stablehlo.concatenate" and not all(
                reader.host_value(e, op) is not None for e in elems):
            continue
        b = OpBuilder(op)
        values = [reader.read(v, [i], op, b, elems[i]) for i in range(shape[0])]
        if any(x is None for x in values):
            continue
        op.operands[k] = b.tensor_from_elements(values, ir.RankedTensorType(v.type).element_type)
        changed = True
    return changed


@dataclass(frozen=True)
class ReadShapeElementsOnHostForIree(Pass):
    """Shape-vector elements read where they are made (host arithmetic, or their 1-element
    piece), never from a vector IREE assembles on the device."""

    name = "symhlo-read-shape-elements-on-host-for-iree"
    summary = ("tensor.extract of a small integer vector and dynamic ops' shape operands -> "
               "index arithmetic on the arguments' sizes, or a read of the element's own piece "
               "(IREE 3.13 raced the read of a device-assembled shape vector)")

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            root = module.operation
            reader = ElementReader(root)
            # Every expression first, on the IR as it is: the size facts read it.
            exprs: dict = {}
            for op in walk_ops(root):
                if op.name == "tensor.extract" and _small_int_tensor(op.operands[0]) is not None:
                    index = _extract_index(op)
                    if index is not None:
                        exprs[op] = reader.expression(op.operands[0], index, op)
                elif op.name in SHAPE_OPERANDS:
                    for k in SHAPE_OPERANDS[op.name]:
                        shape = _small_int_tensor(op.operands[k])
                        if shape is not None and len(shape) == 1:
                            exprs[(op, k)] = [reader.expression(op.operands[k], [i], op)
                                              for i in range(shape[0])]
            apply_patterns(root, {
                "tensor.extract": lambda o: read_tensor_extract_on_host(o, reader, exprs),
                **{name: (lambda o: read_shape_operands_on_host(o, reader, exprs))
                   for name in SHAPE_OPERANDS}})
