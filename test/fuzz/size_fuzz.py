"""Differential size fuzzing: a compiled module called at sizes nobody picked, compared with eager.

Every model in the e2e zoo (test/e2e, e2e_harness.check_model) and in test/models
(models_harness.check_model) is compiled once by its own test; with SYMHLO_FUZZ set, that test
then hands the compiled module to `fuzz_model`, which calls it at sizes drawn inside the program's
declared ranges and relations (its SymbolTable: symbols, min / max, derived axes such as `4*h`,
relations such as `m <= n`) and compares each call with eager PyTorch:

  * always the range minimum of every symbol, 1 where the range allows it,
  * tile boundaries (15, 16, 17, 63, 64, 65) and primes (2, 3, 5, 7, 11, 13, 31, 97, 127, 257),
  * the top of the range (and one below it) when the call stays under the cost budget,
  * each candidate of one symbol with the others at the test's own sizes, plus seeded mixes.

Inputs at a new size are the test's own inputs tiled / cropped along each resized axis, so values
keep their domain (token ids below the vocabulary, positive inputs of log, masks of 0 / 1). A call
that breaks a rule torch.export recorded (ShapeError before anything runs) or that eager itself
rejects (an index out of range after a crop) is skipped and counted, not compared.

A failing size is shrunk (each symbol toward its minimum while the failure persists) and reported
as one line: `FUZZ <model>: <wrong|crash> at <shapes> (<symbols>): <first line>; repro: ...`.

Modes (SYMHLO_FUZZ): `off`; `fast` (the default, what `make test` runs: the minimum, 1, a seeded
mix of small primes and 2, and 17 everywhere, within a cost budget of the test's own largest call;
about 0.3 s per model); `full` (`make fuzz`: every candidate, per-symbol sweeps, mixes, the top of
the range, a budget 16x larger). SYMHLO_FUZZ_SEED picks other
mixes, SYMHLO_FUZZ_REPORT=path.jsonl appends one record per model.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import sympy
import torch
import torch.utils._pytree as pytree

import symhlo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "opinfo"))
from opinfo_harness import same_selection  # noqa: E402  (test/opinfo: one valid-selection check for ties)

TILES = (15, 16, 17, 63, 64, 65)
PRIMES = (2, 3, 5, 7, 11, 13, 31, 97, 127, 257)
UNBOUNDED_TOP = 1 << 12          # "top" of an unbounded range: tried only under the budget
FAST_MIN_BUDGET = 1 << 16        # elements, summed over the inputs of one call
FULL_FACTOR = 16
DEFAULT_MODE = "fast"


def mode() -> str:
    m = os.environ.get("SYMHLO_FUZZ", DEFAULT_MODE)
    if m not in ("off", "fast", "full"):
        raise ValueError(f"SYMHLO_FUZZ={m!r}: expected off, fast or full")
    return m


@dataclass
class Record:
    """One model's fuzzing: counts and the shrunk failures (one line each)."""

    name: str
    mode: str
    sizes: int = 0                 # distinct symbol assignments compared with eager
    calls: int = 0                 # calls of the compiled module (shrinking included)
    wrong: int = 0
    crash: int = 0
    rejected: int = 0              # broke a recorded relation (ShapeError) before running
    eager_rejects: int = 0         # eager raised at that size (e.g. an index past a cropped axis)
    over_budget: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"fuzz {self.name}: {self.sizes} sizes, {self.calls} calls, wrong {self.wrong}, "
                f"crash {self.crash}, skipped {self.rejected} relation / {self.eager_rejects} "
                f"eager / {self.over_budget} budget, {self.seconds:.1f}s")


RECORDS: list[Record] = []


# ---------------------------------------------------------------------------------------------
# Sizes


def candidates(lo: int, hi: int | None, full: bool) -> list[int]:
    """The values worth trying for one symbol with range [lo, hi] (hi None: unbounded)."""
    top = UNBOUNDED_TOP if hi is None else hi
    vals = [lo, 1, 2] + list(TILES if full else (17,)) + list(PRIMES if full else (3, 7))
    if full:
        vals += [top, top - 1]
    return sorted({v for v in vals if lo <= v <= top})


def _axis_size(expr: Any, env: dict[str, int]) -> int:
    if isinstance(expr, int):
        return expr
    if isinstance(expr, sympy.Symbol):
        return env[str(expr)]
    return int(expr.xreplace({s: sympy.Integer(env[str(s)]) for s in expr.free_symbols}))


