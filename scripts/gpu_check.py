#!/usr/bin/env python3
"""The GPU end-to-end suite: compile each model once for a GPU target, run it at several sizes,
compare with eager PyTorch, and print a table with latency (`symhlo gpu-check`).

    python scripts/gpu_check.py                      # CUDA (sm_80 PTX; the driver JITs it for newer GPUs)
    python scripts/gpu_check.py --target-arch sm_90  # native Hopper PTX (H100/H200)
    python scripts/gpu_check.py --target vulkan      # any Vulkan device, lavapipe included

Needs only the project's install (torch, symhlo, IREE). It opens the device before compiling
anything, and exits with status 2 and a message naming the missing driver when there is none;
status 1 when a model fails to compile or its results differ from eager.

The models (SUITE) are also the test/gpu suite's: the seed (`emb.expand(x.shape[0] * 2, -1, -1)`),
an MLP, a transformer block with dynamic batch and sequence, and a conv net with dynamic batch.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim


# -- the models ---------------------------------------------------------------------------------


# the demo's block: pre-norm causal attention + GELU MLP
from symhlo.tools.demo import TransformerBlock

class Seed(nn.Module):
    """The feature request's example: `emb.expand(x.shape[0] * 2, -1, -1)`, x's batch dynamic."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Parameter(torch.randn(1, 1, 768))

    def forward(self, x):
        return self.emb.expand(x.shape[0] * 2, -1, -1)


