"""The call contract travels with the program: kwargs bind by name, non-tensor arguments are
checked constants, symbols carry the user's names (errors, prog.dims, @main's attributes),
inputs= narrows an ExportedProgram, and a pass that crashes surfaces as a CompileError.

Each model is compiled once (module-scope fixtures) and called at several sizes vs eager.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import symhlo
from symhlo.tools import cli


class TwoInputs(torch.nn.Module):
    def forward(self, x, y):
        return x * 2 + y.sum(0)


class Slice(torch.nn.Module):
    """y[:x.shape[0]]: torch.export records the guard x.shape[0] <= y.shape[0]."""

    def forward(self, x, y):
        return y[: x.shape[0]] * 2 + x


class Derived(torch.nn.Module):
    def forward(self, x, y):
        return torch.cat([x, x]) + y


class Scaled(torch.nn.Module):
    def forward(self, x, k: int):
        return x * k + k


class Mixed(torch.nn.Module):
    def forward(self, x, a: float, flag: bool, c=None, *, z):
        out = x * a + z[0] - z[1]
        return out if flag else -out


def _attrs(text: str) -> str:
    """@main's attribute dictionary, as text."""
    m = re.search(r"func\.func @main\(.*?\)\s*->.*?attributes (\{.*?\})\s*\{\n", text, re.S)
    assert m, "no attributes on @main"
    return m.group(1)


@pytest.fixture(scope="module")
def two():
    a, b = torch.randn(3, 4), torch.randn(5, 4)
    return symhlo.compile(TwoInputs(), (a, b), dynamic_shapes=({0: Dim("m")}, {0: Dim("n")}))


@pytest.fixture(scope="module")
def two_kw():
    a, b = torch.randn(3, 4), torch.randn(5, 4)
    return symhlo.compile(TwoInputs(), (a,), kwargs={"y": b},
                          dynamic_shapes={"x": {0: Dim("m")}, "y": {0: Dim("n")}})


def test_kwargs_bind_by_name(two):
    a, b = torch.randn(3, 4), torch.randn(6, 4)
    want = TwoInputs()(a, b)
    torch.testing.assert_close(two(y=b, x=a), want)
    torch.testing.assert_close(two(a, y=b), want)
    torch.testing.assert_close(two(a, b), want)


def test_kwargs_exported_as_kwargs(two_kw):
    a, b = torch.randn(7, 4), torch.randn(2, 4)
    want = TwoInputs()(a, b)
    torch.testing.assert_close(two_kw(a, y=b), want)
    torch.testing.assert_close(two_kw(y=b, x=a), want)


@pytest.mark.parametrize("call, pattern", [
    (lambda m, a, b: m(a), r"^missing argument 'y' \(the program takes \(x, y\)\)$"),
    (lambda m, a, b: m(a, b, z=a), r"^unexpected argument 'z'"),
    (lambda m, a, b: m(a, b, a), r"^the program takes 2 positional argument\(s\) \(x, y\), got 3$"),
    (lambda m, a, b: m(a, x=b), r"^missing argument 'y'"),
    (lambda m, a, b: m(a, 3), r"^y: expected a tensor, got int"),
])
def test_bad_bindings_are_named(two, call, pattern):
    a, b = torch.randn(3, 4), torch.randn(5, 4)
    with pytest.raises(symhlo.ShapeError, match=pattern):
        call(two, a, b)


@pytest.fixture(scope="module")
def scaled():
    return symhlo.compile(Scaled(), (torch.randn(3, 4), 3), dynamic_shapes=({0: Dim("b")}, None))


def test_int_argument_compiles_and_other_values_are_refused(scaled):
    for n in (1, 5, 9):
        x = torch.randn(n, 4)
        torch.testing.assert_close(scaled(x, 3), Scaled()(x, 3))
        torch.testing.assert_close(scaled(x, k=3), Scaled()(x, 3))
    with pytest.raises(symhlo.ShapeError, match=r"^k: the program was exported with k = 3, got 4; "
                       r"non-tensor arguments are compiled in as constants"):
        scaled(torch.randn(2, 4), 4)
    with pytest.raises(symhlo.ShapeError, match=r"^k: the program was exported with k = 3, got 3\.0"):
        scaled(torch.randn(2, 4), 3.0)
    assert "@main(%arg0: tensor<?x4xf32>) ->" in scaled.stablehlo  # k is not an argument


