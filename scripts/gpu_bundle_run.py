#!/usr/bin/env python3
"""Run a bundle made by `scripts/gpu_bundle.py prepare` on a GPU host: iree-base-runtime and numpy
only (torch, when present, times eager PyTorch on the same GPU from the bundle's TorchScript).

    python scripts/gpu_bundle_run.py BUNDLE [--driver cuda] [--repeats 20] [--json OUT.json]

Each dynamic module is loaded once per arch and called at every size of its model; results are
compared with the eager outputs the bundle holds (CPU float32). Latency is the median of timed
calls after one warm-up, host<->device copies included, as `symhlo.compile`'s callable pays them.
Exit status: 0 all matched, 1 a mismatch or failure, 2 no device.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np


_ELEMENT_TYPES: dict = {}


def _element_types(rt) -> dict:
    T = rt.HalElementType
    return {"float32": T.FLOAT_32, "float64": T.FLOAT_64, "float16": T.FLOAT_16,
            "int64": T.SINT_64, "int32": T.SINT_32, "int16": T.SINT_16, "int8": T.SINT_8,
            "uint8": T.UINT_8, "bool": T.BOOL_8}


def _load(rt, instance, device, path):
    with open(path, "rb") as f:
        module = rt.VmModule.copy_buffer(instance, f.read())
    ctx = rt.VmContext(instance, modules=[rt.create_hal_module(instance, device), module])
    return ctx, module.lookup_function("main")


def _to_host(rt, device, bv):
    shape = tuple(bv.shape)
    dtype = np.dtype(rt.HalElementType.map_to_dtype(bv.element_type))
    if int(np.prod(shape)) == 0:
        return np.empty(shape, dtype=dtype)
    buf = bv.get_buffer()
    if (buf.memory_type() & int(rt.MemoryType.HOST_VISIBLE)
            and buf.allowed_usage() & int(rt.BufferUsage.MAPPING_SCOPED)):
        return np.array(bv.map().asarray(shape, dtype), copy=True)
    size = buf.byte_length()
    staging = device.allocator.allocate_buffer(
        memory_type=int(rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE),
        allowed_usage=int(rt.BufferUsage.TRANSFER_TARGET | rt.BufferUsage.MAPPING_SCOPED),
        allocation_size=size)
    sem = device.create_semaphore(0)
    device.queue_copy(buf, staging, wait_semaphores=rt.HalFence.create_at(sem, 0),
                      signal_semaphores=rt.HalFence.create_at(sem, 1))
    rt.HalFence.create_at(sem, 1).wait()
    return np.array(staging.map().asarray(shape, dtype), copy=True)


def _call(rt, device, ctx, fn, arrays, n_results=8):
    args = rt.VmVariantList(len(arrays))
    for a in arrays:
        a = np.require(a, requirements="C")
        et = _ELEMENT_TYPES[a.dtype.name]
        args.push_ref(device.allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL,
            allowed_usage=rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING,
            device=device, buffer=a.view(np.int8) if a.dtype == np.bool_ else a, element_type=et))
    rets = rt.VmVariantList(n_results)
    ctx.invoke(fn, args, rets)
    return [_to_host(rt, device, rets.get_as_object(i, rt.HalBufferView)) for i in range(len(rets))]


def _median_ms(f, repeats):
    f()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2] * 1e3


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle")
    p.add_argument("--driver", default="cuda")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--json", default=None, help="write the rows as JSON here")
    p.add_argument("--flag", action="append", default=[],
                   help="an IREE runtime flag, e.g. --flag=--cuda_use_streams=true (repeatable)")
    p.add_argument("--models", default=None, help="comma-separated subset of the bundle's models")
    p.add_argument("--archs", default=None, help="comma-separated subset of the bundle's archs")
    a = p.parse_args(argv)

    import iree.runtime as rt

    _ELEMENT_TYPES.update(_element_types(rt))
    if a.flag:
        rt.flags.parse_flags(*a.flag)
    man = json.load(open(os.path.join(a.bundle, "manifest.json")))
    try:
        device = rt.get_device(a.driver)
        names = [d["name"] for d in rt.get_driver(a.driver).query_available_devices()]
    except Exception as e:
        print(f"gpu_bundle_run: no '{a.driver}' device: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    try:
        import torch
        has_cuda = torch.cuda.is_available()
    except Exception:
        torch, has_cuda = None, False
    print(f"device: {names[0] if names else device}; bundle made with torch {man['torch']}; "
          f"eager on GPU: {'torch ' + torch.__version__ if has_cuda else 'no'}", flush=True)
    instance = rt.VmInstance()
    rows, failures = [], 0
    path = lambda fn: os.path.join(a.bundle, fn)  # noqa: E731
    for m in man["models"]:
        if a.models and m["name"] not in a.models.split(","):
            continue
        traced = None
        if has_cuda and m.get("torchscript"):
            try:
                traced = torch.jit.load(path(m["torchscript"]), map_location="cuda").eval()
            except Exception as e:
                print(f"  {m['name']}: TorchScript did not load ({type(e).__name__}); no eager column")
        for arch, vfn in m["vmfb"].items():
            if a.archs and arch not in a.archs.split(","):
                continue
            try:
                t0 = time.perf_counter()
                ctx, fn = _load(rt, instance, device, path(vfn))
                load_s = time.perf_counter() - t0
            except Exception as e:
                failures += 1
                print(f"  {m['name']} [{arch}]: LOAD FAILED: {' '.join(str(e).split())[:400]}")
                continue
            print(f"  {m['name']} [{arch}]: loaded in {load_s:.2f} s", flush=True)
            for rec in m["sizes"]:
                ins = [np.load(path(f)) for f in rec["inputs"]]
                exp = [np.load(path(f)) for f in rec["expected"]]
                label = "x".join(map(str, rec["size"]))
                try:
                    outs = _call(rt, device, ctx, fn, ins, len(exp))
                    err, ok = 0.0, len(outs) == len(exp)
                    for o, e in zip(outs, exp):
                        if o.shape != e.shape:
                            ok = False
                            err = float("inf")
                            continue
                        if e.size:
                            d = np.abs(o.astype(np.float64) - e.astype(np.float64))
                            err = max(err, float(d.max()))
                            tol = m["atol"] + m["rtol"] * np.abs(e.astype(np.float64))
                            ok = ok and bool((d <= tol).all())
                    ms = _median_ms(lambda: _call(rt, device, ctx, fn, ins, len(exp)), a.repeats)
                    static_ms = None
                    if arch in rec.get("static", {}):
                        sctx, sfn = _load(rt, instance, device, path(rec["static"][arch]))
                        static_ms = _median_ms(lambda: _call(rt, device, sctx, sfn, ins, len(exp)),
                                               a.repeats)
                    eager_ms = None
                    if traced is not None:
                        try:
                            tin = [torch.from_numpy(x).cuda() for x in ins]
                            with torch.no_grad():
                                def run():
                                    o = traced(*tin)
                                    torch.cuda.synchronize()
                                    return o
                                eager_ms = _median_ms(run, a.repeats)
                        except Exception:
                            eager_ms = None
                    rows.append(dict(model=m["name"], arch=arch, size=label,
                                     ok=ok, max_abs_err=err, dyn_ms=ms, static_ms=static_ms,
                                     eager_gpu_ms=eager_ms))
                    failures += 0 if ok else 1
                except Exception as e:
                    failures += 1
                    rows.append(dict(model=m["name"], arch=arch, size=label, ok=False,
                                     error=" ".join(str(e).split())[:300]))
                r = rows[-1]
                fmt = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
                print(f"    {label:<12} {'ok' if r['ok'] else 'FAIL':<5} "
                      f"err {r.get('max_abs_err', float('nan')):.2e}  dyn {fmt(r.get('dyn_ms'))} ms  "
                      f"static {fmt(r.get('static_ms'))} ms  eager-gpu {fmt(r.get('eager_gpu_ms'))} ms"
                      + (f"  {r['error']}" if "error" in r else ""), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    print(f"gpu_bundle_run: {len(rows)} runs, {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
