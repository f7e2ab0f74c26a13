"""ATen decompositions of grid sampling and anti-aliased resizing over `?` sizes (floor 2,
frontend decompositions).

torch's own decompositions scale coordinates by sizes in Python float arithmetic (`size * 0.5`,
`clamp(x, 0, size - 1)`): over a `?` size that is a `sym_float`, which torch-mlir's FX importer
cannot import (and the anti-aliased resizes have no decomposition at all). Here every size
becomes a 0-d float32 tensor (`size_f32`: an int64 `full` cast to float32), and the arithmetic
follows torch's float32 CPU kernels operation for operation (same formulas, same order), so
positions and weights round as eager's do:

    aten.grid_sampler_2d(a: N x C x H x W, grid: N x oH x oW x 2, mode, padding, align)
  ==>
    x = (grid[..., 0] + 1) * (W / 2) - 0.5        (align: (g + 1) * ((W - 1) / 2)), then
        clipped (border) or reflected and clipped (reflection); y likewise with H
    out = sum over taps k of  a[n, c, iy_k, ix_k] * w_k       (aten.index.Tensor: one gather
                                                              per tap; taps outside read 0)
    bilinear: 4 taps, floor(x) + {0, 1}; nearest: round(x) (half to even); bicubic: 16 taps,
    floor(x) - 1 .. + 2 with Keys' A = -0.75 weights, each tap padded as above

    aten._upsample_bilinear2d_aa(x, (oH, oW), align, sh, sw)
  ==>
    per axis: x <- Wt @ x, Wt (out x n): row i the kernel's weights of output i over the input
    (triangle filter of support max(scale, 1), on [xmin, xmin + xsize), divided by their sum);
    dense because the taps' count depends on the `?` size's scale

A NaN or inf in the resized input reaches every output of its row and column here (a dense
weight of 0 times NaN), where eager's reach only the outputs whose taps cover it: NaN, never a
plausible number, but more of them.

The 2-D grid sampler follows the vectorized CPU kernel (GridSamplerKernel.cpp: its unnormalize,
its NaN-to-0 clip, its reflection by `trunc`), the 3-D one the scalar kernel (GridSampler.h).
"""

from __future__ import annotations

import torch

from .shapes import size_f32, interp_out_sizes, interp_scale

aten = torch.ops.aten

_ZEROS, _BORDER, _REFLECTION = 0, 1, 2
_BILINEAR, _NEAREST, _BICUBIC = 0, 1, 2


# -- grid sampling: source coordinates -----------------------------------------------------------

def _unnormalize(c, nf, align: bool, vectorized: bool):
    """Grid coordinate in [-1, 1] -> input position (the 2-D vectorized kernel's form or the
    scalar kernel's, GridSampler.h)."""
    if vectorized:
        return (c + 1.0) * ((nf - 1.0) / 2.0) if align else (c + 1.0) * (nf / 2.0) - 0.5
    return ((c + 1.0) / 2.0) * (nf - 1.0) if align else ((c + 1.0) * nf - 1.0) / 2.0


def _clip(c, nf, vectorized: bool):
    """Clamp into [0, n - 1]; NaN goes to 0 in the vectorized kernel (its clamp_min's operand
    order), to n - 1 in the scalar one (std::min(n - 1, std::max(NaN, 0)))."""
    if vectorized:
        return torch.minimum(torch.where(c > 0.0, c, 0.0), nf - 1.0)
    return torch.where(c.isnan(), nf - 1.0, torch.clamp(torch.minimum(c, nf - 1.0), min=0.0))


