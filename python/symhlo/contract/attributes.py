"""The user's contract as attributes of the StableHLO function itself (floor 1, contract):
write_contract puts it on `func.func @main` (right after import, in torch's symbol names),
rename_contract gives it the user's names once the passes ran, read_contract reads it back.

An exported program is only correct for the calls its exporter allowed: sizes in ranges, sizes in
relation to each other (`m <= n`), non-tensor arguments equal to the values they were specialized
to, arguments bound by name as the model's `forward` binds them. symhlo writes all of that onto
`func.func @main` as attributes, in the user's names, and every consumer (call-time checks,
`CompiledModule.save`/`load`, `symhlo compile IN.mlir`, the CLI's `.pt2` path) reads it back from
there:

    func.func @main(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {
        symhlo.symbols = {m = [0, 9223372036854775807], n = [0, 9223372036854775807]},
        symhlo.arg_names = ["x", "y"],
        symhlo.arg_shapes = [["m", "4"], ["n", "4"]],
        symhlo.result_shapes = [["m", "4"]],
        symhlo.relations = ["m <= n"],
        symhlo.signature = {arg_names = ["x", "y", "k"], num_positional = 3 : i64,
                            leaves = [{name = "x", tensor = 0 : i64}, {name = "y", tensor = 1 : i64},
                                      {name = "k", value = 3 : i64}],
                            in_spec = "[1, {...}]", out_spec = "[1, {...}]"}}

`symhlo.symbols` maps each symbol to [min, max] (a max for which `is_unbounded` holds means no max);
`symhlo.arg_shapes` gives each tensor argument's axes as size expressions over the symbols
(`"2*h"`, `"4"`); `symhlo.relations` are the size relations the program relies on beyond the
ranges; `symhlo.signature` is the call signature: the forward's parameter names (the first
`num_positional` were passed by position at export), the pytree specs of `(args, kwargs)` and of
the outputs (torch's `treespec_dumps` JSON), and for each flattened input leaf either the @main
argument it feeds or the constant it was specialized to (None is a unit attribute).

Symbol names: the user's torch.export Dim names (from `dynamic_shapes`, or recovered from the
shape env's debug names, which torch.export keeps per input axis), the names of symhlo.Input
dims, or, when no name survives (a `.pt2` loaded from disk), `<input>_dim<axis>`; never torch's
internal `s77`.
"""

from __future__ import annotations

import keyword
import re

import sympy

from symhlo.passes.contract_attrs import (ARG_NAMES, ARG_SHAPES, RELATIONS, RESULT_SHAPES,
                                          RUNTIME_CHECKS, SIGNATURE, SYMBOLS, range_attr,
                                          symbol_ranges)

from ..errors import CompileError, UnsupportedOpError
from .dims import InputSpec, SymbolTable, parse_relation, parse_shape_expr
from .shape_assertions import read_func_attribute
from .signature import Signature

_RESERVED = {"Mod", "PythonMod", "floor", "ceiling", "Max", "Min", "FloorDiv", "CeilDiv"}


def _valid_symbol(name: str) -> bool:
    return (isinstance(name, str) and name.isidentifier() and not name.startswith("_")
            and not keyword.iskeyword(name) and name not in _RESERVED)


# -- symbol names --------------------------------------------------------------------------------

def torch_debug_names(ep, table) -> dict[str, str]:
    """Internal symbol -> the Dim name torch.export recorded for it (its shape env's debug names).

    torch.export keeps `{"L['x'].size()[0]": "h", "L['y'].size()[0]": "2*h"}`; a derived dim
    names its root by matching the expression (`2*s77` vs `2*h`). Empty for a deserialized
    program (torch.export.load does not restore them).
    """
    from torch.export.exported_program import _get_shape_env

    try:
        env = _get_shape_env(ep.graph_module)
        debug = dict(getattr(env, "source_name_to_debug_name", {}) or {}) if env is not None else {}
    except Exception:
        return {}
    if not debug:
        return {}
    names: dict[str, str] = {}
    for spec in table.inputs:
        for axis, e in enumerate(spec.shape):
            if isinstance(e, int):
                continue
            given = debug.get(f"L['{spec.name}'].size()[{axis}]")
            if not given:
                continue
            syms = list(e.free_symbols)
            if len(syms) != 1 or str(syms[0]) in names:
                continue
            if isinstance(e, sympy.Symbol):
                if _valid_symbol(given):
                    names[str(e)] = given
                continue
            try:
                d = parse_shape_expr(given)
            except ValueError:
                continue
            if len(d.free_symbols) != 1:
                continue
            root = next(iter(d.free_symbols))
            mine = e.xreplace({syms[0]: root})
            if _valid_symbol(str(root)) and sympy.simplify(mine - d) == 0:
                names[str(syms[0])] = str(root)
    return names


