"""symhlo.Input and Profile (floor 1, contract): Torch-TensorRT-style shape ranges
(min/opt/max), named and shared symbols, profiles."""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from typing import Sequence

import torch

from symhlo.passes.contract_attrs import is_unbounded

from .dims import linear_form, parse_relation

_PROFILE_KEYS = ("min_shape", "opt_shape", "max_shape")
# Input(format=): the rank each memory format needs (None: any rank).
_FORMAT_RANKS = {torch.contiguous_format: None, torch.channels_last: 4, torch.channels_last_3d: 5}


class Input:
    """One tensor input described by ranges.

    An axis is dynamic where min != max and unbounded where max is None. Symbols are named by
    `dims=("batch", None)` or by strings in `shape=("batch", 16)`; the same name on several
    inputs is one shared symbol. `profiles=[dict(min_shape=, opt_shape=, max_shape=), ...]`
    declares disjoint optimization profiles: `symhlo.compile` builds one variant per profile and
    dispatches each call to the first profile that fits.

    Args:
      shape: a static shape (`(1, 3, 224, 224)`), or one naming dynamic axes (`("batch", 16)`;
        a name or None marks an axis dynamic in [1, unbounded) unless min/max_shape say otherwise).
      min_shape, opt_shape, max_shape: per-axis ranges; max entries may be None (unbounded).
        `opt_shape` alone means a static shape; `opt_shape` defaults to `min_shape`.
      dtype: the torch dtype.
      name: the input's name in error messages (defaults to the model's parameter name).
      dims: a symbol name (or None) per axis.
      format: the memory format example tensors are traced in (`torch.contiguous_format`,
        `torch.channels_last` for rank 4, `torch.channels_last_3d` for rank 5), as
        Torch-TensorRT's Input(format=) says; the compiled module takes tensors in any layout.
      profiles: optimization profiles, each a dict(min_shape=, opt_shape=, max_shape=).
    Raises:
      ValueError: quoting the argument that is wrong (ranks differ, min > opt, bad name, ...).
    """

    def __init__(self, shape: Sequence | None = None, *, min_shape: Sequence | None = None,
                 opt_shape: Sequence | None = None, max_shape: Sequence | None = None,
                 dtype: torch.dtype = torch.float32, name: str | None = None,
                 dims: Sequence | None = None, profiles: Sequence[dict] | None = None,
                 format: torch.memory_format = torch.contiguous_format):
        if name is not None and not isinstance(name, str):
            raise ValueError(f"Input: name={name!r} must be a string")
        self.name = name
        where = f"Input{_quote(name)}"
        if not isinstance(dtype, torch.dtype):
            raise ValueError(f"{where}: dtype={dtype!r} is not a torch.dtype (e.g. torch.float32)")
        self.dtype = dtype
        shape_names, static = (None, None)
        if shape is not None:
            shape = _seq(where, "shape", shape)
            for i, s in enumerate(shape):
                if not (s is None or isinstance(s, str) or _is_size(s)):
                    raise ValueError(f"{where}: shape={_show(shape)} has {s!r} at axis {i}; "
                                     "use an int >= 0, a symbol name, or None")
            for i, s in enumerate(shape):
                if isinstance(s, str) and not _is_name(s):
                    raise ValueError(f"{where}: shape={_show(shape)} has {s!r} at axis {i}; a symbol "
                                     "name must be a Python identifier")
            shape_names = [s if isinstance(s, str) else None for s in shape]
            static = [int(s) if _is_size(s) else None for s in shape]
        names = self._names(where, shape_names, dims, shape)

        if profiles is not None:
            if any(x is not None for x in (min_shape, opt_shape, max_shape)):
                raise ValueError(f"{where}: give either profiles= or min_shape/opt_shape/max_shape, "
                                 "not both")
            if isinstance(profiles, dict) or not isinstance(profiles, (list, tuple)) or not profiles:
                raise ValueError(f"{where}: profiles={profiles!r} must be a non-empty list of "
                                 "dict(min_shape=, opt_shape=, max_shape=)")
            resolved = []
            for k, p in enumerate(profiles):
                pw = f"{where} profiles[{k}]"
                if not isinstance(p, dict):
                    raise ValueError(f"{pw}: {p!r} is not a dict(min_shape=, opt_shape=, max_shape=)")
                unknown = [key for key in p if key not in _PROFILE_KEYS]
                if unknown:
                    raise ValueError(f"{pw}: unknown key {unknown[0]!r} (valid: {', '.join(_PROFILE_KEYS)})")
                resolved.append(_resolve(pw, static, shape, p.get("min_shape"), p.get("opt_shape"),
                                         p.get("max_shape")))
            ranks = {len(r[0]) for r in resolved}
            if len(ranks) != 1:
                raise ValueError(f"{where}: profiles have different ranks: "
                                 + ", ".join(f"profiles[{k}] has rank {len(r[0])}" for k, r in enumerate(resolved)))
            self.profiles = [dict(zip(_PROFILE_KEYS, r)) for r in resolved]
            rank = ranks.pop()
            # The union of all profiles is the range the input accepts.
            lo = tuple(min(r[0][i] for r in resolved) for i in range(rank))
            hi = tuple(None if any(r[2][i] is None for r in resolved) else max(r[2][i] for r in resolved)
                       for i in range(rank))
            opt = resolved[0][1]
        else:
            self.profiles = None
            lo, opt, hi = _resolve(where, static, shape, min_shape, opt_shape, max_shape)
        rank = len(lo)
        if names is None:
            names = [None] * rank
        if len(names) != rank:
            raise ValueError(f"{where}: dims={_show(dims)} has {len(names)} entries for a rank-{rank} "
                             f"input")
        self.min_shape, self.opt_shape, self.max_shape = lo, opt, hi
        self.dim_names = tuple(names)
        need = _FORMAT_RANKS.get(format, -1)
        if need == -1:
            raise ValueError(f"{where}: format={format!r} is not one of torch.contiguous_format, "
                             "torch.channels_last, torch.channels_last_3d")
        if need is not None and need != rank:
            raise ValueError(f"{where}: format={format} needs a rank-{need} input, this one has rank {rank}")
        self.format = format

    @staticmethod
    def _names(where, shape_names, dims, shape):
        if dims is None:
            return shape_names
        dims = _seq(where, "dims", dims)
        for i, d in enumerate(dims):
            if d is not None and not _is_name(d):
                raise ValueError(f"{where}: dims={_show(dims)} has {d!r} at axis {i}; a symbol name "
                                 "must be a Python identifier (or None)")
        if shape_names is not None:
            if len(dims) != len(shape_names):
                raise ValueError(f"{where}: dims={_show(dims)} has {len(dims)} entries but "
                                 f"shape={_show(shape)} has rank {len(shape_names)}")
            for i, (d, s) in enumerate(zip(dims, shape_names)):
                if d is not None and s is not None and d != s:
                    raise ValueError(f"{where}: axis {i} is named {s!r} in shape={_show(shape)} "
                                     f"but {d!r} in dims={_show(dims)}")
            return [d if d is not None else s for d, s in zip(dims, shape_names)]
        return list(dims)

    @property
    def rank(self) -> int:
        return len(self.min_shape)

    def is_dynamic(self, axis: int) -> bool:
        """True where the axis is dynamic (min != max; max None counts as unbounded)."""
        return self.min_shape[axis] != self.max_shape[axis]

    def profile(self, k: int) -> "Input":
        """The Input restricted to profile k (no profiles of its own)."""
        if not self.profiles:
            return self
        p = self.profiles[k]
        return Input(min_shape=p["min_shape"], opt_shape=p["opt_shape"], max_shape=p["max_shape"],
                     dtype=self.dtype, name=self.name, dims=self.dim_names, format=self.format)

    def __repr__(self) -> str:
        parts = []
        if self.name:
            parts.append(f"name={self.name!r}")
        if self.profiles:
            parts.append(f"profiles={self.profiles}")
        else:
            parts += [f"min_shape={self.min_shape}", f"opt_shape={self.opt_shape}",
                      f"max_shape={self.max_shape}"]
        if any(self.dim_names):
            parts.append(f"dims={self.dim_names}")
        parts.append(f"dtype={self.dtype}")
        if self.format is not torch.contiguous_format:
            parts.append(f"format={self.format}")
        return f"Input({', '.join(parts)})"

    def example(self) -> torch.Tensor:
        """An example tensor for torch.export: opt shape, moved off 0/1 on dynamic axes."""
        shape = []
        for axis, opt in enumerate(self.opt_shape):
            if self.is_dynamic(axis) and opt < 2:
                hi = self.max_shape[axis]
                opt = 2 if hi is None or hi >= 2 else opt
            shape.append(opt)
        return _tensor(shape, self.dtype).contiguous(memory_format=self.format)


