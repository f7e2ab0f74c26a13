"""Gathers with batch, H and W all `?`, and decompositions that specialize a `?` size.

The wrong values once seen from `F.adaptive_avg_pool2d(x, (2, 3))` with b, H, W dynamic did not come
from the gather lowering, symhlo's broadcast passes or IREE: torch's decomposition of
`_adaptive_avg_pool2d` branches in Python on the SymInt sizes (`H % oh == 0` picks avg_pool2d with
the example's kernel; otherwise the window loop is unrolled to the example's maximum window length).
`run_decompositions` records those guards only in `ep._guards_code`, which the FX importer drops, so
the imported graph was valid only at sizes like the example's. Run eagerly without its guards, the
decomposed graph gives the same wrong values IREE gave. symhlo now rejects such a graph
(symhlo.frontend.refusals.reject_decomposition_guards); its own adaptive_avg_pool2d decomposition
(two averaging matmuls) keeps the sizes symbolic.

The explicit gathers below index with tensors whose `?` sizes are computed (h // 2,
(w + 2) // 3) and broadcast against each other ((oh, 1) with (1, ow), and 4-D windows), the
forms torch's decomposition used: they match eager at every size, b = 1 included.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import symhlo
from e2e_harness import check_model, randn


def _dims():
    return ({0: Dim("b", min=1, max=16), 2: Dim("h", min=4, max=512),
             3: Dim("w", min=4, max=512)},)


SIZES = [(randn(1, 3, 4, 4),), (randn(3, 3, 9, 4),), (randn(2, 3, 4, 13),),
         (randn(5, 3, 31, 7),), (randn(2, 3, 130, 97),)]


class OuterIndexGather(torch.nn.Module):
    """x[:, :, ih[:, None], iw[None, :]] with ih, iw from arange of computed sizes."""

    def forward(self, x):
        h, w = x.shape[-2], x.shape[-1]
        ih = torch.arange(h // 2) * 2
        iw = torch.arange((w + 2) // 3) * 3
        return x[:, :, ih[:, None], iw[None, :]]


class WindowGather(torch.nn.Module):
    """Adaptive-pool-like: gather (oh, ow, kh, kw) clamped windows, mask, sum, divide."""

    def forward(self, x):
        h, w = x.shape[-2], x.shape[-1]
        oh, ow = h // 2, (w + 2) // 3
        ih = (torch.arange(oh)[:, None] * 2 + torch.arange(2)[None, :]).clamp(max=h - 1)
        jw = torch.arange(ow)[:, None] * 3 + torch.arange(3)[None, :]
        iw = jw.clamp(max=w - 1)
        g = x[:, :, ih[:, None, :, None], iw[None, :, None, :]]      # (b, c, oh, ow, 2, 3)
        g = torch.where((jw < w)[None, :, None, :], g, torch.zeros(()))
        return g.sum((-1, -2)) / (jw < w).sum(-1).to(x.dtype)


@pytest.mark.parametrize("model", [OuterIndexGather, WindowGather], ids=lambda m: m.__name__)
def test_gather_with_batch_h_w_dynamic(model):
    check_model(f"gather3_{model.__name__}", model(), (randn(2, 3, 7, 11),), _dims(), SIZES,
                rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("example", [(2, 3, 7, 11), (2, 3, 8, 9)],
                         ids=["gather_path", "divisible_avg_pool_path"])
def test_specializing_decomposition_is_rejected(monkeypatch, example):
    """torch's own _adaptive_avg_pool2d decomposition fixes kernel sizes / window counts to the
    example's: export must raise instead of compiling a program that is wrong at other sizes."""
    import symhlo.frontend.decompositions as decompositions

    table = decompositions.symhlo_decompositions
    monkeypatch.setattr(decompositions, "symhlo_decompositions", lambda: {
        k: v for k, v in table().items() if k != torch.ops.aten._adaptive_avg_pool2d.default})

    class Pool(torch.nn.Module):
        def forward(self, x):
            return F.adaptive_avg_pool2d(x, (2, 3))

    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"a decomposition specialized dynamic sizes to the example's: .*"
                             r"\bh\b.*in adaptive_avg_pool2d.*\[h is x\.shape\[2\]"):
        symhlo.export(Pool(), (randn(*example),), dynamic_shapes=_dims())


class SliceByOtherInput(torch.nn.Module):
    def forward(self, x, y):
        return x.sum(1) + y[: x.shape[0]].mean(1)


def test_export_guards_are_checked_at_call_time():
    """torch.export proves `n <= m` for y[:x.shape[0]] and records it only as a guard: the
    compiled slice assumes it. A call breaking it raises ShapeError quoting it in the user's
    names; calls keeping it match eager (n = m included)."""
    cm = symhlo.compile(SliceByOtherInput(), inputs=[symhlo.Input(shape=("n", 4), name="x"),
                                                     symhlo.Input(shape=("m", 4), name="y")])
    with pytest.raises(symhlo.ShapeError, match=r"the shapes break 'n <= m'.*m = 1 from y: axis 0"):
        cm(randn(3, 4), randn(1, 4))
    for n, m in [(2, 2), (3, 7), (40, 41)]:
        x, y = randn(n, 4), randn(m, 4)
        torch.testing.assert_close(cm(x, y), SliceByOtherInput()(x, y))
