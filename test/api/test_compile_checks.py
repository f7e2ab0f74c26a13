"""symhlo.compile with Inputs / dynamic_shapes / ExportedPrograms, and the checks before a call runs."""

import pytest
import torch
from torch.export import Dim

import symhlo


class AddMul(torch.nn.Module):
    def forward(self, x, y):
        return (x + y).relu() * 2 + y.sum(0)


class Derived(torch.nn.Module):
    """x is (h + 1, 3), y is (2 * h, 3)."""

    def forward(self, x, y):
        return x[: y.shape[0] // 2] * 2, torch.cat([y, y[:1]]).sum(1)


@pytest.fixture(scope="module")
def shared():
    torch.manual_seed(0)
    inputs = [symhlo.Input(min_shape=(1, 4), opt_shape=(8, 4), max_shape=(64, 4), dims=("b", None), name="x"),
              symhlo.Input(shape=("b", 4), name="y")]
    before = symhlo.stats()["iree_compiles"]
    cm = symhlo.compile(AddMul(), inputs=inputs)
    assert symhlo.stats()["iree_compiles"] == before + 1  # compiled once for the whole range
    return cm


@pytest.fixture(scope="module")
def derived():
    h = Dim("h", min=2, max=32)
    prog = symhlo.export(Derived(), (torch.randn(9, 3), torch.randn(16, 3)),
                         dynamic_shapes=({0: h + 1}, {0: 2 * h}))
    return prog, symhlo.compile(prog)


@pytest.mark.parametrize("b", [1, 2, 7, 64])
def test_shared_symbol_matches_eager(shared, b):
    x, y = torch.randn(b, 4), torch.randn(b, 4)
    torch.testing.assert_close(shared(x, y), AddMul()(x, y))


@pytest.mark.parametrize("shapes, dtype, pattern", [
    (((65, 4), (65, 4)), torch.float32, r"^x: axis 0 is 65, above max 64 of 'b'$"),
    (((0, 4), (0, 4)), torch.float32, r"^x: axis 0 is 0, below min 1 of 'b'$"),
    (((6, 4), (5, 4)), torch.float32,
     r"^y: axis 0 is 5, but x: axis 0 is 6; both are 'b' and must be equal$"),
    (((6, 5), (6, 4)), torch.float32, r"^x: axis 1 is 5, expected 4 \(static\)$"),
    (((6,), (6, 4)), torch.float32, r"^x: rank is 1, expected 2 \(shape \(b, 4\)\)$"),
    (((6, 4), (6, 4)), torch.float64, r"^x: dtype is float64, expected float32$"),
])
def test_shape_errors_name_input_axis_value_rule(shared, shapes, dtype, pattern):
    args = [torch.zeros(s, dtype=dtype) for s in shapes]
    with pytest.raises(symhlo.ShapeError, match=pattern):
        shared(*args)
    with pytest.raises(ValueError, match=pattern):  # ShapeError is a ValueError
        shared.check(*args)


def test_wrong_number_of_inputs(shared):
    with pytest.raises(symhlo.ShapeError, match=r"^missing argument 'y' \(the program takes \(x, y\)\)$"):
        shared(torch.zeros(3, 4))
    with pytest.raises(symhlo.ShapeError, match=r"expected 2 tensor input\(s\) \(x, y\), got 1"):
        shared.call_tensors(torch.zeros(3, 4))


@pytest.mark.parametrize("h", [2, 5, 32])
def test_derived_dims_match_eager(derived, h):
    _, cm = derived
    x, y = torch.randn(h + 1, 3), torch.randn(2 * h, 3)
    for got, want in zip(cm(x, y), Derived()(x, y)):
        torch.testing.assert_close(got, want)


@pytest.mark.parametrize("shapes, pattern", [
    (((6, 3), (9, 3)), r"^y: axis 0 is 9, but must be 2\*h = 10 \(h = 5 from x: axis 0\)$"),
    (((6, 3), (12, 3)), r"^y: axis 0 is 12, but must be 2\*h = 10"),
    (((34, 3), (66, 3)), r"^x: axis 0 is 34, so h = 33, above max 32 of 'h'$"),
    (((2, 3), (2, 3)), r"^x: axis 0 is 2, so h = 1, below min 2 of 'h'$"),
])
def test_derived_relations_are_checked(derived, shapes, pattern):
    _, cm = derived
    with pytest.raises(symhlo.ShapeError, match=pattern):
        cm(*[torch.randn(s) for s in shapes])


def test_odd_size_for_even_dim():
    class Half(torch.nn.Module):
        def forward(self, y):
            return y.reshape(2, -1, 3).sum(0)

    prog = symhlo.export(Half(), (torch.randn(8, 3),), dynamic_shapes=({0: 2 * Dim("h", min=1, max=64)},))
    with pytest.raises(symhlo.ShapeError, match=r"^y: axis 0 is 9, but must be 2\*h for some integer h$"):
        prog.symbols.check([(9, 3)])
    assert prog.symbols.check([(10, 3)]) != {}


def test_exported_program_with_derived_dims(derived):
    prog, _ = derived
    h = Dim("h", min=2, max=32)
    ep = torch.export.export(Derived(), (torch.randn(9, 3), torch.randn(16, 3)),
                             dynamic_shapes=({0: h + 1}, {0: 2 * h}))
    cm = symhlo.compile(ep)
    x, y = torch.randn(4, 3), torch.randn(6, 3)
    for got, want in zip(cm(x, y), Derived()(x, y)):
        torch.testing.assert_close(got, want)
    with pytest.raises(symhlo.ShapeError, match=r"y: axis 0 is 8, but must be 2\*\w+ = 6"):
        cm(torch.randn(4, 3), torch.randn(8, 3))


def test_unbounded_axis_runs_large_and_checks_nothing_above():
    class Scale(torch.nn.Module):
        def forward(self, x):
            return x * 3 - 1

    cm = symhlo.compile(Scale(), inputs=[symhlo.Input(min_shape=(1, 2), max_shape=(None, 2), name="x")])
    (dim,) = cm.dims
    assert dim.max is None and dim.unbounded and dim.bindings == [("x", 0)]
    x = torch.randn(100_000, 2)
    torch.testing.assert_close(cm(x), Scale()(x))
    with pytest.raises(symhlo.ShapeError, match=r"^x: axis 1 is 3, expected 2 \(static\)$"):
        cm(torch.randn(5, 3))


def test_input_name_defaults_to_parameter_name():
    class Named(torch.nn.Module):
        def forward(self, tokens):
            return tokens + 1

    cm = symhlo.compile(Named(), inputs=[symhlo.Input(min_shape=(1,), max_shape=(8,))])
    with pytest.raises(symhlo.ShapeError, match=r"^tokens: axis 0 is 9, above max 8 of 'tokens_0'$"):
        cm(torch.zeros(9))


def test_unknown_option_is_rejected():
    with pytest.raises(ValueError, match=r"unknown option 'flags' \(valid: iree_flags, target_arch, opt_variant\)"):
        symhlo.compile(AddMul(), inputs=[symhlo.Input(opt_shape=(2, 4))] * 2, options={"flags": []})


def test_float64_and_zero_d_inputs_keep_their_dtype():
    class Mix(torch.nn.Module):
        def forward(self, x, s):
            return x * s + 1, (x * s).sum()

    cm = symhlo.compile(Mix(), inputs=[
        symhlo.Input(min_shape=(1, 3), max_shape=(8, 3), dtype=torch.float64, name="x"),
        symhlo.Input(opt_shape=(), dtype=torch.float64, name="s")])
    x, s = torch.randn(5, 3, dtype=torch.float64), torch.tensor(2.5, dtype=torch.float64)
    got = cm(x, s)
    assert [g.dtype for g in got] == [torch.float64, torch.float64] and got[1].dim() == 0
    for g, w in zip(got, Mix()(x, s)):  # IREE computes in f32 (its default f64 demotion)
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    with pytest.raises(symhlo.ShapeError, match=r"^s: rank is 1, expected 0 \(shape \(\)\)$"):
        cm(x, torch.tensor([2.5], dtype=torch.float64))


class NestedInputs(torch.nn.Module):
    """Inputs inside a tuple and a dict: torch.export's guards read `L['pair'][1].size()[0]`."""

    def forward(self, pair, d):
        n = pair[1].shape[0]
        return pair[0][:n] * 2 + d["k"][:n]


def test_guards_on_nested_inputs_are_checked_at_call_time():
    """`y[:n]` relations on inputs inside a tuple / dict argument are checked before a call (they
    were dropped: the call with pair[1] longer than pair[0] ran and read past pair[0])."""
    x, y, k = torch.randn(8, 3), torch.randn(5, 3), torch.randn(8, 3)
    auto = {0: Dim.AUTO}
    ep = torch.export.export(NestedInputs(), ((x, y), {"k": k}),
                             dynamic_shapes=((auto, auto), {"k": auto}))
    cm = symhlo.compile(ep)
    assert cm.symbols.relations == ["pair_1_dim0 <= pair_0_dim0", "pair_1_dim0 <= d_k_dim0"]
    args = ((torch.randn(6, 3), torch.randn(4, 3)), {"k": torch.randn(6, 3)})
    torch.testing.assert_close(cm(*args), NestedInputs()(*args))
    with pytest.raises(symhlo.ShapeError, match=r"break 'pair_1_dim0 <= pair_0_dim0'.*"
                       r"pair_0_dim0 = 4 from pair_0: axis 0, pair_1_dim0 = 6 from pair_1"):
        cm((torch.randn(4, 3), torch.randn(6, 3)), {"k": torch.randn(4, 3)})


def test_float_guards_are_checked_at_call_time():
    """torch.export pins `interpolate(x, scale_factor=1.7, mode="area")`'s output size with a
    float guard (`math.trunc(1.7 * torch.sym_float(n)) == 6`); it was dropped as unparseable and
    a call at n = 5 returned 6 columns where eager has 8."""
    class Area(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.interpolate(x, scale_factor=1.7, mode="area")

    auto = Dim.AUTO
    cm = symhlo.compile(torch.export.export(Area(), (torch.randn(2, 3, 4),),
                                            dynamic_shapes=({0: auto, 1: auto, 2: auto},)))
    x = torch.randn(3, 5, 4)
    torch.testing.assert_close(cm(x), Area()(x))
    with pytest.raises(symhlo.ShapeError,
                       match=r"math\.trunc\(1\.7\*torch\.sym_float\(x_dim2\)\) == 6"):
        cm(torch.randn(3, 5, 5))


def test_unreadable_size_guards_are_reported_not_dropped():
    """A guard on input sizes that no relation can express is listed (symhlo.export refuses such
    a program) instead of being skipped; guards on other things (strides) stay out."""
    import sympy
    from types import SimpleNamespace

    from symhlo.contract.dims import InputSpec, relations_from_guards

    n = sympy.Symbol("s0", integer=True, positive=True)
    ep = SimpleNamespace(_guards_code=[
        "L['x'].size()[0] >= 3",
        "L['x'].size()[0] in (4, 8)",                    # `in`: not a comparison we read
        "L['x'].stride()[0] == 1",
    ])
    unparsed = []
    assert relations_from_guards(ep, [InputSpec("x", "float32", [n, 4])], unparsed) == ["s0 >= 3"]
    assert unparsed == ["L['x'].size()[0] in (4, 8)"]


def test_control_flow_modules_compile_with_four_byte_offsets():
    """IREE 3.13 folded a packed `?x?` loop state's offset to another's at its default 64-byte
    alignment (README, Control flow): a module with a stablehlo.while / if / case gets
    `--iree-stream-resource-min-offset-alignment=4`, one without keeps IREE's default, and a
    user's own alignment flag wins."""
    from symhlo.backend.compiler import control_flow_offset_flags

    loop = "%0:2 = stablehlo.while(%a = %x) : tensor<?xf32>\n"
    branch = '%0 = "stablehlo.if"(%p) ({\n'
    plain = "%0 = stablehlo.add %x, %x : tensor<?xf32>\n"
    flag = "--iree-stream-resource-min-offset-alignment"
    assert control_flow_offset_flags(loop, []) == [f"{flag}=4"]
    assert control_flow_offset_flags(branch, ["--iree-llvmcpu-target-cpu=host"]) == [f"{flag}=4"]
    assert control_flow_offset_flags(plain, []) == []
    assert control_flow_offset_flags("%0 = scf.if %p -> (tensor<?xf32>) {\n", []) == [f"{flag}=4"]
    assert control_flow_offset_flags(loop, [f"{flag}=64"]) == []


def test_dynamic_cpu_modules_compile_with_a_smaller_matmul_tile_budget(monkeypatch):
    """IREE sizes a `?`-row matmul's workgroups as if the rows were many (README, Performance):
    a CPU module with a `?` dim is compiled with `--iree-llvmcpu-matmul-tile-bytes=131072`, a
    static one keeps IREE's default, a user's own budget wins, and the dynamic module still
    equals eager at a size of a single workgroup and at one of many."""
    from symhlo.backend import compiler

    seen = []
    compile_str = compiler._iree_compile
    monkeypatch.setattr(compiler, "_iree_compile",
                        lambda text, target, flags: seen.append(flags) or compile_str(text, target, flags))
    flag = "--iree-llvmcpu-matmul-tile-bytes"
    torch.manual_seed(0)
    lin = torch.nn.Linear(256, 256).eval()
    dyn = symhlo.compile(lin, args=(torch.randn(32, 256),), dynamic_shapes=({0: Dim("n", max=4096)},))
    assert [f for f in seen[-1] if f.startswith(flag)] == [f"{flag}=131072"]
    with torch.no_grad():
        for n in (1, 32, 1000):
            x = torch.randn(n, 256)
            torch.testing.assert_close(dyn(x), lin(x), rtol=1e-4, atol=1e-4)
    symhlo.compile(lin, args=(torch.randn(32, 256),))
    assert not [f for f in seen[-1] if f.startswith(flag)]
    symhlo.compile(lin, args=(torch.randn(32, 256),), dynamic_shapes=({0: Dim("n", max=4096)},),
                   options={"iree_flags": [f"{flag}=65536"]})
    assert [f for f in seen[-1] if f.startswith(flag)] == [f"{flag}=65536"]


class RowDot(torch.nn.Module):
    """out[b, i] = sum_j a[b, i, j] * x[b, j]: a reduction over a `?x?x?` product."""

    def forward(self, a, x):
        return (a * x[:, None, :]).sum(-1).relu()


def test_reductions_over_all_dynamic_loops_compile_without_peeled_vectors(monkeypatch):
    """IREE 3.13 peels a reduction whose loops are all `?` at every tiling level and the copies
    multiply (README, Performance: RowDot took 14.6 s to compile peeled, 0.8 s masked; LU
    31.6 s for one dispatch): a CPU module holding one keeps IREE's masked vectors, every other
    CPU module asks for peeled ones, a user's own strategy wins, and the masked module equals
    eager at several sizes."""
    from symhlo.backend import compiler

    seen = []
    compile_str = compiler._iree_compile
    monkeypatch.setattr(compiler, "_iree_compile",
                        lambda text, target, flags: seen.append(flags) or compile_str(text, target, flags))
    flag = "--iree-llvmcpu-vector-pproc-strategy"
    b, i, j = Dim("b", max=64), Dim("i", max=64), Dim("j", max=64)
    dims = ({0: b, 1: i, 2: j}, {0: b, 1: j})
    cm = symhlo.compile(RowDot(), args=(torch.randn(3, 5, 7), torch.randn(3, 7)), dynamic_shapes=dims)
    assert not [f for f in seen[-1] if f.startswith(flag)]
    gen = torch.Generator().manual_seed(0)
    for shape in ((1, 2, 2), (3, 17, 33), (8, 64, 64)):
        a, x = torch.randn(*shape, generator=gen), torch.randn(shape[0], shape[2], generator=gen)
        torch.testing.assert_close(cm(a, x), RowDot()(a, x), rtol=1e-5, atol=1e-5)
    # a static dim among the reduction's loops (channels, heads): peeled
    symhlo.compile(RowDot(), args=(torch.randn(3, 5, 7), torch.randn(3, 7)),
                   dynamic_shapes=({0: b, 1: i}, {0: b}))
    assert [f for f in seen[-1] if f.startswith(flag)] == [f"{flag}=peel"]
    assert compiler.vector_peel_flags(cm.stablehlo, [f"{flag}=none"]) == []
    loops = "%1 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [2] : " \
            "(tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>\n"
    assert compiler.peel_explodes(loops)
    assert not compiler.peel_explodes(loops.replace("?x?x?xf32", "?x8x?xf32"))
    assert not compiler.peel_explodes(loops.replace("?x?x?xf32", "?x?xf32"))
