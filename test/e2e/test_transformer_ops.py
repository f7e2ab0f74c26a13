"""Transformer-side op families with dynamic batch/sequence dims, grouped a few per compiled module.

Each module is compiled once and run at 3+ sizes (the range minimum, a middle one, a large one).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

from e2e_harness import check_model, randint, randn, seeded

B = lambda: Dim("b", min=2, max=64)
S = lambda: Dim("s", min=2, max=2048)


class Elementwise(nn.Module):
    """Activations, where / masked_fill, comparisons, casts, clamp, erf on (b, s, 8)."""

    def forward(self, x, y):
        acts = (torch.relu(x) + F.gelu(x) + F.gelu(x, approximate="tanh") + F.silu(x)
                + torch.sigmoid(x) + torch.tanh(x) + torch.erf(x))
        mask = x > y                                        # (b, s, 8) vs (b, 1, 8)
        w = torch.where(mask, x, y * 2).masked_fill(x < -1.0, -5.0)
        cmp = (x >= 0).float() + (x == x).to(torch.float32) + (x != y).long().float()
        c = torch.clamp(x, -0.5, 0.5) + x.clamp(min=0.1)
        as_int = (x * 10).to(torch.int32)
        return acts, w, cmp, c, as_int, torch.exp(-x.abs()) * torch.rsqrt(x * x + 1)


def test_elementwise_activations_where_casts():
    b, s = B(), S()
    check_model("elementwise", Elementwise(), (randn(2, 3, 8), randn(2, 1, 8)),
                ({0: b, 1: s}, {0: b}),
                [(randn(2, 2, 8), randn(2, 1, 8)), (randn(3, 7, 8), randn(3, 1, 8)),
                 (randn(5, 1500, 8), randn(5, 1, 8))], atol=1e-5, rtol=1e-5)


class ViewLike(nn.Module):
    """flatten / unflatten / squeeze / unsqueeze / permute / transpose / expand / repeat on (b, s, 8)."""

    def forward(self, x):
        b, s, d = x.shape
        f = x.flatten(0, 1)                                 # (b*s, 8)
        u = f.unflatten(1, (2, d // 2))                     # (b*s, 2, 4)
        h = x.reshape(b, s, 2, d // 2).reshape(b, -1)       # (b, s*8)
        q = x.unsqueeze(1).squeeze(1).unsqueeze(-1)         # (b, s, 8, 1)
        p = x.permute(2, 0, 1).contiguous()                 # (8, b, s)
        e = x[:, 0, None, :].expand(b, s, d) + x.transpose(0, 1).transpose(0, 1)
        r = x.repeat(2, 1, 3)                               # (2b, s, 24)
        bt = torch.broadcast_to(x.sum(1, keepdim=True), (b, s, d))
        return u * 2, h, q, p, e, r, bt


def test_view_like_ops():
    b, s = B(), S()
    check_model("view_like", ViewLike(), (randn(2, 3, 8),), ({0: b, 1: s},),
                [(randn(2, 2, 8),), (randn(3, 9, 8),), (randn(4, 1000, 8),)])


class Slicing(nn.Module):
    """slice with symbolic bounds and steps, narrow, select, chunk, split, unbind, cat, stack."""

    def forward(self, x, y):
        n = x.shape[1]
        a = x[:, 1:n - 1]                                   # symbolic end
        c = x[:, ::2] * 1.0                                 # step over a dynamic dim
        d = x[:, n - 2:]                                    # symbolic start, static length
        e = torch.narrow(x, 1, 1, n - 2)
        sel = x.select(1, n - 1) + x[:, 0]                  # select at a symbolic index
        k0, k1 = x.chunk(2, dim=0)                          # static dim 0 of size 4
        s0, s1 = torch.split(x, [1, 3], dim=0)
        u = torch.stack(x.unbind(0), dim=1)                 # (n, 4)
        cat = torch.cat([x, y, x], dim=1)                   # n + m + n
        st = torch.stack([x, x * 2], dim=1)                 # (4, 2, n)
        return a, c, d, e, sel, k0 - k1, s1.sum(0) + s0[0], u, cat, st


def test_slicing_split_cat_stack():
    n, m = Dim("n", min=4, max=4096), Dim("m", min=2, max=4096)
    check_model("slicing_family", Slicing(), (randn(4, 7), randn(4, 5)), ({1: n}, {1: m}),
                [(randn(4, 4), randn(4, 2)), (randn(4, 10), randn(4, 3)),
                 (randn(4, 4001), randn(4, 1999))])


class StackedCaches(nn.Module):
    """Two layers' KV caches grown by a token and returned stacked (a decode step's outputs); each
    layer's cache is also read where it is made (its attention)."""

    def forward(self, past, new):
        caches, reads = [], []
        for layer in range(past.shape[0]):
            k = torch.cat([past[layer], new[layer]], dim=2)     # (b, h, p + 1, d)
            reads.append((k * 2.0).sum(2))
            caches.append(k)
        return torch.stack(caches), torch.stack(reads)


