"""The symbolic dims of an exported program (floor 1, contract): names, ranges, bindings,
relations, and the checks.

torch.export describes every input axis as an integer or a sympy expression over symbols
(`s27`, `2*s95`) with `range_constraints`. `SymbolTable` keeps those expressions in the user's
spelling (Dim names) and checks a call's actual sizes before anything runs.
"""

from __future__ import annotations

import math
import operator
import re

from dataclasses import dataclass, field
from typing import Any, Sequence

import sympy

from symhlo.passes.contract_attrs import MAX_DIM_SIZE, is_unbounded
from symhlo.passes.size_exprs import (parse as parse_size_text, parse_comparison as parse_size_comparison,
                                      parse_relation as parse_relation_text)

from ..errors import ShapeError
from .shape_assertions import check as check_assertions


_STATIC, _SYM, _EXPR = 0, 1, 2


@dataclass
class Dim:
    """One symbolic size.

    Attributes:
      name: the user's name for it (a torch.export Dim name, a symhlo.Input dims name) or torch's.
      min, max: inclusive range; max None means unbounded.
      bindings: (input, axis) pairs whose size is exactly this symbol.
      derived: (input, axis, expression) triples whose size is an expression of it (`2*h`).
    """

    name: str
    min: int
    max: int | None
    bindings: list[tuple[str, int]] = field(default_factory=list)
    derived: list[tuple[str, int, str]] = field(default_factory=list)
    relations: list[str] = field(default_factory=list)  # `m <= n`: relations naming this symbol

    @property
    def unbounded(self) -> bool:
        return self.max is None

    def __repr__(self) -> str:
        hi = "inf" if self.max is None else self.max
        where = [f"{i}[{a}]" for i, a in self.bindings] + [f"{i}[{a}] = {e}" for i, a, e in self.derived]
        relations = "".join(f", {r}" for r in self.relations)
        return f"Dim({self.name}: [{self.min}, {hi}] at {', '.join(where) or '-'}{relations})"


@dataclass
class InputSpec:
    """One tensor input: its name, dtype, and per-axis int or sympy size expression."""

    name: str
    dtype: str
    shape: list[Any]  # int | sympy.Expr

    def shape_str(self, names: dict[str, str]) -> str:
        return "(" + ", ".join(_render(s, names) for s in self.shape) + ")"


def _render(e: Any, names: dict[str, str]) -> str:
    if isinstance(e, int):
        return str(e)
    return str(e.xreplace({s: sympy.Symbol(names.get(str(s), str(s))) for s in e.free_symbols}))


def linear_form(e, sym) -> tuple[int, int] | None:
    """(a, b) where e == a*sym + b with integer a != 0, b; else None."""
    try:
        p = sympy.Poly(e, sym)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded):
        return None
    if p.degree() != 1:
        return None
    a, b = (p.all_coeffs() + [0])[:2]
    if not (a.is_Integer and sympy.sympify(b).is_Integer) or a == 0:
        return None
    return int(a), int(b)


