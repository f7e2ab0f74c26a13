"""symhlo-shape-to-stablehlo: every scalar and shape computation -> StableHLO on integer tensors.

After torch-mlir's convert-torch-to-stablehlo a module still computes sizes with `shape`, `tensor`
and `arith` ops on `index`/`i64` scalars and `tensor<Nxindex>` extents, ours and torch-mlir's own.
This pass rewrites each of them into StableHLO ops on 0-d `tensor<i64>` scalars and 1-d
`tensor<Nxi64>` shapes (i64 throughout: torch sizes are i64; `get_dimension_size`'s i32 is widened
once), so the result is pure StableHLO:

    %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
    %i = arith.index_cast %d : index to i64
    %m = arith.muli %i, %c2_i64 : i64
    %s = tensor.from_elements %m, %c3 : tensor<2xi64>
  ==>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %2 = stablehlo.multiply %1, %c_2 : tensor<i64>
    %3 = stablehlo.reshape %2 : (tensor<i64>) -> tensor<1xi64>
    %s = stablehlo.concatenate %3, %c_3, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>

`shape.cstr_broadcastable` / `shape.assuming` are inlined: torch.export already proved the
broadcasts valid, and the runtime wrapper checks the input shapes that proof rests on.

Each converted scalar is bridged back (`tensor.extract` + cast) for users not yet converted; the
bridges die once every user is converted and canonicalization removes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns
from .contract_attrs import UNBOUNDED
from .ir_util import defining_op, walk_ops, is_dynamic, remove_dead_ops, use_owner
from .registry import Pass, PassFailure


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _i1() -> ir.Type:
    return ir.IntegerType.get_signless(1)


def _scalar_t(elt: ir.Type | None = None) -> ir.Type:
    return ir.RankedTensorType.get([], elt or _i64())


def _is_i1(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1


def _is_scalar_int(t: ir.Type) -> bool:
    return isinstance(t, ir.IndexType) or isinstance(t, ir.IntegerType)


def _is_int_vector(t: ir.Type) -> bool:
    if not isinstance(t, ir.RankedTensorType):
        return False
    rt = ir.RankedTensorType(t)
    return rt.rank == 1 and _is_scalar_int(rt.element_type) and not _is_i1(rt.element_type)


_CMP = {0: "EQ", 1: "NE", 2: "LT", 3: "LE", 4: "GT", 5: "GE", 6: "LT", 7: "LE", 8: "GT", 9: "GE"}


class _Rewriter(OpBuilder):
    """OpBuilder in front of the op being converted, plus the conversions of its operands to
    their tensor form (`scalar`, `vector`) and of its results back (`bridge`)."""

    def scalar(self, v: ir.Value) -> ir.Value:
        """The 0-d tensor<i64> (tensor<i1> for i1) form of a scalar value."""
        if isinstance(v.type, ir.RankedTensorType):
            return v
        d = defining_op(v)
        if d is not None and d.name in ("arith.index_cast", "arith.extsi", "arith.trunci",
                                        "arith.index_castui", "arith.extui"):
            src = defining_op(d.operands[0])
            if src is not None and src.name == "tensor.extract" and len(d.operands) == 1:
                t = src.operands[0]
                if _is_i1(ir.RankedTensorType(t.type).element_type) and not _is_i1(v.type):
                    t = self.hlo_convert(t, _i64())  # extui/extsi of a predicate: 0 or 1 as i64
                return t
        if d is not None and d.name == "tensor.extract" and len(d.operands) == 1:
            return d.operands[0]
        raise PassFailure("a size computation cannot be expressed in StableHLO",
                          [(str(self.loc), f"scalar operand {v.get_name()} of type {v.type} "
                            f"comes from '{d.name if d else 'a block argument'}', which "
                            f"symhlo-shape-to-stablehlo does not convert")])

    def vector(self, v: ir.Value) -> ir.Value:
        """The tensor<Nxi64> form of a 1-d extent tensor."""
        d = defining_op(v)
        if d is not None and d.name == "arith.index_cast" and isinstance(
                d.operands[0].type, ir.RankedTensorType):
            return self.hlo_convert(d.operands[0], _i64())
        elt = ir.RankedTensorType(v.type).element_type
        if isinstance(elt, ir.IndexType):
            raise PassFailure("an extent tensor cannot be expressed in StableHLO",
                              [(str(self.loc), f"operand {v.get_name()} of type {v.type} comes "
                                f"from '{d.name if d else 'a block argument'}'")])
        return self.hlo_convert(v, _i64())

    def bridge(self, old: ir.Value, new: ir.Value) -> None:
        """Replaces `old` by `new` (a tensor), through extract + cast for unconverted users."""
        t = old.type
        if isinstance(t, ir.RankedTensorType):
            rt = ir.RankedTensorType(t)
            if isinstance(rt.element_type, ir.IndexType):
                new = self.create("arith.index_cast", [t], [new]).result
            else:
                new = self.hlo_convert(new, rt.element_type)
            old.replace_all_uses_with(new)
            return
        if str(t) == "!shape.shape":
            # shape.from_extents / const_shape make !shape.shape: its extent-tensor users take `new`.
            for use in list(old.uses):
                user = use_owner(use)
                if user.name != "shape.to_extent_tensor":
                    raise PassFailure("a !shape.shape value cannot be expressed in StableHLO",
                                      [(str(user.location), f"'{user.name}' takes a !shape.shape; "
                                        "only shape.to_extent_tensor users are supported")])
                self.bridge(user.results[0], new)
            return
        if _is_i1(t) or isinstance(t, ir.FloatType):
            ext = self.create("tensor.extract", [t], [new]).result
            old.replace_all_uses_with(ext)
            return
        ext = self.create("tensor.extract", [_i64()], [new]).result
        if isinstance(t, ir.IndexType):
            ext = self.create("arith.index_cast", [t], [ext]).result
        elif ir.IntegerType(t).width < 64:
            ext = self.create("arith.trunci", [t], [ext]).result
        old.replace_all_uses_with(ext)

    def from_scalars(self, scalars: list[ir.Value]) -> ir.Value:
        """[tensor<i64>] -> tensor<Nxi64>, folding runs of constants into one constant."""
        parts, consts = [], []
        for s in scalars:
            c = constant_value(s)
            if c is not None:
                consts.append(c)
                continue
            if consts:
                parts.append(self.hlo_const(consts, _i64()))
                consts = []
            parts.append(self.hlo_reshape(s, [1]))
        if consts or not parts:
            parts.append(self.hlo_const(consts, _i64()))
        return self.hlo_concat(parts)

    def element(self, vec: ir.Value, i: int) -> ir.Value:
        d = defining_op(vec)
        if d is not None and d.name == "stablehlo.concatenate":
            offset = 0
            for p in d.operands:
                n = ir.RankedTensorType(p.type).shape[0]
                if offset <= i < offset + n:
                    return self.element(p, i - offset)
                offset += n
        if d is not None and d.name == "stablehlo.reshape":
            src = d.operands[0]
            if ir.RankedTensorType(src.type).rank == 0:
                return src
        c = constant_vector(vec)
        if c is not None:
            return self.hlo_scalar(c[i])
        return self.hlo_reshape(self.hlo_slice(vec, [i], [i + 1]), [])


def constant_value(v: ir.Value) -> int | None:
    d = defining_op(v)
    if d is None or d.name != "stablehlo.constant":
        return None
    attr = ir.DenseIntElementsAttr(d.attributes["value"])
    if ir.RankedTensorType(v.type).rank != 0:
        return None
    return int(attr[0]) if not attr.is_splat else int(attr.get_splat_value().value)


def constant_vector(v: ir.Value) -> list[int] | None:
    d = defining_op(v)
    if d is None or d.name != "stablehlo.constant":
        return None
    attr = ir.DenseIntElementsAttr(d.attributes["value"])
    n = ir.RankedTensorType(v.type).shape[0]
    if attr.is_splat:
        return [int(attr.get_splat_value().value)] * n
    return [int(attr[i]) for i in range(n)]


def _int_const_attr(op: ir.Operation) -> int:
    return ir.IntegerAttr(op.attributes["value"]).value


# ---------------------------------------------------------------------------------------------
# Patterns.


def convert_arith_constant(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.constant -> stablehlo.constant (scalars as tensor<i64>)."""
    t = op.results[0].type
    if isinstance(t, ir.RankedTensorType):
        rt = ir.RankedTensorType(t)
        if isinstance(rt.element_type, ir.IndexType):
            attr = ir.DenseIntElementsAttr(op.attributes["value"])
            vals = ([int(attr.get_splat_value().value)] * rt.shape[0] if attr.is_splat
                    else [int(attr[i]) for i in range(len(attr))])
            rw.bridge(op.results[0], rw.hlo_const(vals, _i64()))
        else:
            new = rw.create("stablehlo.constant", [t], [], {"value": op.attributes["value"]}).result
            op.results[0].replace_all_uses_with(new)
        return
    if _is_scalar_int(t):
        value = _int_const_attr(op)
        if _is_i1(t):
            rw.bridge(op.results[0], rw.hlo_scalar(value & 1, _i1()))
        else:
            rw.bridge(op.results[0], rw.hlo_scalar(value))
        return
    # A float scalar constant: a 0-d stablehlo.constant, extracted for its (unconverted) users.
    attr = ir.DenseElementsAttr.get_splat(_scalar_t(t), op.attributes["value"])
    new = rw.create("stablehlo.constant", [_scalar_t(t)], [], {"value": attr}).result
    op.results[0].replace_all_uses_with(rw.create("tensor.extract", [t], [new]).result)


