"""Structural ops over `?` dims (slices, splits, views, copies, diagonals, scatters, windows), one
compiled module per test, compared with eager PyTorch at three or more sizes.

Dims are `Dim.AUTO`, as a user exporting without naming them gets: torch.export then guards its
own size arithmetic (`n - 3 != 1`, `n - 3 >= 1` for `x[:, 1:-2]`), and the decompositions run
before import guard again (`n - 3 > 1` in a contiguity check). symhlo.frontend.importer accepts a
decomposition's guard only where no sizes within the ranges and torch.export's guards (which
the call-time checks enforce) break it.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

from e2e_harness import check_model, randn

AUTO = Dim.AUTO


class SlicesSplits(nn.Module):
    """Slices with a negative end and a step, hsplit at indices, chunk along a `?` axis."""

    def forward(self, x):                       # (b, n, m)
        a = x[:, 1:-2] * 2                      # n - 3
        s = x[:, 1:-2:3]                        # (n - 2) // 3 rounded up
        h = torch.hsplit(x, [1, 2, 3])          # 1, 1, 1, n - 3
        c = torch.chunk(x, 3, dim=2)            # 3 chunks of ceil(m / 3) (the last not 1)
        return a, s, h[0] + h[1], h[3], c[0], c[2]


def test_slices_splits_chunks_auto_dims():
    check_model("slices_splits", SlicesSplits(), (randn(2, 7, 9),), ({0: AUTO, 1: AUTO, 2: AUTO},),
                [(randn(3, 9, 8),), (randn(2, 12, 10),), (randn(4, 31, 12),)], rtol=0, atol=0)


class BlockDiagNewZeros(nn.Module):
    """block_diag of `?`-sized blocks (torch's decomposition builds its zero blocks with
    new_zeros -> empty_strided, here of a zero-width `[b0, 0]` block too), new_zeros / new_full
    with symbolic sizes, and a masked var (empty_strided with strides torch-mlir cannot check)."""

    def forward(self, a, b, v):                 # (n, m), (k, l), (k,)
        d = torch.block_diag(a, b, v)           # (n + k + 1, m + l + k)
        z = a.new_zeros((a.shape[0], b.shape[1])) + 1
        f = b.new_full((b.shape[0], 0), 2.0)
        var = torch.masked.var(a, 1)
        return d, z, f, var


def test_block_diag_new_zeros_masked_var():
    ex = (randn(3, 4), randn(2, 5), randn(2))
    check_model("block_diag_new_zeros", BlockDiagNewZeros(), ex,
                ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO}),
                [(randn(4, 6), randn(3, 2), randn(3)), (randn(2, 2), randn(5, 7), randn(5)),
                 (randn(9, 3), randn(2, 4), randn(2))])


class PinnedSplit(nn.Module):
    """split(x, 2) along an axis torch.export pins to its example size (the number of pieces is
    a Python int): the argument's axis becomes static, the other axes stay `?`."""

    def forward(self, x):                       # (5, n, m)
        p, q, r = torch.split(x, 2)
        return p * 2, q + r.sum(0, keepdim=True)


def test_split_on_a_pinned_axis():
    check_model("pinned_split", PinnedSplit(), (randn(5, 4, 6),), ({0: AUTO, 1: AUTO, 2: AUTO},),
                [(randn(5, 3, 2),), (randn(5, 9, 7),), (randn(5, 2, 33),)])


class DiagonalsWindows(nn.Module):
    """diagonal (offsets on both sides), trace, diag of a vector and of a matrix, diag_embed,
    Tensor.unfold (sliding windows), nn.functional.unfold (im2col with padding), isin."""

    def forward(self, x, v, img, t):            # (n, m, k), (l,), (b, c, h, w), (p,)
        d0 = torch.diagonal(x, 2)                # max(0, min(n, m - 2)) along the last axis
        d1 = torch.diagonal(x, -1, 1, 2)
        tr = torch.trace(x[:, :, 0])
        dv = torch.diag(v, 1)                    # (l + 1, l + 1)
        dm = torch.diag(x[:, :, 1])
        de = torch.diag_embed(x, -2, 0, 2)
        win = x.unfold(1, 3, 2)                  # (n, (m - 3) // 2 + 1, k, 3)
        cols = F.unfold(img, (2, 3), padding=1, stride=(1, 2))
        hit = torch.isin(v, t)
        return d0, d1, tr, dv, dm, de, win, cols, hit


