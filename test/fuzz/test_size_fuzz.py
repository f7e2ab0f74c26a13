"""The size fuzzer itself (size_fuzz.py), on real SymbolTables from symhlo.export and stand-in
compiled modules (no IREE compile): sizes stay inside ranges and relations, a failure is shrunk
to the smallest size that shows it and reported in one line, a raise counts as a crash."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import symhlo
import size_fuzz as F


class Scale(torch.nn.Module):
    def forward(self, x, y):
        return x * 2, y[: x.shape[0]] + 1


@pytest.fixture(scope="module")
def program():
    # x: (n, 4) with n in [2, 300]; y: (m, 4) with m <= 300 and (from the slice) n <= m
    n, m = Dim("n", min=2, max=300), Dim("m", min=2, max=300)
    return symhlo.export(Scale(), (torch.randn(5, 4), torch.randn(9, 4)),
                         dynamic_shapes=({0: n}, {0: m}))


def test_candidates_cover_min_one_tiles_primes_and_top():
    assert F.candidates(1, 100, full=True) == [1, 2, 3, 5, 7, 11, 13, 15, 16, 17, 31, 63, 64, 65,
                                               97, 99, 100]
    assert F.candidates(4, 16, full=True) == [4, 5, 7, 11, 13, 15, 16]
    assert 1 not in F.candidates(2, None, full=True)
    assert F.candidates(0, None, full=False) == [0, 1, 2, 3, 7, 17]


def test_assignments_stay_inside_ranges(program):
    syms = program.symbols
    base = syms.check([(5, 4), (9, 4)])
    envs = F.assignments(syms, base, full=True, seed=0)
    assert {tuple(sorted(e.values())) for e in envs} >= {(2, 2), (300, 300), (5, 300)}
    for env in envs:
        for s, v in env.items():
            lo, hi = syms.ranges[s]
            assert lo <= v <= hi


def test_resize_tiles_values():
    t = torch.arange(6).reshape(2, 3)
    assert F.resize(t, (3, 2)).tolist() == [[0, 1], [3, 4], [0, 1]]


def target(program, compiled, **kw):
    model = Scale()
    return F.Target("scale", compiled, program.symbols, model,
                    [((torch.randn(5, 4), torch.randn(9, 4)), {})], **kw)


def test_a_wrong_size_is_shrunk_and_reported_in_one_line(program, monkeypatch):
    monkeypatch.setenv("SYMHLO_FUZZ", "full")
    model = Scale()

    def wrong_from_17(x, y):                   # a "tile bug": wrong for every n > 16
        a, b = model(x, y)
        return (a + 1 if x.shape[0] > 16 else a), b

    with pytest.raises(AssertionError) as err:
        F.fuzz_model(target(program, wrong_from_17))
    line = str(err.value)
    assert "\n" not in line
    assert line.startswith("FUZZ scale: wrong at [(17, 4), (17, 4)] (m=17, n=17): output 0:"), line
    assert "repro: SYMHLO_FUZZ=full pytest" in line
    rec = F.RECORDS[-1]
    assert rec.wrong > 0 and rec.crash == 0 and rec.sizes > 10


def test_a_raise_is_a_crash_and_relations_skip(program, monkeypatch):
    monkeypatch.setenv("SYMHLO_FUZZ", "full")
    model = Scale()

    def crash_at_one_row(x, y):
        if x.shape[0] == 2 and y.shape[0] == 2:
            raise RuntimeError("boom")
        return model(x, y)

    with pytest.raises(AssertionError, match=r"^FUZZ scale: crash at \[\(2, 4\), \(2, 4\)\] "
                                             r"\(m=2, n=2\): RuntimeError: boom; repro"):
        F.fuzz_model(target(program, crash_at_one_row))
    assert F.RECORDS[-1].rejected > 0       # n > m broke the relation torch.export recorded


def test_equal_module_passes_and_off_does_nothing(program, monkeypatch):
    monkeypatch.setenv("SYMHLO_FUZZ", "fast")
    rec = F.fuzz_model(target(program, Scale()))
    assert rec.sizes >= 2 and rec.wrong == rec.crash == 0
    monkeypatch.setenv("SYMHLO_FUZZ", "off")
    assert F.fuzz_model(target(program, Scale())).calls == 0


def test_tie_picks_accept_another_equal_element_only():
    """The sort family's failing size (b=5, n=3): y tiled from 4 rows repeats row 0 as row 4, so
    topk(y, 2, 0, largest=False) ties in column 1 (231 at rows 0 and 4) and eager's order of the
    two is unspecified. Another pick of equal values passes; an unequal value, an element named
    twice, or any change without tie_picks fails."""
    nan = float("nan")
    y = torch.tensor([[nan, 231., -911.], [-660., nan, -2944.], [-96., 2343., nan],
                      [1753., 2960., -2267.], [nan, 231., -911.]])
    values, eager = torch.topk(y, 2, 0, largest=False)
    ours = eager.clone()
    ours[:, 1] = eager[:, 1].flip(0)                     # rows 0 and 4: both hold 231
    assert set(ours[:, 1].tolist()) == {0, 4}
    picks = {1: (y, 0, True)}
    F.compare((values, ours), (values, eager), 0, 0, True, picks)
    with pytest.raises(F.Mismatch, match="output 1"):
        F.compare((values, ours), (values, eager), 0, 0, True)
    other = eager.clone()
    other[0, 1] = 2                                      # 2343, not 231
    with pytest.raises(F.Mismatch, match="output 1"):
        F.compare((values, other), (values, eager), 0, 0, True, picks)
    twice = eager.clone()
    twice[:, 1] = 0                                      # row 0 named twice
    with pytest.raises(F.Mismatch, match="output 1"):
        F.compare((values, twice), (values, eager), 0, 0, True, picks)


def test_float_rounding_at_a_long_reduction_passes_only_as_accurate_as_eager():
    """A float32 output off eager's by rounding (a 4096-long dot product) passes when it is as
    close to eager's float64 result as eager's float32 result is; an error 100x that does not, nor
    does any difference when eager cannot run in float64 (a plain function)."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(4096, 8)
    x = torch.randn(3, 4096)
    with torch.no_grad():
        e = lin(x)
        truth = lin.double()(x.double())
    lin.float()
    eager_err = (e.double() - truth).abs().max().item()
    assert eager_err > 0
    near = (truth - (e.double() - truth)).float()      # eager's error, mirrored: as accurate
    far = e + 100 * max(eager_err, 1e-6)
    assert F.as_accurate_as_eager(lin, (x,), {}, near, e, rtol=0.0, atol=0.0)
    assert not F.as_accurate_as_eager(lin, (x,), {}, far, e, rtol=0.0, atol=0.0)
    assert not F.as_accurate_as_eager(lambda t: lin(t), (x,), {}, near, e, rtol=0.0, atol=0.0)