def readable_names(table, given: dict[str, str]) -> dict[str, str]:
    """Every symbol of `table` -> a unique, valid name: `given` first, else `<input>_dim<axis>`."""
    out: dict[str, str] = {}
    taken: set[str] = set()

    def claim(sym: str, name: str) -> None:
        base = name if _valid_symbol(name) else re.sub(r"\W", "_", f"d_{name}")
        cand, k = base, 2
        while cand in taken:
            cand, k = f"{base}_{k}", k + 1
        out[sym] = cand
        taken.add(cand)

    for sym in table.ranges:
        if sym in given and given[sym] != sym:
            claim(sym, given[sym])
    # fallbacks: where the symbol binds an axis directly, else where it first appears
    first_direct: dict[str, str] = {}
    first_any: dict[str, str] = {}
    for spec in table.inputs:
        for axis, e in enumerate(spec.shape):
            if isinstance(e, int):
                continue
            if isinstance(e, sympy.Symbol):
                first_direct.setdefault(str(e), f"{spec.name}_dim{axis}")
            for s in e.free_symbols:
                first_any.setdefault(str(s), f"{spec.name}_dim{axis}_root")
    for sym in table.ranges:
        if sym not in out:
            claim(sym, first_direct.get(sym) or first_any.get(sym) or f"dim_{len(out)}")
    return out


# -- the attributes on @main -----------------------------------------------------------------------

def _render(e, names: dict[str, str]) -> str:
    if isinstance(e, int):
        return str(e)
    return str(e.xreplace({s: sympy.Symbol(names.get(str(s), str(s))) for s in e.free_symbols}))


def _tidy(expr: str) -> str:
    """`h * 2` (affine rendering) -> `2*h`; left alone when it does not parse."""
    try:
        return str(parse_shape_expr(expr.replace(" mod ", " % ").replace(" floordiv ", " // ")))
    except ValueError:
        return expr


def _trivial(relation: str) -> bool:
    """True for a relation that holds for every size (`(2*h) == (2*h)`)."""
    m = re.fullmatch(r"(.+?)\s*(<=|>=|==)\s*(.+)", relation.strip())
    if not m:
        return False
    try:
        return sympy.simplify(parse_shape_expr(m.group(1)) - parse_shape_expr(m.group(3))) == 0
    except (ValueError, TypeError):
        return False


def _rename_text(text: str, names: dict[str, str]) -> str:
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: names.get(m.group(0), m.group(0)), text)


def write_contract(func, table, signature: Signature | None) -> None:
    """Writes `table` (its ranges, input shapes and relations, in its own symbol names) and
    `signature` onto `func`: the one place a Dim's range enters the IR.

    symhlo.export calls it on the torch-dialect @main right after import, so every pass after it
    (symhlo-torch-symbolic-to-shape keeps these, symhlo-fold-size-ranges folds by them) sees the
    ranges the call-time checks enforce; narrow_program calls it on a finished program. Symbols
    already on `func` that `table` does not range (result-only sizes) are kept.
    """
    from torch_mlir import ir

    with func.context, ir.Location.unknown():
        strs = lambda xs: ir.ArrayAttr.get([ir.StringAttr.get(x) for x in xs])  # noqa: E731
        symbols = {n.name: n.attr for n in ir.DictAttr(func.attributes[SYMBOLS])} \
            if SYMBOLS in func.attributes else {}
        symbols.update({s: range_attr(lo, hi) for s, (lo, hi) in table.ranges.items()})
        func.attributes[SYMBOLS] = ir.DictAttr.get(symbols)
        func.attributes[ARG_NAMES] = strs([i.name for i in table.inputs])
        func.attributes[ARG_SHAPES] = ir.ArrayAttr.get(
            [strs([_render(e, {}) for e in i.shape]) for i in table.inputs])
        func.attributes[RELATIONS] = strs([r for r in table.relations if not _trivial(r)])
        if signature is not None:
            func.attributes[SIGNATURE] = to_attr(signature.to_json())


