"""torch.cond and while_loop over `?` dims vs eager: each model compiled once, run at three or more
sizes, every branch taken.

symhlo imports `torch.cond` as `torch.prim.If` (frontend.control_flow) and torch.export's
`while_loop` as `torch.prim.Loop`; symhlo-lower-torch-control-flow makes them `stablehlo.if` and
`stablehlo.while` whose regions compute their `?` sizes from their own values. `scan` and
`map` become the same while loop over the rows of their sequence (read with a gather, written
with a one-row scatter), for any number of rows.
"""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

from torch._higher_order_ops.map import map as map_rows
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop
from torch.nn.attention.flex_attention import flex_attention

import symhlo

from e2e_harness import check_model, randn


class CondOnData(torch.nn.Module):
    """Branch on a reduction of the data: `x.sum() > 0`."""

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x.sin() * 2, lambda x: x.cos() + 1, (x,))


class CondOnSizeNested(torch.nn.Module):
    """Branch on data (a one-element [1] predicate), then (inside the false branch) on a size
    `y.shape[0] > 4`; two operands, two results, a weight read inside a branch."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x, y):
        def true_fn(x, y):
            return self.lin(x) + y.sum(), y * 2

        def false_fn(x, y):
            return x - 1, torch.cond(y.shape[0] > 4, lambda y: y + 1, lambda y: y.flip(0), (y,))

        return torch.cond((x.mean() > 0).reshape(1), true_fn, false_fn, (x, y))


def test_cond_on_data_both_branches():
    sizes = [(randn(3, 4).abs(),), (-randn(9, 4).abs(),), (randn(17, 4).abs(),), (-randn(2, 4).abs(),)]
    assert {bool(x.sum() > 0) for (x,) in sizes} == {True, False}
    check_model("cond_on_data", CondOnData(), (randn(6, 4),), ({0: Dim("b", max=64)},), sizes)


def test_cond_on_size_nested_every_branch():
    sizes = [(randn(3, 4).abs(), randn(2, 2)),    # data true
             (-randn(5, 4).abs(), randn(7, 2)),   # data false, size > 4
             (-randn(8, 4).abs(), randn(3, 2))]   # data false, size <= 4
    check_model("cond_on_size_nested", CondOnSizeNested(), (randn(6, 4), randn(3, 2)),
                ({0: Dim("b", max=64)}, {0: Dim("c", max=64)}), sizes)


class WhileOverRows(torch.nn.Module):
    """A recurrence run `x.shape[0] // 2` times (stopping early once it grows past 1e4), its
    state `?`-sized like `x`; returns the state and the trip count."""

    def forward(self, x, w):
        def cond(i, h):
            return (i < x.shape[0] // 2) & (h.abs().max() < 1e4)

        def body(i, h):
            return i + 1, torch.tanh(h @ w) + x

        i, h = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), x.clone()))
        return h, i


def test_while_loop_trip_count_from_a_dynamic_size():
    w = randn(4, 4)
    sizes = [(randn(1, 4), w), (randn(5, 4), w), (randn(17, 4), w)]   # 0, 2 and 8 iterations
    check_model("while_over_rows", WhileOverRows(), (randn(6, 4), w),
                ({0: Dim("b", max=64)}, None), sizes, atol=1e-5)



class SwapFromSplatStates(torch.nn.Module):
    """A three-term recurrence (p, q) <- (q, x q - p) where `k < n`, over a `?` x `?` state that
    starts as zeros / ones (splats)."""

    def forward(self, x, n):
        def cond(k, top, x, n, p, q):
            return k < top

        def body(k, top, x, n, p, q):
            on = k < n
            return (k + 1.0, top.clone(), x.clone(), n.clone(), torch.where(on, q, p),
                    torch.where(on, x * q - p, q))

        return while_loop(cond, body, (torch.zeros(()), n.max(), x.clone(), n.clone(),
                                       torch.zeros_like(x), torch.ones_like(x)))[5]


def _swap_case() -> None:
    """Compiles SwapFromSplatStates once and prints, per size, how many elements differ from the
    recurrence computed by a Python loop (run in a child process: see the test below)."""
    counts = lambda a, b: torch.randint(0, 6, (a, b)).float()
    spec = ({0: Dim("a"), 1: Dim("b")}, {0: Dim("a"), 1: Dim("b")})
    cm = symhlo.compile(SwapFromSplatStates(), (torch.rand(4, 6), counts(4, 6)), dynamic_shapes=spec)
    for a, b in ((4, 6), (7, 3)):
        x, n = torch.rand(a, b), counts(a, b)
        p, q = torch.zeros_like(x), torch.ones_like(x)
        for k in range(int(n.max())):
            on = k < n
            p, q = torch.where(on, q, p), torch.where(on, x * q - p, q)
        bad = int((~torch.isclose(cm(x, n), q, rtol=1e-5, atol=1e-5)).sum())
        print(f"SWAP {a}x{b} {bad} of {q.numel()} differ")


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="IREE 3.13 miscompiles a while loop "
                   "that swaps two ?x? carried values started from splats (silently wrong; right "
                   "with one static dim, without the swap, or with states made from data): a known "
                   "gap, see README Control flow; strict, so a fixed IREE turns this into a failure "
                   "to notice")
def test_swapping_recurrence_over_two_dynamic_dims_from_splat_states():
    """Run in a child process: in CI, three later tests of this file failed in torch.export
    ('Constraints violated (n) ... guard 4 != n') after this compile ran in the same worker."""
    import os
    import subprocess
    import sys

    code = ("import sys; sys.path.insert(0, sys.argv[1]); import test_control_flow as t; "
            "t._swap_case()")
    p = subprocess.run([sys.executable, "-c", code, os.path.dirname(__file__)],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"the child failed ({p.returncode}):\n{p.stderr[-2000:]}")
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("SWAP")]
    assert len(lines) == 2, p.stdout
    assert all(" 0 of " in ln for ln in lines), "; ".join(lines)


class LoopsFromConstantStates(torch.nn.Module):
    """Two while_loops whose states start as torch.eye / torch.zeros and a scan from a zero carry,
    returned beside a zeros tensor and the input: no output may share another's buffer."""

    def forward(self, a):                           # (n, n)
        def power(i, h):
            return i + 1, h @ a * 0.1 + h

        def accumulate(i, h):
            return i + 1, h + a * i.to(a.dtype)

        zero = torch.zeros((), dtype=torch.int64)
        _, p = while_loop(lambda i, h: i < 3, power, (zero, torch.eye(a.shape[0])))
        _, s = while_loop(lambda i, h: i < 4, accumulate, (zero, torch.zeros_like(a)))
        c, ys = scan(lambda c, x: (c + x, c * 2), torch.zeros_like(a[0]), a)
        return p, s, c, ys, torch.zeros_like(a), a


