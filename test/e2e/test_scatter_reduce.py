"""Scatter reductions over `?` dims vs eager: scatter_reduce (sum / prod / mean / amax / amin,
with and without self), index_reduce, scatter(reduce=), put, masked_scatter, embedding with
max_norm, embedding_bag (sum / mean / max, padding_idx, per-sample weights, include_last_offset),
segment_reduce, nonzero_static.

torch-mlir lowers none of these to StableHLO; symhlo-lower-torch-scatter-reduce gives scatter_reduce
a stablehlo.scatter with its reducer and symhlo.frontend.decompositions.select builds the rest on
it. Indices are drawn per call so that they are valid at every size; duplicates are everywhere
except where eager's result would depend on the order of writes (plain scatter / put).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.export import Dim

from e2e_harness import check_model


def _gen(*shape) -> torch.Generator:
    return torch.Generator().manual_seed(sum(shape) * 7 + len(shape))


class Scatters(torch.nn.Module):
    def forward(self, x, index, src, xi, srci, idx1, source, mask, msrc, flat, vals, cols):
        out = []
        for reduce in ("sum", "prod", "mean", "amax", "amin"):
            for include_self in (True, False):
                out.append(x.scatter_reduce(0, index, src, reduce, include_self=include_self))
        out.append(xi.scatter_reduce(0, index, srci, "mean"))          # integer mean: floor
        out.append(xi.scatter_reduce(1, cols, xi[:, :2] * 3, "amax", include_self=False))
        for reduce in ("prod", "mean", "amax", "amin"):
            out.append(x.index_reduce(0, idx1, source, reduce, include_self=reduce != "mean"))
        out += [x.scatter(0, index, src, reduce="add"), x.scatter(0, index, src, reduce="multiply"),
                x.put(flat, vals, accumulate=True), x.put(flat[:1], vals[:1]),
                x.masked_scatter(mask, msrc), x * 2,                    # x read again afterwards
                # two scatters into equal zeros: IREE merged the two and added both sums into
                # one buffer (see symhlo-prepare-in-place-ops-for-iree)
                torch.zeros_like(x).scatter_add(0, index, src),
                torch.zeros_like(x).scatter_add(0, index.flip(0), src * 2)]
        return tuple(out)


def scatter_args(n: int, d: int, m: int, k: int):
    g = _gen(n, d, m, k)
    x = 0.5 + torch.rand(n, d, generator=g)
    index = torch.randint(0, n, (m, d), generator=g)
    src = 0.5 + torch.rand(m, d, generator=g)
    xi = torch.randint(-9, 9, (n, d), generator=g)
    srci = torch.randint(-9, 9, (m, d), generator=g)
    idx1 = torch.randint(0, n, (k,), generator=g)
    source = 0.5 + torch.rand(k, d, generator=g)
    mask = torch.rand(n, d, generator=g) > 0.5
    msrc = torch.randn(n, d, generator=g)
    flat = torch.randint(-n * d, n * d, (k,), generator=g)           # negative: from the end
    vals = torch.randn(k, generator=g)
    cols = torch.randint(0, 2, (n, 2), generator=g)                 # along dim 1
    return x, index, src, xi, srci, idx1, source, mask, msrc, flat, vals, cols


def test_scatter_reduce_index_reduce_put_masked_scatter():
    n, d, m, k = Dim("n", min=2, max=64), Dim("d", min=3, max=64), Dim("m", min=2, max=64), \
        Dim("k", min=2, max=64)
    dyn = ({0: n, 1: d}, {0: m, 1: d}, {0: m, 1: d}, {0: n, 1: d}, {0: m, 1: d}, {0: k},
           {0: k, 1: d}, {0: n, 1: d}, {0: n, 1: d}, {0: k}, {0: k}, {0: n})
    check_model("scatter reductions", Scatters(), scatter_args(5, 3, 7, 4), dyn,
                [scatter_args(*s) for s in [(4, 3, 6, 3), (9, 5, 20, 11), (30, 7, 64, 50)]],
                rtol=1e-4, atol=1e-4)


class Bags(torch.nn.Module):
    def forward(self, weight, ids, offsets, psw, ids2d, data, lengths, z):
        return (F.embedding(ids2d, weight.clone(), max_norm=1.0),
                F.embedding_bag(ids, weight, offsets, mode="sum", per_sample_weights=psw),
                F.embedding_bag(ids, weight, offsets, mode="mean", padding_idx=0),
                F.embedding_bag(ids, weight, offsets, mode="max"),
                F.embedding_bag(ids, weight, offsets, mode="sum", include_last_offset=True),
                F.embedding_bag(ids2d, weight, mode="mean"),
                torch.segment_reduce(data, "sum", lengths=lengths),
                torch.segment_reduce(data, "mean", lengths=lengths, initial=2.0),
                torch.segment_reduce(data, "max", lengths=lengths),
                torch.segment_reduce(data, "min", lengths=lengths, initial=0.5),
                torch.nonzero_static(z, size=6),
                torch.nonzero_static(z, size=2, fill_value=-3))


def bag_args(v: int, dim: int, l: int, b: int, s: int):
    g = _gen(v, dim, l, b, s)
    weight = torch.randn(v, dim, generator=g)
    ids = torch.randint(0, v, (l,), generator=g)
    cuts = torch.sort(torch.randint(0, l + 1, (b - 1,), generator=g)).values
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), cuts])     # empty bags included
    psw = torch.rand(l, generator=g)
    ids2d = torch.randint(0, v, (b, 3), generator=g)
    lengths = torch.randint(0, 4, (s,), generator=g)
    lengths[0] = 0                                                    # an empty segment
    data = torch.randn(int(lengths.sum()), dim, generator=g)
    z = (torch.rand(b, dim, generator=g) > 0.6).float()
    return weight, ids, offsets, psw, ids2d, data, lengths, z


def test_embedding_bag_segment_reduce_nonzero_static():
    """The table is static (torch.export specializes its sizes under embedding's max_norm);
    indices, bags, segments and data are `?`."""
    l, b, s, r = (Dim("l", min=2, max=64), Dim("b", min=3, max=64), Dim("s", min=2, max=64),
                  Dim("r", min=2, max=256))
    dyn = (None, {0: l}, {0: b}, {0: l}, {0: b}, {0: r}, {0: s}, {0: b})
    sizes = [(8, 4, 9, 3, 4), (8, 4, 17, 6, 9), (8, 4, 50, 11, 20)]
    args = [bag_args(*a) for a in sizes]
    args = [a for a in args if a[5].shape[0] >= 2]
    check_model("embedding_bag / segment_reduce", Bags(), bag_args(8, 4, 12, 4, 5), dyn, args,
                rtol=1e-4, atol=1e-4)