def test_float_bool_none_and_nested_kwargs():
    x = torch.randn(3, 4)
    z = (torch.randn(4), torch.randn(4))
    cm = symhlo.compile(Mixed(), (x, 0.5, True, None), kwargs={"z": z},
                        dynamic_shapes={"x": {0: Dim("b")}, "a": None, "flag": None, "c": None,
                                        "z": (None, None)})
    for n in (2, 6):
        x = torch.randn(n, 4)
        torch.testing.assert_close(cm(x, 0.5, True, None, z=z), Mixed()(x, 0.5, True, None, z=z))
        torch.testing.assert_close(cm(z=z, flag=True, a=0.5, x=x, c=None),
                                   Mixed()(x, 0.5, True, None, z=z))
    with pytest.raises(symhlo.ShapeError, match=r"^a: the program was exported with a = 0\.5, got 0\.7"):
        cm(x, 0.7, True, None, z=z)
    with pytest.raises(symhlo.ShapeError, match=r"^flag: the program was exported with flag = True, got False"):
        cm(x, 0.5, False, None, z=z)
    with pytest.raises(symhlo.ShapeError, match=r"^c: got a tensor, but the program was exported "
                       r"with the constant c = None"):
        cm(x, 0.5, True, x, z=z)
    with pytest.raises(symhlo.ShapeError, match=r"nested differently"):
        cm(x, 0.5, True, None, z=z[0])


def test_dynamic_int_argument_is_refused_by_name():
    with pytest.raises(symhlo.UnsupportedOpError, match=r"argument 'k' is a dynamic SymInt input"):
        symhlo.export(Scaled(), (torch.randn(3, 4), 3), dynamic_shapes=({0: Dim("b")}, Dim.DYNAMIC))


def test_save_load_keeps_binding_and_constants(scaled, two, tmp_path):
    scaled.save(tmp_path / "s.symhlo")
    two.save(tmp_path / "t.symhlo")
    s2, t2 = symhlo.load(tmp_path / "s.symhlo"), symhlo.load(tmp_path / "t.symhlo")
    x = torch.randn(4, 4)
    torch.testing.assert_close(s2(x, k=3), Scaled()(x, 3))
    with pytest.raises(symhlo.ShapeError, match=r"^k: the program was exported with k = 3, got 2"):
        s2(x, 2)
    a, b = torch.randn(3, 4), torch.randn(6, 4)
    torch.testing.assert_close(t2(y=b, x=a), TwoInputs()(a, b))


# -- the user's names -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def slice_ep():
    x, y = torch.randn(3, 4), torch.randn(5, 4)
    return torch.export.export(Slice(), (x, y), dynamic_shapes=({0: Dim("m")}, {0: Dim("n")}))


def test_ep_errors_dims_and_attributes_use_dim_names(slice_ep):
    prog = symhlo.export(slice_ep)  # no dynamic_shapes given: names come from the program
    assert repr(prog.dims) == "[Dim(m: [0, inf] at x[0], m <= n), Dim(n: [0, inf] at y[0], m <= n)]"
    attrs = _attrs(prog.text)
    assert not re.search(r"\bs\d+\b", attrs), attrs
    assert "symhlo.symbols = {m = [0, 9223372036854775807], n = [0, 9223372036854775807]}" in attrs
    assert 'symhlo.relations = ["m <= n"]' in attrs
    assert 'symhlo.arg_shapes = [["m", "4"], ["n", "4"]]' in attrs
    cm = symhlo.compile(prog)
    x, y = torch.randn(4, 4), torch.randn(6, 4)
    torch.testing.assert_close(cm(x, y), Slice()(x, y))
    with pytest.raises(symhlo.ShapeError, match=r"^the shapes break 'm <= n', which the exported "
                       r"program relies on \(m = 7 from x: axis 0, n = 6 from y: axis 0\)$"):
        cm(torch.randn(7, 4), y)


