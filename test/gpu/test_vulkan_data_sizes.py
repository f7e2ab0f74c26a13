"""Sizes from data on the machine's Vulkan device (Mesa's lavapipe in CI): nonzero, masks,
masked_select, argwhere and where(cond) compiled once for target="vulkan" with
target_arch="lavapipe" (64-bit integers: the indices are int64 and their coordinates are computed
with i64 division, which IREE 3.13's default Vulkan target does not emulate), run at inputs with
an empty, a full and a mixed data-dependent result, against eager PyTorch.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from torch.export import Dim

import symhlo

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from test_data_dependent_sizes import Masks  # noqa: E402


def test_vulkan_nonzero_and_masks():
    model = Masks()
    g = torch.Generator().manual_seed(0)
    prog = symhlo.export(model, (torch.randn(6, 3, generator=g),), dynamic_shapes=({0: Dim("n")},))
    cm = symhlo.compile(prog, target="vulkan", target_arch="lavapipe")
    for x in (torch.randn(9, 3, generator=g), -torch.ones(4, 3), torch.ones(5, 3)):
        got, want = cm(x), model(x)
        assert len(got) == len(want)
        for k, (a, b) in enumerate(zip(got, want)):
            assert a.shape == b.shape, f"output {k} at {tuple(x.shape)}: {a.shape} != {b.shape}"
            torch.testing.assert_close(a, b)
