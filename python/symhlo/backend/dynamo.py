"""symhlo as a torch.compile backend (floor 3, backend): one IREE compile per dynamo graph serves
every size in range.

    torch.compile(model, backend="symhlo", dynamic=True,
                  options={"target": "cpu", "inputs": [symhlo.Input(...), ...]})

Dynamo hands the backend an FX GraphModule whose placeholders mix the user's tensors, module
parameters, SymInt sizes and wrapped Python scalars, in the order it met them. The backend
 * finds the user's tensors by identity among the compiled frame's arguments, so `inputs[k]`
   applies to the k-th tensor argument of the user's function whatever order dynamo chose;
 * keeps parameters and buffers as constants, computes SymInt placeholders from the tensor sizes
   they came from, passes a free int dynamo made dynamic (`x[:m]`) as the length of an extra
   `(m,)` uint8 input with dynamo's guards on it as torch._check, specializes the Python scalars
   dynamo wraps as 0-d tensors (attention's `self.scaling`, a float argument) and plain ints per
   value (one compile per value seen), and passes other tensors (globals) through as inputs;
 * exports a wrapper around the graph with torch.export, with one Dim per dynamo symbol (its range
   intersected with the user's Input ranges, named by the Input's dims), and compiles it once.
Calls outside the ranges raise symhlo.ShapeError before anything runs.
"""

from __future__ import annotations

import operator
import re
import sys
from typing import Any, Callable, Sequence

import sympy
import torch

from symhlo.passes.contract_attrs import is_unbounded

from ..contract.dims import linear_form
from ..contract.inputs import Input
from ..errors import CompileError, ShapeError, SymhloError
from ..frontend.export import export as symhlo_export, rename_inputs
from ..stages import bump
from .compiler import compile as symhlo_compile

_OPTION_KEYS = ("target", "target_arch", "inputs", "iree_flags", "verbose")


def symhlo_backend(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], **kwargs) -> Callable:
    """The torch.compile backend (`backend="symhlo"`).

    Args:
      gm: the FX graph dynamo captured.
      example_inputs: its placeholders' example values (tensors, SymInts).
      options: {"target": "cpu" | "vulkan" | "cuda" | "rocm", "target_arch": str,
        "inputs": [symhlo.Input, ...] (ranges per tensor argument of the compiled function,
        by position; by name in resumed frames after a graph break), "iree_flags": [...],
        "verbose": bool}. torch.compile passes `options=` through.
    Returns:
      a callable taking the placeholders' values and returning the graph's outputs.
    Raises:
      ValueError: unknown option or Inputs that do not match the function's tensor arguments.
      ShapeError: the traced call itself is outside the given ranges.
      CompileError / UnsupportedOpError: lowering or iree-compile failed.
    """
    options = dict(kwargs.pop("options", None) or {})
    options.update(kwargs)
    unknown = [k for k in options if k not in _OPTION_KEYS]
    if unknown:
        raise ValueError(f"symhlo backend: unknown option {unknown[0]!r} (valid: {', '.join(_OPTION_KEYS)})")
    inputs = options.get("inputs")
    if inputs is not None and (not isinstance(inputs, (list, tuple))
                               or not all(isinstance(i, Input) for i in inputs)):
        raise ValueError(f"symhlo backend: options['inputs']={inputs!r} must be a list of symhlo.Input")
    if inputs and any(i.profiles and len(i.profiles) > 1 for i in inputs):
        raise ValueError("symhlo backend: Input(profiles=...) is for symhlo.compile; torch.compile "
                         "takes one range per axis")
    bump("backend_graphs")
    args = (gm, list(example_inputs), list(inputs or []))
    plan = _GraphPlan(*args)
    candidates = frozenset(plan.scalar_candidates)  # read now: exporting drops dynamo's metadata
    return _Compiled(plan, options, lambda: _GraphPlan(*args, specialize_scalars=candidates))


# -- reading dynamo's graph -----------------------------------------------------------------------

_CONST, _TENSOR, _SIZE, _INT, _SCALAR = "const", "tensor", "size", "int", "scalar"