def test_diagonals_windows_isin():
    ex = (randn(5, 7, 4), randn(6), randn(2, 3, 6, 7), torch.tensor([0.0, 1.0, -1.0]))
    v2 = torch.tensor([1.0, 0.5, -1.0, 2.0, 0.0])
    check_model("diagonals_windows", DiagonalsWindows(), ex,
                ({0: AUTO, 1: AUTO, 2: AUTO}, {0: AUTO}, {0: AUTO, 2: AUTO, 3: AUTO}, {0: AUTO}),
                [(randn(3, 9, 2), v2, randn(3, 3, 5, 9), torch.tensor([2.0, 0.5])),
                 (randn(8, 5, 5), randn(9), randn(2, 3, 9, 4), torch.tensor([0.0, 1.0, 3.0, 4.0])),
                 (randn(6, 6, 6), randn(2), randn(4, 3, 3, 3), randn(7))],
                rtol=1e-5, atol=1e-5)


class ScattersCopies(nn.Module):
    """select_scatter / slice_scatter (with a step) / diagonal_scatter into `?`-sized tensors,
    circular padding (built by slice_scatters), and the *_copy ops."""

    def forward(self, x, row, cols, dia):        # (n, m), (m,), (n, c), (min(n, m - 1),)
        a = torch.select_scatter(x, row, 0, 1)
        b = torch.slice_scatter(x, cols, 1, 1, None, 2)
        c = torch.diagonal_scatter(x, dia, 1)
        p = F.pad(x[None], (1, 2), mode="circular")[0]
        n = torch.narrow_copy(x, 1, 1, x.shape[1] - 2)
        v = torch.ops.aten.view_copy(x, [-1])
        t = torch.permute_copy(x, (1, 0))
        u = torch.unbind_copy(x[:2], 0)
        return a, b, c, p, n, v, t, u[1]


def test_scatters_copies():
    ex = (randn(4, 7), randn(7), randn(4, 3), randn(4))
    dyn = ({0: AUTO, 1: AUTO}, {0: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO})
    rep = check_model("scatters_copies", ScattersCopies(), ex, dyn,
                      [(randn(5, 9), randn(9), randn(5, 4), randn(5)),
                       (randn(3, 5), randn(5), randn(3, 2), randn(3)),
                       (randn(8, 11), randn(11), randn(8, 5), randn(8))], rtol=0, atol=0)
    assert rep.sizes


def test_scatter_source_shape_is_checked_at_call_time():
    """select_scatter's source must have the selected slice's shape: torch.export's meta does not
    check it, the decomposition unifies the two sizes, and the compiled module checks that
    equality before a call (eager raises too)."""
    import symhlo

    class Sel(nn.Module):
        def forward(self, x, row):
            return torch.select_scatter(x, row, 0, 1)

    cm = symhlo.compile(Sel(), (randn(4, 7), randn(7)), dynamic_shapes=({0: AUTO, 1: AUTO}, {0: AUTO}))
    x, row = randn(5, 6), randn(6)
    torch.testing.assert_close(cm(x, row), Sel()(x, row))
    with pytest.raises(symhlo.ShapeError, match="break"):
        cm(randn(5, 6), randn(8))


class GatherOfUnitSlice(nn.Module):
    """index_select from a `?x1` slice (IREE 3.13 returned x[0, 0] for every row of it: silently
    wrong) and from a slice of rows, by computed indices."""

    def forward(self, x, idx):                   # (n, m), (k,)
        cols = torch.index_select(x[:, :1], 1, torch.zeros(x.shape[1], dtype=torch.int64))
        last = torch.index_select(x[:, -1:], 1, idx * 0)
        rows = torch.index_select(x[1:], 0, torch.remainder(idx, x.shape[0] - 1))
        return cols, last, rows


