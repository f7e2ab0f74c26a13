"""complex64 through the pipeline (frontend/decompositions/complex_numbers.py and
symhlo-lower-torch-complex): the Llama reference code's complex rotary embedding over a `?`
sequence, and the complex primitives, compiled once and compared with eager at several sizes."""

from __future__ import annotations

import torch
from torch.export import Dim

import symhlo
from e2e_harness import check_model


def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0) -> torch.Tensor:
    """Llama's `precompute_freqs_cis` (meta-llama/llama, model.py), unchanged."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


class Rotary(torch.nn.Module):
    """Llama's apply_rotary_emb with its complex freqs_cis buffer sliced to the sequence."""

    def __init__(self, head_dim: int = 16, max_seq: int = 64):
        super().__init__()
        self.register_buffer("freqs_cis", precompute_freqs_cis(head_dim, max_seq))

    def forward(self, xq, xk):                      # (batch, seq, heads, head_dim)
        seq = xq.shape[1]
        freqs_cis = self.freqs_cis[:seq]
        xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
        freqs_cis = freqs_cis.view(1, xq_.shape[1], 1, xq_.shape[-1])
        xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
        xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
        return xq_out.type_as(xq), xk_out.type_as(xk)


class ComplexOps(torch.nn.Module):
    """add / mul / div / abs / angle / polar / conj / matmul on complex, complex in and out."""

    def forward(self, x, w):                        # x: (n, 4, 2) real pairs, w: (4, 3) complex
        z = torch.view_as_complex(x)                # (n, 4)
        p = torch.polar(z.abs() + 1, z.angle())
        y = (z * p + z.conj()) / (p + 2)
        return y @ w, torch.view_as_real(y).sum(-1), z.abs(), z.angle()


def test_rotary_complex_over_dynamic_sequence():
    seq = Dim("seq", min=2, max=64)
    x = torch.randn(2, 8, 4, 16)
    sizes = [(torch.randn(2, n, 4, 16), torch.randn(2, n, 4, 16)) for n in (2, 9, 64)]
    check_model("llama complex rotary", Rotary(), (x, x.clone()), ({1: seq}, {1: seq}), sizes,
                rtol=1e-5, atol=1e-5)


def test_rotary_keeps_the_sequence_dynamic():
    seq = Dim("seq", min=2, max=64)
    x = torch.randn(2, 8, 4, 16)
    text = symhlo.export(Rotary(), (x, x.clone()), dynamic_shapes=({1: seq}, {1: seq})).text
    assert "tensor<2x?x4x16xf32>" in text and "complex<f32>" in text
    assert "tensor<2x8x4x16" not in text


def test_complex_ops_match_eager():
    torch.manual_seed(0)
    w = torch.randn(4, 3, dtype=torch.complex64)

    class M(ComplexOps):
        def forward(self, x):
            return super().forward(x, w)

    sizes = [(torch.randn(n, 4, 2),) for n in (1, 5, 13)]
    check_model("complex ops", M(), (torch.randn(5, 4, 2),), ({0: Dim("n", min=1)},), sizes,
                rtol=1e-5, atol=1e-5)
