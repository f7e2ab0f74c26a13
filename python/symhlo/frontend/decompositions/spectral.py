"""ATen decompositions of torch.fft and torch.stft over `?` lengths: a DFT as a matmul against a
twiddle matrix generated in the graph (floor 2, frontend decompositions).

StableHLO's `fft` takes only static lengths (`fft_length` is an attribute), so a `?` axis has
no direct lowering. Here every transform is a dense DFT along each transformed axis, its
twiddle matrix built from iota at run time, so the length stays symbolic:

    aten._fft_r2c(x, dim=[-1], normalization, onesided)       x: (..., n) float32, n = ?
  ==>
    k = iota(m) (m = n // 2 + 1 when onesided), j = iota(n)
    t = 2 * ((k outer j) mod n) / n                  (exact integer phases, one rounding)
    (sin, cos) = sincospi(t)                         (decompositions.special: ~1 ulp)
    re = x @ cos^T,  im = -(x @ sin^T)  ->  aten.complex(re, im) * scale

The torch.fft functions (fft, ifft, rfft, irfft, hfft, ihfft and their 2-D / N-D forms) are
decomposed by torch's references (torch._refs.fft) into the primitives `prims.fft_r2c`,
`prims.fft_c2r` and `prims.fft_c2c` (ATen's own `_fft_r2c` / `_fft_c2r` / `_fft_c2c` likewise),
which are rewritten here; complex operands are split into
float parts by decompositions.complex_numbers. aten.stft gathers its frames and calls the real
DFT (stft below).

Cost: O(n^2) per transformed row instead of an FFT's O(n log n), and an n x n twiddle matrix
per axis (4 MB at n = 1024 in float32); accuracy: a float32 matmul of n terms, measured within
1e-5 relative of eager (pocketfft) at n <= 64 and 1e-4 at n = 1000 on random inputs.
"""

from __future__ import annotations

from typing import Callable

import torch

from ...errors import UnsupportedOpError
from .complex_numbers import make_complex, parts
from .special import sincospi
from .views import current_source_line, require_sizes

aten = torch.ops.aten

# torch's fft_norm_mode (ATen/native/SpectralOpsUtils.h): none, by_root_n, by_n.
_NORM_NONE, _NORM_BY_ROOT_N, _NORM_BY_N = 0, 1, 2


def _twiddle(rows: int, n, like: torch.Tensor):
    """(cos, sin) of 2 pi k j / n for k < rows, j < n: float (rows, n) matrices."""
    k = torch.arange(rows, device=like.device)
    j = torch.arange(n, device=like.device)
    phase = torch.remainder(k[:, None] * j[None, :], n)
    s, c = sincospi(phase.to(like.dtype) * 2.0 / n)
    return c, s


def _scale(re, im, sizes, normalization: int, like):
    """Parts scaled by torch's normalization over the transformed lengths `sizes`."""
    if normalization == _NORM_NONE:
        return re, im
    total = torch.ones((), dtype=like.dtype, device=like.device)
    for n in sizes:
        total = total * n
    f = torch.rsqrt(total) if normalization == _NORM_BY_ROOT_N else torch.reciprocal(total)
    return re * f, (None if im is None else im * f)


def _to_last(x, axis: int):
    """x with `axis` moved last (no op when it is: an identity permute lowers to a transpose
    that IREE folds away together with the static sizes it carried)."""
    if x is None or axis % x.dim() == x.dim() - 1:
        return x
    # contiguous: matmul's fold test reads the strides, and a permuted tensor's symbolic strides
    # would make it guard on the sizes
    return x.movedim(axis, -1).contiguous()


def _from_last(x, axis: int):
    if axis % x.dim() == x.dim() - 1:
        return x
    return x.movedim(-1, axis)


def _dft(re, im, axis: int, sign: float, rows: int | None = None):
    """The DFT of (re + i im) along `axis` with kernel exp(sign * 2 pi i k j / n), keeping the
    first `rows` outputs (all n by default). im may be None (a real input)."""
    re, im = _to_last(re, axis), _to_last(im, axis)
    n = re.shape[-1]
    c, s = _twiddle(n if rows is None else rows, n, re)
    c, s = c.mT, s.mT                                       # (n, rows)
    if sign < 0:
        s = -s
    out_re = re @ c if im is None else re @ c - im @ s
    out_im = re @ s if im is None else re @ s + im @ c
    return _from_last(out_re, axis), _from_last(out_im, axis)


