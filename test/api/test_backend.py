"""torch.compile(backend="symhlo"): one IREE compile for every size in range, ranges from Inputs."""

import importlib.metadata
import tomllib
from pathlib import Path

import pytest
import torch

import symhlo


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(16, 8)

    def forward(self, x, y):
        # uses y before x: dynamo's placeholder order differs from the argument order
        return self.fc(y * 0.5 + x).relu() * x.shape[0]


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _compiles():
    return symhlo.stats()["iree_compiles"]


def test_registered_on_import_and_declared_as_entry_point():
    from torch._dynamo.backends.registry import lookup_backend

    assert lookup_backend("symhlo") is symhlo.symhlo_backend
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["torch_dynamo_backends"]["symhlo"] == \
        "symhlo.backend.dynamo:symhlo_backend"
    eps = importlib.metadata.entry_points(group="torch_dynamo_backends")
    assert "symhlo" in eps.names


@torch.no_grad()
def test_dynamic_true_four_batch_sizes_one_iree_compile():
    model = Block().eval()
    compiled = torch.compile(model, backend="symhlo", dynamic=True, options={"target": "cpu"})
    before = _compiles()
    for b in (3, 5, 17, 40):
        x, y = torch.randn(b, 16), torch.randn(b, 16)
        torch.testing.assert_close(compiled(x, y), model(x, y), rtol=1e-5, atol=1e-5)
    assert _compiles() - before == 1


@torch.no_grad()
def test_input_ranges_map_by_argument_position_and_raise_outside():
    model = Block().eval()
    inputs = [symhlo.Input(min_shape=(2, 16), max_shape=(64, 16), dims=("batch", None), name="x"),
              symhlo.Input(min_shape=(2, 16), max_shape=(64, 16), dims=("batch", None), name="y")]
    compiled = torch.compile(model, backend="symhlo", dynamic=True,
                             options={"target": "cpu", "inputs": inputs})
    before = _compiles()
    for b in (2, 9, 64):
        x, y = torch.randn(b, 16), torch.randn(b, 16)
        torch.testing.assert_close(compiled(x, y), model(x, y), rtol=1e-5, atol=1e-5)
    with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 65, above max 64 of 'batch'$"):
        compiled(torch.randn(65, 16), torch.randn(65, 16))
    assert _compiles() - before == 1


def test_input_names_are_renamed_in_mains_contract(monkeypatch):
    """An Input's name replaces the traced argument's in @main's symhlo.arg_names (the one set of
    names), also where it is no Python identifier (the wrapper's parameter is `query_0`): the
    StableHLO, the vmfb's compiled checks and symhlo's ShapeError all say `query 0`."""
    from symhlo.backend import dynamo

    texts = []
    real = dynamo.symhlo_compile
    monkeypatch.setattr(dynamo, "symhlo_compile", lambda prog, **k: texts.append(prog.text) or real(prog, **k))
    model = Block().eval()
    inputs = [symhlo.Input(min_shape=(2, 16), max_shape=(64, 16), dims=("batch", None), name="query 0"),
              symhlo.Input(min_shape=(2, 16), max_shape=(64, 16), dims=("batch", None), name="2nd")]
    compiled = torch.compile(model, backend="symhlo", dynamic=True, options={"inputs": inputs})
    x, y = torch.randn(5, 16), torch.randn(5, 16)
    torch.testing.assert_close(compiled(x, y), model(x, y), rtol=1e-5, atol=1e-5)
    (text,) = texts
    assert 'symhlo.arg_names = ["query 0", "2nd"]' in text
    with pytest.raises(symhlo.ShapeError, match=r"^query 0: axis 0 is 65, above max 64 of 'batch'$"):
        compiled(torch.randn(65, 16), torch.randn(65, 16))


@torch.no_grad()
def test_mark_dynamic_with_different_ranges_per_argument():
    def f(a, b):
        return (b.sum(0) + a.mean(0)).tanh(), b * 2

    a0, b0 = torch.randn(4, 8), torch.randn(6, 8)
    torch._dynamo.mark_dynamic(a0, 0)
    torch._dynamo.mark_dynamic(b0, 0)
    inputs = [symhlo.Input(min_shape=(2, 8), max_shape=(32, 8), dims=("n", None)),
              symhlo.Input(min_shape=(2, 8), max_shape=(None, 8), dims=("m", None))]
    compiled = torch.compile(f, backend="symhlo", options={"inputs": inputs})
    before = _compiles()
    for n, m in [(4, 6), (3, 7), (32, 100), (9, 2)]:
        a, b = (a0, b0) if (n, m) == (4, 6) else (torch.randn(n, 8), torch.randn(m, 8))
        for got, want in zip(compiled(a, b), f(a, b)):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert _compiles() - before == 1
    with pytest.raises(symhlo.ShapeError, match=r"^a: axis 0 is 33, above max 32 of 'n'$"):
        compiled(torch.randn(33, 8), torch.randn(3, 8))


