"""`make bench`: symhlo's compiled dynamic modules against static compiles and the peers, side by side.

For each model (GPT-2-width decoder stacks, Llama prefill and decode, ResNet-18, a small-channel
CNN, the e2e MLP and transformer block) and each benchmark size, one run measures these columns, interleaved call by call:

  symhlo-dyn      symhlo.compile once for the whole range of sizes (the module under test)
  symhlo-static   symhlo.compile for that exact size (no dynamic_shapes): what a dynamic module can reach
  symhlo-opt      symhlo.compile(inputs= the whole range with opt = that size, options={"opt_variant": True}):
                  the dynamic module plus a static one at opt, which that size runs on
  symhlo-profile  symhlo.compile with one symhlo.Input profile: opt = that size, [opt/2, opt*2]
                  (not in the default columns)
  iree-turbine    iree.turbine.aot.export, compiled with the same iree-compile flags (optional)
  eager           the PyTorch module
  inductor        torch.compile(dynamic=True)

Latency is the median of repeated calls after warm-up (min and max alongside); each cell's ratio is
symhlo-dyn / column (> 1: symhlo's dynamic module is slower). Compile time is split per stage, with the
share of our Python passes (bench/passtime.py), and measured against depth for the GPT-2 stack.
Matmul-heavy models also get achieved GFLOP/s per column beside a large torch.mm's, measured in the
same run.

Writes bench/results/latest.md, latest.json and latency_vs_seq.png. `--quick` shrinks everything for
development (tiny sizes, 1-2 layers).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# OpenMP's default spin-waiting makes torch's 2-thread eager/inductor calls ~20x slower whenever
# another process holds a core (measured here: 140 ms vs 6 ms); passive waiting keeps them sane on a
# shared machine. Set before torch loads; an explicit OMP_WAIT_POLICY in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

import models  # noqa: E402
import passtime  # noqa: E402

COLUMNS = ("symhlo-dyn", "symhlo-static", "symhlo-opt", "symhlo-profile", "iree-turbine", "eager",
           "inductor")
DEFAULT_COLUMNS = ("symhlo-dyn", "symhlo-static", "symhlo-opt", "iree-turbine", "eager", "inductor")
MODELS = ("gpt2", "gpt2-d256", "llama-prefill", "llama-decode", "resnet18", "resnet18-batch",
          "small-cnn", "mlp", "block")
BASE = "symhlo-dyn"

warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=UserWarning)


# -- progress ------------------------------------------------------------------------------------


class Progress:
    """A tqdm bar when tqdm is installed, plain lines otherwise; `note` prints above the bar."""

    def __init__(self, total: int):
        try:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="step", dynamic_ncols=True, file=sys.stderr)
        except ImportError:
            self.bar = None
        self.done = 0
        self.total = total

    def step(self, what: str, n: int = 1) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.set_description(what[:60])
            self.bar.update(n)
        else:
            print(f"[{self.done}/{self.total}] {what}", file=sys.stderr, flush=True)

    def note(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# -- results -------------------------------------------------------------------------------------


@dataclass
class Cell:
    """One (model, size, column): latencies in ms, the error vs eager, the compile time."""

    times_ms: list[float] = field(default_factory=list)
    rel_err: float | None = None
    compile_s: float | None = None
    error: str | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None

    def to_json(self) -> dict:
        return {"median_ms": self.median, "min_ms": min(self.times_ms) if self.times_ms else None,
                "max_ms": max(self.times_ms) if self.times_ms else None, "n": len(self.times_ms),
                "rel_err": self.rel_err, "compile_s": self.compile_s, "error": self.error}


@dataclass
class ModelResult:
    spec: models.Spec
    cells: dict = field(default_factory=dict)           # (size, column) -> Cell
    compile: dict = field(default_factory=dict)         # the dynamic compile: stage -> seconds
    turbine_compile_s: float | None = None
    inductor_note: str = ""
    dispatches: dict = field(default_factory=dict)      # "dyn" / "static" -> flow.dispatch count
    flops: dict = field(default_factory=dict)           # size -> FLOPs of one call (matmul-heavy models)

    def cell(self, size, col) -> Cell:
        return self.cells.setdefault((size, col), Cell())


# -- the columns ---------------------------------------------------------------------------------


def dynamic_shapes(spec: models.Spec):
    """torch.export dynamic_shapes: one Dim per symbol name, shared between inputs."""
    from torch.export import Dim

    made: dict = {}
    out = []
    for dims in spec.dims():
        d = {}
        for axis, (name, lo, hi) in dims.items():
            if name in spec.auto_dims:  # torch.export infers it (see Spec.auto_dims)
                d[axis] = Dim.AUTO(min=lo, max=hi)
                continue
            if name not in made:
                made[name] = Dim(name, min=lo, max=hi)
            d[axis] = made[name]
        out.append(d or None)
    return tuple(out)


def export_example(spec: models.Spec) -> tuple:
    """Example inputs inside the range, off torch.export's specialized 0 and 1."""
    size = spec.export_size or tuple(max(2, lo) if hi >= 2 else lo for lo, hi in spec.ranges)
    return spec.inputs(size)


