"""symhlo-torch-symbolic-to-shape: torch.export's size arithmetic on !torch.int -> `shape` dialect.

torch-mlir's importer turns `aten.sym_size.int` and the SymInt arithmetic after it into
`torch.aten.size.int` and `!torch.int` ops; some of them (`fmod.int`) it cannot even represent as
registered ops. This pass rewrites every one of them into `shape` dialect ops on `index` (arith
where `shape` has no op), wrapped back into `!torch.int` with `torch_c` casts for the torch ops that
consume them. It also consumes `torch.symbolic_int` / `torch.bind_symbolic_shape`: the symbol
names, ranges and per-tensor size expressions become attributes on the function, so they outlive
the torch dialect. Where @main already carries the call contract (symhlo.export writes
`symhlo.symbols` / `symhlo.arg_shapes` right after import, from the export call's Dim ranges,
narrowed by `inputs=`), the contract keeps the arguments' symbols and shapes: this pass adds only
`symhlo.result_shapes` and the ranges of the symbols no argument binds (data-dependent sizes such
as nonzero's `u0`). Without a contract (torch IR from elsewhere) it records them all:

    %0 = torch.symbolic_int "s77" {min_val = 2, max_val = 64} : !torch.int
    torch.bind_symbolic_shape %arg0, [%0], affine_map<()[s0] -> (s0, 3)> : !torch.vtensor<[?,3],f32>
    %1 = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
    %2 = torch.aten.mul.int %1, %int2 : !torch.int, !torch.int -> !torch.int
  ==>
    func.func @main(...) attributes {symhlo.symbols = {s77 = [2, 64]},
                                     symhlo.arg_shapes = [["s77", "3"]], ...}
    %t = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
    %s = shape.shape_of %t : tensor<?x3xf32> -> tensor<2xindex>
    %d = shape.get_extent %s, %c0 : tensor<2xindex>, index -> index
    %m = shape.mul %d, %c2 : index, index -> index
    %i = arith.index_cast %m : index to i64
    %2 = torch_c.from_i64 %i
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from torch_mlir import ir

from .contract_attrs import ARG_SHAPES, RESULT_SHAPES, SYMBOLS, range_attr
from .builder import TorchBuilder, apply_patterns, vtensor_sizes_and_dtype, vtensor_type, builtin_element_type
from .ir_util import ensure_upstream_registered, defining_op, walk_ops, remove_dead_ops
from .registry import Pass, PassFailure

def _index() -> ir.Type:
    return ir.IndexType.get()


def _replace(op: ir.Operation, new: ir.Value) -> None:
    op.results[0].replace_all_uses_with(new)
    op.erase()


# ---------------------------------------------------------------------------------------------
# Patterns: each converts one torch op and erases it.


def convert_torch_aten_size_int(op: ir.Operation) -> None:
    """torch.aten.size.int -> shape.shape_of + shape.get_extent (a constant for a static dim)."""
    b = TorchBuilder(op)
    tensor, dim = op.operands
    vt = str(tensor.type)
    d = defining_op(dim)
    if d is None or d.name != "torch.constant.int":
        raise PassFailure("torch.aten.size.int with a non-constant dimension is not supported",
                          [(str(op.location), "dimension must be a constant")])
    axis = ir.IntegerAttr(d.attributes["value"]).value
    parts = vtensor_sizes_and_dtype(tensor.type)
    if parts is None:
        raise PassFailure("torch.aten.size.int on a tensor without known rank",
                          [(str(op.location), f"operand type {vt}")])
    sizes = [ir.ShapedType.get_dynamic_size() if s is None else s for s in parts[0]]
    axis = axis + len(sizes) if axis < 0 else axis
    if not 0 <= axis < len(sizes):
        raise PassFailure("torch.aten.size.int dimension out of range",
                          [(str(op.location), f"torch.aten.size.int dimension "
                            f"{ir.IntegerAttr(d.attributes['value']).value} is out of range for {vt}")])
    if not sizes[axis] < 0:
        return _replace(op, b.to_torch_int(b.const_index(sizes[axis])))
    # !torch.vtensor<[?],si64> <-> tensor<?xi64>, ui8 stays ui8 (builder.builtin_element_type).
    elt = builtin_element_type(parts[1])
    if elt is None:
        raise PassFailure("torch.aten.size.int on a tensor of unsupported dtype",
                          [(str(op.location), vt)])
    builtin = b.create("torch_c.to_builtin_tensor",
                   [ir.RankedTensorType.get(sizes, elt)], [tensor]).result
    shape = b.create("shape.shape_of", [ir.RankedTensorType.get([len(sizes)], _index())],
                 [builtin]).result
    extent = b.create("shape.get_extent", [_index()], [shape, b.const_index(axis)]).result
    _replace(op, b.to_torch_int(extent))


def _binary(fn: Callable[[TorchBuilder, ir.Value, ir.Value], ir.Value]):
    def pattern(op: ir.Operation) -> None:
        b = TorchBuilder(op)
        x, y = (b.as_index(v) for v in op.operands[:2])
        _replace(op, b.to_torch_int(fn(b, x, y)))
    return pattern


def _floor_div(b: TorchBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.index_op("shape.div", x, y)


def _python_mod(b: TorchBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """Python's `%` (result has the divisor's sign): r = x rem y; r != 0 and (r < 0) != (y < 0) ? r + y : r."""
    r = b.index_op("arith.remsi", x, y)
    zero = b.const_index(0)
    nonzero = b.cmpi("ne", r, zero)
    signs_differ = b.create("arith.xori", [ir.IntegerType.get_signless(1)],
                        [b.cmpi("slt", r, zero), b.cmpi("slt", y, zero)]).result
    fix = b.create("arith.andi", [ir.IntegerType.get_signless(1)], [nonzero, signs_differ]).result
    return b.arith_select(fix, b.index_op("arith.addi", r, y), r)


convert_torch_aten_add_int = _binary(lambda b, x, y: b.index_op("shape.add", x, y))
convert_torch_aten_mul_int = _binary(lambda b, x, y: b.index_op("shape.mul", x, y))
convert_torch_aten_sub_int = _binary(lambda b, x, y: b.index_op("arith.subi", x, y))
convert_torch_aten_floordiv_int = _binary(_floor_div)
convert_torch_aten_remainder_int = _binary(_python_mod)
convert_torch_aten_fmod_int = _binary(lambda b, x, y: b.index_op("arith.remsi", x, y))
# shape.max/min take only !shape.size or !shape.shape, never index: arith it is.
convert_torch_prim_max_int = _binary(lambda b, x, y: b.index_op("arith.maxsi", x, y))
convert_torch_prim_min_int = _binary(lambda b, x, y: b.index_op("arith.minsi", x, y))


def convert_torch_aten_neg_int(op: ir.Operation) -> None:
    """torch.aten.neg.int -> arith.subi 0, x."""
    b = TorchBuilder(op)
    x = b.as_index(op.operands[0])
    _replace(op, b.to_torch_int(b.index_op("arith.subi", b.const_index(0), x)))


def _compare(predicate: str):
    def pattern(op: ir.Operation) -> None:
        b = TorchBuilder(op)
        x, y = (b.as_index(v) for v in op.operands[:2])
        _replace(op, b.to_torch_bool(b.cmpi(predicate, x, y)))
    pattern.__doc__ = f"torch.aten.<cmp>.int -> arith.cmpi {predicate}"
    return pattern


PATTERNS: dict[str, Callable[[ir.Operation], None]] = {
    "torch.aten.size.int": convert_torch_aten_size_int,
    "torch.aten.add.int": convert_torch_aten_add_int,
    "torch.aten.sub.int": convert_torch_aten_sub_int,
    "torch.aten.mul.int": convert_torch_aten_mul_int,
    "torch.aten.floordiv.int": convert_torch_aten_floordiv_int,
    "torch.aten.remainder.int": convert_torch_aten_remainder_int,
    "torch.aten.fmod.int": convert_torch_aten_fmod_int,
    "torch.aten.neg.int": convert_torch_aten_neg_int,
    "torch.prim.max.int": convert_torch_prim_max_int,
    "torch.prim.min.int": convert_torch_prim_min_int,
    "torch.aten.sym_max": convert_torch_prim_max_int,
    "torch.aten.sym_min": convert_torch_prim_min_int,
    "torch.aten.eq.int": _compare("eq"),
    "torch.aten.ne.int": _compare("ne"),
    "torch.aten.lt.int": _compare("slt"),
    "torch.aten.le.int": _compare("sle"),
    "torch.aten.gt.int": _compare("sgt"),
    "torch.aten.ge.int": _compare("sge"),
}


def _convert_size_arithmetic(op: ir.Operation) -> bool:
    """Dispatches by `_op_key`: `torch.aten.size.int`, and size arithmetic on `!torch.int`s only."""
    key = _op_key(op)
    pattern = PATTERNS.get(key)
    if pattern is None or (key != "torch.aten.size.int" and not _is_int_operand_only(op)):
        return False
    pattern(op)
    return True


def _op_key(op: ir.Operation) -> str:
    """`torch.operator "torch.aten.fmod.int"` is keyed by the name it carries."""
    if op.name == "torch.operator":
        return ir.StringAttr(op.attributes["name"]).value
    return op.name


# ---------------------------------------------------------------------------------------------
# Symbolic facts.


def _render_affine(expr: str, names: list[str]) -> str:
    return re.sub(r"\bs(\d+)\b", lambda m: names[int(m.group(1))], expr)


def _is_int_operand_only(op: ir.Operation) -> bool:
    return all(str(v.type) == "!torch.int" for v in op.operands)


def record_symbolic_facts(func: ir.Operation) -> None:
    """torch.symbolic_int / bind_symbolic_shape -> func attributes; the ops are erased.

    `symhlo.symbols`: {name: [min, max]}; `symhlo.arg_shapes` / `symhlo.result_shapes`: per
    argument / result, the size expression of each axis as a string ("s0", "2*s0", "3"). A
    contract already on `func` (`symhlo.arg_shapes` present) owns the arguments' shapes and its
    symbols' ranges: only symbols it does not list are added.
    """
    ops = walk_ops(func)
    symbols: dict[str, tuple[int, int]] = {}
    sym_name_of: dict[ir.Value, str] = {}  # symbolic_int result -> symbol name
    for op in ops:
        if op.name == "torch.symbolic_int":
            name = ir.StringAttr(op.attributes["symbol_name"]).value
            lo = ir.IntegerAttr(op.attributes["min_val"]).value
            hi = ir.IntegerAttr(op.attributes["max_val"]).value
            symbols[name] = (lo, hi)
            sym_name_of[op.results[0]] = name
    block = func.regions[0].blocks[0]
    args = list(block.arguments)
    arg_shapes: list[list[str] | None] = [None] * len(args)
    value_shapes: dict[ir.Value, list[str]] = {}
    for op in ops:
        if op.name != "torch.bind_symbolic_shape":
            continue
        names = [sym_name_of.get(v, "?") for v in op.operands[1:]]
        amap = ir.AffineMapAttr(op.attributes["shape_expressions"]).value
        exprs = [_render_affine(str(e), names) for e in amap.results]
        target = op.operands[0]
        if isinstance(target.owner, ir.Block):
            for i, a in enumerate(args):
                if a == target:
                    arg_shapes[i] = exprs
        else:
            value_shapes[target] = exprs
    _refine_constant_arg_axes(func, arg_shapes)
    result_shapes: list[list[str] | None] = []
    for op in block.operations:
        if op.operation.name == "func.return":
            for v in op.operation.operands:
                result_shapes.append(value_shapes.get(v))
    str_arr = lambda xs: ir.ArrayAttr.get([ir.StringAttr.get(x) for x in xs])
    contract = {n.name: n.attr for n in ir.DictAttr(func.attributes[SYMBOLS])} \
        if ARG_SHAPES in func.attributes and SYMBOLS in func.attributes else {}
    func.attributes[SYMBOLS] = ir.DictAttr.get({
        **{n: range_attr(lo, hi) for n, (lo, hi) in symbols.items()}, **contract})
    if ARG_SHAPES not in func.attributes:
        func.attributes[ARG_SHAPES] = ir.ArrayAttr.get(
            [str_arr(s if s is not None else []) for s in arg_shapes])
    func.attributes[RESULT_SHAPES] = ir.ArrayAttr.get(
        [str_arr(s if s is not None else []) for s in result_shapes])
    for op in reversed(ops):
        if op.name == "torch.bind_symbolic_shape":
            op.erase()
    remove_dead_ops(func, {"torch.symbolic_int"})


def _refine_constant_arg_axes(func: ir.Operation, arg_shapes: list[list[str] | None]) -> None:
    """An argument axis typed `?` whose size expression is a constant (torch.export pinned it
    with a guard: `s0 - 4 == 1`) gets that static size in the argument's type.

    The FX importer types every axis that had a symbol as `?`, while the ops after it carry
    the pinned size (`unsqueeze %arg0 : [1,?,?] -> [1,?,2,1]`); torch-mlir's StableHLO
    lowering then cannot reconcile the two ("unresolved target materialization from
    tensor<1x?x?x1xi64> to tensor<1x?x2x1xi64>"). The contract records the axis as static, so
    the call-time checks require exactly that size.

        func.func @main(%arg0: !torch.vtensor<[1,?,?],f32>) attributes {symhlo.arg_shapes = [["1", "s0", "2"]]}
      ==>
        func.func @main(%arg0: !torch.vtensor<[1,?,2],f32>) ...
    """
    block = func.regions[0].blocks[0]
    changed = False
    for arg, exprs in zip(block.arguments, arg_shapes):
        parts = vtensor_sizes_and_dtype(arg.type)
        if exprs is None or parts is None:
            continue
        sizes, dtype = parts
        if len(sizes) != len(exprs):
            continue
        new = [int(e) if s is None and e.isdigit() else s for s, e in zip(sizes, exprs)]
        if new != sizes:
            arg.set_type(vtensor_type(new, dtype))
            changed = True
    if changed:
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in block.arguments], list(ftype.results)))


@dataclass(frozen=True)
class TorchSymbolicToShape(Pass):
    """Lower torch.export's symbolic size arithmetic to the `shape` dialect; keep symbolic facts."""

    name = "symhlo-torch-symbolic-to-shape"
    summary = "torch.aten.size.int and !torch.int arithmetic -> shape dialect; symbols -> func attrs"

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            for func in list(module.body.operations):
                if func.operation.name != "func.func":
                    continue
                func = func.operation
                has_symbols = any(o.name in ("torch.symbolic_int", "torch.bind_symbolic_shape")
                                  for o in walk_ops(func))
                if has_symbols:
                    record_symbolic_facts(func)
                apply_patterns(func, {name: _convert_size_arithmetic
                                      for name in (*PATTERNS, "torch.operator")})
                remove_dead_ops(func, {"torch.constant.int", "torch_c.to_i64", "torch_c.from_i64",
                                       "arith.index_cast", "arith.constant"})