def _quote(name: str | None) -> str:
    return f" '{name}'" if name else ""


def _show(seq) -> str:
    return repr(tuple(seq)) if isinstance(seq, (list, tuple, torch.Size)) else repr(seq)


def _is_name(v) -> bool:
    return isinstance(v, str) and v.isidentifier() and not keyword.iskeyword(v)


def _is_size(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _seq(where: str, arg: str, value) -> list:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, torch.Size)):
        raise ValueError(f"{where}: {arg}={value!r} must be a tuple or list")
    return list(value)


def _resolve(where: str, static, shape, min_shape, opt_shape, max_shape):
    """Validates one (min, opt, max) triple against `shape`; returns three tuples."""
    given = {}
    for arg, value in (("min_shape", min_shape), ("opt_shape", opt_shape), ("max_shape", max_shape)):
        if value is None:
            continue
        value = _seq(where, arg, value)
        for i, v in enumerate(value):
            if not (_is_size(v) or (v is None and arg == "max_shape")):
                what = "an int >= 0 or None (unbounded)" if arg == "max_shape" else "an int >= 0"
                raise ValueError(f"{where}: {arg}={_show(value)} has {v!r} at axis {i}; use {what}")
        given[arg] = value
    if static is not None:
        for arg, value in given.items():
            if len(value) != len(static):
                raise ValueError(f"{where}: {arg}={_show(value)} has rank {len(value)} but "
                                 f"shape={_show(shape)} has rank {len(static)}")
            for i, (v, s) in enumerate(zip(value, static)):
                if s is not None and v != s:
                    raise ValueError(f"{where}: shape={_show(shape)} says axis {i} is {s} but "
                                     f"{arg}={_show(value)} says {v}")
    if len({len(v) for v in given.values()}) > 1:
        raise ValueError(f"{where}: " + ", ".join(f"{a}={_show(v)}" for a, v in given.items())
                         + " differ in rank")
    lo, opt, hi = given.get("min_shape"), given.get("opt_shape"), given.get("max_shape")
    if lo is None and hi is None:
        if opt is not None and static is None:
            lo = hi = list(opt)  # opt alone: static
        elif static is not None:
            lo = [s if s is not None else 1 for s in static]
            hi = [s if s is not None else None for s in static]
        else:
            raise ValueError(f"{where}: give shape= or min_shape/opt_shape/max_shape")
    elif lo is None or hi is None:
        if static is None:
            missing = "max_shape" if hi is None else "min_shape"
            raise ValueError(f"{where}: {missing} is missing (max_shape may hold None for unbounded "
                             "axes)")
        lo = lo if lo is not None else [s if s is not None else 1 for s in static]
        hi = hi if hi is not None else [s if s is not None else None for s in static]
    if opt is None:
        opt = list(lo)
    for i, (a, o, b) in enumerate(zip(lo, opt, hi)):
        if a > o or (b is not None and (o > b or a > b)):
            rule = (f"min {a} > max {b}" if b is not None and a > b else
                    f"min {a} > opt {o}" if a > o else f"opt {o} > max {b}")
            raise ValueError(f"{where}: axis {i} needs min <= opt <= max, got {rule} "
                             f"(min_shape={_show(lo)}, opt_shape={_show(opt)}, max_shape={_show(hi)})")
    return tuple(lo), tuple(opt), tuple(hi)