def _reflect(c, nf, align: bool, vectorized: bool):
    """Reflect into [0, n - 1] (align) or [-0.5, n - 0.5]."""
    if vectorized:
        span2 = (nf - 1.0) * 2.0 if align else nf * 2.0
        a = c.abs() if align else (c + 0.5).abs()
        extra = a - torch.trunc(a / span2) * span2
        r = torch.minimum(extra, span2 - extra)
        return torch.where(nf <= 1.0, 0.0, r) if align else r - 0.5
    lo, span = (0.0, nf - 1.0) if align else (-0.5, nf)
    a = (c - lo).abs()
    extra = torch.fmod(a, span)
    flips = torch.floor(a / span)
    even = (flips - 2.0 * torch.floor(flips * 0.5)) == 0.0
    r = torch.where(even, extra + lo, span - extra + lo)
    return torch.where(nf == 1.0, 0.0, r) if align else r


def _pad_coordinates(c, nf, padding: int, align: bool, vectorized: bool):
    """torch's compute_coordinates: zeros keeps c, border clips, reflection reflects and clips."""
    if padding == _BORDER:
        return _clip(c, nf, vectorized)
    if padding == _REFLECTION:
        return _clip(_reflect(c, nf, align, vectorized), nf, vectorized)
    return c


def _cubic_weights(t):
    """Keys' cubic convolution weights (A = -0.75) of taps -1, 0, 1, 2 at fraction t, in the
    vectorized kernel's order of operations."""
    a = -0.75
    x = t + 1.0
    w0 = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    w1 = ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0
    x = 1.0 - t
    w2 = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    x = 2.0 - t
    w3 = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    return [w0, w1, w2, w3]


# -- grid sampling: gathering --------------------------------------------------------------------

def _reader(a):
    """read(idx, inside) -> a at integer positions idx (one (N, *out) int64 tensor per spatial
    axis, outermost first), 0 where `inside` is False: (N, C, *out)."""
    n, c = a.shape[0], a.shape[1]
    nd = a.dim() - 2
    n_idx = torch.arange(n, device=a.device).reshape([n] + [1] * (nd + 1))
    c_idx = torch.arange(c, device=a.device).reshape([1, c] + [1] * nd)

    def read(idx, inside):
        safe = [torch.where(inside, i, 0).unsqueeze(1) for i in idx]
        vals = a[(n_idx, c_idx, *safe)]
        return torch.where(inside.unsqueeze(1), vals, 0.0)
    return read


def _inside(idx, sizes):
    ok = None
    for i, n in zip(idx, sizes):
        here = (i >= 0) & (i < n)
        ok = here if ok is None else ok & here
    return ok


def _grid_sample(a, grid, mode: int, padding: int, align: bool):
    nd = a.dim() - 2
    vectorized = nd == 2
    torch._check(grid.shape[-1] == nd)
    sizes = list(a.shape[2:])                       # outermost first (D,) H, W
    nfs = [size_f32(s, a.device) for s in sizes]
    # grid's last axis is x, y(, z): innermost first
    coords = [grid[..., nd - 1 - k] for k in range(nd)]
    read = _reader(a)
    if mode == _BICUBIC:
        if nd != 2:
            return NotImplemented
        pos = [_unnormalize(c, nf, align, True) for c, nf in zip(coords, nfs)]
        base = [torch.floor(p) for p in pos]
        wy, wx = (_cubic_weights(p - b) for p, b in zip(pos, base))
        out = None
        for i in range(4):
            row = None
            for j in range(4):
                py = _pad_coordinates(base[0] + float(i - 1), nfs[0], padding, align, True)
                px = _pad_coordinates(base[1] + float(j - 1), nfs[1], padding, align, True)
                idx = [torch.trunc(py).to(torch.int64), torch.trunc(px).to(torch.int64)]
                term = wx[j].unsqueeze(1) * read(idx, _inside(idx, sizes))
                row = term if row is None else row + term
            term = wy[i].unsqueeze(1) * row
            out = term if out is None else out + term
        return out
    pos = [_pad_coordinates(_unnormalize(c, nf, align, vectorized), nf, padding, align, vectorized)
           for c, nf in zip(coords, nfs)]
    # a NaN or infinite position converts to INT_MIN in eager's kernels: outside the input
    finite = torch.isfinite(pos[0])
    for p in pos[1:]:
        finite = finite & torch.isfinite(p)
    if mode == _NEAREST:
        idx = [torch.round(p).to(torch.int64) for p in pos]
        return read(idx, _inside(idx, sizes) & finite)
    base = [torch.floor(p) for p in pos]
    out = None
    fracs = [p - b for p, b in zip(pos, base)]
    for corner in range(2 ** nd):               # taps in the kernel's order: nw, ne, sw, se, ...
        steps = [(corner >> (nd - 1 - k)) & 1 for k in range(nd)]
        if vectorized:   # nw = s * e, s = 1 - (y - floor y): y's factor first
            fs = [f if s else 1.0 - f for f, s in zip(fracs, steps)]
        else:            # tnw = (ix_bse - ix) * (iy_bse - iy) * (iz_bse - iz): x's first
            fs = [(p - b) if s else (b + 1.0) - p for p, b, s in zip(pos, base, steps)][::-1]
        w = fs[0]
        for f in fs[1:]:
            w = w * f
        idx = [(b + float(s)).to(torch.int64) for b, s in zip(base, steps)]
        inside = _inside(idx, sizes) & finite
        term = read(idx, inside) * w.unsqueeze(1)
        if not vectorized:   # the scalar kernel adds only the taps inside (a NaN weight too)
            term = torch.where(inside.unsqueeze(1), term, 0.0)
        out = term if out is None else out + term
    return out


