"""Stock causal LMs with their default configs (cache on) through symhlo.compile directly, no
wrapper: the model's DynamicCache crosses the compiled boundary as outputs (the prefill) and as
inputs (the decode step), and comes back as a DynamicCache inside the same ModelOutput class.

Per family, one compile of the prefill (`model(input_ids)`, batch and seq dynamic) and one of the
decode step (`model(input_ids, past_key_values=cache)`, batch and past length dynamic), shared by
every test (module-scoped). Llama's pair (and Mistral's, sliding-window layers, under
SYMHLO_MODELS_ALL=1) is built by `symhlo.compile_generation`, which calls symhlo.compile on the
model in the same way; GPT-2's by symhlo.compile here. Each is compared with
eager at 3 sizes; greedy generation is compared with `model.generate(do_sample=False)` at two
prompt lengths (one of length 1: the decode step's past starts at 2, so the loop re-runs the
prefill there); a saved module is loaded in a fresh process that has not imported transformers.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
import textwrap

import pytest
import torch
import transformers
from torch.export import Dim

import symhlo
from models_harness import randint, randn

VOCAB = 128
MAX_LEN = 64


def _llama():
    return transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=MAX_LEN))


def _gpt2():
    return transformers.GPT2LMHeadModel(transformers.GPT2Config(
        vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=MAX_LEN))


def _compile_pair(lm):
    """symhlo.compile on the stock model: the prefill and the decode step."""
    batch = Dim("batch", min=1, max=8)
    ids = randint(VOCAB, 2, 3, seed=1)
    prefill = symhlo.compile(lm, (ids,), dynamic_shapes={"input_ids": {0: batch, 1: Dim("seq", min=1, max=MAX_LEN)}})
    with torch.no_grad():
        past = lm(ids).past_key_values
    assert type(past) is transformers.DynamicCache   # the default config's cache
    dims = [{0: batch, 2: Dim.AUTO(min=2, max=MAX_LEN - 1)}] * (2 * len(past.layers))
    decode = symhlo.compile(lm, (ids[:, :1],), kwargs={"past_key_values": past},
                            dynamic_shapes={"input_ids": {0: batch}, "past_key_values": dims})
    return prefill, decode


def _mistral():
    """Mistral's default config has sliding-window layers (window 4096): its cache crosses the
    boundary below the window (compile_generation keeps max_length there)."""
    return transformers.MistralForCausalLM(transformers.MistralConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2))


# Mistral (two more compiles) runs with SYMHLO_MODELS_ALL=1, as test_more_families' extra families.
FAMILIES = ["gpt2", "llama"] + (["mistral"] if os.environ.get("SYMHLO_MODELS_ALL") == "1" else [])


@pytest.fixture(scope="module", params=FAMILIES)
def family(request):
    torch.manual_seed(0)
    # Compiled with grad enabled, as a user would: Llama's rotary embedding runs under
    # @torch.no_grad(), a grad-mode region in the exported program.
    torch.set_grad_enabled(True)
    if request.param == "gpt2":
        lm = _gpt2().eval()
        prefill, decode = _compile_pair(lm)
        gen = symhlo.CompiledGenerator(prefill, decode, max_batch=8, max_length=MAX_LEN,
                                       eos_token_ids=[], pad_token_id=None)
    else:
        lm = (_llama() if request.param == "llama" else _mistral()).eval()
        gen = symhlo.compile_generation(lm, max_length=MAX_LEN)
    return request.param, lm, gen


def _assert_cache_equal(got, want):
    assert type(got) is type(want)
    assert len(got.layers) == len(want.layers)
    for g, w in zip(got.layers, want.layers):
        assert type(g) is type(w)
        torch.testing.assert_close(g.keys, w.keys, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(g.values, w.values, rtol=1e-5, atol=1e-5)
    assert got.get_seq_length() == want.get_seq_length()


def _assert_output_equal(got, want):
    assert type(got) is type(want), f"{type(got).__name__} != {type(want).__name__}"
    assert list(got.keys()) == list(want.keys())
    torch.testing.assert_close(got.logits, want.logits, rtol=1e-5, atol=1e-5)
    _assert_cache_equal(got.past_key_values, want.past_key_values)


@pytest.mark.parametrize("b,s", [(1, 1), (2, 13), (5, 4)])
def test_prefill_returns_the_cache(family, b, s):
    _, lm, gen = family
    ids = randint(VOCAB, b, s, seed=b * 100 + s)
    with torch.no_grad():
        want = lm(ids)
    _assert_output_equal(gen.prefill(ids), want)


@pytest.mark.parametrize("b,p", [(1, 2), (2, 9), (4, 3), (8, 5)])
def test_decode_takes_the_cache(family, b, p):
    """cm(ids) then cm(next_ids, past_key_values=out.past_key_values), as eager."""
    _, lm, gen = family
    ids = randint(VOCAB, b, p, seed=b + p)
    nxt = randint(VOCAB, b, 1, seed=b * p)
    out = gen(ids)                                        # the compiled prefill's DynamicCache
    with torch.no_grad():
        eager = lm(ids)
        want = lm(nxt, past_key_values=copy.deepcopy(eager.past_key_values))
    got = gen(nxt, past_key_values=out.past_key_values)  # the decode step
    _assert_output_equal(got, want)
    # and a cache built by hand binds the same way
    cache = transformers.DynamicCache(config=lm.config)
    for k, layer in enumerate(eager.past_key_values.layers):
        cache.update(layer.keys, layer.values, k)
    _assert_output_equal(gen.decode(nxt, past_key_values=cache), want)


def test_decode_refuses_a_cache_outside_its_contract(family):
    _, lm, gen = family
    heads = lm.config.num_key_value_heads if hasattr(lm.config, "num_key_value_heads") else lm.config.n_head
    nxt = randint(VOCAB, 2, 1, seed=3)

    def cache(lengths, config=lm.config):
        c = transformers.DynamicCache(config=config)
        for k, n in enumerate(lengths):
            c.update(randn(2, heads, n, 8, seed=k), randn(2, heads, n, 8, seed=k + 9), k)
        return c

    kinds = tuple(gen.decode.in_spec.child(1).child(0).context)    # ('kv', 'kv') for GPT-2
    with pytest.raises(symhlo.ShapeError, match=r"nested differently from the exported ones \(past_key_values: a "
                       rf"DynamicCache with \('kv',\), the program was exported with {re.escape(str(kinds))}\)"):
        gen.decode(nxt, past_key_values=cache([5], config=None))      # one layer, not two
    with pytest.raises(symhlo.ShapeError, match="past_key_values_layer1"):  # layers disagree
        gen.decode(nxt, past_key_values=cache([5, 6]))
    with pytest.raises(symhlo.ShapeError, match="above max"):            # past beyond max_length
        gen.decode(nxt, past_key_values=cache([MAX_LEN, MAX_LEN]))


@pytest.mark.parametrize("b,s", [(2, 5), (1, 1)])
def test_greedy_generation_equals_generate(family, b, s):
    _, lm, gen = family
    ids = randint(VOCAB, b, s, seed=10 * b + s)
    got = gen.generate(ids, max_new_tokens=9)
    with torch.no_grad():
        want = lm.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=9,
                           do_sample=False)
    assert torch.equal(got, want), f"prompt {b}x{s}: symhlo {got.tolist()} != eager {want.tolist()}"


def test_generate_refuses_past_max_length(family):
    _, _, gen = family
    with pytest.raises(symhlo.ShapeError, match="above max_length 64"):
        gen.generate(randint(VOCAB, 1, 60), max_new_tokens=5)


_FRESH = textwrap.dedent("""
    import sys, torch
    blocked = sys.argv[3] == "blocked"
    if blocked:   # this process cannot import transformers at all
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "transformers":
                    raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)")
        sys.meta_path.insert(0, Block())
    import symhlo
    assert "transformers" not in sys.modules
    ids = torch.load(sys.argv[2])
    try:
        cm = symhlo.load(sys.argv[1])
    except symhlo.SymhloError as e:
        print("REFUSED", e)
        cm = symhlo.load(sys.argv[1], containers="standin")
        out = cm(ids)
        print("STANDIN", type(out).__name__, sorted(out), type(out["past_key_values"]).__name__)
        sys.exit(0)
    out = cm(ids)
    print("CLASS", type(out).__module__, type(out).__name__, type(out.past_key_values).__name__)
    torch.save({"logits": out.logits, "keys": out.past_key_values.layers[1].keys}, sys.argv[4])
