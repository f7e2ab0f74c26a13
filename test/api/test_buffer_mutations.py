"""Programs that also return buffer mutations (batch_norm in train mode): only user outputs."""

import copy

import torch
from torch.export import Dim

import symhlo


class TrainModeNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm1d(4)

    def forward(self, x):
        return self.bn(x) * 2


def test_train_mode_batch_norm_returns_user_output_only():
    model = TrainModeNorm().train()
    cm = symhlo.compile(copy.deepcopy(model), (torch.randn(5, 4),),
                        dynamic_shapes=({0: Dim("b", min=2, max=64)},))
    assert "tensor<?x4xf32>" in cm.stablehlo.split("->")[1].split("{")[0]
    for b in (2, 7, 40):
        x = torch.randn(b, 4)
        out = cm(x)
        assert isinstance(out, torch.Tensor)
        torch.testing.assert_close(out, model(x).detach(), rtol=1e-4, atol=1e-5)
