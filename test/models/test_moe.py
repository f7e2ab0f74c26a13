"""Mixture-of-experts routing written the eager way, vs eager: each expert gathers the tokens
routed to it (`torch.where(choice == e)` / `nonzero`: how many is known only from the data), runs
its MLP on them and adds the result back with `index_add`. The token axis (batch x sequence) is
dynamic; the per-expert token counts are unbacked sizes, `?` in the StableHLO.

The calls include one where every token goes to the same expert (that expert's slice is full, the
others are empty), so both edge cases of each data-dependent size run.
"""

from __future__ import annotations

import pytest
import torch
import transformers
from torch import nn
from torch.export import Dim

from models_harness import check_model, randn


class Expert(nn.Module):
    def __init__(self, d: int, h: int):
        super().__init__()
        self.up, self.gate, self.down = nn.Linear(d, h), nn.Linear(d, h), nn.Linear(h, d)

    def forward(self, x):
        return self.down(nn.functional.silu(self.gate(x)) * self.up(x))


class MoE(nn.Module):
    """A Mixtral-style sparse MoE block: top-2 routing over 4 experts; each expert finds its
    (token, slot) pairs with `torch.where(chosen == e)` or `torch.nonzero(chosen == e)` (both
    spellings of the eager routing), gathers those tokens and adds its output back."""

    def __init__(self, d: int = 16, h: int = 32, experts: int = 4):
        super().__init__()
        self.router = nn.Linear(d, experts)
        self.experts = nn.ModuleList(Expert(d, h) for _ in range(experts))

    def forward(self, x):
        b, s, d = x.shape
        t = x.reshape(-1, d)
        probs = torch.softmax(self.router(t), -1)
        weights, chosen = torch.topk(probs, 2, -1)
        weights = weights / weights.sum(-1, keepdim=True)
        out = torch.zeros_like(t)
        for e, expert in enumerate(self.experts):
            if e % 2:
                token, slot = torch.where(chosen == e)
            else:
                pairs = torch.nonzero(chosen == e)
                token, slot = pairs[:, 0], pairs[:, 1]
            y = expert(t[token]) * weights[token, slot, None]
            if e % 2:
                out.index_add_(0, token, y)
            else:
                out = out.index_add(0, token, y)
        return (t + out).reshape(b, s, d), chosen


def test_moe_routing_eager_way():
    torch.manual_seed(0)
    model = MoE()
    with torch.no_grad():   # distinct biases: a zero input routes every token to experts 3 and 1
        model.router.bias.copy_(torch.tensor([0.0, 1.0, -1.0, 2.0]))   # (full), 0 and 2 get none
    b, s = Dim("b", min=1, max=64), Dim("s", min=1)
    zero = torch.zeros(3, 5, 16)
    check_model(model, (randn(2, 7, 16),), ({0: b, 1: s},),
                [(randn(3, 11, 16),), (randn(1, 2, 16),), (zero,), (randn(4, 33, 16),)],
                name="MoE (eager routing)", family="moe", atol=1e-4, rtol=1e-4)


_STOCK = {
    "mixtral": (transformers.MixtralConfig, transformers.MixtralForCausalLM,
                dict(num_local_experts=4, num_experts_per_tok=2)),
    "qwen2_moe": (transformers.Qwen2MoeConfig, transformers.Qwen2MoeForCausalLM,
                  dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                       shared_expert_intermediate_size=32)),
}


@pytest.mark.parametrize("family", list(_STOCK))
def test_stock_transformers_moe(family):
    """transformers' own MoE LMs with their default experts implementation: its grouped matmul
    is the custom op `transformers::grouped_mm_fallback` (rows sorted by expert, running counts
    `offs`), which failed as an unsupported op; each expert's rows are now a slice at counts read
    from the data (a `?` size each), and the inverse permutation's `empty_like` a zero splat.
    Batch 1 x seq 1 routes one token: most experts get no rows."""
    config_cls, model_cls, kw = _STOCK[family]
    config = config_cls(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                        use_cache=False, **kw)
    torch.manual_seed(0)
    model = model_cls(config).eval()
    ids = lambda b, s: torch.randint(0, 128, (b, s), generator=torch.Generator().manual_seed(b * 100 + s))
    b, s = Dim("b", min=1, max=16), Dim("s", min=1, max=64)
    check_model(model, (ids(3, 7),), ({0: b, 1: s},), [(ids(1, 1),), (ids(2, 13),), (ids(5, 4),)],
                name=f"{family} (transformers, default experts)", family="moe", rtol=1e-4,
                atol=1e-4, check_specialization=False)
