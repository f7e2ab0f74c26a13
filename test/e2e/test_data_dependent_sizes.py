"""Sizes that only the data can name (torch.export's unbacked symbols `u0`) vs eager: nonzero,
boolean masks, masked_select, argwhere, where(cond), unique, unique_consecutive,
repeat_interleave, tensor_split by a tensor, combinations, `n = k.item()` with torch._check
feeding `x[:n]`.

Each model is compiled once with its batch axis unbounded and run at three or more inputs, among
them one whose data-dependent result is empty (no true element, zero repeats, n = 0) and one where
it is full (every element selected): the StableHLO result axis is `?`, sized at run time.
"""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import symhlo
from e2e_harness import check_model, check_pure, randn, seeded


class Masks(torch.nn.Module):
    def forward(self, x):
        m = x > 0
        return (torch.nonzero(m),                      # (u0, 2) coordinates
                x[m] * 2,                              # 1-d mask over a 2-d tensor
                x[x.sum(1) > 0],                       # row mask: (u1, 3)
                torch.masked_select(x, x[:, :1] < 0),  # broadcast mask
                torch.argwhere(x < -0.5),
                *torch.where(m),                       # one-argument where: one tensor per axis
                *torch.nonzero(x < 0, as_tuple=True))


def test_nonzero_masks_masked_select_argwhere_where():
    n = Dim("n")
    mixed = randn(9, 3)
    check_model("data_masks", Masks(), (randn(6, 3),), ({0: n},),
                [(mixed,), (-torch.ones(4, 3),), (torch.ones(5, 3),), (randn(1, 3),)])


class NonzeroOverSizes(torch.nn.Module):
    def forward(self, x):
        return torch.nonzero(x > 0), x[x < 0], *torch.where(x > 0.5)


def test_nonzero_over_three_dynamic_axes():
    """Every axis `?`: the coordinates divide the flat positions by symbolic sizes (a SymInt
    divisor failed in torch-mlir: "'torch.aten.div.Tensor_mode' op operand #1 must be Any Torch
    tensor type")."""
    a, b, c = Dim("a", max=64), Dim("b", max=64), Dim("c", max=64)
    check_model("data_nonzero_3d", NonzeroOverSizes(), (randn(2, 3, 4),), ({0: a, 1: b, 2: c},),
                [(randn(3, 5, 7),), (torch.ones(2, 2, 3),), (-torch.ones(1, 4, 2),),
                 (randn(4, 1, 6),)])


class GroupedMM(torch.nn.Module):
    def forward(self, x, w, offs):
        return torch.nn.functional.grouped_mm(x, w, offs=offs)


def test_grouped_mm_over_rows_counted_by_the_data():
    """aten._grouped_mm (bfloat16, as transformers' MoE experts call it): the rows of group i are
    offs[i-1]:offs[i], read from the data; one compile over `?` rows, an empty group included."""
    g = seeded(4)
    w = torch.randn(4, 16, 8, generator=g).to(torch.bfloat16)
    x = lambda n: torch.randn(n, 16, generator=g).to(torch.bfloat16)
    offs = lambda *o: torch.tensor(o, dtype=torch.int32)
    check_model("data_grouped_mm", GroupedMM(), (x(8), w, offs(2, 4, 6, 8)),
                ({0: Dim("s", min=2, max=256)}, None, None),
                [(x(13), w, offs(0, 5, 5, 13)), (x(5), w, offs(1, 2, 3, 5)),
                 (x(40), w, offs(40, 40, 40, 40))], atol=1e-2, rtol=1e-2)


class MaskAssign(torch.nn.Module):
    def forward(self, x, row):
        y = x.clone()
        y[y > 0] = 0                      # scalar: where, no data-dependent size
        z = x.clone()
        z[z[:, 0] > 0] = row              # a row broadcast over the selected rows
        w = x.clone()
        w[w < 0] += 1.5                   # values of the selection's length: scattered back
        q = x.clone()
        q[q[:, 1] > 0] = q[q[:, 1] > 0] * 3
        return y, z, w, q


def test_mask_assignment():
    n = Dim("n")
    check_model("data_mask_assign", MaskAssign(), (randn(6, 2), randn(2)), ({0: n}, None),
                [(randn(9, 2), randn(2)), (torch.ones(3, 2), randn(2)),
                 (-torch.ones(4, 2), randn(2))], expect_symbolic_outputs=True)


class Unique(torch.nn.Module):
    def forward(self, x):
        return (torch.unique(x, sorted=True, return_inverse=True, return_counts=True),
                torch.unique_consecutive(x, return_inverse=True, return_counts=True),
                torch.unique(x.flip(0)),
                torch.unique(x > 2, return_inverse=True, return_counts=True))   # bool: counted


def test_unique_and_unique_consecutive():
    n = Dim("n")
    g = seeded(3)
    check_model("data_unique", Unique(), (torch.randint(0, 5, (6,), generator=g),), ({0: n},),
                [(torch.randint(0, 4, (13,), generator=g),),   # repeats and runs
                 (torch.full((5,), 7),),                       # one value: a single run
                 (torch.arange(8) * 3 - 4,),                   # all distinct: full size
                 (torch.tensor([2, 2, 1, 1, 1, 2]),)])         # (x > 2 all False)


