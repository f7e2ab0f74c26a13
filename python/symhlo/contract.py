"""The user's contract, carried by the StableHLO function itself.

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

`symhlo.symbols` maps each symbol to [min, max] (max >= 2**62 means unbounded);
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
import math
import re
from dataclasses import dataclass, field
from typing import Any

import sympy

from .errors import CompileError, ShapeError, UnsupportedOpError

UNBOUNDED = 2**63 - 1

_RESERVED = {"Mod", "PythonMod", "floor", "ceiling", "Max", "Min", "FloorDiv", "CeilDiv"}


def _valid_symbol(name: str) -> bool:
    return (isinstance(name, str) and name.isidentifier() and not name.startswith("_")
            and not keyword.iskeyword(name) and name not in _RESERVED)


# -- the call signature --------------------------------------------------------------------------

_JSON_SCALARS = (bool, int, float, str, type(None))


@dataclass
class Signature:
    """How a call's `(args, kwargs)` map onto the program's tensor arguments.

    Attributes:
      arg_names: the forward's parameter names in torch.export's order: the positional ones
        given at export, then the keyword ones.
      num_positional: how many of arg_names were passed positionally at export.
      leaves: one entry per leaf of the flattened `(args, kwargs)`: {"name": "z[0]", "tensor": k}
        (feeds @main argument k) or {"name": "k", "value": 3} (a constant of the program) or
        {"name": "cfg", "repr": "..."} (a constant compared by repr).
      in_spec, out_spec: torch pytree specs as `treespec_dumps` text (None when not serializable).
    """

    arg_names: list[str]
    num_positional: int
    leaves: list[dict]
    in_spec: str | None = None
    out_spec: str | None = None
    _spec: Any = field(default=None, repr=False, compare=False)
    _plain: bool | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        # A spec that did not serialize is left out, not stored as None: None becomes a UnitAttr,
        # which VHLO cannot hold (a program returning torch.return_types.sort had no artifact).
        specs = {k: v for k, v in (("in_spec", self.in_spec), ("out_spec", self.out_spec))
                 if v is not None}
        return {"arg_names": self.arg_names, "num_positional": self.num_positional,
                "leaves": self.leaves, **specs}

    @classmethod
    def from_json(cls, data: dict) -> "Signature":
        """Reads a signature from file data (validated; treespecs are loaded without imports)."""
        if not isinstance(data, dict):
            raise ValueError("the signature is not a JSON object")
        names = data.get("arg_names")
        npos = data.get("num_positional")
        leaves = data.get("leaves")
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            raise ValueError("signature arg_names must be a list of strings")
        if not (isinstance(npos, int) and 0 <= npos <= len(names)):
            raise ValueError("signature num_positional is out of range")
        if not isinstance(leaves, list):
            raise ValueError("signature leaves must be a list")
        for leaf in leaves:
            if not (isinstance(leaf, dict) and isinstance(leaf.get("name"), str)
                    and (isinstance(leaf.get("tensor"), int) and not isinstance(leaf["tensor"], bool)
                         or ("value" in leaf and isinstance(leaf["value"], _JSON_SCALARS))
                         or isinstance(leaf.get("repr"), str))):
                raise ValueError(f"malformed signature leaf {str(leaf)[:80]}")
        tensors = sorted(leaf["tensor"] for leaf in leaves if "tensor" in leaf)
        if tensors != list(range(len(tensors))):
            raise ValueError(f"signature leaves must feed arguments 0..{len(tensors) - 1} once each, "
                             f"got {tensors[:8]}")
        for key in ("in_spec", "out_spec"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise ValueError(f"signature {key} must be a string")
        sig = cls(names, npos, leaves, data.get("in_spec"), data.get("out_spec"))
        if sig.in_spec is not None:
            from .compiler import _treespec_loads

            sig._spec = _treespec_loads(sig.in_spec)
        return sig

    @property
    def num_tensors(self) -> int:
        return sum(1 for leaf in self.leaves if "tensor" in leaf)

    @property
    def plain(self) -> bool:
        """True when the call is `f(t0, t1, ...)`: positional tensors only, nothing nested."""
        if self._plain is None:
            self._plain = (self.num_positional == len(self.arg_names) == len(self.leaves)
                           and all(leaf.get("tensor") == k for k, leaf in enumerate(self.leaves)))
        return self._plain

    def spec(self):
        if self._spec is None and self.in_spec is not None:
            from .compiler import _treespec_loads

            self._spec = _treespec_loads(self.in_spec)
        return self._spec

    def describe(self) -> str:
        pos = self.arg_names[:self.num_positional]
        kw = self.arg_names[self.num_positional:]
        return "(" + ", ".join(pos + ([f"*, {', '.join(kw)}"] if kw else [])) + ")"

    def bind(self, args: tuple, kwargs: dict) -> list:
        """Binds a call as the model's forward would; returns the tensors for @main, in order.

        Positional parameters may be passed by name, keyword ones only by name; non-tensor
        leaves must equal the values the program was exported with.

        Raises:
          ShapeError: missing, extra or misnamed arguments, a different nesting, a tensor where a
          constant was exported or the reverse, or a constant with another value (named).
        """
        import torch
        import torch.utils._pytree as pytree

        if not kwargs and self.plain and len(args) == len(self.leaves) and \
                all(isinstance(a, torch.Tensor) for a in args):
            return list(args)
        npos = self.num_positional
        pos_names, kw_names = self.arg_names[:npos], self.arg_names[npos:]
        if len(args) > npos:
            raise ShapeError(f"the program takes {npos} positional argument(s) "
                             f"{self.describe()}, got {len(args)}")
        kwargs = dict(kwargs)
        pos = list(args)
        for name in pos_names[len(args):]:
            if name not in kwargs:
                raise ShapeError(f"missing argument '{name}' (the program takes {self.describe()})")
            pos.append(kwargs.pop(name))
        for name in pos_names[:len(args)]:
            if name in kwargs:
                raise ShapeError(f"argument '{name}' given both by position and by name")
        extra = [k for k in kwargs if k not in kw_names]
        if extra:
            raise ShapeError(f"unexpected argument '{extra[0]}' (the program takes {self.describe()})")
        missing = [k for k in kw_names if k not in kwargs]
        if missing:
            raise ShapeError(f"missing keyword argument '{missing[0]}' (the program takes "
                             f"{self.describe()})")
        tree = (tuple(pos), {k: kwargs[k] for k in kw_names})
        flat, spec = pytree.tree_flatten(tree)
        want = self.spec()
        if (want is not None and spec != want) or len(flat) != len(self.leaves):
            raise ShapeError(f"the call's arguments are nested differently from the exported ones: "
                             f"got {spec}, expected {want if want is not None else self.describe()}")
        tensors: list = [None] * self.num_tensors
        for leaf, value in zip(self.leaves, flat):
            name = leaf["name"]
            if "tensor" in leaf:
                if not isinstance(value, torch.Tensor):
                    raise ShapeError(f"{name}: expected a tensor, got {type(value).__name__} {value!r:.80}")
                tensors[leaf["tensor"]] = value
                continue
            if isinstance(value, torch.Tensor):
                raise ShapeError(f"{name}: got a tensor, but the program was exported with the "
                                 f"constant {name} = {_show(leaf)}")
            if not _same_constant(leaf, value):
                raise ShapeError(
                    f"{name}: the program was exported with {name} = {_show(leaf)}, got "
                    f"{value!r:.80}; non-tensor arguments are compiled in as constants, so "
                    f"export (and compile) again with the new value")
        return tensors


def _show(leaf: dict) -> str:
    return repr(leaf["value"]) if "value" in leaf else leaf["repr"]


def _same_constant(leaf: dict, value) -> bool:
    if "value" not in leaf:
        return repr(value) == leaf["repr"]
    want = leaf["value"]
    if type(want) is not type(value):
        # JSON keeps 3.0 as a float and True as a bool; an int given for a float is not the same
        # constant to torch.export either (its guards compare types).
        return False
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(value)
    return want == value


def leaf_names(in_spec, arg_names: list[str]) -> list[str]:
    """`x`, `z[0]`, `cfg['a']` for each leaf of an `(args, kwargs)` spec."""
    import torch.utils._pytree as pytree

    dummy = pytree.tree_unflatten(list(range(in_spec.num_leaves)), in_spec)
    out = []
    for path, _ in pytree.tree_flatten_with_path(dummy)[0]:
        if len(path) >= 2 and isinstance(path[0], pytree.SequenceKey):
            top = path[1]
            if path[0].idx == 0 and isinstance(top, pytree.SequenceKey):
                head = arg_names[top.idx] if top.idx < len(arg_names) else f"args[{top.idx}]"
            elif isinstance(top, pytree.MappingKey):
                head = str(top.key)
            else:
                head = pytree.keystr(path[:2])
            out.append(head + pytree.keystr(path[2:]))
        else:
            out.append(pytree.keystr(path) or "input")
    return out


def signature_of(ep) -> Signature:
    """The call signature of an ExportedProgram.

    Raises:
      UnsupportedOpError: a non-tensor input is dynamic (a SymInt/SymFloat/SymBool input).
    """
    import torch.utils._pytree as pytree
    from torch.export.graph_signature import (ConstantArgument, InputKind, TensorArgument)

    in_spec = ep.call_spec.in_spec
    mcg = ep.module_call_graph[0].signature if ep.module_call_graph else None
    forward_names = list(getattr(mcg, "forward_arg_names", None) or [])
    args_spec, kwargs_spec = ((in_spec.child(0), in_spec.child(1)) if in_spec is not None
                              and in_spec.num_children == 2 else (None, None))
    npos = args_spec.num_children if args_spec is not None else 0
    kw = list(kwargs_spec.context) if kwargs_spec is not None else []
    if len(forward_names) != npos + len(kw):
        forward_names = [f"arg{k}" for k in range(npos)] + kw
    user = [s for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    names = leaf_names(in_spec, forward_names) if in_spec is not None else [s.arg.name for s in user]
    if len(names) != len(user):
        names = [s.arg.name for s in user]
    leaves, k = [], 0
    for name, s in zip(names, user):
        if isinstance(s.arg, TensorArgument):
            leaves.append({"name": name, "tensor": k})
            k += 1
        elif isinstance(s.arg, ConstantArgument):
            v = s.arg.value
            if isinstance(v, _JSON_SCALARS) and not (isinstance(v, int) and abs(v) >= 2**63):
                leaves.append({"name": name, "value": v})
            else:
                leaves.append({"name": name, "repr": repr(v)})
        else:
            raise UnsupportedOpError(
                f"argument '{name}' is a dynamic {type(s.arg).__name__.replace('Argument', '')} "
                "input; symhlo compiles non-tensor arguments as constants (a call with another "
                f"value raises ShapeError): export it static (None in dynamic_shapes for '{name}') "
                "or pass it as a 0-d tensor")

    def dumps(spec):
        if spec is None:
            return None
        try:
            return pytree.treespec_dumps(spec)
        except Exception:  # a container type without a serialized name: kept in memory only
            return None

    sig = Signature(forward_names, npos, leaves, dumps(in_spec), dumps(ep.call_spec.out_spec))
    sig._spec = in_spec
    return sig


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
    from .dims import parse_shape_expr

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
    from .dims import parse_shape_expr

    try:
        return str(parse_shape_expr(expr.replace(" mod ", " % ").replace(" floordiv ", " // ")))
    except ValueError:
        return expr


def _trivial(relation: str) -> bool:
    """True for a relation that holds for every size (`(2*h) == (2*h)`)."""
    from .dims import parse_shape_expr

    m = re.fullmatch(r"(.+?)\s*(<=|>=|==)\s*(.+)", relation.strip())
    if not m:
        return False
    try:
        return sympy.simplify(parse_shape_expr(m.group(1)) - parse_shape_expr(m.group(3))) == 0
    except (ValueError, TypeError):
        return False


def _rename_text(text: str, names: dict[str, str]) -> str:
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: names.get(m.group(0), m.group(0)), text)


def write_contract(func, table, names: dict[str, str], signature: Signature | None) -> None:
    """Writes `table` (keyed by internal symbols, renamed by `names`) and `signature` onto `func`.

    `symhlo.result_shapes` (recorded by symhlo-torch-symbolic-to-shape over torch's symbols) is
    renamed too, and `symhlo.symbols` keeps the ranges of symbols only results mention.
    """
    from torch_mlir import ir

    with func.context, ir.Location.unknown():
        i64 = ir.IntegerType.get_signless(64)
        strs = lambda xs: ir.ArrayAttr.get([ir.StringAttr.get(x) for x in xs])  # noqa: E731
        symbols: dict[str, tuple[int, int]] = {}
        if "symhlo.symbols" in func.attributes:
            for named in ir.DictAttr(func.attributes["symhlo.symbols"]):
                if named.name in names or _valid_symbol(named.name):
                    lo, hi = (ir.IntegerAttr(x).value for x in ir.ArrayAttr(named.attr))
                    symbols[names.get(named.name, named.name)] = (lo, hi)
        for s, (lo, hi) in table.ranges.items():
            symbols[names.get(s, s)] = (lo, UNBOUNDED if hi is None else hi)
        func.attributes["symhlo.symbols"] = ir.DictAttr.get({
            n: ir.ArrayAttr.get([ir.IntegerAttr.get(i64, lo), ir.IntegerAttr.get(i64, min(hi, UNBOUNDED))])
            for n, (lo, hi) in symbols.items()})
        func.attributes["symhlo.arg_names"] = strs([i.name for i in table.inputs])
        func.attributes["symhlo.arg_shapes"] = ir.ArrayAttr.get(
            [strs([_render(e, names) for e in i.shape]) for i in table.inputs])
        if "symhlo.result_shapes" in func.attributes:
            func.attributes["symhlo.result_shapes"] = ir.ArrayAttr.get(
                [strs([_tidy(_rename_text(ir.StringAttr(x).value, names)) for x in ir.ArrayAttr(r)])
                 for r in ir.ArrayAttr(func.attributes["symhlo.result_shapes"])])
        func.attributes["symhlo.relations"] = strs(
            [_rename_text(r, names) for r in table.relations if not _trivial(r)])
        if signature is not None:
            func.attributes["symhlo.signature"] = to_attr(signature.to_json())


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
    """The SymbolTable (with its `signature`) that `func`'s attributes describe.

    Works on any `func.func` (a torch_mlir.ir op): attributes symhlo did not write are read as
    "every `?` axis its own unbounded symbol `<arg>_dim<axis>`", with arguments named arg0, ...

    Raises:
      CompileError: a malformed attribute (the file's data is parsed, never evaluated).
    """
    from torch_mlir import ir

    from .dims import InputSpec, SymbolTable, parse_relation, parse_shape_expr

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
                       for a in ir.ArrayAttr(attrs["symhlo.arg_shapes"])]
                      if "symhlo.arg_shapes" in attrs else [])
    except (ValueError, TypeError):
        raise CompileError("@main: symhlo.arg_shapes must be an array of arrays of strings") from None
    ranges: dict[str, tuple[int, int | None]] = {}
    if "symhlo.symbols" in attrs:
        try:
            for named in ir.DictAttr(attrs["symhlo.symbols"]):
                lo, hi = (ir.IntegerAttr(x).value for x in ir.ArrayAttr(named.attr))
                ranges[named.name] = (lo, None if hi >= 2**62 else hi)
        except (ValueError, TypeError):
            raise CompileError("@main: symhlo.symbols must map names to [min, max]") from None
    arg_names = strings("symhlo.arg_names") or []
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
    relations = strings("symhlo.relations") or []
    for r in relations:
        try:
            parse_relation(r)
        except ValueError as err:
            raise CompileError(f"@main: bad symhlo.relations entry: {err}") from None
    used = {str(s) for i in inputs for e in i.shape if not isinstance(e, int) for s in e.free_symbols}
    table = SymbolTable(inputs, {s: r for s, r in ranges.items() if s in used}, None, relations)
    if "symhlo.signature" in attrs:
        try:
            table.signature = Signature.from_json(from_attr(attrs["symhlo.signature"]))
        except (ValueError, TypeError, KeyError) as err:
            raise CompileError(f"@main: bad symhlo.signature: {err}") from None
        if table.signature.num_tensors != len(inputs):
            raise CompileError(f"@main: symhlo.signature names {table.signature.num_tensors} tensor "
                               f"argument(s), the function takes {len(inputs)}")
    return table


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
