"""ATen decompositions symhlo adds to torch-mlir's table before import (floor 2, frontend
decompositions), for ops whose upstream lowering loses or cannot express a symbolic size, for ops
without a family module of their own (nearest upsampling, adaptive average pooling, group norm,
reflection padding, CPU flash attention, remainder, roll, tan, clamp).

Each one rewrites an op into ATen ops that torch-mlir lowers to StableHLO with the sizes kept
symbolic (`?`); none of them pins a size to the example's.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from .pooling import adaptive_mean_along

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


def adaptive_avg_pool2d(x: torch.Tensor, output_size) -> torch.Tensor:
    """aten._adaptive_avg_pool2d over `?` H/W to a size other than 1x1 -> a masked window mean per
    axis (pooling.adaptive_mean_along), with the window bounds torch uses (start = i*H // oh, end =
    ceil((i+1)*H / oh)). torch's own decomposition branches in Python on the SymInt sizes: H % oh ==
    0 picks avg_pool2d with the example's kernel, otherwise a gather whose window loop is unrolled
    to the example's longest window. Those guards land only in ep._guards_code, so its graph is
    right at the example's sizes only (IREE and symhlo's passes ran it faithfully;
    symhlo.frontend.refusals now rejects such graphs). Static H/W and the 1x1 case (a mean) keep the
    default path.
    """
    out = [int(o) for o in output_size] if None not in tuple(output_size) else None
    if x.dim() not in (3, 4) or out is None or out == [1, 1] \
            or all(isinstance(s, int) for s in x.shape[-2:]):
        return NotImplemented
    # A masked mean per axis (not P_h @ x @ P_w^T: its zero weights spread an inf or NaN to
    # every window, 0 * inf = NaN).
    return adaptive_mean_along(adaptive_mean_along(x, x.dim() - 2, out[0]), x.dim() - 1, out[1])


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


def _symbolic(v) -> bool:
    return isinstance(v, torch.SymInt) and not v.node.expr.is_number


def reflection_pad(x: torch.Tensor, padding) -> torch.Tensor:
    """aten.reflection_pad{1,2}d on a `?` axis or by symbolic amounts -> index_select.

    Along each padded axis of size n, by (l, r), one gather of n + l + r source indices:
        i = arange(-l, n + r);  m = full((), n - 1)
        x = index_select(x, d, m - |m - |i||)        # l..1, 0..n-1, n-2..n-1-r
    Axes are padded last-first (torch's order; reflection is separable, so corners match).
    torch's own decomposition is the same formula but feeds the SymInt n - 1 straight into
    `aten.sub.Tensor`, which the FX importer emits on a `!torch.int` (invalid IR); here it is a
    0-d tensor. One gather per axis (no cat of pieces of length l or r) also keeps torch's
    contiguity checks from guarding on the symbolic amounts (`r >= 2`), which the amounts' ranges
    do not imply. Static axes padded by constants, and negative constant amounts, keep torch's
    path.
    """
    pads = list(padding)
    k = len(pads) // 2
    axes = [(x.dim() - 1 - i, pads[2 * i], pads[2 * i + 1]) for i in range(k)]
    if not any(_symbolic(x.shape[d]) or _symbolic(lo) or _symbolic(hi) for d, lo, hi in axes):
        return NotImplemented
    if any(isinstance(p, int) and p < 0 for p in pads):
        return NotImplemented
    for d, lo, hi in axes:
        n = x.shape[d]
        i = torch.arange(-lo, n + hi)
        m = torch.full((), n - 1, dtype=torch.int64)
        x = torch.index_select(x, d, m - (m - i.abs()).abs())
    return x


def _exact_ratio(out, n) -> int | None:
    """k when out == k * n holds for every value of the symbols, else None."""
    import sympy

    o = out.node.expr if isinstance(out, torch.SymInt) else sympy.Integer(out)
    i = n.node.expr if isinstance(n, torch.SymInt) else sympy.Integer(n)
    r = sympy.simplify(o / i)
    return int(r) if r.is_Integer and r > 0 else None


def _nearest_index(n, out, inv_scale: float | None) -> torch.Tensor:
    """Source index of each of `out` outputs, as torch's CPU kernel computes it (in float32):
    min(floor(i * s), n - 1) with s = float32(n) / float32(out), or float32(1 / scale_factor).

    Exact integer floor(i * n / out) disagrees with eager for ~2% of (n, out) pairs (n=2,
    out=82, ...), because torch rounds the scale to float32; this form matched all of
    n < 200, out < 400.
    """
    i = torch.arange(out).to(torch.float32)
    if inv_scale is None:
        s = (torch.full((), n, dtype=torch.int64).to(torch.float32)
             / torch.full((), out, dtype=torch.int64).to(torch.float32))
    else:
        s = torch.full((), inv_scale, dtype=torch.float32)
    idx = torch.floor(i * s).to(torch.int64)
    return torch.minimum(idx, torch.full((), n - 1, dtype=torch.int64))


def fraction(scale: float, max_den: int = 1 << 16):
    """(p, q) such that torch's output size floor(n * scale), computed in double arithmetic,
    equals the integer (n * p) // q for every size 0 <= n < 2**31; None when there is none.

    A binary fraction with a small denominator (1.5, 0.75) is exact. A decimal scale (1.7, 0.9)
    is the double nearest some p / q (q <= 10**4, p < 2**20); its relative error r = (scale -
    p/q) / (p/q) is at most 2**-53. For n * p / q not an integer, the rounded product stays on the
    same side of the integers (its distance to them is >= 1 / q, the error is <= n * p * 2**-51
    / q). For n * p / q = m an integer: with r >= 0 the product rounds to >= m; with r < 0 it
    rounds up to m exactly when m * |r| is below half the spacing of doubles under m, which holds
    for every m when |r| (1 + 2**-54) < 2**-54. Other scales (0.7, 1.15: r just below -2**-54)
    give floor(n * scale) = m - 1 at some n (n = 90 for 0.7): None.
    """
    from fractions import Fraction

    f = Fraction(scale)
    if f <= 0:
        return None
    if f.denominator <= max_den:
        return f.numerator, f.denominator
    g = f.limit_denominator(10 ** 4)
    if float(g) != scale or g.numerator >= 1 << 20:
        return None
    r = (f - g) / g
    if r < 0 and -r * (1 + Fraction(1, 1 << 54)) >= Fraction(1, 1 << 54):
        return None
    return g.numerator, g.denominator


def upsample_nearest_sized(x: torch.Tensor, output_size, scale_factors) -> torch.Tensor:
    """aten.upsample_nearest{1,2}d.vec with `output_size` (symbolic or not), or with a
    fractional scale factor that is a short binary fraction -> index_select per axis.

    Per spatial axis of size n to `out`: out == n is left alone; out == k * n for every value of
    the symbols, k a power of two (`size=(2 * h, 2 * w)`, a skip tensor's `2 * h`), repeats
    each element k times (unsqueeze + expand + reshape, no gather); anything else gathers
    `index_select(x, d, idx)` with idx from `_nearest_index` (float32, as eager).
    A scale factor with `fraction(scale) = (p, q)` (1.5, 1.7) gives out = (n * p) // q on a `?`
    axis, which equals torch's floor(n * scale) in double for every n; a static axis takes any
    scale. Other fractional scales on a `?` axis (0.7: torch's floor(90 * 0.7) is 62) return
    NotImplemented, and symhlo-decompose-symbolic-torch-ops names the op as unsupported.
    """
    spatial = x.dim() - 2
    if spatial not in (1, 2):
        return NotImplemented
    if output_size is not None:
        outs, inv = list(output_size), [None] * spatial
    else:
        if scale_factors is None or len(scale_factors) != spatial \
                or _integer_scales(scale_factors, spatial) is not None:
            return NotImplemented
        outs = []
        for a, s in enumerate(scale_factors):
            n, pq = x.shape[2 + a], fraction(float(s))
            if isinstance(n, int):
                outs.append(math.floor(n * float(s)))   # torch's double arithmetic, exactly
            elif pq is not None:
                outs.append((n * pq[0]) // pq[1])
            else:
                return NotImplemented
        inv = [float(np.float32(1.0 / float(s))) for s in scale_factors]
    ks = [_exact_ratio(outs[a], x.shape[2 + a]) if inv[a] is None else None for a in range(spatial)]
    if all(k is not None and k & (k - 1) == 0 for k in ks):
        return upsample_nearest_vec(x, None, ks)      # one broadcast + reshape for all axes
    for a in range(spatial):
        d, n, out, k = 2 + a, x.shape[2 + a], outs[a], ks[a]
        if k == 1:
            continue
        if k is not None and k & (k - 1) == 0:
            shape = list(x.shape)
            x = x.unsqueeze(d + 1).expand(shape[:d + 1] + [k] + shape[d + 1:]) \
                .reshape(shape[:d] + [n * k] + shape[d + 1:])
        else:
            x = torch.index_select(x, d, _nearest_index(n, out, inv[a]))
    return x


def upsample_nearest(x: torch.Tensor, output_size, scale_factors) -> torch.Tensor:
    """aten.upsample_nearest{1,2}d.vec: integer scales -> upsample_nearest_vec, else
    upsample_nearest_sized."""
    out = upsample_nearest_vec(x, output_size, scale_factors)
    return upsample_nearest_sized(x, output_size, scale_factors) if out is NotImplemented else out


def _prescale_for_dynamic_head(query, key, scale):
    """(query, key, scale) with the default scale 1 / sqrt(E) over a `?` head size E applied to
    query and key as 0-d float32 tensors: (query * s, key * s, 1.0) with s = sqrt(rsqrt(E)).
    Other scales come back unchanged.

    torch's math attention computes the default scale from `sym_float(E)` (a SymFloat that no
    integer size expression holds, and that torch-mlir's FX importer cannot import); it then
    multiplies query and key each by sqrt(scale) (in float32, as here), so an explicit scale of
    1.0 multiplies by 1.0 exactly. The scale agrees with eager's double-computed one to a few
    float32 ulps.
    """
    head = query.shape[-1]
    if scale is not None or not _symbolic(head):
        return query, key, scale
    e = torch.full((), head, dtype=torch.int64, device=query.device).to(torch.float32)
    s = torch.sqrt(torch.rsqrt(e)).to(query.dtype)
    return query * s, key * s, 1.0


def sdpa(query, key, value, attn_mask=None, dropout_p: float = 0.0, is_causal: bool = False,
         scale=None, enable_gqa: bool = False):
    """aten.scaled_dot_product_attention with the default scale over a `?` head size -> torch's
    own composite with that scale applied to query and key (`_prescale_for_dynamic_head`) and
    scale=1.0; any other call runs torch's composite unchanged.

        sdpa(q: ..x?, k, v)  ==>  sdpa(q * s, k * s, v, scale=1.0),  s = sqrt(rsqrt(float(E)))

    (torch.export registers this function as the op's CompositeImplicitAutograd kernel: returning
    NotImplemented would keep the op, which torch-mlir cannot lower; the composite is called
    through its C++ kernel, which does not come back here.)
    """
    query, key, scale = _prescale_for_dynamic_head(query, key, scale)
    return aten.scaled_dot_product_attention.default._op_dk(
        torch._C.DispatchKey.CompositeImplicitAutograd, query, key, value, attn_mask=attn_mask,
        dropout_p=dropout_p, is_causal=is_causal, scale=scale, enable_gqa=enable_gqa)


def sdpa_flash_for_cpu(query, key, value, dropout_p: float = 0.0, is_causal: bool = False, *,
                       attn_mask=None, scale=None):
    """aten._scaled_dot_product_flash_attention_for_cpu -> the math attention, laid out as the
    op's meta says (`empty_like(query)`), not as torch's decomposition lays it out.

    torch.export traces `F.scaled_dot_product_attention` with the flash kernel's meta, whose
    output has the query's memory layout: for HF attention, q = linear(x).view(b, s, h, d)
    .transpose(1, 2), so (b, s, h, d) in memory, and the model then does `.transpose(1, 2)
    .reshape(b, s, h*d).view(-1, h*d)` (GPT-2's Conv1D), a valid view. torch's decomposition,
    which run_decompositions uses, instead restrides the math output to (s, b, h, d) (it
    assumes nn.MultiheadAttention's permute), and retracing that `view` with symbolic strides
    then fails ("Cannot view a tensor with shape [s0, s1, 32] and strides (32, 32*s0, 1)").
    Values are the same either way; only the strides differ, so copying the math output into
    `empty_like(query)` (the meta's own construction) keeps every later view valid, for any
    query layout. Returns (output, logsumexp) as the op does.
    """
    if dropout_p != 0.0:
        return NotImplemented
    query, key, scale = _prescale_for_dynamic_head(query, key, scale)
    output, attn = aten._scaled_dot_product_attention_math.default(
        query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal,
        dropout_mask=None, scale=scale, enable_gqa=query.size(1) != key.size(1))
    return aten.copy.default(torch.empty_like(query), output), attn


def remainder(a, b):
    """aten.remainder (Python's `%`: the result takes the divisor's sign) -> fmod + a correction.

    torch-mlir lowers aten.remainder to `stablehlo.remainder`, which is C's fmod (the dividend's
    sign): -3 % 5 came out -3 instead of 2. torch's CPU kernel computes
    `r = fmod(a, b); r + b where r != 0 and sign(r) != sign(b)`, and so does this (same values,
    NaN where b == 0, also for integers).
    """
    # Scalars as 0-d tensors: torch-mlir lowers aten.fmod.Tensor, not fmod.Scalar.
    if not isinstance(a, torch.Tensor):  # remainder.Scalar_Tensor: scalar % tensor
        a = torch.scalar_tensor(a, dtype=torch.result_type(a, b))
    if isinstance(b, torch.Tensor):
        r = torch.fmod(a, b)
        fix = ((r < 0) & (b > 0)) | ((r > 0) & (b < 0))  # no bool-tensor compares: see below
    else:  # remainder.Scalar: tensor % scalar, whose sign is known here
        r = torch.fmod(a, torch.scalar_tensor(b, dtype=torch.result_type(a, b)))
        # (`(r < 0) != (b < 0)` with a constant side came out as `r >= 0` after torch-mlir)
        fix = (r < 0) if b > 0 else (r > 0) if b < 0 else torch.zeros_like(r, dtype=torch.bool)
    return torch.where(fix, r + b, r)


def roll(x, shifts, dims=()):
    """aten.roll -> one index_select per rolled axis, index (arange(n) - s) mod n.

    torch-mlir decomposes roll into two slices and a cat that is wrong when the shift is a
    multiple of the axis size (roll(x, 0, 0) came out twice as long; roll(x, 2, 1) on a
    `?` axis of size 2 returned x unchanged): with `?` axes that is a silent error at some
    sizes. The modulus is taken on tensors (fmod by a 0-d tensor holding the size, then + n
    where negative), so no SymInt arithmetic is traced.
    """
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    if not dims:
        return roll(x.flatten(), shifts, [0]).view(x.shape)
    if len(shifts) != len(dims):
        return NotImplemented
    for s, d in zip(shifts, dims):
        n = x.shape[d]
        n_t = torch.full((), n, dtype=torch.int64, device=x.device)
        r = torch.fmod(torch.arange(n, device=x.device) - s, n_t)
        x = torch.index_select(x, d, torch.where(r < 0, r + n_t, r))
    return x


def _on_0d_as_1d(op, fallback=None):
    """`op` on a 0-d input -> the same op on its 1-element 1-d view, result viewed back as 0-d.

    torch treats dim 0 / -1 of a 0-d tensor as the scalar itself; torch-mlir's StableHLO
    lowering of reductions with keepdim (amax(x, 0, True), sum keepdim, logsumexp, var) and of
    softmax segfaults on a 0-d operand (the whole process dies). On a 1-element 1-d operand the
    op computes the same values. Other inputs go to `fallback` (torch-mlir's decomposition of
    the op, when it has one) or keep the op.
    """
    import torch.utils._pytree as pytree

    def decomposition(x, *args, **kwargs):
        if isinstance(x, torch.Tensor) and x.dim() == 0:
            out = op(x.reshape(1), *args, **kwargs)
            return pytree.tree_map_only(torch.Tensor, lambda t: t.reshape(()), out)
        return fallback(x, *args, **kwargs) if fallback is not None else NotImplemented

    return decomposition


def on_0d_as_1d(table) -> dict:
    """_on_0d_as_1d for the reductions and normalizations that take a `dim`, over `table`."""
    ops = (aten.amax.default, aten.amin.default, aten.sum.dim_IntList, aten.mean.dim,
           aten.prod.dim_int, aten.any.dim, aten.all.dim, aten.max.dim, aten.min.dim,
           aten.argmax.default, aten.argmin.default, aten.logsumexp.default, aten.var.correction,
           aten.std.correction, aten.var_mean.correction, aten.std_mean.correction,
           aten._softmax.default, aten._log_softmax.default, aten.cumsum.default,
           aten.cumprod.default)
    return {op: _on_0d_as_1d(op, table.get(op)) for op in ops}


_TAN_LIMIT = 8192.0  # Cephes' tanf limit: past it the 3-part pi/2 loses exactness


def tan(x):
    """aten.tan on float32/float16/bfloat16 -> Cephes' tanf in f32 ops; NaN for |x| > 8192.

    IREE 3.13's CPU `tan` loses up to ~8% relative accuracy (1.5% on OpInfo's sample) near the
    poles, where tan = sin/cos amplifies cos's absolute error; eager's is within 1e-7. Here
    x = k*pi/2 + r with k = round(x * 2/pi) and r reduced by a 3-part pi/2 (Cody-Waite; the
    first two parts have few enough bits that k * part is exact for |k| < 2**13), tan(r) for
    |r| <= pi/4 is r + r^3 P(r^2), and odd k gives -1/tan(r). Only f32 multiply/add/round: no
    libm, no f64 (which symhlo's compile demotes to f32 when no input or output is f64).
    Past 8192 the reduction is no longer exact, so the result is NaN, never a plausible number.
    float64 keeps aten.tan.
    """
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        return NotImplemented
    xf = x.float()
    k = torch.round(xf * 0.63661977236758134)  # 2/pi
    r = ((xf - k * 1.5703125) - k * 4.837512969970703125e-4) - k * 7.54978995489188216e-8
    z = r * r
    p = (((((9.38540185543e-3 * z + 3.11992232697e-3) * z + 2.44301354525e-2) * z
           + 5.34112807005e-2) * z + 1.33387994085e-1) * z + 3.33331568548e-1) * z * r + r
    odd = (k - 2.0 * torch.floor(k * 0.5)) == 1.0
    t = torch.where(odd, -1.0 / p, p)
    t = torch.where(xf.abs() <= _TAN_LIMIT, t, float("nan"))
    return t.to(x.dtype)


def clamp_tensor(x, min=None, max=None):
    """aten.clamp.Tensor -> maximum / minimum, which broadcast as torch does.

    torch-mlir lowers clamp.Tensor to `stablehlo.clamp` with bounds of their own shape, which the
    op's rules forbid unless they are 0-d or the operand's shape: `clamp(x, lo)` with x 5x10x5 and
    lo 5x1x5 gave a module that IREE rejected at the call.
    """
    out = x
    if min is not None:
        out = torch.maximum(out, min)
    if max is not None:
        out = torch.minimum(out, max)
    return out