def test_stacked_caches_are_built_in_place_for_iree():
    """symhlo-flatten-nested-inserts-for-iree: each layer's past and new token go straight into
    the stacked output, the layer's own reader reads a slice of it; equal to eager."""
    from symhlo.backend.compiler import prepare_for_iree

    b, p = Dim("b", min=1, max=8), Dim("p", min=2, max=1023)
    compiled = []
    check_model("stacked_caches", StackedCaches(), (randn(2, 3, 2, 5, 4), randn(2, 3, 2, 1, 4)),
                ({1: b, 3: p}, {1: b}),
                [(randn(2, 1, 2, 2, 4), randn(2, 1, 2, 1, 4)), (randn(2, 4, 2, 9, 4), randn(2, 4, 2, 1, 4)),
                 (randn(2, 8, 2, 300, 4), randn(2, 8, 2, 1, 4))], compiled=compiled)
    iree_input = prepare_for_iree(compiled[0].stablehlo)
    # the caches' stack: four pieces (past and new of each layer), no insert of a layer's whole
    # cache; the reads' stack: two; each layer read back as a slice of the stack
    assert iree_input.count("tensor.insert_slice") == 6, iree_input
    assert iree_input.count("tensor.extract_slice %inserted_slice") == 2
    assert "tensor.reshape" not in iree_input


class Creation(nn.Module):
    """arange / full / zeros / ones / new_zeros / empty / tril / triu / cumsum with symbolic sizes."""

    def forward(self, x):
        b, s = x.shape
        pos = torch.arange(s)                               # (s,)
        odd = torch.arange(1, s, 2)                         # ((s-1)//2 + ...)
        f = torch.full((b, s), 3.0) + torch.zeros(b, s) + torch.ones(s)
        z = x.new_zeros(s, b) + x.new_ones(1, 1)
        e = torch.empty(b, s).fill_(2.0)
        sq = x[:, :, None] * x[:, None, :]                  # (b, s, s)
        return (pos * 2, odd, f, z, e, torch.tril(sq), torch.triu(sq, diagonal=1),
                torch.cumsum(x, dim=1), torch.cumsum(pos, 0))


def test_creation_tril_cumsum():
    b, s = B(), Dim("s", min=4, max=512)  # arange(1, s, 2) has length 1 at s < 4
    check_model("creation", Creation(), (randn(2, 5),), ({0: b, 1: s},),
                [(randn(2, 4),), (randn(3, 11),), (randn(2, 512),)], rtol=1e-4, atol=1e-4)


class UnboundedScans(nn.Module):
    """cumsum over unbounded axes (no max): the shift-and-add scan, 31 steps for 2^31."""

    def forward(self, x, mask):
        return torch.cumsum(x, dim=1), torch.cumsum(mask, -1) * mask, torch.cumsum(x, dim=0)


