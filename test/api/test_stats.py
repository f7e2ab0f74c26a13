"""symhlo.stats(): process-wide counters of exports and IREE compiles."""

import torch
from torch.export import Dim

import symhlo


class Double(torch.nn.Module):
    def forward(self, x):
        return x * 2


def test_export_and_compile_are_counted():
    before = symhlo.stats()
    prog = symhlo.export(Double(), (torch.randn(3, 4),), dynamic_shapes=({0: Dim("b", max=16)},))
    mid = symhlo.stats()
    assert mid["exports"] == before["exports"] + 1
    assert mid["iree_compiles"] == before["iree_compiles"]
    cm = symhlo.compile(prog)
    after = symhlo.stats()
    assert after["exports"] == mid["exports"]          # compiling a program exports nothing
    assert after["iree_compiles"] == mid["iree_compiles"] + 1
    x = torch.randn(7, 4)
    torch.testing.assert_close(cm(x), x * 2)


def test_exported_program_with_dynamic_shapes_keeps_user_names():
    dims = ({0: Dim("rows", max=16)},)
    ep = torch.export.export(Double(), (torch.randn(3, 4),), dynamic_shapes=dims)
    prog = symhlo.export(ep, dynamic_shapes=dims)
    assert [d.name for d in prog.dims] == ["rows"]
