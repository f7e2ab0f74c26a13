"""Attention over `?` queries and keys computed in blocks of 16 for IREE
(symhlo-block-attention-for-iree): the queries and keys are padded to whole blocks, masked at the
padded keys and sliced back. One compile runs at sequence lengths that are and are not
multiples of 16 (2, 17, 130, 144, 201) and equals eager: a GPT-style causal softmax, torch's sdpa with a boolean
mask that masks whole rows (its safe softmax: an all-masked row is 0) and an additive mask of
-1e30 (exp of the padded keys' scores minus such a row max would overflow if they were not
masked).
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

import symhlo
from symhlo.backend.compiler import prepare_for_iree

from e2e_harness import check_model


class Attentions(nn.Module):
    def forward(self, q, k, v, keep, bias):                  # q, k, v (b, h, s, 8); keep (b, 1, s, s)
        s = q.shape[2]
        att = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
        causal = torch.ones(s, s, dtype=torch.bool).tril()
        gpt = att.masked_fill(~causal, float("-inf")).softmax(-1) @ v
        sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        scores = (q * 0.25) @ k.transpose(-1, -2)           # a scores matmul of its own
        additive = (scores + bias).softmax(-1) @ v
        return gpt, sdpa, additive


def _inputs(b: int, s: int):
    g = torch.Generator().manual_seed(1000 * b + s)
    q, k, v = (torch.randn(b, 2, s, 8, generator=g) for _ in range(3))
    keep = torch.rand(b, 1, s, s, generator=g) > 0.3
    keep[:, :, 0] = False                                    # row 0 masked everywhere
    bias = torch.where(torch.rand(b, 1, s, s, generator=g) > 0.5, 0.0, -1e30)
    bias[..., 0] = 0.0                                       # every row keeps key 0
    return q, k, v, keep, bias


def _dims():
    b, s = Dim("b", min=1, max=8), Dim("s", min=2, max=256)
    qkv = {0: b, 2: s}
    mask = {0: b, 2: s, 3: s}
    return (qkv, qkv, qkv, mask, mask)


def test_blocked_attention_equals_eager_at_any_length():
    check_model("blocked attention", Attentions(), _inputs(2, 20), _dims(),
                [_inputs(1, 2), _inputs(3, 17), _inputs(1, 130), _inputs(2, 144), _inputs(1, 201)],
                rtol=1e-4, atol=1e-5)


def test_attention_is_blocked_for_iree_only():
    prog = symhlo.export(Attentions(), _inputs(2, 20), dynamic_shapes=_dims())
    assert "x16x" not in prog.text                            # the portable artifact: `?` only
    iree_input = prepare_for_iree(prog.text)
    # each of the three attentions: scores expanded into 16 x 16 blocks of queries and keys
    assert iree_input.count("x?x16x?x16xf32> into tensor<?x?x?xf32>") == 3, iree_input
    assert "scf.if" not in iree_input                          # min-length 1: no branch on sizes


class SafeSoftmaxRows(nn.Module):
    """torch's safe softmax (sdpa with a boolean mask, and aten._safe_softmax itself) over rows
    that are all -inf, hold a NaN or a +inf, beside ordinary ones."""

    def forward(self, q, k, v, keep):
        scores = (q @ k.transpose(-1, -2)).masked_fill(~keep, float("-inf"))
        probs = torch.ops.aten._safe_softmax(scores, -1)
        return probs, F.scaled_dot_product_attention(q, k, v, attn_mask=keep)


def _special_rows(b: int, s: int):
    q, k, v, keep, _ = _inputs(b, s)               # row 0 of `keep` masks every key
    q[:, :, 1 % s] = float("nan")                    # a NaN row: NaN out, not 0
    if s > 2:
        q[:, 0, 2, 0] = float("inf")                 # +inf / -inf / NaN scores in one row
    return q, k, v, keep


def test_safe_softmax_row_test_folds_into_the_softmax():
    """symhlo-fold-safe-softmax-for-iree: the all(x == -inf) reduction is gone from the IREE
    input, and every row, all -inf, NaN or +inf included, equals eager's (NaN where eager's is)."""
    model = SafeSoftmaxRows()
    dims = _dims()[:4]
    prog = symhlo.export(model, _special_rows(2, 20), dynamic_shapes=dims)
    assert prog.text.count("applies stablehlo.and") == 2     # torch's row tests, kept portable
    assert "applies stablehlo.and" not in prepare_for_iree(prog.text)
    check_model("safe softmax rows", model, _special_rows(2, 20), dims,
                [_special_rows(1, 2), _special_rows(3, 17), _special_rows(1, 130)],
                rtol=1e-4, atol=1e-5, equal_nan=True)
    cm = symhlo.compile(model, args=_special_rows(1, 17), target="cpu")
    assert "applies stablehlo.and" not in prepare_for_iree(cm.stablehlo)
    for got, want in zip(cm(*_special_rows(1, 17)), model(*_special_rows(1, 17))):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, equal_nan=True)
        assert torch.equal(got[:, :, 0], torch.zeros_like(got[:, :, 0]))   # the all -inf row