def rename_contract(func, names: dict[str, str], arg_names: list[str] | None = None) -> None:
    """Renames the symbols of `func`'s contract (torch's `s77`) to the user's (`names`) in every
    attribute that mentions them: the ranges' keys, the argument and result shapes (in sympy's
    spelling: `h * 2` -> `2*h`), the relations and the runtime checks' messages; with
    `arg_names`, the tensor arguments too (symhlo.arg_names: the names every check's message
    gives an input)."""
    from torch_mlir import ir

    attrs = func.attributes

    def texts(name: str) -> list[str]:
        return [ir.StringAttr(x).value for x in ir.ArrayAttr(attrs[name])]

    with func.context, ir.Location.unknown():
        strs = lambda xs: ir.ArrayAttr.get([ir.StringAttr.get(x) for x in xs])  # noqa: E731
        if SYMBOLS in attrs:
            attrs[SYMBOLS] = ir.DictAttr.get({names.get(n.name, n.name): n.attr
                                              for n in ir.DictAttr(attrs[SYMBOLS])
                                              if n.name in names or _valid_symbol(n.name)})
        for shapes in (ARG_SHAPES, RESULT_SHAPES):
            if shapes in attrs:
                attrs[shapes] = ir.ArrayAttr.get(
                    [strs([_tidy(_rename_text(ir.StringAttr(x).value, names)) for x in ir.ArrayAttr(r)])
                     for r in ir.ArrayAttr(attrs[shapes])])
        for messages in (RELATIONS, RUNTIME_CHECKS):   # runtime checks: symhlo-lower-torch-runtime-asserts
            if messages in attrs:
                attrs[messages] = strs([_rename_text(m, names) for m in texts(messages)])
        if arg_names is not None:
            attrs[ARG_NAMES] = strs(arg_names)


def to_attr(obj):
    """JSON-like data -> an MLIR attribute (dict, array, string, bool, i64, f64, unit for None)."""
    from torch_mlir import ir

    if obj is None:
        return ir.UnitAttr.get()
    if isinstance(obj, bool):
        return ir.BoolAttr.get(obj)
    if isinstance(obj, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), obj)
    if isinstance(obj, float):
        return ir.FloatAttr.get(ir.F64Type.get(), obj)
    if isinstance(obj, str):
        return ir.StringAttr.get(obj)
    if isinstance(obj, (list, tuple)):
        return ir.ArrayAttr.get([to_attr(x) for x in obj])
    if isinstance(obj, dict):
        return ir.DictAttr.get({str(k): to_attr(v) for k, v in obj.items()})
    raise TypeError(f"cannot store {type(obj).__name__} in an attribute")


def from_attr(attr, depth: int = 0):
    """The inverse of to_attr, for attributes read from a file (anything else: ValueError)."""
    from torch_mlir import ir

    if depth > 32:
        raise ValueError("attribute nested too deeply")
    attr = attr.maybe_downcast() if hasattr(attr, "maybe_downcast") else attr
    if isinstance(attr, ir.UnitAttr):
        return None
    if isinstance(attr, ir.BoolAttr):
        return attr.value
    if isinstance(attr, ir.IntegerAttr):
        return attr.value
    if isinstance(attr, ir.FloatAttr):
        return attr.value
    if isinstance(attr, ir.StringAttr):
        return attr.value
    if isinstance(attr, ir.ArrayAttr):
        return [from_attr(x, depth + 1) for x in attr]
    if isinstance(attr, ir.DictAttr):
        return {named.name: from_attr(named.attr, depth + 1) for named in attr}
    raise ValueError(f"unexpected attribute {str(attr)[:80]}")


_MLIR_TO_TORCH_DTYPE = {
    "f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16", "i64": "int64",
    "i32": "int32", "i16": "int16", "i8": "int8", "ui8": "uint8", "i1": "bool",
}