def _tensor(shape, dtype: torch.dtype) -> torch.Tensor:
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, dtype=dtype)
    return torch.zeros(shape, dtype=dtype)


# -- profiles -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Profile:
    """One optimization profile of a compiled module: per input, its min/opt/max shapes.

    Attributes:
      index: position in declared order (dispatch tries profiles in this order).
      names: the input names.
      min_shapes, opt_shapes, max_shapes: one tuple per input (max entries may be None).
    """

    index: int
    names: tuple
    min_shapes: tuple
    opt_shapes: tuple
    max_shapes: tuple

    @property
    def static(self) -> bool:
        """True where every axis of every input has min == max (compiled static at opt)."""
        return all(lo == hi for a, b in zip(self.min_shapes, self.max_shapes) for lo, hi in zip(a, b))

    def ranges(self) -> str:
        """`x (32..256, 16); y (1..inf,)`: each input's per-axis range."""
        return "; ".join(f"{n} {_fmt_ranges(lo, hi)}"
                         for n, lo, hi in zip(self.names, self.min_shapes, self.max_shapes))

    def __str__(self) -> str:
        return f"profile {self.index}: {self.ranges()}"

    def to_json(self) -> dict:
        return {"index": self.index, "names": list(self.names),
                "min_shapes": [list(s) for s in self.min_shapes],
                "opt_shapes": [list(s) for s in self.opt_shapes],
                "max_shapes": [list(s) for s in self.max_shapes]}

    @classmethod
    def from_json(cls, data: dict) -> "Profile":
        return cls(int(data["index"]), tuple(data["names"]),
                   tuple(tuple(s) for s in data["min_shapes"]),
                   tuple(tuple(s) for s in data["opt_shapes"]),
                   tuple(tuple(s) for s in data["max_shapes"]))


