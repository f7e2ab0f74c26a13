"""Concurrency: one compiled module called from 8 threads at once, and compiles in parallel threads.

CompiledModule keeps one IREE context per thread (symhlo.backend.runtime.Runtime); MLIR contexts are
per compile. Each thread starts at a barrier so the calls really overlap, and every result is
compared with eager PyTorch for that thread's own sizes.
"""

from __future__ import annotations

import threading

import torch

import symhlo

from hardening_models import TwoInputs

THREADS = 8
CALLS_PER_THREAD = 25


def _run_threads(fn, n):
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []
    results: dict[int, object] = {}

    def body(i):
        try:
            barrier.wait(timeout=120)
            results[i] = fn(i)
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,), name=f"symhlo-test-{i}") for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]
    return results


def test_one_module_eight_threads_different_sizes(two_inputs_module):
    cm = two_inputs_module
    model = TwoInputs()

    def work(i):
        g = torch.Generator().manual_seed(i)
        checked = 0
        for k in range(CALLS_PER_THREAD):
            b, s = 2 + (i * 7 + k * 3) % 97, 2 + (i * 5 + k) % 63  # a different size per thread and call
            x, y = torch.randn(b, 4, generator=g), torch.randn(s, generator=g)
            got = cm(x, y)
            want = model(x, y)
            for a, e in zip(got, want):
                assert a.shape == e.shape, (i, k, a.shape, e.shape)
                torch.testing.assert_close(a, e)
            checked += 1
        return checked

    results = _run_threads(work, THREADS)
    assert sum(results.values()) == THREADS * CALLS_PER_THREAD


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = torch.nn.Linear(6, 16)
        self.b = torch.nn.Linear(16, 3)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class Reshaper(torch.nn.Module):
    def forward(self, x):
        return (x.reshape(x.shape[0], -1) * 2).sum(-1) + x.shape[0]


def test_two_compiles_in_parallel_threads():
    models = [
        (Mlp(), (torch.randn(3, 6),), ({0: torch.export.Dim("n", min=2)},), [(5, 6), (2, 6)]),
        (Reshaper(), (torch.randn(4, 3, 2),), ({0: torch.export.Dim("m", min=2, max=512)},), [(7, 3, 2), (2, 3, 2)]),
    ]

    def work(i):
        model, args, dyn, sizes = models[i]
        cm = symhlo.compile(model, args, dynamic_shapes=dyn)
        for shape in sizes:
            x = torch.randn(*shape)
            torch.testing.assert_close(cm(x), model(x))
        return cm

    results = _run_threads(work, 2)
    assert {type(m) for m in results.values()} == {symhlo.CompiledModule}
    # And again with the same model in both threads (shared weights, same export).
    _run_threads(lambda i: work(0), 2)
