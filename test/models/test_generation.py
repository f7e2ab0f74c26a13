"""Greedy generation with a KV cache: a compiled prefill and a compiled decode step whose past
length is a dynamic dim, driven by a Python loop, must give the tokens transformers' own
`generate` gives (eager, its own DynamicCache).

The cache crosses the compiled boundary as an explicit tensor: `KVStep` wraps the HF model and
takes / returns all layers' keys and values stacked as (2, layers, batch, kv_heads, length,
head_dim), filling the model's own DynamicCache from it inside forward. Two exports of the
same module: the prefill (input_ids (batch, seq), no past: a past length of 0 would be
specialized by torch.export) and the decode step (input_ids (batch, 1) and a past of dynamic
length). Each is compiled once, checked against eager at three sizes (models_harness), then
reused for the whole loop at two prompt lengths.
"""

from __future__ import annotations

import pytest
import torch
import transformers
from torch.export import Dim

from models_harness import check_model, randint, randn

VOCAB = 128
MAX_LEN = 64
NEW_TOKENS = 9   # one from the prefill, then 8 decode steps


class KVStep(torch.nn.Module):
    """A causal LM step with its KV cache as one tensor: (ids[, past]) -> (logits of the last
    position, past), past = (keys, values) stacked as (2, layers, batch, kv_heads, length,
    head_dim). Inside, the model's own DynamicCache is filled from `past` and read back."""

    def __init__(self, lm: torch.nn.Module):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids, past=None):
        cache = transformers.DynamicCache(config=self.lm.config)
        if past is not None:
            for layer in range(past.shape[1]):
                cache.update(past[0, layer], past[1, layer], layer)
        out = self.lm(input_ids=input_ids, past_key_values=cache, use_cache=True)
        keys = torch.stack([layer.keys for layer in cache.layers])
        values = torch.stack([layer.values for layer in cache.layers])
        return out.logits[:, -1], torch.stack([keys, values])


_COMMON = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
               num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=MAX_LEN,
               bos_token_id=None, eos_token_id=None, pad_token_id=0)
# One family keeps the suite within its time budget; the KVStep wrapper is family-neutral
# (any causal LM whose forward takes a DynamicCache).
FAMILIES = {
    "llama": lambda: transformers.LlamaForCausalLM(transformers.LlamaConfig(**_COMMON)),
}


def _cache_shape(lm, batch: int, length: int) -> tuple[int, ...]:
    c = lm.config
    return (2, c.num_hidden_layers, batch, c.num_key_value_heads, length,
            c.hidden_size // c.num_attention_heads)


def generate(prefill, decode, ids: torch.Tensor, steps: int) -> torch.Tensor:
    """Greedy decoding with compiled prefill/decode callables; returns the new tokens."""
    logits, past = prefill(ids)
    tokens = [logits.argmax(-1)]
    for _ in range(steps - 1):
        logits, past = decode(tokens[-1][:, None], past)
        tokens.append(logits.argmax(-1))
    return torch.stack(tokens, dim=1)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_greedy_generation(family):
    torch.manual_seed(0)
    lm = FAMILIES[family]().eval()
    step = KVStep(lm).eval()
    batch = Dim("batch", min=1, max=8)
    compiled = []

    def prompt(b, s):
        return (randint(VOCAB, b, s, seed=10 * b + s),)

    check_model(step, prompt(3, 7), ({0: batch, 1: Dim("seq", min=1, max=MAX_LEN)},),
                [prompt(1, 1), prompt(2, 5), prompt(4, 12)],
                name=f"{family} prefill (KV cache out)", family="generation", compiled=compiled)

    def past(b, p):
        return (randint(VOCAB, b, 1, seed=b + p), randn(*_cache_shape(lm, b, p), seed=p))

    # The past length is Dim.AUTO, not Dim("past", min=1): with a named Dim torch.export
    # refuses the guard repeat_kv's reshape adds, Min(8*p + 8, 16*p + 16) == 8*p + 8, which
    # holds for every p >= 0 but which its interval check cannot prove. AUTO accepts the guard
    # and keeps p dynamic, with torch's lower bound 2 (a past of 1 raises ShapeError).
    check_model(step, past(3, 6), ({0: batch}, {2: batch, 4: Dim.AUTO(min=2, max=MAX_LEN - 1)}),
                [past(1, 2), past(2, 9), past(4, 3)],
                name=f"{family} decode step (past dynamic)", family="generation",
                compiled=compiled)
    prefill, decode = compiled

    for b, s in [(2, 5), (1, 11)]:
        ids = prompt(b, s)[0]
        got = generate(prefill, decode, ids, NEW_TOKENS)
        with torch.no_grad():
            want = lm.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=NEW_TOKENS,
                               min_new_tokens=NEW_TOKENS, do_sample=False)[:, s:]
        assert torch.equal(got, want), f"prompt {b}x{s}: symhlo {got.tolist()} != eager {want.tolist()}"