def convert_tensor_dim(op: ir.Operation, rw: _Rewriter) -> None:
    """tensor.dim %t, %c -> stablehlo.get_dimension_size + convert to i64."""
    idx = constant_value(rw.scalar(op.operands[1]))
    if idx is None:
        raise PassFailure("tensor.dim with a dynamic index is not supported",
                          [(str(op.location), "the dimension index must be a constant")])
    t = op.operands[0].type
    rank = ir.RankedTensorType(t).rank if isinstance(t, ir.RankedTensorType) else None
    if rank is None or not 0 <= idx < rank:
        raise PassFailure("tensor.dim index out of range",
                          [(str(op.location), f"tensor.dim index {idx} is out of range for {t}")])
    rw.bridge(op.results[0], rw.hlo_dim(op.operands[0], idx, shape=[]))


def convert_shape_shape_of(op: ir.Operation, rw: _Rewriter) -> None:
    """shape.shape_of %t -> concatenate of get_dimension_size (constants for static dims)."""
    t = ir.RankedTensorType(op.operands[0].type)
    rw.bridge(op.results[0], rw.from_scalars([rw.hlo_dim(op.operands[0], i, shape=[]) for i in range(t.rank)]))


def convert_shape_const_shape(op: ir.Operation, rw: _Rewriter) -> None:
    """shape.const_shape [a, b] -> stablehlo.constant dense<[a, b]> : tensor<2xi64>."""
    vals = [int(x) for x in ir.DenseIntElementsAttr(op.attributes["shape"])]
    rw.bridge(op.results[0], rw.hlo_const(vals, _i64()))