def _fmt_ranges(lo, hi) -> str:
    parts = [str(a) if a == b else f"{a}..{'inf' if b is None else b}" for a, b in zip(lo, hi)]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def profile_groups(inputs: Sequence[Input]) -> list[list[Input]] | None:
    """[Input] -> one [Input] per profile (None when no input declares profiles).

    Inputs without profiles keep their one range in every profile.
    Raises:
      ValueError: inputs declare different numbers of profiles.
    """
    counts = {(i.name or f"input {k}"): len(i.profiles) for k, i in enumerate(inputs) if i.profiles}
    if not counts:
        return None
    if len(set(counts.values())) > 1:
        raise ValueError("inputs declare different numbers of profiles: "
                         + ", ".join(f"{n} has {c}" for n, c in counts.items()))
    n = next(iter(counts.values()))
    return [[inp.profile(k) for inp in inputs] for k in range(n)]


def opt_static_inputs(inputs: Sequence[Input]) -> list[Input]:
    """Each Input fixed at its opt shape (min = opt = max, same names and dtype): the static
    variant `options={"opt_variant": True}` compiles beside the dynamic module."""
    return [Input(min_shape=i.opt_shape, opt_shape=i.opt_shape, max_shape=i.opt_shape,
                  dtype=i.dtype, name=i.name, dims=i.dim_names, format=i.format) for i in inputs]


# -- torch.export spec --------------------------------------------------------------------------

def _auto_name(inp: Input, k: int, axis: int) -> str:
    return inp.dim_names[axis] or f"{inp.name or f'input{k}'}_{axis}"


