"""Real transformer models: a GPT-2-style decoder and a BERT-style encoder, dynamic batch and sequence.

Model definitions are written here (no downloads). Each is compiled once and run at the range
minimum, middle sizes and a large sequence, compared with eager PyTorch.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

import symhlo
from symhlo.backend.compiler import prepare_for_iree

from e2e_harness import check_model, randint, seeded


class CausalSelfAttention(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).contiguous().view(b, s, d))


class GPTBlock(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT2(nn.Module):
    """Token + learned positions from arange(seq), causal blocks, final LN, LM head tied to wte."""

    def __init__(self, vocab=97, ctx=1024, d=64, heads=4, layers=2):
        super().__init__()
        torch.manual_seed(10)
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(GPTBlock(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.wte(ids) + self.wpe(pos)[None]
        for blk in self.blocks:
            x = blk(x)
        return self.lm_head(self.ln_f(x))


def test_gpt2_decoder():
    b, s = Dim("batch", min=2, max=16), Dim("seq", min=2, max=1024)
    ids = lambda bb, ss: (randint(97, bb, ss, gen=seeded(bb * 1000 + ss)),)
    check_model("gpt2", GPT2(), ids(2, 7), ({0: b, 1: s},),
                [ids(2, 2), ids(3, 17), ids(2, 130), ids(2, 1024)], rtol=1e-4, atol=2e-4)


def test_iree_input_splits_qkv_and_slices_positions():
    """IREE's input only (test_gpt2_decoder runs the same model against eager, up to seq 1024):
    the fused q/k/v projection (one matmul, its result split three ways along the features)
    becomes one matmul per part (symhlo-split-sliced-matmuls-for-iree), and the learned
    positions' gather at arange(seq) a slice of the table's first seq rows (seq <= 1024, the
    table's rows: symhlo-lower-dynamic-indexing-for-iree)."""
    b, s = Dim("batch", min=2, max=16), Dim("seq", min=2, max=1024)
    prog = symhlo.export(GPT2(), (randint(97, 2, 7, gen=seeded(1)),), dynamic_shapes=({0: b, 1: s},))
    portable_dots = prog.text.count("stablehlo.dot_general")
    iree_input = prepare_for_iree(prog.text)
    # per layer: 3 x 64 -> 192 gone, 3 x 64 -> 64 in its place (2 layers)
    assert "tensor<64x192xf32>) -> tensor<?x192xf32>" in prog.text
    assert "-> tensor<?x192xf32>" not in iree_input
    assert iree_input.count("tensor<64x64xf32>) -> tensor<?x64xf32>") == 2 * (3 + 1), iree_input
    assert iree_input.count("stablehlo.dot_general") == portable_dots + 2 * 2
    # the token embedding (ids from data) stays a gather; the positions' is a slice
    assert prog.text.count('"stablehlo.gather"') == 2
    assert iree_input.count('"stablehlo.gather"') == 1
    assert "tensor.extract_slice %cst" in iree_input and "tensor<1024x64xf32> to tensor<?x64xf32>" in iree_input


class SlicedProjections(nn.Module):
    """Matmul results read in parts along their features, the forms symhlo-split-sliced-matmuls-
    for-iree splits and the ones it must leave whole."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(11)
        self.qkv = nn.Linear(16, 48)           # three equal parts, through the bias add
        self.gate_up = nn.Linear(16, 40)       # unequal parts (24, 16), Phi-3's SwiGLU form
        self.w = nn.Parameter(torch.randn(16, 30))   # a plain matmul, parts 0:10 and 20:30 only
        self.over = nn.Linear(16, 12)          # overlapping parts: left whole
        self.act = nn.Linear(16, 20)           # GELU before the split (x read twice): left whole

    def forward(self, x):                      # x (b, s, 16)
        q, k, v = self.qkv(x).split(16, dim=-1)
        g, u = self.gate_up(x).split([24, 16], dim=-1)
        m = x @ self.w
        o = self.over(x)
        a, c = F.gelu(self.act(x)).chunk(2, dim=-1)
        return (q * k + v, F.silu(g[..., :16]) * u, m[..., :10] - m[..., 20:], o[..., :8] + o[..., 4:],
                a * c)


def test_sliced_projections_match_eager():
    b, s = Dim("batch", min=1, max=8), Dim("seq", min=1, max=64)
    x = lambda bb, ss: (torch.randn(bb, ss, 16, generator=seeded(bb * 100 + ss)),)
    check_model("sliced projections", SlicedProjections(), x(2, 5), ({0: b, 1: s},),
                [x(1, 1), x(3, 17), x(8, 64)], rtol=1e-5, atol=1e-5)
    prog = symhlo.export(SlicedProjections(), x(2, 5), dynamic_shapes=({0: b, 1: s},))
    iree_input = prepare_for_iree(prog.text)
    # split: qkv 1 -> 3, gate_up 1 -> 2, the plain matmul 1 -> 2; the overlapping one and the
    # one with a GELU before its split stay whole
    assert prog.text.count("stablehlo.dot_general") == 5
    assert iree_input.count("stablehlo.dot_general") == 3 + 2 + 2 + 1 + 1, iree_input
    assert "-> tensor<?x12xf32>" in iree_input and "-> tensor<?x20xf32>" in iree_input


class HeadReadAtPositions(nn.Module):
    """LM heads read at a few positions only, the forms symhlo-slice-matmul-rows-for-iree computes
    on the sliced rows (the last position, the first, all but the first) and
    one it must leave whole (the full logits are returned too)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(12)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 40, bias=False)
        self.head2 = nn.Linear(16, 24, bias=False)
        self.w = nn.Parameter(torch.randn(16, 8))
        self.both = nn.Linear(16, 12, bias=False)

    def forward(self, x):                      # x (b, s, 16)
        h = self.norm(x)
        full = self.both(h)
        return (self.head(h)[:, -1], self.head2(h)[:, 0], (h @ self.w)[:, 1:],
                full[:, -1], full)


