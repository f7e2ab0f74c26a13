"""Superseded: symhlo-prepare-for-iree now emits collapse/expand_shape where the size facts prove
the reshape a reassociation (lib/size_facts.py `reassociation`), and softmax no longer reaches
IREE as the divide form whose raised linalg.softmax was slow. Kept as the record of the
measurement that motivated it.

Experiment (measurement only, NOT sound): what symhlo-dyn gains when the IREE input says
`tensor.expand_shape` / `tensor.collapse_shape` instead of `tensor.reshape` for dynamic reshapes.

symhlo-prepare-for-iree turns each `stablehlo.dynamic_reshape` into `tensor.reshape` with an index
shape tensor. IREE cannot see through that op: on a GPT-2-width layer the dynamic module has 27
dispatches against the static module's 16 (layer norm 5 vs 2; softmax stays decomposed instead of
becoming one linalg.softmax dispatch), and that is most of the dynamic/static gap.

This script rewrites the prepared IREE input by the *types alone*: unit dims inserted or removed
(`?x?xf32 -> ?x?x1xf32`, the keepdim of every reduce) and a merge/split of two leading dynamic dims
(`?x?x768 <-> ?x768`). It assumes that the `?`s correspond, which torch's contract makes true for
these models but which a real pass must prove from the symbolic facts (the shape operand's
get_dimension_size sources). Outputs are checked against eager, and then timed against the
unmodified dynamic module and the static one.

    .venv/bin/python bench/experiments/reshape_as_expand.py [--model gpt2|block] [--layers 1] [--sizes ...]

Measured (shared 2-core machine, medians of 11): transformer block, 38 -> 27 dispatches and the
softmax becomes one linalg.softmax; dyn/static at (4, 128) 1.21 -> 0.92, but at (4, 512) 2.35 -> 4.79:
IREE's dynamic-size linalg.softmax (reduction over the dynamic seq axis) is far slower than the
decomposed form at long rows. GPT-2 1 layer: 39 -> 29 dispatches; (4, 128) 1.42 -> 1.03,
(1, 512) 1.69 -> 2.41. So the rewrite is worth having only together with better code for softmax
over a dynamic axis (or without letting IREE raise it to linalg.softmax).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import run as bench  # noqa: E402  (sets OMP_WAIT_POLICY before torch loads)
import models  # noqa: E402
import torch  # noqa: E402

DYN = -9223372036854775808


def _reassociation(large: list[int], small: list[int]) -> list[list[int]] | None:
    """Groups of `large`'s axes, one per `small` axis, when they differ by unit dims only or by a
    merge of the two leading dynamic axes; None otherwise."""
    if [d for d in large if d != 1] == [d for d in small if d != 1] and small:
        groups: list[list[int]] = [[] for _ in small]
        j = 0
        for i, s in enumerate(small):
            while s != 1 and j < len(large) and large[j] == 1:
                groups[i].append(j)
                j += 1
            if j >= len(large) or large[j] != s:
                return None
            groups[i].append(j)
            j += 1
        groups[-1].extend(range(j, len(large)))
        return groups
    if (len(large) == len(small) + 1 and len(large) >= 2 and large[0] == DYN and large[1] == DYN
            and small[0] == DYN and large[2:] == small[1:]):
        return [[0, 1]] + [[k] for k in range(2, len(large))]
    return None


def rewrite(text: str) -> tuple[str, int]:
    """tensor.reshape -> tensor.expand_shape / collapse_shape where the types allow it."""
    from torch_mlir import ir

    from symhlo.passes.ir_util import create, defining_op, new_context, walk_ops

    ctx = new_context()
    module = ir.Module.parse(text, ctx)
    n = 0
    i64 = None
    with ctx, ir.Location.unknown():
        i64 = ir.IntegerType.get_signless(64)
        for op in walk_ops(module.operation):
            if op.name != "tensor.reshape":
                continue
            src, shape = op.operands
            src_t = ir.RankedTensorType(src.type)
            dst_t = ir.RankedTensorType(op.results[0].type)
            s, d = list(src_t.shape), list(dst_t.shape)
            if len(d) > len(s):
                groups = _reassociation(d, s)
                kind = "tensor.expand_shape"
            elif len(d) < len(s):
                groups = _reassociation(s, d)
                kind = "tensor.collapse_shape"
            else:
                continue
            if groups is None:
                continue
            reassoc = ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, k) for k in g])
                                        for g in groups])
            ip = ir.InsertionPoint(op)
            if kind == "tensor.collapse_shape":
                new = create(kind, [dst_t], [src], {"reassociation": reassoc}, loc=op.location,
                             ip=ip).result
            else:
                from_elements = defining_op(shape)
                if from_elements is None or from_elements.name != "tensor.from_elements":
                    continue
                sizes = [from_elements.operands[k] for k, v in enumerate(d) if v == DYN]
                attrs = {"reassociation": reassoc,
                         "static_output_shape": ir.DenseI64ArrayAttr.get(d)}
                new = create(kind, [dst_t], [src] + sizes, attrs, loc=op.location, ip=ip).result
            op.results[0].replace_all_uses_with(new)
            op.erase()
            n += 1
    return str(module), n


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="gpt2", choices=["gpt2", "block"])
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--sizes", default="1x32,4x128,1x512")
    p.add_argument("--reps", type=int, default=7)
    args = p.parse_args(argv)

    import iree.compiler as ic

    import symhlo
    import symhlo.backend.compiler as sc

    spec = models.gpt2(args.layers) if args.model == "gpt2" else models.block()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    model = spec.make()
    original = sc.prepare_for_iree
    counts = []

    def patched(text: str) -> str:
        out, n = rewrite(original(text))
        counts.append(n)
        return out

    with torch.no_grad():
        prog = symhlo.export(model, (bench.export_example(spec),), dynamic_shapes=bench.dynamic_shapes(spec))
        cols = {"dyn": symhlo.compile(prog)}
        sc.prepare_for_iree = patched
        try:
            cols["dyn+expand"] = symhlo.compile(prog)
        finally:
            sc.prepare_for_iree = original
        print(f"rewrote {counts[0]} tensor.reshape ops", file=sys.stderr)
        for flow_name, text in (("dyn", original(prog.text)), ("dyn+expand", rewrite(original(prog.text))[0])):
            flow = ic.compile_str(text, input_type="stablehlo",
                                  extra_args=sc.iree_flags("cpu") + ["--compile-to=flow"])
            flow = flow.decode() if isinstance(flow, bytes) else flow
            print(f"{flow_name}: {flow.count('flow.executable private')} dispatches, "
                  f"{flow.count('linalg.softmax')} linalg.softmax", file=sys.stderr)
    rows = []
    for size in sizes:
        x = spec.example(size)
        with torch.no_grad():
            ref = model(x)
            static = symhlo.compile(model, (x,))
        calls = dict(cols, static=static)
        for name, fn in calls.items():
            err = bench.rel_err(fn(x), ref)
            if err > spec.rtol:
                print(f"{name} {size}: WRONG, relative error {err:.1e}", file=sys.stderr)
        times = {k: [] for k in calls}
        for r in range(args.reps):
            for k in calls:
                t0 = time.perf_counter()
                calls[k](x)
                times[k].append((time.perf_counter() - t0) * 1e3)
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append((size, med))
        print(f"{spec.label(size)}: " + "  ".join(f"{k}={v:.1f}ms" for k, v in med.items())
              + f"  dyn/static={med['dyn'] / med['static']:.2f}"
              + f"  dyn+expand/static={med['dyn+expand'] / med['static']:.2f}", flush=True)
    g = bench.geomean([m["dyn"] / m["static"] for _, m in rows])
    g2 = bench.geomean([m["dyn+expand"] / m["static"] for _, m in rows])
    print(f"geomean dyn/static {g:.2f}, dyn+expand/static {g2:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