def test_derived_dim_prints_as_expression_of_the_users_name():
    h = Dim("h", max=32)
    ep = torch.export.export(Derived(), (torch.randn(3, 4), torch.randn(6, 4)),
                             dynamic_shapes=({0: h}, {0: 2 * h}))
    prog = symhlo.export(ep)
    assert 'symhlo.arg_shapes = [["h", "4"], ["2*h", "4"]]' in _attrs(prog.text)
    assert repr(prog.dims) == "[Dim(h: [0, 32] at x[0], y[0] = 2*h)]"
    with pytest.raises(symhlo.ShapeError, match=r"^y: axis 0 is 7, but must be 2\*h = 6 \(h = 3 from x: axis 0\)$"):
        prog.symbols.check([(3, 4), (7, 4)])


def test_deserialized_program_gets_readable_names(slice_ep, tmp_path):
    torch.export.save(slice_ep, tmp_path / "s.pt2")
    prog = symhlo.export(torch.export.load(tmp_path / "s.pt2"))
    assert [d.name for d in prog.dims] == ["x_dim0", "y_dim0"]
    assert 'symhlo.relations = ["x_dim0 <= y_dim0"]' in _attrs(prog.text)
    with pytest.raises(symhlo.ShapeError, match=r"^the shapes break 'x_dim0 <= y_dim0'"):
        prog.symbols.check([(7, 4), (6, 4)])


def test_mlir_file_carries_the_whole_contract(scaled, slice_ep, tmp_path, capsys):
    """export -> .mlir -> `symhlo compile IN.mlir` -> load: names, relations, signature survive."""
    prog = symhlo.export(slice_ep)
    prog.save(tmp_path / "s.mlir")
    assert cli.main(["compile", str(tmp_path / "s.mlir"), "-o", str(tmp_path / "s.symhlo")]) == 0
    cm = symhlo.load(tmp_path / "s.symhlo")
    assert [d.name for d in cm.dims] == ["m", "n"]
    x, y = torch.randn(2, 4), torch.randn(3, 4)
    torch.testing.assert_close(cm(y=y, x=x), Slice()(x, y))
    with pytest.raises(symhlo.ShapeError, match=r"^the shapes break 'm <= n'"):
        cm(torch.randn(4, 4), y)
    (tmp_path / "k.mlir").write_text(scaled.stablehlo)
    assert cli.main(["compile", str(tmp_path / "k.mlir"), "-o", str(tmp_path / "k.symhlo")]) == 0
    k = symhlo.load(tmp_path / "k.symhlo")
    torch.testing.assert_close(k(x, 3), Scaled()(x, 3))
    with pytest.raises(symhlo.ShapeError, match=r"^k: the program was exported with k = 3, got 5"):
        k(x, 5)


# -- inputs= narrows an ExportedProgram -------------------------------------------------------------

def test_inputs_narrow_an_exported_program(tmp_path):
    ep = torch.export.export(TwoInputs(), (torch.randn(3, 4), torch.randn(5, 4)),
                             dynamic_shapes=({0: Dim("m")}, {0: Dim("n", max=100)}))
    cm = symhlo.compile(ep, inputs=[
        symhlo.Input(min_shape=(12, 4), opt_shape=(16, 4), max_shape=(18, 4)),
        symhlo.Input(min_shape=(1, 4), opt_shape=(4, 4), max_shape=(500, 4), dims=("rows", None))])
    assert "symhlo.symbols = {m = [12, 18], rows = [1, 100]}" in _attrs(cm.stablehlo)
    for n in (12, 15, 18):
        a, b = torch.randn(n, 4), torch.randn(100, 4)
        torch.testing.assert_close(cm(a, b), TwoInputs()(a, b))
    with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 19, above max 18 of 'm'$"):
        cm(torch.randn(19, 4), torch.randn(3, 4))
    with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 11, below min 12 of 'm'$"):
        cm(torch.randn(11, 4), torch.randn(3, 4))
    with pytest.raises(symhlo.ShapeError, match=r"^y: axis 0 is 101, above max 100 of 'rows'$"):
        cm(torch.randn(12, 4), torch.randn(101, 4))
    cm.save(tmp_path / "n.symhlo")
    with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 19, above max 18 of 'm'$"):
        symhlo.load(tmp_path / "n.symhlo")(torch.randn(19, 4), torch.randn(3, 4))


