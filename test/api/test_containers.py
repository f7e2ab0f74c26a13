"""symhlo.contract.containers without a compile: transformers' caches as pytree nodes (flatten,
unflatten, the saved treespec) and the container names a saved module gives, resolved or refused.
The compiled round trips are in test/models/test_default_cache.py."""

from __future__ import annotations

import pytest
import torch
import torch.utils._pytree as pytree
import transformers

import symhlo
from symhlo.contract.containers import register_containers, resolve_type_names
from symhlo.contract.signature import treespec_loads


def _kv(seed, length=3):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(2, 4, length, 8, generator=g), torch.randn(2, 4, length, 8, generator=g)


def _filled_cache(layers=2):
    cache = transformers.DynamicCache()
    for k in range(layers):
        cache.update(*_kv(k), k)
    return cache


def test_dynamic_cache_round_trip():
    register_containers()
    cache = _filled_cache()
    leaves, spec = pytree.tree_flatten(cache)
    assert len(leaves) == 4 and leaves[0] is cache.layers[0].keys and leaves[3] is cache.layers[1].values
    back = pytree.tree_unflatten([t + 1 for t in leaves], spec)
    assert type(back) is transformers.DynamicCache and back.get_seq_length() == 3
    assert torch.equal(back.layers[1].values, cache.layers[1].values + 1)
    back.update(*_kv(5, 1), 0)            # the rebuilt cache keeps working as a cache
    assert back.layers[0].keys.shape[2] == 4
    # the spec survives a file: what symhlo.load reads equals what tracing made
    assert treespec_loads(pytree.treespec_dumps(spec), strict=True) == spec
    paths = [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path(cache)[0]]
    assert paths == [".layer0_keys", ".layer0_values", ".layer1_keys", ".layer1_values"]


def test_encoder_decoder_cache_round_trip():
    register_containers()
    cache = transformers.EncoderDecoderCache(_filled_cache(), _filled_cache(1))
    leaves, spec = pytree.tree_flatten(cache)
    assert len(leaves) == 6
    back = pytree.tree_unflatten(leaves, spec)
    assert type(back) is transformers.EncoderDecoderCache
    assert back.is_updated == {0: True}
    assert back.cross_attention_cache.layers[0].keys is cache.cross_attention_cache.layers[0].keys
    assert treespec_loads(pytree.treespec_dumps(spec), strict=True) == spec


def test_sliding_window_layer_crosses_below_its_window_only():
    register_containers()
    cache = transformers.DynamicCache(config=transformers.MistralConfig(
        hidden_size=32, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
        sliding_window=5))
    cache.update(*_kv(0, 3), 0)                       # 3 tokens of a window of 5
    leaves, spec = pytree.tree_flatten(cache)
    assert spec.context == ("window5",)
    back = pytree.tree_unflatten(leaves, spec)
    layer = back.layers[0]
    assert type(layer) is transformers.cache_utils.DynamicSlidingWindowLayer
    assert (layer.sliding_window, layer.cumulative_length) == (5, 3)
    assert treespec_loads(pytree.treespec_dumps(spec), strict=True) == spec
    cache.update(*_kv(1, 2), 0)                       # 5 tokens: the keys keep the last 4
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"a DynamicSlidingWindowLayer past its window \(sliding_window=5: its "
                             r"keys hold the last 4 of 5 tokens\)"):
        pytree.tree_flatten(cache)


def test_unimportable_container_is_refused_naming_class_and_module():
    with pytest.raises(symhlo.SymhloError,
                       match=r"hold a Out \(class 'Out' from module 'symhlo_no_such_pkg\.outputs'\), "
                             r"which this process cannot restore: no module named "
                             r"'symhlo_no_such_pkg' is installed"):
        resolve_type_names(["symhlo_no_such_pkg.outputs.Out"], strict=True)


def test_module_that_does_not_register_the_class_is_refused():
    with pytest.raises(symhlo.SymhloError,
                       match=r"module 'json\.decoder' was imported, but it does not register "
                             r"JSONDecoder as a pytree node"):
        resolve_type_names(["json.decoder.JSONDecoder"], strict=True)


def test_not_strict_imports_nothing_and_stands_in(monkeypatch):
    import importlib

    monkeypatch.setattr(importlib, "import_module", lambda *a: pytest.fail("imported a module"))
    resolve_type_names(["symhlo_no_such_pkg2.outputs.Out"], strict=False)
    cls = pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE["symhlo_no_such_pkg2.outputs.Out"]
    assert cls.__name__ == "Out" and issubclass(cls, dict)


def test_spec_difference_names_the_argument():
    from symhlo.contract.signature import spec_difference

    register_containers()
    ids = torch.zeros(2, 1, dtype=torch.long)
    _, got = pytree.tree_flatten(((ids,), {"past_key_values": _filled_cache(1)}))
    _, want = pytree.tree_flatten(((ids,), {"past_key_values": _filled_cache(2)}))
    assert spec_difference(got, want, ["input_ids", "past_key_values"]) == (
        "past_key_values: a DynamicCache with ('kv',), the program was exported with ('kv', 'kv')")
    _, got = pytree.tree_flatten((([ids],), {}))
    _, want = pytree.tree_flatten((((ids, ids),), {}))
    assert spec_difference(got, want, ["x"]) == "x: a list, the program takes a tuple"