def _frame():
    """(function name, {arg name: value} in signature order, is_resume) of the frame being compiled."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = InstructionTranslator.current_tx()
    except Exception:
        return None
    if tx is None:
        return None
    code = tx.f_code
    n = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:code.co_argcount])
    if code.co_flags & 0x04:  # *args
        names.append(code.co_varnames[n])
    names += list(code.co_varnames[code.co_argcount:n])
    if code.co_flags & 0x08:  # **kwargs
        names.append(code.co_varnames[n + bool(code.co_flags & 0x04)])
    f_locals = getattr(tx, "f_locals", {}) or {}
    args = {name: f_locals[name] for name in names if name in f_locals}
    return code.co_name, args, code.co_name.startswith("torch_dynamo_resume_in_")


def _flat_tensors(value, name: str, out: list) -> None:
    if isinstance(value, torch.Tensor):
        out.append((name, value))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _flat_tensors(v, f"{name}[{i}]", out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _flat_tensors(v, f"{name}[{k!r}]", out)


def _source_name(node) -> str:
    ga = node.meta.get("grapharg")
    text = ga.source.name if ga is not None and ga.source is not None else node.name
    text = re.sub(r"^L\['([^']+)'\]", r"\1", text)
    return text


def _is_module_state(node) -> bool:
    """Parameters and buffers of nn.Modules (kept as constants of the compiled module)."""
    ga = node.meta.get("grapharg")
    if ga is None or ga.source is None:
        return False
    text = ga.source.name
    return ("._parameters[" in text or "._buffers[" in text or isinstance(ga.example, torch.nn.Parameter))


def _read_as_scalar(node) -> bool:
    """True when the graph turns placeholder `node` back into a Python number (`.item()`)."""
    for user in node.users:
        if user.op == "call_method" and user.target == "item":
            return True
        if user.op == "call_function" and user.target in (torch.ops.aten.item.default,
                                                          torch.ops.aten._local_scalar_dense.default):
            return True
    return False


def _ident(text: str) -> str:
    s = re.sub(r"\W+", "_", text).strip("_") or "t"
    return s if s[0].isalpha() or s[0] == "_" else f"t_{s}"


class _GraphPlan:
    """What each placeholder is, the exported module's inputs, their Dims and Input ranges."""

    def __init__(self, gm, example_inputs: list, inputs: list[Input], *,
                 specialize_scalars: frozenset = frozenset()):
        self.gm = gm
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(example_inputs):
            raise CompileError(f"symhlo backend: the graph has {len(placeholders)} inputs but dynamo "
                               f"gave {len(example_inputs)} example values")
        frame = _frame()
        user: list[tuple[str, torch.Tensor]] = []
        if frame is not None:
            for name, value in frame[1].items():
                _flat_tensors(value, name, user)
        resumed = frame is None or frame[2]
        if inputs and not resumed and len(inputs) != len(user):
            raise ValueError(f"symhlo backend: options['inputs'] has {len(inputs)} Input(s) but "
                             f"{frame[0]}() takes {len(user)} tensor(s): "
                             f"{', '.join(n for n, _ in user) or 'none'}")
        by_id = {id(t): k for k, (_, t) in enumerate(user)}

        self.kinds: list[tuple] = []  # per placeholder
        user_slots: list[tuple[int, int]] = []  # (user position, placeholder index)
        extra_slots: list[int] = []
        self.constants: list[torch.Tensor] = []
        self.scalar_candidates: list[int] = []
        self.specialized = bool(specialize_scalars)
        for i, (node, ex) in enumerate(zip(placeholders, example_inputs)):
            val = node.meta.get("example_value")
            ga = node.meta.get("grapharg")
            real = ga.example if ga is not None else ex
            if isinstance(val, torch.SymInt) or isinstance(ex, (int, torch.SymInt)):
                self.kinds.append((_INT, val, ex))
            elif not isinstance(val, torch.Tensor) and not isinstance(ex, torch.Tensor):
                self.kinds.append((_INT, val, ex))
            elif i in specialize_scalars:
                self.kinds.append((_SCALAR, ex.dtype))
            elif (ga is not None and getattr(ga, "pass_arg_as_tensor", False)
                  and isinstance(ex, torch.Tensor) and ex.dim() == 0 and _read_as_scalar(node)):
                # a Python scalar dynamo passes as a 0-d tensor and the graph reads back with
                # `.item()`. A runtime input by default (`x * scale` traces with the value
                # unknown); where torch.export must guard on the value (attention's
                # `self.scaling` as sdpa's scale) the plan is rebuilt with it specialized per
                # value, like free ints.
                self.scalar_candidates.append(i)
                extra_slots.append(i)
                self.kinds.append((_TENSOR,))
            elif not resumed and id(real) in by_id:
                user_slots.append((by_id[id(real)], i))
                self.kinds.append((_TENSOR,))
            elif _is_module_state(node):
                self.kinds.append((_CONST, len(self.constants)))
                self.constants.append(_materialize(real if isinstance(real, torch.Tensor) else ex, val))
            else:
                extra_slots.append(i)
                self.kinds.append((_TENSOR,))
        user_slots.sort()
        # The exported module's tensor inputs: user tensors in the user's order, then the rest.
        self.order = [i for _, i in user_slots] + extra_slots
        self.names = []
        self.input_specs: list[Input | None] = []
        for k, i in user_slots:
            self.names.append(user[k][0])
            self.input_specs.append(inputs[k] if k < len(inputs) else None)
        by_name = {i.name: i for i in inputs if i.name}
        for i in extra_slots:
            name = _source_name(placeholders[i])
            self.names.append(name)
            self.input_specs.append(by_name.get(name) if resumed else None)
        # Rename Inputs: user's Input names win.
        self.names = [spec.name if spec is not None and spec.name else n
                      for spec, n in zip(self.input_specs, self.names)]
        self.slot_of = {i: j for j, i in enumerate(self.order)}
        self.fakes = [placeholders[i].meta.get("example_value") for i in self.order]
        self.examples = [_materialize(example_inputs[i], self.fakes[j]) for j, i in enumerate(self.order)]
        # SymInt placeholders: a size of one of the tensors; a free int dynamo made dynamic (a
        # SymInt of its own symbol: `x[:m]` called with several m), which becomes the length of
        # an extra uint8 input of shape (m,) so that one export covers every m; or a free int
        # dynamo specialized (a plain int), compiled per value.
        self.int_slots: list[int] = []
        self.length_slots: list[int] = []   # placeholder indices of the dynamic free ints
        self.scalar_slots = [i for i, kind in enumerate(self.kinds) if kind[0] == _SCALAR]
        for i, kind in enumerate(self.kinds):
            if kind[0] != _INT:
                continue
            where = self._find_size(kind[1])
            if where is not None:
                self.kinds[i] = (_SIZE, *where)
            elif isinstance(kind[1], torch.SymInt) and isinstance(kind[1].node.expr, sympy.Symbol):
                self.length_slots.append(i)
                self.kinds[i] = (_SIZE, len(self.order), 0)
                self.order.append(None)
                self.names.append(_ident(f"{_source_name(placeholders[i])}_length"))
                self.input_specs.append(None)
                self.fakes.append(_Lengths((kind[1],)))
                self.examples.append(torch.zeros(int(kind[1].node.hint), dtype=torch.uint8))
            else:
                self.int_slots.append(i)
                self.kinds[i] = (_INT, None, kind[2])
        self.length_of: list[int | None] = [None] * len(self.order)  # exported input -> its int
        for i in self.length_slots:
            self.length_of[self.kinds[i][1]] = i
        self.checks = self._int_guards()

    def _int_guards(self) -> list:
        """Dynamo's guards on the dynamic free ints (`0 <= m <= x.size(0)` for `x[:m]`), as
        sympy expressions over (exported input, axis) sizes: the wrapper states them with
        torch._check, which lets torch.export slice `x[:m]` to m rows instead of refusing the
        relation between two independent Dims (and makes them call-time checks)."""
        ints = {self.fakes[self.kinds[i][1]].shape[0].node.expr for i in self.length_slots}
        if not ints:
            return []
        where = {}
        for j, fake in enumerate(self.fakes):
            for axis, s in enumerate(getattr(fake, "shape", ())):
                if isinstance(s, torch.SymInt) and isinstance(s.node.expr, sympy.Symbol):
                    where.setdefault(s.node.expr, (j, axis))
        env = next(iter(self.fakes[self.kinds[i][1]].shape[0].node.shape_env
                        for i in self.length_slots))
        out = []
        for g in env.guards:
            syms = g.expr.free_symbols
            if syms & ints and syms <= where.keys():
                out.append((g.expr, {sym: where[sym] for sym in syms}))
        return out

    def validate(self) -> None:
        """The traced call's dtypes and ranks against options['inputs'] (ShapeError)."""
        for j, (spec, ex) in enumerate(zip(self.input_specs, self.examples)):
            if spec is not None and spec.dtype != ex.dtype:
                raise ShapeError(f"{self.names[j]}: dtype is {str(ex.dtype)[6:]}, but options['inputs'] "
                                 f"says {str(spec.dtype)[6:]}")
            if spec is not None and spec.rank != ex.dim():
                raise ShapeError(f"{self.names[j]}: rank is {ex.dim()}, but options['inputs'] says "
                                 f"{spec.rank} (min_shape={spec.min_shape})")

    def _find_size(self, val):
        if not isinstance(val, torch.SymInt):
            return None
        expr = val.node.expr
        for j, fake in enumerate(self.fakes):
            if not isinstance(fake, torch.Tensor):
                continue
            for axis, s in enumerate(fake.shape):
                if isinstance(s, torch.SymInt) and s.node.expr == expr:
                    return j, axis
        return None

    def dynamic_shapes(self):
        """One torch.export spec per exported input: Dims from dynamo's symbols and the Inputs."""
        from torch.export import Dim

        self.validate()
        # Each dynamo symbol: its range (dynamo's, intersected with the Inputs'), its name.
        ranges: dict[sympy.Symbol, list] = {}
        names: dict[sympy.Symbol, str] = {}
        static_axes: set[tuple[int, int]] = set()
        for j, fake in enumerate(self.fakes):
            spec = self.input_specs[j]
            ex = self.examples[j]
            if spec is not None:
                for axis in range(spec.rank):
                    lo, hi, v = spec.min_shape[axis], spec.max_shape[axis], ex.shape[axis]
                    label = spec.dim_names[axis] or f"{self.names[j]}_{axis}"
                    if lo == hi and v != lo:
                        raise ShapeError(f"{self.names[j]}: axis {axis} is {v}, expected {lo} "
                                         f"(static in options['inputs'])")
                    if v < lo:
                        raise ShapeError(f"{self.names[j]}: axis {axis} is {v}, below min {lo} of '{label}'")
                    if hi is not None and v > hi:
                        raise ShapeError(f"{self.names[j]}: axis {axis} is {v}, above max {hi} of '{label}'")
                    if lo == hi:
                        static_axes.add((j, axis))
            for axis, s in enumerate(fake.shape):
                if not isinstance(s, torch.SymInt) or (j, axis) in static_axes:
                    continue
                expr = s.node.expr
                if not isinstance(expr, sympy.Symbol):
                    continue
                if expr not in ranges:
                    vr = s.node.shape_env.var_to_range.get(expr)
                    lo = _bound(vr.lower) if vr is not None else None
                    hi = _bound(vr.upper) if vr is not None else None
                    ranges[expr] = list(_admitted_ends(s.node.shape_env, expr, max(lo or 0, 0), hi))
                r = ranges[expr]
                if spec is not None:
                    r[0] = max(r[0], spec.min_shape[axis])
                    shi = spec.max_shape[axis]
                    r[1] = shi if r[1] is None else (r[1] if shi is None else min(r[1], shi))
                    if spec.dim_names[axis] and expr not in names:
                        names[expr] = spec.dim_names[axis]
                names.setdefault(expr, _ident(f"{self.names[j]}_{axis}"))
        taken: set[str] = set()
        dims = {}
        for expr, (lo, hi) in ranges.items():
            name = names[expr]
            while name in taken:
                name += "_"
            taken.add(name)
            dims[expr] = Dim(name, min=lo, **({} if hi is None else {"max": hi}))
        specs = []
        for j, fake in enumerate(self.fakes):
            spec = {}
            for axis, s in enumerate(fake.shape):
                if (j, axis) in static_axes or not isinstance(s, torch.SymInt):
                    continue
                expr = s.node.expr
                if expr in dims:
                    spec[axis] = dims[expr]
                elif len(expr.free_symbols) == 1 and next(iter(expr.free_symbols)) in dims:
                    root = next(iter(expr.free_symbols))
                    lin = linear_form(expr, root)
                    if lin is not None:
                        spec[axis] = lin[0] * dims[root] + lin[1]
            specs.append(spec or None)
        return tuple(specs)