def convert_shape_get_extent(op: ir.Operation, rw: _Rewriter) -> None:
    """shape.get_extent %s, %i -> the i-th element (get_dimension_size when %s is a shape_of)."""
    i = constant_value(rw.scalar(op.operands[1]))
    if i is None:
        raise PassFailure("shape.get_extent with a dynamic index is not supported",
                          [(str(op.location), "the extent index must be a constant")])
    vec = rw.vector(op.operands[0])
    n = ir.RankedTensorType(vec.type).shape[0]
    if not 0 <= i < (UNBOUNDED if is_dynamic(n) else n):
        raise PassFailure("shape.get_extent index out of range",
                          [(str(op.location), f"shape.get_extent index {i} is out of range ({n} extents)")])
    rw.bridge(op.results[0], rw.element(vec, i))


def convert_shape_broadcast(op: ir.Operation, rw: _Rewriter) -> None:
    """shape.broadcast %a, %b -> per axis select(a == 1, b, a) over right-aligned extents."""
    vecs = [rw.vector(v) for v in op.operands]
    ranks = [ir.RankedTensorType(v.type).shape[0] for v in vecs]
    out_rank = max(ranks)
    one = rw.hlo_scalar(1)
    result = []
    for axis in range(out_rank):
        acc = None
        for v, r in zip(vecs, ranks):
            j = axis - (out_rank - r)
            if j < 0:
                continue
            e = rw.element(v, j)
            if acc is None:
                acc = e
                continue
            ca, ce = constant_value(acc), constant_value(e)
            if ce == 1 or (ca is not None and ca == ce):
                continue
            if ca == 1 or (ce is not None and ca is None):
                acc = e if ca == 1 else rw.hlo_select(rw.hlo_compare("EQ", acc, one), e, acc)
                continue
            acc = rw.hlo_select(rw.hlo_compare("EQ", acc, one), e, acc)
        result.append(acc)
    rw.bridge(op.results[0], rw.from_scalars(result))