def fft_c2c(z, dim, normalization: int, forward: bool):
    """aten._fft_c2c ==> a complex DFT along each axis of `dim` (sign - forward, + inverse)."""
    re, im = parts(z)
    sizes = [z.shape[d] for d in dim]
    for d in dim:
        re, im = _dft(re, im, d, -1.0 if forward else 1.0)
    re, im = _scale(re, im, sizes, normalization, re)
    return make_complex(re, im)


def fft_r2c(x, dim, normalization: int, onesided: bool):
    """aten._fft_r2c ==> a real-input DFT along the last axis of `dim` (its first n // 2 + 1
    outputs when onesided), then complex DFTs along the others."""
    sizes = [x.shape[d] for d in dim]
    last = dim[-1]
    n = x.shape[last]
    re, im = _dft(x, None, last, -1.0, rows=n // 2 + 1 if onesided else None)
    for d in dim[:-1]:
        re, im = _dft(re, im, d, -1.0)
    re, im = _scale(re, im, sizes, normalization, re)
    return make_complex(re, im)


def fft_c2r(z, dim, normalization: int, last_dim_size):
    """aten._fft_c2r ==> inverse complex DFTs along all but the last axis of `dim`, then the
    Hermitian inverse along the last: x[j] = sum_k w_k Re(X[k] e^{2 pi i k j / n}), n =
    last_dim_size, over the m given X[k], w_k = 1 at k = 0 and k = n / 2, else 2 (the
    conjugate half counted twice; the imaginary parts at 0 and n / 2 drop out, as in pocketfft)."""
    re, im = parts(z)
    for d in dim[:-1]:
        re, im = _dft(re, im, d, 1.0)
    last = dim[-1] % re.dim()
    n = last_dim_size
    re, im = _to_last(re, last), _to_last(im, last)
    m = re.shape[-1]
    k = torch.arange(m, device=re.device)
    j = torch.arange(n, device=re.device)
    s, c = sincospi(torch.remainder(k[:, None] * j[None, :], n).to(re.dtype) * 2.0 / n)
    w = torch.where((k == 0) | (2 * k == n), 1.0, 2.0).to(re.dtype)[:, None]
    out = re @ (c * w) - im @ (s * w)                          # (..., n)
    out = _from_last(out, last)
    sizes = [z.shape[d] for d in dim[:-1]] + [n]
    out, _ = _scale(out, None, sizes, normalization, out)
    return out


_FFT_FUNCTIONS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
                  "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")


def spectral_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """The torch.fft entries symhlo adds to the decomposition table: torch's own references
    (torch._refs.fft: argument handling, padding / trimming to `n`, normalization) for the
    torch.fft functions, and the DFTs above for the primitives they and ATen call."""
    from torch._decomp import decomposition_table

    prims = torch.ops.prims
    table: dict = {
        aten._fft_r2c.default: fft_r2c,
        aten._fft_c2r.default: fft_c2r,
        aten._fft_c2c.default: fft_c2c,
        prims.fft_r2c.default: lambda x, *, dim, onesided: fft_r2c(x, dim, _NORM_NONE, onesided),
        prims.fft_c2r.default: lambda z, *, dim, last_dim_size: fft_c2r(z, dim, _NORM_NONE,
                                                                        last_dim_size),
        prims.fft_c2c.default: lambda z, *, dim, forward: fft_c2c(z, dim, _NORM_NONE, forward),
    }
    for name in _FFT_FUNCTIONS:
        op = getattr(aten, f"fft_{name}").default
        table[op] = _with_symbolic_norm(decomposition_table[op])
    table[aten.fft_ihfft2.default] = ihfft2
    table[aten.stft.default] = stft
    table[aten.fft_ihfftn.default] = ihfftn
    return table