""")


def test_load_in_a_fresh_process(family, tmp_path):
    """The saved module's ModelOutput and DynamicCache come back as those classes in a process
    that has not imported transformers (symhlo.load imports their modules), and a process that
    cannot import transformers is refused naming the class and the module."""
    name, lm, gen = family
    path, ids_path, res_path = tmp_path / "m.symhlo", tmp_path / "ids.pt", tmp_path / "out.pt"
    gen.prefill.save(path)
    ids = randint(VOCAB, 3, 7, seed=5)
    torch.save(ids, ids_path)
    torch.set_grad_enabled(False)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}

    def run(mode):
        r = subprocess.run([sys.executable, "-c", _FRESH, str(path), str(ids_path), mode, str(res_path)],
                           capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        return r.stdout

    out_class = type(lm(ids[:, :1])).__name__   # CausalLMOutputWithCrossAttentions for GPT-2
    out = run("fresh")
    assert f"CLASS transformers.modeling_outputs {out_class} DynamicCache" in out, out
    want = lm(ids)
    got = torch.load(res_path)
    torch.testing.assert_close(got["logits"], want.logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(got["keys"], want.past_key_values.layers[1].keys, rtol=1e-5, atol=1e-5)

    torch.set_grad_enabled(True)
    if name != "gpt2":
        return   # one family covers the refusal (a subprocess each)
    out = run("blocked")
    assert ("REFUSED the saved module's outputs (or inputs) hold a DynamicCache (class "
            "'DynamicCache' from module 'transformers.cache_utils'), a "
            f"{out_class} (class '{out_class}' from module 'transformers.modeling_outputs'), "
            "which this process cannot restore: importing 'transformers.cache_utils' failed: "
            "No module named") in out, out
    assert f"STANDIN {out_class} ['logits', 'past_key_values'] DynamicCache" in out, out


if os.environ.get("SYMHLO_MODELS_ALL") == "1":   # one more compile (T5: about 90 s on 2 busy cores)
    def test_t5_returns_its_encoder_decoder_cache():
        """T5 with its default config returns an EncoderDecoderCache (self-attention and
        cross-attention DynamicCaches): out of the compiled module as the same classes."""
        torch.manual_seed(0)
        m = transformers.T5ForConditionalGeneration(transformers.T5Config(
            vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
            decoder_start_token_id=0)).eval()
        b = Dim("batch", min=1, max=8)
        cm = symhlo.compile(m, (), kwargs={"input_ids": randint(VOCAB, 2, 5), "decoder_input_ids": randint(VOCAB, 2, 3)},
                            dynamic_shapes={"input_ids": {0: b, 1: Dim("seq", min=2, max=32)},
                                            "decoder_input_ids": {0: b, 1: Dim("dseq", min=2, max=32)}})
        for bb, s, d in [(1, 4, 2), (3, 9, 5), (8, 32, 32)]:
            call = dict(input_ids=randint(VOCAB, bb, s), decoder_input_ids=randint(VOCAB, bb, d))
            got = cm(**call)
            with torch.no_grad():
                want = m(**call)
            assert type(got) is type(want) and type(got.past_key_values) is transformers.EncoderDecoderCache
            torch.testing.assert_close(got.logits, want.logits, rtol=1e-5, atol=1e-5)
            _assert_cache_equal(got.past_key_values.self_attention_cache, want.past_key_values.self_attention_cache)
            _assert_cache_equal(got.past_key_values.cross_attention_cache, want.past_key_values.cross_attention_cache)
            assert got.past_key_values.is_updated == want.past_key_values.is_updated