def convert_shape_num_elements(op: ir.Operation, rw: _Rewriter) -> None:
    """shape.num_elements %s -> product of the extents."""
    v = rw.vector(op.operands[0])
    acc = rw.hlo_scalar(1)
    for i in range(ir.RankedTensorType(v.type).shape[0]):
        acc = rw.hlo_binary("multiply", acc, rw.element(v, i))
    rw.bridge(op.results[0], acc)


def convert_tensor_from_elements(op: ir.Operation, rw: _Rewriter) -> None:
    """tensor.from_elements %a, %b -> reshape each to tensor<1xi64> + concatenate."""
    t = ir.RankedTensorType(op.results[0].type)
    if t.rank != 1 or not _is_scalar_int(t.element_type):
        return _convert_generic_from_elements(op, rw)
    rw.bridge(op.results[0], rw.from_scalars([rw.scalar(v) for v in op.operands]))


def _convert_generic_from_elements(op: ir.Operation, rw: _Rewriter) -> None:
    t = ir.RankedTensorType(op.results[0].type)
    if t.rank == 0 and len(op.operands) == 1:
        rw.bridge(op.results[0], rw.scalar(op.operands[0]))
        return
    if t.rank == 1 and len(op.operands) == t.shape[0]:
        # Float scalars (torch-mlir's `aten.div.Scalar` by a size): reshape each + concatenate.
        parts = [rw.hlo_reshape(rw.scalar(v), [1]) for v in op.operands]
        new = parts[0] if len(parts) == 1 else rw.create(
            "stablehlo.concatenate", [t], parts, {"dimension": ir.IntegerAttr.get(_i64(), 0)}).result
        op.results[0].replace_all_uses_with(new)
        return
    raise PassFailure("tensor.from_elements of this type is not supported",
                      [(str(op.location), f"result type {t}")])


def convert_shape_from_extents(op: ir.Operation, rw: _Rewriter) -> None:
    """shape.from_extents %a, %b -> reshape + concatenate."""
    rw.bridge(op.results[0], rw.from_scalars([rw.scalar(v) for v in op.operands]))


def convert_tensor_extract(op: ir.Operation, rw: _Rewriter) -> None:
    """tensor.extract %shape[%i] (constant %i) -> slice + reshape; 0-d extracts are bridges."""
    if len(op.operands) == 1:
        return  # a bridge, or an extract from a 0-d tensor: its users look through it
    src = op.operands[0]
    if not _is_int_vector(src.type):
        return
    i = constant_value(rw.scalar(op.operands[1]))
    if i is None:
        raise PassFailure("tensor.extract with a dynamic index is not supported",
                          [(str(op.location), "the index must be a constant")])
    rw.bridge(op.results[0], rw.element(rw.vector(src), i))


