"""Sizes from data on the machine's Vulkan device (Mesa's lavapipe in CI): nonzero, masks,
masked_select, argwhere and where(cond) compiled once for target="vulkan" with
target_arch="lavapipe" (64-bit integers: the indices are int64 and their coordinates are computed
with i64 division, which IREE 3.13's default Vulkan target does not emulate), run at inputs with
an empty, a full and a mixed data-dependent result, against eager PyTorch.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
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


class EmptyRows(torch.nn.Module):
    """Reductions, a matmul over the empty axis and elementwise ops of a 0-row input: IREE
    3.13's Vulkan driver refused each dispatch binding the 0-byte input ("Vulkan dispatch binding
    0 resolved to an empty buffer range")."""

    def forward(self, x):
        return x.sum(0), x.amax(-1), x.t() @ x, x * 2, torch.softmax(x, 0)


def test_vulkan_empty_inputs_run_on_a_cpu_twin(tmp_path):
    model = EmptyRows()
    prog = symhlo.export(model, (torch.randn(6, 3),), dynamic_shapes=({0: Dim("n", min=0)},))
    cm = symhlo.compile(prog, target="vulkan", target_arch="lavapipe")
    for n in (4, 0, 7):
        x = torch.randn(n, 3, generator=torch.Generator().manual_seed(n))
        for k, (a, b) in enumerate(zip(cm(x), model(x))):
            assert a.shape == b.shape, (n, k)
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    # A module loaded from a file has no StableHLO to build the CPU module from.
    cm.save(tmp_path / "m.symhlo")
    loaded = symhlo.load(tmp_path / "m.symhlo")
    torch.testing.assert_close(loaded(torch.ones(2, 3))[0], torch.full((3,), 2.0))
    with pytest.raises(symhlo.DeviceError, match=r"x: axis 0 is 0 \(shape \(0, 3\)\).*Vulkan driver "
                                                 r"cannot bind an empty buffer"):
        loaded(torch.randn(0, 3))