class _Lengths:
    """The fake of a dynamic free int's length input: only its shape, (m,), is read."""

    def __init__(self, shape: tuple):
        self.shape = shape


def _sym_eval(expr, sizes: dict):
    """A dynamo guard (sympy: And, relations, +, *, Min, Max over size symbols) on the traced
    call's sizes (SymInts while torch.export traces)."""
    if isinstance(expr, sympy.Symbol):
        return sizes[expr]
    if expr.is_Integer:
        return int(expr)
    args = [_sym_eval(a, sizes) for a in expr.args]
    ops = {sympy.Add: lambda *a: sum(a[1:], a[0]), sympy.Mul: lambda *a: _product(a),
           sympy.Min: lambda *a: _fold(torch.sym_min, a), sympy.Max: lambda *a: _fold(torch.sym_max, a),
           sympy.And: lambda *a: _fold(operator.and_, a),
           sympy.Le: operator.le, sympy.Lt: operator.lt, sympy.Ge: operator.ge, sympy.Gt: operator.gt,
           sympy.Eq: operator.eq, sympy.Ne: operator.ne}
    for kind, fn in ops.items():
        if isinstance(expr, kind):
            return fn(*args)
    raise NotImplementedError(f"dynamo guard {expr}")


def _fold(fn, args):
    acc = args[0]
    for a in args[1:]:
        acc = fn(acc, a)
    return acc