def test_cumsum_unbounded_axes():
    b, s = Dim("b", min=2), Dim("s", min=2)  # unbounded: no max
    check_model("cumsum unbounded", UnboundedScans(), (randn(2, 5), randint(2, 2, 5)),
                ({0: b, 1: s}, {0: b, 1: s}),
                [(randn(2, 2), randint(2, 2, 2)), (randn(3, 11), randint(2, 3, 11)),
                 (randn(5, 3000), randint(2, 5, 3000))], rtol=1e-4, atol=1e-3)


class Reductions(nn.Module):
    """sum / mean / max / amax / argmax / var / std / softmax / log_softmax over dynamic dims."""

    def forward(self, x):
        return (x.sum(1), x.mean((0, 1)), x.max(dim=1).values, x.amax(-1), x.argmax(1),
                x.var(1), x.std(1, unbiased=False), torch.softmax(x, 1), F.log_softmax(x, -1),
                x.min(dim=0).values, x.argmin(2))


def test_reductions_softmax():
    b, s = B(), S()
    check_model("reductions", Reductions(), (randn(2, 5, 8),), ({0: b, 1: s},),
                [(randn(2, 2, 8),), (randn(3, 17, 8),), (randn(2, 2000, 8),)])


class Matmuls(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(4)
        self.lin = nn.Linear(16, 12)
        self.w = nn.Parameter(torch.randn(16, 12))
        self.bias = nn.Parameter(torch.randn(12))

    def forward(self, x, y):                                # x (b, s, 16), y (b, 16, t)
        b, s, d = x.shape
        lin = self.lin(x)                                   # rank-3 linear
        mm = x @ self.w                                     # rank-3 x rank-2 matmul
        bmm = torch.bmm(x, y)                               # (b, s, t)
        addmm = torch.addmm(self.bias, x.reshape(b * s, d), self.w)
        bad = torch.baddbmm(bmm, x, y, beta=0.5, alpha=2.0)
        mv = torch.matmul(x, y[:, :, 0:1]).squeeze(-1)
        return lin, mm, bmm, addmm, bad, mv


def test_matmul_family():
    b, s, t = B(), S(), Dim("t", min=2, max=512)
    check_model("matmuls", Matmuls(), (randn(2, 3, 16), randn(2, 16, 4)),
                ({0: b, 1: s}, {0: b, 2: t}),
                [(randn(2, 2, 16), randn(2, 16, 2)), (randn(3, 9, 16), randn(3, 16, 5)),
                 (randn(4, 700, 16), randn(4, 16, 300))], rtol=1e-4, atol=1e-4)


class SDPA(nn.Module):
    def forward(self, q, k, v, mask):
        causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        masked = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return causal, masked


def test_scaled_dot_product_attention():
    b, s = B(), Dim("s", min=2, max=1024)
    mk = lambda bb, ss: (randn(bb, 2, ss, 8), randn(bb, 2, ss, 8), randn(bb, 2, ss, 8),
                         randn(bb, 1, ss, ss) > 0)
    spec = {0: b, 2: s}
    check_model("sdpa", SDPA(), mk(2, 5), (spec, spec, spec, {0: b, 2: s, 3: s}),
                [mk(2, 2), mk(3, 13), mk(2, 600)])


class DefaultScaleAttention(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def test_attention_default_scale_over_a_dynamic_head_size():
    """sdpa's default scale 1 / sqrt(E) with the head size E `?` (and the sequence `?`): the
    scale is computed in the program from E (it was refused as a `sym_float` size)."""
    s, e = Dim("s", min=2, max=256), Dim("e", min=2, max=128)
    mk = lambda ss, ee: tuple(randn(2, 3, ss, ee) for _ in range(3))
    spec = {2: s, 3: e}
    check_model("sdpa_dynamic_head", DefaultScaleAttention(), mk(5, 8), (spec, spec, spec),
                [mk(2, 3), mk(7, 16), mk(33, 61)], rtol=1e-5, atol=1e-5)


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.ln = nn.LayerNorm(8)
        self.rms_w = nn.Parameter(torch.rand(8) + 0.5)
        self.emb = nn.Embedding(50, 8)

    def forward(self, x, ids):                              # x (b, s, 8), ids (b, s)
        rms = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.rms_w
        e = self.emb(ids)
        g = torch.gather(x, 2, (ids % 8).unsqueeze(-1))     # (b, s, 1)
        isel = torch.index_select(self.emb.weight, 0, ids.flatten())  # dynamic index count
        sc = torch.zeros_like(x).scatter(2, (ids % 8).unsqueeze(-1), 1.0)
        ip = torch.zeros(x.shape[0], 50).index_put_((torch.arange(x.shape[0]), ids[:, 0]),
                                                    torch.ones(x.shape[0]), accumulate=True)
        return self.ln(x), rms, e, g, isel, sc, ip


def test_norms_embedding_gather_scatter():
    b, s = B(), S()
    check_model("norms_gather", Norms(), (randn(2, 4, 8), randint(50, 2, 4)),
                ({0: b, 1: s}, {0: b, 1: s}),
                [(randn(2, 2, 8), randint(50, 2, 2)), (randn(3, 9, 8), randint(50, 3, 9)),
                 (randn(5, 1200, 8), randint(50, 5, 1200))])


class SizeArithmetic(nn.Module):
    """+ - * // %, max / min, ceil-div, sizes shared across inputs, derived dims 2*h and h+1."""

    def forward(self, x, y, z):                             # x (b, 2h), y (b, h), z (h+1,)
        b, n = x.shape
        h = y.shape[1]
        ceil = (n + 7) // 8                                 # ceil-div
        halves = x.view(b, 2, h) + y[:, None, :]            # 2h = 2 * h
        t = z[1:] + y                                       # h + 1 - 1 = h
        flat = halves.reshape(-1)[: b * h]
        # A computed size that may be 1 makes torch.export guard on it, so each one here is
        # provably >= 2 and is the length of an arange: an output axis of its own.
        return (halves, t, flat, torch.arange(2 * ceil), torch.arange(n % 3 + 2) * 2,
                torch.arange(max(b, 3)), torch.arange(min(h, 4)), torch.arange(h * b - h + 1),
                torch.zeros(n // 2 - h + 1, b), torch.arange(-(-n // 3)))


def test_size_arithmetic_shared_derived_dims():
    b, h = Dim("b", min=2, max=64), Dim("h", min=2, max=512)
    check_model("size_arith", SizeArithmetic(), (randn(2, 6), randn(2, 3), randn(4)),
                ({0: b, 1: 2 * h}, {0: b, 1: h}, {0: h + 1}),
                [(randn(2, 4), randn(2, 2), randn(3)), (randn(3, 14), randn(3, 7), randn(8)),
                 (randn(7, 1000), randn(7, 500), randn(501))])


class IreeGaps(nn.Module):
    """Pure StableHLO that IREE 3.13 rejects as is; symhlo-lower-dynamic-indexing-for-iree
    rewrites both (the artifact keeps real_dynamic_slice / dynamic_gather)."""

    def __init__(self, which: str):
        super().__init__()
        self.which = which

    def forward(self, x):
        b, s, d = x.shape
        if self.which == "slice_then_expand":   # real_dynamic_slice -> dynamic_broadcast_in_dim
            return x[:, :1, :].expand(b, s, d) * 2
        return torch.index_select(x, 1, torch.arange(s - 1, -1, -1))  # stablehlo.dynamic_gather


@pytest.mark.parametrize("which", ["slice_then_expand", "index_select_dynamic_operand"])
def test_former_iree_gaps(which):
    b, s = B(), S()
    check_model(which, IreeGaps(which), (randn(2, 3, 8),), ({0: b, 1: s},),
                [(randn(2, 2, 8),), (randn(3, 9, 8),), (randn(2, 100, 8),)])


class UnitContractions(nn.Module):
    """Matmuls over a contracting size of 1 with a `?` batch (LeViT / MobileViT attention over one
    position): IREE 3.13 refused them as dot_general; symhlo-prepare-for-iree multiplies."""

    def forward(self, q, k, v):                             # q (b, 1, 1), k (b, 1, 16), v (b, 3, 1)
        return torch.bmm(q, k), torch.bmm(v, k), torch.einsum("bik,bkj->bij", v, q)


def test_matmul_unit_contraction():
    b = B()
    check_model("unit contractions", UnitContractions(), (randn(3, 1, 1), randn(3, 1, 16), randn(3, 3, 1)),
                ({0: b}, {0: b}, {0: b}),
                [(randn(2, 1, 1), randn(2, 1, 16), randn(2, 3, 1)),
                 (randn(7, 1, 1), randn(7, 1, 16), randn(7, 3, 1)),
                 (randn(64, 1, 1), randn(64, 1, 16), randn(64, 3, 1))], rtol=1e-6, atol=1e-6)



class ChunkedLinearCrossEntropy(nn.Module):
    """F.linear_cross_entropy with LinearCrossEntropyOptions (torch.nn's chunked custom ops; torch
    sizes its chunks from the batch, so that stays static) over `?` features and classes: mean
    with a class weight and an ignored row, a sum, and per-row losses."""

    def forward(self, h, weight, bias, target, class_weight):   # h (6, f), weight (c, f)
        from torch.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions

        opts = LinearCrossEntropyOptions(batch_chunk_size=4)
        mean = F.linear_cross_entropy(h, weight, target, linear_bias=bias, weight=class_weight,
                                      ignore_index=1, options=opts)
        total = F.linear_cross_entropy(h, weight, target, reduction="sum", options=opts)
        rows = F.linear_cross_entropy(h, weight, target, linear_bias=bias, reduction="none",
                                      options=opts)
        return mean, total, rows


def test_chunked_linear_cross_entropy():
    f, c = Dim("f", min=2, max=256), Dim("c", min=4, max=256)
    target = torch.tensor([0, 1, 3, 2, 1, 3])               # < c at every size; 1 is ignored

    def args(nf, nc):
        return (randn(6, nf), randn(nc, nf), randn(nc), target, torch.rand(nc, generator=seeded(nc)))

    check_model("chunked linear cross-entropy", ChunkedLinearCrossEntropy(), args(8, 11),
                ({1: f}, {0: c, 1: f}, {0: c}, None, {0: c}),
                [args(2, 4), args(13, 30), args(100, 7)], expect_symbolic_outputs=False)


def test_chunked_linear_cross_entropy_precomputed_gradients():
    """The scalar op's precomputed gradients (returned beside the loss when traced with weights
    that require grad) equal the op's own, mean and sum, with bias, class weight, ignored rows."""
    import torch.nn.modules.linear_cross_entropy  # noqa: F401  (registers the custom op)
    from symhlo.frontend.decompositions.losses import linear_cross_entropy_chunked

    g = seeded(5)
    x, w, b, cw = randn(7, 5, gen=g), randn(9, 5, gen=g), randn(9, gen=g), torch.rand(9, generator=g)
    t = torch.tensor([0, 3, 3, 8, 2, 3, 1])
    for reduction in ("mean", "sum"):
        args = (x, w, t, b, cw, reduction, 3, 0.0, 2, "compact", torch.float32, True, True, True, True)
        want = torch.ops.torch_nn._linear_cross_entropy_batch_chunked(*args)
        got = linear_cross_entropy_chunked(*args)
        for a, e in zip(got, want):
            torch.testing.assert_close(a, e, rtol=1e-5, atol=1e-6)
