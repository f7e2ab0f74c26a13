"""symhlo.Input: forms, validation errors quoting what the user wrote, shared symbols, profiles."""

import pytest
import torch

import symhlo
from symhlo.contract.inputs import inputs_to_export_spec, profile_groups, symbol_ranges


def test_named_shape_is_dynamic_from_one_to_unbounded():
    inp = symhlo.Input(shape=("batch", 16), name="x")
    assert inp.min_shape == (1, 16) and inp.max_shape == (None, 16)
    assert inp.dim_names == ("batch", None)
    assert inp.is_dynamic(0) and not inp.is_dynamic(1)


def test_min_opt_max_with_unbounded_axis():
    inp = symhlo.Input(min_shape=(1, 3), opt_shape=(8, 3), max_shape=(None, 3), dims=("b", None))
    assert (inp.min_shape, inp.opt_shape, inp.max_shape) == ((1, 3), (8, 3), (None, 3))
    assert inp.is_dynamic(0) and not inp.is_dynamic(1)


def test_opt_shape_alone_is_static():
    inp = symhlo.Input(opt_shape=(2, 5))
    assert inp.min_shape == inp.max_shape == (2, 5)
    assert not any(inp.is_dynamic(a) for a in range(2))


def test_static_shape():
    inp = symhlo.Input((1, 3, 224, 224))
    assert inp.min_shape == inp.max_shape == (1, 3, 224, 224)


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(min_shape=(8, 16), opt_shape=(4, 16), max_shape=(64, 16), name="x"),
     r"Input 'x': axis 0 needs min <= opt <= max, got min 8 > opt 4 \(min_shape=\(8, 16\), "
     r"opt_shape=\(4, 16\), max_shape=\(64, 16\)\)"),
    (dict(min_shape=(1, 16), opt_shape=(80, 16), max_shape=(64, 16)),
     r"Input: axis 0 needs min <= opt <= max, got opt 80 > max 64"),
    (dict(min_shape=(1, 16), max_shape=(64,)),
     r"min_shape=\(1, 16\), max_shape=\(64,\) differ in rank"),
    (dict(min_shape=(1, 16), name="q"),
     r"Input 'q': max_shape is missing \(max_shape may hold None for unbounded axes\)"),
    (dict(shape=("my batch", 3)),
     r"shape=\('my batch', 3\) has 'my batch' at axis 0; a symbol name must be a Python identifier"),
    (dict(shape=("b", 3), dims=("c", None)),
     r"axis 0 is named 'b' in shape=\('b', 3\) but 'c' in dims=\('c', None\)"),
    (dict(shape=(2, 3), min_shape=(1, 3), max_shape=(4, 3)),
     r"shape=\(2, 3\) says axis 0 is 2 but min_shape=\(1, 3\) says 1"),
    (dict(shape=(1.5, 3)), r"shape=\(1\.5, 3\) has 1\.5 at axis 0"),
    (dict(min_shape=(1, -2), max_shape=(4, 4)), r"min_shape=\(1, -2\) has -2 at axis 1; use an int >= 0"),
    (dict(min_shape=(None, 2), max_shape=(4, 4)), r"min_shape=\(None, 2\) has None at axis 0"),
    (dict(shape=(2, 3), dtype="float32"), r"dtype='float32' is not a torch.dtype"),
    (dict(min_shape=(1, 2), max_shape=(4, 2), dims=("a",)),
     r"dims=\('a',\) has 1 entries for a rank-2 input"),
    (dict(shape=("b", 2), dims=("b", "2x")), r"dims=\('b', '2x'\) has '2x' at axis 1"),
    (dict(shape="b"), r"shape='b' must be a tuple or list"),
    (dict(profiles=[dict(min_shape=(1,), max_shape=(1,)), dict(min_shape=(2, 2), max_shape=(4, 4))]),
     r"profiles have different ranks: profiles\[0\] has rank 1, profiles\[1\] has rank 2"),
    (dict(profiles=[dict(min=(1,), max_shape=(2,))], name="t"),
     r"Input 't' profiles\[0\]: unknown key 'min' \(valid: min_shape, opt_shape, max_shape\)"),
    (dict(profiles=[dict(min_shape=(4,), opt_shape=(2,), max_shape=(8,))]),
     r"Input profiles\[0\]: axis 0 needs min <= opt <= max, got min 4 > opt 2"),
    (dict(profiles=[], name="t"), r"Input 't': profiles=\[\] must be a non-empty list"),
    (dict(min_shape=(1,), max_shape=(2,), profiles=[dict(min_shape=(1,), max_shape=(2,))]),
     r"give either profiles= or min_shape/opt_shape/max_shape, not both"),
])
def test_validation_errors_quote_the_user(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        symhlo.Input(**kwargs)


def test_profiles_union_and_split():
    inp = symhlo.Input(name="tok", dims=("seq", None), profiles=[
        dict(min_shape=(1, 8), opt_shape=(1, 8), max_shape=(1, 8)),
        dict(min_shape=(32, 8), opt_shape=(128, 8), max_shape=(256, 8))])
    assert inp.min_shape == (1, 8) and inp.max_shape == (256, 8) and inp.opt_shape == (1, 8)
    other = symhlo.Input(min_shape=(2,), max_shape=(4,), name="o")
    groups = profile_groups([inp, other])
    assert len(groups) == 2
    assert groups[1][0].min_shape == (32, 8) and groups[1][0].max_shape == (256, 8)
    assert groups[0][1] is other and groups[1][1] is other
    assert groups[0][0].dim_names == ("seq", None)


def test_profile_counts_must_agree():
    a = symhlo.Input(name="a", profiles=[dict(min_shape=(1,), max_shape=(1,))] * 2)
    b = symhlo.Input(name="b", profiles=[dict(min_shape=(1,), max_shape=(1,))] * 3)
    with pytest.raises(ValueError, match=r"different numbers of profiles: a has 2, b has 3"):
        profile_groups([a, b])


def test_shared_names_intersect_and_share_one_dim():
    x = symhlo.Input(shape=("b", 16), name="x")
    y = symhlo.Input(min_shape=(4, 2), opt_shape=(6, 2), max_shape=(8, 2), dims=("b", None), name="y")
    assert symbol_ranges([x, y])["b"] == (4, 8)
    args, specs, _ = inputs_to_export_spec([x, y])
    assert specs[0][0] is specs[1][0]
    assert specs[0][0].__name__ == "b" and specs[0][0].min == 4 and specs[0][0].max == 8
    assert args[0].shape[0] == args[1].shape[0] == 4  # one example size for the shared symbol
    assert 1 not in specs[0]  # the static axis has no Dim


def test_shared_names_with_disjoint_ranges_fail():
    x = symhlo.Input(min_shape=(1, 16), max_shape=(2, 16), dims=("b", None), name="x")
    y = symhlo.Input(min_shape=(4, 2), max_shape=(8, 2), dims=("b", None), name="y")
    with pytest.raises(ValueError, match=r"symbol 'b' is \[1, 2\] at x axis 0 but \[4, 8\] at y axis 0"):
        inputs_to_export_spec([x, y])


def test_example_moves_dynamic_axes_off_zero_and_one():
    args, specs, _ = inputs_to_export_spec([symhlo.Input(min_shape=(1, 3), max_shape=(None, 3))])
    assert args[0].shape == (2, 3)
    assert specs[0][0].min == 1 and args[0].dtype == torch.float32