class SymbolTable:
    """Symbols, their ranges, and the input specs that bind them; checks actual shapes."""

    def __init__(self, inputs: list[InputSpec], ranges: dict[str, tuple[int, int | None]],
                 names: dict[str, str] | None = None, relations: Sequence[str] = ()):
        self.inputs = inputs
        self.ranges = ranges  # internal symbol name -> (min, max or None)
        self.names = dict(names or {})  # internal symbol name -> user's name
        for s in ranges:
            self.names.setdefault(s, s)
        # Relations torch.export proved the program needs beyond ranges (`s0 <= s1`), as text.
        self.relations = list(relations)
        self._relation_checks = [parse_relation(r) for r in self.relations]
        self._plan = None
        # How a call's (args, kwargs) bind to `inputs` (contract.signature.Signature), or None.
        self.signature = None
        # Exporter shape assertions checked after the rules above (symhlo.shape_assertions).
        self.assertions: list[dict] = []
        # torch.export guards on input sizes no relation could express (none is checked).
        self.unchecked_guards: list[str] = []
        # Messages of the checks only the data decides (symhlo.runtime_checks): @main's last
        # len(runtime_checks) results, 1 where the check holds.
        self.runtime_checks: list[str] = []

    def add_relations(self, relations: Sequence[str]) -> None:
        """Adds relations (over the internal symbol names) to check at call time."""
        for r in relations:
            if r not in self.relations:
                self.relations.append(r)
                self._relation_checks.append(parse_relation(r))
        self.invalidate()

    def invalidate(self) -> None:
        """Call after editing inputs/ranges/names in place: the check plan is rebuilt."""
        self._plan = None

    # -- description ----------------------------------------------------------------------------

    def dims(self) -> list[Dim]:
        """Each symbol with its range, bindings (input, axis) and derived expressions."""
        out: dict[str, Dim] = {}
        for s, (lo, hi) in self.ranges.items():
            out[s] = Dim(self.names.get(s, s), lo, hi)
        for spec in self.inputs:
            for axis, e in enumerate(spec.shape):
                if isinstance(e, int):
                    continue
                if isinstance(e, sympy.Symbol) and str(e) in out:
                    out[str(e)].bindings.append((spec.name, axis))
                else:
                    for s in sorted(e.free_symbols, key=str):
                        if str(s) in out:
                            out[str(s)].derived.append((spec.name, axis, _render(e, self.names)))
        for text, _, syms in self._relation_checks:
            for s in sorted(syms):
                if s in out:
                    out[s].relations.append(self.render(text))
        return sorted(out.values(), key=lambda d: (not d.bindings, d.name))

    def table(self) -> str:
        """The dims as a text table: symbol, min, max, binds, derived."""
        rows = [("symbol", "min", "max", "binds", "derived")]
        for d in self.dims():
            rows.append((d.name, str(d.min), "inf" if d.max is None else str(d.max),
                         ", ".join(f"{i}[{a}]" for i, a in d.bindings) or "-",
                         ", ".join(f"{i}[{a}] = {e}" for i, a, e in d.derived) or "-"))
        widths = [max(len(r[c]) for r in rows) for c in range(5)]
        lines = ["  ".join(r[c].ljust(widths[c]) for c in range(5)).rstrip() for r in rows]
        lines += [f"relation: {self.render(r)}" for r in self.relations]
        return "\n".join(lines)

    def describe(self) -> str:
        """`x (b, 16); y (2*h,)`: each input's shape in the user's names."""
        return "; ".join(f"{i.name} {i.shape_str(self.names)}" for i in self.inputs)

    # -- checking -------------------------------------------------------------------------------

    def _build_plan(self):
        plan = []
        for spec in self.inputs:
            axes = []
            for e in spec.shape:
                if isinstance(e, int):
                    axes.append((_STATIC, e))
                elif isinstance(e, sympy.Symbol):
                    axes.append((_SYM, str(e)))
                else:
                    syms = sorted(e.free_symbols, key=str)
                    lin = linear_form(e, syms[0]) if len(syms) == 1 else None
                    axes.append((_EXPR, e, [str(s) for s in syms], lin, _render(e, self.names)))
            plan.append((spec.name, spec.dtype, len(spec.shape), axes))
        self._plan = plan
        return plan

    def check(self, shapes: Sequence[Sequence[int]], dtypes: Sequence[str] | None = None) -> dict[str, int]:
        """Checks actual input shapes (and dtypes) before anything runs.

        Args:
          shapes: one shape per tensor input, in order.
          dtypes: optional dtype names ("float32") per input.
        Returns:
          the value of each symbol, keyed by internal name.
        Raises:
          ShapeError: naming the input, the axis, the value and the rule it breaks.
        """
        plan = self._plan or self._build_plan()
        if len(shapes) != len(plan):
            raise ShapeError(f"expected {len(plan)} tensor input(s) "
                             f"({', '.join(p[0] for p in plan)}), got {len(shapes)}")
        values: dict[str, int] = {}
        where: dict[str, tuple] = {}
        pending = []
        for k, ((name, dtype, rank, axes), shape) in enumerate(zip(plan, shapes)):
            if dtypes is not None and dtypes[k] != dtype:
                raise ShapeError(f"{name}: dtype is {dtypes[k]}, expected {dtype}")
            if len(shape) != rank:
                raise ShapeError(f"{name}: rank is {len(shape)}, expected {rank} "
                                 f"(shape {self.inputs[k].shape_str(self.names)})")
            for axis, (ax, v) in enumerate(zip(axes, shape)):
                if v > MAX_DIM_SIZE:
                    raise ShapeError(f"{name}: axis {axis} is {v}, above {MAX_DIM_SIZE} (2**31 - 1), the "
                                     "largest size a compiled symhlo program can take (sizes are read "
                                     "as i32 by stablehlo.get_dimension_size)")
                kind = ax[0]
                if kind == _STATIC:
                    if v != ax[1]:
                        raise ShapeError(f"{name}: axis {axis} is {v}, expected {ax[1]} (static)")
                elif kind == _SYM:
                    s = ax[1]
                    if s in values:
                        if values[s] != v:
                            oi, oa = where[s][:2]
                            raise ShapeError(
                                f"{name}: axis {axis} is {v}, but {oi}: axis {oa} is {values[s]}; "
                                f"both are '{self.names.get(s, s)}' and must be equal")
                    else:
                        values[s] = v
                        where[s] = (name, axis, None)
                else:
                    pending.append((name, axis, v, ax))
        # Solve derived sizes (2*h, h+1) for symbols bound nowhere directly.
        progress = True
        while progress:
            progress = False
            for name, axis, v, (_, e, syms, lin, text) in pending:
                unknown = [s for s in syms if s not in values]
                if len(unknown) != 1:
                    continue
                s = unknown[0]
                if lin is not None:
                    q, r = divmod(v - lin[1], lin[0])
                    sol = None if r else q
                else:
                    sols = [x for x in sympy.solve(sympy.Eq(e.xreplace(
                        {x: values[str(x)] for x in e.free_symbols if str(x) in values}), v),
                        [x for x in e.free_symbols if str(x) == s][0]) if x.is_integer]
                    sol = int(sols[0]) if sols else None
                if sol is None:
                    raise ShapeError(f"{name}: axis {axis} is {v}, but must be {text} "
                                     f"for some integer {self.names.get(s, s)}")
                values[s] = sol
                where[s] = (name, axis, v)
                progress = True
        for s, v in values.items():
            lo, hi = self.ranges.get(s, (0, None))
            if v >= lo and (hi is None or v <= hi):
                continue
            user = self.names.get(s, s)
            i, a, derived_from = where[s]
            subject = (f"{i}: axis {a} is {v}" if derived_from is None else
                       f"{i}: axis {a} is {derived_from}, so {user} = {v}")
            if v < lo:
                raise ShapeError(f"{subject}, below min {lo} of '{user}'")
            raise ShapeError(f"{subject}, above max {hi} of '{user}'")
        for name, axis, v, (_, e, syms, lin, text) in pending:
            if lin is not None and syms[0] in values:
                want = lin[0] * values[syms[0]] + lin[1]
            else:
                got = e.xreplace({x: values[str(x)] for x in e.free_symbols if str(x) in values})
                if not got.is_number:
                    continue
                want = int(got)
            if want != v:
                given = ", ".join(f"{self.names.get(s, s)} = {values[s]} from "
                                  f"{where[s][0]}: axis {where[s][1]}" for s in syms if s in values)
                raise ShapeError(f"{name}: axis {axis} is {v}, but must be {text} = {want} ({given})")
        for text, holds, syms in self._relation_checks:
            if all(x in values for x in syms) and not holds(values):
                given = ", ".join(f"{self.names.get(x, x)} = {values[x]} from {where[x][0]}: axis "
                                  f"{where[x][1]}" for x in sorted(syms))
                raise ShapeError(f"the shapes break '{self.render(text)}', which the exported "
                                 f"program relies on ({given})")
        if self.assertions:
            check_assertions(self.assertions, shapes)
        return values

    def render(self, text: str) -> str:
        """A relation or expression over internal symbols, in the user's names."""
        return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: self.names.get(m.group(0), m.group(0)), text)

    # -- combining ------------------------------------------------------------------------------

    @classmethod
    def union(cls, tables: Sequence["SymbolTable"]) -> "SymbolTable":
        """One table accepting what any of `tables` accepts (same inputs): for describing profiles.

        Axes static and equal in every table stay static; others become the symbol of the
        first table where they are symbolic (by its user name), with the union of the ranges.
        """
        first = tables[0]
        inputs, ranges, names = [], {}, {}
        for k, spec in enumerate(first.inputs):
            shape = []
            for axis in range(len(spec.shape)):
                entries = [(t, t.inputs[k].shape[axis]) for t in tables]
                if all(isinstance(e, int) for _, e in entries) and len({e for _, e in entries}) == 1:
                    shape.append(entries[0][1])
                    continue
                sym_name = next((t.names.get(str(e), str(e)) for t, e in entries
                                 if isinstance(e, sympy.Symbol)), f"{spec.name}_{axis}")
                lo, hi, unbounded = None, None, False
                for t, e in entries:
                    if isinstance(e, int):
                        elo, ehi = e, e
                    elif isinstance(e, sympy.Symbol):
                        elo, ehi = t.ranges.get(str(e), (0, None))
                    else:
                        elo, ehi = 0, None
                    lo = elo if lo is None else min(lo, elo)
                    unbounded = unbounded or ehi is None
                    hi = ehi if hi is None else max(hi, ehi or 0)
                if sym_name in ranges:
                    plo, phi = ranges[sym_name]
                    lo = min(lo, plo)
                    unbounded = unbounded or phi is None
                    hi = max(hi, phi or 0)
                ranges[sym_name] = (lo, None if unbounded else hi)
                names[sym_name] = sym_name
                shape.append(sympy.Symbol(sym_name, integer=True, positive=True))
            inputs.append(InputSpec(spec.name, spec.dtype, shape))
        table = cls(inputs, ranges, names)
        table.signature = first.signature
        return table