_SWAPPED_NORM = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def ihfftn(x, s=None, dim=None, norm=None):
    """aten.fft_ihfftn / ihfft2 ==> conj(rfftn(x)) with the normalization swapped: torch's
    reference ends in `prims.conj`, a view that functionalization refuses."""
    return torch.conj_physical(torch.fft.rfftn(x, s=s, dim=dim, norm=_SWAPPED_NORM[norm]))


def ihfft2(x, s=None, dim=(-2, -1), norm=None):
    """aten.fft_ihfft2 ==> ihfftn over `dim` (default the last two axes)."""
    return ihfftn(x, s=s, dim=dim, norm=norm)


def _apply_norm(x, norm, signal_numel, forward):
    """torch._refs.fft._apply_norm with the "ortho" scale as a tensor op: the reference's
    `1 / math.sqrt(signal_numel)` would pin a `?` length to the traced one."""
    if norm == "ortho":
        n = torch.full((), signal_numel, dtype=torch.float32, device=x.device)
        return x * torch.rsqrt(n)
    return _REF_APPLY_NORM(x, norm, signal_numel, forward)


def _with_symbolic_norm(ref: Callable) -> Callable:
    """`ref` (a torch._refs.fft function) run with _apply_norm above in place of its own."""
    import torch._refs.fft as refs

    def decomposition(*args, **kwargs):
        refs._apply_norm = _apply_norm
        try:
            return ref(*args, **kwargs)
        finally:
            refs._apply_norm = _REF_APPLY_NORM
    return decomposition


def _ref_apply_norm():
    import torch._refs.fft as refs

    return refs._apply_norm


_REF_APPLY_NORM = _ref_apply_norm()


def stft(x, n_fft: int, hop_length=None, win_length=None, window=None, normalized: bool = False,
         onesided=None, return_complex=None, align_to_window=None):
    """aten.stft (after torch.stft's own `center` padding) ==> frames gathered at computed
    positions, the window applied, a real DFT per frame (fft_r2c above), as ATen's stft:

        stft(x, n_fft, hop, win, w)                     x: (B?, L), L = ?
      ==>
        T = 1 + (L - n_fft) // hop
        frames = x[:, iota(T)[:, None] * hop + iota(n_fft)[None, :]]    (B, T, n_fft): a gather
        frames = frames * pad(w, centered to n_fft)                       (ones when w is None)
        fft_r2c(frames, [-1], normalized ? by_root_n : none, onesided).transpose(1, 2)
        (view_as_real unless return_complex)

    ATen takes the frames with `as_strided`, and torch-mlir's own decomposition of aten.stft
    (a frame loop with padding over `?` sizes) does not lower. A complex signal or window and
    `align_to_window` are refused by name."""
    def refuse(why):
        return UnsupportedOpError(f"unsupported op 'aten.stft' at {current_source_line()}: {why}")

    if x.is_complex() or (window is not None and window.is_complex()):
        raise refuse("stft of a complex signal or window")
    if align_to_window:
        raise refuse("align_to_window=True")
    if return_complex is None:
        return NotImplemented   # eager raises for a real signal: torch's own error
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if x.dim() not in (1, 2) or not 0 < win <= n_fft or hop <= 0:
        return NotImplemented   # eager raises: torch's own checks
    one_d = x.dim() == 1
    if one_d:
        x = x.unsqueeze(0)
    length = x.shape[1]
    require_sizes(n_fft <= length, f"aten.stft: n_fft {n_fft} is longer than the signal")
    frames_n = 1 + (length - n_fft) // hop
    pos = (torch.arange(frames_n, device=x.device)[:, None] * hop
           + torch.arange(n_fft, device=x.device)[None, :])
    frames = x.index_select(1, pos.reshape(-1)).reshape(x.shape[0], frames_n, n_fft)
    w = window
    if win < n_fft:
        left = (n_fft - win) // 2
        w = torch.ones(win, dtype=x.dtype, device=x.device) if w is None else w
        w = torch.nn.functional.pad(w, [left, n_fft - win - left])
    if w is not None:
        frames = frames * w
    out = fft_r2c(frames, [2], _NORM_BY_ROOT_N if normalized else _NORM_NONE,
                  True if onesided is None else onesided)
    out = out.transpose(1, 2)
    if one_d:
        out = out.squeeze(0)
    return out if return_complex else torch.view_as_real(out)
