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


def _adaptive_weights(n, o: int, dtype: torch.dtype) -> torch.Tensor:
    """(o, n) averaging matrix of adaptive pooling: row i is 1/len over [i*n//o, ceil((i+1)*n/o))."""
    i = torch.arange(o, dtype=torch.int64)
    j = torch.arange(n, dtype=torch.int64)
    start = (i * n) // o
    end = ((i + 1) * n + (o - 1)) // o
    mask = (j[None, :] >= start[:, None]) & (j[None, :] < end[:, None])
    return mask.to(dtype) / (end - start)[:, None].to(dtype)


def adaptive_avg_pool2d(x: torch.Tensor, output_size) -> torch.Tensor:
    """aten._adaptive_avg_pool2d over `?` H/W to a size other than 1x1 -> two averaging matmuls.

    out = P_h @ x @ P_w^T with P_h (oh, H), P_w (ow, W) built from arange(H), arange(W) and the
    window bounds torch uses (start = i*H // oh, end = ceil((i+1)*H / oh)). torch's own
    decomposition (a 6-D gather of clamped window indices, masked and summed) compiled in IREE
    3.13 but returned wrong values once batch, H and W were all dynamic. Static H/W and the 1x1
    case (a mean) keep the default path.
    """
    out = [int(o) for o in output_size] if None not in tuple(output_size) else None
    if x.dim() not in (3, 4) or out is None or out == [1, 1] \
            or all(isinstance(s, int) for s in x.shape[-2:]):
        return NotImplemented
    h, w = x.shape[-2:]
    ph = _adaptive_weights(h, out[0], x.dtype)                # (oh, H)
    pw = _adaptive_weights(w, out[1], x.dtype)                # (ow, W)
    return torch.matmul(torch.matmul(ph, x), pw.transpose(0, 1))


def native_group_norm(x, weight, bias, n, c, hw, group: int, eps: float):
    """aten.native_group_norm with `?` dims -> reshape to (N, G, -1), mean / var, affine.

    torch's decomposition goes through `as_strided` with symbolic sizes, which torch-mlir's FX
    importer rejects ("size must be a static int list"). Returns (out, mean, rstd) as torch does.
    """
    if all(isinstance(s, int) for s in x.shape):
        return NotImplemented
    xg = x.reshape(x.shape[0], group, -1)
    mean = xg.mean(-1, keepdim=True)
    var = (xg - mean).pow(2).mean(-1, keepdim=True)
    rstd = torch.rsqrt(var + eps)
    y = ((xg - mean) * rstd).reshape(x.shape)
    affine = [1, x.shape[1]] + [1] * (x.dim() - 2)
    if weight is not None:
        y = y * weight.reshape(affine)
    if bias is not None:
        y = y + bias.reshape(affine)
    return y, mean.reshape(x.shape[0], group), rstd.reshape(x.shape[0], group)


def symhlo_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """The decompositions symhlo applies on top of torch-mlir's table."""
    return {
        aten.upsample_nearest1d.vec: upsample_nearest_vec,
        aten.upsample_nearest2d.vec: upsample_nearest_vec,
        aten._adaptive_avg_pool2d.default: adaptive_avg_pool2d,
        aten.native_group_norm.default: native_group_norm,
    }
