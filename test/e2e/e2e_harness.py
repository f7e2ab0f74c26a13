"""Shared e2e helper: compile a model once with symhlo, run it at several sizes, compare with eager.

`check_model(model, example_args, dynamic_shapes, sizes)` is what every e2e test calls. It

  * exports + lowers the model once (symhlo.export) and compiles that program once for IREE's CPU
    target (symhlo.compile on the StableHLOProgram: no second export),
  * checks the StableHLO is pure (only `stablehlo.*` / `func.*` ops, walked in the IR, not grepped),
    that `portable_artifact()` serializes it, and that every output axis torch.export marks symbolic
    is `?` in the StableHLO's result types,
  * runs the compiled module at every argument tuple in `sizes` (at least three, at least one with
    shapes different from the example, so a size pinned to the example cannot pass) and compares each
    output with eager PyTorch via torch.testing.assert_close.

A summary line per model (sizes run, max error, dialects, compile time) is printed at the end of the
session; `SYMHLO_E2E_REPORT=path.jsonl` also appends it as JSON.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import pytest
import torch

import symhlo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz"))
import size_fuzz  # noqa: E402  (test/fuzz/size_fuzz.py)

_REPORTS: list["Report"] = []


@dataclass
class Report:
    name: str
    sizes: list[list[tuple[int, ...]]] = field(default_factory=list)
    max_abs_err: float = 0.0
    dialects: list[str] = field(default_factory=list)
    export_s: float = 0.0
    iree_s: float = 0.0

    def line(self) -> str:
        sizes = "; ".join(",".join("x".join(map(str, s)) for s in call) for call in self.sizes)
        return (f"{self.name}: dialects={'+'.join(self.dialects)} export={self.export_s:.1f}s "
                f"iree={self.iree_s:.1f}s max_err={self.max_abs_err:.2e} sizes=[{sizes}]")


def seeded(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(*shape: int, gen: torch.Generator | None = None, dtype=torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=gen or seeded(sum(shape) + len(shape)), dtype=dtype)


def randint(high: int, *shape: int, gen: torch.Generator | None = None) -> torch.Tensor:
    return torch.randint(0, high, shape, generator=gen or seeded(sum(shape) + 7))


def randomize_bn(model: torch.nn.Module, seed: int) -> torch.nn.Module:
    """Non-trivial running statistics, so batch_norm in inference mode is not the identity."""
    gen = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)
    return model


def op_names(text: str) -> list[str]:
    """Every op name in an MLIR module, from a walk of the parsed IR."""
    from symhlo.passes.ir_util import new_context, walk_ops
    from torch_mlir import ir

    module = ir.Module.parse(text, new_context())
    return [op.name for op in walk_ops(module.operation)]


def check_pure(text: str) -> list[str]:
    """Asserts only stablehlo/func ops remain; returns the sorted dialect names."""
    names = op_names(text)
    impure = sorted({n for n in names if n.split(".")[0] not in ("stablehlo", "func")})
    assert not impure, f"ops outside stablehlo/func: {impure}"
    return sorted({n.split(".")[0] for n in names})


def _result_types(text: str) -> list[list[str]]:
    m = re.search(r"func\.func @main\(.*?\)\s*->\s*(\(.*?\)|tensor<(?:[^<>]|<[^<>]*>)*>)\s*"
                  r"(attributes|\{)", text, re.S)
    assert m, "no @main in the StableHLO"
    types = re.findall(r"tensor<((?:[^<>]|<[^<>]*>)*)>", m.group(1))   # nested: complex<f32>
    return [re.match(r"((?:(?:\?|\d+)x)*)", t).group(1).split("x")[:-1] for t in types]


def check_symbolic_outputs(prog: symhlo.StableHLOProgram) -> int:
    """Every output axis torch.export marks symbolic must be `?`; returns how many there are."""
    ep = prog.exported_program
    outs = [n for n in ep.graph.nodes if n.op == "output"][0].args[0]
    vals = [o.meta["val"] for o in outs]
    types = _result_types(prog.text)
    checks = len(prog.symbols.runtime_checks)   # call-time checks: results after the outputs
    if checks:
        assert all(t == [] for t in types[-checks:]), "a runtime check result is not 0-d"
        types = types[:-checks]
    assert len(types) == len(vals), f"{len(vals)} outputs in torch.export, {len(types)} in StableHLO"
    n = 0
    for k, (val, dims) in enumerate(zip(vals, types)):
        assert len(dims) == val.dim(), f"output {k}: rank {len(dims)} != torch's {val.dim()}"
        for axis, (s, d) in enumerate(zip(val.shape, dims)):
            symbolic = isinstance(s, torch.SymInt) and not s.node.expr.is_number
            if symbolic:
                n += 1
                assert d == "?", f"output {k} axis {axis} is symbolic ({s}) but static ({d})"
            else:
                assert d == str(int(s)), f"output {k} axis {axis}: {d} != static {int(s)}"
    return n


def _dynamic_axes(dynamic_shapes) -> list[tuple[int, int]]:
    """(input position, axis) of every axis `dynamic_shapes` marks dynamic."""
    out = []
    specs = dynamic_shapes.values() if isinstance(dynamic_shapes, dict) else dynamic_shapes
    for i, spec in enumerate(specs):
        if isinstance(spec, dict):
            out += [(i, a) for a in spec]
        elif isinstance(spec, (list, tuple)):
            out += [(i, a) for a, d in enumerate(spec) if d is not None]
    return out


def check_not_specialized(model: torch.nn.Module, example_args: Sequence[Any],
                          other_args: Sequence[Any], dynamic_shapes, *,
                          prog: symhlo.StableHLOProgram | None = None) -> symhlo.StableHLOProgram:
    """Silent-specialization check: export at two example sizes, require identical StableHLO.

    A size pinned to the example (a `tensor<8x...>` where torch.export had a symbol, a constant
    8 in the size arithmetic, an iota or slice of length 8) changes with the example, so the two
    texts differ; a module whose every size is symbolic does not. Comparing two exports instead of
    grepping one for the example value has no false positives from unrelated constants that
    happen to equal it. Every output axis torch.export marks symbolic must also be `?` in both.

    Args:
      model, dynamic_shapes: as for check_model.
      example_args, other_args: two example tuples whose every dynamic axis differs.
      prog: the export at `example_args` when the caller already has it.
    Returns:
      the program exported at `example_args`.
    """
    import difflib

    model = model.eval()
    flat_a, flat_b = _flat(example_args), _flat(other_args)
    for i, axis in _dynamic_axes(dynamic_shapes):
        a, b = flat_a[i].shape[axis], flat_b[i].shape[axis]
        assert a != b, f"input {i} axis {axis} is {a} in both examples: the check would miss a leak"
    prog_a = prog or symhlo.export(model, tuple(example_args), dynamic_shapes=dynamic_shapes)
    prog_b = symhlo.export(model, tuple(other_args), dynamic_shapes=dynamic_shapes)
    for p in (prog_a, prog_b):
        check_symbolic_outputs(p)
    if prog_a.text != prog_b.text:
        diff = list(difflib.unified_diff(prog_a.text.splitlines(), prog_b.text.splitlines(),
                                         f"export at {_shapes(example_args)}",
                                         f"export at {_shapes(other_args)}", lineterm="", n=0))
        raise AssertionError("the StableHLO depends on the example sizes (a dynamic size was "
                             "pinned to the example):\n" + "\n".join(diff[:24]))
    return prog_a


def _flat(x) -> list[torch.Tensor]:
    import torch.utils._pytree as pytree

    return [t for t in pytree.tree_leaves(x) if isinstance(t, torch.Tensor)]


def _shapes(args) -> list[tuple[int, ...]]:
    return [tuple(t.shape) for t in _flat(args)]


def check_model(name: str, model: torch.nn.Module, example_args: Sequence[Any], dynamic_shapes,
                sizes: Sequence[Sequence[Any]], *, rtol: float = 1e-4, atol: float = 1e-4,
                expect_symbolic_outputs: bool = True, equal_nan: bool = False,
                compiled: list | None = None,
                tie_picks: dict[int, tuple[int, int, bool]] | None = None) -> Report:
    """Compile `model` once, run it at every args tuple in `sizes`, compare each with eager.

    Args:
      name: the label in the session summary.
      model: the module (put in eval mode here).
      example_args: torch.export's example inputs.
      dynamic_shapes: torch.export's spelling.
      sizes: three or more argument tuples; one must differ in shape from the example.
      rtol, atol: assert_close tolerances (relative: outputs grow with width).
      expect_symbolic_outputs: assert at least one output axis is symbolic.
      equal_nan: NaN where eager has NaN counts as equal (functions eager defines as NaN, ops
        whose NaN rules are tested).
      compiled: a list; when given, the CompiledModule is appended to it (to reuse it).
      tie_picks: {flat output index: (input position, dim, keepdim)} for index outputs whose pick
        among equal elements eager leaves unspecified (topk, kthvalue, sort without stable=True).
        Only the size fuzzer uses it (its tiled inputs repeat values): there such an output may
        name other elements than eager's if they hold equal values. `sizes` compare exactly.
    Returns:
      the Report (also printed at the end of the session).
    """
    model = model.eval()
    assert len(sizes) >= 3, "run at least three sizes"
    example_shapes = _shapes(example_args)
    assert any(_shapes(a) != example_shapes for a in sizes), "no size differs from the example"
    rep = Report(name)
    t0 = time.perf_counter()
    prog = symhlo.export(model, tuple(example_args), dynamic_shapes=dynamic_shapes)
    rep.export_s = time.perf_counter() - t0
    rep.dialects = check_pure(prog.text)
    artifact = prog.portable_artifact()
    assert isinstance(artifact, bytes) and len(artifact) > 0
    n_sym = check_symbolic_outputs(prog)
    if expect_symbolic_outputs:
        assert n_sym > 0, "no output axis is symbolic: the test does not exercise dynamic dims"
    t0 = time.perf_counter()
    cm = symhlo.compile(prog)
    rep.iree_s = time.perf_counter() - t0
    if compiled is not None:
        compiled.append(cm)
    for args in sizes:
        with torch.no_grad():
            expected = _flat(model(*args))
        got = _flat(cm(*args))
        assert len(got) == len(expected)
        for k, (g, e) in enumerate(zip(got, expected)):
            assert g.shape == e.shape, f"output {k} at {_shapes(args)}: {g.shape} != {e.shape}"
            assert g.dtype == e.dtype, f"output {k}: dtype {g.dtype} != {e.dtype}"
            torch.testing.assert_close(g, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                                       msg=lambda m: f"output {k} at {_shapes(args)}: {m}")
            inexact = e.is_floating_point() or e.is_complex()
            finite = torch.isfinite(e) & torch.isfinite(g) if inexact else None
            if e.numel() and inexact and finite.any():
                rep.max_abs_err = max(rep.max_abs_err, float((g - e)[finite].abs().max()))
            elif e.numel():
                rep.max_abs_err = max(rep.max_abs_err, float((g.long() - e.long()).abs().max()))
        rep.sizes.append(_shapes(args))
    # The same compiled module at sizes nobody picked (test/fuzz/size_fuzz.py; SYMHLO_FUZZ).
    size_fuzz.fuzz_model(size_fuzz.Target(
        name, cm, prog.symbols, model, [(tuple(example_args), {})] + [(tuple(a), {}) for a in sizes],
        rtol=rtol, atol=atol, equal_nan=equal_nan, tie_picks=dict(tie_picks or {})))
    _REPORTS.append(rep)
    path = os.environ.get("SYMHLO_E2E_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(rep.__dict__) + "\n")
    return rep


def pytest_terminal_summary(terminalreporter):
    if _REPORTS:
        terminalreporter.section("symhlo e2e models")
        for rep in _REPORTS:
            terminalreporter.write_line(rep.line())
    fuzz = size_fuzz.summary_lines()
    if fuzz:
        terminalreporter.section("symhlo size fuzzing")
        for line in fuzz:
            terminalreporter.write_line(line)
