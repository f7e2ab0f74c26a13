"""options={"opt_variant": True}: a static module at the inputs' opt shapes beside the dynamic one;
calls of exactly the opt shapes run on the static module, every other size on the dynamic one."""

import pytest
import torch

import symhlo


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x, mask):
        return torch.tanh(self.fc(x)) * mask[..., None]


MODEL = Block().eval()
INPUTS = [symhlo.Input(min_shape=(1, 2, 16), opt_shape=(4, 8, 16), max_shape=(8, 64, 16),
                       dims=("batch", "seq", None), name="x"),
          symhlo.Input(shape=("batch", "seq"), min_shape=(1, 2), opt_shape=(4, 8), max_shape=(8, 64),
                       name="mask")]


@pytest.fixture(scope="module")
def cm():
    before = symhlo.stats()["iree_compiles"]
    cm = symhlo.compile(MODEL, inputs=INPUTS, options={"opt_variant": True})
    assert symhlo.stats()["iree_compiles"] == before + 2  # static at opt + the dynamic module
    return cm


def test_static_variant_first(cm):
    static, dynamic = cm.profiles
    assert static.static and not dynamic.static
    assert str(static) == "profile 0: x (4, 8, 16); mask (4, 8)"
    assert str(dynamic) == "profile 1: x (1..8, 2..64, 16); mask (1..8, 2..64)"
    assert cm.variants[0].symbols.inputs[0].shape == [4, 8, 16]


@pytest.mark.parametrize("b, s, profile", [(4, 8, 0), (4, 9, 1), (1, 2, 1), (8, 64, 1), (3, 8, 1)])
def test_dispatch_and_numbers(cm, b, s, profile):
    x, mask = torch.randn(b, s, 16), (torch.rand(b, s) > 0.5).float()
    assert cm.profile_for(x, mask) == profile
    torch.testing.assert_close(cm(x, mask), MODEL(x, mask), rtol=1e-5, atol=1e-6)


def test_outside_every_range_names_the_rule(cm):
    with pytest.raises(symhlo.ShapeError, match="above max 64 of 'seq'"):
        cm(torch.randn(4, 65, 16), torch.ones(4, 65))


def test_needs_ranges_without_profiles():
    with pytest.raises(ValueError, match="needs inputs="):
        symhlo.compile(MODEL, (torch.randn(2, 3, 16), torch.ones(2, 3)), options={"opt_variant": True})
    prof = symhlo.Input(profiles=[dict(min_shape=(1, 16), opt_shape=(1, 16), max_shape=(1, 16))])
    with pytest.raises(ValueError, match="without profiles="):
        symhlo.compile(torch.nn.Linear(16, 2), inputs=[prof], options={"opt_variant": True})
    with pytest.raises(ValueError, match="True or False"):
        symhlo.compile(MODEL, inputs=INPUTS, options={"opt_variant": "yes"})


def test_refused_for_an_exported_program():
    ep = torch.export.export(torch.nn.Linear(16, 2), (torch.randn(3, 16),))
    with pytest.raises(symhlo.SymhloError, match="needs an nn.Module"):
        symhlo.compile(ep, inputs=[symhlo.Input(min_shape=(1, 16), opt_shape=(3, 16),
                                                max_shape=(8, 16))], options={"opt_variant": True})
