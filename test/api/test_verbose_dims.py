"""verbose=True prints every stage with its time; prog.dims / cm.dims describe each symbol."""

import re

import pytest
import torch
from torch.export import Dim

import symhlo

STAGE_LINE = r"\[symhlo\] {stage:<14} \.\.\..*?\s+\d+\.\d\d s"


class Pair(torch.nn.Module):
    def forward(self, x, y):
        return x.sum(1) + y[: x.shape[0]].mean(1), y * 2


def test_verbose_compile_prints_each_stage_with_its_time(capsys):
    cm = symhlo.compile(Pair(), inputs=[symhlo.Input(min_shape=(1, 4), max_shape=(16, 4), name="x"),
                                        symhlo.Input(min_shape=(16, 4), max_shape=(16, 4), name="y")],
                        verbose=True)
    err = capsys.readouterr().err
    for stage in ("export", "import", "torch-backend", "stablehlo", "iree-input", "iree"):
        assert re.search(STAGE_LINE.format(stage=stage), err, re.S), (stage, err)
    assert set(cm.times) >= {"export", "import", "torch-backend", "stablehlo", "iree-input", "iree"}
    assert all(t >= 0 for t in cm.times.values())


def test_verbose_export_and_quiet_by_default(capsys):
    symhlo.export(Pair(), (torch.randn(3, 4), torch.randn(8, 4)), verbose=True)
    err = capsys.readouterr().err
    assert re.search(STAGE_LINE.format(stage="export"), err, re.S)
    assert "iree" not in err
    symhlo.export(Pair(), (torch.randn(3, 4), torch.randn(8, 4)))
    assert "[symhlo]" not in capsys.readouterr().err


def test_dims_list_range_bindings_and_derived():
    h = Dim("h", min=2, max=100)
    b = Dim("b", min=1, max=8)

    class M(torch.nn.Module):
        def forward(self, x, y, z):
            return x.sum(), y.sum(), z.sum()

    prog = symhlo.export(M(), (torch.randn(2, 6), torch.randn(2, 4), torch.randn(3)),
                         dynamic_shapes=({0: b, 1: 2 * h}, {0: b, 1: h + 1}, None))
    dims = {d.name: d for d in prog.dims}
    assert set(dims) == {"b", "h"}
    assert (dims["b"].min, dims["b"].max, dims["b"].bindings) == (1, 8, [("x", 0), ("y", 0)])
    assert (dims["h"].min, dims["h"].max, dims["h"].bindings) == (2, 100, [])
    assert dims["h"].derived == [("x", 1, "2*h"), ("y", 1, "h + 1")]
    table = prog.symbols.table()
    assert re.search(r"^b\s+1\s+8\s+x\[0\], y\[0\]\s+-$", table, re.M)
    assert re.search(r"^h\s+2\s+100\s+-\s+x\[1\] = 2\*h, y\[1\] = h \+ 1$", table, re.M)
    cm = symhlo.compile(prog)
    assert [repr(d) for d in cm.dims] == [repr(d) for d in prog.dims]
    assert repr(dims["h"]) == "Dim(h: [2, 100] at x[1] = 2*h, y[1] = h + 1)"
    x, y, z = torch.randn(3, 10), torch.randn(3, 6), torch.randn(3)
    for got, want in zip(cm(x, y, z), M()(x, y, z)):
        torch.testing.assert_close(got, want)


def test_unbounded_dim_shows_inf():
    prog = symhlo.export(Pair(), inputs=[symhlo.Input(shape=("n", 4), name="x"),
                                         symhlo.Input(shape=("m", 4), name="y")])
    dims = {d.name: d for d in prog.dims}
    assert dims["n"].max is None and dims["m"].max is None
    assert re.search(r"^n\s+1\s+inf\s+x\[0\]", prog.symbols.table(), re.M)
