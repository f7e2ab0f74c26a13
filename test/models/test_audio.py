"""transformers' wav2vec2 (small config, random weights, eval mode) vs eager, with the audio
length and the batch dynamic.

wav2vec2 stopped on its grouped 1-D positional convolution (Conv1d(hidden, hidden, 16,
padding=8, groups=4)) over the dynamic time axis: IREE 3.13 rejects stablehlo.convolution over
a `?` spatial dim, and symhlo-lower-dynamic-windows-for-iree had no grouped 1-D form (now the
grouped 2-D one over a unit height). Compiled once, run at the range minimum, the example, and a
size differing in every axis. The feature encoder's strides are 5 and 2: the length is
`10 * Dim("t") + 7` so every conv output size is an exact expression.
"""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

transformers = pytest.importorskip("transformers")

from models_harness import check_model, randn  # noqa: E402
from models_harness import check_magnitude  # noqa: E402


def test_wav2vec2():
    torch.manual_seed(0)
    cfg = transformers.Wav2Vec2Config(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=4, feat_extract_norm="group", do_stable_layer_norm=False,
        apply_spec_augment=False)
    model = transformers.Wav2Vec2Model(cfg).eval()
    spec = ({0: Dim("batch", min=1, max=8), 1: 10 * Dim("t", min=4, max=64) + 7},)

    def audio(b, t):
        return (randn(b, 10 * t + 7, seed=b * 100 + t),)

    check_magnitude(model, audio(2, 12))
    check_model(model, audio(2, 12), spec, [audio(1, 4), audio(2, 12), audio(3, 21)],
                name="wav2vec2", family="audio", rtol=1e-3, atol=1e-4)