def _sympy_ops() -> dict:
    import operator

    return {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
            "truediv": operator.truediv, "neg": operator.neg, "pow": operator.pow,
            "floordiv": lambda a, b: sympy.floor(a / b), "mod": sympy.Mod,
            "max": sympy.Max, "min": sympy.Min, "floor": sympy.floor, "ceiling": sympy.ceiling}


_SYMPY_OPS = _sympy_ops()


def parse_shape_expr(text: str) -> sympy.Expr:
    """A size expression written by symhlo (`2*s0 + 1`, `(s0//2)`, `Mod(s0, 8)`) -> sympy, without eval.

    Saved modules and .mlir files carry these strings, so they are data: the one parser of
    their grammar, symhlo.passes.size_exprs.parse, reads them (sympy.sympify would eval the text
    as Python, running whatever a crafted file puts there), and its tree is built here as sympy
    over positive integer symbols.

    Raises:
      ValueError: text outside the grammar.
    """
    return _to_sympy(parse_size_text(text), text)


def _to_sympy(tree, text: str) -> sympy.Expr:
    """size_exprs' tree of a size expression -> sympy over positive integer symbols."""
    def build(e):
        if isinstance(e, int):
            return sympy.Integer(e)
        if e[0] == "sym":
            return sympy.Symbol(e[1], integer=True, positive=True)
        return _SYMPY_OPS[e[0]](*[build(x) for x in e[1:]])

    try:
        return build(tree)
    except RecursionError:
        raise ValueError(f"size expression nested too deeply: {text[:80]!r}") from None


