"""symhlo.Input: Torch-TensorRT-style shape ranges (min/opt/max), named and shared symbols."""

from __future__ import annotations

from typing import Any, Sequence

import torch


class Input:
    """One tensor input described by ranges.

    An axis is dynamic where min != max and unbounded where max is None. Symbols are named by
    `dims=("batch", None)` or by strings in `shape=("batch", 16)`; the same name on several
    inputs is one shared symbol.

    Args:
      shape: a static shape, or one with names for dynamic axes (then min/max come from
        min_shape/max_shape or default to [1, unbounded]).
      min_shape, opt_shape, max_shape: per-axis ranges; max entries may be None (unbounded).
      dtype: the torch dtype.
      name: the input's name in error messages.
      dims: a symbol name (or None) per axis.
      profiles: disjoint optimization profiles, each a dict(min_shape=, opt_shape=, max_shape=).
    """

    def __init__(self, shape: Sequence | None = None, *, min_shape: Sequence | None = None,
                 opt_shape: Sequence | None = None, max_shape: Sequence | None = None,
                 dtype: torch.dtype = torch.float32, name: str | None = None,
                 dims: Sequence | None = None, profiles: Sequence[dict] | None = None):
        self.dtype = dtype
        self.name = name
        self.profiles = [dict(p) for p in profiles] if profiles else None
        if self.profiles:
            first = self.profiles[0]
            min_shape = min_shape or first.get("min_shape")
            opt_shape = opt_shape or first.get("opt_shape")
            max_shape = max_shape or first.get("max_shape")
            # The union of all profiles is the range exported.
            ranks = {len(p["min_shape"]) for p in self.profiles} | {len(p["max_shape"]) for p in self.profiles}
            if len(ranks) != 1:
                raise ValueError(f"Input{_quote(name)}: profiles have different ranks: {self.profiles}")
            rank = ranks.pop()
            min_shape = [min(p["min_shape"][i] for p in self.profiles) for i in range(rank)]
            max_shape = [None if any(p["max_shape"][i] is None for p in self.profiles)
                         else max(p["max_shape"][i] for p in self.profiles) for i in range(rank)]
            opt_shape = list(first.get("opt_shape") or first["min_shape"])
        names: list[str | None]
        if shape is not None:
            names = [s if isinstance(s, str) else None for s in shape]
            static = [s if isinstance(s, int) else None for s in shape]
            if min_shape is None:
                min_shape = [s if s is not None else 1 for s in static]
            if max_shape is None:
                max_shape = [s if s is not None else None for s in static]
            if opt_shape is None:
                opt_shape = [s if s is not None else max(2, min_shape[i]) for i, s in enumerate(static)]
        else:
            names = [None] * len(min_shape or opt_shape or max_shape or [])
        if dims is not None:
            if len(dims) != len(names):
                raise ValueError(f"Input{_quote(name)}: dims={tuple(dims)} has {len(dims)} entries "
                                 f"for a rank-{len(names)} input")
            names = [d if d is not None else n for d, n in zip(dims, names)]
        if min_shape is None or max_shape is None:
            if opt_shape is not None:
                min_shape = min_shape or list(opt_shape)
                max_shape = max_shape or list(opt_shape)
            else:
                raise ValueError(f"Input{_quote(name)}: give shape= or min_shape/opt_shape/max_shape")
        if opt_shape is None:
            opt_shape = [lo if hi == lo else max(lo, min(2, hi) if hi is not None else 2)
                         for lo, hi in zip(min_shape, max_shape)]
        if not (len(min_shape) == len(opt_shape) == len(max_shape)):
            raise ValueError(f"Input{_quote(name)}: min_shape={tuple(min_shape)}, opt_shape="
                             f"{tuple(opt_shape)}, max_shape={tuple(max_shape)} differ in rank")
        for i, (lo, opt, hi) in enumerate(zip(min_shape, opt_shape, max_shape)):
            if lo < 0 or (hi is not None and not lo <= opt <= hi) or opt < lo:
                raise ValueError(f"Input{_quote(name)}: axis {i} needs min <= opt <= max, got "
                                 f"min_shape={tuple(min_shape)}, opt_shape={tuple(opt_shape)}, "
                                 f"max_shape={tuple(max_shape)}")
        self.min_shape = tuple(min_shape)
        self.opt_shape = tuple(opt_shape)
        self.max_shape = tuple(max_shape)
        self.dim_names = tuple(names)

    def is_dynamic(self, axis: int) -> bool:
        return self.min_shape[axis] != self.max_shape[axis] or self.dim_names[axis] is not None

    def __repr__(self) -> str:
        return (f"Input(min_shape={self.min_shape}, opt_shape={self.opt_shape}, "
                f"max_shape={self.max_shape}, dtype={self.dtype}, dims={self.dim_names})")

    def example(self) -> torch.Tensor:
        """An example tensor for torch.export: opt shape, moved off 0/1 on dynamic axes."""
        shape = []
        for axis, opt in enumerate(self.opt_shape):
            if self.is_dynamic(axis) and opt < 2:
                hi = self.max_shape[axis]
                opt = 2 if hi is None or hi >= 2 else opt
            shape.append(opt)
        if self.dtype.is_floating_point or self.dtype.is_complex:
            return torch.randn(shape, dtype=self.dtype)
        if self.dtype == torch.bool:
            return torch.zeros(shape, dtype=torch.bool)
        return torch.zeros(shape, dtype=self.dtype)


def _quote(name: str | None) -> str:
    return f" '{name}'" if name else ""


def inputs_to_export_spec(inputs: Sequence[Input]):
    """[Input] -> (example args, torch.export dynamic_shapes, {}) with shared Dims by name."""
    from torch.export import Dim

    named: dict[str, Any] = {}
    ranges: dict[str, tuple[int, int | None]] = {}
    for k, inp in enumerate(inputs):
        for axis in range(len(inp.min_shape)):
            if not inp.is_dynamic(axis):
                continue
            n = inp.dim_names[axis] or f"{inp.name or f'input{k}'}_{axis}"
            lo, hi = inp.min_shape[axis], inp.max_shape[axis]
            if n in ranges:
                plo, phi = ranges[n]
                lo = max(lo, plo)
                hi = phi if hi is None else (hi if phi is None else min(hi, phi))
            ranges[n] = (lo, hi)
    for n, (lo, hi) in ranges.items():
        kwargs = {"min": lo}
        if hi is not None:
            kwargs["max"] = hi
        named[n] = Dim(n, **kwargs)
    args, specs, example_size = [], [], {}
    for k, inp in enumerate(inputs):
        ex = inp.example()
        shape = list(ex.shape)
        for axis in range(len(shape)):
            if inp.is_dynamic(axis):
                n = inp.dim_names[axis] or f"{inp.name or f'input{k}'}_{axis}"
                lo, hi = ranges[n]
                size = example_size.setdefault(n, max(lo, shape[axis]) if hi is None
                                               else min(max(lo, shape[axis]), hi))
                shape[axis] = size
        if shape != list(ex.shape):
            ex = inp_example_like(ex, shape)
        args.append(ex)
        spec = {}
        for axis in range(len(inp.min_shape)):
            if inp.is_dynamic(axis):
                spec[axis] = named[inp.dim_names[axis] or f"{inp.name or f'input{k}'}_{axis}"]
        specs.append(spec or None)
    return tuple(args), tuple(specs), {}


def inp_example_like(ex: torch.Tensor, shape: list[int]) -> torch.Tensor:
    if ex.dtype.is_floating_point:
        return torch.randn(shape, dtype=ex.dtype)
    return torch.zeros(shape, dtype=ex.dtype)
