"""torch.fft and torch.stft over `?` lengths (frontend/decompositions/spectral.py): DFTs as
matmuls against twiddle matrices generated in the graph (stft's frames gathered at computed
positions), compiled once and compared with eager (pocketfft) at several lengths, odd and even."""

from __future__ import annotations

import torch
from torch.export import Dim

import symhlo
from e2e_harness import check_model


class RfftMagnitude(torch.nn.Module):
    def forward(self, x):                           # (batch, n): a spectrum per row
        return torch.fft.rfft(x).abs()


class RoundTrips(torch.nn.Module):
    """fft / ifft / irfft / hfft / fft2 with each normalization, complex outputs kept."""

    def forward(self, x):                           # (batch, n)
        z = torch.fft.fft(x, norm="ortho")
        back = torch.fft.irfft(torch.fft.rfft(x), n=x.shape[-1])
        return z, torch.fft.ifft(z, norm="ortho").real, back, torch.fft.hfft(z[:, :4], n=6), \
            torch.fft.fft2(x, norm="forward")


class Stft(torch.nn.Module):
    """torch.stft centered (reflect padding), a Hann window shorter than n_fft (padded to it),
    normalized, complex frames out."""

    def forward(self, x):                           # (batch, n)
        return torch.stft(x, 12, hop_length=5, win_length=9, window=torch.hann_window(9),
                          normalized=True, return_complex=True)


def test_stft_over_dynamic_length():
    sizes = [(torch.randn(b, k),) for b, k in ((2, 40), (1, 57), (3, 100))]
    check_model("stft", Stft(), (torch.randn(2, 64),),
                ({0: Dim("b", min=1, max=8), 1: Dim("n", min=17, max=512)},), sizes,
                rtol=1e-4, atol=1e-4)


def test_rfft_magnitude_over_dynamic_length():
    n = Dim("n", min=2, max=512)
    sizes = [(torch.randn(3, k),) for k in (5, 64, 301)]
    check_model("rfft magnitude", RfftMagnitude(), (torch.randn(3, 16),), ({1: n},), sizes,
                rtol=1e-4, atol=1e-4)


def test_fft_family_round_trips():
    sizes = [(torch.randn(b, k),) for b, k in ((2, 7), (3, 16), (1, 33))]
    check_model("fft family", RoundTrips(), (torch.randn(2, 12),),
                ({0: Dim("b", min=1, max=8), 1: Dim("n", min=5, max=64)},), sizes,
                rtol=1e-4, atol=1e-4)


def test_rfft_length_stays_dynamic():
    text = symhlo.export(RfftMagnitude(), (torch.randn(3, 16),),
                         dynamic_shapes=({1: Dim("n", min=2, max=512)},)).text
    assert "tensor<3x?xf32>" in text and "stablehlo.fft" not in text
    assert "tensor<3x16x" not in text and "tensor<16x" not in text
