"""`symhlo demo` / `make demo` (floor 4, tools): the seed model and a transformer block, exported
and run on IREE through the public API."""

from __future__ import annotations

import time

import torch
import torch.nn as nn
from torch.export import Dim

import symhlo


class Seed(nn.Module):
    """The feature request's example: `emb.expand(x.shape[0] * 2, -1, -1)`, x's batch dynamic."""

    def forward(self, x: torch.Tensor, emb: torch.Tensor) -> torch.Tensor:
        return emb.expand(x.shape[0] * 2, -1, -1)


class TransformerBlock(nn.Module):
    """Pre-norm block: causal multi-head attention + GELU MLP, dynamic batch and sequence."""

    def __init__(self, d: int = 64, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) * (d // self.heads) ** -0.5
        mask = torch.ones(s, s, dtype=torch.bool).tril()
        scores = scores.masked_fill(~mask, float("-inf")).softmax(-1)
        x = x + self.proj((scores @ v).transpose(1, 2).reshape(b, s, d))
        return x + self.mlp(self.ln2(x))


def _run(name: str, model: nn.Module, cm, make_args, sizes) -> None:
    for size in sizes:
        args = make_args(size)
        t0 = time.perf_counter()
        out = cm(*args)
        dt = (time.perf_counter() - t0) * 1e3
        ref = model(*args)
        err = (out - ref).abs().max().item()
        print(f"  {name:<18} size={str(size):<10} out={tuple(out.shape)!s:<16} "
              f"max|err|={err:.2e}  ({dt:.1f} ms)")


def main() -> int:
    torch.manual_seed(0)
    print("== seed: emb.expand(x.shape[0] * 2, -1, -1), x: (batch, 3, 224, 224), batch dynamic ==")
    seed = Seed()
    batch = Dim("batch", min=1, max=1024)
    args = (torch.randn(4, 3, 224, 224), torch.randn(1, 1, 768))
    t0 = time.perf_counter()
    prog = symhlo.export(seed, args, dynamic_shapes=({0: batch}, None))
    print(prog.text)
    print(f"portable artifact: {len(prog.portable_artifact())} bytes (VHLO)")
    cm = symhlo.compile(prog)
    print(f"compiled for cpu in {time.perf_counter() - t0:.1f} s")
    _run("seed", seed, cm,
         lambda b: (torch.randn(b, 3, 224, 224), torch.randn(1, 1, 768)), [1, 3, 17])

    print("\n== transformer block: x: (batch, seq, 64), batch and seq dynamic ==")
    block = TransformerBlock().eval()
    b, s = Dim("batch", min=1, max=64), Dim("seq", min=2, max=512)
    t0 = time.perf_counter()
    with torch.no_grad():
        cm = symhlo.compile(block, (torch.randn(2, 8, 64),), dynamic_shapes=({0: b, 1: s},))
        print(f"compiled for cpu in {time.perf_counter() - t0:.1f} s")
        print("symbolic dims:")
        for dim in cm.dims:
            print(f"  {dim}")
        _run("transformer block", block, cm,
             lambda bs: (torch.randn(bs[0], bs[1], 64),), [(1, 2), (3, 37), (8, 200)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