def symbol_ranges(inputs: Sequence[Input]) -> dict[str, tuple[int, int | None]]:
    """Each symbol's range: shared names intersect their ranges.

    Raises:
      ValueError: a shared name's ranges have nothing in common.
    """
    ranges: dict[str, tuple[int, int | None]] = {}
    first: dict[str, str] = {}
    for k, inp in enumerate(inputs):
        for axis in range(inp.rank):
            if not inp.is_dynamic(axis) and inp.dim_names[axis] is None:
                continue
            n = _auto_name(inp, k, axis)
            lo, hi = inp.min_shape[axis], inp.max_shape[axis]
            here = f"{inp.name or f'input {k}'} axis {axis}"
            if n in ranges:
                plo, phi = ranges[n]
                nlo = max(lo, plo)
                nhi = phi if hi is None else (hi if phi is None else min(hi, phi))
                if nhi is not None and nlo > nhi:
                    raise ValueError(f"symbol '{n}' is {_fmt_range(plo, phi)} at {first[n]} but "
                                     f"{_fmt_range(lo, hi)} at {here}: no size fits both")
                lo, hi = nlo, nhi
            else:
                first[n] = here
            ranges[n] = (lo, hi)
    return ranges


def _fmt_range(lo, hi) -> str:
    return f"[{lo}, {'inf' if hi is None else hi}]"


def inputs_to_export_spec(inputs: Sequence[Input]):
    """[Input] -> (example args, torch.export dynamic_shapes, {}) with shared Dims by name.

    Args:
      inputs: symhlo.Input specs, one per tensor argument (without profiles: see profile_groups).
    Returns:
      (args, dynamic_shapes, names): example tensors at the opt shapes (shared symbols take
      one size), a dynamic_shapes tuple with one torch.export.Dim per symbol, and {}.
    """
    from torch.export import Dim

    if any(i.profiles and len(i.profiles) > 1 for i in inputs):
        raise ValueError("inputs with several profiles are compiled one profile at a time "
                         "(symhlo.compile does that); torch.export takes one range per axis")
    inputs = [i.profile(0) for i in inputs]
    ranges = symbol_ranges(inputs)
    dims = {n: Dim(n, min=lo, **({} if hi is None else {"max": hi}))
            for n, (lo, hi) in ranges.items() if lo != hi}
    sizes: dict[str, int] = {}
    args, specs = [], []
    for k, inp in enumerate(inputs):
        shape, spec = list(inp.opt_shape), {}
        for axis in range(inp.rank):
            if not inp.is_dynamic(axis) and inp.dim_names[axis] is None:
                continue
            n = _auto_name(inp, k, axis)
            lo, hi = ranges[n]
            if n not in sizes:
                size = max(lo, shape[axis]) if hi is None else min(max(lo, shape[axis]), hi)
                if size < 2 and n in dims and (hi is None or hi >= 2):
                    size = 2  # torch.export specializes 0 and 1
                sizes[n] = size
            shape[axis] = sizes[n]
            if n in dims:
                spec[axis] = dims[n]
        args.append(_tensor(shape, inp.dtype).contiguous(memory_format=inp.format))
        specs.append(spec or None)
    return tuple(args), tuple(specs), {}