def test_loops_from_constant_states_beside_constant_outputs():
    n = Dim("n", min=2, max=64)
    sizes = [(randn(m, m),) for m in (2, 5, 9)]
    check_model("loops_from_constant_states", LoopsFromConstantStates(), (randn(6, 6),),
                ({0: n, 1: n},), sizes, atol=1e-5)

class ScanBothWays(torch.nn.Module):
    """A running sum and a decaying running max, forward over the rows and backward over the
    columns (`dim=1, reverse=True`): a `?` scan length, `?` carries and stacked outputs."""

    def forward(self, x):
        def step(c, xi):
            s, m = c
            s, m = s + xi, torch.maximum(m * 0.9, xi)
            return (s, m), s * m

        (s, m), ys = scan(step, (torch.zeros_like(x[0]), x[0]), x)
        last, zs = scan(lambda c, xi: (c + xi.cos(), c * 2), x.new_zeros(x.shape[0]), x, dim=1,
                        reverse=True)
        return s, m, ys, last, zs


class MapOverRows(torch.nn.Module):
    """torch's `map` over the `?` rows, with an input shared by every row."""

    def forward(self, x, y):
        return map_rows(lambda xi, y: (xi.sin() + y).sum(0, keepdim=True) * xi, x, y)


def test_scan_over_dynamic_lengths_both_ways():
    sizes = [(randn(1, 2),), (randn(5, 9),), (randn(13, 3),)]
    check_model("scan_both_ways", ScanBothWays(), (randn(6, 4),),
                ({0: Dim("b", max=64), 1: Dim("n", max=64)},), sizes, atol=1e-5)


def test_map_over_dynamic_rows():
    y = randn(5)
    sizes = [(randn(1, 5), y), (randn(4, 5), y), (randn(11, 5), y)]
    check_model("map_over_rows", MapOverRows(), (randn(6, 5), y), ({0: Dim("b", max=64)}, None),
                sizes, atol=1e-5)


