"""The ordered compile stages (floor 0), with timing, progress reporting and process-wide
counters."""

from __future__ import annotations

import enum
import sys
import threading
import time
from contextlib import contextmanager


class Stage(enum.IntEnum):
    """symhlo's compile stages, in order; `compile(..., stop_after=...)` may stop after any."""

    EXPORT = 1          # nn.Module -> torch.export ExportedProgram
    IMPORT = 2          # ExportedProgram -> torch dialect (FxImporter, symbolic shapes)
    TORCH_BACKEND = 3   # symhlo-torch-to-torch-backend-pipeline
    STABLEHLO = 4       # symhlo-torch-backend-to-stablehlo-pipeline (pure StableHLO)
    IREE_INPUT = 5      # symhlo-stablehlo-to-iree-input-pipeline
    IREE = 6            # iree-compile -> .vmfb

    @classmethod
    def parse(cls, value: "str | Stage") -> "Stage":
        if isinstance(value, Stage):
            return value
        key = str(value).strip().replace("-", "_").upper()
        try:
            return cls[key]
        except KeyError:
            valid = ", ".join(s.name.lower().replace("_", "-") for s in cls)
            raise ValueError(f"unknown stage '{value}' (valid: {valid})") from None

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")


class StageTimer:
    """Records each stage's wall time; prints progress when verbose (to stderr).

    Each stage prints `[symhlo] <stage> ...` when it starts and its time when it ends; on a
    terminal the line also counts the elapsed seconds while the stage runs (iree-compile of a
    large model takes a minute).
    """

    def __init__(self, verbose: bool = False):
        self.verbose = verbose
        self.times: dict[str, float] = {}

    @contextmanager
    def stage(self, stage: Stage):
        with self.step(stage.label):
            yield

    @contextmanager
    def step(self, label: str):
        """Times (and, when verbose, reports) one step named `label`: a Stage's label, or a step
        of a tool around the stages (`load`)."""
        start = time.perf_counter()
        ticker = None
        if self.verbose:
            head = f"[symhlo] {label:<14} ..."
            print(head, end="", file=sys.stderr, flush=True)
            if on_terminal():
                ticker = _Ticker(head, start)
        try:
            yield
        finally:
            dt = time.perf_counter() - start
            self.times[label] = self.times.get(label, 0.0) + dt
            if ticker is not None:
                ticker.stop()
            if self.verbose:
                print(f" {dt:7.2f} s", file=sys.stderr, flush=True)


def on_terminal() -> bool:
    """Whether stderr (where progress goes) is a terminal."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _Ticker:
    """Rewrites a progress line with the elapsed seconds, once a second, until stopped."""

    def __init__(self, head: str, start: float):
        self.head, self.start = head, start
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(1.0):
            print(f"\r{self.head} {time.perf_counter() - self.start:5.0f} s", end="",
                  file=sys.stderr, flush=True)

    def stop(self) -> None:
        self._done.set()
        self._thread.join()
        print(f"\r{self.head}", end="", file=sys.stderr, flush=True)


_STATS = {"iree_compiles": 0, "exports": 0, "backend_graphs": 0, "data_tiling_retries": 0,
          "external_transients_retries": 0}
_STATS_LOCK = threading.Lock()


def stats() -> dict:
    """Process-wide counters.

    Returns:
      {"iree_compiles": N (iree-compile runs), "exports": N (ExportedPrograms lowered to
      StableHLO, by symhlo.export, symhlo.compile or the torch.compile backend),
      "backend_graphs": N (graphs the torch.compile backend received), "data_tiling_retries": N
      (CPU compiles that IREE's data tiling failed and that were rebuilt without it),
      "external_transients_retries": N (CPU compiles IREE failed with @main$transients, rebuilt
      without it)}.
    """
    with _STATS_LOCK:
        return dict(_STATS)


def bump(key: str) -> None:
    """Adds one to counter `key`."""
    with _STATS_LOCK:
        _STATS[key] = _STATS.get(key, 0) + 1
