"""nn.LSTM / nn.GRU / nn.RNN with a dynamic sequence length vs eager (symhlo.frontend.recurrent).

Plain torch.export specializes the time axis of these layers (aten.lstm's kernel unrolls the time
loop: "your code specialized it to be a constant"); symhlo exports them as scans, so one compile
runs every length. One model covers: 2 layers, bidirectional, batch_first and LSTM's proj_size; a
time-major GRU fed the LSTM's output with an initial state passed in. An unbatched ReLU RNN is its
own module: beside a batched layer over the same length, iree-compile 3.13 failed ("'stream.async.
dispatch' op : streamable op expected to be in an execution region"), a known IREE fault with
several loops over one `?` size (README, Recurrent layers).
"""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.export import Dim

import symhlo
from e2e_harness import check_model, randn


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True, bidirectional=True, proj_size=6)
        self.gru = nn.GRU(12, 16)

    def forward(self, x, h0):                      # x: (b, t, 8); h0: (1, b, 16)
        y, (h, c) = self.lstm(x)
        z, hg = self.gru(y.transpose(0, 1), h0)
        return y, h, c, z, hg


def test_recurrent_layers_over_a_dynamic_sequence_length():
    torch.manual_seed(0)
    b, t = Dim("b", min=1, max=32), Dim("t", min=1, max=512)
    sizes = [(randn(1, 1, 8), randn(1, 1, 16)), (randn(4, 13, 8), randn(1, 4, 16)),
             (randn(2, 40, 8), randn(1, 2, 16))]
    check_model("recurrent", Recurrent().eval(), (randn(3, 7, 8), randn(1, 3, 16)),
                ({0: b, 1: t}, {1: b}), sizes, atol=1e-4, rtol=1e-4)


def test_unbatched_relu_rnn_over_a_dynamic_length():
    torch.manual_seed(1)
    rnn = nn.RNN(8, 8, nonlinearity="relu", num_layers=2).eval()
    t = Dim("t", min=1, max=512)
    check_model("recurrent_unbatched", rnn, (randn(7, 8),), ({0: t},),
                [(randn(1, 8),), (randn(13, 8),), (randn(40, 8),)], atol=1e-4, rtol=1e-4)


def test_plain_torch_export_still_specializes_and_eager_is_untouched():
    """The rewrite is active only inside symhlo's export: plain torch.export keeps torch's
    behaviour (a specialized time axis), and eager calls run torch's own kernels."""
    lstm = nn.LSTM(4, 4, batch_first=True).eval()
    with pytest.raises(Exception, match="specialized"):
        torch.export.export(lstm, (randn(2, 5, 4),), dynamic_shapes=({1: Dim("t", max=64)},))
    assert nn.LSTM.forward.__module__ == "torch.nn.modules.rnn"
    symhlo.export(lstm, (randn(2, 5, 4),), dynamic_shapes=({1: Dim("t", max=64)},))
    assert nn.LSTM.forward.__module__ == "torch.nn.modules.rnn"
