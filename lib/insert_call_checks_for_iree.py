"""symhlo-insert-call-checks-for-iree: the call contract on `@main` -> checks compiled into the
IREE module, so that every IREE host (iree-run-module, the C API, another language) refuses a call
outside it, with a message naming the input, the axis, the value and the limit.

symhlo's runtime checks a call before it runs (symhlo.ShapeError), but a `.vmfb` run from another
host has only what is compiled in, and IREE trusts the sizes it is given: a shared dim that
disagrees between inputs reads past the smaller buffer. This pass renames the StableHLO `@main`
to a private `@symhlo_checked_main` and adds a public `@main` taking `!hal.buffer_view`s whose
`hal.tensor.import` states the sizes each input must have. IREE's import asserts rank, element
type and every dim against them at run time, and prints the expected and actual value:

    func.func @main(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {
        symhlo.symbols = {n = [1, 100]}, symhlo.arg_names = ["x", "y"],
        symhlo.arg_shapes = [["n", "4"], ["2*n", "4"]], symhlo.relations = ["n != 7"]} { ... }
  ==>
    func.func private @symhlo_checked_main(%x: tensor<?x4xf32>, %y: ...) ... { ... }
    func.func @main(%vx: !hal.buffer_view, %vy: !hal.buffer_view) -> !hal.buffer_view
        attributes {iree.reflection = {symhlo.declaration = "sync func @main(%input0: ...) ...",
                                       symhlo.contract = "func.func private @main(...) attributes {...}"}} {
      %d0 = hal.buffer_view.dim<%vx>[0]
      %n = arith.minsi (arith.maxsi %d0, 1), 100          // n = x axis 0, clamped to its range
      %x = hal.tensor.import %vx "symhlo contract: x axis 0 = n, n in [1, 100]; ..." {%n}
      %y = hal.tensor.import %vy "symhlo contract: y axis 0 = 2*n, ..." {2 * %n}
      cf.assert (%n != 7), "symhlo contract: n != 7 must hold (n from x axis 0)"
      %r = call @symhlo_checked_main(%x, %y)
      return hal.tensor.export %r "output0" {tensor.dim %r, 0}

A symbol takes its value from the first axis that is the symbol itself (else from one that is
`a*s + b`: `s = (d - b) floordiv a`), clamped to its range; an axis out of range, a shared dim
that differs, or an odd size for `2*h` then mismatches the size the import expects:
`x: ...; shape dimension 0 mismatch; expected 100 but have 101`. The other relations
(`symhlo.relations`, torch.export's guards such as `2*h <= n`) become a `hal.buffer_view.assert`
of the axis that is their symbol (`n` of `y` axis 0 must be max(n, 2*h): `expected 10 but have
8`), or, when no side is an input axis (or for `!=`), a `cf.assert` naming the relation. The portable
StableHLO artifact is not touched: this runs only in the IREE preparation.

`symhlo.declaration` keeps the tensor declaration IREE would have recorded (with `f64` as `f32`
under `demote-f64`), `symhlo.contract` the original `@main`'s signature and contract attributes:
symhlo's own runtime reads both from a `.vmfb`. Size expressions and relations are read by
size_exprs.parse / parse_comparison (the one parser of the contract's text); one outside what is
compiled here (+, -, *, //, %, Max, Min, floor, ceiling, / by a positive constant, over symbols and
integers; one comparison per relation) is listed in the reflection's `symhlo.unchecked` instead; symhlo's runtime still checks it. Functions without the contract
attributes (StableHLO from other exporters) are left as they are but for the reflection's
`symhlo.contract` (their declaration and any exporter's shape assertions), so that a `.vmfb`
always carries what symhlo.load reads its call contract from:

    func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> { ... }
  ==>
    func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> attributes {iree.reflection = {
        symhlo.contract = "func.func private @main(tensor<?xf32>) -> (tensor<?xf32>) attributes {}"}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder
from .registry import Pass
from .contract_attrs import (ARG_NAMES, ARG_SHAPES, CONTRACT_ATTRS, RELATIONS, VMFB_CONTRACT,
                             VMFB_DECLARATION, VMFB_UNCHECKED, symbol_ranges)
from .size_exprs import key, parse, parse_comparison, symbols
from .size_facts import main_function

CHECKED_MAIN = "symhlo_checked_main"
# The operations of size_exprs' text form compiled here (not `pow`), and the comparisons.
_COMPILED = {"sym", "add", "sub", "mul", "truediv", "floordiv", "mod", "neg", "max", "min",
             "floor", "ceiling"}
_CALLS = {"max": "arith.maxsi", "min": "arith.minsi"}
_COMPARE = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}


class _Unsupported(Exception):
    """An expression outside the grammar this pass compiles."""


def _parse(text: str, comparison: bool = False):
    """`text` (a size expression, or one comparison of two) as size_exprs' tree, when every
    operation in it is one this pass compiles."""
    try:
        tree = (parse_comparison if comparison else parse)(text.replace(" mod ", " % "))
    except ValueError:
        raise _Unsupported(text) from None
    stack = [tree[1:]] if comparison else [[tree]]
    while stack:
        for e in stack.pop():
            if isinstance(e, list):
                if e[0] not in _COMPILED:
                    raise _Unsupported(text)
                if e[0] != "sym":
                    stack.append(e[1:])
    return tree


def _is_symbol(e) -> bool:
    return isinstance(e, list) and e[0] == "sym"


def _linear(e, s: str) -> tuple[int, int] | None:
    """(a, b) with e == a*s + b, when it is that form over one symbol s."""
    if isinstance(e, int):
        return 0, e
    if e[0] == "sym":
        return (1, 0) if e[1] == s else None
    if e[0] == "neg":
        f = _linear(e[1], s)
        return None if f is None else (-f[0], -f[1])
    if e[0] in ("add", "sub", "mul"):
        l, r = _linear(e[1], s), _linear(e[2], s)
        if l is None or r is None:
            return None
        if e[0] == "add":
            return l[0] + r[0], l[1] + r[1]
        if e[0] == "sub":
            return l[0] - r[0], l[1] - r[1]
        if l[0] and r[0]:
            return None
        return l[0] * r[1] + r[0] * l[1], l[1] * r[1]
    return None


class _Evaluator:
    """Builds index arithmetic for size expressions (size_exprs trees) over the bound symbols.

    sympy spells `h // 2` as `floor(h/2)` and `(h + 1) // 2` as `floor(h/2 + 1/2)`: values are
    built as (numerator, denominator) pairs, exact rationals with an integer denominator, and
    `floor` / `ceiling` divide once; an expression whose value is not an integer is refused."""

    def __init__(self, b: OpBuilder, values: dict[str, ir.Value]):
        self.b, self.values = b, values

    def __call__(self, e) -> ir.Value:
        v, den = self.frac(e)
        if den != 1:
            raise _Unsupported(key(e))
        return v

    def frac(self, e) -> tuple[ir.Value, int]:
        b = self.b
        if isinstance(e, int):
            return b.const_index(e), 1
        op, args = e[0], e[1:]
        if op == "sym":
            return self.values[args[0]], 1
        if op == "neg":
            v, d = self.frac(args[0])
            return b.index_op("arith.subi", b.const_index(0), v), d
        if op == "truediv":
            if not (isinstance(args[1], int) and args[1] > 0):
                raise _Unsupported(key(e))
            v, d = self.frac(args[0])
            return v, d * args[1]
        if op in ("add", "sub", "mul"):
            (x, dx), (y, dy) = self.frac(args[0]), self.frac(args[1])
            if op == "mul":
                return b.index_op("arith.muli", x, y), dx * dy
            scale = lambda v, k: v if k == 1 else b.index_op("arith.muli", v, b.const_index(k))  # noqa: E731
            return b.index_op("arith.addi" if op == "add" else "arith.subi", scale(x, dy), scale(y, dx)), dx * dy
        if op in ("floor", "ceiling"):
            v, d = self.frac(args[0])
            if d == 1:
                return v, 1
            div = "arith.floordivsi" if op == "floor" else "arith.ceildivsi"
            return b.index_op(div, v, b.const_index(d)), 1
        if op in ("floordiv", "mod", "max", "min"):   # integer operands
            return self.integer_op(op, self(args[0]), self(args[1])), 1
        if op in _COMPARE:
            return b.cmpi(_COMPARE[op], self(args[0]), self(args[1])), 1
        raise _Unsupported(key(e))

    def integer_op(self, name: str, x: ir.Value, y: ir.Value) -> ir.Value:
        """max / min / floor division / Python's (floor) modulo of two integers."""
        b = self.b
        if name in _CALLS:
            return b.index_op(_CALLS[name], x, y)
        q = b.index_op("arith.floordivsi", x, y)
        if name == "floordiv":
            return q
        return b.index_op("arith.subi", x, b.index_op("arith.muli", y, q))   # mod: x - y*floor(x/y)


