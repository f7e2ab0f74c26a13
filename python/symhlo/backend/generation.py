"""symhlo.compile_generation (floor 3, backend): greedy decoding of a transformers causal LM on two
compiled modules, a prefill and a decode step, with the model's own KV cache (a DynamicCache)
crossing the compiled boundary as inputs and outputs (contract.containers).

    gen = symhlo.compile_generation(lm)            # two compiles: prefill, decode step
    tokens = gen.generate(ids, max_new_tokens=20)  # == lm.generate(ids, max_new_tokens=20, do_sample=False)

The prefill takes `input_ids` (batch, seq); the decode step takes `input_ids` (batch, 1) and
`past_key_values` whose length is dynamic, so one IREE module serves every step. torch.export
specializes a past of length 0 or 1 (and GQA's key repeat needs `Dim.AUTO`, whose lower bound is
2): when the past is shorter than the decode step takes, the step runs the prefill over the
whole sequence so far instead (same result, one longer call).
"""

from __future__ import annotations

from typing import Sequence

import torch

from ..errors import ShapeError, SymhloError
from .compiler import CompiledModule, compile as _compile

_EXAMPLE_SEQ = 3     # example sizes for torch.export: >= 2 (it specializes 0 and 1)
_EXAMPLE_BATCH = 2


