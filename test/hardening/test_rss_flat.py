"""No leaks: resident memory stays flat over 5,000 calls of a compiled module.

The bound: after 300 warm-up calls, RSS (from /proc/self/statm) may grow by at most 16 MB over
5,000 calls. Each call moves 16-64 KB in and out (x has 1024-4096 rows), so leaking the input
or result buffers of every call would add 80-320 MB and fail the bound many times over.
Measured on the 2-core CI machine: +0.0 to +0.1 MB. Short-lived threads (one IREE context each)
get the same treatment: 200 threads after 100 warm-up threads, at most 16 MB (measured +0.1 MB).

    SYMHLO_LEAK_CALLS=50000 pytest test/hardening/test_rss_flat.py -s
"""

from __future__ import annotations

import os
import threading

import torch

CALLS = int(os.environ.get("SYMHLO_LEAK_CALLS", "5000"))
BOUND_MB = 16.0
_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE / 2**20


def _inputs(n: int):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(1024 + (k * 389) % 3072, 4, generator=g), torch.randn(2 + k % 63, generator=g))
            for k in range(n)]


def test_5000_calls_keep_rss_flat(two_inputs_module):
    cm = two_inputs_module
    xs = _inputs(32)
    for k in range(300):
        cm(*xs[k % len(xs)])
    start = rss_mb()
    samples = []
    for k in range(CALLS):
        out = cm(*xs[k % len(xs)])
        if k % 1000 == 999:
            samples.append(rss_mb() - start)
    del out
    growth = rss_mb() - start
    print(f"\nRSS over {CALLS} calls: start {start:.1f} MB, growth {growth:+.2f} MB "
          f"(every 1000 calls: {', '.join(f'{s:+.2f}' for s in samples)}), bound {BOUND_MB} MB")
    assert growth < BOUND_MB, samples
    # The right answer at the end too.
    x, y = xs[0]
    torch.testing.assert_close(cm(x, y)[0], x * 2 + 1)


def test_short_lived_threads_keep_rss_flat(two_inputs_module):
    cm = two_inputs_module
    x, y = _inputs(1)[0]

    def burst(n):
        for _ in range(n):
            t = threading.Thread(target=cm, args=(x, y))
            t.start()
            t.join()

    burst(100)
    start = rss_mb()
    burst(200)
    growth = rss_mb() - start
    print(f"\nRSS over 200 short-lived calling threads: growth {growth:+.2f} MB, bound {BOUND_MB} MB")
    assert growth < BOUND_MB