class MLP(nn.Module):
    """Linear -> GELU -> Linear -> tanh on (batch, 32)."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(32, 128), nn.Linear(128, 16)

    def forward(self, x):
        return torch.tanh(self.fc2(F.gelu(self.fc1(x))))


class ConvNet(nn.Module):
    """conv3x3 -> BN -> ReLU -> conv3x3/2 -> ReLU -> global mean -> linear, batch dynamic.

    """

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 32, 3, stride=2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.c1(x)))
        x = F.relu(self.c2(x))
        return self.fc(x.mean(dim=(2, 3)))


# -- the suite ----------------------------------------------------------------------------------


def _randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed + sum(shape)))


@dataclass
class Case:
    """One model of the suite: how to build it, export it, and which sizes to run.

    `sizes` are what the tests run (small: lavapipe is a CPU); `bench_sizes` are the latency table's.
    Each size is the tuple of dynamic values passed to `make_args`.
    """

    name: str
    make_model: Callable[[], nn.Module]
    make_args: Callable[..., tuple]
    example: tuple
    dynamic_shapes: Callable[[], Any]
    sizes: Sequence[tuple]
    bench_sizes: Sequence[tuple]
    rtol: float = 1e-4
    atol: float = 1e-4

    def model(self) -> nn.Module:
        torch.manual_seed(0)
        m = self.make_model().eval()
        if isinstance(m, ConvNet):  # non-trivial BN statistics
            with torch.no_grad():
                m.bn.running_mean.uniform_(-0.5, 0.5)
                m.bn.running_var.uniform_(0.5, 2.0)
        return m

    def args(self, size: tuple) -> tuple:
        return self.make_args(*size)


SUITE: list[Case] = [
    Case("seed", Seed, lambda b: (_randn(b, 3, 224, 224),), (4,),
         lambda: ({0: Dim("batch", min=1, max=1024)},),
         sizes=[(1,), (3,), (17,)], bench_sizes=[(1,), (16,), (64,)], rtol=0, atol=0),
    Case("mlp", MLP, lambda b: (_randn(b, 32),), (4,),
         lambda: ({0: Dim("batch", min=1, max=65536)},),
         sizes=[(1,), (7,), (300,)], bench_sizes=[(1,), (256,), (8192,)]),
    Case("transformer_block", TransformerBlock, lambda b, s: (_randn(b, s, 64),), (2, 8),
         lambda: ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=2, max=1024)},),
         sizes=[(1, 2), (2, 17), (3, 64)], bench_sizes=[(1, 16), (8, 128), (32, 512)],
         rtol=1e-3, atol=1e-4),
    Case("convnet", ConvNet, lambda b: (_randn(b, 3, 32, 32),), (2,),
         lambda: ({0: Dim("batch", min=1, max=1024)},),
         sizes=[(1,), (5,), (16,)], bench_sizes=[(1,), (32,), (256,)], rtol=1e-4, atol=1e-4),
]


def export_case(case: Case):
    """(model, StableHLOProgram) for a case: one export, shared by every target."""
    import symhlo

    model = case.model()
    with torch.no_grad():
        prog = symhlo.export(model, case.args(case.example), dynamic_shapes=case.dynamic_shapes())
    return model, prog


def compare(out, ref, rtol: float, atol: float) -> float:
    """Asserts out matches ref (shape, dtype, values); returns the max absolute error."""
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    refs = list(ref) if isinstance(ref, (tuple, list)) else [ref]
    assert len(outs) == len(refs), f"{len(outs)} outputs, eager has {len(refs)}"
    err = 0.0
    for k, (o, r) in enumerate(zip(outs, refs)):
        assert o.shape == r.shape, f"output {k}: shape {tuple(o.shape)} != eager {tuple(r.shape)}"
        assert o.dtype == r.dtype, f"output {k}: dtype {o.dtype} != eager {r.dtype}"
        torch.testing.assert_close(o, r, rtol=rtol, atol=atol)
        if r.numel():
            err = max(err, float((o.detach().double() - r.detach().double()).abs().max()))
    return err


# -- the check ----------------------------------------------------------------------------------


def _fmt_size(case: Case, size: tuple) -> str:
    shapes = [tuple(t.shape) for t in case.args(size)]
    return ",".join("x".join(map(str, s)) for s in shapes)


def _latency_ms(cm, args, repeats: int, warmup: int = 3) -> float:
    # Warm-up, the same for both columns: the first calls load IREE's executables, and eager's
    # first calls create oneDNN primitives and wake its thread pool.
    for _ in range(warmup):
        cm(*args)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        cm(*args)
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2] * 1e3


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the GPU suite; returns 0 when every model matched eager, 1 on a failure, 2 without a device."""
    import symhlo
    from symhlo.backend.runtime import open_device
    from symhlo.backend.targets import TARGETS

    p = argparse.ArgumentParser(prog="symhlo gpu-check", description=__doc__.splitlines()[0])
    p.add_argument("--target", default="cuda", choices=[t for t in TARGETS if t != "cpu"] + ["cpu"])
    p.add_argument("--target-arch", default=None, help="e.g. sm_80 (default), sm_90, gfx942")
    p.add_argument("--repeats", type=int, default=10, help="timed calls per size (median reported)")
    p.add_argument("--models", default=",".join(c.name for c in SUITE),
                   help="comma-separated subset of: " + ", ".join(c.name for c in SUITE))
    p.add_argument("--quick", action="store_true", help="only the small test sizes, 3 repeats")
    a = p.parse_args(argv)

    driver = TARGETS[a.target][1]
    try:
        device = open_device(driver)
    except symhlo.DeviceError as e:
        print(f"gpu-check: error: {e}", file=sys.stderr)
        return 2
    wanted = [n.strip() for n in a.models.split(",") if n.strip()]
    unknown = sorted(set(wanted) - {c.name for c in SUITE})
    if unknown:
        print(f"gpu-check: error: unknown model(s) {', '.join(unknown)} "
              f"(valid: {', '.join(c.name for c in SUITE)})", file=sys.stderr)
        return 2
    try:
        import iree.runtime as rt

        names = [d["name"] for d in rt.get_driver(driver).query_available_devices()]
    except Exception:
        names = []
    print(f"gpu-check: target={a.target} arch={a.target_arch or 'default'} driver={driver} "
          f"device={names[0] if names else device}  torch {torch.__version__}")
    repeats = 3 if a.quick else a.repeats
    rows, failures = [], 0
    t_start = time.perf_counter()
    for case in [c for c in SUITE if c.name in wanted]:
        try:
            t0 = time.perf_counter()
            model, prog = export_case(case)
            t1 = time.perf_counter()
            cm = symhlo.compile(prog, target=a.target, target_arch=a.target_arch)
            t2 = time.perf_counter()
        except Exception as e:
            failures += 1
            print(f"  {case.name}: FAILED to compile: {type(e).__name__}: "
                  f"{str(e).splitlines()[0] if str(e) else ''}")
            continue
        print(f"  {case.name}: export {t1 - t0:.1f} s, iree-compile {t2 - t1:.1f} s")
        sizes = list(case.sizes) if a.quick else list(dict.fromkeys([*case.sizes, *case.bench_sizes]))
        for size in sizes:
            args = case.args(size)
            try:
                with torch.no_grad():
                    ref = model(*args)
                    eager_ms = _latency_ms(model, args, repeats)
                out = cm(*args)
                err = compare(out, ref, case.rtol, case.atol)
                ms = _latency_ms(cm, args, repeats)
                rows.append((case.name, _fmt_size(case, size), "ok", err, ms, eager_ms))
            except Exception as e:
                failures += 1
                rows.append((case.name, _fmt_size(case, size), "FAIL", float("nan"), float("nan"),
                             float("nan")))
                print(f"  {case.name} at {_fmt_size(case, size)}: {type(e).__name__}: "
                      f"{' '.join(str(e).split())[:300]}")
    print()
    print(f"{'model':<18} {'input shapes':<16} {'result':<6} {'max|err|':>9} "
          f"{a.target + ' ms':>10} {'eager cpu ms':>13}")
    for name, shape, status, err, ms, eager_ms in rows:
        print(f"{name:<18} {shape:<16} {status:<6} {err:>9.2e} {ms:>10.3f} {eager_ms:>13.3f}")
    total = time.perf_counter() - t_start
    verdict = "all matched eager" if not failures else f"{failures} failure(s)"
    print(f"\ngpu-check: {verdict} ({len(rows)} runs, {total:.0f} s; latency = median of {repeats} "
          "calls incl. host<->device copies)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