def bind_to_parameters(inputs: Sequence[Input], args: tuple, specs: tuple, params: Sequence,
                       kwargs: dict | None, where: str = "forward"):
    """Binds each Input to a parameter of the model's forward: a named Input to the parameter of
    its name, the unnamed ones, in order, to the positional parameters left.

    Without any named Input (or without a signature to read) the Inputs stay positional, as
    torch.export takes them. The leading run of bound parameters is passed by position, every
    other one by name (`forward(input_ids, past_key_values=None, attention_mask=None)` with
    Inputs for `input_ids` and `attention_mask`: `(ids,)` and `{"attention_mask": mask}`).

    Args:
      inputs, args, specs: the Inputs, their example tensors and their torch.export dynamic
        shapes (inputs_to_export_spec), in the order given.
      params: the forward's inspect.Parameter list (without self), or None when unknown.
      kwargs: the user's other keyword arguments (constants), kept.
      where: how to name the forward in messages (`forward(input_ids, attention_mask)`).
    Returns:
      (args, kwargs, dynamic_shapes, inputs): what torch.export takes, with the Inputs reordered
      to the program's tensor inputs (positional ones, then keyword ones in the forward's order).
    Raises:
      ValueError: a name that matches no parameter (listing them), two Inputs for one parameter,
        an Input for a parameter also given in kwargs=, or more unnamed Inputs than parameters.
    """
    import inspect

    kwargs = dict(kwargs or {})
    if params is None or not any(i.name is not None for i in inputs):
        return args, kwargs or None, specs, list(inputs)
    kinds = {p.name: p.kind for p in params}
    named = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    open_kw = any(p.kind == p.VAR_KEYWORD for p in params)
    shown = ", ".join(named) or "none"
    bound: dict[str, int] = {}
    for k, inp in enumerate(inputs):
        if inp.name is None:
            continue
        if inp.name not in named and not open_kw:
            raise ValueError(f"Input(name={inp.name!r}) matches no parameter of {where}; its "
                             f"parameters are: {shown}")
        if inp.name in bound:
            raise ValueError(f"Input(name={inp.name!r}) is given twice (inputs {bound[inp.name]} and {k})")
        if inp.name in kwargs:
            raise ValueError(f"Input(name={inp.name!r}) binds the parameter {inp.name!r}, which "
                             "kwargs= also gives")
        bound[inp.name] = k
    free = [n for n in named if kinds[n] != inspect.Parameter.KEYWORD_ONLY
            and n not in bound and n not in kwargs]
    unnamed = [k for k, inp in enumerate(inputs) if inp.name is None]
    if len(unnamed) > len(free):
        raise ValueError(f"{len(unnamed)} unnamed Input(s) but {where} has only {len(free)} "
                         f"positional parameter(s) left ({', '.join(free) or 'none'})")
    for n, k in zip(free, unnamed):
        bound[n] = k
    order = [n for n in named if n in bound] + [n for n in bound if n not in named]
    npos = 0
    for n in named:
        if n not in bound or kinds[n] == inspect.Parameter.KEYWORD_ONLY:
            break
        npos += 1
    pos, kw = order[:npos], order[npos:]
    for n in kw:
        kwargs[n] = args[bound[n]]
    shapes = {n: specs[bound[n]] for n in order}
    shapes.update({n: None for n in kwargs if n not in shapes})  # constants: no dynamic axes
    return (tuple(args[bound[n]] for n in pos), kwargs or None, shapes,
            [inputs[bound[n]] for n in order])


def apply_input_names(symbols, inputs: Sequence[Input]) -> None:
    """Renames a SymbolTable's inputs to the Input names given (by position), in place.

    Auto-named symbols (`input0_1`) follow: they become `<input name>_<axis>`.
    """
    renames: dict[str, str] = {}
    for k, (spec, inp) in enumerate(zip(symbols.inputs, inputs)):
        if inp.name is None:
            for axis in range(inp.rank):
                if inp.dim_names[axis] is None:
                    renames[f"input{k}_{axis}"] = f"{spec.name}_{axis}"
        else:
            spec.name = inp.name
    for s, n in list(symbols.names.items()):
        if n in renames:
            symbols.names[s] = renames[n]
    symbols.invalidate()


def inp_example_like(ex: torch.Tensor, shape: list[int]) -> torch.Tensor:
    """A fresh example tensor of `ex`'s dtype with `shape`."""
    return _tensor(shape, ex.dtype)


