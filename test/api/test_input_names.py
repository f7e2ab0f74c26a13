"""symhlo.Input(name=...) binds to the forward parameter of that name (not by position); a name
that matches no parameter is refused, listing the parameters."""

import pytest
import torch

import symhlo


class Masked(torch.nn.Module):
    """Like a transformers forward: an optional parameter sits between the two given."""

    def forward(self, input_ids, past=None, attention_mask=None):
        y = input_ids * 2.0
        if past is not None:
            y = y + past.sum()
        if attention_mask is not None:
            y = y * attention_mask
        return y


def test_named_input_binds_to_its_parameter_past_an_optional_one():
    cm = symhlo.compile(Masked(), inputs=[
        symhlo.Input(shape=("b", "s")),
        symhlo.Input(shape=("b", "s"), name="attention_mask")])
    for b, s in [(1, 3), (2, 5), (4, 9)]:
        ids, mask = torch.randn(b, s), (torch.rand(b, s) > 0.5).float()
        torch.testing.assert_close(cm(ids, attention_mask=mask), Masked()(ids, attention_mask=mask))
    # bound by name: passing it by position (where `past` is) is not the exported call
    with pytest.raises(symhlo.ShapeError, match=r"positional argument"):
        cm(ids, mask)
    with pytest.raises(symhlo.ShapeError, match=r"^attention_mask: axis 1 is 4, but input_ids: axis 1 is 9; both are 's'"):
        cm(ids, attention_mask=torch.ones(4, 4))


def test_named_inputs_in_another_order_than_the_parameters():
    def sub(x, y):
        return x.sum(0) - 2 * y.sum(0)

    cm = symhlo.compile(sub, inputs=[symhlo.Input(min_shape=(1, 3), max_shape=(8, 3), name="y"),
                                     symhlo.Input(min_shape=(1, 3), max_shape=(8, 3), name="x")])
    x, y = torch.randn(5, 3), torch.randn(2, 3)
    torch.testing.assert_close(cm(x, y), sub(x, y))
    torch.testing.assert_close(cm(y=y, x=x), sub(x, y))
    with pytest.raises(symhlo.ShapeError, match=r"^y: axis 0 is 9, above max 8"):
        cm(x, torch.randn(9, 3))


def test_unknown_name_is_refused_listing_the_parameters():
    with pytest.raises(ValueError, match=r"Input\(name='mask'\) matches no parameter of "
                                         r"Masked\.forward; its parameters are: input_ids, past, "
                                         r"attention_mask$"):
        symhlo.export(Masked(), inputs=[symhlo.Input(shape=("b", 3)),
                                        symhlo.Input(shape=("b", 3), name="mask")])


def test_same_parameter_twice_is_refused():
    with pytest.raises(ValueError, match=r"Input\(name='input_ids'\) is given twice \(inputs 0 and 1\)"):
        symhlo.export(Masked(), inputs=[symhlo.Input(shape=("b", 3), name="input_ids"),
                                        symhlo.Input(shape=("b", 3), name="input_ids")])
