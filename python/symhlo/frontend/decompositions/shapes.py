"""ATen decompositions for structural ops (shapes, views, splits, copies, scatters, windows)
whose upstream lowering fails or specializes with `?` dims (floor 2, frontend decompositions).

Each entry rewrites one ATen op into ATen ops torch-mlir lowers to StableHLO with every size kept
symbolic; size arithmetic uses `torch.sym_min` / `sym_max` (never a Python `if` on a SymInt,
which would add a guard and pin the program to the example). Registered in
symhlo.frontend.decompositions.symhlo_decompositions via `shape_decompositions()`.
"""

from __future__ import annotations

import torch

from ...errors import UnsupportedOpError
from .basic import fraction
from .views import contiguous_strides, current_source_line, memory_order

aten = torch.ops.aten


def _known(cond) -> bool:
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return bool(statically_known_true(cond))


def _zeros(size, dtype, device):
    """A contiguous tensor of zeros: a 0-d zero expanded and cloned (`full` / `zeros` decompose
    back into empty_strided, which would recurse)."""
    zero = aten.scalar_tensor.default(0, dtype=dtype or torch.get_default_dtype(), device=device)
    return aten.clone.default(aten.expand.default(zero, list(size)),
                              memory_format=torch.contiguous_format)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    """aten.empty_strided -> zeros (permuted back when the strides are a permuted layout).

        empty_strided([s0, 0], [1, 1])            ==> zeros([s0, 0])
        empty_strided([s0, s1], [s1, 1])          ==> zeros([s0, s1])
        empty_strided([s0, s1], [1, s0])          ==> zeros([s1, s0]).permute(1, 0)

    The values are uninitialized, so zeros are one valid choice, and an expanded 0-d zero lowers
    to a StableHLO broadcast (torch-mlir lowers `empty` with `?` sizes to `tensor.empty`, which is not
    StableHLO, when nothing overwrites it). torch-mlir lowers empty_strided only when it can
    check that the strides are the default ones, and emits `torch.runtime.assert "not all
    strides are default"` (or keeps the op) for symbolic strides or a zero-size axis, where
    the strides torch picks (`[1, 1]` for `[s0, 0]`) are not the contiguous formula's. A tensor
    with no elements has no layout to keep; otherwise the strides must be statically a
    permutation of a contiguous layout (else the op is kept and named by the lowering).
    """
    size, stride = list(size), list(stride)
    if any(_known(s == 0) for s in size):
        return _zeros(size, dtype, device)
    keep = [i for i, s in enumerate(size) if not _known(s == 1)]
    order = memory_order(keep, stride)
    expected = contiguous_strides([size[i] for i in order])
    if not all(_known(stride[i] == e) for i, e in zip(order, expected)):
        return NotImplemented
    if order == keep:
        return _zeros(size, dtype, device)
    inner = [i for i in order] + [i for i in range(len(size)) if i not in keep]
    out = _zeros([size[i] for i in inner], dtype, device)
    return out.permute([inner.index(i) for i in range(len(size))])