def _strings(func: ir.Operation, name: str) -> list:
    if name not in func.attributes:
        return []
    return [ir.StringAttr(s).value for s in ir.ArrayAttr(func.attributes[name])]


def _demoted(t: ir.Type, demote_f64: bool) -> ir.Type:
    """`t` with f64 elements as f32 under IREE's f64 demotion, which converts the import's and
    export's tensor types but not their encodings (the sizes the buffer view must have)."""
    if demote_f64 and isinstance(t, ir.RankedTensorType) and isinstance(t.element_type, ir.F64Type):
        return ir.RankedTensorType.get(t.shape, ir.F32Type.get())
    return t


def _signless(t: ir.Type) -> ir.Type:
    """`t` with unsigned integer elements as signless ones of the same width. IREE 3.13 cannot
    legalize a hal.tensor.import/export of a `ui8` tensor ('failed to legalize operation'): the
    entry imports `i8` (the encoding, the buffer view's element type, stays `ui8`) and
    bitcast_converts it to `ui8`, and back before the export:

      %x = hal.tensor.import %v : !hal.buffer_view -> tensor<?xi8> as tensor<?xui8>
      %u = stablehlo.bitcast_convert %x : (tensor<?xi8>) -> tensor<?xui8>
    """
    if isinstance(t, ir.RankedTensorType) and isinstance(t.element_type, ir.IntegerType) \
            and ir.IntegerType(t.element_type).is_unsigned:
        return ir.RankedTensorType.get(t.shape, ir.IntegerType.get_signless(ir.IntegerType(t.element_type).width))
    return t


