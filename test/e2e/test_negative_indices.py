"""Negative and multi-axis indices (symhlo/indexing.py): torch wraps a negative index i of an
axis of size n to i + n; StableHLO's gather/scatter clamp start indices instead, so before the
wrapping decompositions `x[:, [-2]]` silently read column 0 (Falcon's multi-query attention,
logits off by ~0.4) and `take` / advanced indexing read the wrong elements.

One module per form, compiled once with every axis `?` (also the index count), run at three
sizes with indices drawn from [-n, n) of the axis they index; results must equal eager exactly.
"""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

from e2e_harness import check_model

FORMS = {
    "x[i]": lambda x, i, j: x[i],
    "x[:, i]": lambda x, i, j: x[:, i],
    "x[..., i]": lambda x, i, j: x[..., i],
    "x[i, j]": lambda x, i, j: x[i, j],
    "x[:, i, j]": lambda x, i, j: x[:, i, j],
    "x[i, :, j]": lambda x, i, j: x[i, :, j],            # separated: the index shape goes first
    "x[i[:, None], j]": lambda x, i, j: x[i[:, None], j],  # broadcast index shapes
    "x[:, [-2]] + x[:, [-1]]": lambda x, i, j: x[:, [-2]] + x[:, [-1]],  # constant indices
    "take": lambda x, i, j: x.take(i),
    "index_fill": lambda x, i, j: x.index_fill(1, i, -7.0),
    "index_put": lambda x, i, j: x.index_put((i, j), torch.tensor(5.0)),
    "index_put accumulate": lambda x, i, j: x.index_put((i, j), torch.tensor(1.0), accumulate=True),
}


class Form(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x, i, j):
        return self.f(x, i, j)


def args(a: int, b: int, c: int, n: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    lim = min(a, b, c)
    return (torch.randn(a, b, c, generator=g), torch.randint(-lim, lim, (n,), generator=g),
            torch.randint(-lim, lim, (n,), generator=g))


@pytest.mark.parametrize("form", list(FORMS))
def test_negative_and_multi_axis_indices(form):
    n = Dim("n", min=2, max=64)
    spec = ({0: Dim("a", min=2, max=64), 1: Dim("b", min=2, max=64), 2: Dim("c", min=2, max=64)},
            {0: n}, {0: n})
    check_model(f"indexing {form}", Form(FORMS[form]), args(3, 4, 5, 3, 0), spec,
                [args(2, 2, 2, 2, 1), args(6, 3, 7, 5, 2), args(4, 9, 3, 11, 3)],
                rtol=0, atol=0)
