"""symhlo.Input ranges over which torch.export cannot prove its own guards.

torch.export refuses a named Dim when it cannot prove a guard for every size in the Dim's range
(GQA's key repeat over a concatenated KV cache guards `Min(8*L + 8, 16*L + 16) == 8*L + 8`, true
for every L >= 0). symhlo.compile(inputs=...) then exports those Dims as Dim.AUTO of the same
range and keeps the program only where it proves what torch.export could not: every guard holds
for every size of the Inputs' ranges, and the axes stay free sizes over the whole range.
Elsewhere it refuses with torch.export's error and the reason.
"""

import pytest
import torch

import symhlo


class RepeatedKeys(torch.nn.Module):
    """A decode step's scores: the new keys appended to the cache, each key head repeated for
    two query heads (transformers' repeat_kv)."""

    def forward(self, q, past):
        k = torch.cat([past, q[:, :2]], dim=2)
        b, h, n, d = k.shape
        k = k[:, :, None].expand(b, h, 2, n, d).reshape(b, h * 2, n, d)
        return q @ k.transpose(-1, -2)


def _cache_inputs(max_len=1023, extra=(), opt_len=16, min_len=2):
    return [symhlo.Input(min_shape=(1, 4, 1, 8), opt_shape=(2, 4, 1, 8), max_shape=(8, 4, 1, 8),
                         dims=("b", None, None, None), name="q"),
            symhlo.Input(min_shape=(1, 2, min_len, 8), opt_shape=(2, 2, opt_len, 8), max_shape=(8, 2, max_len, 8),
                         dims=("b", None, "L", None), name="past"), *extra]


def test_torch_export_alone_refuses_the_named_range():
    from torch.export import Dim

    b, n = Dim("b", min=1, max=8), Dim("L", min=2, max=1023)
    with pytest.raises(Exception, match=r"Constraints violated \(L\)"):
        torch.export.export(RepeatedKeys(), (torch.randn(2, 4, 1, 8), torch.randn(2, 2, 16, 8)),
                            dynamic_shapes=({0: b}, {0: b, 2: n}))


def test_repeated_keys_over_a_cache_compile_for_the_whole_range():
    cm = symhlo.compile(RepeatedKeys(), inputs=_cache_inputs(), target="cpu")
    for b, n in [(1, 2), (3, 100), (8, 1023), (2, 16)]:
        q, past = torch.randn(b, 4, 1, 8), torch.randn(b, 2, n, 8)
        torch.testing.assert_close(cm(q, past), RepeatedKeys()(q, past), rtol=1e-5, atol=1e-5)
    with pytest.raises(symhlo.ShapeError, match=r"past: axis 2 is 1024, above max 1023 of 'L'"):
        cm(torch.randn(1, 4, 1, 8), torch.randn(1, 2, 1024, 8))
    with pytest.raises(symhlo.ShapeError, match=r"'b'"):
        cm(torch.randn(2, 4, 1, 8), torch.randn(3, 2, 16, 8))


def test_a_one_token_cache_and_an_unbounded_one():
    """Dim.AUTO starts at 2 (torch.export's 0/1 specialization); the Input's min 1 stands, as a
    named Dim's would over the same graph; the guard sympy proves needs no bound."""
    cm = symhlo.compile(RepeatedKeys(), inputs=_cache_inputs(max_len=None, min_len=1), target="cpu")
    for b, n in [(1, 1), (2, 5000)]:
        q, past = torch.randn(b, 4, 1, 8), torch.randn(b, 2, n, 8)
        torch.testing.assert_close(cm(q, past), RepeatedKeys()(q, past), rtol=1e-5, atol=1e-5)


class GuardedUpTo100(torch.nn.Module):
    def forward(self, q, past):
        n = past.shape[2]
        y = RepeatedKeys()(q, past)
        return y * 2 if min(200 - n, n) == n else y * 3   # n <= 100


class EvenOnly(torch.nn.Module):
    def forward(self, q, past):
        y = RepeatedKeys()(q, past)
        return y * 2 if past.shape[2] % 2 == 0 else y * 3


@pytest.mark.parametrize("model, reason", [
    (GuardedUpTo100(), r"torch.export relies on '.*', false at (b = 1, )?L = 101"),
    (EvenOnly(), r"torch.export relies on '.*', false at (b = 1, )?L = 3"),
])
def test_a_guard_false_for_a_size_in_range_is_refused(model, reason):
    with pytest.raises(symhlo.SymhloError, match=r"(?s)Constraints violated.*Dim.AUTO over the same "
                                                 r"range instead, which does not serve it: " + reason):
        symhlo.compile(model, inputs=_cache_inputs(), target="cpu")


