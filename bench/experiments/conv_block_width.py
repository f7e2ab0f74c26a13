"""The im2col block width of symhlo-lower-dynamic-windows-for-iree, measured side by side.

For a CNN whose batch, H and W are dynamic, one process compiles the dynamic module once per
block width (the pass option `block-width`, 1 = no blocks), plus the static module and
torch.compile(dynamic=True), and times them interleaved, call by call (rotating order), at one
size. Every output is compared with eager first.

    .venv/bin/python bench/experiments/conv_block_width.py --model small-cnn --batch 8 --widths 1,16,32
    .venv/bin/python bench/experiments/conv_block_width.py --model resnet18 --batch 8 --widths 1,16
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import torch  # noqa: E402

import models  # noqa: E402
import run  # noqa: E402


def compile_with_block_width(spec, model, width: int):
    """symhlo-dyn with the windows pass's block_width set to `width` for this compile."""
    import symhlo
    from symhlo.passes.lower_dynamic_windows_for_iree import LowerDynamicWindowsForIree as cls

    default = cls.__init__.__defaults__
    # its fields (block_width, block_max_channels): what the pipeline's cls() gets
    cls.__init__.__defaults__ = (width, default[1])
    try:
        return symhlo.compile(model, run.export_example(spec), dynamic_shapes=run.dynamic_shapes(spec))
    finally:
        cls.__init__.__defaults__ = default


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="small-cnn", choices=("small-cnn", "resnet18"))
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--widths", default="1,16")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--no-inductor", action="store_true")
    a = p.parse_args(argv)
    spec = models.small_cnn() if a.model == "small-cnn" else models.resnet18()
    model = spec.make()
    size = (a.batch,)
    xs = spec.inputs(size)
    import symhlo

    fns = {}
    for w in [int(x) for x in a.widths.split(",")]:
        t0 = time.perf_counter()
        fns[f"dyn bw={w}"] = compile_with_block_width(spec, model, w)
        print(f"compiled dyn bw={w} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    fns["static"] = symhlo.compile(model, xs)
    if not a.no_inductor:
        fns["inductor"] = torch.compile(model, dynamic=True)
    with torch.inference_mode():
        ref = model(*xs)
        for name, fn in fns.items():
            err = run.rel_err(fn(*xs), ref)
            fn(*xs)
            print(f"{name}: rel err {err:.1e}", file=sys.stderr)
            assert err < spec.rtol, name
        times = {n: [] for n in fns}
        names = list(fns)
        for r in range(a.rounds):
            for n in names[r % len(names):] + names[:r % len(names)]:
                t0 = time.perf_counter()
                fns[n](*xs)
                times[n].append((time.perf_counter() - t0) * 1e3)
    st = statistics.median(times["static"])
    print(f"{spec.name} {spec.label(size)} {spec.describe}; load {os.getloadavg()[0]:.1f}")
    for n, ts in times.items():
        m = statistics.median(ts)
        print(f"  {n:12s} median {m:8.2f} ms  min {min(ts):8.2f}  / static {m / st:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