@torch.no_grad()
def test_first_call_outside_the_range_raises_shape_error():
    model = Block().eval()
    inputs = [symhlo.Input(min_shape=(1, 16), max_shape=(8, 16), name="x"),
              symhlo.Input(min_shape=(1, 16), max_shape=(8, 16), name="y")]
    compiled = torch.compile(model, backend="symhlo", dynamic=True, options={"inputs": inputs})
    with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 9, above max 8 of 'x_0'$"):
        compiled(torch.randn(9, 16), torch.randn(9, 16))


@torch.no_grad()
def test_graph_break_compiles_each_graph_once():
    class TwoGraphs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(1)
            self.l1, self.l2 = torch.nn.Linear(8, 8), torch.nn.Linear(8, 4)

        def forward(self, x):
            h = self.l1(x).relu()
            torch._dynamo.graph_break()
            return self.l2(h)

    model = TwoGraphs().eval()
    compiled = torch.compile(model, backend="symhlo", dynamic=True,
                             options={"inputs": [symhlo.Input(min_shape=(1, 8), max_shape=(16, 8), name="x")]})
    before = _compiles()
    for b in (2, 5, 16):
        x = torch.randn(b, 8)
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-5)
    assert _compiles() - before == 2
    with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 17, above max 16"):
        compiled(torch.randn(17, 8))


def test_bad_options_are_reported():
    model = Block().eval()
    with pytest.raises(Exception, match=r"unknown option 'mode_x'"):
        torch.compile(model, backend="symhlo", options={"mode_x": 1})(torch.randn(2, 16), torch.randn(2, 16))
    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"options\['inputs'\] has 1 Input\(s\) but forward\(\) takes 2 "
                                        r"tensor\(s\): x, y"):
        torch.compile(model, backend="symhlo", options={"inputs": [symhlo.Input(opt_shape=(2, 16))]})(
            torch.randn(2, 16), torch.randn(2, 16))


@torch.no_grad()
def test_python_scalars_float_and_int_pass_through_without_recompiling():
    def f(x, scale, n: int):
        return (x * scale).sum(0) + n

    compiled = torch.compile(f, backend="symhlo", dynamic=True)
    before = _compiles()
    for b, s in [(3, 2.0), (5, 0.5), (7, -1.5)]:  # floats become a (f64) tensor input: no recompile
        x = torch.randn(b, 4)
        torch.testing.assert_close(compiled(x, s, 4), f(x, s, 4), rtol=1e-5, atol=1e-5)
    assert _compiles() - before == 1
    x = torch.randn(2, 4)  # a symbolic int that is no tensor size: the length of an extra input
    torch.testing.assert_close(compiled(x, 3.0, 11), f(x, 3.0, 11), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(compiled(x, 3.0, 4), f(x, 3.0, 4), rtol=1e-5, atol=1e-5)
    assert _compiles() - before == 1


def test_int_argument_slicing_tensors_is_one_dynamic_module():
    """`x[:m] * mask[:m]` with an int m: torch.export refused the int specialized per value
    ("Not all values of x_0 satisfy the generated guard 7 <= L['x'].size()[0]"). m is the length
    of an extra input and dynamo's guard 0 <= m <= len(x) a torch._check: one compile for all m."""
    def f(x, mask, m: int):
        return x[:m] * mask[:m]

    compiled = torch.compile(f, backend="symhlo", dynamic=True)
    before = _compiles()
    for n, m in ((10, 4), (12, 7), (20, 3), (5, 5)):
        g = torch.Generator().manual_seed(n)
        x, mask = torch.randn(n, generator=g), torch.rand(n, generator=g) > 0.5
        got, want = compiled(x, mask, m), f(x, mask, m)
        assert got.shape == want.shape and torch.equal(got, want), (n, m)
    assert _compiles() - before == 1


class ScaledAttention(torch.nn.Module):
    """A float attribute used as sdpa's scale (transformers' `self.scaling`): with dynamic=True
    dynamo passes it as a 0-d tensor and the graph calls `.item()` on it, which torch.export
    could not guard ("Could not guard on data-dependent expression zuf0": every transformers
    LLM failed under torch.compile). The backend specializes it per value."""

    def __init__(self, scaling: float):
        super().__init__()
        self.scaling = scaling

    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=self.scaling) * self.scaling


def test_wrapped_python_scalar_specialized_per_value():
    m = ScaledAttention(0.3)
    cm = torch.compile(m, backend="symhlo", dynamic=True)
    before = _compiles()
    for b, s in [(2, 5), (3, 9), (1, 17)]:
        q, kv = torch.randn(b, 2, s, 8), torch.randn(b, 2, s + 3, 8)
        torch.testing.assert_close(cm(q, kv, kv), m(q, kv, kv), rtol=1e-5, atol=1e-5)
    m.scaling = 0.7  # another value: another variant, still right
    q, kv = torch.randn(2, 2, 6, 8), torch.randn(2, 2, 4, 8)
    torch.testing.assert_close(cm(q, kv, kv), m(q, kv, kv), rtol=1e-5, atol=1e-5)
