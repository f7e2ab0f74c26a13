"""Instrumentation: how much of a symhlo compile is spent in our Python passes.

`instrument()` wraps, once per process, the `run` of every registered symhlo pass, the upstream
PassManager runs that `run_pipeline` starts, and `run_pipeline` itself, so a compile can be split into

  ours      the symhlo passes (Python rewrite patterns over the MLIR bindings)
  upstream  torch-mlir / StableHLO / MLIR passes run by run_pipeline (C++)
  driver    run_pipeline's own overhead (pipeline parsing, the repro clone before each step)

Nothing in lib/ is edited: the wrappers are installed from outside at run time.
"""

from __future__ import annotations

import time
from collections import defaultdict
from contextlib import contextmanager

TOTALS: dict[str, float] = defaultdict(float)
PER_PASS: dict[str, float] = defaultdict(float)
_installed = False


def instrument() -> None:
    """Installs the timing wrappers (idempotent)."""
    global _installed
    if _installed:
        return
    from symhlo.passes import registry

    for name, load in registry.get_all_passes().items():
        cls = load()
        inner = cls.run

        def timed_run(self, module, _inner=inner, _name=name):
            t0 = time.perf_counter()
            try:
                return _inner(self, module)
            finally:
                dt = time.perf_counter() - t0
                TOTALS["ours"] += dt
                PER_PASS[_name] += dt

        cls.run = timed_run

    upstream_pm = registry._upstream_pm

    class _TimedPM:
        def __init__(self, pm, text):
            self._pm, self._text = pm, text

        def run(self, op):
            t0 = time.perf_counter()
            try:
                return self._pm.run(op)
            finally:
                dt = time.perf_counter() - t0
                TOTALS["upstream"] += dt
                PER_PASS["upstream: " + self._text[:60]] += dt

        def __getattr__(self, name):
            return getattr(self._pm, name)

    def timed_upstream_pm(text, ctx):
        return _TimedPM(upstream_pm(text, ctx), text)

    registry._upstream_pm = timed_upstream_pm

    run_pipeline = registry.run_pipeline

    def timed_run_pipeline(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return run_pipeline(*args, **kwargs)
        finally:
            TOTALS["pipelines"] += time.perf_counter() - t0

    registry.run_pipeline = timed_run_pipeline
    # The modules that imported run_pipeline by name keep the old one: rebind theirs too.
    from symhlo.backend import compiler
    from symhlo.frontend import export

    for mod in (compiler, export):
        if getattr(mod, "run_pipeline", None) is run_pipeline:
            mod.run_pipeline = timed_run_pipeline
    _installed = True


@contextmanager
def measure():
    """Yields a dict filled, on exit, with the seconds spent in ours/upstream/driver meanwhile."""
    before = dict(TOTALS)
    before_pass = dict(PER_PASS)
    out: dict = {}
    try:
        yield out
    finally:
        for k in ("ours", "upstream", "pipelines"):
            out[k] = TOTALS.get(k, 0.0) - before.get(k, 0.0)
        out["driver"] = max(0.0, out["pipelines"] - out["ours"] - out["upstream"])
        out["per_pass"] = {k: v - before_pass.get(k, 0.0) for k, v in PER_PASS.items()
                           if v - before_pass.get(k, 0.0) > 0}