class RepeatInterleave(torch.nn.Module):
    def forward(self, x, counts):
        return torch.repeat_interleave(x, counts, dim=0), torch.repeat_interleave(counts)


@pytest.fixture(scope="module")
def repeat_interleave():
    """RepeatInterleave compiled once, checked against eager at 4 calls."""
    n = Dim("n")
    g = seeded(5)
    compiled: list = []
    check_model("data_repeat_interleave", RepeatInterleave(),
                (randn(6, 2), torch.randint(0, 3, (6,), generator=g)), ({0: n}, {0: n}),
                [(randn(8, 2), torch.randint(0, 4, (8,), generator=g)),
                 (randn(3, 2), torch.zeros(3, dtype=torch.int64)),   # empty
                 (randn(4, 2), torch.ones(4, dtype=torch.int64)),    # every row once
                 (randn(5, 2), torch.tensor([0, 5, 0, 1, 2]))], compiled=compiled)
    return compiled[0]


def test_repeat_interleave_by_counts(repeat_interleave):
    assert repeat_interleave.symbols.runtime_checks   # the total's `>= 0`: counts may be negative


def test_repeat_interleave_negative_count_raises(repeat_interleave):
    x, counts = randn(3, 2), torch.tensor([1, -1, 2])
    with pytest.raises(RuntimeError, match="negative"):
        torch.repeat_interleave(x, counts, dim=0)
    with pytest.raises(symhlo.RuntimeCheckError, match=r"failed at call time: .*u\d+ >= 0"):
        repeat_interleave(x, counts)


class Prefix(torch.nn.Module):
    def forward(self, x, k):
        n = k.item()
        torch._check(n >= 0)
        torch._check(n <= x.shape[0])
        return x[:n] * 2, x[n:].sum(0)


@pytest.fixture(scope="module")
def prefix():
    """Prefix compiled once (item + torch._check + x[:n]), with its program."""
    prog = symhlo.export(Prefix(), (randn(6, 2), torch.tensor(3)), dynamic_shapes=({0: Dim("n")}, None))
    check_pure(prog.text)
    return prog, symhlo.compile(prog)


@pytest.mark.parametrize("rows, k", [(8, 5), (3, 0), (4, 4), (1, 1)])
def test_item_check_slice(prefix, rows, k):
    _, cm = prefix
    x = randn(rows, 2)
    got, want = cm(x, torch.tensor(k)), Prefix()(x, torch.tensor(k))
    for g, w in zip(got, want):
        assert g.shape == w.shape
        torch.testing.assert_close(g, w)


def test_item_check_broken_at_call_time_raises(prefix):
    prog, cm = prefix
    assert any("<=" in c for c in prog.symbols.runtime_checks), prog.symbols.runtime_checks
    with pytest.raises(symhlo.RuntimeCheckError, match=r"call time: .*u\d+ <= n"):
        cm(randn(3, 2), torch.tensor(5))
    with pytest.raises(RuntimeError):   # eager refuses the same call
        torch.export.export(Prefix(), (randn(6, 2), torch.tensor(3)),
                            dynamic_shapes=({0: Dim("n")}, None)).module()(randn(3, 2), torch.tensor(5))


class Unchecked(torch.nn.Module):
    def forward(self, x, k):
        return x[:k.item()] + 1, x[k.item():]


def test_item_slice_without_checks_clamps_like_eager():
    """x[:n] with no torch._check: torch's slice rules (negative from the end, clamped to the
    axis) computed from n at run time."""
    check_model("data_item_unchecked", Unchecked(), (randn(6, 2), torch.tensor(3)),
                ({0: Dim("n")}, None),
                [(randn(5, 2), torch.tensor(7)), (randn(5, 2), torch.tensor(-2)),
                 (randn(4, 2), torch.tensor(0)), (randn(7, 2), torch.tensor(-9))])


class SplitsCombinations(torch.nn.Module):
    def forward(self, x, cuts, v):                  # x (n, 3), cuts (2,) int64, v (4,)
        rows = torch.tensor_split(x, cuts)          # x[:a], x[a:b], x[b:] with a, b from data
        cols = torch.tensor_split(x * 2, cuts, dim=1)
        return (*rows, *cols, torch.combinations(v, 1), torch.combinations(v + 1, 1, True))


def test_tensor_split_by_a_tensor_and_combinations():
    """tensor_split at indices read from a tensor (negative ones wrap, past the end and
    decreasing ones clamp to empty pieces, as eager's slices); combinations (torch.export
    traces it only with r = 1 and a static length: r >= 2 fails in torch's own fake kernel)."""
    n = Dim("n", min=2)
    cut = lambda a, b: torch.tensor([a, b])
    check_model("data_tensor_split", SplitsCombinations(), (randn(6, 3), cut(1, 4), randn(4)),
                ({0: n}, None, None),
                [(randn(5, 3), cut(-2, 10), randn(4)), (randn(9, 3), cut(3, 1), randn(4)),
                 (randn(2, 3), cut(0, 2), randn(4))])


class UniqueFloat(torch.nn.Module):
    def forward(self, x):
        return torch.unique(x)


def test_unique_of_floats_is_refused_by_name():
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"unsupported op 'aten\._unique2' at .*test_data_dependent_sizes\.py.*"
                             r"integer and bool tensors only"):
        symhlo.export(UniqueFloat(), (randn(6),), dynamic_shapes=({0: Dim("n")},))