def _declaration(ftype: ir.FunctionType, demote_f64: bool) -> str:
    ins = ", ".join(f"%input{k}: {_demoted(t, demote_f64)}" for k, t in enumerate(ftype.inputs))
    outs = ", ".join(f"%output{k}: {_demoted(t, demote_f64)}" for k, t in enumerate(ftype.results))
    return f"sync func @main({ins}) -> ({outs})"



def _contract_text(main: ir.Operation) -> str:
    """`main`'s declaration with its `symhlo.*` attributes, as text (the reflection's
    `symhlo.contract`): `func.func private @main(tensor<?x4xf32>) -> (...) attributes {...}`."""
    ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    return "func.func private @main(" + ", ".join(str(t) for t in ftype.inputs) + ") -> (" + \
        ", ".join(str(t) for t in ftype.results) + ") attributes {" + ", ".join(
            f"{a.name} = {a.attr}" for a in (main.attributes[i] for i in range(len(main.attributes)))
            if a.name.startswith("symhlo.")) + "}"

@dataclass(frozen=True)
class InsertCallChecksForIree(Pass):
    """The contract on @main -> a buffer-view @main whose imports and asserts check every call."""

    name = "symhlo-insert-call-checks-for-iree"
    summary = ("Wrap @main in a !hal.buffer_view entry whose hal.tensor.import sizes and cf.asserts "
               "check the contract (ranges, shared and derived dims, relations, rank, dtype)")
    demote_f64: bool = False

    def run(self, module: ir.Module) -> None:
        main = main_function(module)
        if main is None:
            return
        if not any(a in main.attributes for a in CONTRACT_ATTRS):
            # No contract to check: @main only records its declaration (and any exporter's
            # shape assertions), which symhlo's runtime reads back from the .vmfb.
            reflection = {a.name: a.attr for a in ir.DictAttr(main.attributes["iree.reflection"])} \
                if "iree.reflection" in main.attributes else {}
            with module.context:
                reflection[VMFB_CONTRACT] = ir.StringAttr.get(_contract_text(main))
                main.attributes["iree.reflection"] = ir.DictAttr.get(reflection)
            return
        ctx = module.context
        ctx.allow_unregistered_dialects = True   # hal's ops and types: IREE's, not torch-mlir's
        with ctx, main.location:
            self._wrap(module, main)

    @staticmethod
    def _relation_bound(node: list, plain_at: dict, values: dict, ev: "_Evaluator"):
        """((input, axis), the size that axis must have) for a relation `s OP e` (or `e OP s`)
        whose symbol s is an input axis itself and whose element type the assert can name;
        None for `!=` and for anything else (checked by a cf.assert instead)."""
        op, left, right = node
        flip = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq"}
        if op not in flip:
            return None
        for sym, other, rel in ((right, left, flip[op]), (left, right, op)):
            if not (_is_symbol(sym) and sym[1] in plain_at) or sym[1] in symbols(other):
                continue
            b, v, e = ev.b, values[sym[1]], ev(other)
            if rel == "eq":
                return plain_at[sym[1]], e
            shift = {"lt": -1, "gt": 1}.get(rel, 0)
            if shift:
                e = b.index_op("arith.addi", e, b.const_index(shift))
            clamp = "arith.minsi" if rel in ("lt", "le") else "arith.maxsi"
            return plain_at[sym[1]], b.index_op(clamp, v, e)
        return None

    def _wrap(self, module: ir.Module, main: ir.Operation) -> None:
        ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        contract = _contract_text(main)
        names = _strings(main, ARG_NAMES)
        shapes = [[ir.StringAttr(s).value for s in ir.ArrayAttr(a)]
                  for a in ir.ArrayAttr(main.attributes[ARG_SHAPES])] \
            if ARG_SHAPES in main.attributes else []
        ranges = symbol_ranges(main)
        relations = _strings(main, RELATIONS)

        main.attributes["sym_name"] = ir.StringAttr.get(CHECKED_MAIN)
        main.attributes["sym_visibility"] = ir.StringAttr.get("private")
        view = ir.Type.parse("!hal.buffer_view")
        new_type = ir.FunctionType.get([view] * len(ftype.inputs), [view] * len(ftype.results))
        reflection = {VMFB_DECLARATION: ir.StringAttr.get(_declaration(ftype, self.demote_f64)),
                      VMFB_CONTRACT: ir.StringAttr.get(contract)}
        ip = ir.InsertionPoint.at_block_begin(module.body)
        b0 = OpBuilder(ip=ip, loc=main.location)
        func = b0.create("func.func", [], [], {"sym_name": ir.StringAttr.get("main"),
                                               "function_type": ir.TypeAttr.get(new_type)}, regions=1)
        block = func.regions[0].blocks.append(*new_type.inputs)
        b = OpBuilder(ip=ir.InsertionPoint(block), loc=main.location)

        # Every input axis: its size as given, its size expression (None: static).
        tensor_types = [ir.RankedTensorType(t) for t in ftype.inputs]
        arg_name = [names[k] if k < len(names) and names[k] else f"input{k}"
                    for k in range(len(tensor_types))]
        axes = []   # (k, axis, expression text, parsed or None)
        unchecked: list[str] = []
        for k, t in enumerate(tensor_types):
            for axis, size in enumerate(t.shape):
                if not ir.ShapedType.is_dynamic_size(size):
                    continue
                text = shapes[k][axis] if k < len(shapes) and axis < len(shapes[k]) else ""
                try:
                    node = _parse(text) if text else None
                except _Unsupported:
                    node = None
                    unchecked.append(f"{arg_name[k]} axis {axis} = {text}")
                axes.append((k, axis, text, node))
        dims = {(k, axis): b.value("hal.buffer_view.dim", [ir.IndexType.get()], [block.arguments[k]],
                                   {"index": ir.IntegerAttr.get(ir.IndexType.get(), axis)})
                for k, axis, _, _ in axes}

        def clamp(v: ir.Value, s: str) -> ir.Value:
            lo, hi = ranges.get(s, (0, None))
            v = b.index_op("arith.maxsi", v, b.const_index(lo))
            return v if hi is None else b.index_op("arith.minsi", v, b.const_index(hi))

        values: dict[str, ir.Value] = {}
        where: dict[str, str] = {}
        plain_at: dict[str, tuple[int, int]] = {}   # symbol -> the axis that is the symbol itself
        for k, axis, text, node in axes:   # a symbol from an axis that is the symbol itself
            if _is_symbol(node) and node[1] not in values:
                values[node[1]] = clamp(dims[(k, axis)], node[1])
                where[node[1]] = f"{arg_name[k]} axis {axis}"
                plain_at[node[1]] = (k, axis)
        for k, axis, text, node in axes:   # else from one that is a*s + b
            free = symbols(node) - set(values) if node is not None else set()
            if len(free) == 1:
                s = free.pop()
                lin = _linear(node, s)
                if lin is not None and lin[0] > 0:
                    a, c = lin
                    q = b.index_op("arith.floordivsi",
                                   b.index_op("arith.subi", dims[(k, axis)], b.const_index(c)),
                                   b.const_index(a))
                    values[s] = clamp(q, s)
                    where[s] = f"{arg_name[k]} axis {axis}"
        ev = _Evaluator(b, values)

        def rule(text: str) -> str:
            syms = sorted(symbols(_parse(text)))
            parts = [f"{s} in [{ranges.get(s, (0, None))[0]}, "
                     f"{'inf' if ranges.get(s, (0, None))[1] is None else ranges[s][1]}]"
                     + (f" (from {where[s]})" if where.get(s) else "") for s in syms]
            return text + (f" with {', '.join(parts)}" if parts else "")

        tensors, import_types = [], []
        for k, t in enumerate(tensor_types):
            expected, rules = [], []
            for kk, axis, text, node in axes:
                if kk != k:
                    continue
                v = dims[(k, axis)]
                if node is not None and symbols(node) <= set(values):
                    try:
                        v = ev(node)
                        rules.append(f"axis {axis} = {rule(text)}")
                    except _Unsupported:   # (ops built before the refusal are left unused)
                        unchecked.append(f"{arg_name[k]} axis {axis} = {text}")
                elif node is not None:
                    unchecked.append(f"{arg_name[k]} axis {axis} = {text}")
                expected.append(v)
            message = f"symhlo contract: {arg_name[k]} {t}" + (f" ({'; '.join(rules)})" if rules else "") + ";"
            import_types.append(ir.RankedTensorType(_demoted(t, self.demote_f64)))
            imported = b.value("hal.tensor.import", [_signless(t)], [block.arguments[k], *expected], {
                "name": ir.StringAttr.get(message),
                "target_encoding": ir.TypeAttr.get(_demoted(t, self.demote_f64)),
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, len(expected), 0, 0])})
            if _signless(t) != t:
                imported = b.value("stablehlo.bitcast_convert", [t], [imported])
            tensors.append(imported)
        for text in relations:
            try:
                node = _parse(text, comparison=True)
                if not symbols(node) <= set(values):
                    raise _Unsupported(text)
                ok = ev(node)
            except _Unsupported:
                unchecked.append(text)
                continue
            origin = ", ".join(f"{s} from {where[s]}" for s in sorted(symbols(node)) if s in where)
            message = f"symhlo contract: {text} must hold" + (f" ({origin})" if origin else "")
            bound = self._relation_bound(node, plain_at, values, ev)
            if bound is None:
                b.create("cf.assert", [], [ok], {"msg": ir.StringAttr.get(message)})
                continue
            # The relation bounds an axis that is a symbol itself: assert that axis's size
            # against the bound, so the message carries the value and the limit
            # (`shape dimension 0 mismatch; expected 10 but have 8`).
            (k, axis), expected = bound
            t = import_types[k]
            shape = [expected if a == axis else (dims[(k, a)] if ir.ShapedType.is_dynamic_size(n)
                                                 else b.const_index(n)) for a, n in enumerate(t.shape)]
            elt = b.value("hal.element_type", [ir.IntegerType.get_signless(32)], [],
                          {"type": ir.TypeAttr.get(t.element_type)})
            enc = b.value("hal.encoding_type", [ir.IntegerType.get_signless(32)], [])
            b.create("hal.buffer_view.assert", [], [block.arguments[k], elt, enc, *shape],
                     {"message": ir.StringAttr.get(message + f"; {arg_name[k]} axis {axis}:")})
        if unchecked:
            reflection[VMFB_UNCHECKED] = ir.StringAttr.get(json.dumps(unchecked))
        func.attributes["iree.reflection"] = ir.DictAttr.get(reflection)

        call = b.create("func.call", list(ftype.results), tensors,
                        {"callee": ir.FlatSymbolRefAttr.get(CHECKED_MAIN)})
        outs = []
        for k, r in enumerate(call.results):
            t = ir.RankedTensorType(r.type)
            if _signless(t) != t:
                r = b.value("stablehlo.bitcast_convert", [_signless(t)], [r])
            sizes = [b.index_op("tensor.dim", r, b.const_index(a))
                     for a, s in enumerate(t.shape) if ir.ShapedType.is_dynamic_size(s)]
            outs.append(b.value("hal.tensor.export", [view], [r, *sizes], {
                "name": ir.StringAttr.get(f"output{k}"),
                "source_encoding": ir.TypeAttr.get(_demoted(t, self.demote_f64))}))
        b.create("func.return", [], outs)
