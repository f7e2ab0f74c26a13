"""The benchmark models, defined here (no downloads): GPT-2-width decoder stack, ResNet-18, MLP, block.

Every model is built with a fixed seed, in eval mode, float32. Each entry of `MODELS` says how to
build the model, how to make an input for one benchmark size, and how that size maps onto
torch.export dims (which axes are dynamic, and their ranges).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F


# -- GPT-2-small width decoder stack -------------------------------------------------------------


class GPT2Block(nn.Module):
    """GPT-2's pre-norm decoder block: causal self-attention + 4x GELU(tanh) MLP."""

    def __init__(self, d: int = 768, heads: int = 12):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        hd = d // self.heads
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, hd).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(hd))
        mask = torch.ones(s, s, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        x = x + self.c_proj((att @ v).transpose(1, 2).reshape(b, s, d))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT2Stack(nn.Module):
    """GPT-2-small width (d=768, 12 heads), `layers` blocks, learned positions, final LayerNorm.

    Input: hidden states (batch, seq, 768), i.e. after the token embedding; the 50257-row token
    embedding and LM head are left out (their 150 MB of weights only measure constant handling).
    """

    def __init__(self, layers: int = 4, d: int = 768, heads: int = 12, max_pos: int = 1024):
        super().__init__()
        self.wpe = nn.Embedding(max_pos, d)
        self.h = nn.ModuleList(GPT2Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(x.shape[1])
        x = x + self.wpe(pos)[None]
        for block in self.h:
            x = block(x)
        return self.ln_f(x)


# -- ResNet-18 -----------------------------------------------------------------------------------


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    """torchvision's ResNet-18 layout (written out: no torchvision dependency), 1000 classes."""

    def __init__(self, num_classes: int = 1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        blocks, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = self.layers(x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# -- a small-channel CNN ---------------------------------------------------------------------------


class SmallCNN(nn.Module):
    """8-16 channels: three 3x3 conv + batchnorm + relu stages, 2x2 max pooling after the first
    two, global average pooling, a 10-class head. Where ResNet-18's 64-512 channels make each
    convolution a large matmul, these are dominated by im2col, pooling and elementwise work."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        chans = (3, 8, 16, 16)
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 3, 1, 1, bias=False) for a, b in zip(chans, chans[1:]))
        self.bns = nn.ModuleList(nn.BatchNorm2d(b) for b in chans[1:])
        self.fc = nn.Linear(chans[-1], num_classes)

    def forward(self, x):
        for i, (conv, bn) in enumerate(zip(self.convs, self.bns)):
            x = F.relu(bn(conv(x)))
            if i < 2:
                x = F.max_pool2d(x, 2)
        return self.fc(x.mean((2, 3)))


# -- the e2e tests' small models -----------------------------------------------------------------


class MLP(nn.Module):
    """The e2e MLP (16 -> 64 -> 8), dynamic batch."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 64), nn.Linear(64, 8)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


def transformer_block() -> nn.Module:
    from symhlo.tools.demo import TransformerBlock

    return TransformerBlock(d=64, heads=4)


# -- registry ------------------------------------------------------------------------------------


@dataclass
class Spec:
    """A benchmark model: how to build it, its sizes, and which input axes are dynamic.

    `sizes` are tuples of the dynamic axes' values in `axes` order (e.g. (batch, seq)); `shape(size)`
    gives the full input shape; `ranges` are the (min, max) of each dynamic axis for the one
    dynamic compile.
    """

    name: str
    build: Callable[[], nn.Module]
    shape: Callable[[tuple], tuple]
    axes: tuple[int, ...]          # input axes that are dynamic
    axis_names: tuple[str, ...]
    ranges: tuple[tuple[int, int], ...]
    sizes: list[tuple] = field(default_factory=list)
    rtol: float = 1e-3
    # input axes dynamic in the symhlo-dyn compile but fixed across the sizes: axis -> (name, min, max)
    extra_dynamic: dict = field(default_factory=dict)
    describe: str = ""
    # Models with several (or integer) inputs: size -> the input tensors, and per input its
    # dynamic axes {axis: (name, min, max)} (a name shared by inputs is one symbol). Single-input
    # models leave these None and use shape / axes / ranges / extra_dynamic.
    make_inputs: Callable[[tuple], tuple] | None = None
    input_dims: list | None = None
    export_size: tuple | None = None   # the size of the dynamic export's example
    # symbols given to torch.export as Dim.AUTO(min, max) instead of a named Dim: the decode
    # step's past length, whose repeat_kv guard Min(64p + 64, 128p + 128) == 64p + 64 holds for
    # every p >= 0 but fails torch.export's interval check for a named Dim (symhlo.Input ranges,
    # the symhlo-opt and symhlo-profile columns, are named Dims that symhlo.compile retries as
    # AUTO where it proves such a guard over the range)
    auto_dims: tuple = ()
    # most of its FLOPs in matmuls / convolutions: the report gives its achieved GFLOP/s beside
    # a large torch.mm's (the machine's practical peak)
    matmul_heavy: bool = False

    def make(self) -> nn.Module:
        torch.manual_seed(0)
        return self.build().eval()

    def example(self, size: tuple) -> torch.Tensor:
        g = torch.Generator().manual_seed(hash(size) & 0xFFFF)
        return torch.randn(*self.shape(size), generator=g)

    def inputs(self, size: tuple) -> tuple:
        """The model's inputs at one benchmark size."""
        return self.make_inputs(size) if self.make_inputs else (self.example(size),)

    def dims(self) -> list[dict]:
        """Per input, {axis: (name, min, max)} of the one dynamic compile."""
        if self.input_dims is not None:
            return self.input_dims
        d = {axis: (name, lo, hi) for axis, name, (lo, hi) in zip(self.axes, self.axis_names, self.ranges)}
        d.update(self.extra_dynamic)
        return [d]

    def label(self, size: tuple) -> str:
        return " ".join(f"{n}={v}" for n, v in zip(self.axis_names, size))


def gpt2(layers: int, quick: bool = False) -> Spec:
    batches, seqs = ((1, 2), (8, 32)) if quick else ((1, 4), (32, 128, 512))
    return Spec(
        name=f"gpt2-{layers}L",
        build=lambda: GPT2Stack(layers=layers),
        shape=lambda s: (s[0], s[1], 768),
        axes=(0, 1), axis_names=("batch", "seq"),
        ranges=((1, 16), (2, 1024)),
        sizes=[(b, s) for b in batches for s in seqs],
        rtol=2e-3, matmul_heavy=True,
        describe=f"(batch, seq, 768) hidden states, {layers} layers of d=768, 12 heads",
    )


def resnet18(quick: bool = False, spatial: int = 224, dynamic_hw: bool = True) -> Spec:
    """Measured at (batch, 3, 224, 224); the dynamic compile also leaves H and W dynamic.

    torch.export needs H, W >= 33 (adaptive pooling of a 1x1 map would specialize).
    """
    hw = 64 if quick else spatial
    return Spec(
        name="resnet18",
        build=ResNet18,
        shape=lambda s: (s[0], 3, hw, hw),
        axes=(0,), axis_names=("batch",),
        ranges=((1, 64),),
        sizes=[(1,), (2,)] if quick else [(1,), (8,)],
        extra_dynamic={2: ("height", 33, 1024), 3: ("width", 33, 1024)} if dynamic_hw else {},
        matmul_heavy=True,
        describe=f"(batch, 3, {hw}, {hw})" + (", H and W dynamic too" if dynamic_hw else ""),
    )


def small_cnn(quick: bool = False) -> Spec:
    """SmallCNN at (batch, 3, 128, 128); the dynamic compile leaves batch, H and W dynamic."""
    hw = 32 if quick else 128
    return Spec(
        name="small-cnn", build=SmallCNN, shape=lambda s: (s[0], 3, hw, hw),
        axes=(0,), axis_names=("batch",), ranges=((1, 64),),
        sizes=[(1,), (2,)] if quick else [(1,), (8,)],
        extra_dynamic={2: ("height", 8, 1024), 3: ("width", 8, 1024)},
        describe=f"(batch, 3, {hw}, {hw}), H and W dynamic too; 8-16 channels",
    )


def gpt2_d256(layers: int, quick: bool = False) -> Spec:
    """The GPT-2 stack at d=256 (4 heads of 64): where IREE's per-dispatch overheads and the
    dynamic-shape code show more than at d=768."""
    spec = gpt2(layers, quick)
    spec.name = f"gpt2-d256-{layers}L"
    spec.build = lambda: GPT2Stack(layers=layers, d=256, heads=4)
    spec.shape = lambda s: (s[0], s[1], 256)
    spec.describe = f"(batch, seq, 256) hidden states, {layers} layers of d=256, 4 heads"
    return spec


# -- Llama (transformers), prefill and decode with a KV cache -----------------------------------

LLAMA = dict(vocab_size=4096, hidden_size=256, intermediate_size=688, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
             bos_token_id=None, eos_token_id=None, pad_token_id=0)


class KVStep(nn.Module):
    """A causal LM step with its KV cache as one tensor (the wrapper generation needed before
    symhlo carried DynamicCache across the boundary: symhlo.compile_generation now takes the model):
    (ids[, past]) -> (logits of the last position, past), past = (2, layers, batch, kv_heads,
    length, head_dim); the model's own DynamicCache is filled from `past` inside."""

    def __init__(self, lm: nn.Module):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids, past=None):
        import transformers

        cache = transformers.DynamicCache(config=self.lm.config)
        if past is not None:
            for layer in range(past.shape[1]):
                cache.update(past[0, layer], past[1, layer], layer)
        out = self.lm(input_ids=input_ids, past_key_values=cache, use_cache=True)
        keys = torch.stack([layer.keys for layer in cache.layers])
        values = torch.stack([layer.values for layer in cache.layers])
        return out.logits[:, -1], torch.stack([keys, values])


def _llama() -> nn.Module:
    import transformers

    return KVStep(transformers.LlamaForCausalLM(transformers.LlamaConfig(**LLAMA)))


def _ids(size: tuple, seq: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(hash(size) & 0xFFFF)
    return torch.randint(1, LLAMA["vocab_size"], (size[0], seq), generator=g)


def _past(size: tuple) -> torch.Tensor:
    c = LLAMA
    g = torch.Generator().manual_seed((hash(size) + 1) & 0xFFFF)
    return torch.randn(2, c["num_hidden_layers"], size[0], c["num_key_value_heads"], size[1],
                       c["hidden_size"] // c["num_attention_heads"], generator=g)


def llama_prefill(quick: bool = False) -> Spec:
    batches, seqs = ((1,), (8, 32)) if quick else ((1, 4), (128, 512))
    return Spec(
        name="llama-prefill", build=_llama, shape=None, axes=(0, 1), axis_names=("batch", "seq"),
        ranges=((1, 8), (2, 1024)), sizes=[(b, q) for b in batches for q in seqs], rtol=2e-3,
        matmul_heavy=True, make_inputs=lambda s: (_ids(s, s[1]),),
        input_dims=[{0: ("batch", 1, 8), 1: ("seq", 2, 1024)}], export_size=(2, 16),
        describe="transformers Llama (d=256, 2 layers, 4 heads, 2 KV heads, vocab 4096): "
                 "token ids (batch, seq) -> last logits and the KV cache",
    )


def llama_decode(quick: bool = False) -> Spec:
    batches, pasts = ((1,), (8, 32)) if quick else ((1, 4), (128, 512))
    return Spec(
        name="llama-decode", build=_llama, shape=None, axes=(0, 1),
        axis_names=("batch", "past"), ranges=((1, 8), (2, 1023)),
        sizes=[(b, p) for b in batches for p in pasts], rtol=2e-3,
        make_inputs=lambda s: (_ids(s, 1), _past(s)),
        input_dims=[{0: ("batch", 1, 8)}, {2: ("batch", 1, 8), 4: ("past", 2, 1023)}],
        export_size=(2, 16), auto_dims=("past",),
        describe="the same Llama, one decode step: token ids (batch, 1) and a KV cache of "
                 "dynamic past length -> last logits and the longer cache",
    )


def mlp(quick: bool = False) -> Spec:
    return Spec(
        name="mlp", build=MLP, shape=lambda s: (s[0], 16),
        axes=(0,), axis_names=("batch",), ranges=((1, 4096),),
        sizes=[(1,), (64,)] if quick else [(1,), (64,), (4096,)],
        describe="(batch, 16)",
    )


def block(quick: bool = False) -> Spec:
    return Spec(
        name="transformer-block", build=transformer_block, shape=lambda s: (s[0], s[1], 64),
        axes=(0, 1), axis_names=("batch", "seq"), ranges=((1, 64), (2, 512)),
        sizes=[(1, 8), (2, 32)] if quick else [(1, 32), (4, 128), (4, 512)],
        describe="(batch, seq, 64), d=64, 4 heads",
    )