def exact_evaluator(expr: sympy.Expr):
    """A size expression -> `f(values) -> int`, computed exactly on ints (Fractions where the
    expression has a rational constant), without sympy at call time: a relation is checked on
    every call, and sympy's xreplace takes ~1 ms.

    Reads Integer / Rational / Symbol, + and * (Add, Mul), small integer powers, floor, ceiling,
    Mod, Max, Min; an expression with anything else is evaluated by sympy.
    """
    import math
    from fractions import Fraction

    def build(e):
        if e.is_Integer or e.is_Rational:
            c = int(e.p) if int(e.q) == 1 else Fraction(int(e.p), int(e.q))
            return lambda env: c
        if e.is_Symbol:
            name = str(e)
            return lambda env: env[name]
        parts = [build(a) for a in e.args]
        if isinstance(e, sympy.Add):
            return lambda env: sum(p(env) for p in parts)
        if isinstance(e, sympy.Mul):
            return lambda env: math.prod(p(env) for p in parts)
        if isinstance(e, sympy.Pow) and e.exp.is_Integer and 0 <= int(e.exp) <= 8:
            base, k = parts[0], int(e.exp)
            return lambda env: base(env) ** k
        if isinstance(e, sympy.floor):
            return lambda env: math.floor(parts[0](env))
        if isinstance(e, sympy.ceiling):
            return lambda env: math.ceil(parts[0](env))
        name = type(e).__name__
        if isinstance(e, sympy.Mod) or name in ("PythonMod", "Mod"):
            return lambda env: parts[0](env) % parts[1](env)
        if name in ("FloorDiv", "CleanDiv") and len(parts) == 2:
            return lambda env: math.floor(Fraction(parts[0](env)) / parts[1](env))
        if name == "CeilDiv" and len(parts) == 2:
            return lambda env: math.ceil(Fraction(parts[0](env)) / parts[1](env))
        if isinstance(e, (sympy.Max, sympy.Min)) or name in ("Max", "Min"):
            # torch's own Max / Min (torch.utils._sympy.functions) are no sympy.Max subclass
            pick = max if isinstance(e, sympy.Max) or name == "Max" else min
            return lambda env: pick(p(env) for p in parts)
        raise ValueError(type(e).__name__)

    try:
        fn = build(expr)
    except (ValueError, TypeError, AttributeError):
        return lambda env: int(expr.xreplace({x: env[str(x)] for x in expr.free_symbols}))

    return lambda env: int(fn(env))   # int() truncates a non-integer, as int(sympy value) does