def test_a_narrowed_range_reaches_the_call_time_check_on_one_channel(monkeypatch, tmp_path):
    """inputs= narrows h to [3, 40] (and 2*h with it) in the table written onto @main right after
    import: the passes fold by that range (the program is the one exported with
    Dim("h", min=3, max=40)), and the call-time checks, saved or not, read those numbers back from
    @main."""
    from symhlo.contract.attributes import main_func
    from symhlo.frontend import export as export_module
    from symhlo.passes.contract_attrs import SYMBOLS

    seen = []
    real = export_module.run_pipeline

    def spy(module, *args, **kwargs):
        seen.append(str(main_func(module).attributes[SYMBOLS]))
        return real(module, *args, **kwargs)

    monkeypatch.setattr(export_module, "run_pipeline", spy)
    wide = Dim("h", max=100)
    ep = torch.export.export(Derived(), (torch.randn(5, 4), torch.randn(10, 4)),
                             dynamic_shapes=({0: wide}, {0: 2 * wide}))
    prog = symhlo.export(ep, inputs=[symhlo.Input(min_shape=(3, 4), max_shape=(40, 4)),
                                     symhlo.Input(min_shape=(6, 4), max_shape=(80, 4))])
    assert re.fullmatch(r"\{s\d+ = \[3, 40\]\}", seen[0]), seen  # the torch-dialect @main
    h = Dim("h", min=3, max=40)
    direct = symhlo.export(Derived(), (torch.randn(5, 4), torch.randn(10, 4)),
                           dynamic_shapes=({0: h}, {0: 2 * h}))
    assert prog.text == direct.text
    attrs = _attrs(prog.text)
    assert "symhlo.symbols = {h = [3, 40]}" in attrs
    assert 'symhlo.arg_shapes = [["h", "4"], ["2*h", "4"]]' in attrs
    cm = symhlo.compile(prog)
    for n in (3, 40):
        a, b = torch.randn(n, 4), torch.randn(2 * n, 4)
        torch.testing.assert_close(cm(a, b), Derived()(a, b))
    cm.save(tmp_path / "h.symhlo")
    for m in (cm, symhlo.load(tmp_path / "h.symhlo")):
        with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 2, below min 3 of 'h'$"):
            m(torch.randn(2, 4), torch.randn(4, 4))
        with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 41, above max 40 of 'h'$"):
            m(torch.randn(41, 4), torch.randn(82, 4))
        with pytest.raises(symhlo.ShapeError, match=r"^y: axis 0 is 12, but must be 2\*h = 10 "
                                                    r"\(h = 5 from x: axis 0\)$"):
            m(torch.randn(5, 4), torch.randn(12, 4))


@pytest.mark.parametrize("text, tree, sympy_text, interval", [
    ("2*h + 1", ["add", ["mul", 2, ["sym", "h"]], 1], "2*h + 1", (7, 81)),
    ("(s//2)", ["floordiv", ["sym", "s"], 2], "floor(s/2)", (1, 30)),
    ("Max(h, s, 4)", ["max", ["max", ["sym", "h"], ["sym", "s"]], 4], "Max(4, h, s)", (0, 2**31 - 1)),
    ("Mod(s, 8)", ["mod", ["sym", "s"], 8], "Mod(s, 8)", (0, 2**31 - 1)),
])
def test_one_parser_of_size_text(text, tree, sympy_text, interval):
    """`symhlo.arg_shapes` text has one parser (symhlo.passes.size_exprs.parse): the contract
    reads its tree as sympy, symhlo-fold-size-ranges as an interval ([3, 40] for h, [2, 60] for s;
    what it cannot bound is any size). Text is data: anything else is refused, not evaluated."""
    from symhlo.contract.dims import parse_shape_expr
    from symhlo.passes.fold_size_ranges import _expr_interval
    from symhlo.passes.size_exprs import parse

    assert parse(text) == tree
    assert str(parse_shape_expr(text)) == sympy_text
    assert _expr_interval(text, {"h": (3, 40), "s": (2, 60)}) == interval
    for crafted in ("__import__('os').system('x')", "h.real", "Mod(h)", "s**9"):
        with pytest.raises(ValueError, match=r"^not a size expression"):
            parse(crafted)
        assert _expr_interval(crafted, {"h": (3, 40)}) == (0, 2**31 - 1)


