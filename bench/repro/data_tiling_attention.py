"""Repro: `--iree-opt-data-tiling` miscompiles causal attention with dynamic (batch, seq) (IREE 3.13).

Rows from 64 on come out wrong (max |err| ~0.1-1 on outputs of size ~1) once seq > 64; without the
flag, or with seq <= 64, or with a static batch, the results match eager to ~1e-6. Found by
bench/flags.py on the GPT-2-width stack. Run: .venv/bin/python bench/repro/data_tiling_attention.py ["FLAGS" ...]
(each argument is one flag set to try; default: none, then --iree-opt-data-tiling).
"""

import sys

import torch
from torch.export import Dim

import symhlo


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        b, s, d = q.shape
        q, k, v = (t.view(b, s, 12, 64).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-1, -2)) * 0.125
        mask = torch.ones(s, s, dtype=torch.bool).tril()
        return att.masked_fill(~mask, float("-inf")).softmax(-1) @ v


def main() -> int:
    torch.manual_seed(0)
    m = Attention()
    b, s = Dim("b", min=1, max=16), Dim("s", min=2, max=1024)
    ex = tuple(torch.randn(2, 8, 768) for _ in range(3))
    bad = False
    variants = [f.split() for f in sys.argv[1:]] or [[], ["--iree-opt-data-tiling"]]
    for flags in variants:
        prog = symhlo.export(m, ex, dynamic_shapes=tuple({0: b, 1: s} for _ in range(3)))
        cm = symhlo.compile(prog, options={"iree_flags": flags})
        for n in (64, 65, 130):
            args = tuple(torch.randn(1, n, 768) for _ in range(3))
            err = (cm(*args) - m(*args)).abs().amax(dim=(0, 1, 3))
            rows = (err > 1e-3).nonzero().flatten().tolist()
            print(f"flags={flags or 'default'} seq={n}: max|err|={err.max().item():.2e} "
                  f"wrong rows={rows[:3]}..{rows[-1:] if rows else ''} ({len(rows)})")
            bad |= bool(rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
