"""IREE CPU flag sets compared on one model: symhlo dynamic vs static (and iree-turbine) per flag set.

    .venv/bin/python bench/flags.py --layers 2 --sizes 1x32,4x128,1x512 \
        --flagsets "default=;dt=--iree-opt-data-tiling;dt+uk=--iree-opt-data-tiling --iree-llvmcpu-enable-ukernels=all"

Each flag set is added to targets.TARGETS["cpu"]'s flags; a flag written `!--flag` is removed from
them instead (e.g. "no-dt=!--iree-global-opt-data-tiling"). symhlo's compile adds its own
per-module flags after them unless a set names the same flag (a module with a `?` dim gets
`--iree-llvmcpu-matmul-tile-bytes=131072`: "tb256=--iree-llvmcpu-matmul-tile-bytes=262144" is
IREE's default for it). Every (flag set, column) is compiled once
(static: once per size) and all of them are timed interleaved at each size; the table gives the median
ms and, per flag set, dyn/static and dyn/turbine. Writes bench/results/flags.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import models  # noqa: E402
import run as bench  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="gpt2", choices=["gpt2", "gpt2_d256", "resnet18", "resnet18_batch",
                                                       "small_cnn", "llama_prefill", "block", "mlp"])
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--sizes", default="1x32,4x128,1x512")
    p.add_argument("--flagsets", default="default=;dt=--iree-opt-data-tiling")
    p.add_argument("--turbine", action="store_true", help="also compile iree-turbine per flag set")
    p.add_argument("--no-static", action="store_true")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--out", default=str(HERE / "results" / "flags.md"))
    args = p.parse_args(argv)

    if args.model == "gpt2":
        spec = models.gpt2(args.layers)
    elif args.model == "gpt2_d256":
        spec = models.gpt2_d256(args.layers)
    elif args.model == "resnet18_batch":
        spec = models.resnet18(dynamic_hw=False)
    else:
        spec = getattr(models, args.model)()
    spec.sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    flagsets = {}
    for item in args.flagsets.split(";"):
        name, _, flags = item.partition("=")
        flagsets[name.strip()] = flags.split()
    model = spec.make()
    bench.passtime.instrument()

    from symhlo.backend import targets

    base_flags, driver = targets.TARGETS["cpu"]
    fns: dict[str, dict] = {}     # column label -> size or None -> callable
    compile_s: dict[str, float] = {}
    for name, flags in flagsets.items():
        removed = {f[1:] for f in flags if f.startswith("!")}
        flags = [f for f in flags if not f.startswith("!")]
        targets.TARGETS["cpu"] = ([f for f in base_flags if f not in removed], driver)
        ns = argparse.Namespace(iree_flags=flags)
        runners = bench.Runners(ns, None)
        t0 = time.perf_counter()
        try:
            cm, _ = runners.symhlo_dynamic(spec, model)
            fns[f"{name}:dyn"] = {None: cm}
            compile_s[f"{name}:dyn"] = time.perf_counter() - t0
        except Exception as e:
            print(f"{name}: dynamic compile failed: {str(e)[:500]}", file=sys.stderr)
        if not args.no_static:
            fns[f"{name}:static"] = {}
            for size in spec.sizes:
                try:
                    cm, _ = runners.symhlo_static(spec, model, size)
                    fns[f"{name}:static"][size] = cm
                except Exception as e:
                    print(f"{name}: static compile failed: {str(e)[:300]}", file=sys.stderr)
        if args.turbine:
            try:
                fn, compile_s[f"{name}:turbine"] = runners.turbine(spec, model)
                fns[f"{name}:turbine"] = {None: fn}
            except Exception as e:
                print(f"{name}: turbine compile failed: {str(e)[:300]}", file=sys.stderr)
        print(f"compiled flag set {name}", file=sys.stderr, flush=True)
    targets.TARGETS["cpu"] = (base_flags, driver)

    TARGETS = targets.TARGETS
    med: dict[tuple, float] = {}
    for size in spec.sizes:
        xs = spec.inputs(size)
        with torch.inference_mode():
            ref = model(*xs)
        calls = {}
        for col, by_size in fns.items():
            fn = by_size.get(size, by_size.get(None))
            if fn is None:
                continue
            err = bench.rel_err(fn(*xs), ref)
            if err > 1e-3:
                print(f"{col} {size}: relative error {err:.1e}", file=sys.stderr)
            fn(*xs)
            calls[col] = fn
        times = {c: [] for c in calls}
        cols = list(calls)
        for r in range(args.reps):
            for col in cols[r % len(cols):] + cols[:r % len(cols)]:
                t0 = time.perf_counter()
                calls[col](*xs)
                times[col].append((time.perf_counter() - t0) * 1e3)
        for col, ts in times.items():
            med[(size, col)] = statistics.median(ts)
        print(f"{spec.label(size)}: " + "  ".join(f"{c}={med[(size, c)]:.1f}" for c in cols),
              file=sys.stderr, flush=True)

    lines = [f"# IREE CPU flag sets on {spec.name}", "",
             f"Median of {args.reps} interleaved calls (ms). Flags added to "
             f"`{' '.join(TARGETS['cpu'][0])}`.",
             ""]
    for name, flags in flagsets.items():
        lines.append(f"- `{name}`: `{' '.join(flags) or '(none)'}`")
    cols = list(fns)
    lines += ["", "| size | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for size in spec.sizes:
        lines.append(f"| {spec.label(size)} | " +
                     " | ".join(f"{med[(size, c)]:.2f}" if (size, c) in med else "-" for c in cols) + " |")
    lines += ["", "| flag set | dyn/static geomean | dyn/turbine geomean | dyn vs default-dyn | dyn compile s |",
              "|---|---|---|---|---|"]
    base = next(iter(flagsets))
    for name in flagsets:
        def ratio(other):
            r = [med[(s, f"{name}:dyn")] / med[(s, other)] for s in spec.sizes
                 if (s, f"{name}:dyn") in med and (s, other) in med]
            g = bench.geomean(r)
            return f"{g:.2f}" if g else "-"
        lines.append(f"| {name} | {ratio(f'{name}:static')} | {ratio(f'{name}:turbine')} | "
                     f"{ratio(f'{base}:dyn')} | {compile_s.get(f'{name}:dyn', 0):.1f} |")
    text = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