class FlexAttention(torch.nn.Module):
    def forward(self, q, k, v):
        return flex_attention(q, k, v, score_mod=lambda s, b, h, i, j: s + (i - j))


def test_other_higher_order_ops_are_refused_by_name():
    """flex_attention reaches symhlo as a higher-order op it has no StableHLO lowering for."""
    q = randn(2, 2, 16, 8)
    b = Dim("b", max=8)
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"unsupported op 'torch\.ops\.higher_order\.flex_attention' "
                             r"\(FX node 'flex_attention'\) at .*test_control_flow\.py:\d+ in "
                             r"forward: symhlo lowers the higher-order ops cond, while_loop, scan, "
                             r"map_impl"):
        symhlo.export(FlexAttention(), (q, q, q), dynamic_shapes=({0: b}, {0: b}, {0: b}))


class NestedControlFlow(torch.nn.Module):
    """cond inside a scan step (whose stacked output is 2*d wide) and inside a while body over a
    `?x?` state: IREE needs the loop's `cond` to read the state's sizes
    (symhlo-prepare-loops-for-iree)."""

    def forward(self, x):
        def step(c, xi):
            z = torch.cond(xi.sum() > 0, lambda c, xi: c + xi, lambda c, xi: c - xi, (c, xi))
            return z, torch.cat([z, xi])

        c, ys = scan(step, x.new_zeros(x.shape[1]), x)

        def body(i, h):
            return i + 1, torch.cond(h.sum() > 0, lambda h: h - 1, lambda h: h + 2, (h,))

        i, h = while_loop(lambda i, h: i < 3, body, (torch.zeros((), dtype=torch.int64), x.clone()))
        return c, ys, h


def test_nested_control_flow_over_two_dynamic_dims():
    sizes = [(randn(1, 2),), (randn(5, 6),), (randn(9, 9),)]
    check_model("nested_control_flow", NestedControlFlow(), (randn(6, 4),),
                ({0: Dim("b", max=64), 1: Dim("d", max=64)},), sizes, atol=1e-5)


class RoutedBlock(torch.nn.Module):
    """A model-shaped case over (batch, seq, 32), both `?`: long sequences take an attention
    block and short ones an MLP (`torch.cond` on seq > 8), then a GRU cell runs seq // 4 steps
    (`while_loop`) over the block's mean."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.attn = torch.nn.MultiheadAttention(32, 4, batch_first=True)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(),
                                       torch.nn.Linear(64, 32))
        self.ln = torch.nn.LayerNorm(32)
        self.cell = torch.nn.GRUCell(32, 32)

    def forward(self, x):
        def long(x):
            h = self.ln(x)
            return x + self.attn(h, h, h, need_weights=False)[0]

        def short(x):
            return x + self.mlp(self.ln(x))

        y = torch.cond(x.shape[1] > 8, long, short, (x,))

        def body(i, h):
            return i + 1, self.cell(y.mean(1), h)

        i, h = while_loop(lambda i, h: i < x.shape[1] // 4, body,
                          (torch.zeros((), dtype=torch.int64), y.mean(1)))
        return y, h, i


def test_routed_block_attention_or_mlp_then_gru_steps():
    sizes = [(randn(1, 4, 32),), (randn(3, 9, 32),), (randn(2, 40, 32),), (randn(4, 7, 32),)]
    check_model("routed_block", RoutedBlock(), (randn(2, 12, 32),),
                ({0: Dim("b", max=16), 1: Dim("s", max=128)},), sizes, rtol=1e-4, atol=1e-4)


class CondThenWhile(torch.nn.Module):
    def forward(self, x):
        y = torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))
        i, h = while_loop(lambda i, h: i < x.shape[0], lambda i, h: (i + 1, h * 0.5 + 1),
                          (torch.zeros((), dtype=torch.int64), y.clone()))
        return h


def test_torch_compile_backend_takes_control_flow():
    """torch.compile(backend="symhlo", dynamic=True): dynamo's graph holds the same cond and
    while_loop; one compile serves every size and both branches."""
    m = CondThenWhile()
    compiled = torch.compile(m, backend="symhlo", dynamic=True)
    before = symhlo.stats()["iree_compiles"]
    for x in (randn(2, 3).abs(), -randn(5, 3).abs(), randn(9, 3).abs(), -randn(4, 3).abs()):
        torch.testing.assert_close(compiled(x), m(x), rtol=1e-5, atol=1e-5)
    assert symhlo.stats()["iree_compiles"] == before + 1