def narrow_to_inputs(symbols, inputs: Sequence[Input]) -> None:
    """Narrows an exported program's SymbolTable to `inputs`' ranges, in place.

    Each Input describes the tensor input at its position. A dynamic axis bound to a symbol
    gets the intersection of the symbol's range and the Input's [min, max] at that axis (a
    shared symbol: of every such range); an axis that is an expression of one symbol (`2*h`)
    narrows that symbol to the values whose expression is in range. The Input's names rename
    the inputs and symbols. The narrowed ranges are checked at call time and written into the
    program's contract.

    Raises:
      ValueError: a count, rank or dtype differs, a static axis is outside the Input's range,
        no size fits both ranges, or an Input profiles= (an ExportedProgram has one range).
    """
    import math

    import sympy

    if len(inputs) != len(symbols.inputs):
        raise ValueError(f"inputs= has {len(inputs)} Input(s) for an exported program with "
                         f"{len(symbols.inputs)} tensor input(s) ({symbols.describe()})")
    for k, (spec, inp) in enumerate(zip(symbols.inputs, inputs)):
        where = f"inputs[{k}] ({spec.name})"
        if inp.profiles and len(inp.profiles) > 1:
            raise ValueError(f"{where}: profiles= needs an nn.Module (each profile is exported with "
                             "its own ranges); an ExportedProgram has one range per axis")
        if inp.rank != len(spec.shape):
            raise ValueError(f"{where}: rank {inp.rank}, but the exported input has shape "
                             f"{spec.shape_str(symbols.names)}")
        if str(inp.dtype).replace("torch.", "") != spec.dtype:
            raise ValueError(f"{where}: dtype {inp.dtype}, but the exported input is {spec.dtype}")
        for axis, e in enumerate(spec.shape):
            lo, hi = inp.min_shape[axis], inp.max_shape[axis]
            if isinstance(e, int):
                if e < lo or (hi is not None and e > hi):
                    raise ValueError(f"{where}: axis {axis} is static ({e}) in the exported program, "
                                     f"outside the Input's range {_fmt_range(lo, hi)}")
                continue
            syms = sorted(e.free_symbols, key=str)
            if isinstance(e, sympy.Symbol):
                s, slo, shi = str(e), lo, hi
            else:
                lin = linear_form(e, syms[0]) if len(syms) == 1 else None
                if lin is None or lin[0] <= 0:
                    raise ValueError(f"{where}: axis {axis} is {symbols.render(str(e))} in the exported "
                                     "program; inputs= narrows axes that are a symbol or a*symbol + b")
                a, b = lin
                s = str(syms[0])
                slo = math.ceil((lo - b) / a)
                shi = None if hi is None else (hi - b) // a
            plo, phi = symbols.ranges.get(s, (0, None))
            nlo = max(plo, slo)
            nhi = phi if shi is None else (shi if phi is None else min(phi, shi))
            if nhi is not None and nlo > nhi:
                raise ValueError(f"{where}: axis {axis} ({symbols.render(str(e))}) is "
                                 f"{_fmt_range(plo, phi)} for '{symbols.names.get(s, s)}' in the "
                                 f"exported program; the Input's {_fmt_range(lo, hi)} leaves no size")
            symbols.ranges[s] = (nlo, nhi)
            name = inp.dim_names[axis]
            if name is not None and isinstance(e, sympy.Symbol):
                symbols.names[s] = name
        if inp.name is not None:
            spec.name = inp.name
    symbols.invalidate()


# -- ranges torch.export cannot prove its guards over -------------------------------------------

# Evaluations of a guard over its symbols' ranges, at most, before the check gives up.
_MAX_GUARD_EVALUATIONS = 200_000


def violated_dim_names(message: str) -> set[str]:
    """The Dim names of torch.export's `Constraints violated (a, b)!` error, or an empty set."""
    import re

    m = re.search(r"Constraints violated \(([^)]*)\)!", message)
    return {n.strip() for n in m.group(1).split(",") if n.strip()} if m else set()


def with_auto_dims(dynamic_shapes, names: set[str]):
    """`dynamic_shapes` with every torch.export Dim named in `names` replaced by
    `Dim.AUTO(min=, max=)` of the same range (nested tuples, lists and dicts followed).

    torch.export checks a named Dim's guards over its whole range and refuses one it cannot
    prove (`Min(64*p + 64, 128*p + 128) == 64*p + 64`, true for every p >= 0, from GQA's key
    repeat); with AUTO it keeps the guard instead, which the caller then proves over the range
    (check_auto_dims) and the call checks enforce.
    """
    from torch.export import Dim

    def walk(v):
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return type(v)(walk(x) for x in v)
        if getattr(v, "__name__", None) in names and hasattr(v, "min") and hasattr(v, "max"):
            hi = v.max
            return Dim.AUTO(min=v.min, **({} if is_unbounded(hi) else {"max": hi}))
        return v

    return walk(dynamic_shapes)