def grid_sampler_2d(a, grid, interpolation_mode: int = 0, padding_mode: int = 0,
                    align_corners: bool = False):
    """aten.grid_sampler_2d -> gathers at computed positions (module docstring)."""
    if a.dtype != torch.float32 or grid.dtype != torch.float32:
        return NotImplemented
    return _grid_sample(a, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(a, grid, interpolation_mode: int = 0, padding_mode: int = 0,
                    align_corners: bool = False):
    """aten.grid_sampler_3d -> gathers at computed positions, the scalar CPU kernel's
    arithmetic (trilinear: 8 taps; nearest)."""
    if a.dtype != torch.float32 or grid.dtype != torch.float32 or interpolation_mode == _BICUBIC:
        return NotImplemented
    return _grid_sample(a, grid, interpolation_mode, padding_mode, align_corners)


# -- anti-aliased resizing -----------------------------------------------------------------------

def _triangle(d):
    """HelperInterpLinear::aa_filter: 1 - |d| inside |d| < 1."""
    a = d.abs()
    return torch.where(a < 1.0, 1.0 - a, 0.0)


def _keys_cubic(d):
    """HelperInterpCubic::aa_filter with A = -0.5 (PIL's)."""
    a_ = -0.5
    x = d.abs()
    near = ((a_ + 2.0) * x - (a_ + 3.0)) * x * x + 1.0
    far = ((a_ * x - 5.0 * a_) * x + 8.0 * a_) * x - 4.0 * a_
    return torch.where(x < 1.0, near, torch.where(x < 2.0, far, 0.0))


def _trunc_plus_half(f):
    """static_cast<int64_t>(f + 0.5) with the sum in double (exact) as eager computes it, for
    the values that are then clamped at 0: floor(f) + (frac(f) >= 1/2)."""
    fl = torch.floor(f)
    return fl + (f - fl >= 0.5).to(f.dtype)


def _aa_weights(n, out, align: bool, sf, device, interp_size: int, filt):
    """(out, n) float32: row i the weights the kernel gives output i over the input positions
    (_compute_indices_min_size_weights_aa), zero outside its taps [xmin, xmin + xsize)."""
    nf = size_f32(n, device)
    scale = interp_scale(n, out, align, sf, device)
    big = scale >= 1.0
    support = torch.where(big, (interp_size * 0.5) * scale,
                          torch.full_like(scale, interp_size * 0.5))
    max_taps = torch.ceil(support) * 2.0 + 1.0
    invscale = torch.where(big, 1.0 / torch.where(big, scale, 1.0), torch.ones_like(scale))
    center = scale * (torch.arange(out, device=device).to(torch.float32) + 0.5)
    xmin = torch.clamp(_trunc_plus_half(center - support), min=0.0)
    xmax = torch.minimum(_trunc_plus_half(center + support), nf)
    xsize = torch.minimum(torch.clamp(xmax - xmin, min=0.0), max_taps)
    j = torch.arange(n, device=device).to(torch.float32)
    w = filt((j.unsqueeze(0) - center.unsqueeze(1) + 0.5) * invscale)
    taps = (j.unsqueeze(0) >= xmin.unsqueeze(1)) & (j.unsqueeze(0) < (xmin + xsize).unsqueeze(1))
    w = torch.where(taps, w, 0.0)
    total = w.sum(-1, keepdim=True)
    return torch.where(total != 0.0, w / torch.where(total != 0.0, total, 1.0), w)


def _upsample_aa(interp_size: int, filt, name: str):
    def decomposition(x, output_size, align_corners: bool, *scales):
        """aten.{name} -> one dense weight matmul per axis (module docstring)."""
        if x.dtype != torch.float32 or x.dim() != 4:
            return NotImplemented
        if len(scales) == 1:                                   # .vec: scale_factors
            sfs = list(scales[0]) if scales[0] is not None else [None, None]
            outs = interp_out_sizes(name, x, 2, output_size, scales[0])
            if output_size is not None:
                sfs = [None, None]
        else:
            sfs = list(scales) + [None] * (2 - len(scales))
            outs = list(output_size)
        if outs is None:
            return NotImplemented
        dev = x.device
        wh = _aa_weights(x.shape[2], outs[0], align_corners, sfs[0], dev, interp_size, filt)
        ww = _aa_weights(x.shape[3], outs[1], align_corners, sfs[1], dev, interp_size, filt)
        # torch.matmul's folding of (N, C, H, W) made a `stablehlo.reshape` to tensor<oH x ?>
        # that iree-compile rejects when N and C are static; then two 2-D matmuls over
        # flattened operands. With a `?` N or C those flattenings of a product with a `?`
        # output size made guards: two bmm over the N*C images instead.
        n, c, h, w = x.shape
        oh, ow = wh.shape[0], ww.shape[0]
        if isinstance(n * c, int):
            y = torch.matmul(wh, x.reshape(n * c, h, w).transpose(0, 1).reshape(h, n * c * w))
            y = y.reshape(oh, n * c, w).transpose(0, 1).reshape(n * c * oh, w)
            return torch.matmul(y, ww.t()).reshape(n, c, oh, ow)
        x3 = x.reshape(n * c, h, w)
        y = torch.bmm(x3, ww.t().unsqueeze(0).expand(n * c, w, ow))             # NC x H x oW
        y = torch.bmm(wh.unsqueeze(0).expand(n * c, oh, h), y)                  # NC x oH x oW
        return y.reshape(n, c, oh, ow)
    decomposition.__name__ = name
    decomposition.__doc__ = decomposition.__doc__.replace("{name}", name)
    return decomposition


def sampling_decompositions() -> dict:
    """The grid-sampling and anti-aliased resize entries symhlo adds to the table."""
    bilinear = _upsample_aa(2, _triangle, "_upsample_bilinear2d_aa")
    bicubic = _upsample_aa(4, _keys_cubic, "_upsample_bicubic2d_aa")
    return {
        aten.grid_sampler_2d.default: grid_sampler_2d,
        aten.grid_sampler_3d.default: grid_sampler_3d,
        aten._upsample_bilinear2d_aa.default: bilinear,
        aten._upsample_bilinear2d_aa.vec: bilinear,
        aten._upsample_bicubic2d_aa.default: bicubic,
        aten._upsample_bicubic2d_aa.vec: bicubic,
    }
