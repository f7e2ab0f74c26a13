"""torch.cond and while_loop over `?` dims vs eager: each model compiled once, run at three or more
sizes, every branch taken.

symhlo imports `torch.cond` as `torch.prim.If` (frontend.control_flow) and torch.export's
`while_loop` as `torch.prim.Loop`; symhlo-lower-torch-control-flow makes them `stablehlo.if` and
`stablehlo.while` whose regions compute their `?` sizes from their own values.
"""

from __future__ import annotations

import torch
from torch.export import Dim

from torch._higher_order_ops.while_loop import while_loop

from e2e_harness import check_model, randn


class CondOnData(torch.nn.Module):
    """Branch on a reduction of the data: `x.sum() > 0`."""

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x.sin() * 2, lambda x: x.cos() + 1, (x,))


class CondOnSizeNested(torch.nn.Module):
    """Branch on data, then (inside the false branch) on a size `y.shape[0] > 4`; two operands,
    two results, a weight read inside a branch."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x, y):
        def true_fn(x, y):
            return self.lin(x) + y.sum(), y * 2

        def false_fn(x, y):
            return x - 1, torch.cond(y.shape[0] > 4, lambda y: y + 1, lambda y: y.flip(0), (y,))

        return torch.cond(x.mean() > 0, true_fn, false_fn, (x, y))


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