@pytest.mark.parametrize("text, tree, values, holds", [
    ("s0 <= s1 and s2 % 2 == 0",
     ["and", ["le", ["sym", "s0"], ["sym", "s1"]], ["eq", ["mod", ["sym", "s2"], 2], 0]],
     {"s0": 4, "s1": 5, "s2": 6}, True),
    ("2 <= s0 < 10", ["and", ["le", 2, ["sym", "s0"]], ["lt", ["sym", "s0"], 10]], {"s0": 10}, False),
    ("not s0 == 3 or s1 > 2", ["or", ["not", ["eq", ["sym", "s0"], 3]], ["gt", ["sym", "s1"], 2]],
     {"s0": 3, "s1": 2}, False),
    # torch's float guard: Python's float arithmetic (1.7 * 4 = 6.8, trunc 6), never sympy's
    ("math.trunc(1.7 * torch.sym_float(s0)) == 6",
     ["eq", ["number", ["call", "math.trunc", ["mul", 1.7, ["call", "torch.sym_float", ["sym", "s0"]]]]], 6],
     {"s0": 4}, True),
])
def test_one_parser_of_relations(text, tree, values, holds):
    """Relations (symhlo.relations, torch.export's guards) are read by size_exprs.parse_relation
    (the package's one `ast` reader) and evaluated by contract.dims.parse_relation."""
    from symhlo.contract.dims import parse_relation
    from symhlo.passes.size_exprs import parse_relation as parse_relation_text

    assert parse_relation_text(text) == tree
    _, check, syms = parse_relation(text)
    assert check(values) is holds and syms == set(values)
    for crafted, what in (("__import__('os').system('x') == 0", "Call"), ("s0.real <= 1", "Attribute"),
                          ("(lambda: 1)() == 1", "Call"), ("s0 in (1, 2)", "Compare")):
        with pytest.raises(ValueError, match=rf"^not a size relation: .* \(unexpected {what}\)$"):
            parse_relation(crafted)


def test_inputs_that_leave_no_size_are_refused():
    ep = torch.export.export(TwoInputs(), (torch.randn(3, 4), torch.randn(5, 4)),
                             dynamic_shapes=({0: Dim("m", max=10)}, None))
    with pytest.raises(ValueError, match=r"^inputs\[0\] \(x\): axis 0 \(m\) is \[0, 10\] for 'm' in the "
                       r"exported program; the Input's \[12, 18\] leaves no size$"):
        symhlo.export(ep, inputs=[symhlo.Input(min_shape=(12, 4), max_shape=(18, 4)),
                                  symhlo.Input(shape=(5, 4))])
    with pytest.raises(ValueError, match=r"^inputs\[1\] \(y\): axis 0 is static \(5\) in the exported "
                       r"program, outside the Input's range \[6, 6\]$"):
        symhlo.export(ep, inputs=[symhlo.Input(min_shape=(2, 4), max_shape=(8, 4)),
                                  symhlo.Input(shape=(6, 4))])


# -- a pass that raises something else than a PipelineError ---------------------------------------

def test_crashing_pass_becomes_compile_error_naming_pass_and_repro(monkeypatch):
    from symhlo.passes.torch_symbolic_to_shape import TorchSymbolicToShape

    def boom(self, module):
        raise KeyError("an internal bug")

    monkeypatch.setattr(TorchSymbolicToShape, "run", boom)
    with pytest.raises(symhlo.CompileError, match=r"pass 'symhlo-torch-symbolic-to-shape' raised "
                       r"KeyError: 'an internal bug'(.|\n)*Reproduce with:\n  symhlo-opt") as info:
        symhlo.export(TwoInputs(), (torch.randn(3, 4), torch.randn(5, 4)),
                      dynamic_shapes=({0: Dim("m")}, {0: Dim("n")}))
    assert isinstance(info.value.__cause__, KeyError)


