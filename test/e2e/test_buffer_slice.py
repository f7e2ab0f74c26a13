"""A slice of a wider constant buffer by a dynamic size, then expanded (the BERT family's
`token_type_ids[:, :seq].expand(batch, seq)`): torch-mlir clamps the slice bound with
max/min/select that the size's range makes identities; symhlo-fold-size-ranges folds them so the
slice's extent is the `?` it is broadcast to (IREE 3.13 refused the module before: "failed to
resolve workgroup count hint in terms of workload ordinals", ConvBERT)."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

from e2e_harness import check_model, randint


class BufferSlice(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("token_type_ids", torch.zeros(1, 64, dtype=torch.long), persistent=False)
        self.register_buffer("positions", torch.arange(64).expand(1, -1), persistent=False)
        torch.manual_seed(0)
        self.types = torch.nn.Embedding(2, 8)
        self.pos = torch.nn.Embedding(64, 8)

    def forward(self, ids):
        b, n = ids.shape
        tt = self.token_type_ids[:, :n].expand(b, n)
        return self.types(tt) + self.pos(self.positions[:, :n]) + ids[..., None]


@pytest.mark.parametrize("seq_max", [60, 64])
def test_slice_of_a_wider_buffer(seq_max):
    spec = ({0: Dim("b", min=1, max=16), 1: Dim("s", min=2, max=seq_max)},)
    check_model(f"buffer slice (s <= {seq_max})", BufferSlice(), (randint(100, 3, 7),), spec,
                [(randint(100, 1, 2),), (randint(100, 5, 13),), (randint(100, 2, seq_max),)],
                rtol=1e-6, atol=1e-6)