def _max_positions(config) -> int | None:
    for key in ("max_position_embeddings", "n_positions", "max_sequence_length"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


class CompiledGenerator:
    """A causal LM compiled as a prefill and a decode step; call it like the model, or `generate`.

    Attributes:
      prefill: the CompiledModule for `model(input_ids)` (batch, seq dynamic).
      decode: the CompiledModule for `model(input_ids, past_key_values=cache)` (batch and the
        past length dynamic; input_ids is (batch, 1)).
      max_batch, max_length: the ranges both were compiled for (max_length counts the prompt
        and the generated tokens).
      eos_token_ids, pad_token_id: from the model's generation_config, as `generate` uses them.
    """

    def __init__(self, prefill: CompiledModule, decode: CompiledModule, *, max_batch: int,
                 max_length: int, eos_token_ids: Sequence[int] = (), pad_token_id: int | None = None):
        self.prefill = prefill
        self.decode = decode
        self.max_batch = max_batch
        self.max_length = max_length
        self.eos_token_ids = list(eos_token_ids)
        self.pad_token_id = pad_token_id

    def __call__(self, input_ids: torch.Tensor, past_key_values=None):
        """The model's forward on the compiled modules: the prefill without a past, the decode
        step with one (a past of at least 2 tokens; `generate` handles shorter ones).

        Returns:
          the model's output class (e.g. CausalLMOutputWithPast), `past_key_values` a DynamicCache.
        Raises:
          ShapeError: a call outside the compiled ranges (naming input, axis, value, rule).
        """
        if past_key_values is None:
            return self.prefill(input_ids)
        return self.decode(input_ids, past_key_values=past_key_values)

    def generate(self, input_ids: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
        """Greedy decoding, as `model.generate(input_ids, max_new_tokens=..., do_sample=False)`:
        stops when every row has produced an end token (rows that ended get the pad token).

        Args:
          input_ids: (batch, prompt) int64 token ids, no padding.
          max_new_tokens: how many tokens to generate at most.
        Returns:
          (batch, prompt + generated) token ids, the prompt first.
        Raises:
          ShapeError: the batch or prompt + max_new_tokens is outside the compiled ranges.
        """
        if input_ids.dim() != 2:
            raise ShapeError(f"input_ids: expected (batch, seq) token ids, got shape {tuple(input_ids.shape)}")
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {max_new_tokens}")
        total = input_ids.shape[1] + max_new_tokens
        if total > self.max_length:
            raise ShapeError(f"input_ids: axis 1 is {input_ids.shape[1]}, and {max_new_tokens} new "
                             f"tokens make {total}, above max_length {self.max_length} the "
                             "generator was compiled for")
        ids = input_ids
        unfinished = torch.ones(ids.shape[0], dtype=torch.bool)
        eos = torch.tensor(self.eos_token_ids, dtype=ids.dtype)
        out = self.prefill(ids)
        for step in range(max_new_tokens):
            token = out.logits[:, -1].argmax(-1)
            if self.eos_token_ids:
                token = torch.where(unfinished, token, torch.full_like(token, self.pad_token_id))
                unfinished &= ~torch.isin(token, eos)
            ids = torch.cat([ids, token[:, None]], dim=1)
            if not bool(unfinished.any()) or step == max_new_tokens - 1:
                break
            past = out.past_key_values
            if past.get_seq_length() < 2:   # the decode step's past starts at 2 (torch.export)
                out = self.prefill(ids)
            else:
                out = self.decode(token[:, None], past_key_values=past)
        return ids


def compile_generation(model: torch.nn.Module, *, max_batch: int = 8, max_length: int | None = None,
                       target: str = "cpu", target_arch: str | None = None,
                       options: dict | None = None, verbose: bool = False) -> CompiledGenerator:
    """Compiles a transformers causal LM (default config, cache on) for greedy generation:
    one compile of the prefill and one of the decode step, each for every batch in
    [1, max_batch] and every length up to max_length.

    Args:
      model: a causal LM whose forward takes `input_ids` and `past_key_values` and returns
        `logits` and `past_key_values` (a DynamicCache of full-attention or sliding-window
        layers: GPT-2, Llama, Qwen2, Mistral, Gemma 3, ...).
      max_batch: the largest batch.
      max_length: the longest prompt + generated tokens; default: the model's position limit
        (`max_position_embeddings` / `n_positions`), and below the smallest sliding window of a
        model with sliding-window layers (Mistral, Gemma 3: 4095 for a window of 4096).
      target, target_arch, options, verbose: as for symhlo.compile.
    Returns:
      a CompiledGenerator (`.generate(ids, max_new_tokens)`, or call it like the model).
    Raises:
      ValueError: max_length reaches a sliding window of the model.
      SymhloError: the model has no known position limit and no max_length is given; errors of
      symhlo.compile (e.g. UnsupportedOpError for a cache layer that cannot cross the boundary).
    """
    from torch.export import Dim

    config = getattr(model, "config", None)
    explicit = max_length is not None
    max_length = max_length or (_max_positions(config) if config is not None else None)
    if not max_length:
        raise SymhloError("compile_generation needs max_length= (the model's config names no "
                          "position limit)")
    if max_length < _EXAMPLE_SEQ + 1 or max_batch < 1:
        raise ValueError(f"max_length must be >= {_EXAMPLE_SEQ + 1} and max_batch >= 1")
    model = model.eval()
    vocab = getattr(config, "vocab_size", None) or 2
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, vocab, (_EXAMPLE_BATCH, _EXAMPLE_SEQ), generator=g)
    with torch.no_grad():
        past = model(ids).past_key_values
    if past is None:
        raise SymhloError(f"{type(model).__name__} returned no past_key_values: generation needs "
                          "the cache on (config.use_cache=True)")
    # A sliding-window layer crosses the boundary while it holds fewer tokens than its window
    # (contract.containers): the sequence stays below the smallest window.
    windows = [layer.sliding_window for layer in getattr(past, "layers", [])
               if isinstance(getattr(layer, "sliding_window", None), int)]
    if windows and max_length > min(windows) - 1:
        if explicit:
            raise ValueError(f"max_length {max_length} reaches the model's sliding window "
                             f"({min(windows)}): a sliding-window cache crosses the compiled "
                             f"boundary up to {min(windows) - 1} tokens")
        max_length = min(windows) - 1
    batch = Dim("batch", min=1, max=max(max_batch, _EXAMPLE_BATCH))
    common = dict(target=target, target_arch=target_arch, options=options, verbose=verbose)
    prefill = _compile(model, (ids,), dynamic_shapes={"input_ids": {0: batch, 1: Dim(
        "seq", min=1, max=max_length)}}, **common)
    # The past length is Dim.AUTO: with a named Dim torch.export refuses the guard GQA's
    # repeat_kv reshape adds (Min(8*p + 8, 16*p + 16) == 8*p + 8, true for every p >= 0), and
    # AUTO keeps it dynamic from 2 (each layer's length its own symbol, tied by relations).
    leaves = len(torch.utils._pytree.tree_leaves(past))
    past_dims = [{0: batch, 2: Dim.AUTO(min=2, max=max_length - 1)}] * leaves
    step_ids = ids[:, :1]
    decode = _compile(model, (step_ids,), kwargs={"past_key_values": past},
                      dynamic_shapes={"input_ids": {0: batch}, "past_key_values": past_dims},
                      **common)
    gen_config = getattr(model, "generation_config", None)
    eos = getattr(gen_config, "eos_token_id", None)
    eos = [] if eos is None else [eos] if isinstance(eos, int) else list(eos)
    pad = getattr(gen_config, "pad_token_id", None)
    if pad is None and eos:
        pad = eos[0]          # as generate does
    return CompiledGenerator(prefill, decode, max_batch=max_batch, max_length=max_length,
                             eos_token_ids=eos, pad_token_id=pad)
