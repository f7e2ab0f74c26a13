"""Per-dispatch time of symhlo's dynamic module against the static one, at one size.

Exports the model both ways (the one dynamic compile's dims from bench/models.py, and static at
the size), prepares both for IREE and compiles them with symhlo's iree-compile flags, then runs each
(the entry symhlo's runtime calls: `@main$transients` with its storage where the module has one,
else `@main`; `--plain-entry`: `@main`)
under `iree-benchmark-module --device_profiling_mode=host-execution` and reads the profile with
`iree-profile statistics`: per dispatch, the mean and the minimum wall time per call and the CPU
time (sum of its tiles' times over the workers), and per module the wall and the process CPU time
per call. With `--rounds N` the modules run alternately N times and each number is the minimum
over the rounds (the process CPU time also the median over them): on a shared machine a single
run moves 2-3x per dispatch (another process preempts a worker mid-tile), and the minimum is the
steadiest; `--stat median` reports medians everywhere.
`--drop-pass PASS` adds a third module: the dynamic one prepared without that pass (an A/B of one
IREE-preparation pass in the same session). iree-benchmark-module runs with glibc's heap set as
symhlo's runtime sets it during a call (MALLOC_MMAP_MAX_=0, MALLOC_TRIM_THRESHOLD_=1 GiB; see
symhlo.backend.host_heap), unless `--system-malloc`: without it every large transient block is
mapped afresh per call and the dynamic module's process CPU time includes ~30 ms of page faults
that symhlo's own calls do not pay (GPT d=256 at (4, 512)).

    .venv/bin/python bench/dispatch_profile.py small-cnn 8
    .venv/bin/python bench/dispatch_profile.py gpt2-d256 4,512 --layers 2 --min-time 3 --rounds 3
    # a flag for the dynamic build only, and runtime flags (one worker) for both:
    .venv/bin/python bench/dispatch_profile.py gpt2-d256 4,512 --dyn-iree-flags=--iree-llvmcpu-enable-ukernels=mmt4d \
        --runtime-flags=--task_topology_group_count=1
    # the dynamic module with IREE's default matmul tile budget beside symhlo's choice:
    .venv/bin/python bench/dispatch_profile.py gpt2-d256 1,32 --rounds 5 --stat median \
        --flag-variant "tb256=--iree-llvmcpu-matmul-tile-bytes=262144"

Files (IREE inputs, vmfbs, profiles) stay in --out for iree-compile / iree-profile by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

import models  # noqa: E402
import run  # noqa: E402

SPECS = {"small-cnn": lambda a: models.small_cnn(), "resnet18": lambda a: models.resnet18(),
         "resnet18-batch": lambda a: models.resnet18(dynamic_hw=False),
         "gpt2": lambda a: models.gpt2(a.layers), "gpt2-d256": lambda a: models.gpt2_d256(a.layers),
         "llama-prefill": lambda a: models.llama_prefill(), "llama-decode": lambda a: models.llama_decode(),
         "mlp": lambda a: models.mlp(),
         "block": lambda a: models.block()}


def tool(name: str) -> str:
    return str(Path(sys.executable).parent / name)


_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


HOST_HEAP_ENV = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}


def entry(vmfb: Path, inputs: list[Path], plain: bool = False) -> tuple[str, list[str]]:
    """The function symhlo's runtime calls and its extra inputs: @main$transients with a storage
    of the size its query gives (symhlo-externalize-transients-for-iree), else @main."""
    if plain:
        return "main", []
    q = subprocess.run([tool("iree-run-module"), f"--module={vmfb}", "--device=local-task",
                        "--function=main$transients_transients_size",
                        *[f"--input=@{p}" for p in inputs], "--input=1xi8"],
                       capture_output=True, text=True)
    m = re.search(r"i64=(\d+)", q.stdout)
    if q.returncode != 0 or m is None:
        return "main", []
    return "main$transients", [f"--input={max(int(m.group(1)), 1)}xi8"]


def profile(vmfb: Path, inputs: list[Path], out: Path, min_time: float,
            runtime_flags: list[str] = (), env: dict | None = None,
            plain: bool = False) -> tuple[dict, tuple[float, float]]:
    """Per dispatch function (mean ms, min ms, CPU ms per call) from a host-execution profile,
    and the module's (wall ms, process CPU ms) per call from iree-benchmark-module."""
    prof = out.with_suffix(".ireeprof")
    function, storage = entry(vmfb, inputs, plain)
    cmd = [tool("iree-benchmark-module"), f"--module={vmfb}", "--device=local-task",
           f"--function={function}", *[f"--input=@{p}" for p in inputs], *storage,
           f"--benchmark_min_time={min_time}s",
           "--device_profiling_mode=host-execution", f"--device_profiling_output={prof}",
           *runtime_flags]
    bench = subprocess.run(cmd, capture_output=True, text=True, check=True,
                           env=None if env is None else {**os.environ, **env}).stdout
    f = next(ln for ln in bench.splitlines() if ln.startswith("BM_")).split()
    per_call = (float(f[1]) * _UNIT_MS[f[2]], float(f[3]) * _UNIT_MS[f[4]])
    stats = subprocess.run([tool("iree-profile"), "statistics", "--format=jsonl", str(prof)],
                           capture_output=True, text=True, check=True).stdout
    rows = [json.loads(ln) for ln in stats.splitlines() if ln.strip()]
    # One row per command of a command buffer (a dispatch at one place in the call): a static
    # module replays one command buffer (sample_count = calls), a dynamic one records one per call
    # (rows of one sample each). A dynamic module also runs one executable at several places
    # (ResNet's repeated convolutions share theirs), so per-function rows averaged per sample
    # would count it once per call: sum the commands' rows by function, over the calls (the
    # samples of the first command).
    ops = [r for r in rows if r.get("row_type") == "host_execution_command_operation"
           and r.get("function_name")]
    first = min((r["command_index"] for r in ops), default=0)
    calls = max(sum(r["sample_count"] for r in ops if r["command_index"] == first), 1)
    funcs: dict[str, list[float]] = {}
    fastest: dict[tuple[str, int], float] = {}   # (function, command index) -> its minimum
    for r in ops:
        f = funcs.setdefault(r["function_name"], [0.0, 0.0, 0.0])
        f[0] += r["total_duration_ns"] / calls / 1e6
        f[2] += r["tile_duration_sum_ns"] / calls / 1e6
        at = (r["function_name"], r["command_index"])
        fastest[at] = min(fastest.get(at, float("inf")), r["minimum_duration_ns"] / 1e6)
    for (name, _), ms in fastest.items():
        funcs[name][1] += ms
    return {k: tuple(v) for k, v in funcs.items()}, per_call


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", choices=sorted(SPECS))
    p.add_argument("size", help="the dynamic axes' values, comma separated (e.g. 8 or 4,512)")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--min-time", type=float, default=2.0, help="seconds of calls per module")
    p.add_argument("--iree-flags", default="", help="extra iree-compile flags (both modules)")
    p.add_argument("--dyn-iree-flags", default="", help="extra iree-compile flags for the dynamic module only")
    p.add_argument("--runtime-flags", default="",
                   help="extra iree-benchmark-module flags, e.g. --task_topology_group_count=1")
    p.add_argument("--rounds", type=int, default=1,
                   help="run the modules alternately this many times; report the minimum of each number")
    p.add_argument("--stat", choices=("min", "median"), default="min",
                   help="how the rounds are summarized (default: the minimum)")
    p.add_argument("--drop-pass", default="",
                   help="also profile the dynamic module prepared without this IREE-preparation pass")
    p.add_argument("--variant", action="append", default=[],
                   help="also profile the dynamic module prepared with one pipeline element replaced: "
                        "'PASS=PASS{opt=1}' ('PASS=' drops it); repeatable")
    p.add_argument("--flag-variant", action="append", default=[],
                   help="also profile the dynamic module compiled with more iree-compile flags: "
                        "'NAME=--flag=value ...' (a flag symhlo adds per module, such as "
                        "--iree-llvmcpu-matmul-tile-bytes, is replaced); repeatable")
    p.add_argument("--mlir-variant", action="append", default=[],
                   help="also profile an IREE input edited by hand: 'NAME=PATH' (say, a copy of "
                        "OUT/dyn.iree.mlir with one op rewritten); repeatable")
    p.add_argument("--plain-entry", action="store_true",
                   help="profile @main, as other hosts call it, not @main$transients (symhlo's runtime's "
                        "entry where the module has it: transients in one storage buffer, not zeroed per call)")
    p.add_argument("--system-malloc", action="store_true",
                   help="leave glibc's malloc settings alone (symhlo's runtime changes them during a call)")
    p.add_argument("--out", default="/tmp/symhlo-dispatch-profile")
    a = p.parse_args(argv)
    import symhlo
    from symhlo.backend.compiler import iree_flags, module_flags, prepare_for_iree

    spec = SPECS[a.model](a)
    size = tuple(int(v) for v in a.size.split(","))
    model = spec.make()
    xs = spec.inputs(size)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    inputs = []
    for i, x in enumerate(xs):
        inputs.append(out / f"in{i}.npy")
        np.save(inputs[-1], x.numpy())
    progs = {"dyn": symhlo.export(model, run.export_example(spec), dynamic_shapes=run.dynamic_shapes(spec)),
             "static": symhlo.export(model, xs)}
    flags = iree_flags("cpu", None, a.iree_flags.split()) + ["--iree-input-demote-f64-to-f32=true"]
    texts = {name: prepare_for_iree(prog.text, external_transients=True) for name, prog in progs.items()}
    variants = ([f"{a.drop_pass}="] if a.drop_pass else []) + a.variant
    extra = {}
    for v in variants:
        old, new = v.split("=", 1)
        extra[f"dyn-no-{old}" if not new else f"dyn-{new}"] = prepare_without(progs["dyn"].text, old, new)
    variant_flags = {}
    for v in a.flag_variant:
        name, _, more = v.partition("=")
        variant_flags[f"dyn-{name}"] = more.split()
        extra[f"dyn-{name}"] = texts["dyn"]
    for v in a.mlir_variant:
        name, _, path = v.partition("=")
        extra[f"dyn-{name}"] = Path(path).read_text()
    texts = {"dyn": texts["dyn"], **extra, "static": texts["static"]}
    vmfbs = {}
    for name, text in texts.items():
        src = out / f"{name}.iree.mlir"
        src.write_text(text)
        vmfbs[name] = out / f"{name}.vmfb"
        own = (a.dyn_iree_flags.split() if name.startswith("dyn") else []) + variant_flags.get(name, [])
        own += module_flags(text, "cpu", flags + own)   # as symhlo's compile adds them
        subprocess.run([tool("iree-compile"), "--iree-input-type=stablehlo", *flags, *own, str(src), "-o",
                        str(vmfbs[name])], check=True)
    runs = {name: [] for name in vmfbs}
    loads = []
    for _ in range(a.rounds):
        for name, vmfb in vmfbs.items():
            runs[name].append(profile(vmfb, inputs, out / name, a.min_time, a.runtime_flags.split(),
                                      None if a.system_malloc else HOST_HEAP_ENV, a.plain_entry))
        loads.append(os.getloadavg()[0])
    print(f"{spec.name} {spec.label(size)}; 1-minute load {min(loads):.1f}-{max(loads):.1f} on "
          f"{os.cpu_count()} cores; {a.rounds} round(s), {a.stat} over rounds"
          + ("" if a.system_malloc else "; glibc heap as in symhlo's calls"))
    agg = min if a.stat == "min" else statistics.median
    cpus = {}
    for name, rs in runs.items():
        wall = agg([r[1][0] for r in rs])
        cpu = cpus[name] = agg([r[1][1] for r in rs])
        med = float(np.median([r[1][1] for r in rs]))
        print(f"\n{name}: {wall:.2f} ms wall, {cpu:.2f} ms process CPU per call "
              f"(median over rounds {med:.2f})")
        print(f"  {'mean ms':>8} {'min ms':>8} {'cpu ms':>8}  dispatch (per call)")
        tot = [0.0, 0.0, 0.0]
        for fn in rs[0][0]:
            vals = tuple(agg([r[0][fn][k] for r in rs if fn in r[0]]) for k in range(3))
            tot = [t + v for t, v in zip(tot, vals)]
            print(f"  {vals[0]:8.3f} {vals[1]:8.3f} {vals[2]:8.3f}  {fn}")
        print(f"  {tot[0]:8.3f} {tot[1]:8.3f} {tot[2]:8.3f}  all {len(rs[0][0])} dispatches")
    print("\nprocess CPU per call, / static: " + ", ".join(
        f"{name} {cpu / cpus['static']:.2f}" for name, cpu in cpus.items() if name != "static"))
    return 0


def prepare_without(stablehlo_text: str, drop: str, instead: str = "") -> str:
    """prepare_for_iree's pipeline (and call checks) without the pass `drop` (or with `instead`
    in its place)."""
    from torch_mlir import ir

    from symhlo.passes.ir_util import new_context
    from symhlo.passes.registry import get_all_pipelines, run_pipeline

    elements = get_all_pipelines()["symhlo-stablehlo-to-iree-input-pipeline"][1]
    if drop not in elements:
        raise SystemExit(f"--drop-pass: {drop!r} is not in symhlo-stablehlo-to-iree-input-pipeline")
    module = ir.Module.parse(stablehlo_text, new_context())
    run_pipeline(module, "builtin.module(" + ", ".join(instead if e == drop else e for e in elements
                                                       if e != drop or instead)
                 + ", symhlo-insert-call-checks-for-iree{demote-f64=false}"
                 + ", symhlo-externalize-transients-for-iree)")
    return str(module)


if __name__ == "__main__":
    sys.exit(main())