def _product(args):
    acc = args[0]
    for a in args[1:]:
        acc = acc * a
    return acc


def _admitted_ends(shape_env, sym, lo: int, hi: int | None, reach: int = 64) -> tuple[int, int | None]:
    """`sym`'s range [lo, hi] with each end moved inward past values dynamo's own guards exclude.

    Dynamo keeps disequalities (`s - 2 != 1` after a 3x3 conv: a 1-pixel output would specialize)
    as guards, not in the range; torch.export then refuses a Dim whose range holds such a value
    ("Not all values of x_2 ... satisfy the generated guard"). The graph dynamo handed over is only
    valid where its guards hold (dynamo recompiles elsewhere), so the ends move to the nearest
    values that satisfy every guard on `sym` alone; guards naming other symbols are left to export.
    """
    guards = []
    for g in getattr(shape_env, "guards", ()):
        e = getattr(g, "expr", None)
        if e is not None and getattr(e, "free_symbols", None) == {sym}:
            guards.append(e)
    if not guards:
        return lo, hi

    def admitted(v: int) -> bool:
        for e in guards:
            try:
                if not bool(e.subs(sym, v)):
                    return False
            except TypeError:  # not decidable at v: leave it to torch.export
                continue
        return True

    for _ in range(reach):
        if admitted(lo) or (hi is not None and lo >= hi):
            break
        lo += 1
    for _ in range(reach):
        if hi is None or admitted(hi) or hi <= lo:
            break
        hi -= 1
    return lo, hi


