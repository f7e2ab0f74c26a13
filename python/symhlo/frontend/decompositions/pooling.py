"""ATen decompositions for pooling options torch-mlir's StableHLO lowering gets wrong or refuses
(floor 2, frontend decompositions).

torch-mlir (20261001, lib/Conversion/TorchToStablehlo/Pooling.cpp) lowers `max_pool{1,2,3}d` with
`ceil_mode=True` by computing the extra padding ceil mode needs from the *static* input size, and
gives half of it to the low side:

  * with a static spatial size the windows shift by `extra / 2` (SqueezeNet's
    `MaxPool2d(3, 2, ceil_mode=True)` on 16x16 became `padding = [[1, 1], [1, 1]]` instead of
    `[[0, 1], [0, 1]]`): wrong values (max abs error ~2), no error;
  * with a `?` spatial size the size reads as -1, no extra padding is added, and the
    `reduce_window` computes the floor-mode size: one output row/column short, no error;
  * `avg_pool*d` ignores `ceil_mode` altogether (wrong divisor at the edge), refuses
    `divisor_override`; with `count_include_pad=False` it divides by a `reduce_window` sum over
    a `dynamic_broadcast_in_dim` of 1.0, which IREE 3.13 computes wrongly over `?` H/W
    (errors ~5 on means of N(0, 1) data, even without padding: the StableHLO is right, the
    compiled result is not); and `max_pool*d_with_indices` emits a variadic `reduce_window` that
    IREE 3.13 rejects with any `?` dim and that ignores `ceil_mode` too.

The decompositions here give torch-mlir only the forms it lowers correctly (no ceil mode, and the
padding explicit), computing every size from torch's own formula (`_pool_geometry`) on SymInts:

    max_pool2d(x, k, s, p, d, ceil_mode=True)
  ==> max_pool2d(constant_pad_nd(x, [p, hi_w, p, hi_h], -inf), k, s, 0, d, ceil_mode=False)

    avg_pool2d(x, k, s, p, ceil_mode, count_include_pad, divisor_override)
  ==> avg_pool2d(constant_pad_nd(x, [p, hi_w, p, hi_h], 0), k, s, 0) * (kh * kw / divisor)
      divisor = outer(count_h, count_w), count per axis from arange(out) as torch's kernel counts

    max_pool2d_with_indices(x, k, s, p, d, ceil_mode)
  ==> a running max over the kh * kw strided slices of the padded input (and of its flat
      index, arange(h)[:, None] * w + arange(w)), in torch's window order, NaN propagating;
      over `?` spatial dims: one window gather per axis, then max / first maximal position

    max_pool2d_with_indices_backward(g, x, ..., indices)
  ==> zeros(x).flatten(-2).scatter_add(-1, indices.flatten(-2), g.flatten(-2)).view(x.shape)

where `hi` = (out - 1) * s + d * (k - 1) + 1 - n - p, the high-side padding that makes the
floor-mode window count equal torch's `out` (it may be negative: constant_pad_nd crops).
The `if` in torch's ceil-mode rule ("the last window must start inside the input or the low
padding") is evaluated on SymInts: torch.export already guarded on the same expression when it
traced the op, so no new guard appears (symhlo.frontend.refusals rejects any that does).
"""

from __future__ import annotations

import itertools
import math

import torch

aten = torch.ops.aten


def _expand(v, nd: int) -> list:
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * nd if len(v) == 1 else v