def test_a_guard_over_an_unbounded_range_sympy_cannot_prove_is_refused():
    with pytest.raises(symhlo.SymhloError, match=r"(?s)Constraints violated.*torch.export relies on "
                                                 r"'.*', which symhlo cannot check for every size in "
                                                 r"range \(unbounded\)"):
        symhlo.compile(EvenOnly(), inputs=_cache_inputs(max_len=None), target="cpu")


class FixedLength(torch.nn.Module):
    def forward(self, q, past):
        return RepeatedKeys()(q, past) + torch.ones(129)   # the keys must be 129: past is 128


def test_a_length_the_model_fixes_is_refused():
    with pytest.raises(symhlo.SymhloError, match=r"(?s)Constraints violated.*past axis 2 \('L', "
                                                 r"\[2, 1023\]\): torch.export specializes it to 128"):
        symhlo.compile(FixedLength(), inputs=_cache_inputs(opt_len=128), target="cpu")


class WithMask(torch.nn.Module):
    """`mask` shares the cache's length L by name only: the model never ties the two."""

    def forward(self, q, past, mask):
        return RepeatedKeys()(q, past), mask * 2


def test_a_shared_name_stays_one_size_across_inputs():
    mask = symhlo.Input(min_shape=(2,), opt_shape=(16,), max_shape=(1023,), dims=("L",), name="mask")
    cm = symhlo.compile(WithMask(), inputs=_cache_inputs(extra=[mask]), target="cpu")
    q, past = torch.randn(2, 4, 1, 8), torch.randn(2, 2, 40, 8)
    got, want = cm(q, past, torch.randn(40)), None
    want = WithMask()(q, past, torch.zeros(40))
    torch.testing.assert_close(got[0], want[0], rtol=1e-5, atol=1e-5)
    with pytest.raises(symhlo.ShapeError, match=r"break 'L == L_\d+'.*L_\d+ = 41 from mask: axis 0"):
        cm(q, past, torch.randn(41))


class LlamaStep(torch.nn.Module):
    """A transformers Llama decode step with its KV cache as one tensor (2, layers, batch,
    kv_heads, past, head_dim), as a Torch-TensorRT-style user wraps it for symhlo.Input."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, ids, past):
        import transformers

        cache = transformers.DynamicCache(config=self.lm.config)
        for layer in range(past.shape[1]):
            cache.update(past[0, layer], past[1, layer], layer)
        out = self.lm(input_ids=ids, past_key_values=cache, use_cache=True)
        keys = torch.stack([c.keys for c in cache.layers])
        values = torch.stack([c.values for c in cache.layers])
        return out.logits[:, -1], torch.stack([keys, values])


def test_a_transformers_llama_decode_step_over_input_ranges():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    lm = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)).eval()
    step = LlamaStep(lm)
    inputs = [symhlo.Input(min_shape=(1, 1), opt_shape=(2, 1), max_shape=(4, 1), dims=("batch", None),
                           dtype=torch.int64, name="ids"),
              symhlo.Input(min_shape=(2, 2, 1, 2, 2, 8), opt_shape=(2, 2, 2, 2, 16, 8),
                           max_shape=(2, 2, 4, 2, 200, 8), dims=(None, None, "batch", None, "past", None),
                           name="past")]
    cm = symhlo.compile(step, inputs=inputs, target="cpu")
    for b, p in [(1, 2), (3, 57), (4, 200)]:
        ids, past = torch.randint(1, 128, (b, 1)), torch.randn(2, 2, b, 2, p, 8)
        with torch.no_grad():
            want = step(ids, past)
        got = cm(ids, past)
        assert got[1].shape == (2, 2, b, 2, p + 1, 8)
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    with pytest.raises(symhlo.ShapeError, match=r"axis 4 is 201, above max 200 of 'past'"):
        cm(torch.randint(1, 128, (1, 1)), torch.randn(2, 2, 1, 2, 201, 8))


def test_a_shared_name_takes_the_intersection_of_its_ranges():
    """`L` is [2, 1023] on the cache and [2, 500] on the mask: one symbol over [2, 500] (as
    symbol_ranges makes the Dim), not a refusal for the cache's wider range."""
    mask = symhlo.Input(min_shape=(2,), opt_shape=(16,), max_shape=(500,), dims=("L",), name="mask")
    cm = symhlo.compile(WithMask(), inputs=_cache_inputs(extra=[mask]), target="cpu")
    q, past = torch.randn(1, 4, 1, 8), torch.randn(1, 2, 500, 8)
    torch.testing.assert_close(cm(q, past, torch.randn(500))[0], RepeatedKeys()(q, past),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(symhlo.ShapeError, match=r"above max 500"):
        cm(q, torch.randn(1, 2, 501, 8), torch.randn(501))