def _bound(x) -> int | None:
    """A ValueRanges bound as an int; None for infinities (sympy's or torch's int_oo)."""
    if isinstance(x, int):
        return x
    if getattr(x, "is_Integer", False):
        v = int(x)
        return None if is_unbounded(v) else v
    return None


def _materialize(ex, fake) -> torch.Tensor:
    """A real tensor for torch.export: `ex` itself, or one shaped by the fake's size hints."""
    from torch._subclasses.fake_tensor import FakeTensor

    if isinstance(ex, torch.Tensor) and not isinstance(ex, FakeTensor):
        return ex.detach()
    src = fake if isinstance(fake, torch.Tensor) else ex
    shape = [int(s.node.hint) if isinstance(s, torch.SymInt) else int(s) for s in src.shape]
    if src.dtype.is_floating_point or src.dtype.is_complex:
        return torch.randn(shape, dtype=src.dtype)
    return torch.zeros(shape, dtype=src.dtype)


class _Wrapper(torch.nn.Module):
    """Calls dynamo's graph from the exported inputs: sizes from tensors, constants as buffers."""

    def __init__(self, plan: _GraphPlan, int_values: dict[int, int]):
        super().__init__()
        self.graph_module = _with_scalars_folded(plan.gm, {
            i: int_values[i] for i, kind in enumerate(plan.kinds) if kind[0] == _SCALAR})
        for k, c in enumerate(plan.constants):
            self.register_buffer(f"c{k}", c, persistent=True)
        self._kinds = plan.kinds
        self._slot_of = plan.slot_of
        self._ints = int_values
        self._checks = plan.checks

    def call(self, *tensors):
        for expr, where in self._checks:
            try:
                cond = _sym_eval(expr, {sym: tensors[j].size(axis) for sym, (j, axis) in where.items()})
            except NotImplementedError:
                continue   # dynamo checks it before every call anyway
            torch._check(cond)
        full = []
        for i, kind in enumerate(self._kinds):
            if kind[0] == _TENSOR:
                full.append(tensors[self._slot_of[i]])
            elif kind[0] == _CONST:
                full.append(getattr(self, f"c{kind[1]}"))
            elif kind[0] == _SIZE:
                full.append(tensors[kind[1]].size(kind[2]))
            elif kind[0] == _SCALAR:  # folded into the graph (its `.item()` reads are gone)
                full.append(torch.zeros((), dtype=kind[1]))
            else:
                full.append(self._ints[i])
        return self.graph_module(*full)