def exact_condition(cond):
    """A sympy condition (a comparison of size expressions, And / Or / Not of them, true /
    false) -> `f(values) -> bool`, evaluated with exact_evaluator; None for anything else."""
    import operator

    cmps = {sympy.Eq: operator.eq, sympy.Ne: operator.ne, sympy.Lt: operator.lt,
            sympy.Le: operator.le, sympy.Gt: operator.gt, sympy.Ge: operator.ge}
    if cond in (sympy.true, True):
        return lambda env: True
    if cond in (sympy.false, False):
        return lambda env: False
    for kind, op in cmps.items():
        if isinstance(cond, kind):
            a, b = exact_evaluator(cond.lhs), exact_evaluator(cond.rhs)
            return lambda env: op(a(env), b(env))
    if isinstance(cond, (sympy.And, sympy.Or)):
        parts = [exact_condition(c) for c in cond.args]
        if any(p is None for p in parts):
            return None
        if isinstance(cond, sympy.And):
            return lambda env: all(p(env) for p in parts)
        return lambda env: any(p(env) for p in parts)
    if isinstance(cond, sympy.Not):
        inner = exact_condition(cond.args[0])
        return None if inner is None else (lambda env: not inner(env))
    return None


# Functions torch.export's guard code calls on sizes (size_exprs.GUARD_CALLS), evaluated with
# Python's own semantics.
_GUARD_FUNCS = {"math.trunc": math.trunc, "math.floor": math.floor, "math.ceil": math.ceil,
                "torch.sym_float": float, "float": float, "int": int, "abs": abs,
                "max": max, "min": min, "torch.sym_max": max, "torch.sym_min": min}
_NUMBER_OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
               "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod}
_COMPARE = {"lt": operator.lt, "le": operator.le, "eq": operator.eq, "ne": operator.ne,
            "gt": operator.gt, "ge": operator.ge}


def python_number_evaluator(tree, syms: set):
    """A guard's number expression (size_exprs.parse_relation's ["number", tree]) -> `f(values)`,
    evaluated with Python's int and float arithmetic (what torch's guard code computes at call
    time); the symbols it reads are added to `syms`."""
    if type(tree) in (int, float):
        return lambda env: tree
    op, args = tree[0], tree[1:]
    if op == "sym":
        syms.add(args[0])
        return lambda env: env[args[0]]
    if op == "neg":
        inner = python_number_evaluator(args[0], syms)
        return lambda env: -inner(env)
    if op == "pow":
        a, k = python_number_evaluator(args[0], syms), args[1]
        return lambda env: a(env) ** k
    if op == "call":
        fn, parts = _GUARD_FUNCS[args[0]], [python_number_evaluator(x, syms) for x in args[1:]]
        return lambda env: fn(*[p(env) for p in parts])
    a, b, fn = python_number_evaluator(args[0], syms), python_number_evaluator(args[1], syms), _NUMBER_OPS[op]
    return lambda env: fn(a(env), b(env))


