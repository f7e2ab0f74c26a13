"""Containers that cross the compiled boundary as pytrees (floor 1, contract): transformers' KV
caches registered as pytree nodes, and the container types a saved module names, resolved on load.

A `DynamicCache` flattens to its per-layer key and value tensors (`layer0_keys`,
`layer0_values`, ...) and unflattens to a `DynamicCache` again, so a causal LM with its default
config (cache on) exports, returns its cache as outputs of @main, and takes one back as inputs:

    out = cm(ids)                                            # out.past_key_values: DynamicCache
    cm_step(next_ids, past_key_values=out.past_key_values)   # 2 tensors per layer in @main

`EncoderDecoderCache` flattens to its two DynamicCaches. The context of a cache node (the layer
kinds) is plain JSON, so the treespec is saved with the
module and restored by `symhlo.load`. A sliding-window layer (Mistral's, Gemma's) crosses while
it holds fewer tokens than its window, when its running length is its keys' length. Layers whose
state is not their tensors alone (a sliding window past its window, offloading, quantized or
static layers) are refused by name: carrying that state as compile-time constants would be
silently wrong on the next call.

A saved module names its output (and input) containers by pytree serialized type name, e.g.
`transformers.modeling_outputs.CausalLMOutputWithPast`. `resolve_type_names` imports the module
that defines each class (an installed module, never code from the file) so the call returns the
same class as eager, and refuses, naming the class and module, a class it cannot import.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import sys
from typing import Iterable

from ..errors import SymhloError, UnsupportedOpError
from .standins import StandIn, register_standins

_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")
_CACHE_MODULE = "transformers.cache_utils"
_WINDOW = re.compile(r"window([1-9]\d{0,9})(?:-empty)?")
_KIND = re.compile(r"kv|empty|window[1-9]\d{0,9}(?:-empty)?")


# -- transformers' caches as pytree nodes ----------------------------------------------------------

def _refuse_layer(cache, layer, why: str = "") -> UnsupportedOpError:
    what = type(layer).__name__
    return UnsupportedOpError(
        f"{type(cache).__name__} layer {what}{why} cannot cross a compiled boundary: symhlo "
        "carries cache layers whose state is their key and value tensors (DynamicLayer, and "
        "DynamicSlidingWindowLayer until its window fills). Use a config without static/quantized "
        "cache layers, or keep the cache inside the model")


def _window_kind(layer) -> str:
    """The context entry of a sliding-window layer, refusing one whose state is more than its
    tensors: past its window the keys hold the last window-1 tokens of a longer running length
    (a Python int, which would be frozen into the program)."""
    if getattr(layer, "record_past", False):
        raise _refuse_layer(layer, layer, " (recording its past for a rollback)")
    if layer.keys is None or not layer.is_initialized:
        return f"window{layer.sliding_window}-empty"
    held = layer.keys.shape[-2] if hasattr(layer.keys, "shape") else None   # None: a placeholder
    seen = layer.cumulative_length
    if isinstance(seen, int) and isinstance(held, int) and seen != held:
        raise UnsupportedOpError(
            f"a DynamicSlidingWindowLayer past its window (sliding_window={layer.sliding_window}: "
            f"its keys hold the last {held} of {seen} tokens) cannot cross a compiled boundary: "
            "its running length is a Python int, not a tensor. symhlo carries sliding-window "
            f"layers up to {layer.sliding_window - 1} tokens (compile_generation caps max_length "
            "there)")
    return f"window{layer.sliding_window}"


def _flatten_dynamic_cache(cache):
    """DynamicCache -> ([layer0.keys, layer0.values, ...], layer kinds).

    A layer is "kv" (a DynamicLayer holding keys and values), "window<W>" (a
    DynamicSlidingWindowLayer of window W below its window: its running length is its keys'
    length), or one of those plus "-empty" ("empty" for a DynamicLayer) when not yet filled. How
    the cache was built (from a config, or empty to grow as layers are updated) is not part of
    the context: both behave alike once filled, and a call passes either."""
    from transformers.cache_utils import DynamicLayer, DynamicSlidingWindowLayer

    if getattr(cache, "offloading", False):
        raise UnsupportedOpError(f"{type(cache).__name__}(offloading=True) cannot cross a compiled "
                                 "boundary (its layers move between devices); use offloading=False")
    kinds, leaves = [], []
    for layer in cache.layers:
        if type(layer) is DynamicSlidingWindowLayer:
            kind = _window_kind(layer)
        elif type(layer) is DynamicLayer:
            kind = "kv" if layer.keys is not None and layer.is_initialized else "empty"
        else:
            raise _refuse_layer(cache, layer)
        kinds.append(kind)
        if not kind.endswith("empty"):
            leaves += [layer.keys, layer.values]
    return leaves, tuple(kinds)


def _flatten_dynamic_cache_with_keys(cache):
    import torch.utils._pytree as pytree

    leaves, context = _flatten_dynamic_cache(cache)
    filled = [k for k, kind in enumerate(context) if not kind.endswith("empty")]
    keys = [pytree.GetAttrKey(f"layer{k}_{part}") for k in filled for part in ("keys", "values")]
    return list(zip(keys, leaves)), context


def _unflatten_dynamic_cache(leaves, kinds):
    """The inverse of _flatten_dynamic_cache: builds the layers directly (no ops), so a traced
    input cache adds nothing to the graph. A cache with no layers grows as it is updated, as
    `DynamicCache()` does; one with layers is fixed, as `DynamicCache(config=...)` is."""
    from transformers.cache_utils import DynamicCache, DynamicLayer, DynamicSlidingWindowLayer

    leaves = list(leaves)
    cache = DynamicCache()            # layer_class_to_replicate=DynamicLayer, no layers
    layers = []
    for kind in kinds:
        window = _WINDOW.fullmatch(kind)
        if window:
            layer = DynamicSlidingWindowLayer(sliding_window=int(window.group(1)))
        else:
            layer = DynamicLayer()
        if not kind.endswith("empty"):
            layer.keys, layer.values = leaves.pop(0), leaves.pop(0)
            # (leaves are not always tensors: pytree users unflatten placeholders to name paths)
            layer.dtype = getattr(layer.keys, "dtype", None)
            layer.device = getattr(layer.keys, "device", None)
            layer.is_initialized = True
            if window:   # below its window: the running length is the keys' length
                layer.cumulative_length = layer.keys.shape[-2] if hasattr(layer.keys, "shape") else 0
        layers.append(layer)
    cache.layers = layers
    cache.layer_class_to_replicate = None if layers else DynamicLayer
    return cache


def _dynamic_cache_context_dumps(kinds) -> str:
    return json.dumps({"layers": list(kinds)})


def _dynamic_cache_context_loads(text: str):
    data = json.loads(text)
    kinds = data.get("layers") if isinstance(data, dict) else None
    if not (isinstance(kinds, list) and all(isinstance(k, str) and _KIND.fullmatch(k) for k in kinds)):
        raise ValueError(f"malformed DynamicCache context {text[:80]!r}")
    return tuple(kinds)


def _flatten_encoder_decoder_cache(cache):
    flags = tuple(bool(cache.is_updated.get(k, False)) for k in range(len(cache.cross_attention_cache)))
    return [cache.self_attention_cache, cache.cross_attention_cache], flags


def _flatten_encoder_decoder_cache_with_keys(cache):
    import torch.utils._pytree as pytree

    children, flags = _flatten_encoder_decoder_cache(cache)
    keys = [pytree.GetAttrKey("self_attention_cache"), pytree.GetAttrKey("cross_attention_cache")]
    return list(zip(keys, children)), flags


def _unflatten_encoder_decoder_cache(children, flags):
    from transformers.cache_utils import EncoderDecoderCache

    cache = EncoderDecoderCache.__new__(EncoderDecoderCache)
    cache.self_attention_cache, cache.cross_attention_cache = children
    cache.is_updated = dict(enumerate(flags))
    return cache


def _flags_loads(text: str):
    data = json.loads(text)
    if not (isinstance(data, list) and all(isinstance(f, bool) for f in data)):
        raise ValueError(f"malformed EncoderDecoderCache context {text[:80]!r}")
    return tuple(data)


def register_containers() -> list[str]:
    """Registers transformers' DynamicCache and EncoderDecoderCache as pytree nodes when
    transformers is imported (symhlo never imports transformers itself, only its cache module
    once the package is loaded).

    A class some other code already registered (e.g. transformers' own
    `register_dynamic_cache_export_support`) keeps that registration.

    Returns:
      the serialized type names registered now.
    """
    if "transformers" not in sys.modules:
        return []
    # transformers imports its submodules lazily: the cache module may not be loaded yet
    mod = sys.modules.get(_CACHE_MODULE) or importlib.import_module(_CACHE_MODULE)
    import torch.utils._pytree as pytree

    done = []
    table = [
        ("DynamicCache", _flatten_dynamic_cache, _unflatten_dynamic_cache,
         _flatten_dynamic_cache_with_keys, _dynamic_cache_context_dumps, _dynamic_cache_context_loads),
        ("EncoderDecoderCache", _flatten_encoder_decoder_cache, _unflatten_encoder_decoder_cache,
         _flatten_encoder_decoder_cache_with_keys, json.dumps, _flags_loads),
    ]
    for name, flatten, unflatten, with_keys, dumps, loads in table:
        cls = getattr(mod, name, None)
        if cls is None or cls in pytree.SUPPORTED_NODES:
            continue
        pytree.register_pytree_node(
            cls, flatten, unflatten, serialized_type_name=f"{_CACHE_MODULE}.{name}",
            flatten_with_keys_fn=with_keys, to_dumpable_context=dumps, from_dumpable_context=loads)
        done.append(f"{_CACHE_MODULE}.{name}")
    return done


# -- container types named by a saved module -------------------------------------------------------

def resolve_type_names(names: Iterable[str], *, strict: bool = True) -> None:
    """Makes every container type a treespec names known to torch's pytree.

    A name this process has not registered is `module.Class`: the module is imported when it is
    installed (transformers registers its ModelOutput classes on import; symhlo registers the
    caches), so results come back as the same class as in the process that saved them.

    Args:
      names: pytree serialized type names (`transformers.modeling_outputs.CausalLMOutputWithPast`).
      strict: import each class's module, and refuse a class that cannot be imported
        (symhlo.load); with False nothing is imported and a class this process does not know
        gets a dict stand-in (symhlo.contract.standins), for tools that only need the tensors.
    Raises:
      SymhloError: strict, and a class cannot be imported or is not registered by its module
        (the message names the class and the module).
    """
    import torch.utils._pytree as pytree

    register_containers()
    unknown = []
    for name in sorted(set(names)):
        known = pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE.get(name)
        if known is None or (strict and issubclass(known, StandIn)):
            unknown.append(name)
    if not strict:
        register_standins(unknown)
        return
    refused = []
    for name in unknown:
        if not _NAME.fullmatch(name):
            raise SymhloError(f"the saved module names a container type {name[:80]!r}, which is "
                              "not a module.Class name")
        module, cls_name = name.rsplit(".", 1)
        why = _import_module(module)
        if why is None:
            register_containers()
            found = pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE.get(name)
            if found is not None and not issubclass(found, StandIn):
                continue
            if module == _CACHE_MODULE and hasattr(sys.modules[module], cls_name):
                why = ("symhlo carries only DynamicCache and EncoderDecoderCache across a compiled "
                       f"boundary, not {cls_name}")
            else:
                why = (f"module '{module}' was imported, but it does not register {cls_name} as a "
                       "pytree node (torch.utils._pytree.register_pytree_node with "
                       f"serialized_type_name='{name}')")
        refused.append((module, cls_name, why))
    if refused:
        classes = ", ".join(f"a {c} (class '{c}' from module '{m}')" for m, c, _ in refused)
        raise SymhloError(
            f"the saved module's outputs (or inputs) hold {classes}, which this process cannot "
            f"restore: {refused[0][2]}. Install the package that defines them (the one the module "
            "was compiled with), or load with symhlo.load(path, containers='standin') to get dict "
            "stand-ins")


def _import_module(module: str) -> str | None:
    """Imports `module` if it is installed; returns why not otherwise (None on success)."""
    if module in sys.modules:
        return None
    try:
        if importlib.util.find_spec(module.split(".")[0]) is None:
            return f"no module named '{module.split('.')[0]}' is installed"
        importlib.import_module(module)
    except ImportError as e:
        return f"importing '{module}' failed: {e}"
    except Exception as e:  # its top-level code raised: keep the reason, not its traceback
        return f"importing '{module}' failed: {type(e).__name__}: {e}"
    return None
