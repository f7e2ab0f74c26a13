"""A plain function compiles like a module: its parameter names key dynamic_shapes and kwargs."""

import pytest
import torch
from torch.export import Dim

import symhlo


def scaled_sum(x, y):
    return x * 2 + y.sum()


def test_function_with_named_dynamic_dim_runs_at_other_sizes():
    cm = symhlo.compile(scaled_sum, (torch.ones(3, 4), torch.ones(5)),
                        dynamic_shapes={"x": {0: Dim("n", min=1, max=64)}, "y": None})
    x, y = torch.randn(9, 4), torch.randn(5)
    torch.testing.assert_close(cm(x, y=y), scaled_sum(x, y))
    with pytest.raises(symhlo.ShapeError, match="n"):
        cm(torch.randn(65, 4), y)


def test_lambda_exports_to_stablehlo():
    prog = symhlo.export(lambda a: a.relu(), (torch.ones(2, 3),),
                         dynamic_shapes=({1: Dim("w")},))
    assert "tensor<2x?xf32>" in prog.text


def test_not_callable_is_refused_by_type():
    with pytest.raises(symhlo.SymhloError, match="not int"):
        symhlo.compile(3, (torch.ones(1),))
