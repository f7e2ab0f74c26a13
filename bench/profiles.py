"""What a specialized optimization profile buys at its opt shape, against one dynamic module.

Builds an MLP block (layer_norm -> linear -> gelu -> linear, residual) on tokens (seq, d) twice:
  * profiles: symhlo.Input(profiles=[decode (1, d) static, prefill (32..256, d) bounded])
  * dynamic:  symhlo.Input(min_shape=(1, d), max_shape=(None, d))  -- one unbounded module
and times each at the profiles' opt shapes (seq = 1 and seq = 128): the median of repeated calls,
both through the CompiledModule (shape checks + dispatch + transfers) and on the IREE function alone,
the two modules' calls interleaved so that the machine's load drift hits both alike.
Prints the numbers side by side with the ratio dynamic / profile (> 1: the profile is faster).

    .venv/bin/python bench/profiles.py [--d 256] [--hidden 1024] [--repeats 200] [--iree-flag F ...]

Not a test: numbers depend on the machine and on its load.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

import symhlo


class MLPBlock(torch.nn.Module):
    def __init__(self, d: int, hidden: int):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, hidden)
        self.down = torch.nn.Linear(hidden, d)

    def forward(self, tokens):
        return tokens + self.down(torch.nn.functional.gelu(self.up(self.norm(tokens))))


def median_us(fa, fb, repeats: int, warmup: int = 5) -> tuple[float, float]:
    """Median latency (us) of fa and fb, calls interleaved so that load drift hits both alike."""
    for _ in range(warmup):
        fa()
        fb()
    sa, sb = [], []
    for _ in range(repeats):
        for fn, out in ((fa, sa), (fb, sb)):
            t = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t)
    return statistics.median(sa) * 1e6, statistics.median(sb) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=256)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--iree-flag", action="append", default=[], help="extra iree-compile flag")
    a = ap.parse_args()

    torch.manual_seed(0)
    model = MLPBlock(a.d, a.hidden).eval()
    opts = {"iree_flags": a.iree_flag}
    decode = dict(min_shape=(1, a.d), opt_shape=(1, a.d), max_shape=(1, a.d))
    prefill = dict(min_shape=(32, a.d), opt_shape=(128, a.d), max_shape=(256, a.d))
    t0 = time.perf_counter()
    prof = symhlo.compile(model, inputs=[symhlo.Input(name="tokens", dims=("seq", None),
                                                      profiles=[decode, prefill])], options=opts)
    t1 = time.perf_counter()
    dyn = symhlo.compile(model, inputs=[symhlo.Input(min_shape=(1, a.d), opt_shape=(128, a.d),
                                                     max_shape=(None, a.d), dims=("seq", None),
                                                     name="tokens")], options=opts)
    t2 = time.perf_counter()
    print(f"MLP block d={a.d} hidden={a.hidden}; compile: profiles {t1 - t0:.1f} s "
          f"(2 IREE modules), dynamic {t2 - t1:.1f} s (1 module); {a.repeats} calls, median")
    for p in prof.profiles:
        print(f"  {p}{'  [static]' if p.static else ''}")
    print(f"  dynamic: tokens (1..inf, {a.d})")
    print()
    header = f"{'seq':>5} {'profile':>8} {'path':<10} {'profile us':>11} {'dynamic us':>11} {'dyn/prof':>9}"
    print(header)
    print("-" * len(header))
    with torch.no_grad():
        for seq in (1, 128):
            x = torch.randn(seq, a.d)
            want = model(x)
            torch.testing.assert_close(prof(x), want, rtol=1e-4, atol=1e-4)
            torch.testing.assert_close(dyn(x), want, rtol=1e-4, atol=1e-4)
            k = prof.profile_for(x)
            arrays = [x.numpy()]
            rt_prof, rt_dyn = prof._runtimes()[k], dyn._runtimes()[0]
            rows = [("call", lambda: prof(x), lambda: dyn(x)),
                    ("iree-only", lambda: rt_prof(arrays), lambda: rt_dyn(arrays))]
            for path, fp, fd in rows:
                tp, td = median_us(fp, fd, a.repeats)
                print(f"{seq:>5} {k:>8} {path:<10} {tp:>11.1f} {td:>11.1f} {td / tp:>8.2f}x")


if __name__ == "__main__":
    main()