def parse_relation(text: str):
    """`s0 <= s1 and s2 % 2 == 0` -> (text, holds(values) -> bool, symbol names), without eval.

    Only comparisons joined by and / or / not, of size expressions (parse_shape_expr's grammar)
    or of the float expressions torch.export guards with (`math.trunc(1.7 * torch.sym_float(s0))
    == 6`), as symhlo.passes.size_exprs.parse_relation reads them: a size expression is
    evaluated exactly on ints, a float guard with Python's own arithmetic.

    Raises:
      ValueError: anything else.
    """
    syms: set[str] = set()

    def side(t):
        if isinstance(t, list) and t[0] == "number":
            return python_number_evaluator(t[1], syms)
        e = _to_sympy(t, text)
        syms.update(str(x) for x in e.free_symbols)
        return exact_evaluator(e)

    def build(t):
        op = t[0]
        if op in ("and", "or"):
            a, b = build(t[1]), build(t[2])
            return (lambda env: a(env) and b(env)) if op == "and" else (lambda env: a(env) or b(env))
        if op == "not":
            inner = build(t[1])
            return lambda env: not inner(env)
        a, b, cmp = side(t[1]), side(t[2]), _COMPARE[op]
        return lambda env: cmp(a(env), b(env))

    holds = build(parse_relation_text(text))
    return text, holds, frozenset(syms)


# A guard's size reference: `L['x'].size()[0]`, or inside a list / tuple / dict argument
# `L['tensors'][1].size()[0]`, `L['inputs']['mask'].size()[1]`.
_GUARD_SIZE = re.compile(r"L\['([^']+)'\]((?:\[(?:\d+|'[^']*')\])*)\.size\(\)\[(\d+)\]")


def _placeholder_name(root: str, path: str) -> str:
    """torch.export's placeholder name for the input at `L[root]<path>`: the root and each list
    index or dict key joined by `_` (`L['tensors'][1]` -> `tensors_1`)."""
    keys = re.findall(r"\[(\d+|'[^']*')\]", path)
    return "_".join([root] + [k.strip("'") for k in keys])


def relations_from_guards(ep, inputs: list[InputSpec], unparsed: list | None = None) -> list[str]:
    """torch.export's input guards (`L['x'].size()[0] <= L['y'].size()[0]`) over symbols.

    Guards that read anything but sizes of tensor inputs are left out (and so never checked).
    A guard on sizes that parse_relation cannot read is appended to `unparsed` (the caller
    refuses the program: it would run unchecked where the guard fails).
    """
    by_name = {i.name: i for i in inputs}
    out = []
    for guard in getattr(ep, "_guards_code", None) or []:
        bad = False

        def size(m):
            nonlocal bad
            spec = by_name.get(_placeholder_name(m.group(1), m.group(2)))
            axis = int(m.group(3))
            if spec is None or axis >= len(spec.shape):
                bad = True
                return "0"
            e = spec.shape[axis]
            return str(e) if isinstance(e, (int, sympy.Symbol)) else f"({e})"

        text = re.sub(_GUARD_SIZE, size, guard)
        if bad or "L[" in text:
            continue
        try:
            _, _, syms = parse_relation(text)
        except ValueError:
            if unparsed is not None:
                unparsed.append(guard)
            continue
        text = simplify_relation(text)
        if syms and text is not None and text not in out:
            out.append(text)
    return out


