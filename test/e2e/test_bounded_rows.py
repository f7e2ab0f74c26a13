"""Matmuls over `?` rows that the contract bounds to one tile (symhlo-pad-bounded-matmul-rows-for-iree):
a decode-step-like model (embedding of `batch` token ids, two linear layers, a head) with batch in
[1, 8] runs its matmuls on 8 padded rows in IREE and still equals eager at every batch, the range's
ends included; the same model with batch up to 64 is left to IREE's data tiling.
"""

from __future__ import annotations

import torch
import torch.nn as nn
from torch.export import Dim

import symhlo
from symhlo.backend.compiler import prepare_for_iree

from e2e_harness import check_model


class Step(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = nn.Embedding(100, 32)
        self.fc1 = nn.Linear(32, 48)
        self.fc2 = nn.Linear(48, 32)
        self.head = nn.Linear(32, 100, bias=False)

    def forward(self, ids):                       # ids: (batch, 1)
        h = self.emb(ids)                         # (batch, 1, 32)
        h = h + self.fc2(torch.relu(self.fc1(h)))
        return self.head(h)[:, -1]                # (batch, 100)


def _ids(b: int) -> torch.Tensor:
    return torch.randint(0, 100, (b, 1), generator=torch.Generator().manual_seed(b))


def _program(max_batch: int):
    return symhlo.export(Step().eval(), (_ids(2),), dynamic_shapes=({0: Dim("batch", min=1, max=max_batch)},))


def test_bounded_rows_equal_eager():
    check_model("bounded-batch step", Step(), (_ids(2),), ({0: Dim("batch", min=1, max=8)},),
                [(_ids(1),), (_ids(3),), (_ids(8),)], rtol=1e-5, atol=1e-5)


def test_bounded_rows_are_padded_for_iree_only():
    prog = _program(8)
    assert "tensor.pad" not in prog.text                       # the portable artifact keeps `?` rows
    iree_input = prepare_for_iree(prog.text)
    assert iree_input.count("-> tensor<8x48xf32>") >= 1         # fc1 on 8 rows
    assert iree_input.count("-> tensor<8x100xf32>") == 1        # the head on 8 rows


def test_rows_over_one_tile_are_not_padded():
    assert "tensor.pad" not in prepare_for_iree(_program(64).text)


class LastPositionHead(nn.Module):
    """A prefill's head: the last position's hidden state of (batch, seq) token ids."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.emb = nn.Embedding(100, 32)
        self.fc = nn.Linear(32, 32)
        self.head = nn.Linear(32, 100, bias=False)

    def forward(self, ids):                       # ids: (batch, seq)
        h = torch.tanh(self.fc(self.emb(ids)))    # (batch, seq, 32)
        return self.head(h[:, -1])                # (batch, 100): rows of a `?`-sized slice


def _seq_ids(b: int, s: int) -> torch.Tensor:
    return torch.randint(0, 100, (b, s), generator=torch.Generator().manual_seed(7 * b + s))


_LAST_DIMS = ({0: Dim("batch", min=1, max=8), 1: Dim("seq", min=2, max=64)},)


def test_rows_of_a_dynamic_slice_are_gathered_and_equal_eager():
    """The head reads the last position's rows (a tensor.extract_slice of `?` rows, whose pad
    IREE 3.13 fails to compile): it runs on 8 gathered rows, the rows past the batch copies of
    its last one, and equals eager at every batch, the range's ends included."""
    iree_input = prepare_for_iree(symhlo.export(LastPositionHead().eval(), (_seq_ids(2, 5),),
                                                dynamic_shapes=_LAST_DIMS).text)
    assert iree_input.count("-> tensor<8x100xf32>") == 1
    check_model("last-position head", LastPositionHead(), (_seq_ids(2, 5),), _LAST_DIMS,
                [(_seq_ids(1, 2),), (_seq_ids(3, 17),), (_seq_ids(8, 64),), (_seq_ids(5, 9),)],
                rtol=1e-5, atol=1e-5)
