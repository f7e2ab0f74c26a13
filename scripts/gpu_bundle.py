#!/usr/bin/env python3
"""Compile on this host, run on a GPU host that has only iree-base-runtime and numpy.

    python scripts/gpu_bundle.py prepare BUNDLE [--arch sm_80 --arch sm_90] [--quick]
    python scripts/gpu_bundle_run.py BUNDLE           # on the GPU host (no torch-mlir, no compiler)

`prepare` exports each model of the GPU suite (scripts/gpu_check.py's, plus the benchmark's GPT-2
stack, ResNet-18 with dynamic H/W and the Llama prefill step) once with its dynamic dims, compiles
one dynamic module per CUDA arch and, for the dyn/static ratio, one static module per size, and
writes the inputs and eager PyTorch's outputs (CPU, float32) at every size as .npy files beside a
manifest.json. A TorchScript trace of each model goes along where tracing works, so the runner
can time eager PyTorch on the GPU too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))

import gpu_check  # noqa: E402
import models as bench_models  # noqa: E402

import symhlo  # noqa: E402
from torch.export import Dim  # noqa: E402


def _bench_case(spec: bench_models.Spec):
    """A bench Spec -> (model, example args, dynamic_shapes, sizes, make_args, rtol)."""
    model = spec.make()
    dims = spec.dims()
    made: dict[str, Dim] = {}

    def dim(name, lo, hi):
        if name not in made:
            made[name] = Dim(name, min=lo, max=hi)
        return made[name]

    dyn = tuple({axis: dim(*d) for axis, d in per.items()} for per in dims)
    # torch.export specializes sizes 0 and 1: export at a size >= 2 in every dynamic axis
    size = spec.export_size or next((s for s in spec.sizes if min(s) >= 2), max(spec.sizes))
    example = spec.inputs(size)
    return model, example, dyn, spec.sizes, spec.inputs, spec.rtol


def cases(quick: bool):
    for c in gpu_check.SUITE:
        if c.name == "seed":  # its (17, 3, 224, 224) input alone is 10 MB of the bundle
            yield (c.name, c.model(), c.args(c.example), c.dynamic_shapes(), [(1,), (3,)], c.args,
                   0.0, 0.0)
            continue
        yield (c.name, c.model(), c.args(c.example), c.dynamic_shapes(),
               list(dict.fromkeys([*c.sizes, *([] if quick else c.bench_sizes)])), c.args,
               max(c.rtol, 1e-3), max(c.atol, 1e-4))
    # the benchmark's transformer models at sizes where a GPU has work to do; ResNet-18 and the
    # d=768 GPT-2 stack are left out: their weights make each module 50-60 MB
    for spec in (bench_models.gpt2_d256(2, quick), bench_models.llama_prefill(quick)):
        m, ex, dyn, sizes, make, rtol = _bench_case(spec)
        yield spec.name, m, ex, dyn, sizes, make, rtol, 1e-3


def _save(path: str, t) -> str:
    a = t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.save(path, a)
    return os.path.basename(path)


def _flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _flat(o)]
    raise TypeError(type(out))


def _round_weights(model: torch.nn.Module) -> None:
    """Weights rounded to multiples of 2**-10: the modules (weights inline) then compress ~4x,
    which keeps a bundle small enough to carry; the arithmetic is as real as before."""
    with torch.no_grad():
        for t in [*model.parameters(), *model.buffers()]:
            if t.is_floating_point():
                t.copy_(torch.round(t * 1024) / 1024)


def prepare(bundle: str, archs: list[str], quick: bool, static: bool, target: str = "cuda") -> int:
    from symhlo.backend.compiler import compile_to_vmfb

    os.makedirs(bundle, exist_ok=True)
    manifest = {"target": target, "archs": archs, "torch": torch.__version__, "models": []}
    for name, model, example, dyn, sizes, make_args, rtol, atol in cases(quick):
        t0 = time.perf_counter()
        _round_weights(model)
        with torch.no_grad():
            prog = symhlo.export(model, example, dynamic_shapes=dyn)
        big = sum(t.numel() for t in model.parameters()) > 2_000_000
        entry = {"name": name, "rtol": rtol, "atol": atol, "vmfb": {}, "sizes": []}
        for arch in archs[:1] if big else archs:
            vmfb = compile_to_vmfb(prog.text, target=target, target_arch=arch)
            fn = f"{name}.{arch}.vmfb"
            with open(os.path.join(bundle, fn), "wb") as f:
                f.write(vmfb)
            entry["vmfb"][arch] = fn
        for k, size in enumerate(sizes):
            args = tuple(make_args(tuple(size)))
            with torch.no_grad():
                ref = _flat(model(*args))
            rec = {"size": list(size),
                   "inputs": [_save(os.path.join(bundle, f"{name}.s{k}.in{j}.npy"), a)
                              for j, a in enumerate(args)],
                   "expected": [_save(os.path.join(bundle, f"{name}.s{k}.out{j}.npy"), r)
                                for j, r in enumerate(ref)],
                   "static": {}}
            if static and not (big and k != len(sizes) - 1):
                with torch.no_grad():
                    sprog = symhlo.export(model, args)
                for arch in archs[:1]:
                    fn = f"{name}.s{k}.static.{arch}.vmfb"
                    with open(os.path.join(bundle, fn), "wb") as f:
                        f.write(compile_to_vmfb(sprog.text, target=target, target_arch=arch))
                    rec["static"][arch] = fn
            entry["sizes"].append(rec)
        try:
            if big:
                raise ValueError("left out: a large model's trace would not fit the bundle")
            with torch.no_grad():
                traced = torch.jit.trace(model, tuple(example), check_trace=False, strict=False)
            traced.save(os.path.join(bundle, f"{name}.ts"))
            entry["torchscript"] = f"{name}.ts"
        except Exception as e:  # eager GPU timing is optional
            entry["torchscript_error"] = f"{type(e).__name__}: {str(e)[:200]}"
        manifest["models"].append(entry)
        print(f"{name}: {len(sizes)} sizes, {len(archs)} arch(s), {time.perf_counter() - t0:.0f} s",
              flush=True)
    with open(os.path.join(bundle, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    total = sum(os.path.getsize(os.path.join(bundle, p)) for p in os.listdir(bundle))
    print(f"bundle {bundle}: {len(os.listdir(bundle))} files, {total / 2**20:.1f} MiB")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare", help="export, compile for CUDA, write inputs and eager outputs")
    pp.add_argument("bundle", help="output folder")
    pp.add_argument("--arch", action="append", help="CUDA arch (repeatable; default sm_80 and sm_90)")
    pp.add_argument("--quick", action="store_true", help="only the small sizes")
    pp.add_argument("--target", default="cuda", help="cuda (default), rocm, vulkan, or cpu to try the bundle here")
    pp.add_argument("--no-static", action="store_true", help="skip the static module per size")
    a = p.parse_args(argv)
    archs = a.arch or (["sm_80", "sm_90"] if a.target == "cuda" else ["host" if a.target == "cpu" else None])
    return prepare(a.bundle, archs, a.quick, not a.no_static, a.target)


if __name__ == "__main__":
    raise SystemExit(main())