def shapes_for(symbols, env: dict[str, int]) -> list[list[int]]:
    """Every input's shape when the symbols take the values in `env`."""
    return [[_axis_size(e, env) for e in spec.shape] for spec in symbols.inputs]


def assignments(symbols, base: dict[str, int], full: bool, seed: int) -> list[dict[str, int]]:
    """Symbol assignments to try, cheapest kinds first: the minimum, 1, per-symbol sweeps from
    the test's own sizes (`base`), seeded mixes, the top of every range."""
    syms = sorted(symbols.ranges)
    cand = {s: candidates(*symbols.ranges[s], full) for s in syms}
    out: list[dict[str, int]] = [{s: symbols.ranges[s][0] for s in syms},
                                 {s: max(symbols.ranges[s][0], 1) for s in syms}]
    rng = random.Random(seed)
    if full:
        for s in syms:
            out += [{**base, s: v} for v in cand[s]]
        out += [{s: rng.choice(cand[s]) for s in syms} for _ in range(4 * max(1, len(syms)))]
        out.append({s: symbols.ranges[s][1] or UNBOUNDED_TOP for s in syms})
    else:
        out.append({s: rng.choice([v for v in cand[s] if v >= 2] or cand[s]) for s in syms})
        out.append({s: 17 if 17 in cand[s] else max(cand[s]) for s in syms})
    seen, unique = set(), []
    for env in out:
        key = tuple(sorted(env.items()))
        if key not in seen and env != base:
            seen.add(key)
            unique.append(env)
    return unique


# ---------------------------------------------------------------------------------------------
# Inputs


