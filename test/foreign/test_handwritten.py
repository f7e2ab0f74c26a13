"""Hand-written StableHLO (no symhlo contract): a `?` axis that may be 1 and broadcast is refused,
never compiled on a guess; with a shape assertion proving it, it compiles and the assertion is
checked at call time; a static 1 expands correctly."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import symhlo
from symhlo.tools.cli import main as cli

HERE = Path(__file__).resolve().parent / "handwritten"


def _compile(name: str, tmp_path: Path):
    out = tmp_path / f"{name}.symhlo"
    rc = cli(["compile", str(HERE / f"{name}.mlir"), "-o", str(out)])
    return rc, out


def test_size1_broadcast_of_unproven_axis_is_refused(tmp_path, capsys):
    rc, out = _compile("broadcast_size1", tmp_path)
    err = capsys.readouterr().err
    assert rc == 1 and not out.exists()
    assert "operand axis 0 is `?` and may be 1 at run time, expanding to result axis 0" in err
    assert "broadcast_size1.mlir" in err or "loc(" in err  # names where it is


def test_asserted_broadcast_compiles_and_checks_its_assertion(tmp_path):
    rc, out = _compile("broadcast_asserted", tmp_path)
    assert rc == 0
    cm = symhlo.load(out)
    for n in (1, 5):
        x, y = torch.randn(n, 4), torch.randn(n, 4)
        torch.testing.assert_close(cm(x, y), x + y)
    with pytest.raises(symhlo.ShapeError, match=r"^rows differ: x has 1, y has 5$"):
        cm(torch.randn(1, 4), torch.randn(5, 4))


def test_static_one_expands(tmp_path):
    rc, out = _compile("broadcast_static_one", tmp_path)
    assert rc == 0
    cm = symhlo.load(out)
    x = torch.randn(1, 4)
    for n in (1, 6):
        y = torch.randn(n, 4)
        torch.testing.assert_close(cm(x, y), x * y)


def test_sizes_an_op_needs_equal_are_checked_at_call_time(tmp_path):
    rc, out = _compile("add_mismatch", tmp_path)
    assert rc == 0
    cm = symhlo.load(out)
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    torch.testing.assert_close(cm(x, y), x + y)
    with pytest.raises(symhlo.ShapeError, match=r"^input sizes 1 and 5 must be equal: stablehlo.add at "
                       r".*needs arg0: axis 0 == arg1: axis 0$"):
        cm(torch.randn(1, 4), torch.randn(5, 4))


def test_malformed_recorded_assertion_is_refused(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text(
        'func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {symhlo.shape_assertions = '
        '[{args = "[]", cond = "[\\22system\\22, 1]", message = "m"}]} {\n'
        '  return %x : tensor<?x4xf32>\n}\n')
    assert cli(["compile", str(bad), "-o", str(tmp_path / "bad.symhlo")]) == 1
    assert "bad symhlo.shape_assertions: ValueError: unknown size operation" in capsys.readouterr().err