def read_contract(func):
    """The SymbolTable (with its `signature`, runtime checks and exporter's shape assertions) that
    `func`'s attributes describe.

    Works on any `func.func` (a torch_mlir.ir op): attributes symhlo did not write are read as
    "every `?` axis its own unbounded symbol `<arg>_dim<axis>`", with arguments named arg0, ...

    Raises:
      CompileError: a malformed attribute (the file's data is parsed, never evaluated).
    """
    from torch_mlir import ir

    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    attrs = func.attributes

    def strings(name: str) -> list | None:
        if name not in attrs:
            return None
        try:
            return [ir.StringAttr(s).value for s in ir.ArrayAttr(attrs[name])]
        except (ValueError, TypeError):
            raise CompileError(f"@main: {name} must be an array of strings") from None

    try:
        arg_shapes = ([[ir.StringAttr(s).value for s in ir.ArrayAttr(a)]
                       for a in ir.ArrayAttr(attrs[ARG_SHAPES])]
                      if ARG_SHAPES in attrs else [])
    except (ValueError, TypeError):
        raise CompileError("@main: symhlo.arg_shapes must be an array of arrays of strings") from None
    try:
        ranges = symbol_ranges(func)
    except (ValueError, TypeError):
        raise CompileError("@main: symhlo.symbols must map names to [min, max]") from None
    arg_names = strings(ARG_NAMES) or []
    inputs = []
    for k, t in enumerate(ftype.inputs):
        if not isinstance(t, ir.RankedTensorType):
            raise CompileError(f"@main argument {k} has type {t}; symhlo takes StableHLO whose "
                               "arguments are ranked tensors (is this another dialect?)")
        rt = ir.RankedTensorType(t)
        name = arg_names[k] if k < len(arg_names) and arg_names[k] else f"arg{k}"
        exprs = arg_shapes[k] if k < len(arg_shapes) and arg_shapes[k] else None
        shape: list = []
        for axis, size in enumerate(rt.shape):
            if not ir.ShapedType.is_dynamic_size(size):
                shape.append(int(size))
            elif exprs is not None:
                try:  # the attribute is data from the file: parsed, never eval'd
                    e = parse_shape_expr(str(exprs[axis] if axis < len(exprs) else "").replace(" mod ", " % "))
                except ValueError as err:
                    raise CompileError(f"@main: bad symhlo.arg_shapes entry for {name} axis {axis}: "
                                       f"{err}") from None
                shape.append(int(e) if e.is_number else e)
            else:
                sym = f"{name}_dim{axis}" if _valid_symbol(f"{name}_dim{axis}") else f"arg{k}_dim{axis}"
                ranges.setdefault(sym, (0, None))
                shape.append(sympy.Symbol(sym, integer=True, positive=True))
        dtype = _MLIR_TO_TORCH_DTYPE.get(str(rt.element_type), str(rt.element_type))
        inputs.append(InputSpec(name, dtype, shape))
    relations = strings(RELATIONS) or []
    for r in relations:
        try:
            parse_relation(r)
        except ValueError as err:
            raise CompileError(f"@main: bad symhlo.relations entry: {err}") from None
    used = {str(s) for i in inputs for e in i.shape if not isinstance(e, int) for s in e.free_symbols}
    table = SymbolTable(inputs, {s: r for s, r in ranges.items() if s in used}, None, relations)
    table.runtime_checks = strings(RUNTIME_CHECKS) or []
    table.assertions = read_func_attribute(func)
    if SIGNATURE in attrs:
        try:
            table.signature = Signature.from_json(from_attr(attrs[SIGNATURE]))
        except (ValueError, TypeError, KeyError) as err:
            raise CompileError(f"@main: bad symhlo.signature: {err}") from None
        if table.signature.num_tensors != len(inputs):
            raise CompileError(f"@main: symhlo.signature names {table.signature.num_tensors} tensor "
                               f"argument(s), the function takes {len(inputs)}")
    return table


def signature_specs(func) -> list[str]:
    """The pytree spec texts (inputs, outputs) `func`'s symhlo.signature names, unparsed: what
    symhlo.load resolves container classes from before the signature is read."""
    if SIGNATURE not in func.attributes:
        return []
    try:
        sig = from_attr(func.attributes[SIGNATURE])
    except ValueError as err:
        raise CompileError(f"@main: bad symhlo.signature: {err}") from None
    return [t for t in (sig.get("in_spec"), sig.get("out_spec")) if isinstance(t, str)] \
        if isinstance(sig, dict) else []


def main_func(module):
    """The `func.func @main` of a torch_mlir module, or None."""
    from torch_mlir import ir

    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    return None


def drop_constant_args(module, signature: Signature) -> None:
    """Removes @main's arguments for non-tensor inputs (torch-mlir imports them as !torch.int,
    !torch.none, ...): torch.export specialized them, the graph does not read them, and the
    call-time binding checks their values instead.

    Raises:
      UnsupportedOpError: the graph reads one of them.
    """
    from torch_mlir import ir

    func = main_func(module)
    if func is None:
        return
    block = func.regions[0].blocks[0]
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    consts = [leaf for leaf in signature.leaves if "tensor" not in leaf]
    drop = [k for k, a in enumerate(block.arguments)
            if not str(a.type).startswith(("!torch.vtensor", "!torch.tensor"))]
    if not drop:
        return
    for k in drop:
        arg = block.arguments[k]
        if any(True for _ in arg.uses):
            which = next((c["name"] for c in consts), f"argument {k}")
            raise UnsupportedOpError(f"the graph reads non-tensor argument {which} ({arg.type}); "
                                     "symhlo compiles non-tensor arguments as constants")
    for k in reversed(drop):
        block.erase_argument(k)
    with func.context:
        keep = [t for k, t in enumerate(ftype.inputs) if k not in drop]
        func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(keep, list(ftype.results)))