def simplify_relation(text: str) -> str | None:
    """`((2*h) // 2) <= (2*h)` -> None (it holds for every size); `(2*h) - ((2*h) // 2) != 1` -> `h != 1`.

    One comparison of size expressions is rewritten in sympy's normal form over non-negative
    integer symbols; a comparison sympy decides as always true is dropped (None). Anything else
    (and/or/not, chained comparisons) is returned unchanged.
    """
    try:
        op, *trees = parse_size_comparison(text)
        sides = [_to_sympy(t, text) for t in trees]
    except ValueError:
        return text
    syms = {x for e in sides for x in e.free_symbols}
    nonneg = {x: sympy.Symbol(str(x), integer=True, nonnegative=True) for x in syms}
    lhs, rhs = (e.xreplace(nonneg) for e in sides)
    rel = {"lt": sympy.Lt, "le": sympy.Le, "eq": sympy.Eq, "ne": sympy.Ne, "gt": sympy.Gt,
           "ge": sympy.Ge}[op](lhs, rhs)
    if rel is sympy.true:
        return None
    if rel is sympy.false or not isinstance(rel, sympy.core.relational.Relational):
        return text  # never true: keep it as written, so the check reports it
    return f"{rel.lhs} {_op_of(rel)} {rel.rhs}"


def _op_of(rel) -> str:
    return {sympy.StrictLessThan: "<", sympy.LessThan: "<=", sympy.Equality: "==",
            sympy.Unequality: "!=", sympy.StrictGreaterThan: ">", sympy.GreaterThan: ">="}[type(rel)]


def from_exported_program(ep, user_names: dict[str, str] | None = None) -> SymbolTable:
    """Builds the symbol table of `ep`'s user tensor inputs.

    Args:
      ep: a torch.export.ExportedProgram.
      user_names: internal symbol (s27) -> the user's name for it.
    Returns:
      a SymbolTable.
    """
    import torch

    sig = ep.graph_signature
    user_inputs = set(sig.user_inputs)
    inputs: list[InputSpec] = []
    for node in ep.graph.nodes:
        if node.op != "placeholder" or node.name not in user_inputs:
            continue
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            continue
        shape = []
        for s in val.shape:
            if isinstance(s, torch.SymInt):
                e = s.node.expr
                shape.append(int(e) if e.is_number else e)
            else:
                shape.append(int(s))
        inputs.append(InputSpec(node.name, str(val.dtype).replace("torch.", ""), shape))
    ranges: dict[str, tuple[int, int | None]] = {}
    for sym, vr in ep.range_constraints.items():
        if not isinstance(sym, sympy.Symbol):
            continue
        # torch's int_oo claims is_finite; only a sympy Integer is a real bound.
        lo = int(vr.lower) if isinstance(vr.lower, sympy.Integer) else 0
        hi = int(vr.upper) if isinstance(vr.upper, sympy.Integer) and not is_unbounded(int(vr.upper)) else None
        ranges[str(sym)] = (lo, hi)
    used = {str(s) for i in inputs for e in i.shape if not isinstance(e, int) for s in e.free_symbols}
    ranges = {s: r for s, r in ranges.items() if s in used}
    unparsed: list[str] = []
    table = SymbolTable(inputs, ranges, user_names, relations_from_guards(ep, inputs, unparsed))
    table.unchecked_guards = unparsed
    return table


def user_names(ep, dynamic_shapes, args=(), kwargs=None) -> dict[str, str]:
    """Maps ep's internal symbols (s27) to the user's Dim names, following `dynamic_shapes`.

    Args:
      ep: the ExportedProgram.
      dynamic_shapes: what the user passed to torch.export (tuple/list/dict, Dims, derived dims).
    Returns:
      {internal symbol: user name}.
    """
    import inspect

    if dynamic_shapes is None:
        return {}
    specs: list = []
    if isinstance(dynamic_shapes, dict):
        try:
            params = list(inspect.signature(ep.module().forward).parameters)
        except (TypeError, ValueError):
            params = list(dynamic_shapes)
        specs = [dynamic_shapes.get(p) for p in params if p in dynamic_shapes]
    else:
        specs = list(dynamic_shapes)
    table = from_exported_program(ep)
    names: dict[str, str] = {}
    for spec_in, spec in zip(table.inputs, specs):
        if spec is None:
            continue
        axes = spec.items() if isinstance(spec, dict) else enumerate(spec)
        for axis, d in axes:
            if d is None or axis >= len(spec_in.shape) or isinstance(spec_in.shape[axis], int):
                continue
            e = spec_in.shape[axis]
            root = getattr(d, "root", None)
            name = getattr(root if root is not None else d, "__name__", None)
            syms = list(e.free_symbols)
            if name and len(syms) == 1 and not isinstance(d, (int, str)):
                names.setdefault(str(syms[0]), name)
    return names