def resize(t: torch.Tensor, shape: Sequence[int]) -> torch.Tensor:
    """`t` tiled and cropped along each axis to `shape` (values keep their domain)."""
    for axis, n in enumerate(shape):
        have = t.shape[axis]
        if n == have:
            continue
        if have == 0:
            t = torch.zeros(*t.shape[:axis], n, *t.shape[axis + 1:], dtype=t.dtype)
            continue
        reps = [1] * t.dim()
        reps[axis] = -(-n // have)
        t = t.repeat(*reps).narrow(axis, 0, n)
    return t.contiguous()


class CallTemplate:
    """One of the test's own calls, as (args, kwargs), and where its @main tensors sit in it."""

    def __init__(self, args: tuple, kwargs: dict, tensors: list[torch.Tensor]):
        self.leaves, self.spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
        index = {id(t): i for i, t in reversed(list(enumerate(tensors)))}
        self.slots = [index.get(id(x)) if isinstance(x, torch.Tensor) else None for x in self.leaves]
        self.tensors = tensors

    def at(self, shapes: Sequence[Sequence[int]]) -> tuple[tuple, dict]:
        new = [resize(t, s) for t, s in zip(self.tensors, shapes)]
        leaves = [x if k is None else new[k] for x, k in zip(self.leaves, self.slots)]
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return args, kwargs


def _numel(shapes) -> int:
    total = 0
    for s in shapes:
        n = 1
        for d in s:
            n *= d
        total += n
    return total


# ---------------------------------------------------------------------------------------------
# Comparing


class Mismatch(AssertionError):
    """symhlo and eager disagree (kind "wrong") or symhlo raised (kind "crash")."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _flat(x) -> list[torch.Tensor]:
    return [t for t in pytree.tree_leaves(x) if isinstance(t, torch.Tensor)]


def compare(got, expected, rtol: float, atol: float, equal_nan: bool,
            tie_picks: dict[int, tuple[torch.Tensor, int, bool]] | None = None) -> None:
    """Raises Mismatch unless every output matches eager's. `tie_picks` maps an index output
    (its position among the flat outputs) to (input, dim, keepdim) where eager's pick among equal
    elements is unspecified (topk, kthvalue, an unstable sort): there it may differ from eager's
    where both pick equal values (`same_selection`)."""
    g_flat, e_flat = _flat(got), _flat(expected)
    if len(g_flat) != len(e_flat):
        raise Mismatch("wrong", f"{len(g_flat)} outputs, eager has {len(e_flat)}")
    for k, (g, e) in enumerate(zip(g_flat, e_flat)):
        if g.shape != e.shape:
            raise Mismatch("wrong", f"output {k}: shape {tuple(g.shape)} != eager {tuple(e.shape)}")
        if g.dtype != e.dtype:
            raise Mismatch("wrong", f"output {k}: dtype {g.dtype} != eager {e.dtype}")
        pick = (tie_picks or {}).get(k)
        if pick is not None and e.dtype == torch.int64 and not torch.equal(g, e) \
                and same_selection(g, e, pick):
            continue
        try:
            torch.testing.assert_close(g, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
        except AssertionError as err:
            detail = " ".join(str(err).split())
            raise Mismatch("wrong", f"output {k}: {detail[:200]}") from None


# ---------------------------------------------------------------------------------------------
# The driver


@dataclass
class Target:
    """What fuzz_model needs from a test: the model, its compiled module and its calls."""

    name: str
    compiled: Any                  # symhlo.CompiledModule
    symbols: Any                   # its SymbolTable
    eager: Callable
    calls: list[tuple[tuple, dict]]    # the test's own calls (args, kwargs), example first
    rtol: float = 1e-4
    atol: float = 1e-4
    equal_nan: bool = False
    # index output -> (input position in the call's bound tensors, dim, keepdim) where eager's
    # pick among equal elements is unspecified; tiled inputs repeat values, so ties appear
    tie_picks: dict[int, tuple[int, int, bool]] = field(default_factory=dict)


def _bound(target: Target, args, kwargs) -> list[torch.Tensor]:
    sig = target.symbols.signature
    return sig.bind(tuple(args), dict(kwargs)) if sig is not None else list(args)


def _run(target: Target, template: CallTemplate, env: dict[str, int], rec: Record):
    """Compares one call at `env`; returns None, "rejected", "eager" or raises Mismatch."""
    shapes = shapes_for(target.symbols, env)
    try:
        target.symbols.check(shapes)
    except symhlo.ShapeError:
        return "rejected"
    args, kwargs = template.at(shapes)
    try:
        with torch.no_grad():
            expected = target.eager(*args, **kwargs)
    except Exception:
        return "eager"
    rec.calls += 1
    try:
        got = target.compiled(*args, **kwargs)
    except symhlo.ShapeError:
        return "rejected"
    except Exception as e:
        raise Mismatch("crash", f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200] if str(e).strip() else ''}") from None
    tensors = _bound(target, args, kwargs)
    picks = {k: (tensors[i], dim, keepdim) for k, (i, dim, keepdim) in target.tie_picks.items()}
    try:
        compare(got, expected, target.rtol, target.atol, target.equal_nan, picks)
    except Mismatch as m:
        if not as_accurate_as_eager(target.eager, args, kwargs, got, expected, target.rtol, target.atol):
            raise m from None
    return None


def _double(x):
    return x.double() if isinstance(x, torch.Tensor) and x.dtype == torch.float32 else x


def as_accurate_as_eager(eager, args, kwargs, got, expected, rtol: float, atol: float) -> bool:
    """A float mismatch at a size the test never picked may be float32 rounding that grows with a
    reduction's length (a 253-long dot product), not a wrong answer. It passes only when eager can
    be rerun in float64 (a module copied with .double(), float32 inputs widened) and, for every
    float32 output, the compiled result is as close to that float64 truth as eager's own float32
    result is (twice eager's error, plus the test's tolerance); every other output must be equal
    to eager's as `compare` requires. When eager cannot run in float64 the mismatch stands."""
    if not isinstance(eager, torch.nn.Module):
        return False
    try:
        model64 = copy.deepcopy(eager).double()
        with torch.no_grad():
            ref = model64(*pytree.tree_map(_double, tuple(args)), **pytree.tree_map(_double, dict(kwargs)))
    except Exception:
        return False
    g_flat, e_flat, r_flat = _flat(got), _flat(expected), _flat(ref)
    if not len(g_flat) == len(e_flat) == len(r_flat):
        return False
    for g, e, r in zip(g_flat, e_flat, r_flat):
        if e.dtype != torch.float32:
            if not torch.equal(g, e):
                return False
            continue
        if r.shape != e.shape or g.shape != e.shape or g.dtype != e.dtype:
            return False
        r = r.double()
        finite = torch.isfinite(r)
        if not torch.equal(finite, torch.isfinite(g.double())):
            return False
        err_g = (g.double() - r).abs()[finite]
        allowed = 2 * (e.double() - r).abs()[finite] + atol + rtol * r.abs()[finite]
        if bool((err_g > allowed).any()):
            return False
    return True


def shrink(target: Target, template: CallTemplate, env: dict[str, int], kind: str,
           rec: Record, max_steps: int = 40) -> tuple[dict[str, int], str]:
    """The smallest assignment (greedily, symbol by symbol) that still fails the same way."""
    message = ""
    steps = 0
    improved = True
    while improved and steps < max_steps:
        improved = False
        for s in sorted(env):
            lo = target.symbols.ranges[s][0]
            v = env[s]
            for smaller in sorted({lo, max(lo, 1), max(lo, 2), v // 2, v - 1}):
                if not lo <= smaller < v:
                    continue
                trial = {**env, s: smaller}
                steps += 1
                try:
                    _run(target, template, trial, rec)
                except Mismatch as m:
                    if m.kind == kind:
                        env, message, improved = trial, str(m), True
                        break
        # loop again from the new point
    return env, message


def _describe(target: Target, env: dict[str, int]) -> str:
    shapes = shapes_for(target.symbols, env)
    names = target.symbols.names
    syms = ", ".join(f"{names.get(s, s)}={v}" for s, v in sorted(env.items()))
    return f"{[tuple(s) for s in shapes]} ({syms})"


def fuzz_model(target: Target) -> Record:
    """Calls `target.compiled` at fuzzed sizes, compares each with eager, records the counts,
    and raises AssertionError naming every (shrunk) failure, one line each."""
    m = mode()
    rec = Record(target.name, m)
    if m == "off" or not target.symbols.ranges:
        return rec
    t0 = time.perf_counter()
    full = m == "full"
    seed = int(os.environ.get("SYMHLO_FUZZ_SEED", "0"))
    templates, envs = [], []
    for args, kwargs in target.calls:
        tensors = _bound(target, args, kwargs)
        try:
            envs.append(target.symbols.check([tuple(t.shape) for t in tensors]))
        except symhlo.ShapeError:
            continue
        templates.append(CallTemplate(args, kwargs, tensors))
    if not templates:
        return rec
    # The largest of the test's own calls is the template (its values cover every index it needs).
    k = max(range(len(templates)), key=lambda i: _numel([t.shape for t in templates[i].tensors]))
    template, base = templates[k], {s: envs[k].get(s, target.symbols.ranges[s][0])
                                    for s in target.symbols.ranges}
    budget = max(FAST_MIN_BUDGET, max(_numel([t.shape for t in tp.tensors]) for tp in templates))
    if full:
        budget *= FULL_FACTOR
    failures: dict[str, tuple[dict, str]] = {}
    for env in assignments(target.symbols, base, full, seed + len(target.name)):
        if _numel(shapes_for(target.symbols, env)) > budget:
            rec.over_budget += 1
            continue
        try:
            outcome = _run(target, template, env, rec)
        except Mismatch as mm:
            setattr(rec, mm.kind, getattr(rec, mm.kind) + 1)
            rec.sizes += 1
            if mm.kind not in failures:
                failures[mm.kind] = (env, str(mm))
            continue
        if outcome == "rejected":
            rec.rejected += 1
        elif outcome == "eager":
            rec.eager_rejects += 1
        else:
            rec.sizes += 1
    node = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    for kind, (env, message) in failures.items():
        small, small_msg = shrink(target, template, env, kind, rec)
        rec.failures.append(
            f"FUZZ {target.name}: {kind} at {_describe(target, small)}: {small_msg or message}; "
            f"repro: SYMHLO_FUZZ={m} pytest '{node}'")
    rec.seconds = time.perf_counter() - t0
    RECORDS.append(rec)
    path = os.environ.get("SYMHLO_FUZZ_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(asdict(rec)) + "\n")
    if rec.failures:
        raise AssertionError("\n".join(rec.failures))
    return rec


_SUMMARY_PRINTED = []


def summary_lines() -> list[str]:
    """One line per fuzzed model and a total, once per session (test/e2e's and test/models'
    pytest_terminal_summary both ask)."""
    if not RECORDS or _SUMMARY_PRINTED:
        return []
    _SUMMARY_PRINTED.append(True)
    lines = [r.line() for r in RECORDS]
    tot = {k: sum(getattr(r, k) for r in RECORDS) for k in ("sizes", "calls", "wrong", "crash")}
    lines.append(f"fuzz total ({RECORDS[0].mode}): {len(RECORDS)} models, {tot['sizes']} sizes, "
                 f"{tot['calls']} calls, wrong {tot['wrong']}, crash {tot['crash']}")
    return lines
