"""Shared helper for test/models: real model families, compiled once, run at several sizes.

`check_model(model, args, dynamic_shapes, sizes, name=...)` is what every test/models test calls
(text and vision alike). It

  * exports + lowers the model once (symhlo.export) and compiles that program once for IREE's CPU
    target (symhlo.compile on the StableHLOProgram: no second export for the compile),
  * checks the StableHLO is pure (only `stablehlo.*` / `func.*` ops), serializes as a portable
    artifact, and keeps every output axis torch.export marks symbolic as `?`,
  * checks nothing was pinned to the example's sizes: a second symhlo.export at one of `sizes`
    that differs from the example in every dynamic axis must give the identical StableHLO text
    (`check_specialization=False` skips that second export; the runs at other sizes still catch
    a pin that changes numbers or shapes),
  * runs the compiled module at every call in `sizes` and compares each output with eager
    PyTorch (torch.testing.assert_close), including the output's structure: a model returning a
    transformers ModelOutput must come back as the same ModelOutput class with the same keys.

A call in `sizes` is a tuple of positional args, or `Call(*args, **kwargs)` for keyword inputs
(HF models take `input_ids=`, `attention_mask=` ...).

Reports: one line per model in pytest's terminal summary; with `SYMHLO_MODELS_REPORT=path.jsonl`
each report is also appended there as one JSON object (keys: name, family, dims, sizes,
max_abs_err, max_rel_err, export_s, iree_s, check_s); scripts/models_table.py renders that file
into README.md's "Models" table.

Every test directory's conftest.py is imported as the module `conftest`, so helpers live here
and tests import them with `from models_harness import ...` (test/models/conftest.py puts this
directory on sys.path).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import torch
import torch.utils._pytree as pytree

import symhlo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz"))
import size_fuzz  # noqa: E402  (test/fuzz/size_fuzz.py)

_REPORTS: list["Report"] = []
REPORT_ENV = "SYMHLO_MODELS_REPORT"


@dataclass
class Call:
    """One call of the model: positional and keyword arguments."""

    args: tuple
    kwargs: dict

    def __init__(self, *args, **kwargs):
        self.args = tuple(args)
        self.kwargs = dict(kwargs)


def as_call(c) -> Call:
    if isinstance(c, Call):
        return c
    if isinstance(c, dict):
        return Call(**c)
    return Call(*c)


@dataclass
class Report:
    name: str
    family: str = ""
    dims: list[str] = field(default_factory=list)      # "batch[2..64]: input_ids[0]" ...
    sizes: list[list[list[int]]] = field(default_factory=list)  # per call, the input shapes
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0   # max |got - expected| / max |expected|, per output
    export_s: float = 0.0      # torch.export + lowering to StableHLO
    iree_s: float = 0.0        # IREE preparation + iree-compile
    check_s: float = 0.0       # the second export (specialization check), 0 when skipped

    def line(self) -> str:
        sizes = "; ".join(",".join("x".join(map(str, s)) for s in call) for call in self.sizes)
        return (f"{self.name}: export={self.export_s:.1f}s iree={self.iree_s:.1f}s "
                f"spec-check={self.check_s:.1f}s max_err={self.max_abs_err:.2e} "
                f"(rel {self.max_rel_err:.1e}) dims=[{'; '.join(self.dims)}] sizes=[{sizes}]")


def seeded(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(*shape: int, seed: int | None = None, dtype=torch.float32) -> torch.Tensor:
    seed = sum(shape) + len(shape) if seed is None else seed
    return torch.randn(*shape, generator=seeded(seed), dtype=dtype)


def randint(high: int, *shape: int, seed: int | None = None) -> torch.Tensor:
    seed = sum(shape) + 7 if seed is None else seed
    return torch.randint(0, high, shape, generator=seeded(seed))


def flat_tensors(x) -> list[torch.Tensor]:
    return [t for t in pytree.tree_leaves(x) if isinstance(t, torch.Tensor)]


def shapes(call: Call) -> list[list[int]]:
    return [list(t.shape) for t in flat_tensors((call.args, call.kwargs))]


def check_pure(text: str) -> None:
    from symhlo.passes.ir_util import new_context, walk_ops
    from torch_mlir import ir

    module = ir.Module.parse(text, new_context())
    impure = sorted({op.name for op in walk_ops(module.operation)
                     if op.name.split(".")[0] not in ("stablehlo", "func")})
    assert not impure, f"ops outside stablehlo/func: {impure}"


def _result_types(text: str) -> list[list[str]]:
    m = re.search(r"func\.func @main\(.*?\)\s*->\s*(\(.*?\)|tensor<[^>]*>)\s*(attributes|\{)",
                  text, re.S)
    assert m, "no @main in the StableHLO"
    return [t.split("x")[:-1] for t in re.findall(r"tensor<([^>]*)>", m.group(1))]


def check_symbolic_outputs(prog) -> int:
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
            if isinstance(s, torch.SymInt) and not s.node.expr.is_number:
                n += 1
                assert d == "?", f"output {k} axis {axis} is symbolic ({s}) but static ({d})"
            else:
                assert d == str(int(s)), f"output {k} axis {axis}: {d} != static {int(s)}"
    return n


def dynamic_axes(prog) -> list[tuple[int, int]]:
    """(flat user-input position, axis) of every input axis that is symbolic in torch.export."""
    from torch.export.graph_signature import InputKind

    ep = prog.exported_program
    user = [s.arg.name for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    nodes = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    out = []
    pos = 0
    for name in user:
        val = nodes[name].meta.get("val")
        if not isinstance(val, torch.Tensor):
            continue
        for axis, s in enumerate(val.shape):
            if isinstance(s, torch.SymInt) and not s.node.expr.is_number:
                out.append((pos, axis))
        pos += 1
    return out


def _dim_labels(prog) -> list[str]:
    labels = []
    for d in prog.dims:
        if not d.bindings and not d.derived:
            continue
        hi = "inf" if d.max is None else str(d.max)
        where = ", ".join([f"{i}[{a}]" for i, a in d.bindings] +
                          [f"{i}[{a}] = {e}" for i, a, e in d.derived])
        labels.append(f"{d.name}[{d.min}..{hi}]: {where}")
    return labels


def _structure(x):
    """The pytree structure of an output, with ModelOutput classes and keys kept."""
    return pytree.tree_structure(x)


def check_model(model: torch.nn.Module, args: Sequence[Any], dynamic_shapes, sizes: Sequence[Any],
                *, name: str, family: str = "", kwargs: dict | None = None,
                rtol: float = 1e-4, atol: float = 1e-4, check_specialization: bool = True,
                expect_symbolic_outputs: bool = True, eager=None, compiled=None,
                report: bool = True) -> Report:
    """Export + compile `model` once; run it at every call in `sizes`; compare with eager.

    Args:
      model: the nn.Module (put in eval mode here), passed to symhlo as is (not wrapped).
      args, kwargs: torch.export's example inputs.
      dynamic_shapes: torch.export's spelling (Dim; keyed by argument name when kwargs are used).
      sizes: three or more calls (tuples of args, or Call(*args, **kwargs)); at least one must
        differ from the example in every dynamic axis, with sizes >= 2 there (the first such
        call is also the specialization check's second example).
      name: the model's row label (report, README table); family: a grouping label.
      rtol, atol: assert_close tolerances.
      check_specialization: also export at that differing call and require the same StableHLO.
      expect_symbolic_outputs: assert at least one output axis is `?`.
      eager: what to compare with (default: `model`), e.g. a reference loop.
      compiled: a list; when given, the CompiledModule is appended to it (to reuse it).
      report: False keeps the result out of the session summary and $SYMHLO_MODELS_REPORT
        (for small regression modules that are not model rows of the README table).
    Returns:
      the Report (printed at the end of the session and appended to $SYMHLO_MODELS_REPORT).
    """
    model = model.eval()
    eager = eager or model
    example = Call(*args, **(kwargs or {}))
    calls = [as_call(c) for c in sizes]
    assert len(calls) >= 3, "run at least three sizes"
    rep = Report(name, family)

    t0 = time.perf_counter()
    prog = symhlo.export(model, tuple(args), kwargs=kwargs, dynamic_shapes=dynamic_shapes)
    rep.export_s = time.perf_counter() - t0
    check_pure(prog.text)
    assert prog.portable_artifact(), "empty portable artifact"
    n_sym = check_symbolic_outputs(prog)
    if expect_symbolic_outputs:
        assert n_sym > 0, "no output axis is symbolic: the test does not exercise dynamic dims"
    rep.dims = _dim_labels(prog)

    axes = dynamic_axes(prog)
    assert axes, "no input axis is dynamic in torch.export (all specialized?)"
    ex = flat_tensors((example.args, example.kwargs))

    def differs_everywhere(c: Call) -> bool:
        # (and >= 2 there: torch.export specializes an example size of 0 or 1)
        fl = flat_tensors((c.args, c.kwargs))
        return all(fl[i].shape[a] != ex[i].shape[a] and fl[i].shape[a] >= 2 for i, a in axes)

    other = next((c for c in calls if differs_everywhere(c)), None)
    assert other is not None, ("no call in `sizes` differs from the example in every dynamic axis "
                               f"{axes} (with sizes >= 2): a size pinned to the example could pass")
    if check_specialization:
        t0 = time.perf_counter()
        prog_b = symhlo.export(model, other.args, kwargs=other.kwargs or None,
                               dynamic_shapes=dynamic_shapes)
        rep.check_s = time.perf_counter() - t0
        if prog_b.text != prog.text:
            import difflib

            diff = list(difflib.unified_diff(prog.text.splitlines(), prog_b.text.splitlines(),
                                             f"export at {shapes(example)}",
                                             f"export at {shapes(other)}", lineterm="", n=0))
            raise AssertionError("the StableHLO depends on the example sizes (a dynamic size was "
                                 "pinned to the example):\n" + "\n".join(diff[:24]))

    t0 = time.perf_counter()
    cm = symhlo.compile(prog)
    rep.iree_s = time.perf_counter() - t0
    if compiled is not None:
        compiled.append(cm)

    for c in calls:
        with torch.no_grad():
            expected = eager(*c.args, **c.kwargs)
        got = cm(*c.args, **c.kwargs)
        assert type(got) is type(expected), (f"at {shapes(c)}: symhlo returned a "
                                             f"{type(got).__name__}, eager a {type(expected).__name__}")
        assert _structure(got) == _structure(expected), (
            f"at {shapes(c)}: output structure differs:\n symhlo: {_structure(got)}\n"
            f" eager:  {_structure(expected)}")
        g_flat, e_flat = flat_tensors(got), flat_tensors(expected)
        assert len(g_flat) == len(e_flat)
        for k, (g, e) in enumerate(zip(g_flat, e_flat)):
            assert g.shape == e.shape, f"output {k} at {shapes(c)}: {g.shape} != {e.shape}"
            assert g.dtype == e.dtype, f"output {k}: dtype {g.dtype} != {e.dtype}"
            torch.testing.assert_close(g, e, rtol=rtol, atol=atol,
                                       msg=lambda m: f"output {k} at {shapes(c)}: {m}")
            if e.numel() and e.is_floating_point():
                err = float((g - e).abs().max())
                rep.max_abs_err = max(rep.max_abs_err, err)
                rep.max_rel_err = max(rep.max_rel_err, err / max(float(e.abs().max()), 1e-30))
            elif e.numel():
                rep.max_abs_err = max(rep.max_abs_err, float((g.long() - e.long()).abs().max()))
        rep.sizes.append(shapes(c))
    # The same compiled module at sizes nobody picked (test/fuzz/size_fuzz.py; SYMHLO_FUZZ).
    size_fuzz.fuzz_model(size_fuzz.Target(
        name, cm, prog.symbols, eager, [(example.args, example.kwargs)] + [(c.args, c.kwargs) for c in calls],
        rtol=rtol, atol=atol))
    if report:
        record(rep)
    return rep


def record(rep: Report) -> None:
    """Adds `rep` to the session summary and to $SYMHLO_MODELS_REPORT (JSON lines)."""
    _REPORTS.append(rep)
    path = os.environ.get(REPORT_ENV)
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(asdict(rep)) + "\n")


def pytest_terminal_summary(terminalreporter):
    if _REPORTS:
        terminalreporter.section("symhlo models")
        for rep in _REPORTS:
            terminalreporter.write_line(rep.line())
    fuzz = size_fuzz.summary_lines()
    if fuzz:
        terminalreporter.section("symhlo size fuzzing")
        for line in fuzz:
            terminalreporter.write_line(line)


def reinit(model: torch.nn.Module, seed: int = 0) -> torch.nn.Module:
    """Variance-preserving random weights and non-trivial BatchNorm statistics.

    HF's own init (normal, std 0.02, BatchNorm at mean 0 / var 1 in eval mode) shrinks a CNN's
    activations by ~10x per layer: MobileNetV2's last_hidden_state came out ~1e-25, where any
    tolerance passes anything. He-normal convs / linears keep outputs O(1), so a wrong number
    shows."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Linear)):
                fan_in = m.weight[0].numel()
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * (2.0 / fan_in) ** 0.5)
                if m.bias is not None:
                    m.bias.copy_(torch.rand(m.bias.shape, generator=g) * 0.2 - 0.1)
            elif isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
                m.weight.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
                m.bias.copy_(torch.rand(m.bias.shape, generator=g) * 0.2 - 0.1)
    return model


def check_magnitude(model, args, floor: float = 1e-2) -> None:
    """The outputs are large enough for the tolerances to mean something."""
    with torch.no_grad():
        out = model.eval()(*args)
    import torch.utils._pytree as pytree
    for t in pytree.tree_leaves(out):
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            assert float(t.abs().max()) > floor, f"output magnitude {float(t.abs().max()):.2e}"