def check_auto_dims(symbols, inputs: Sequence[Input], names: set[str]):
    """After an export with `Dim.AUTO` for the symbols `names` (with_auto_dims): what the program
    must have for the Inputs' ranges to hold, checked.

    Each Input axis of such a symbol must still be a plain symbol of the program, over at least
    the Input's [min, max] (a min below 2 stands: AUTO starts at 2 where a named Dim keeps 0 or 1
    over the same traced graph); every guard the program keeps on it (`symbols.relations`) must hold
    for every size in the Inputs' ranges (evaluated size by size: at most
    _MAX_GUARD_EVALUATIONS). Axes sharing a name that became different symbols are tied by
    equality relations.

    Args:
      symbols: the program's SymbolTable (contract.dims.from_exported_program).
      inputs: the Inputs in the program's tensor-input order.
      names: the Dim names exported as AUTO.
    Returns:
      ({program symbol: the Input's name for it}, [equality relations to add],
       {program symbol: its range for the contract}).
    Raises:
      ValueError: why the program does not serve the Inputs' ranges (an axis specialized,
        narrowed or made an expression; a guard false for a size in range, or one over too many
        sizes to check).
    """
    import itertools
    import math

    import sympy

    by_name: dict[str, list[tuple[str, object]]] = {}
    ranges: dict[str, tuple[int, int | None]] = {}
    widened: dict[str, tuple[int, int | None]] = {}
    wanted = symbol_ranges(inputs)   # a shared name's ranges intersected, as the Dims were made
    for k, (spec, inp) in enumerate(zip(symbols.inputs, inputs)):
        for axis in range(inp.rank):
            n = _auto_name(inp, k, axis)
            if n not in names or not inp.is_dynamic(axis):
                continue
            e, (lo, hi) = spec.shape[axis], wanted[n]
            where = f"{inp.name or spec.name} axis {axis} ('{n}', {_fmt_range(lo, hi)})"
            if isinstance(e, int):
                raise ValueError(f"{where}: torch.export specializes it to {e}")
            if not isinstance(e, sympy.Symbol):
                raise ValueError(f"{where}: torch.export makes it {e}, not a free size")
            plo, phi = symbols.ranges.get(str(e), (0, None))
            # AUTO starts a size at 2 (torch.export's 0/1 specialization), where a named Dim
            # keeps the min it is given over the same traced graph: the Input's min stands.
            if (plo > lo and plo > 2) or (phi is not None and (hi is None or phi < hi)):
                raise ValueError(f"{where}: torch.export narrows it to {_fmt_range(plo, phi)}")
            by_name.setdefault(n, []).append((where, e))
            ranges[str(e)] = (lo, hi)
            # the contract's range: torch's, from the Input's min where that is below AUTO's 2
            widened[str(e)] = (min(lo, widened.get(str(e), (plo,))[0]), phi)
    out_names = {str(e): n for n, axes in by_name.items() for _, e in axes}
    symbols.names.update(out_names)   # the messages below name them as the Inputs do
    ties = [f"{axes[0][1]} == {e}" for axes in by_name.values() for _, e in axes[1:] if e != axes[0][1]]
    for text in symbols.relations:
        _, holds, syms = parse_relation(text)
        syms = sorted(syms)
        if not set(syms) & set(ranges):
            continue
        bounds = [ranges.get(s) or symbols.ranges.get(s, (0, None)) for s in syms]
        shown = symbols.render(text)
        if any(hi is None for _, hi in bounds):
            raise ValueError(f"torch.export relies on '{shown}', which symhlo cannot check for "
                             "every size in range (unbounded)")
        spans = [range(lo, hi + 1) for lo, hi in bounds]
        count = math.prod(len(span) for span in spans)
        if count > _MAX_GUARD_EVALUATIONS:
            raise ValueError(f"torch.export relies on '{shown}', which symhlo cannot check for "
                             f"every size in range ({count} sizes)")
        for values in itertools.product(*spans):
            env = dict(zip(syms, values))
            if not holds(env):
                at = ", ".join(f"{symbols.names.get(s, s)} = {v}" for s, v in env.items())
                raise ValueError(f"torch.export relies on '{shown}', false at {at}")
    return out_names, ties, widened