def empty(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    """aten.empty.memory_format -> zeros (uninitialized values: zeros are one valid choice).

        empty([0, s1, s2 + 3])  ==>  clone(expand(scalar_tensor(0), [0, s1, s2 + 3]))

    torch-mlir lowers `empty` to `tensor.empty`, which is not StableHLO; torch's circular
    padding builds its result in an `empty` that slice_scatters then fill, so the pure
    module kept a `tensor.empty` (with `?` sizes) wherever the data flow reads it.
    """
    if memory_format not in (None, torch.contiguous_format, torch.preserve_format):
        return NotImplemented   # channels_last: keep torch's layout handling
    return _zeros(size, dtype, device)


def narrow_copy(x, dim: int, start, length):
    """aten.narrow_copy -> slice + clone (torch-mlir has no lowering for the copy variant).

        narrow_copy(x, 1, 2, n - 3)  ==>  clone(slice(x, 1, 2, 2 + (n - 3)))
    """
    return aten.clone.default(aten.slice.Tensor(x, dim, start, start + length))


def view_copy(x, size):
    """aten.view_copy -> reshape + clone (the copy has its own contiguous storage)."""
    return aten.clone.default(x.reshape(size))


def permute_copy(x, dims):
    """aten.permute_copy -> permute + clone."""
    return aten.clone.default(aten.permute.default(x, dims))


def unbind_copy(x, dim: int = 0):
    """aten.unbind_copy.int -> unbind + a clone of each piece."""
    return [aten.clone.default(t) for t in aten.unbind.int(x, dim)]


def _diagonal_indices(x, offset: int, dim1: int, dim2: int):
    """(x with dim1, dim2 moved last, row index, column index) of the diagonal at `offset`.

    Its length is max(0, min(n1 - max(-offset, 0), n2 - max(offset, 0))), computed with
    sym_min / sym_max: torch's own diagonal takes Python's min() of the SymInts, which guards
    on which side is shorter (`n2 - 2 < n1`) and pins the program to the example's side.
    """
    d1, d2 = dim1 % x.dim(), dim2 % x.dim()
    n1, n2 = x.shape[d1], x.shape[d2]
    r0, c0 = max(-offset, 0), max(offset, 0)
    length = torch.sym_max(0, torch.sym_min(n1 - r0, n2 - c0))
    i = torch.arange(length, device=x.device)
    moved = x.movedim((d1, d2), (-2, -1))
    return moved, i + r0, i + c0


def diagonal(x, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """aten.diagonal over `?` axes -> a gather of (row, column) index pairs.

        diagonal(x, 2, 0, 1)    (x: n1 x n2 x m)
      ==> i = arange(max(0, min(n1, n2 - 2)));  x.movedim((0, 1), (-2, -1))[..., i, i + 2]

    torch-mlir has no StableHLO lowering of aten.diagonal (trace, diag, linalg.diagonal and
    diagonal_copy all reach it). The diagonal axis comes last, as torch puts it.
    """
    moved, rows, cols = _diagonal_indices(x, offset, dim1, dim2)
    return aten.index.Tensor(moved, [None] * (moved.dim() - 2) + [rows, cols])


def diagonal_copy(x, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """aten.diagonal_copy -> diagonal (a gather: already a copy)."""
    return diagonal(x, offset, dim1, dim2)


def diag(x, diagonal_: int = 0):
    """aten.diag of a matrix -> diagonal (torch's decomposition takes Python's min() of the
    `?` sizes, see _diagonal_indices); of a vector -> diag_embed."""
    if x.dim() == 1:
        return diag_embed(x, diagonal_, 0, 1)
    if x.dim() != 2:
        return NotImplemented
    return diagonal(x, diagonal_, 0, 1)


def trace(x):
    """aten.trace -> sum of the diagonal (torch-mlir decomposes trace into aten.diagonal after
    import, where symhlo's decomposition no longer applies)."""
    return diagonal(x, 0, 0, 1).sum()


def diagonal_scatter(x, src, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """aten.diagonal_scatter -> where(on the diagonal, src gathered per row, x).

        diagonal_scatter(x, src, k, 0, 1)      (x: n1 x n2, src: L)
      ==> r = arange(n1)[:, None];  c = arange(n2)[None, :]
          g = index_select(src, -1, clamp(r - max(-k, 0), 0, L - 1))      (n1 x 1, per row)
          where(c - r == k, g, x)

    Only positions on the diagonal take src's values, so the clamped index of the other rows is
    never read. The result has x's layout; dim1 / dim2 are moved last and back.
    """
    d1, d2 = dim1 % x.dim(), dim2 % x.dim()
    moved = x.movedim((d1, d2), (-2, -1))
    n1, n2 = moved.shape[-2], moved.shape[-1]
    length = src.shape[-1]
    r = torch.arange(n1, device=x.device).unsqueeze(-1)
    c = torch.arange(n2, device=x.device).unsqueeze(0)
    last = torch.full((), length - 1, dtype=torch.int64, device=x.device)
    idx = torch.clamp(torch.minimum(r.squeeze(-1) - max(-offset, 0), last), min=0)
    g = torch.index_select(src, -1, idx).unsqueeze(-1)            # (..., n1, 1)
    out = torch.where((c - r) == offset, g.to(x.dtype), moved)
    return out.movedim((-2, -1), (d1, d2)).contiguous()


def _slice_bound(v, n, default):
    """A slice bound as torch normalizes it (None -> default, negative -> + n, clamped to
    [0, n]) without a guard on a SymInt's sign; None when its sign is not statically known."""
    import sys

    if v is None or (isinstance(v, int) and v >= sys.maxsize):
        return default
    if isinstance(v, int):
        if v < 0:
            v = v + n
            return v if _known(v >= 0) else torch.sym_max(v, 0)
        return v if _known(v <= n) else torch.sym_min(v, n)
    if _known(v >= 0):
        return v if _known(v <= n) else torch.sym_min(v, n)
    return None


def slice_scatter(x, src, dim: int = 0, start=None, end=None, step: int = 1):
    """aten.slice_scatter -> where(in the slice, src gathered along `dim`, x).

        slice_scatter(x, src, d, a, b, k)        (x: n along d, src: m along d)
      ==> i = arange(n);  in = (i >= a) & (i < b) & ((i - a) % k == 0)
          where(in, index_select(src, d, clamp((i - a) // k, 0, m - 1)), x)

    torch-mlir lowers slice_scatter only with a constant end ("end is not constant": circular
    padding over `?` axes), and its scatter with `?` sizes failed in iree-compile ("mismatch in
    shape of indices and update value"). A gather plus a select has neither problem. Positions
    outside the slice never read the clamped index. Bounds whose sign is not statically known
    keep the op (named by the lowering).
    """
    d = dim % x.dim()
    n, m = x.shape[d], src.shape[d]
    lo = _slice_bound(start, n, 0)
    hi = _slice_bound(end, n, n)
    if lo is None or hi is None or not isinstance(step, int) or step < 1:
        return NotImplemented
    if _known(m == 0):
        return x.clone()
    i = torch.arange(n, device=x.device)
    rel = i - lo
    inside = (rel >= 0) & (i < hi)
    if step != 1:
        inside = inside & (torch.remainder(rel, step) == 0)
        rel = torch.div(rel, step, rounding_mode="floor")
    last = torch.full((), m - 1, dtype=torch.int64, device=x.device)
    idx = torch.clamp(torch.minimum(rel, last), min=0)
    g = torch.index_select(src, d, idx).to(x.dtype)
    shape = [1] * x.dim()
    shape[d] = n
    return torch.where(inside.reshape(shape), g, x)


def diag_embed(x, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """aten.diag_embed -> where(on the diagonal, x gathered per row, 0).

        diag_embed(v, k)       (v: ..., n)
      ==> N = n + |k|;  r = arange(N)[:, None];  c = arange(N)[None, :]
          g = index_select(v, -1, clamp(r - max(-k, 0), 0, n - 1))        (..., N, 1)
          where(c - r == k, g, 0)                                         (..., N, N)

    torch-mlir has no StableHLO lowering of diag_embed (diag of a vector reaches it); positions
    off the diagonal never read the clamped index. The two new axes move to dim1, dim2.
    """
    n = x.shape[-1]
    big = n + abs(offset)
    r = torch.arange(big, device=x.device)
    last = torch.full((), n - 1, dtype=torch.int64, device=x.device)
    idx = torch.clamp(torch.minimum(r - max(-offset, 0), last), min=0)
    g = torch.index_select(x, -1, idx).unsqueeze(-1)                     # (..., N, 1)
    on = (r.unsqueeze(0) - r.unsqueeze(-1)) == offset                    # c - r == k
    out = torch.where(on, g, torch.zeros((), dtype=x.dtype, device=x.device))
    rank = x.dim() + 1
    d1, d2 = dim1 % rank, dim2 % rank
    return out.movedim((-2, -1), (d1, d2)).contiguous()


def unfold(x, dim: int, size: int, step: int):
    """aten.unfold (Tensor.unfold: sliding windows along `dim`) -> one gather by a flat window
    index, split into (count, size).

        unfold(x, d, k, s)      (x: ..., n along d, ...;  count = (n - k) // s + 1)
      ==> i = arange(count * k);  w = (i // k) * s + i % k
          index_select(x.movedim(d, -1), -1, w).unflatten(-1, (count, k)).movedim(-2, d)

    torch-mlir has no StableHLO lowering of aten.unfold (unfold_copy reaches it too). The index
    is computed on the flat count * k axis: elementwise ops on a (count, k) tensor make torch's
    contiguity check guard `count >= 2`, which pins the window count's side of 1. Windows of
    size 1 are a strided slice; a 0-d input (size 1) is a 1-element vector.
    """
    if x.dim() == 0:
        return aten.clone.default(x.reshape([1])) if size == 1 else NotImplemented
    d = dim % x.dim()
    n = x.shape[d]
    moved = x.movedim(d, -1)
    if size == 1:
        out = aten.slice.Tensor(moved, -1, 0, n, step).unsqueeze(-1)
        return aten.clone.default(out.movedim(-2, d))
    count = (n - size) // step + 1
    i = torch.arange(count * size, device=x.device)
    w = torch.div(i, size, rounding_mode="floor") * step + torch.remainder(i, size)
    out = torch.index_select(moved, -1, w).unflatten(-1, (count, size))
    return out.movedim(-2, d)


def unfold_copy(x, dim: int, size: int, step: int):
    """aten.unfold_copy -> unfold (a gather: already a copy)."""
    return unfold(x, dim, size, step)


def im2col(x, kernel_size, dilation, padding, stride):
    """aten.im2col (nn.functional.unfold) over `?` dims -> zero padding + one gather per axis.

        im2col(x, (kh, kw), (dh, dw), (ph, pw), (sh, sw))      (x: N, C, H, W)
      ==> xp = pad(x, (pw, pw, ph, ph))
          ih = arange(oh)[:, None] * sh + arange(kh)[None, :] * dh           (oh, kh)
          iw = arange(ow)[:, None] * sw + arange(kw)[None, :] * dw           (ow, kw)
          xp[..., ih[:, :, None, None], iw[None, None]]     (N, C, oh, kh, ow, kw)
            .permute(N, C, kh, kw, oh, ow).reshape(N, C * kh * kw, oh * ow)

    with oh = (H + 2 ph - dh (kh - 1) - 1) // sh + 1 (likewise ow). torch-mlir's own lowering
    builds a gather whose slice sizes read a static zero batch as out of bounds. An input
    without elements gives zeros of the output's shape.
    """
    batched = x.dim() == 4
    xb = x if batched else x.unsqueeze(0)
    nb, c, h, w = xb.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (list(v) for v in (kernel_size, dilation,
                                                                 padding, stride))
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if _known(nb * c * h * w == 0):
        out = _zeros([nb, c * kh * kw, oh * ow], x.dtype, x.device)
        return out if batched else out.squeeze(0)
    xp = aten.constant_pad_nd.default(xb, [pw, pw, ph, ph], 0.0) if ph or pw else xb
    ih = (torch.arange(oh, device=x.device).unsqueeze(-1) * sh
          + torch.arange(kh, device=x.device).unsqueeze(0) * dh)
    iw = (torch.arange(ow, device=x.device).unsqueeze(-1) * sw
          + torch.arange(kw, device=x.device).unsqueeze(0) * dw)
    g = aten.index.Tensor(xp, [None, None, ih[:, :, None, None], iw[None, None]])
    out = g.permute(0, 1, 3, 5, 2, 4).reshape(nb, c * kh * kw, oh * ow)
    return out if batched else out.squeeze(0)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False):
    """aten.isin.Tensor_Tensor -> any(elements[..., None] == test_elements.flatten(), -1).

    torch's decomposition picks an algorithm by comparing a float function of the two sizes
    (`len(test) < 10 * len(elements) ** 0.145`), a guard that pins the program to the
    example's side. The broadcast compare is exact for every size (O(n * m) work).
    """
    hit = (elements.unsqueeze(-1) == test_elements.flatten()).any(-1)
    return torch.logical_not(hit) if invert else hit


def _any_symbolic(*tensors) -> bool:
    return any(isinstance(d, torch.SymInt) and not d.node.expr.is_number
               for t in tensors for d in t.shape)


def mm(a, b):
    """aten.mm with a static unit axis and `?` dims -> a broadcast product or a matrix-vector.

        mm(a: m x 1, b: 1 x n)   ==>  a * b                         (one product per element)
        mm(a: 1 x k, b: k x n)   ==>  mv(b.t(), a[0]).unsqueeze(0)
        mm(a: m x k, b: k x 1)   ==>  mv(a, b[:, 0]).unsqueeze(1)

    IREE 3.13 turns a dot_general with a unit free axis (`1x? @ ?x?`: linear on a 1-D input,
    which torch decomposes into unsqueeze + mm) into a `stablehlo.reshape` to `tensor<?xf32>`,
    which its own verifier rejects; a unit contracting axis becomes a dynamic_reshape it cannot
    lower. Static shapes keep mm.
    """
    if not _any_symbolic(a, b) or a.dim() != 2 or b.dim() != 2:
        return NotImplemented
    if _known(a.shape[1] == 1):
        return a * b
    if _known(a.shape[0] == 1):
        return aten.mv.default(b.t(), a[0]).unsqueeze(0)
    if _known(b.shape[1] == 1):
        return aten.mv.default(a, b[:, 0]).unsqueeze(1)
    return NotImplemented


def bmm(a, b):
    """aten.bmm over `?` dims with a static unit contracting axis -> a broadcast product; with
    both free axes static units -> a product summed over the contracting axis.

        bmm(a: B x m x 1, b: B x 1 x n)  ==>  a * b
        bmm(a: B x 1 x k, b: B x k x 1)  ==>  (a * b.mT).sum(-1, keepdim=True)

    (IREE 3.13 lowers the batched dot_general with `?` dims through a dynamic_reshape it
    rejects, and the `1x1x? . 1x?x1` one through a `stablehlo.reshape` to `tensor<?xf32>` that its
    verifier rejects; with one term per element the product is the same number.)
    """
    if not _any_symbolic(a, b) or a.dim() != 3:
        return NotImplemented
    if _known(a.shape[2] == 1):
        return a * b
    if _known(a.shape[1] == 1) and _known(b.shape[2] == 1):
        return (a * b.transpose(1, 2)).sum(-1, keepdim=True)
    return NotImplemented


def bilinear(x1, x2, weight, bias=None):
    """aten.bilinear -> one matmul against the weight laid out (i, o * j), then a product with
    x2 summed over j.

        bilinear(x1: ... x i, x2: ... x j, W: o x i x j, b: o)
      ==> t = (x1 @ W.permute(1, 0, 2).reshape(i, o * j)).unflatten(-1, (o, j))
          (t * x2.unsqueeze(-2)).sum(-1) + b

    torch's decomposition goes through _trilinear, whose torch-mlir lowering asserts at run time
    that its broadcast `?` sizes are compatible ("tensors are not broadcast compatible"), which
    cannot be lowered to StableHLO.
    """
    o, i, j = weight.shape
    w = weight.permute(1, 0, 2).reshape(i, o * j)
    t = torch.matmul(x1, w).unflatten(-1, (o, j))
    out = (t * x2.unsqueeze(-2)).sum(-1)
    return out + bias if bias is not None else out


def repeat(x, repeats):
    """aten.repeat with a zero count -> zeros of the (empty) result shape.

        repeat(x: n, [0])  ==>  zeros([0])

    torch-mlir's repeat builds a broadcast + collapse_shape that the canonicalizer rejects for a
    static zero axis among `?` ones. Other counts keep torch's decomposition.
    """
    reps = list(repeats)
    if not any(isinstance(r, int) and r == 0 for r in reps):
        return NotImplemented
    shape = [1] * (len(reps) - x.dim()) + list(x.shape)
    return _zeros([r * n for r, n in zip(reps, shape)], x.dtype, x.device)


def interp_out_sizes(op: str, x, nd: int, output_size, scale_factors):
    """Output sizes of an upsample_*.vec, or raises UnsupportedOpError for a scale factor whose
    size torch computes in double arithmetic (floor(n * 0.7)) on a `?` axis.

    A static axis takes any scale (torch's own floor in double, here in Python's); a `?` axis
    takes the scales p / q for which (n * p) // q equals floor(n * scale) in double for every
    n < 2**31 (basic.fraction: integers, short binary fractions, decimals such as 1.7 and 0.9;
    not 0.7, whose products round below the integer at n = 90).
    """
    import math

    if output_size is not None:
        return list(output_size)
    if scale_factors is None or len(scale_factors) != nd:
        return None
    outs = []
    for a, sf in enumerate(scale_factors):
        n, sf = x.shape[x.dim() - nd + a], float(sf)
        pq = fraction(sf)
        if isinstance(n, int):
            outs.append(math.floor(n * sf))
        elif sf == int(sf) and sf >= 1:
            outs.append(n * int(sf))
        elif pq is not None:
            outs.append((n * pq[0]) // pq[1])
        else:
            raise UnsupportedOpError(
                f"unsupported op 'aten.{op}' at {current_source_line()}: scale factor {sf:g} on a "
                f"dynamic axis (torch sizes the output floor(n * {sf:g}) in double arithmetic, "
                "which no integer size arithmetic reproduces for every n); use size= or a scale "
                "whose products round exactly (an integer, a short binary fraction, 1.7)")
    return outs


def size_f32(v, device) -> torch.Tensor:
    """A size (int or SymInt) as a 0-d float32 tensor (no SymFloat arithmetic is traced)."""
    return torch.full((), v, dtype=torch.int64, device=device).to(torch.float32)


def interp_scale(n, out, align_corners: bool, sf, device) -> torch.Tensor:
    """torch's area_pixel_compute_scale in float32: (n - 1) / (out - 1) with align_corners (0 for
    out <= 1), else 1 / scale_factor when one was given, else n / out.

    (`where(full((), 2.0) > 0, ...)` on a constant came out as the other branch in some
    processes and not others: torch-mlir folded the comparison of a 0-d constant to false
    nondeterministically, and the scale to 0.)"""
    if align_corners:
        if isinstance(out, int):   # a constant denominator stays a Python number (see below)
            if out <= 1:
                return torch.zeros((), device=device)
            return size_f32(n - 1, device) / float(out - 1)
        den = size_f32(out - 1, device)
        return torch.where(den > 0, size_f32(n - 1, device) / torch.clamp(den, min=1.0),
                           torch.zeros((), device=device))
    if sf is not None:
        return torch.full((), float(torch.tensor(1.0 / float(sf), dtype=torch.float32)),
                          device=device)
    return size_f32(n, device) / size_f32(out, device)


def _linear_along(x, axis: int, out, align_corners: bool, sf):
    """Linear interpolation of `x` along one axis to `out` samples, as torch's CPU kernel
    computes it in float32: src = scale * (i + 0.5) - 0.5 clamped at 0 (scale * i with
    align_corners), i0 = trunc(src), i1 = i0 + (i0 < n - 1), weight src - i0 clamped to [0, 1]."""
    n, dev = x.shape[axis], x.device
    scale = interp_scale(n, out, align_corners, sf, dev)
    dst = torch.arange(out, device=dev).to(torch.float32)
    src = scale * dst if align_corners else torch.clamp(scale * (dst + 0.5) - 0.5, min=0.0)
    i0 = src.to(torch.int64)
    last = torch.full((), n - 1, dtype=torch.int64, device=dev)
    i0 = torch.minimum(i0, last)
    i1 = i0 + (i0 < last).to(torch.int64)
    lam1 = torch.clamp(src - i0.to(torch.float32), 0.0, 1.0)
    shape = [1] * x.dim()
    shape[axis] = -1
    lam1 = lam1.reshape(shape).to(x.dtype)
    x0, x1 = torch.index_select(x, axis, i0), torch.index_select(x, axis, i1)
    return x0 * (1 - lam1) + x1 * lam1


def _cubic_along(x, axis: int, out, align_corners: bool, sf):
    """Bicubic (A = -0.75) interpolation along one axis, torch's CPU kernel's taps and weights:
    src = scale * (i + 0.5) - 0.5 (unclamped; scale * i with align_corners), i = min(floor(src),
    n - 1) (-1 near the low edge), t = clamp(src - i, 0, 1), taps i - 1 .. i + 2 clamped into
    the axis (torch's guard_index_and_lambda and its bounded reads)."""
    n, dev = x.shape[axis], x.device
    scale = interp_scale(n, out, align_corners, sf, dev)
    dst = torch.arange(out, device=dev).to(torch.float32)
    src = scale * dst if align_corners else scale * (dst + 0.5) - 0.5
    last = torch.full((), n - 1, dtype=torch.int64, device=dev)
    i = torch.minimum(torch.floor(src).to(torch.int64), last)           # may be -1
    t = torch.clamp(src - i.to(torch.float32), 0.0, 1.0)
    a = -0.75

    def near(d):          # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):           # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    shape = [1] * x.dim()
    shape[axis] = -1
    acc = None
    for k, w in zip(range(-1, 3), weights):
        tap = torch.clamp(torch.minimum(i + k, last), min=0)
        term = torch.index_select(x, axis, tap) * w.reshape(shape).to(x.dtype)
        acc = term if acc is None else acc + term
    return acc


def _nearest_exact_along(x, axis: int, out, sf):
    """nearest-exact along one axis: src = min(floor((i + 0.5) * scale), n - 1), in float32."""
    n, dev = x.shape[axis], x.device
    scale = interp_scale(n, out, False, sf, dev)
    dst = torch.arange(out, device=dev).to(torch.float32)
    idx = torch.floor((dst + 0.5) * scale).to(torch.int64)
    idx = torch.minimum(idx, torch.full((), n - 1, dtype=torch.int64, device=dev))
    return torch.index_select(x, axis, idx)


def _upsample(op: str, nd: int, along, align_arg: bool):
    def upsample(x, output_size, *args):
        """aten.{op}.vec over `?` dims -> one separable gather-and-blend per spatial axis,
        with the source positions and weights torch's CPU kernel computes (float32).

        torch's decomposition sizes the output and the scale with `sym_float`, which
        torch-mlir's FX importer cannot import; integer scale factors keep torch's path.
        """
        align = bool(args[0]) if align_arg else False
        scale_factors = args[1] if align_arg else args[0]
        sizes = list(x.shape[-nd:])
        if all(isinstance(n, int) for n in sizes) and (
                output_size is None or all(isinstance(o, int) for o in output_size)):
            return NotImplemented
        if output_size is None and scale_factors is not None and all(
                float(f) == int(float(f)) and float(f) >= 1 for f in scale_factors) and not align:
            return NotImplemented
        outs = interp_out_sizes(op, x, nd, output_size, scale_factors)
        if outs is None:
            return NotImplemented
        sfs = list(scale_factors) if output_size is None and scale_factors is not None \
            else [None] * nd
        for a in range(nd):
            axis = x.dim() - nd + a
            x = along(x, axis, outs[a], align, sfs[a]) if align_arg else \
                along(x, axis, outs[a], sfs[a])
        return x.contiguous()
    upsample.__doc__ = upsample.__doc__.replace("{op}", op)
    return upsample


def _conv_taps(n, out, k, stride: int, pad: int, dil: int, transposed: bool, device):
    """For each output position o < out and kernel tap t < k along one axis, the input position
    it reads, or n (one zero appended past the input) where it reads the zero padding or, for a
    transposed conv, a position between strided inputs:

        conv:        i = o * stride + t * dil - pad,           read where 0 <= i < n
        transposed:  j = o + pad - t * dil,  i = j // stride,  read where j >= 0, j % stride == 0,
                                                               i < n
    """
    o = torch.arange(out, device=device).unsqueeze(-1)
    t = torch.arange(k, device=device).unsqueeze(0)
    if transposed:
        j = o + pad - t * dil
        i = torch.div(j, stride, rounding_mode="floor")
        valid = (j >= 0) & (j % stride == 0) & (i < n)
    else:
        i = o * stride + t * dil - pad
        valid = (i >= 0) & (i < n)
    return torch.where(valid, i, torch.full((), n, dtype=torch.int64, device=device))


def _conv_by_gather(x, weight, bias, stride, padding, dilation, transposed, output_padding,
                    groups: int):
    """aten.convolution (plain or transposed, 1-D to 3-D, groups) as one gather of the taps per
    spatial axis and a contraction with the weight, for a kernel whose size is `?`:

        conv(x: N x C x H, w: O x C/g x K, stride s, padding p, dilation d)
      ==> xz = cat(x, zeros) (1 zero after the end of each spatial axis)
          ih = _conv_taps(H, OH, K, ...)                        (OH x K, H where it reads a zero)
          xt = xz[:, :, ih]                                     (N x C x OH x K)
          einsum('ngcyk,gcok->ngoy', xt viewed (N, g, C/g, OH, K), w as (g, C/g, O/g, K))

    with OH = (H + 2p - d (K - 1) - 1) // s + 1, or for a transposed conv (w: C x O/g x K)
    OH = (H - 1) s - 2p + d (K - 1) + output_padding + 1, its taps reading input (o + p - t d) / s
    where that divides. The padding amount is the static 1; no window attribute: every size stays
    `?`. Memory is the im2col product N * C * OH * K (per axis), meant for the kernels that only
    an input's sizes give (a module's weights are static and keep stablehlo.convolution).
    """
    r = x.dim() - 2
    ks = list(weight.shape[2:])
    outs, taps = [], []
    for a in range(r):
        n, k, s, p, d = x.shape[2 + a], ks[a], stride[a], padding[a], dilation[a]
        if transposed:
            out = (n - 1) * s - 2 * p + d * (k - 1) + output_padding[a] + 1
        else:
            out = (n + 2 * p - d * (k - 1) - 1) // s + 1
        outs.append(out)
        taps.append(_conv_taps(n, out, k, s, p, d, transposed, x.device))
    xt = x
    for a in range(r):   # a cat, not constant_pad_nd: torch-mlir's pad mistyped `?x2x?x?x?`
        shape = list(xt.shape)
        shape[2 + a] = 1
        xt = torch.cat([xt, _zeros(shape, x.dtype, x.device)], dim=2 + a)
    for a, idx in enumerate(taps):
        xt = aten.index.Tensor(xt, [None] * (2 + 2 * a) + [idx])   # earlier axes: (out, tap)
    nb = x.shape[0]
    if transposed:
        cg, og = weight.shape[0] // groups, weight.shape[1]
        w = weight.reshape([groups, cg, og] + ks)
    else:
        og, cg = weight.shape[0] // groups, weight.shape[1]
        w = weight.reshape([groups, og, cg] + ks).transpose(1, 2)   # (g, C/g, O/g, K..)
    xt = xt.reshape([nb, groups, cg] + list(xt.shape[2:]))
    letters = "xyz"[:r]
    taps_l = "uvw"[:r]
    spatial = "".join(o + t for o, t in zip(letters, taps_l))
    out = torch.einsum(f"ngc{spatial},gco{taps_l}->ngo{letters}", xt, w)
    out = out.reshape([nb, groups * og] + outs)
    if bias is not None:
        out = out + bias.reshape([1, -1] + [1] * r)
    return out


def convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """aten.convolution with a `?` kernel size -> _conv_by_gather; any other convolution keeps
    the default path.

    torch-mlir lowers convolution only with a static kernel (its window is a static attribute
    of stablehlo.convolution, and IREE needs it static). A model's weights are parameters,
    whose sizes are static; a `?` kernel means the weight is an input exported with a dynamic
    kernel axis (OpInfo's samples mark every axis of every input dynamic).
    """
    kernel = list(weight.shape[2:])
    if not any(isinstance(n, torch.SymInt) and not n.node.expr.is_number for n in kernel):
        return NotImplemented
    if not 1 <= len(kernel) <= 3:
        raise UnsupportedOpError(
            f"unsupported op 'aten.convolution' at {current_source_line()}: a {len(kernel)}-D "
            "convolution with a dynamic kernel size")
    return _conv_by_gather(x, weight, bias, list(stride), list(padding), list(dilation),
                           bool(transposed), list(output_padding), int(groups))


def squeeze(x, dim=None):
    """aten.squeeze over a `?` axis, kept (size-obliviously, as torch.export traces it) under a
    call-time check that the size is not 1: eager and the ExportedProgram drop the axis at 1, and
    a StableHLO program's rank is static, so a call at 1 must raise, not return a (1, ...) tensor.

        squeeze.default(x: [s0, 1, 4])
      ==>
        aten._assert_scalar(s0 != 1)  (a runtime check of @main)
        prims.squeeze(x, [1]) : [s0, 4]
    """
    rank = x.dim()
    if dim is None:
        axes = set(range(rank))
    else:
        axes = {d % max(rank, 1) for d in (dim if isinstance(dim, (list, tuple)) else [dim])}
    dropped = []
    for a in range(rank):
        size = x.shape[a]
        if a not in axes:
            continue
        if isinstance(size, torch.SymInt) and not size.node.expr.is_number:
            # an explicit assert node: torch._check on a backed size would only add a guard
            torch.ops.aten._assert_scalar.default(
                size != 1, f"squeeze: axis {a} is 1; the program was exported for sizes other "
                           "than 1 there (eager would drop the axis)")
        elif int(size) == 1:
            dropped.append(a)
    if not dropped:
        return torch.ops.prims.view_of.default(x)
    return torch.ops.prims.squeeze.default(x, dropped)


def _or_upstream(fn, upstream):
    """`fn`, falling back to the decomposition it replaces in torch-mlir's table when it
    returns NotImplemented (a form it leaves to the default path: integer interpolation
    scales, static shapes)."""
    if upstream is None:
        return fn

    def decomposition(*args, **kwargs):
        out = fn(*args, **kwargs)
        return upstream(*args, **kwargs) if out is NotImplemented else out

    decomposition.__doc__ = fn.__doc__
    return decomposition


def shape_decompositions() -> dict:
    """The structural entries symhlo adds to the decomposition table (each falling back to
    torch-mlir's entry for the forms it does not take)."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    upstream = get_decomposition_table()
    return {op: _or_upstream(fn, upstream.get(op)) for op, fn in _entries().items()}


def _entries() -> dict:
    return {
        aten.empty_strided.default: empty_strided,
        aten.squeeze.default: squeeze,
        aten.squeeze.dim: squeeze,
        aten.squeeze.dims: squeeze,
        aten.empty.memory_format: empty,
        aten.narrow_copy.default: narrow_copy,
        aten.view_copy.default: view_copy,
        aten.permute_copy.default: permute_copy,
        aten.unbind_copy.int: unbind_copy,
        aten.diagonal.default: diagonal,
        aten.diagonal_copy.default: diagonal_copy,
        aten.diag.default: diag,
        aten.trace.default: trace,
        aten.diagonal_scatter.default: diagonal_scatter,
        aten.slice_scatter.default: slice_scatter,
        aten.diag_embed.default: diag_embed,
        aten.unfold.default: unfold,
        aten.unfold_copy.default: unfold_copy,
        aten.im2col.default: im2col,
        aten.isin.Tensor_Tensor: isin,
        aten.mm.default: mm,
        aten.bmm.default: bmm,
        aten.bilinear.default: bilinear,
        aten.repeat.default: repeat,
        aten.convolution.default: convolution,
        aten.upsample_linear1d.vec: _upsample("upsample_linear1d.vec", 1, _linear_along, True),
        aten.upsample_bilinear2d.vec: _upsample("upsample_bilinear2d.vec", 2, _linear_along, True),
        aten.upsample_trilinear3d.vec: _upsample("upsample_trilinear3d.vec", 3, _linear_along,
                                                 True),
        aten.upsample_bicubic2d.vec: _upsample("upsample_bicubic2d.vec", 2, _cubic_along, True),
        aten._upsample_nearest_exact1d.vec: _upsample("_upsample_nearest_exact1d.vec", 1,
                                                      _nearest_exact_along, False),
        aten._upsample_nearest_exact2d.vec: _upsample("_upsample_nearest_exact2d.vec", 2,
                                                      _nearest_exact_along, False),
    }