def test_crashing_iree_preparation_pass_keeps_its_cause(monkeypatch):
    from symhlo.backend.compiler import prepare_for_iree
    from symhlo.passes.prepare_for_iree import PrepareForIree

    prog = symhlo.export(TwoInputs(), (torch.randn(3, 4), torch.randn(5, 4)),
                         dynamic_shapes=({0: Dim("m")}, {0: Dim("n")}))

    def boom(self, module):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(PrepareForIree, "run", boom)
    with pytest.raises(symhlo.CompileError, match=r"pass 'symhlo-prepare-for-iree' raised "
                       r"ZeroDivisionError: division by zero(.|\n)*Reproduce with:") as info:
        prepare_for_iree(prog.text)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_cli_dims_table_of_a_pt2_names_symbols_and_relations(slice_ep, tmp_path, capsys):
    torch.export.save(slice_ep, tmp_path / "s.pt2")
    assert cli.main(["export", str(tmp_path / "s.pt2"), "--dims"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^x_dim0\s+0\s+inf\s+x\[0\]\s+-$", out, re.M), out
    assert re.search(r"^y_dim0\s+0\s+inf\s+y\[0\]\s+-$", out, re.M), out
    assert re.search(r"^relation: x_dim0 <= y_dim0$", out, re.M), out
    assert not re.search(r"\bs\d+\b", out), out


_CRAFTED = """func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {{
    symhlo.arg_names = ["x"], symhlo.arg_shapes = [["n", "4"]], symhlo.symbols = {{n = [0, 10]}},
    symhlo.signature = {sig}}} {{
  return %arg0 : tensor<?x4xf32>
}}
"""


@pytest.mark.parametrize("sig, pattern", [
    ('{arg_names = ["x"], num_positional = 1 : i64, leaves = [{name = "x", tensor = 5 : i64}]}',
     r"bad symhlo.signature: signature leaves must feed arguments 0\.\.0 once each, got \[5\]"),
    ('{arg_names = ["x"], num_positional = 3 : i64, leaves = [{name = "x", tensor = 0 : i64}]}',
     r"bad symhlo.signature: signature num_positional is out of range"),
    ('{arg_names = ["x"], num_positional = 1 : i64, leaves = [{name = "x", tensor = 0 : i64}], '
     'in_spec = "[1, {\\22type\\22: \\22builtins.tuple\\22, \\22context\\22: \\22{\\\\\\22__enum__\\\\\\22: '
     '{\\\\\\22fqn\\\\\\22: \\\\\\22os:Evil\\\\\\22}}\\22, \\22children_spec\\22: []}]"}',
     r"bad symhlo.signature: the output spec names a Python enum to import"),
])
def test_crafted_signature_is_refused(sig, pattern, tmp_path, capsys):
    (tmp_path / "c.mlir").write_text(_CRAFTED.format(sig=sig))
    assert cli.main(["compile", str(tmp_path / "c.mlir"), "-o", str(tmp_path / "c.vmfb")]) == 1
    assert re.search(pattern, capsys.readouterr().err)


def test_inputs_narrow_a_stablehlo_program():
    prog = symhlo.export(TwoInputs(), (torch.randn(3, 4), torch.randn(5, 4)),
                         dynamic_shapes=({0: Dim("m")}, {0: Dim("n")}))
    cm = symhlo.compile(prog, inputs=[symhlo.Input(min_shape=(2, 4), max_shape=(6, 4)),
                                      symhlo.Input(min_shape=(1, 4), max_shape=(9, 4))])
    assert "symhlo.symbols = {m = [2, 6], n = [1, 9]}" in _attrs(cm.stablehlo)
    assert "symhlo.symbols = {m = [0, 9223372036854775807]" in _attrs(prog.text)  # prog is unchanged
    a, b = torch.randn(6, 4), torch.randn(9, 4)
    torch.testing.assert_close(cm(y=b, x=a), TwoInputs()(a, b))
    with pytest.raises(symhlo.ShapeError, match=r"^y: axis 0 is 10, above max 9 of 'n'$"):
        cm(a, torch.randn(10, 4))
