"""Disjoint optimization profiles: one IREE module per profile, first-fit dispatch, save/load."""

import re

import pytest
import torch

import symhlo


class Step(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, tokens):
        return torch.tanh(self.fc(tokens)).sum(-1)


MODEL = Step().eval()
DECODE = dict(min_shape=(1, 16), opt_shape=(1, 16), max_shape=(1, 16))
PREFILL = dict(min_shape=(32, 16), opt_shape=(128, 16), max_shape=(256, 16))


@pytest.fixture(scope="module")
def cm():
    before = symhlo.stats()["iree_compiles"]
    cm = symhlo.compile(MODEL, inputs=[symhlo.Input(name="tokens", dims=("seq", None),
                                                    profiles=[DECODE, PREFILL])])
    assert symhlo.stats()["iree_compiles"] == before + 2  # one IREE module per profile
    return cm


def test_profiles_listed_in_declared_order(cm):
    p0, p1 = cm.profiles
    assert (p0.index, p1.index) == (0, 1)
    assert p0.static and not p1.static
    assert str(p0) == "profile 0: tokens (1, 16)"
    assert str(p1) == "profile 1: tokens (32..256, 16)"
    assert p1.opt_shapes == ((128, 16),)


def test_each_variant_is_specialized(cm):
    decode, prefill = cm.variants
    assert decode.symbols.inputs[0].shape == [1, 16]  # static at the opt shape
    assert [d.name for d in prefill.symbols.dims()] == ["seq"]
    assert prefill.symbols.ranges[next(iter(prefill.symbols.ranges))] == (32, 256)
    assert decode.vmfb != prefill.vmfb


def test_union_dims(cm):
    (seq,) = cm.dims
    assert (seq.name, seq.min, seq.max, seq.bindings) == ("seq", 1, 256, [("tokens", 0)])


@pytest.mark.parametrize("n, profile", [(1, 0), (32, 1), (100, 1), (256, 1)])
def test_dispatch_and_numbers(cm, n, profile):
    x = torch.randn(n, 16)
    assert cm.profile_for(x) == profile
    torch.testing.assert_close(cm(x), MODEL(x))


@pytest.mark.parametrize("n", [2, 31, 257])
def test_no_profile_fits_lists_every_profile(cm, n):
    pattern = (rf"no profile fits the call \(tokens \({n}, 16\)\):\n"
               rf"  profile 0: tokens \(1, 16\)  -- tokens: axis 0 is {n}, expected 1 \(static\)\n"
               rf"  profile 1: tokens \(32\.\.256, 16\)  -- tokens: axis 0 is {n}, "
               rf"(below min 32|above max 256) of 'seq'")
    with pytest.raises(symhlo.ShapeError, match=pattern):
        cm(torch.randn(n, 16))
    with pytest.raises(symhlo.ShapeError, match=pattern):
        cm.profile_for(torch.randn(n, 16))


def test_overlapping_profiles_take_the_first_that_fits():
    class Double(torch.nn.Module):
        def forward(self, x):
            return x * 2

    cm = symhlo.compile(Double(), inputs=[symhlo.Input(name="x", profiles=[
        dict(min_shape=(4,), opt_shape=(8,), max_shape=(16,)),
        dict(min_shape=(1,), opt_shape=(8,), max_shape=(64,))])])
    assert [cm.profile_for(torch.zeros(n)) for n in (1, 4, 16, 17)] == [1, 0, 0, 1]
    x = torch.randn(40)
    torch.testing.assert_close(cm(x), x * 2)


def test_save_load_keeps_every_variant(cm, tmp_path):
    path = tmp_path / "two.symhlo"
    cm.save(path)
    data = path.read_bytes()
    assert b"pickle" not in data[:64] and data.startswith(b"SYMHLO\x00\x01")
    cm2 = symhlo.load(path)
    assert [str(p) for p in cm2.profiles] == [str(p) for p in cm.profiles]
    assert [v.vmfb for v in cm2.variants] == [v.vmfb for v in cm.variants]
    for n, profile in [(1, 0), (64, 1)]:
        x = torch.randn(n, 16)
        assert cm2.profile_for(x) == profile
        torch.testing.assert_close(cm2(x), MODEL(x))
    with pytest.raises(symhlo.ShapeError, match=re.escape("no profile fits the call (tokens (3, 16))")):
        cm2(torch.randn(3, 16))


def test_profiles_need_a_module():
    ep = torch.export.export(MODEL, (torch.randn(2, 16),))
    with pytest.raises(symhlo.SymhloError, match=r"Input\(profiles=\.\.\.\) needs an nn\.Module"):
        symhlo.compile(ep, inputs=[symhlo.Input(profiles=[DECODE, PREFILL])])
