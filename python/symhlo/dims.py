"""The symbolic dims of an exported program: names, ranges, bindings, relations, and the checks.

torch.export describes every input axis as an integer or a sympy expression over symbols
(`s27`, `2*s95`) with `range_constraints`. `SymbolTable` keeps those expressions in the user's
spelling (Dim names) and checks a call's actual sizes before anything runs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Sequence

import sympy

from .errors import ShapeError

INT_MAX = 2**63 - 1


@dataclass
class Dim:
    """One symbolic size: its name, inclusive range (max None = unbounded), where it binds."""

    name: str
    min: int
    max: int | None
    bindings: list[tuple[str, int]] = field(default_factory=list)
    derived: list[tuple[str, int, str]] = field(default_factory=list)

    def __repr__(self) -> str:
        hi = "inf" if self.max is None else self.max
        where = ", ".join(f"{i}[{a}]" for i, a in self.bindings) or "-"
        return f"Dim({self.name}: [{self.min}, {hi}] at {where})"


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


class SymbolTable:
    """Symbols, their ranges, and the input specs that bind them; checks actual shapes."""

    def __init__(self, inputs: list[InputSpec], ranges: dict[str, tuple[int, int | None]],
                 names: dict[str, str] | None = None):
        self.inputs = inputs
        self.ranges = ranges  # internal symbol name -> (min, max or None)
        self.names = dict(names or {})  # internal symbol name -> user's name
        for s in ranges:
            self.names.setdefault(s, s)

    # -- description ----------------------------------------------------------------------------

    def dims(self) -> list[Dim]:
        out: dict[str, Dim] = {}
        for s, (lo, hi) in self.ranges.items():
            out[s] = Dim(self.names[s], lo, hi)
        for spec in self.inputs:
            for axis, e in enumerate(spec.shape):
                if isinstance(e, int):
                    continue
                if isinstance(e, sympy.Symbol) and str(e) in out:
                    out[str(e)].bindings.append((spec.name, axis))
                else:
                    for s in e.free_symbols:
                        if str(s) in out:
                            out[str(s)].derived.append((spec.name, axis, _render(e, self.names)))
        return sorted(out.values(), key=lambda d: (not d.bindings, d.name))

    def to_json(self) -> dict:
        return {
            "inputs": [{"name": i.name, "dtype": i.dtype,
                        "shape": [s if isinstance(s, int) else str(s) for s in i.shape]}
                       for i in self.inputs],
            "ranges": {s: [lo, hi] for s, (lo, hi) in self.ranges.items()},
            "names": self.names,
        }

    @classmethod
    def from_json(cls, data: dict) -> "SymbolTable":
        inputs = [InputSpec(i["name"], i["dtype"],
                            [s if isinstance(s, int) else sympy.sympify(s, locals=_locals(s))
                             for s in i["shape"]])
                  for i in data["inputs"]]
        ranges = {s: (int(lo), None if hi is None else int(hi)) for s, (lo, hi) in data["ranges"].items()}
        return cls(inputs, ranges, data.get("names"))

    def table(self) -> str:
        rows = [("symbol", "min", "max", "binds", "derived")]
        for d in self.dims():
            rows.append((d.name, str(d.min), "inf" if d.max is None else str(d.max),
                         ", ".join(f"{i}[{a}]" for i, a in d.bindings) or "-",
                         ", ".join(f"{i}[{a}] = {e}" for i, a, e in d.derived) or "-"))
        widths = [max(len(r[c]) for r in rows) for c in range(5)]
        return "\n".join("  ".join(r[c].ljust(widths[c]) for c in range(5)).rstrip() for r in rows)

    # -- checking -------------------------------------------------------------------------------

    def check(self, shapes: Sequence[Sequence[int]], dtypes: Sequence[str] | None = None) -> dict[str, int]:
        """Checks actual input shapes; returns the symbol values. Raises ShapeError otherwise."""
        if len(shapes) != len(self.inputs):
            raise ShapeError(f"expected {len(self.inputs)} tensor input(s) "
                             f"({', '.join(i.name for i in self.inputs)}), got {len(shapes)}")
        values: dict[str, int] = {}
        where: dict[str, tuple[str, int]] = {}
        for spec, shape, k in zip(self.inputs, shapes, range(len(shapes))):
            if dtypes is not None and dtypes[k] != spec.dtype:
                raise ShapeError(f"{spec.name}: dtype is {dtypes[k]}, expected {spec.dtype}")
            if len(shape) != len(spec.shape):
                raise ShapeError(f"{spec.name}: rank is {len(shape)}, expected {len(spec.shape)} "
                                 f"(shape {spec.shape_str(self.names)})")
            for axis, (e, v) in enumerate(zip(spec.shape, shape)):
                if isinstance(e, int):
                    if v != e:
                        raise ShapeError(f"{spec.name}: axis {axis} is {v}, expected {e} (static)")
                elif isinstance(e, sympy.Symbol):
                    s = str(e)
                    if s in values and values[s] != v:
                        oi, oa = where[s]
                        raise ShapeError(
                            f"{spec.name}: axis {axis} is {v}, but {oi}: axis {oa} is {values[s]}; "
                            f"both are '{self.names[s]}' and must be equal")
                    values.setdefault(s, v)
                    where.setdefault(s, (spec.name, axis))
        # Solve single-unknown derived expressions (2*h, h+1) for symbols bound nowhere directly.
        for spec, shape in zip(self.inputs, shapes):
            for axis, (e, v) in enumerate(zip(spec.shape, shape)):
                if isinstance(e, int) or isinstance(e, sympy.Symbol):
                    continue
                unknown = [s for s in e.free_symbols if str(s) not in values]
                if len(unknown) == 1:
                    sols = [x for x in sympy.solve(sympy.Eq(e, v), unknown[0])
                            if x.is_integer]
                    if not sols:
                        raise ShapeError(f"{spec.name}: axis {axis} is {v}, but must be "
                                         f"{_render(e, self.names)} for an integer "
                                         f"'{self.names[str(unknown[0])]}'")
                    values[str(unknown[0])] = int(sols[0])
                    where[str(unknown[0])] = (spec.name, axis)
        for s, v in values.items():
            lo, hi = self.ranges.get(s, (0, None))
            name = self.names.get(s, s)
            i, a = where[s]
            axis_v = shapes[[x.name for x in self.inputs].index(i)][a]
            subject = (f"{i}: axis {a} is {axis_v}" if axis_v == v else
                       f"{i}: axis {a} is {axis_v}, so {name} = {v}")
            if v < lo:
                raise ShapeError(f"{subject}, below min {lo} of '{name}'")
            if hi is not None and v > hi:
                raise ShapeError(f"{subject}, above max {hi} of '{name}'")
        for spec, shape in zip(self.inputs, shapes):
            for axis, (e, v) in enumerate(zip(spec.shape, shape)):
                if isinstance(e, int) or isinstance(e, sympy.Symbol):
                    continue
                want = e.xreplace({s: values[str(s)] for s in e.free_symbols if str(s) in values})
                if want.is_number and int(want) != v:
                    raise ShapeError(f"{spec.name}: axis {axis} is {v}, but must be "
                                     f"{_render(e, self.names)} = {int(want)}")
        return values


def _locals(text: str) -> dict:
    import re
    return {n: sympy.Symbol(n, integer=True, positive=True) for n in re.findall(r"[A-Za-z_]\w*", text)}


def from_exported_program(ep, user_names: dict[str, str] | None = None) -> SymbolTable:
    """Builds the symbol table of `ep`'s user tensor inputs."""
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
        hi = int(vr.upper) if isinstance(vr.upper, sympy.Integer) and int(vr.upper) < INT_MAX else None
        ranges[str(sym)] = (lo, hi)
    used = {str(s) for i in inputs for e in i.shape if not isinstance(e, int) for s in e.free_symbols}
    ranges = {s: r for s, r in ranges.items() if s in used}
    return SymbolTable(inputs, ranges, user_names)


def user_names(ep, dynamic_shapes, args=(), kwargs=None) -> dict[str, str]:
    """Maps ep's internal symbols (s27) to the user's Dim names, following `dynamic_shapes`."""
    import inspect
    import torch

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