def test_head_read_at_positions_matches_eager():
    b, s = Dim("batch", min=1, max=8), Dim("seq", min=3, max=64)
    x = lambda bb, ss: (torch.randn(bb, ss, 16, generator=seeded(bb * 100 + ss)),)
    check_model("heads at positions", HeadReadAtPositions(), x(2, 5), ({0: b, 1: s},),
                [x(1, 3), x(3, 17), x(8, 64)], rtol=1e-5, atol=1e-5)
    prog = symhlo.export(HeadReadAtPositions(), x(2, 5), dynamic_shapes=({0: b, 1: s},))
    iree_input = prepare_for_iree(prog.text)
    # the three sliced heads multiply the hidden states' slices; the head also returned whole
    # multiplies every row and is sliced after
    assert prog.text.count("tensor<16x40xf32>) -> tensor<?x40xf32>") == 1
    assert iree_input.count("tensor<?x?x16xf32> to tensor<?x1x16xf32>") == 2, iree_input
    assert iree_input.count("tensor<?x1x16xf32> into tensor<?x16xf32>") == 2
    assert iree_input.count("tensor<?x?x16xf32> to tensor<?x?x16xf32>") == 1
    assert "tensor<16x12xf32>) -> tensor<?x12xf32>" in iree_input
    assert "tensor<?x?x12xf32> to tensor<?x1x12xf32>" in iree_input


class BertLayer(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, bias):                             # bias (b, 1, 1, s): 0 or -1e4
        b, s, d = x.shape
        hd = d // self.heads
        split = lambda t: t.view(b, s, self.heads, hd).permute(0, 2, 1, 3)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hd) + bias
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        ctx = ctx.permute(0, 2, 1, 3).reshape(b, s, d)
        x = self.ln1(x + self.o(ctx))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class Bert(nn.Module):
    """Word + position + token-type embeddings, an attention-mask input, post-LN encoder, pooler."""

    def __init__(self, vocab=113, ctx=512, d=64, heads=4, layers=2):
        super().__init__()
        torch.manual_seed(11)
        self.word, self.pos, self.token_type = nn.Embedding(vocab, d), nn.Embedding(ctx, d), nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(d, heads) for _ in range(layers))
        self.pool = nn.Linear(d, d)

    def forward(self, ids, mask):
        s = ids.shape[1]
        pos = torch.arange(s).unsqueeze(0)
        x = self.ln(self.word(ids) + self.pos(pos) + self.token_type(torch.zeros_like(ids)))
        bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x, torch.tanh(self.pool(x[:, 0]))


def test_bert_encoder_with_attention_mask():
    b, s = Dim("batch", min=2, max=16), Dim("seq", min=2, max=512)

    def inputs(bb, ss):
        ids = randint(113, bb, ss, gen=seeded(bb * 7 + ss))
        lengths = torch.randint(1, ss + 1, (bb,), generator=seeded(ss))
        mask = (torch.arange(ss)[None, :] < lengths[:, None]).long()  # right padding
        return ids, mask

    check_model("bert", Bert(), inputs(2, 9), ({0: b, 1: s}, {0: b, 1: s}),
                [inputs(2, 2), inputs(3, 11), inputs(4, 77), inputs(2, 512)],
                rtol=1e-4, atol=2e-4)