def test_gather_of_unit_slice():
    gi = lambda k, hi: torch.randint(0, hi, (k,), generator=torch.Generator().manual_seed(k))  # noqa: E731
    check_model("gather_of_unit_slice", GatherOfUnitSlice(), (randn(4, 7), gi(3, 3)),
                ({0: AUTO, 1: AUTO}, {0: AUTO}),
                [(randn(3, 5), gi(4, 2)), (randn(6, 2), gi(2, 5)), (randn(9, 8), gi(6, 8))],
                rtol=0, atol=0)


class MatmulUnitAxes(nn.Module):
    """Products IREE 3.13 rejected with `?` dims: linear on a 1-D input (unsqueeze + a 1-row mm),
    a column times a row (mm / bmm with a unit contracting axis), bilinear."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.bil = nn.Bilinear(4, 5, 6)

    def forward(self, v, w, a, b, x1, x2):      # (k,), (o, k), (s, n, 1), (s, 1, m), (t, 4), (t, 5)
        lin = F.linear(v, w)
        outer = torch.mm(a[0], b[0])
        batched = torch.bmm(a, b)
        return lin, outer, batched, self.bil(x1, x2)


def test_matmul_unit_axes_bilinear():
    ex = (randn(3), randn(4, 3), randn(2, 5, 1), randn(2, 1, 6), randn(3, 4), randn(3, 5))
    dyn = ({0: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 2: AUTO}, {0: AUTO}, {0: AUTO})
    check_model("matmul_unit_axes", MatmulUnitAxes(), ex, dyn,
                [(randn(7), randn(2, 7), randn(3, 2, 1), randn(3, 1, 9), randn(5, 4), randn(5, 5)),
                 (randn(2), randn(9, 2), randn(4, 8, 1), randn(4, 1, 3), randn(2, 4), randn(2, 5)),
                 (randn(33), randn(5, 33), randn(2, 3, 1), randn(2, 1, 2), randn(8, 4), randn(8, 5))],
                rtol=1e-5, atol=1e-5)


class ListIndexRepeat(nn.Module):
    """Indexing with constant index lists (torch-mlir's gather had slice size -1 over `?` dims),
    negative indices, an index tensor of rank 2, and repeat by zero."""

    def forward(self, x, idx):                   # (a, b, c), (p, q)
        rows = x[[1, 2]]
        cols = x[:, [0, -1]]
        grid = x[:, :, 0][idx]                   # (p, q, b)
        empty = x.repeat(0, 1, 1)
        return rows, cols * 2, grid, empty


def test_list_index_and_zero_repeat():
    gi = lambda *s: torch.randint(0, 3, s, generator=torch.Generator().manual_seed(sum(s)))  # noqa: E731
    check_model("list_index_repeat", ListIndexRepeat(), (randn(4, 5, 3), gi(2, 3)),
                ({0: AUTO, 1: AUTO, 2: AUTO}, {0: AUTO, 1: AUTO}),
                [(randn(3, 2, 6), gi(3, 2)), (randn(7, 4, 2), gi(5, 4)), (randn(3, 9, 9), gi(2, 2))],
                rtol=0, atol=0)


class CatOfCopies(nn.Module):
    """torch.cat of one tensor with itself (rotary embeddings' cat((freqs, freqs), -1)) along a
    static and a `?` axis, and x.repeat: symhlo-prepare-for-iree makes the copies one broadcast
    collapsed into the axis."""

    def forward(self, x):                        # (a, b, c)
        f = x.sin()
        return torch.cat((f, f), -1), torch.cat((x, x, x), 0) * 2, x.repeat(1, 2, 1)


def test_cat_of_copies():
    check_model("cat_of_copies", CatOfCopies(), (randn(4, 5, 3),), ({0: AUTO, 1: AUTO, 2: AUTO},),
                [(randn(3, 2, 6),), (randn(7, 4, 2),), (randn(2, 9, 9),)], rtol=1e-5, atol=1e-6)


def test_complex32_is_refused_by_name():
    import symhlo

    class Half(nn.Module):
        def forward(self, x):
            return x.chalf()

    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"unsupported op 'aten.chalf.default'.*test_shapes_views.py:\d+.*complex32"):
        symhlo.compile(Half(), (randn(2, 3),), dynamic_shapes=({0: AUTO, 1: AUTO},))


class AdaptivePools(nn.Module):
    """Adaptive max pooling (values and indices) 1-D / 2-D / 3-D and adaptive average pooling
    1-D / 2-D / 3-D to sizes that do not divide the input, over `?` dims."""

    def forward(self, x1, x2, x3):
        m1 = F.adaptive_max_pool1d(x1, 3, return_indices=True)
        m2 = F.adaptive_max_pool2d(x2, (3, 2), return_indices=True)
        m3 = F.adaptive_max_pool3d(x3, (2, 3, 2), return_indices=True)
        a = (F.adaptive_avg_pool1d(x1, 4), F.adaptive_avg_pool2d(x2, (2, 3)),
             F.adaptive_avg_pool3d(x3, (2, 3, 2)))
        return m1, m2, m3, a


def test_adaptive_pools_with_nan_and_inf():
    """NaN and inf stay in their own windows (an averaging matmul spread them to every window:
    0 * inf = NaN); indices are torch's (first maximum, last NaN)."""
    import symhlo
    import torch.utils._pytree as pytree

    def inputs(n):
        xs = [randn(2, 3, n + 2), randn(2, 3, n, n + 3), randn(1, 2, n, n + 1, n + 2)]
        for x in xs:
            x.view(-1)[3] = float("nan")
            x.view(-1)[-2] = float("inf")
        return tuple(xs)

    cm = symhlo.compile(AdaptivePools(), inputs(5),
                        dynamic_shapes=({0: AUTO, 2: AUTO}, {0: AUTO, 2: AUTO, 3: AUTO},
                                        {2: AUTO, 3: AUTO, 4: AUTO}))
    for n in (4, 7, 11):
        args = inputs(n)
        got, want = pytree.tree_leaves(cm(*args)), pytree.tree_leaves(AdaptivePools()(*args))
        for k, (g, e) in enumerate(zip(got, want)):
            assert g.shape == e.shape and g.dtype == e.dtype, f"output {k} at n={n}"
            torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5, equal_nan=True,
                                       msg=lambda m: f"output {k} at n={n}: {m}")


class ConstantCompares(nn.Module):
    """Comparisons of constant float tensors with int scalars (torch-mlir folded `== 2` to false
    and `> 0` to false in some processes: the module silently multiplied by 0)."""

    def forward(self, x):
        two = torch.full((), 2.0)
        row = torch.full((3,), 1.0)
        return (x * (two == 2).float(), x * (two > 0).float(), x + (row >= 1).float().sum(),
                x * (x.shape[0] > 0))


def test_constant_compares_with_int_scalars():
    check_model("constant_compares", ConstantCompares(), (randn(4, 3),), ({0: AUTO, 1: AUTO},),
                [(randn(2, 5),), (randn(7, 2),), (randn(3, 3),)], rtol=0, atol=0)


class Interpolations(nn.Module):
    """linear / bilinear / bicubic / trilinear / nearest-exact interpolation to sizes derived
    from `?` dims, constant sizes with align_corners, short binary-fraction scales, and decimal
    scales whose products round exactly (1.7, 0.9: floor(10 * 1.7) = 17 in double arithmetic,
    also as recompute_scale_factor's float size arithmetic)."""

    def forward(self, x1, x2, x3):              # (b, c, n), (b, c, h, w), (1, c, d, h, w)
        h, w = x2.shape[-2:]
        return (F.interpolate(x1, size=3, mode="linear", align_corners=True),
                F.interpolate(x1, size=x1.shape[-1] + 3, mode="linear"),
                F.interpolate(x1, scale_factor=1.5, mode="linear"),
                F.interpolate(x2, size=(h + 2, 2 * w - 1), mode="bilinear"),
                F.interpolate(x2, size=(3, 5), mode="bilinear", align_corners=True),
                F.interpolate(x2, size=(h + 1, w + 3), mode="bicubic"),
                F.interpolate(x2, size=(4, 7), mode="bicubic", align_corners=True),
                F.interpolate(x3, size=(3, 4, 5), mode="trilinear"),
                F.interpolate(x1, size=x1.shape[-1] * 2 + 1, mode="nearest-exact"),
                F.interpolate(x2, scale_factor=(2.5, 0.5), mode="nearest-exact"),
                F.interpolate(x2, scale_factor=(1.7, 0.9), mode="bilinear"),
                F.interpolate(x1, scale_factor=1.7, mode="linear", align_corners=True,
                              recompute_scale_factor=True),
                F.interpolate(x2, scale_factor=1.7, mode="nearest", recompute_scale_factor=True))


def test_interpolations_to_symbolic_sizes():
    def inputs(n):
        return (randn(2, 3, n), randn(2, 3, n + 1, n + 2), randn(1, 2, n, n, n + 1))

    check_model("interpolations", Interpolations(), inputs(6),
                ({0: AUTO, 2: AUTO}, {0: AUTO, 2: AUTO, 3: AUTO}, {2: AUTO, 3: AUTO, 4: AUTO}),
                [inputs(4), inputs(7), inputs(10)], rtol=1e-4, atol=1e-5)


def test_interpolation_by_non_binary_scale_is_refused_by_name():
    """floor(n * 0.7) is computed in double arithmetic (62 at n = 90), which no integer size
    expression matches: refused naming the op (scale given) or the float size arithmetic
    (recompute_scale_factor), with the source line."""
    import symhlo

    class Scale(nn.Module):
        def __init__(self, recompute):
            super().__init__()
            self.recompute = recompute

        def forward(self, x):
            return F.interpolate(x, scale_factor=0.7, mode="linear",
                                 recompute_scale_factor=self.recompute)

    for recompute, op in ((False, "aten.upsample_linear1d.vec"), (True, "sym_float")):
        with pytest.raises(symhlo.UnsupportedOpError,
                           match=rf"unsupported op '{op}'.*test_shapes_views.py.*0\.7"):
            symhlo.compile(Scale(recompute), (randn(2, 3, 6),), dynamic_shapes=({2: AUTO},))


class CumsumUnbounded(nn.Module):
    """cumsum along unbounded `?` axes (the scan's zero blocks were up to 2^30 rows long: IREE
    ran out of memory at call time) and cumulative_trapezoid."""

    def forward(self, x, y):
        return (x.cumsum(0), x.cumsum(1), x.cumsum(2, dtype=torch.float32),
                torch.cumulative_trapezoid(y, dim=-1))


def test_cumsum_along_unbounded_axes():
    check_model("cumsum_unbounded", CumsumUnbounded(), (randn(5, 5, 5), randn(2, 3)),
                ({0: AUTO, 1: AUTO, 2: AUTO}, {0: AUTO, 1: AUTO}),
                [(randn(3, 7, 2), randn(3, 9)), (randn(9, 2, 4), randn(4, 4)),
                 (randn(2, 3, 40), randn(2, 33))], rtol=1e-5, atol=1e-5)


class WideningCumsum(nn.Module):
    """Integer cumsums that widen to int64 over long `?` axes (the log-step scan past 1024):
    iree-compile failed on the scan's `cat` of the widened input ("exceeded stack allocation
    limit" at max 10000, "overflows 64 bits" unbounded)."""

    def forward(self, x, u):
        return (torch.cumsum(x, 0, dtype=torch.int64), (x > 0).int().cumsum(0),
                torch.cumsum(u, 0, dtype=torch.int64))


def test_widening_integer_cumsum_over_long_axes():
    import symhlo
    from torch.export import Dim

    m = WideningCumsum()
    for n_dim in (Dim("n", min=1, max=10000), Dim("n", min=1)):
        cm = symhlo.compile(m, (torch.ones(8, 3, dtype=torch.int32), torch.ones(8, dtype=torch.uint8)),
                            dynamic_shapes=({0: n_dim}, {0: n_dim}))
        for n in (1, 4097, 10000):
            g = torch.Generator().manual_seed(n)
            x = torch.randint(-2**31, 2**31 - 1, (n, 3), dtype=torch.int32, generator=g)
            u = torch.randint(0, 256, (n,), generator=g).to(torch.uint8)
            for i, (got, ref) in enumerate(zip(cm(x, u), m(x, u))):
                assert got.dtype == ref.dtype and torch.equal(got, ref), (n_dim, n, i)


class ResizeAs(nn.Module):
    def forward(self, x, y):                    # x (n, 4), y (n, 4) or another shape
        return torch.resize_as_(x.clone(), y) * 2 + 1


def test_resize_as_to_its_own_shape():
    """resize_as_ to the shape the tensor has: the same values (torch's retrace of the in-place
    op failed with an internal assert). torch.export specializes resize_as_'s sizes (a `?` dim
    raises "specialized it to be a constant"), so the program is static: one compile, three
    inputs."""
    import symhlo

    cm = symhlo.compile(ResizeAs(), (randn(3, 4), randn(3, 4)),
                        dynamic_shapes=({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}))
    for seed in range(3):
        g = torch.Generator().manual_seed(seed)
        x, y = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)
        torch.testing.assert_close(cm(x, y), ResizeAs()(x, y), rtol=0, atol=0)


