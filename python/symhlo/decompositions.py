"""ATen decompositions symhlo adds to torch-mlir's table before import, for ops whose upstream
lowering loses or cannot express a symbolic size.

Each one rewrites an op into ATen ops that torch-mlir lowers to StableHLO with the sizes kept
symbolic (`?`); none of them pins a size to the example's.
"""

from __future__ import annotations

from typing import Callable

import torch

aten = torch.ops.aten


def _integer_scales(scale_factors, rank: int) -> list[int] | None:
    if scale_factors is None or len(scale_factors) != rank:
        return None
    scales = [float(s) for s in scale_factors]
    if not all(s >= 1 and s == int(s) for s in scales):
        return None
    return [int(s) for s in scales]


def upsample_nearest_vec(x: torch.Tensor, output_size, scale_factors) -> torch.Tensor:
    """aten.upsample_nearest{1,2}d.vec with integer scale factors -> expand + reshape.

    torch picks source index floor(dst / s) for an integer scale s, i.e. each pixel repeated s
    times: N x C x H x W -> N x C x H x 1 x W x 1 -> expand to N x C x H x s x W x s -> reshape to
    N x C x (H*s) x (W*s). torch-mlir's own path keeps `aten.__interpolate` (no StableHLO
    lowering), and torch's decomposition needs `sym_float`, which the FX importer rejects.
    Other forms (an explicit output_size, fractional scales) return NotImplemented, so torch keeps
    the op and the unsupported-op error names it.
    """
    spatial = x.dim() - 2
    scales = _integer_scales(scale_factors, spatial) if output_size is None else None
    if scales is None or spatial not in (1, 2):
        return NotImplemented
    lead = list(x.shape[:2])
    sizes = list(x.shape[2:])
    index: list = [slice(None), slice(None)]
    expanded = list(lead)
    merged = list(lead)
    for size, s in zip(sizes, scales):
        index += [slice(None), None]
        expanded += [size, s]
        merged.append(size * s)
    return x[tuple(index)].expand(expanded).reshape(merged)


def symhlo_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """The decompositions symhlo applies on top of torch-mlir's table."""
    return {
        aten.upsample_nearest1d.vec: upsample_nearest_vec,
        aten.upsample_nearest2d.vec: upsample_nearest_vec,
    }
