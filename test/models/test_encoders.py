"""Encoders from transformers 5.23, passed to symhlo directly (not wrapped): BERT, DistilBERT,
RoBERTa (input_ids + attention_mask with padding; batch and sequence dynamic), T5's encoder,
and Whisper's encoder.

Small configs (hidden 32, 2 layers, vocab 128), random weights seeded, eval mode; each model is
compiled once, run at the range minimum and two sizes that differ from the example in every
dynamic axis, compared with eager including the ModelOutput it returns
(models_harness.check_model).

Whisper's encoder cannot take a dynamic number of frames: its forward raises unless
`input_features.shape[-1] == 2 * config.max_source_positions` (3000 frames for the released
checkpoints; here max_source_positions = 16, so 32 frames), and its position embedding is added
at that fixed length. Only the batch is dynamic there.
"""

from __future__ import annotations

import pytest
import torch
import transformers
from torch.export import Dim

import symhlo
from models_harness import Call, check_model, randint, randn

VOCAB = 128
SEQ_MAX = 64

_BERT_LIKE = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4, max_position_embeddings=SEQ_MAX + 2)
TEXT = {
    "bert": lambda attn: transformers.BertModel(
        transformers.BertConfig(**_BERT_LIKE, attn_implementation=attn)),
    "distilbert": lambda attn: transformers.DistilBertModel(transformers.DistilBertConfig(
        vocab_size=VOCAB, dim=32, hidden_dim=64, n_layers=2, n_heads=4,
        max_position_embeddings=SEQ_MAX, attn_implementation=attn)),
    "roberta": lambda attn: transformers.RobertaModel(
        transformers.RobertaConfig(**_BERT_LIKE, pad_token_id=1, attn_implementation=attn)),
    "t5-encoder": lambda attn: transformers.T5EncoderModel(transformers.T5Config(
        vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
        relative_attention_num_buckets=8, relative_attention_max_distance=16,
        attn_implementation=attn)),
}


def text_inputs(batch: int, seq: int, *, pad: int = 0) -> Call:
    """input_ids (avoiding RoBERTa's padding id 1) and a mask with the last row padded by `pad`."""
    ids = randint(VOCAB - 2, batch, seq, seed=batch * 100 + seq) + 2
    mask = torch.ones(batch, seq, dtype=torch.int64)
    if pad:
        mask[-1, seq - pad:] = 0
    return Call(input_ids=ids, attention_mask=mask)


@pytest.mark.parametrize("family", list(TEXT))
def test_text_encoder(family, tmp_path):
    torch.manual_seed(0)
    model = TEXT[family]("sdpa").eval()
    batch, seq = Dim("batch", min=1, max=16), Dim("seq", min=1, max=SEQ_MAX)
    dynamic = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}
    example = text_inputs(3, 7, pad=2)
    compiled = []
    check_model(model, (), dynamic, [text_inputs(1, 1), text_inputs(2, 13, pad=5),
                                     text_inputs(5, 4, pad=1)],
                kwargs=example.kwargs, name=family, family="encoder", compiled=compiled)
    # The ModelOutput class survives cm.save / symhlo.load (no recompile).
    compiled[0].save(tmp_path / "m.symhlo")
    loaded = symhlo.load(tmp_path / "m.symhlo")
    call = text_inputs(4, 9, pad=3)
    got, want = loaded(**call.kwargs), model(**call.kwargs)
    assert type(got) is type(want) and list(got.keys()) == list(want.keys())
    torch.testing.assert_close(got.last_hidden_state, want.last_hidden_state.detach(),
                               rtol=1e-4, atol=1e-4)


def test_whisper_encoder():
    config = transformers.WhisperConfig(
        vocab_size=VOCAB, num_mel_bins=16, d_model=32, encoder_layers=2, encoder_attention_heads=4,
        decoder_layers=1, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
        max_source_positions=16, max_target_positions=32, pad_token_id=1, bos_token_id=0,
        eos_token_id=2, decoder_start_token_id=0)
    torch.manual_seed(0)
    model = transformers.WhisperModel(config).get_encoder().eval()
    frames = 2 * config.max_source_positions

    def features(batch: int) -> tuple:
        return (randn(batch, config.num_mel_bins, frames, seed=batch),)

    check_model(model, features(3), ({0: Dim("batch", min=1, max=16)},),
                [features(1), features(2), features(5)],
                name="whisper-encoder", family="encoder")