def range_inputs(spec: models.Spec, size: tuple, profile: bool = False) -> list:
    """One symhlo.Input per model input at `size` (opt = that size; names shared).

    profile=False: the whole dynamic range. profile=True: a bounded profile around the size,
    [opt / 2, opt * 2] on every dynamic axis, clamped into the range.
    """
    import symhlo

    out = []
    for x, dims in zip(spec.inputs(size), spec.dims()):
        opt = list(x.shape)
        lo, hi, names = list(opt), list(opt), [None] * len(opt)
        for axis, (name, a, b) in dims.items():
            names[axis] = name
            if profile:
                lo[axis], hi[axis] = max(a, -(-opt[axis] // 2)), min(b, max(opt[axis] * 2, 2))
            else:
                lo[axis], hi[axis] = a, b
        out.append(symhlo.Input(min_shape=lo, opt_shape=opt, max_shape=hi, dims=names, dtype=x.dtype))
    return out


def first(out):
    """The first output (a model returning (logits, cache) is checked on its logits)."""
    while isinstance(out, (tuple, list)):
        out = out[0]
    return out


def rel_err(out, ref) -> float:
    out, ref = first(out), first(ref)
    return float((out.float() - ref.float()).abs().max() / ref.float().abs().max().clamp_min(1e-12))


class Runners:
    """Builds the callable of each column for a model and a size, recording compile times."""

    def __init__(self, args, progress: Progress):
        self.args = args
        self.progress = progress
        self.iree_flags = list(args.iree_flags)
        self.turbine_reason = None
        try:
            from iree.turbine import aot  # noqa: F401
        except Exception as e:  # ImportError, or a version clash raised at import
            self.turbine_reason = f"iree-turbine not importable: {type(e).__name__}: {e}"

    # symhlo ---------------------------------------------------------------------------------
    def symhlo_compile(self, model, **kw):
        import symhlo

        options = {"iree_flags": self.iree_flags}
        if kw.pop("opt_variant", False):
            options["opt_variant"] = True
        with torch.no_grad(), passtime.measure() as pt:
            t0 = time.perf_counter()
            cm = symhlo.compile(model, target="cpu", options=options, **kw)
            total = time.perf_counter() - t0
        times = dict(cm.times)
        times["total"] = total
        times["ours"] = pt["ours"]
        times["upstream-passes"] = pt["upstream"]
        times["pipeline-driver"] = pt["driver"]
        times["per_pass"] = pt["per_pass"]
        return cm, times

    def symhlo_dynamic(self, spec, model):
        return self.symhlo_compile(model, args=export_example(spec),
                                   dynamic_shapes=dynamic_shapes(spec))

    def symhlo_static(self, spec, model, size):
        return self.symhlo_compile(model, args=spec.inputs(size))

    def symhlo_profile(self, spec, model, size):
        import symhlo

        inputs = [symhlo.Input(profiles=[dict(min_shape=i.min_shape, opt_shape=i.opt_shape,
                                              max_shape=i.max_shape)], dims=i.dim_names, dtype=i.dtype)
                  for i in range_inputs(spec, size, profile=True)]
        return self.symhlo_compile(model, inputs=inputs)

    def symhlo_opt(self, spec, model, size):
        """symhlo.compile(inputs=whole range, opt = this size, options={"opt_variant": True}).
        Its two IREE modules are the symhlo-static one at this size and one for the whole range:
        iree-compile is memoized by input text within this run (MemoizedIreeCompile), so this
        column costs an export and the lookups, not two more IREE compiles."""
        return self.symhlo_compile(model, inputs=range_inputs(spec, size), opt_variant=True)

    # iree-turbine ---------------------------------------------------------------------------
    def turbine(self, spec, model):
        """aot.export with the same dims, compiled with symhlo's iree-compile flags; a callable."""
        from iree.turbine import aot

        from symhlo.backend.compiler import iree_flags, module_flags
        from symhlo.backend.runtime import Runtime
        from symhlo.backend.targets import TARGETS

        t0 = time.perf_counter()
        with torch.no_grad():
            exported = aot.export(model, args=export_example(spec),
                                  dynamic_shapes=dynamic_shapes(spec))
        # iree-compile's own flag parser, as symhlo's compile uses (the session's set_flags
        # refuses codegen options such as --iree-llvmcpu-vector-pproc-strategy).
        import iree.compiler as ic
        text = str(exported.mlir_module)
        flags = iree_flags("cpu", None, self.iree_flags)
        vmfb = ic.compile_str(text, input_type="torch", extra_args=flags + module_flags(text, "cpu", flags))
        rt = Runtime(vmfb, TARGETS["cpu"][1])
        seconds = time.perf_counter() - t0

        def call(*xs):
            import numpy as np

            return [torch.from_numpy(o) for o in rt([np.ascontiguousarray(x.numpy()) for x in xs])]

        return call, seconds


class MemoizedIreeCompile:
    """Installed over symhlo.backend.compiler._iree_compile for the run: an IREE input compiled
    before with the same flags returns the same vmfb (symhlo-opt's two modules are symhlo-static's
    and one for the whole range, which symhlo-dyn compiled already)."""

    def __init__(self):
        import symhlo.backend.compiler as sc

        self.sc, self.inner, self.cache, self.hits = sc, sc._iree_compile, {}, 0

    def __call__(self, iree_input: str, target: str, flags: list[str]) -> bytes:
        import hashlib

        import re

        # @main's symhlo.* attributes (names, ranges) do not reach IREE's code: not in the key.
        text = re.sub(r"^(\s*func\.func @main\(.*?) attributes \{.*\} \{$", r"\1 {", iree_input,
                      count=1, flags=re.M)
        key = hashlib.sha256("\0".join([text, target, *flags]).encode()).hexdigest()
        if key in self.cache:
            self.hits += 1
        else:
            self.cache[key] = self.inner(iree_input, target, flags)
        return self.cache[key]

    def install(self) -> None:
        self.sc._iree_compile = self


def dispatch_count(stablehlo_text: str, extra_flags: list[str]) -> int:
    """flow.dispatch executables IREE forms for a module (iree-compile --compile-to=flow, the
    same preparation and flags as symhlo.compile)."""
    import iree.compiler as ic

    import symhlo.backend.compiler as sc

    flags = sc.iree_flags("cpu", None, extra_flags)
    demote = not sc._boundary_has_f64(stablehlo_text)
    flags += [f"--iree-input-demote-f64-to-f32={'true' if demote else 'false'}", "--compile-to=flow"]
    out = ic.compile_str(sc.prepare_for_iree(stablehlo_text), input_type="stablehlo", extra_args=flags)
    return (out.decode() if isinstance(out, bytes) else out).count("flow.executable private")


# -- timing --------------------------------------------------------------------------------------


def count_flops(model, xs: tuple) -> int:
    """FLOPs of one eager call (torch's FlopCounterMode: matmuls, convolutions, attention)."""
    from torch.utils.flop_counter import FlopCounterMode

    with torch.inference_mode(), FlopCounterMode(display=False) as counter:
        model(*xs)
    return counter.get_total_flops()


def mm_peak_gflops(n: int = 2048, reps: int = 10) -> dict:
    """GFLOP/s of a large float32 torch.mm (n x n by n x n) with torch's threads: the machine's
    practical matmul peak, measured in the run so that it sees the same load as the cells."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.mm(a, b)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        torch.mm(a, b)
        times.append(time.perf_counter() - t0)
    return {"n": n, "median_gflops": 2 * n ** 3 / statistics.median(times) / 1e9,
            "best_gflops": 2 * n ** 3 / min(times) / 1e9}


def time_interleaved(fns: dict[str, Callable], xs: tuple, ref, res: ModelResult, size, args) -> None:
    """Warms each column up, then times rounds of one call per column, rotating the order."""
    est = {}
    for col, fn in list(fns.items()):
        cell = res.cell(size, col)
        try:
            with torch.inference_mode():
                t0 = time.perf_counter()
                out = fn(*xs)
                est[col] = time.perf_counter() - t0
                cell.rel_err = rel_err(out, ref)
                for _ in range(args.warmup if est[col] < 1.0 else 1):
                    t0 = time.perf_counter()
                    fn(*xs)
                    est[col] = time.perf_counter() - t0
        except Exception as e:
            cell.error = f"run failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
            del fns[col]
    if not fns:
        return
    per_round = sum(est.values()) or 1e-3
    floor = args.min_reps if per_round < 5.0 else min(args.min_reps, 3)  # keep slow cells affordable
    reps = int(min(args.max_reps, max(floor, args.cell_budget / per_round)))
    cols = list(fns)
    for r in range(reps):
        order = cols[r % len(cols):] + cols[:r % len(cols)]
        for col in order:
            with torch.inference_mode():
                t0 = time.perf_counter()
                fns[col](*xs)
                res.cell(size, col).times_ms.append((time.perf_counter() - t0) * 1e3)


def bench_model(spec: models.Spec, runners: Runners, args, progress: Progress,
                columns: list[str]) -> ModelResult:
    res = ModelResult(spec)
    model = spec.make()
    note = progress.note
    fns_static: dict[str, Callable] = {}

    dyn = None
    if BASE in columns:
        progress.step(f"{spec.name}: symhlo dynamic compile")
        try:
            dyn, res.compile = runners.symhlo_dynamic(spec, model)
            note(f"  {spec.name}: symhlo-dyn compiled in {res.compile['total']:.1f} s "
                 f"(ours {res.compile['ours']:.2f} s)")
        except Exception as e:
            note(f"  {spec.name}: symhlo-dyn FAILED: {type(e).__name__}: {str(e)[:300]}")
            for size in spec.sizes:
                res.cell(size, BASE).error = f"compile failed: {type(e).__name__}"
    if dyn is not None:
        fns_static[BASE] = dyn
        progress.step(f"{spec.name}: dispatch counts")
        try:
            res.dispatches["dyn"] = dispatch_count(dyn.stablehlo, runners.iree_flags)
        except Exception as e:
            note(f"  {spec.name}: dispatch count failed: {type(e).__name__}: {str(e)[:200]}")

    if "iree-turbine" in columns:
        progress.step(f"{spec.name}: iree-turbine compile")
        if runners.turbine_reason:
            for size in spec.sizes:
                res.cell(size, "iree-turbine").error = runners.turbine_reason
        else:
            try:
                fn, res.turbine_compile_s = runners.turbine(spec, model)
                fns_static["iree-turbine"] = fn
                note(f"  {spec.name}: iree-turbine compiled in {res.turbine_compile_s:.1f} s")
            except Exception as e:
                msg = f"compile failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
                note(f"  {spec.name}: iree-turbine {msg}")
                for size in spec.sizes:
                    res.cell(size, "iree-turbine").error = msg

    if "eager" in columns:
        fns_static["eager"] = model
    if "inductor" in columns:
        progress.step(f"{spec.name}: torch.compile(dynamic=True)")
        torch._dynamo.reset()
        fns_static["inductor"] = torch.compile(model, dynamic=True)

    for size in spec.sizes:
        xs = spec.inputs(size)
        with torch.inference_mode():
            ref = model(*xs)
        if spec.matmul_heavy:
            res.flops[size] = count_flops(model, xs)
        fns = dict(fns_static)
        for col, build in (("symhlo-static", runners.symhlo_static),
                           ("symhlo-opt", runners.symhlo_opt),
                           ("symhlo-profile", runners.symhlo_profile)):
            if col not in columns:
                continue
            progress.step(f"{spec.name} {spec.label(size)}: {col} compile")
            try:
                cm, times = build(spec, model, size)
                fns[col] = cm
                res.cell(size, col).compile_s = times["total"]
                if col == "symhlo-static" and size == spec.sizes[len(spec.sizes) // 2]:
                    res.dispatches["static"] = dispatch_count(cm.stablehlo, runners.iree_flags)
                    res.dispatches["static_size"] = spec.label(size)
            except Exception as e:
                res.cell(size, col).error = f"compile failed: {type(e).__name__}: {str(e)[:200]}"
                note(f"  {spec.name} {spec.label(size)}: {col} compile failed: {str(e)[:200]}")
        if "inductor" in fns:  # the first call at a new size may (re)compile: count it apart
            t0 = time.perf_counter()
            try:
                with torch.inference_mode():
                    fns["inductor"](*xs)
                res.cell(size, "inductor").compile_s = time.perf_counter() - t0
            except Exception as e:
                res.cell(size, "inductor").error = f"compile failed: {type(e).__name__}: {str(e)[:200]}"
                del fns["inductor"]
        progress.step(f"{spec.name} {spec.label(size)}: timing {len(fns)} columns")
        time_interleaved(fns, xs, ref, res, size, args)
        line = "  ".join(f"{c}={res.cell(size, c).median:.2f}ms" for c in columns
                         if res.cell(size, c).median is not None)
        note(f"  {spec.name} {spec.label(size)}: {line}")
    return res


def depth_sweep(runners: Runners, depths: list[int], progress: Progress, known: dict) -> dict:
    """symhlo dynamic compile time per stage for the GPT-2 stack at each depth."""
    out = {}
    for layers in depths:
        progress.step(f"compile time: gpt2 {layers} layers")
        if layers in known:
            out[layers] = known[layers]
            continue
        spec = models.gpt2(layers)
        try:
            _, times = runners.symhlo_dynamic(spec, spec.make())
            out[layers] = times
        except Exception as e:
            out[layers] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
    return out


# -- report --------------------------------------------------------------------------------------


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def fmt_ms(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def machine_line() -> str:
    import iree.compiler

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        from importlib.metadata import version

        iree_v = version("iree-base-compiler")
    except Exception:
        iree_v = getattr(iree.compiler, "__version__", "?")
    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, torch {torch.__version__}, IREE {iree_v}")


def ratios(results: list[ModelResult], col: str) -> list[float]:
    out = []
    for res in results:
        for size in res.spec.sizes:
            a, b = res.cell(size, BASE).median, res.cell(size, col).median
            if a and b:
                out.append(a / b)
    return out


STAGES = ("export", "import", "torch-backend", "stablehlo", "iree")


def compile_row(name: str, t: dict) -> str:
    if "error" in t:
        return f"| {name} | failed: {t['error']} |" + " |" * (len(STAGES) + 2)
    total = t["total"]
    stages = " | ".join(f"{t.get(s, 0.0):.1f}" for s in STAGES)
    return (f"| {name} | {total:.1f} | {stages} | {t['ours']:.2f} | "
            f"{100 * t['ours'] / total:.1f}% | {100 * (t['ours'] + t['pipeline-driver']) / total:.1f}% |")


def model_target(spec: models.Spec) -> str:
    """The issue's per-model target for symhlo-dyn / symhlo-static."""
    if spec.name.startswith(("gpt2", "llama")):
        return "<= 1.10"
    if spec.name == "resnet18":
        return "<= 1.5"
    if spec.name == "small-cnn":
        return "<= 1.10"
    return ""


def gflops_lines(results: list[ModelResult], columns: list[str], peak: dict) -> list[str]:
    """Achieved GFLOP/s of the matmul-heavy cells per column, and its share of the torch.mm peak."""
    heavy = [r for r in results if r.flops]
    if not heavy or not peak:
        return []
    ref = min(p["median_gflops"] for p in peak.values())
    cols = [c for c in columns if c.startswith("symhlo") or c in ("iree-turbine", "eager", "inductor")]
    lines = ["## Achieved GFLOP/s (matmul-heavy cells)", "",
             "FLOPs per call from torch's FlopCounterMode on the eager model (matmuls, convolutions, "
             "attention; elementwise work not counted), divided by each column's median latency. "
             "Peak: a float32 torch.mm " + " and ".join(
                 f"{p['n']}x{p['n']} {p['median_gflops']:.0f} GFLOP/s at the {when} (best "
                 f"{p['best_gflops']:.0f})" for when, p in peak.items())
             + f" of the run; `%` is of the lower median, {ref:.0f} GFLOP/s. Target: >= 80%.", "",
             "| model | size | GFLOP | " + " | ".join(cols) + " |",
             "|---|---|---|" + "---|" * len(cols)]
    for res in heavy:
        for size in res.spec.sizes:
            if size not in res.flops:
                continue
            f = res.flops[size]
            row = []
            for col in cols:
                med = res.cell(size, col).median
                if med is None:
                    row.append("-")
                    continue
                g = f / (med / 1e3) / 1e9
                row.append(f"{g:.0f} ({100 * g / ref:.0f}%)")
            lines.append(f"| {res.spec.name} | {res.spec.label(size)} | {f / 1e9:.2f} | "
                         + " | ".join(row) + " |")
    return lines + [""]


def write_report(results: list[ModelResult], depth: dict, args, columns: list[str], notes: list[str],
                 wall_s: float, out_dir: Path, peak: dict | None = None) -> str:
    from symhlo.backend.compiler import iree_flags

    lines = [
        "# symhlo benchmark" + (" (quick)" if args.quick else ""),
        "",
        f"- Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; run took {wall_s / 60:.1f} min.",
        f"- Machine: {machine_line()}.",
        f"- Load: {args.load_note}",
        f"- Threads: torch {torch.get_num_threads()} (OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}), "
        "IREE local-task default (one worker per core).",
        f"- iree-compile flags (every IREE column): `{' '.join(iree_flags('cpu', None, args.iree_flags))}`, "
        "and per module what symhlo.backend.compiler.module_flags adds (`?` modules: "
        "`--iree-llvmcpu-matmul-tile-bytes=131072`; `--iree-llvmcpu-vector-pproc-strategy=peel` "
        "unless a reduction's loops are all `?`, as in no bench model).",
        f"- Latency: median of {args.min_reps}-{args.max_reps} interleaved calls (3 where one round of "
        f"all columns takes over 5 s) after {args.warmup} warm-up call(s) (1 for calls over 1 s), in ms, "
        "[min-max]; input copies in and out of IREE are included. "
        "`xR` = symhlo-dyn / column (> 1: the dynamic symhlo module is slower).",
        "",
        "## Summary",
        "",
        "| ratio | geomean | min | max | n | target |",
        "|---|---|---|---|---|---|",
    ]
    targets = {"symhlo-static": "<= 1.10", "iree-turbine": "<= 1.00"}
    for col in columns:
        if col == BASE:
            continue
        r = ratios(results, col)
        g = geomean(r)
        if g is None:
            lines.append(f"| symhlo-dyn / {col} | - | - | - | 0 | {targets.get(col, '')} |")
        else:
            lines.append(f"| symhlo-dyn / {col} | {g:.2f} | {min(r):.2f} | {max(r):.2f} | {len(r)} | "
                         f"{targets.get(col, '')} |")
    lines.append("")
    others = [c for c in columns if c != BASE]
    lines += ["Per model (geomean of symhlo-dyn / column over its sizes; dispatches: IREE's "
              "flow.dispatch count for the dynamic module / the static one at the size named):", "",
              "| model | " + " | ".join(others) + " | dispatches dyn / static | target dyn / static |",
              "|---|" + "---|" * (len(others) + 2)]
    for res in results:
        cells = []
        for col in others:
            g = geomean(ratios([res], col))
            cells.append(f"{g:.2f}" if g else "-")
        d = res.dispatches
        disp = (f"{d.get('dyn', '-')} / {d.get('static', '-')}"
                + (f" ({d['static_size']})" if "static_size" in d else ""))
        lines.append(f"| {res.spec.name} | " + " | ".join(cells) + f" | {disp} | {model_target(res.spec)} |")
    gpt = [r for r in results if r.spec.name.startswith("gpt2")]
    if gpt and gpt[0].compile:
        lines += ["", "| compile | value | target |", "|---|---|---|"]
        t = gpt[0].compile
        lines.append(f"| our Python passes / compile ({gpt[0].spec.name}) | "
                     f"{100 * t['ours'] / t['total']:.1f}% | <= 10% |")
        for layers, t in sorted(depth.items()):
            if "total" in t and layers != args.layers:
                lines.append(f"| our Python passes / compile (gpt2-{layers}L) | "
                             f"{100 * t['ours'] / t['total']:.1f}% | <= 10% |")
    lines.append("")

    lines += gflops_lines(results, columns, peak or {})

    for res in results:
        spec = res.spec
        seen: dict = {}
        for dims in spec.dims():
            for name, lo, hi in dims.values():
                seen.setdefault(name, (lo, hi))
        dyn = ", ".join(f"{n} in [{lo}, {hi}]" for n, (lo, hi) in seen.items())
        extra = ""
        lines += [f"## {spec.name}: input {spec.describe}", "",
                  f"symhlo-dyn: one compile for {dyn}{', ' + extra if extra else ''}.", "",
                  "| size | " + " | ".join(columns) + " |",
                  "|---|" + "---|" * len(columns)]
        for size in spec.sizes:
            base = res.cell(size, BASE).median
            row = []
            for col in columns:
                c = res.cell(size, col)
                if c.median is None:
                    row.append("fail" if c.error else "-")
                    continue
                text = (f"{fmt_ms(c.median)} [{fmt_ms(min(c.times_ms))}-{fmt_ms(max(c.times_ms))}]")
                if c.rel_err is not None and c.rel_err > spec.rtol:
                    text += " **wrong**"
                    note = (f"{spec.name} {spec.label(size)} {col}: relative error {c.rel_err:.1e} vs "
                            f"eager (tolerance {spec.rtol:.0e})")
                    if note not in notes:
                        notes.append(note)
                if col != BASE and base:
                    text += f" x{base / c.median:.2f}"
                row.append(text)
            lines.append(f"| {spec.label(size)} | " + " | ".join(row) + " |")
        errs = {col: max((res.cell(s, col).rel_err or 0.0) for s in spec.sizes) for col in columns
                if any(res.cell(s, col).rel_err is not None for s in spec.sizes)}
        lines += ["", "Max relative error vs eager: " +
                  ", ".join(f"{c} {e:.1e}" for c, e in errs.items()) + "."]
        comp = []
        if res.compile:
            comp.append(f"symhlo-dyn {res.compile['total']:.1f} s")
        for col in ("symhlo-static", "symhlo-opt", "symhlo-profile", "inductor"):
            ts = [res.cell(s, col).compile_s for s in spec.sizes if res.cell(s, col).compile_s]
            if ts:
                what = "first call per size" if col == "inductor" else "per size"
                comp.append(f"{col} {statistics.median(ts):.1f} s ({what}, median)")
        if res.turbine_compile_s:
            comp.append(f"iree-turbine {res.turbine_compile_s:.1f} s")
        lines += ["Compile: " + ", ".join(comp) + "." if comp else "", ""]
        for size in spec.sizes:
            for col in columns:
                c = res.cell(size, col)
                if c.error and c.median is None:
                    note = f"{spec.name} {spec.label(size)} {col}: {c.error}"
                    if note not in notes:
                        notes.append(note)

    lines += ["## Compile time of the symhlo-dyn compile, per stage (s)", "",
              "`iree` includes symhlo-prepare-for-iree. `ours` = our Python passes in every stage; "
              "`+driver` adds run_pipeline's own overhead (parsing, the repro clone before each step).",
              "",
              "| model | total | " + " | ".join(STAGES) + " | ours | ours % | ours+driver % |",
              "|---|---|" + "---|" * (len(STAGES) + 3)]
    for res in results:
        if res.compile:
            lines.append(compile_row(res.spec.name, res.compile))
    if depth:
        lines += ["", "### GPT-2 stack: compile time against depth", "",
                  "| layers | total | " + " | ".join(STAGES) + " | ours | ours % | ours+driver % |",
                  "|---|---|" + "---|" * (len(STAGES) + 3)]
        for layers, t in depth.items():
            lines.append(compile_row(str(layers), t))
    if gpt and gpt[0].compile.get("per_pass"):
        per = sorted(gpt[0].compile["per_pass"].items(), key=lambda kv: -kv[1])
        lines += ["", f"Pass times in the {gpt[0].spec.name} compile (s): " +
                  ", ".join(f"{k} {v:.2f}" for k, v in per[:10]) + "."]
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    lines += ["", "![latency vs sequence length](latency_vs_seq.png)", ""]
    text = "\n".join(lines)
    (out_dir / "latest.md").write_text(text)
    return text


def plot(results: list[ModelResult], columns: list[str], out_dir: Path) -> str | None:
    gpt = [r for r in results if r.spec.name.startswith("gpt2")]
    if not gpt:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot (pip install -e '.[bench]')"
    res = gpt[0]
    batches = sorted({s[0] for s in res.spec.sizes})
    fig, axes = plt.subplots(1, len(batches), figsize=(5.5 * len(batches), 4.2), squeeze=False)
    for ax, b in zip(axes[0], batches):
        sizes = [s for s in res.spec.sizes if s[0] == b]
        for col in columns:
            pts = [(s[1], res.cell(s, col).median) for s in sizes if res.cell(s, col).median]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=col)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("sequence length")
        ax.set_ylabel("latency, ms (median)")
        ax.set_title(f"{res.spec.name}, batch {b}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / "latency_vs_seq.png", dpi=110)
    plt.close(fig)
    return None


# -- main ----------------------------------------------------------------------------------------


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="tiny sizes and 1-2 layers (development)")
    p.add_argument("--layers", type=int, default=None, help="GPT-2 stack depth (default 2; quick 1)")
    p.add_argument("--depths", default=None, help="compile-time depths, e.g. 2,4,8 ('' to skip)")
    p.add_argument("--models", default=",".join(MODELS),
                   help="comma list of " + ", ".join(MODELS) + " (resnet18: dynamic batch, H, W)")
    p.add_argument("--columns", default=",".join(DEFAULT_COLUMNS), help="comma list of " + ", ".join(COLUMNS))
    p.add_argument("--iree-flags", default="", help="extra iree-compile flags for every IREE column")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--min-reps", type=int, default=5)
    p.add_argument("--max-reps", type=int, default=30)
    p.add_argument("--cell-budget", type=float, default=None,
                   help="seconds of timed calls per size (all columns together)")
    p.add_argument("--out", default=str(HERE / "results"))
    p.add_argument("--load-note", default=None, help="what else ran on the machine (for the report)")
    args = p.parse_args(argv)
    args.iree_flags = args.iree_flags.split()
    if args.layers is None:
        args.layers = 1 if args.quick else 2
    if args.depths is None:
        args.depths = "1,2" if args.quick else "2,4,8"
    args.depths = [int(d) for d in args.depths.split(",") if d.strip()]
    if args.cell_budget is None:
        args.cell_budget = 1.0 if args.quick else 4.0
    if args.quick:
        args.min_reps, args.max_reps, args.warmup = 3, min(args.max_reps, 10), 1
    if args.load_note is None:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        args.load_note = (f"1-minute load average {load:.1f} at the start on {os.cpu_count()} cores"
                          + ("; the machine was shared with other jobs: compare columns within a row "
                             "(interleaving spreads the other load over them alike), not rows with each "
                             "other." if load > 0.5 else "."))
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    columns = [c for c in args.columns.split(",") if c]
    unknown = [c for c in columns if c not in COLUMNS]
    if unknown:
        print(f"unknown columns {unknown} (valid: {', '.join(COLUMNS)})", file=sys.stderr)
        return 2
    passtime.instrument()
    MemoizedIreeCompile().install()
    wanted = [m.strip() for m in args.models.split(",") if m.strip()]
    specs = []
    for name in wanted:
        if name == "gpt2":
            specs.append(models.gpt2(args.layers, args.quick))
        elif name == "gpt2-d256":
            specs.append(models.gpt2_d256(args.layers, args.quick))
        elif name == "llama-prefill":
            specs.append(models.llama_prefill(args.quick))
        elif name == "llama-decode":
            specs.append(models.llama_decode(args.quick))
        elif name == "resnet18":
            specs.append(models.resnet18(args.quick))
        elif name == "resnet18-batch":
            spec = models.resnet18(args.quick, dynamic_hw=False)
            spec.name = "resnet18-batch"
            specs.append(spec)
        elif name == "small-cnn":
            specs.append(models.small_cnn(args.quick))
        elif name == "mlp":
            specs.append(models.mlp(args.quick))
        elif name == "block":
            specs.append(models.block(args.quick))
        else:
            print(f"unknown model '{name}' (valid: {', '.join(MODELS)})",
                  file=sys.stderr)
            return 2

    steps = 0
    for spec in specs:
        steps += 4 + len(spec.sizes) * (1 + sum(c in columns for c in ("symhlo-static", "symhlo-opt",
                                                                          "symhlo-profile")))
    steps += len(args.depths)
    progress = Progress(steps)
    runners = Runners(args, progress)
    notes: list[str] = []
    if runners.turbine_reason and "iree-turbine" in columns:
        notes.append(f"iree-turbine column left out: {runners.turbine_reason}")
        progress.note(notes[-1])
    t_start = time.perf_counter()
    results = []
    peak = {}
    if any(spec.matmul_heavy for spec in specs):
        peak["start"] = mm_peak_gflops()
        progress.note(f"  torch.mm peak: {peak['start']['median_gflops']:.0f} GFLOP/s")
    try:
        for spec in specs:
            results.append(bench_model(spec, runners, args, progress, columns))
        known = {args.layers: results[0].compile} if results and results[0].spec.name.startswith(
            "gpt2") and results[0].compile else {}
        depth = depth_sweep(runners, args.depths, progress, known) if args.depths else {}
        if peak:
            peak["end"] = mm_peak_gflops()
    finally:
        progress.close()
    problem = plot(results, columns, out_dir)
    if problem:
        notes.append(problem)
    text = write_report(results, depth, args, columns, notes, time.perf_counter() - t_start, out_dir,
                        peak)
    data = {
        "args": {k: v for k, v in vars(args).items()},
        "models": [{"name": r.spec.name, "compile": r.compile, "turbine_compile_s": r.turbine_compile_s,
                    "cells": [{"size": list(s), "column": c, **cell.to_json()}
                              for (s, c), cell in r.cells.items()]} for r in results],
        "depth": {str(k): v for k, v in depth.items()},
        "mm_peak": peak,
        "flops": {r.spec.name: {" ".join(map(str, s)): f for s, f in r.flops.items()} for r in results},
    }
    (out_dir / "latest.json").write_text(json.dumps(data, indent=1, default=str))
    print(text)
    print(f"\nwrote {out_dir / 'latest.md'}, {out_dir / 'latest.json'}, "
          f"{out_dir / 'latency_vs_seq.png'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        traceback.print_exc()
        raise SystemExit(130)
