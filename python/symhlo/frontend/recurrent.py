"""Recurrent layers (`nn.RNN`, `nn.LSTM`, `nn.GRU`) as scans over a `?` time axis (floor 2,
frontend: a source-level rewrite active while symhlo runs torch.export).

torch.export traces these modules through `aten.rnn_tanh` / `aten.lstm` / `aten.gru`, whose C++
kernels unroll the time loop: the sequence length is specialized to the example's ("You marked t
as dynamic but your code specialized it to be a constant (7)"), for plain torch.export as for
symhlo. While symhlo exports, their `forward` is the same recurrence written as torch's `scan`
(one step per time index, the input projections of every step computed first as one matmul), so
the time axis stays `?` and becomes one `stablehlo.while`:

    out, (h, c) = lstm(x)                       x: (b, t, f), batch_first
  ==>
    gx = x.transpose(0, 1) @ W_ih^T + b_ih + b_hh                      (t, b, 4H)
    (h, c), ys = scan(step, (h0, c0), gx)       step: gates = gx_t + h @ W_hh^T;
                                                      c' = sig(f) c + sig(i) tanh(g);
                                                      h' = sig(o) tanh(c')
    out = ys.transpose(0, 1)

Per layer and direction (a reverse direction is `scan(..., reverse=True)`); the layers' outputs
(both directions concatenated) feed the next layer, as torch does. GRU keeps `b_hn` inside the
reset gate's product; LSTM's `proj_size` projects h' by `W_hr`. A call the rewrite does not cover
(a PackedSequence, dropout between layers in training mode) runs torch's own forward.
"""

from __future__ import annotations

import contextlib

import torch
from torch import nn
from torch._higher_order_ops.scan import scan


def _covered(mod: nn.RNNBase, x) -> bool:
    return (isinstance(x, torch.Tensor) and x.dim() in (2, 3)
            and not (mod.training and mod.dropout > 0))


def _weights(mod: nn.RNNBase, layer: int, reverse: bool):
    sfx = f"_l{layer}" + ("_reverse" if reverse else "")
    get = lambda name: getattr(mod, name + sfx, None)
    return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")


def _project(x, w_ih, bias):
    """Every time step's input projection at once: x (t, b, f) @ W_ih^T (+ bias)."""
    gx = x @ w_ih.T
    return gx if bias is None else gx + bias


def _lstm_direction(x, h0, c0, w, reverse: bool):
    """One LSTM layer direction over time-major x (t, b, f): (ys (t, b, H'), h_t, c_t)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = w
    gx = _project(x, w_ih, None if b_ih is None else b_ih + b_hh)

    def step(carry, g):
        h, c = carry
        i, f, gg, o = (h @ w_hh.T + g).chunk(4, -1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(gg)
        h = torch.sigmoid(o) * torch.tanh(c)
        if w_hr is not None:
            h = h @ w_hr.T
        return (h, c), h.clone()

    (h, c), ys = scan(step, (h0, c0), gx, reverse=reverse)
    return ys, h, c


def _gru_direction(x, h0, w, reverse: bool):
    """One GRU layer direction: (ys, h_t). n = tanh(gx_n + r * (W_hn h + b_hn)), as torch."""
    w_ih, w_hh, b_ih, b_hh, _ = w
    gx = _project(x, w_ih, b_ih)

    def step(h, g):
        gh = h @ w_hh.T
        if b_hh is not None:
            gh = gh + b_hh
        xr, xz, xn = g.chunk(3, -1)
        hr, hz, hn = gh.chunk(3, -1)
        r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
        h = (1 - z) * torch.tanh(xn + r * hn) + z * h
        return h, h.clone()

    h, ys = scan(step, h0, gx, reverse=reverse)
    return ys, h


def _rnn_direction(x, h0, w, reverse: bool, relu: bool):
    """One Elman RNN layer direction: (ys, h_t)."""
    w_ih, w_hh, b_ih, b_hh, _ = w
    gx = _project(x, w_ih, None if b_ih is None else b_ih + b_hh)
    act = torch.relu if relu else torch.tanh

    def step(h, g):
        h = act(h @ w_hh.T + g)     # (g + h @ W failed in iree-compile 3.13: "failed to legalize
        return h, h.clone()         # unresolved target materialization", the loop's h sized by g)

    h, ys = scan(step, h0, gx, reverse=reverse)
    return ys, h


def _as_scans(mod: nn.RNNBase, x, hx):
    """mod(x, hx) for an RNN / LSTM / GRU as scans; returns what torch's forward returns."""
    lstm = isinstance(mod, nn.LSTM)
    unbatched = x.dim() == 2
    if unbatched:
        x = x.unsqueeze(1)
        if hx is not None:
            hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
    elif mod.batch_first:
        x = x.transpose(0, 1)
    dirs = 2 if mod.bidirectional else 1
    h_size = mod.proj_size if lstm and mod.proj_size > 0 else mod.hidden_size
    if hx is None:
        h0 = x.new_zeros(mod.num_layers * dirs, x.shape[1], h_size)
        c0 = x.new_zeros(mod.num_layers * dirs, x.shape[1], mod.hidden_size)
    else:
        h0, c0 = hx if lstm else (hx, None)
    hs, cs = [], []
    for layer in range(mod.num_layers):
        outs = []
        for d in range(dirs):
            k, w = layer * dirs + d, _weights(mod, layer, bool(d))
            if lstm:
                ys, h, c = _lstm_direction(x, h0[k], c0[k], w, bool(d))
                cs.append(c)
            elif isinstance(mod, nn.GRU):
                ys, h = _gru_direction(x, h0[k], w, bool(d))
            else:
                ys, h = _rnn_direction(x, h0[k], w, bool(d), mod.mode == "RNN_RELU")
            outs.append(ys)
            hs.append(h)
        x = torch.cat(outs, -1) if dirs == 2 else outs[0]
    h_n = torch.stack(hs)
    c_n = torch.stack(cs) if lstm else None
    if unbatched:
        x, h_n = x.squeeze(1), h_n.squeeze(1)
        c_n = c_n.squeeze(1) if lstm else None
    elif mod.batch_first:
        x = x.transpose(0, 1)
    return (x, (h_n, c_n)) if lstm else (x, h_n)


_ORIGINAL = {cls: cls.forward for cls in (nn.RNN, nn.LSTM, nn.GRU)}


def _scan_forward(cls):
    original = _ORIGINAL[cls]

    def forward(self, input, hx=None):
        if not _covered(self, input):
            return original(self, input, hx)
        return _as_scans(self, input, hx)

    forward.__doc__ = f"{cls.__name__}.forward as scans over time (symhlo.frontend.recurrent)."
    return forward


_SCAN_FORWARD = {cls: _scan_forward(cls) for cls in _ORIGINAL}


@contextlib.contextmanager
def recurrent_layers_as_scans():
    """While active, nn.RNN / nn.LSTM / nn.GRU (and subclasses reaching their forward) run their
    recurrence as scans over a `?` time axis (module docstring)."""
    for cls, fwd in _SCAN_FORWARD.items():
        cls.forward = fwd
    try:
        yield
    finally:
        for cls, fwd in _ORIGINAL.items():
            cls.forward = fwd
