"""Decoder LLMs from transformers 5.23, as users bring them: the HF model passed to symhlo
directly (not wrapped), with `input_ids` and `attention_mask` keyword inputs, batch and sequence
dynamic, under both the default (sdpa) and the eager attention implementation.

Each model is a small config (hidden 32, 2 layers, vocab 128), random weights seeded, eval mode,
compiled once and run at three sizes: the range minimum (batch 1, sequence 1) and two sizes that
differ from the example in both axes; the result comes back as the model's own ModelOutput and is
compared with eager (models_harness.check_model). A padded batch (zeros at the end of the mask)
runs the attention-mask path.

What made them fail before (issue 10): the rotary `inv_freq` buffers are non-persistent and live in
`ep.constants`, which torch-mlir's FX importer never looked in
(symhlo.frontend.importer._FrozenState); GPT-2's sdpa path did a `view` that torch's flash-attention
decomposition had made invalid (symhlo.frontend.decompositions.basic.sdpa_flash_for_cpu).
"""

from __future__ import annotations

import pytest
import torch
import transformers
from torch.export import Dim

from models_harness import Call, check_model, randint

VOCAB = 128
SEQ_MAX = 64

# family -> (config class, model class, config kwargs beyond the common small ones)
_LLAMA_LIKE = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=SEQ_MAX)
FAMILIES = {
    "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM, _LLAMA_LIKE),
    "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM,
                {**_LLAMA_LIKE, "sliding_window": None}),
    "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM, _LLAMA_LIKE),
    "gpt2": (transformers.GPT2Config, transformers.GPT2LMHeadModel,
             dict(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=SEQ_MAX)),
    "phi3": (transformers.Phi3Config, transformers.Phi3ForCausalLM,
             {**_LLAMA_LIKE, "pad_token_id": 0}),
    "gemma3": (transformers.Gemma3TextConfig, transformers.Gemma3ForCausalLM,
               {**_LLAMA_LIKE, "head_dim": 8, "sliding_window": 4,
                "layer_types": ["sliding_attention", "full_attention"]}),
}


def build(family: str, attn: str) -> torch.nn.Module:
    config_cls, model_cls, kw = FAMILIES[family]
    config = config_cls(**kw, use_cache=False, attn_implementation=attn)
    torch.manual_seed(0)
    return model_cls(config).eval()


def tokens(batch: int, seq: int, *, pad: int = 0) -> Call:
    """input_ids and an attention mask whose last row has its final `pad` positions masked."""
    ids = randint(VOCAB, batch, seq, seed=batch * 100 + seq)
    mask = torch.ones(batch, seq, dtype=torch.int64)
    if pad:
        mask[-1, seq - pad:] = 0
    return Call(input_ids=ids, attention_mask=mask)


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_decoder_llm(family, attn):
    model = build(family, attn)
    batch, seq = Dim("batch", min=1, max=16), Dim("seq", min=1, max=SEQ_MAX)
    example = tokens(3, 7, pad=2)
    dynamic = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}
    # The second export of the specialization check runs for the default attention only (the
    # eager variant differs in the attention alone; its runs at other sizes still catch a pin
    # that changes shapes or numbers): it keeps the suite within its CI time budget.
    check_model(model, (), dynamic, [tokens(1, 1), tokens(2, 13, pad=5), tokens(5, 4, pad=1)],
                kwargs=example.kwargs, name=f"{family} ({attn})", family="decoder LLM",
                rtol=1e-4, atol=1e-4, check_specialization=attn == "sdpa")


class _Buffers(torch.nn.Module):
    """The import failure in miniature: a non-persistent buffer (in `ep.constants`, not in the
    state dict, like rotary `inv_freq`) and a tensor constant created in forward (lifted)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("inv_freq", torch.arange(0, 8, 2, dtype=torch.float32) / 8,
                             persistent=False)
        self.register_buffer("scale", torch.full((4,), 0.5))        # persistent: state dict

    def forward(self, x):
        pos = torch.arange(x.shape[1], dtype=torch.float32)
        freqs = pos[:, None] * self.inv_freq[None, :]               # (seq, 4)
        bias = torch.tensor([1.0, -1.0, 2.0, -2.0])                 # lifted tensor constant
        return x * freqs.cos() * self.scale + bias


def test_non_persistent_buffers_and_lifted_constants():
    from models_harness import randn

    seq = Dim("seq", min=1, max=SEQ_MAX)
    check_model(_Buffers(), (randn(3, 7, 4),), ({0: Dim("batch", min=1, max=16), 1: seq},),
                [(randn(1, 1, 4),), (randn(2, 13, 4),), (randn(5, 4, 4),)],
                name="non-persistent buffer", report=False)


class _SdpaThenView(torch.nn.Module):
    """GPT-2's attention shape in miniature: q/k/v = linear(x).view(b, s, h, d).transpose(1, 2),
    sdpa, then transpose + reshape + view(-1, h*d) (valid only with the layout sdpa's meta gives)."""

    def __init__(self):
        super().__init__()
        self.qkv, self.out = torch.nn.Linear(16, 48), torch.nn.Linear(16, 16)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = (t.view(b, s, 4, 4).transpose(1, 2) for t in self.qkv(x).split(16, dim=2))
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        a = a.transpose(1, 2).reshape(b, s, 16)
        return self.out(a.view(-1, 16)).view(b, s, 16)


def test_sdpa_output_layout_keeps_views_valid():
    from models_harness import randn

    torch.manual_seed(0)
    check_model(_SdpaThenView(), (randn(3, 7, 16),),
                ({0: Dim("batch", min=1, max=16), 1: Dim("seq", min=1, max=SEQ_MAX)},),
                [(randn(1, 1, 16),), (randn(2, 13, 16),), (randn(5, 4, 16),)],
                name="sdpa then view", report=False)


def test_decoder_llm_unbounded_batch_and_sequence():
    """Llama with no max on batch or sequence: unbounded dims keep every size `?` with no range
    checks; it ran out of memory at load before (the causal mask's cumsum over an unbounded axis
    allocated static 2^30-element blocks)."""
    model = build("llama", "sdpa")
    batch, seq = Dim("batch", min=1), Dim("seq", min=1)
    dynamic = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}
    check_model(model, (), dynamic, [tokens(1, 1), tokens(2, 13, pad=5), tokens(3, 300, pad=7)],
                kwargs=tokens(3, 7, pad=2).kwargs, name="llama (sdpa, unbounded)",
                family="decoder LLM", rtol=1e-4, atol=1e-4, check_specialization=False)