def _binary_pattern(name: str, doc: str):
    def pattern(op: ir.Operation, rw: _Rewriter) -> None:
        a, b = (rw.scalar(v) for v in op.operands)
        rw.bridge(op.results[0], rw.hlo_binary(name, a, b))
    pattern.__doc__ = doc
    return pattern


def convert_floor_div(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.floordivsi / shape.div -> divide, minus one where the remainder's sign differs."""
    a, b = (rw.scalar(v) for v in op.operands)
    q = rw.hlo_binary("divide", a, b)
    r = rw.hlo_binary("remainder", a, b)
    zero = rw.hlo_scalar(0)
    needs_fix = rw.hlo_binary("and", rw.hlo_compare("NE", r, zero),
                          rw.hlo_compare("NE", rw.hlo_compare("LT", r, zero), rw.hlo_compare("LT", b, zero)))
    rw.bridge(op.results[0], rw.hlo_select(needs_fix, rw.hlo_binary("subtract", q, rw.hlo_scalar(1)), q))


def convert_ceil_div(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.ceildivsi -> -floordiv(-a, b)."""
    a, b = (rw.scalar(v) for v in op.operands)
    zero = rw.hlo_scalar(0)
    q = rw.hlo_binary("divide", a, b)
    r = rw.hlo_binary("remainder", a, b)
    needs_fix = rw.hlo_binary("and", rw.hlo_compare("NE", r, zero),
                          rw.hlo_compare("EQ", rw.hlo_compare("LT", r, zero), rw.hlo_compare("LT", b, zero)))
    rw.bridge(op.results[0], rw.hlo_select(needs_fix, rw.hlo_binary("add", q, rw.hlo_scalar(1)), q))


def convert_arith_unsigned(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.divui / remui -> stablehlo.divide / remainder on tensor<i64>.

    torch-mlir emits the unsigned forms only on sizes (numel / known extents for a `-1` view
    axis). Sizes here come from get_dimension_size (an i32, widened), so both operands lie in
    [0, 2^31) where unsigned and signed division agree; ui64 tensors would not compile in IREE.
    """
    name = {"arith.divui": "divide", "arith.remui": "remainder"}[op.name]
    a, b = (rw.scalar(v) for v in op.operands)
    rw.bridge(op.results[0], rw.hlo_binary(name, a, b))


def convert_arith_cmpi(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.cmpi -> stablehlo.compare."""
    a, b = (rw.scalar(v) for v in op.operands)
    pred = ir.IntegerAttr(op.attributes["predicate"]).value
    rw.bridge(op.results[0], rw.hlo_compare(_CMP[pred], a, b))


def convert_arith_select(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.select (on scalars) -> stablehlo.select."""
    if not _is_scalar_int(op.results[0].type):
        return
    c, a, b = (rw.scalar(v) for v in op.operands)
    rw.bridge(op.results[0], rw.hlo_select(c, a, b))


def convert_arith_cast(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.index_cast / extsi / trunci -> nothing: every integer size is tensor<i64>."""
    if isinstance(op.results[0].type, ir.RankedTensorType):
        return  # an extent-tensor cast: users look through it
    src = op.operands[0]
    d = defining_op(src)
    if d is not None and d.name == "tensor.extract" and len(d.operands) == 1:
        return  # a bridge made by this pass
    rw.bridge(op.results[0], rw.scalar(src))


def convert_arith_sitofp(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.sitofp -> stablehlo.convert."""
    v = rw.hlo_convert(rw.scalar(op.operands[0]), op.results[0].type)
    op.results[0].replace_all_uses_with(rw.create("tensor.extract", [op.results[0].type], [v]).result)


def convert_arith_negf(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.negf (scalar) -> stablehlo.negate on a 0-d tensor."""
    v = rw.scalar(op.operands[0])
    rw.bridge(op.results[0], rw.create("stablehlo.negate", [v.type], [v]).result)


def convert_arith_float_cast(op: ir.Operation, rw: _Rewriter) -> None:
    """arith.extf / truncf (scalar) -> stablehlo.convert on a 0-d tensor."""
    rw.bridge(op.results[0], rw.hlo_convert(rw.scalar(op.operands[0]), op.results[0].type))


def convert_scattered_tensor_empty(op: ir.Operation, rw: _Rewriter) -> None:
    """tensor.empty whose every use is a stablehlo.scatter's input (torch's `empty_like(p)` then
    `inv[p] = arange(n)`: an inverse permutation) -> a zero splat of its `?` sizes. `empty`'s
    elements are unspecified, so zeros are one valid choice, and the scatter writes the ones the
    program reads. An `empty` used any other way (returned, read) is left to fail by name.

        %e = tensor.empty(%n) : tensor<?xi64>
      ==>
        %z = stablehlo.constant dense<0> : tensor<i64>
        %e = stablehlo.dynamic_broadcast_in_dim %z, [%n], dims = [] : -> tensor<?xi64>"""
    uses = list(op.results[0].uses)
    n_inputs = lambda u: (len(u.operands) - 1) // 2
    if not uses or not all(use_owner(u).name == "stablehlo.scatter" and u.operand_number < n_inputs(use_owner(u))
                           for u in uses):
        return
    t = ir.RankedTensorType(op.results[0].type)
    sizes = iter(op.operands)
    extents = [rw.scalar(next(sizes)) if is_dynamic(d) else rw.hlo_scalar(d) for d in t.shape]
    zero = rw.hlo_splat(ir.RankedTensorType.get([], t.element_type), 0)
    op.results[0].replace_all_uses_with(rw.hlo_broadcast_in_dim(zero, t, [], rw.from_scalars(extents)))


PATTERNS: dict[str, Callable[[ir.Operation, _Rewriter], None]] = {
    "arith.constant": convert_arith_constant,
    "tensor.dim": convert_tensor_dim,
    "tensor.from_elements": convert_tensor_from_elements,
    "tensor.extract": convert_tensor_extract,
    "tensor.empty": convert_scattered_tensor_empty,
    "shape.shape_of": convert_shape_shape_of,
    "shape.const_shape": convert_shape_const_shape,
    "shape.get_extent": convert_shape_get_extent,
    "shape.broadcast": convert_shape_broadcast,
    "shape.num_elements": convert_shape_num_elements,
    "shape.from_extents": convert_shape_from_extents,
    "shape.add": _binary_pattern("add", "shape.add -> stablehlo.add"),
    "shape.mul": _binary_pattern("multiply", "shape.mul -> stablehlo.multiply"),
    "shape.max": _binary_pattern("maximum", "shape.max -> stablehlo.maximum"),
    "shape.min": _binary_pattern("minimum", "shape.min -> stablehlo.minimum"),
    "shape.div": convert_floor_div,
    "arith.addi": _binary_pattern("add", "arith.addi -> stablehlo.add"),
    "arith.subi": _binary_pattern("subtract", "arith.subi -> stablehlo.subtract"),
    "arith.muli": _binary_pattern("multiply", "arith.muli -> stablehlo.multiply"),
    "arith.divsi": _binary_pattern("divide", "arith.divsi -> stablehlo.divide"),
    "arith.remsi": _binary_pattern("remainder", "arith.remsi -> stablehlo.remainder"),
    "arith.maxsi": _binary_pattern("maximum", "arith.maxsi -> stablehlo.maximum"),
    "arith.minsi": _binary_pattern("minimum", "arith.minsi -> stablehlo.minimum"),
    "arith.andi": _binary_pattern("and", "arith.andi -> stablehlo.and"),
    "arith.ori": _binary_pattern("or", "arith.ori -> stablehlo.or"),
    "arith.xori": _binary_pattern("xor", "arith.xori -> stablehlo.xor"),
    "arith.floordivsi": convert_floor_div,
    "arith.divui": convert_arith_unsigned,
    "arith.remui": convert_arith_unsigned,
    "arith.ceildivsi": convert_ceil_div,
    "arith.cmpi": convert_arith_cmpi,
    "arith.select": convert_arith_select,
    "arith.index_cast": convert_arith_cast,
    "arith.index_castui": convert_arith_cast,
    "arith.extsi": convert_arith_cast,
    "arith.extui": convert_arith_cast,
    "arith.trunci": convert_arith_cast,
    "arith.sitofp": convert_arith_sitofp,
    "arith.addf": _binary_pattern("add", "arith.addf -> stablehlo.add (0-d float)"),
    "arith.subf": _binary_pattern("subtract", "arith.subf -> stablehlo.subtract (0-d float)"),
    "arith.mulf": _binary_pattern("multiply", "arith.mulf -> stablehlo.multiply (0-d float)"),
    "arith.divf": _binary_pattern("divide", "arith.divf -> stablehlo.divide (0-d float)"),
    "arith.negf": convert_arith_negf,
    "arith.extf": convert_arith_float_cast,
    "arith.truncf": convert_arith_float_cast,
}

_PATTERNS_WITH_REWRITER = {name: (lambda op, p=p: p(op, _Rewriter(op))) for name, p in PATTERNS.items()}

# Ops this pass makes or leaves dead; erased once every user is converted.
_DEAD_CANDIDATES = set(PATTERNS) | {
    "shape.cstr_broadcastable", "shape.cstr_eq", "shape.const_witness", "shape.assuming_all",
    "shape.index_to_size", "shape.size_to_index", "shape.to_extent_tensor",
    # What the rewriter builds and leaves unused (constants of converted indices, shape_of pieces
    # only a get_extent looked at): side-effect free, so erased when dead.
    "stablehlo.constant", "stablehlo.get_dimension_size", "stablehlo.convert", "stablehlo.reshape",
    "stablehlo.concatenate", "stablehlo.slice", "stablehlo.compare", "stablehlo.select",
}


def inline_assuming_regions(func: ir.Operation) -> None:
    """shape.assuming %w { ops; shape.assuming_yield %v } -> ops, uses of the result -> %v."""
    apply_patterns(func, {"shape.assuming": _hoist_assuming_body})
    # Erase the now-empty assuming ops (each holds only its yield) innermost first.
    apply_patterns(func, {"shape.assuming": ir.Operation.erase}, reverse=True)


def _hoist_assuming_body(op: ir.Operation) -> None:
    """Moves the body of `op` in front of it; its results become the yielded values."""
    body = op.regions[0].blocks[0]
    ops = [o.operation for o in body.operations]
    yield_op = ops[-1]
    for o in ops[:-1]:
        o.move_before(op)
    for res, val in zip(op.results, yield_op.operands):
        res.replace_all_uses_with(val)


def fold_bridges_into_stablehlo(func: ir.Operation) -> None:
    """An extent operand cast from i64 to index feeds a StableHLO op: use the i64 tensor directly."""
    for op in walk_ops(func):
        if not op.name.startswith("stablehlo."):
            continue
        for i, v in enumerate(op.operands):
            d = defining_op(v)
            if d is not None and d.name == "arith.index_cast" and isinstance(v.type, ir.RankedTensorType):
                op.operands[i] = d.operands[0]


def _pass_through_size_casts(func: ir.Operation) -> None:
    """shape.index_to_size / size_to_index carry an index unchanged."""
    def forward(op: ir.Operation) -> None:
        op.results[0].replace_all_uses_with(op.operands[0])

    apply_patterns(func, {"shape.index_to_size": forward, "shape.size_to_index": forward})


@dataclass(frozen=True)
class ShapeToStablehlo(Pass):
    """Lower every shape/tensor/arith size computation to StableHLO ops on integer tensors."""

    name = "symhlo-shape-to-stablehlo"
    summary = "shape/tensor/arith size computations -> StableHLO on tensor<i64> / tensor<Nxi64>"

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            for func in list(module.body.operations):
                func = func.operation
                if func.name != "func.func":
                    continue
                inline_assuming_regions(func)
                _pass_through_size_casts(func)
                apply_patterns(func, _PATTERNS_WITH_REWRITER)
                fold_bridges_into_stablehlo(func)
                remove_dead_ops(func, _DEAD_CANDIDATES)