def _pool_geometry(n, k: int, s: int, p: int, d: int, ceil_mode: bool):
    """(out, high): torch's output size along one axis (aten/src/ATen/native/Pool.h,
    pooling_output_shape) and the high-side padding giving that size in floor mode."""
    span = d * (k - 1) + 1
    out = (n + 2 * p - span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out = out - 1
    return out, (out - 1) * s + span - n - p


def _static(v):
    """An int for an int or a SymInt whose expression is a number; else the SymInt."""
    if isinstance(v, torch.SymInt) and v.node.expr.is_number:
        return int(v.node.expr)
    return v


def _pad(x, geoms, p, value, lead: int):
    """x padded by `p` low and the geometries' high amounts on its trailing axes (from `lead`).

    A static negative high amount is a slice (IREE 3.13 rejects `stablehlo.pad` with negative
    amounts); a symbolic one is left to constant_pad_nd, which symhlo-decompose-symbolic-torch-ops
    lowers as pad-then-crop."""
    pads = []
    for i, ((_, hi), lo) in enumerate(zip(geoms, p)):
        hi = _static(hi)
        if isinstance(hi, int) and hi < 0:
            x = aten.slice.Tensor(x, lead + i, 0, x.shape[lead + i] + hi, 1)
            hi = 0
        pads = [lo, hi] + pads
    return aten.constant_pad_nd.default(x, pads, value) if any(
        not isinstance(a, int) or a for a in pads) else x


def _lowest(dtype: torch.dtype) -> float | int:
    return -math.inf if dtype.is_floating_point else torch.iinfo(dtype).min


def _args(x, kernel, stride, padding, dilation, nd):
    k = _expand(kernel, nd)
    s = _expand(stride, nd) if stride is not None and len(list(stride)) else list(k)
    return k, s, _expand(padding, nd), _expand(dilation, nd)


_MAX = {1: aten.max_pool1d.default, 2: aten.max_pool2d.default, 3: aten.max_pool3d.default}


def _max_pool(nd: int):
    def max_pool(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        """aten.max_pool{nd}d with ceil_mode=True -> -inf padding + floor mode (see module doc)."""
        if not ceil_mode:
            return NotImplemented
        k, s, p, d = _args(x, kernel_size, stride, padding, dilation, nd)
        geoms = [_pool_geometry(x.shape[-nd + i], k[i], s[i], p[i], d[i], True) for i in range(nd)]
        xp = _pad(x, geoms, p, _lowest(x.dtype), x.dim() - nd)
        return _MAX[nd](xp, k, s, [0] * nd, d, False)
    return max_pool


def _max_pool_with_indices(nd: int):
    def max_pool_with_indices(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        """aten.max_pool{nd}d_with_indices -> running max over strided slices (see module doc).

        torch's kernel visits the window's in-bounds elements in row-major order and takes an
        element when `val > max or isnan(val)`; the padding here is -inf (index -1), which no
        finite element loses to, so the same element and index win.
        """
        k, s, p, d = _args(x, kernel_size, stride, padding, dilation, nd)
        sizes = list(x.shape[-nd:])
        if any(isinstance(n, torch.SymInt) and not n.node.expr.is_number for n in sizes):
            return _max_pool_with_indices_gathered(x, nd, k, s, p, d, ceil_mode)
        geoms = [_pool_geometry(sizes[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(nd)]
        xp = _pad(x, geoms, p, _lowest(x.dtype), x.dim() - nd)
        # flat index over the spatial axes: sum_i arange(n_i) * stride_i, broadcast
        flat = None
        for i in range(nd):
            step = 1
            for n in sizes[i + 1:]:
                step = step * n
            shape = [1] * nd
            shape[i] = -1
            term = torch.arange(sizes[i], dtype=torch.int64).reshape(shape)
            if i < nd - 1:
                term = term * torch.full((), step, dtype=torch.int64)
            flat = term if flat is None else flat + term
        ip = _pad(flat, geoms, p, -1, 0)
        best = best_i = None
        lead = x.dim() - nd
        for offs in itertools.product(*[range(kk) for kk in k]):
            v, vi = xp, ip
            for i, o in enumerate(offs):
                start = o * d[i]
                end = start + (geoms[i][0] - 1) * s[i] + 1
                v = aten.slice.Tensor(v, lead + i, start, end, s[i])
                vi = aten.slice.Tensor(vi, i, start, end, s[i])
            if best is None:
                best, best_i = v, vi
            else:
                take = (v > best) | torch.isnan(v)
                best = torch.where(take, v, best)
                best_i = torch.where(take, vi, best_i)
        return best, best_i.expand(best.shape).clone()
    return max_pool_with_indices


def _max_pool_with_indices_gathered(x, nd: int, k, s, p, d, ceil_mode: bool):
    """max_pool{nd}d_with_indices over `?` spatial dims -> one window gather per axis, then a
    max and the first maximal position over the window axis.

        per spatial axis i (size n, output o):  w_i = (arange(o)[:, None] * s + arange(k) * d)
        xw = index_select(pad(x, -inf), axis_i, w_i.flatten()).unflatten(axis_i, (o, k))   ...
          -> (..., o_1, .., o_nd, k_1 * .. * k_nd)      (in bounds: 0 <= w_i - p < n)
        value = max over in-bounds entries (NaN if one is NaN)
        index = flat input position of the first in-bounds maximum (the last NaN, if any)

    which is torch's CPU kernel's choice: it scans the window's in-bounds elements in row-major
    order and takes one when `val > max or isnan(val)`. (The running max over strided slices
    used for static sizes needs more than IREE 3.13's 64 push constants per dispatch with `?`
    spatial dims.)
    """
    sizes = list(x.shape[-nd:])
    lead = x.dim() - nd
    geoms = [_pool_geometry(sizes[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(nd)]
    xp = _pad(x, geoms, p, _lowest(x.dtype), lead)
    dev = x.device
    valid = None
    pos = []
    for i in range(nd):
        o = geoms[i][0]
        w = (torch.arange(o, device=dev).unsqueeze(-1) * s[i]
             + (torch.arange(k[i], device=dev) * d[i]).unsqueeze(0))        # (o, k) in xp
        ax = lead + 2 * i
        xp = torch.index_select(xp, ax, w.flatten()).unflatten(ax, (o, k[i]))
        src = w - p[i]                                                      # in x
        inside = (src >= 0) & (src < torch.full((), sizes[i], dtype=torch.int64, device=dev))
        shape = [1] * (2 * nd)
        shape[2 * i], shape[2 * i + 1] = -1, k[i]
        inside = inside.reshape(shape)
        valid = inside if valid is None else valid & inside
        pos.append(src.reshape(shape))
    # (..., o1, k1, o2, k2, ...) -> (..., o1, o2, .., k1 * k2 * ..)
    perm = list(range(lead)) + [lead + 2 * i for i in range(nd)] + [lead + 2 * i + 1 for i in range(nd)]
    window = 1
    for kk in k:
        window *= kk
    xw = xp.permute(perm).flatten(-nd) if nd > 1 else xp.permute(perm)
    vperm = [2 * i for i in range(nd)] + [2 * i + 1 for i in range(nd)]
    valid = valid.permute(vperm).flatten(-nd) if nd > 1 else valid.permute(vperm)
    flat = None
    for i in range(nd):
        step = 1
        for n in sizes[i + 1:]:
            step = step * n
        term = pos[i].permute(vperm)
        term = term * torch.full((), step, dtype=torch.int64, device=dev) if i < nd - 1 else term
        flat = term if flat is None else flat + term
    flat = flat.flatten(-nd) if nd > 1 else flat                           # (o.., K)
    lowest = torch.full((), _lowest(x.dtype), dtype=x.dtype, device=dev)
    masked = torch.where(valid, xw, lowest)
    nan = torch.isnan(masked) & valid
    best = torch.amax(masked, -1, keepdim=True)
    order = torch.arange(window, device=dev)
    first_max = torch.amin(torch.where(valid & (masked == best), order,
                                       torch.full((), window, device=dev)), -1, keepdim=True)
    last_nan = torch.amax(torch.where(nan, order, torch.full((), -1, device=dev)), -1,
                          keepdim=True)
    has_nan = last_nan >= 0
    pick = torch.where(has_nan, last_nan, first_max)
    value = torch.where(has_nan, torch.full((), float("nan"), dtype=x.dtype, device=dev),
                        best).squeeze(-1)
    index = torch.gather(flat.expand(list(xw.shape[:-1]) + [window]), -1, pick).squeeze(-1)
    return value, index


_AVG = {1: aten.avg_pool1d.default, 2: aten.avg_pool2d.default, 3: aten.avg_pool3d.default}


def _window_counts(n, out, k: int, s: int, p: int, include_pad: bool) -> torch.Tensor:
    """Per output index along one axis, how many elements torch divides by (Pool.h / the CPU
    AvgPool kernels): the window clipped to [-p, n + p), and to [0, n) without count_include_pad."""
    start = torch.arange(out, dtype=torch.int64) * s - p
    end = torch.minimum(start + k, torch.full((), n + p, dtype=torch.int64))
    if include_pad:
        return end - start
    lo = torch.clamp(start, min=0)
    hi = torch.minimum(end, torch.full((), n, dtype=torch.int64))
    return hi - lo


def _avg_pool(nd: int):
    def avg_pool(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        """aten.avg_pool{nd}d with ceil_mode, divisor_override, or padding not counted ->
        zero padding + plain avg_pool + the divisor torch uses (see module doc)."""
        k, s, p, _ = _args(x, kernel_size, stride, padding, 1, nd)
        if not ceil_mode and divisor_override is None and count_include_pad:
            return NotImplemented
        sizes = list(x.shape[-nd:])
        geoms = [_pool_geometry(sizes[i], k[i], s[i], p[i], 1, ceil_mode) for i in range(nd)]
        xp = _pad(x, geoms, p, 0.0, x.dim() - nd)
        args = (xp, k, s, [0] * nd, False, True) + ((None,) if nd > 1 else ())
        mean = _AVG[nd](*args)
        window = math.prod(k)
        if divisor_override is not None:
            return mean * (window / divisor_override)
        count = None
        for i in range(nd):
            c = _window_counts(sizes[i], geoms[i][0], k[i], s[i], p[i], count_include_pad)
            shape = [1] * nd
            shape[i] = -1
            c = c.reshape(shape)
            count = c if count is None else count * c
        return mean * (window / count.to(x.dtype))
    return avg_pool


def _max_pool_backward(nd: int):
    def max_pool_backward(grad, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
        """aten.max_pool{nd}d_with_indices_backward -> scatter_add of the output gradient into
        the input positions the forward's indices name (flattened over the spatial axes).

            grad_input = zeros(x).flatten(-nd).scatter_add(-1, indices.flatten(-nd),
                                                           grad.flatten(-nd)).view(x.shape)

        Overlapping windows that picked the same element add up, as torch's kernel does.
        torch-mlir has no StableHLO lowering of the backward op.
        """
        flat = torch.zeros_like(x).flatten(-nd)
        out = flat.scatter_add(-1, indices.flatten(-nd), grad.flatten(-nd).to(x.dtype))
        return out.reshape(x.shape)
    return max_pool_backward


def _adaptive_window_mask(n, o: int, device) -> torch.Tensor:
    """(o, n) membership of adaptive pooling's windows: [floor(i n / o), ceil((i + 1) n / o))."""
    i = torch.arange(o, dtype=torch.int64, device=device)
    j = torch.arange(n, dtype=torch.int64, device=device)
    start = (i * n) // o
    end = ((i + 1) * n + (o - 1)) // o
    return (j[None, :] >= start[:, None]) & (j[None, :] < end[:, None])


def adaptive_mean_along(x: torch.Tensor, axis: int, o: int) -> torch.Tensor:
    """Adaptive average pooling of `x` along one axis to `o` outputs: a masked sum over the
    (o, n) window membership divided by each window's length.

        v = where(mask(o, n), x.movedim(axis, -1).unsqueeze(-2), 0)        (..., o, n)
        v.sum(-1) / (end - start)

    A matmul by the averaging matrix computes the same numbers for finite inputs, but its zero
    weights turn an inf or NaN anywhere on the axis into NaN in every window (0 * inf = NaN);
    the select keeps them in their own windows, as eager does.
    """
    n = x.shape[axis]
    m = _adaptive_window_mask(n, o, x.device)
    moved = x.movedim(axis, -1).unsqueeze(-2)
    total = torch.where(m, moved, torch.zeros((), dtype=x.dtype, device=x.device)).sum(-1)
    count = m.sum(-1).to(x.dtype)
    return (total / count).movedim(-1, axis)


def _adaptive_avg_pool(nd: int):
    def adaptive_avg_pool(x, output_size):
        """aten._adaptive_avg_pool{nd}d over `?` spatial dims -> adaptive_mean_along per axis.

        (torch's decomposition branches on the SymInt sizes, see
        symhlo.frontend.decompositions.basic.adaptive_avg_pool2d, the 2-D case of the same.)
        """
        out = list(output_size)
        sizes = list(x.shape[-nd:])
        if all(isinstance(n, int) for n in sizes) or None in out:
            return NotImplemented
        for a in range(nd):
            x = adaptive_mean_along(x, x.dim() - nd + a, int(out[a]))
        return x
    return adaptive_avg_pool


def _adaptive_max_pool(nd: int):
    def adaptive_max_pool(x, output_size):
        """aten.adaptive_max_pool{nd}d over `?` spatial dims -> a masked max per axis, last axis
        first, carrying the position of the chosen element.

            per axis a, last to first (size n, output o):  M = mask(o, n)
              v (..., o, n) = where(M, x along a, -inf);  m = max over n
              k = the first n where v == m (the last NaN, if any)          (..., o)
            index = k_1 * n_2 * .. + ... + k_nd, the earlier axes' k gathered at the later's

        A window is a product of per-axis ranges, and torch's kernel scans it in row-major order
        taking `val > max or isnan(val)`: the first maximum of the first row holding the
        maximum, or the last NaN of the last row holding one, which the per-axis choice
        reproduces. torch-mlir lowers adaptive max pooling only for windows of one size
        ("only support cases with fixed stride size").
        """
        out = [int(o) for o in output_size]
        sizes = list(x.shape[-nd:])
        if all(isinstance(n, int) for n in sizes):
            return NotImplemented
        lead = x.dim() - nd
        dev = x.device
        lowest = torch.full((), _lowest(x.dtype), dtype=x.dtype, device=dev)
        v = x
        pos = None                       # flat position over the axes reduced so far
        for a in reversed(range(nd)):
            axis = lead + a
            n, o = sizes[a], out[a]
            m = _adaptive_window_mask(n, o, dev)                             # (o, n)
            moved = v.movedim(axis, -1).unsqueeze(-2)                        # (..., 1, n)
            w = torch.where(m, moved, lowest)                                # (..., o, n)
            nan = torch.isnan(w) & m
            best = torch.amax(w, -1, keepdim=True)
            order = torch.arange(n, dtype=torch.int64, device=dev)
            first = torch.amin(torch.where(m & (w == best), order,
                                           torch.full((), n, dtype=torch.int64, device=dev)),
                               -1, keepdim=True)
            last_nan = torch.amax(torch.where(nan, order, torch.full((), -1, dtype=torch.int64,
                                                                      device=dev)), -1, keepdim=True)
            k = torch.where(last_nan >= 0, last_nan, first)                  # (..., o, 1)
            value = torch.where(last_nan >= 0, torch.full((), float("nan"), dtype=x.dtype,
                                                          device=dev), best)
            v = value.squeeze(-1).movedim(-1, axis)
            k = k.squeeze(-1).movedim(-1, axis)                              # position along a
            if pos is not None:
                # the later axes' positions, at the chosen element of this axis
                p = torch.gather(pos, axis, k)
                stride = 1
                for nn_ in sizes[a + 1:]:
                    stride = stride * nn_
                pos = k * torch.full((), stride, dtype=torch.int64, device=dev) + p
            else:
                pos = k
        return v, pos
    return adaptive_max_pool


def pooling_decompositions() -> dict:
    """The pooling entries symhlo adds to the decomposition table."""
    table = {}
    for nd in (1, 2, 3):
        table[_MAX[nd]] = _max_pool(nd)
        table[_AVG[nd]] = _avg_pool(nd)
    table[aten.max_pool1d_with_indices.default] = _max_pool_with_indices(1)
    table[aten.max_pool2d_with_indices.default] = _max_pool_with_indices(2)
    table[aten.max_pool3d_with_indices.default] = _max_pool_with_indices(3)
    table[aten._adaptive_avg_pool3d.default] = _adaptive_avg_pool(3)
    table[aten.adaptive_max_pool2d.default] = _adaptive_max_pool(2)
    table[aten.adaptive_max_pool3d.default] = _adaptive_max_pool(3)
    table[aten.max_pool2d_with_indices_backward.default] = _max_pool_backward(2)
    table[aten.max_pool3d_with_indices_backward.default] = _max_pool_backward(3)
    return table