def test_resize_to_another_shape_is_refused_by_name():
    """A resize to another shape (part of the storage, or uninitialized memory) raises
    UnsupportedOpError naming the op and the source line."""
    import symhlo

    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"'aten.resize_as_.default' \(FX node 'resize_as_'\) at .*"
                             r"test_shapes_views.py:\d+.*another shape"):
        symhlo.compile(ResizeAs(), (randn(3, 4), randn(2, 6)))   # static: torch.export
        # refuses the resize with `?` dims ("tried to directly modify sizes")


def test_python_number_output_is_refused_by_name():
    import symhlo

    class Item(nn.Module):
        def forward(self, x):
            return x.sum().item()

    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"'aten.item.default' \(FX node 'item'\) at .*test_shapes_views.py:\d+"
                             r".*Python number"):
        symhlo.compile(Item(), (randn(3, 4),), dynamic_shapes=({0: AUTO},))


class MaskedAttention(nn.Module):
    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3)


def test_attention_mask_over_auto_dims():
    """sdpa with a (L, S) float mask and every axis `Dim.AUTO`: torch.export gives k's and v's
    sequence separate symbols, decomposing unifies them (a call-time relation: ShapeError when
    they differ, as eager raises) and writes the retrace's own mask-broadcast symbol over S,
    which is no specialization (it was refused as one)."""
    import symhlo

    def inputs(b, l, s):
        return (randn(b, 4, l, 8), randn(b, 4, s, 8), randn(b, 4, s, 8) + 1, randn(l, s))

    dims = tuple({i: AUTO for i in range(t.dim()) if t.shape[i] >= 2} for t in inputs(4, 3, 6))
    check_model("masked_attention", MaskedAttention(), inputs(4, 3, 6), dims,
                [inputs(2, 2, 2), inputs(5, 5, 7), inputs(3, 9, 4)], rtol=1e-5, atol=1e-5)
    cm = symhlo.compile(MaskedAttention(), inputs(4, 3, 6), dynamic_shapes=dims)
    q, k, _, mask = inputs(5, 5, 7)
    with pytest.raises(symhlo.ShapeError, match=r"k_dim2 == v_dim2"):
        cm(q, k, randn(5, 4, 6, 8), mask)