def _with_scalars_folded(gm, values: dict[int, float]):
    """A copy of `gm` in which each `.item()` of placeholder i (in `values`) is the number
    values[i]; `gm` itself when there is nothing to fold."""
    if not values:
        return gm
    import copy

    graph = copy.deepcopy(gm.graph)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for i, value in values.items():
        for item in [u for u in placeholders[i].users if u.op in ("call_method", "call_function")]:
            if item.target not in ("item", torch.ops.aten.item.default,
                                   torch.ops.aten._local_scalar_dense.default):
                continue
            for user in list(item.users):
                user.args = torch.fx.node.map_arg(user.args, lambda a: value if a is item else a)
                user.kwargs = torch.fx.node.map_arg(user.kwargs, lambda a: value if a is item else a)
            graph.erase_node(item)
    return torch.fx.GraphModule(gm, graph)


def _wrapper_class(arg_names: list[str]) -> type:
    """A _Wrapper subclass whose forward takes one named argument per tensor input."""
    params, seen = [], set()
    for n in arg_names:
        p = _ident(n)
        while p in seen or p == "self":
            p += "_"
        seen.add(p)
        params.append(p)
    src = f"def forward(self, {', '.join(params)}):\n    return self.call({', '.join(params)})\n"
    scope: dict = {}
    exec(src, scope)  # noqa: S102 - a generated signature, no user text besides identifiers
    return type("SymhloDynamoGraph", (_Wrapper,), {"forward": scope["forward"]})


class _Compiled:
    """The callable handed back to dynamo: selects tensors, checks shapes, runs IREE."""

    def __init__(self, plan: _GraphPlan, options: dict, specialized_plan: Callable[[], _GraphPlan]):
        self.plan = plan
        self.options = options
        self._specialized_plan = specialized_plan
        self.modules: dict[tuple, Any] = {}
        # Export and compile on the first call, outside dynamo's tracing: a torch.export run
        # inside it would add its range guards to dynamo's shape env (and calls outside the
        # range would then recompile instead of raising ShapeError).

    def _build(self, int_values: dict[int, int]):
        plan, opts = self.plan, self.options
        verbose = bool(opts.get("verbose"))
        if verbose:
            print(f"[symhlo] torch.compile graph: {len(plan.order)} tensor input(s) "
                  f"({', '.join(plan.names)})", file=sys.stderr, flush=True)
        wrapper = _wrapper_class(plan.names)(plan, int_values)
        with torch.no_grad():
            prog = symhlo_export(wrapper, tuple(plan.examples), dynamic_shapes=plan.dynamic_shapes(),
                                 verbose=verbose)
        prog = rename_inputs(prog, plan.names)   # in @main's contract: one set of names
        return symhlo_compile(prog, target=opts.get("target", "cpu"), target_arch=opts.get("target_arch"),
                              options={"iree_flags": list(opts.get("iree_flags", ()))}, verbose=verbose)

    def __call__(self, *args):
        plan = self.plan
        key = tuple(int(args[i]) for i in plan.int_slots) + \
            tuple(args[i].item() for i in plan.scalar_slots)
        cm = self.modules.get(key)
        if cm is None:
            try:
                cm = self._build(dict(zip(plan.int_slots + plan.scalar_slots, key)))
            except SymhloError as e:
                if plan.specialized or not plan.scalar_candidates or \
                        "GuardOnDataDependentSymNode" not in str(e):
                    raise
                self.plan = self._specialized_plan()
                self.modules.clear()
                return self(*args)
            self.modules[key] = cm
        out = cm(*[torch.empty(int(args[k]), dtype=torch.uint8) if i is None else args[i]
                   for i, k in zip(plan.order, plan.length_of)])
        return out if isinstance(out, (tuple, list)) else (out,)


def register() -> None:
    """Registers "symhlo" with torch._dynamo (idempotent; safe with the installed entry point)."""
    try:
        from torch._dynamo.backends import registry
    except Exception:  # torch without dynamo: nothing to register with
        return
    if "symhlo" in registry._COMPILER_FNS:
        return
    if registry._BACKENDS.get("symhlo") is not None:
        return  # dynamo is loading the entry point right now; it registers the function itself
    registry.register_backend(compiler_fn=symhlo_backend, name="symhlo")
