"""Decompositions of torch.nn's chunked linear cross-entropy custom ops (floor 2, frontend
decompositions): `torch_nn::_linear_cross_entropy_batch_chunked` (reduction mean / sum) and
`torch_nn::_linear_cross_entropy_batch_chunked_no_reduction` (reduction none).

`F.linear_cross_entropy(..., options=LinearCrossEntropyOptions(...))` calls them to bound the
memory of `input @ weight.T` by computing it `batch_chunk_size` rows at a time; torch.export
keeps them as opaque custom ops, which torch-mlir cannot import. Their value is the unchunked
formula (torch/nn/modules/linear_cross_entropy.py), computed here whole over the `?` batch:

    chunked(input (N, F), linear_weight (C, F), target (N,), linear_bias, weight, reduction,
            ignore_index, ...)
  ==>
    logits = input @ linear_weight.T (+ linear_bias);  shifted = logits - amax(logits, 1)
    nll = log(sum(exp(shifted), 1)) - shifted[n, t'[n]]     (t' = target, ignored rows -> 0)
    w = where(target == ignore_index, 0, weight[t'] or 1)
    loss = sum(w * nll) / sum(w) (NaN when that is 0) | sum(w * nll) | w * nll

The scalar op also returns the gradients it precomputes for its backward when asked
(compute_*_grad, True when the op is traced with parameters that require grad): with
G = (softmax(logits) - onehot(t')) * (w / sum(w) | w), grad_input = G @ linear_weight,
grad_linear_weight = G.T @ input, grad_linear_bias = G.sum(0); empty (0, 0) / (0,) tensors
otherwise, as the op returns them. Sums run in `acc_dtype` (float32 for half inputs), results
in the input's dtype.
"""

from __future__ import annotations

import torch


def _parts(input, linear_weight, target, linear_bias, weight, ignore_index, acc_dtype):
    """(probabilities-ready shifted logits, nll, w, corrected target) in acc_dtype."""
    x = input.to(acc_dtype)
    logits = x @ linear_weight.to(acc_dtype).T
    if linear_bias is not None:
        logits = logits + linear_bias.to(acc_dtype)
    shifted = logits - logits.amax(1, keepdim=True)
    ignored = target == ignore_index
    t = torch.where(ignored, 0, target)
    picked = shifted.gather(1, t.unsqueeze(1)).squeeze(1)
    nll = torch.log(torch.exp(shifted).sum(1)) - picked
    w = torch.ones_like(nll) if weight is None else weight.to(acc_dtype).index_select(0, t)
    w = torch.where(ignored, 0, w)
    return shifted, nll, w, t


def linear_cross_entropy_chunked(input, linear_weight, target, linear_bias, weight,
                                 reduction: str, ignore_index: int, label_smoothing: float,
                                 batch_chunk_size: int, acc_policy: str, acc_dtype,
                                 allow_retain_graph: bool, compute_input_grad: bool,
                                 compute_linear_weight_grad: bool, compute_linear_bias_grad: bool):
    """torch_nn._linear_cross_entropy_batch_chunked (mean / sum) ==> the formula of the module
    doc, unchunked; (loss, grad_input, grad_linear_weight, grad_linear_bias)."""
    if reduction not in ("mean", "sum") or label_smoothing != 0.0:
        return NotImplemented   # the op itself raises for these
    dtype = input.dtype
    shifted, nll, w, t = _parts(input, linear_weight, target, linear_bias, weight, ignore_index,
                                acc_dtype)
    total = (w * nll).sum()
    if reduction == "mean":
        d = w.sum()
        scale = torch.where(d == 0, torch.nan, 1.0 / d)   # 0 weight in all: NaN, as the op
        loss, c = total * scale, w * scale
    else:
        loss, c = total, w
    empty2 = torch.empty((0, 0), dtype=dtype, device=input.device)
    grad_input, grad_lw = empty2, empty2
    grad_lb = torch.empty((0,), dtype=dtype, device=input.device)
    if compute_input_grad or compute_linear_weight_grad or compute_linear_bias_grad:
        p = torch.softmax(shifted, 1)
        onehot = torch.nn.functional.one_hot(t, linear_weight.shape[0]).to(p.dtype)
        g = (p - onehot) * c.unsqueeze(1)                                  # (N, C)
        if compute_input_grad:
            grad_input = (g @ linear_weight.to(g.dtype)).to(dtype)
        if compute_linear_weight_grad:
            grad_lw = (g.T @ input.to(g.dtype)).to(dtype)
        if compute_linear_bias_grad:
            grad_lb = g.sum(0).to(dtype)
    return loss.to(dtype), grad_input, grad_lw, grad_lb


def linear_cross_entropy_chunked_none(input, linear_weight, target, linear_bias, weight,
                                      ignore_index: int, batch_chunk_size: int, acc_policy: str,
                                      acc_dtype):
    """torch_nn._linear_cross_entropy_batch_chunked_no_reduction ==> w * nll per row (module
    doc), unchunked."""
    _, nll, w, _ = _parts(input, linear_weight, target, linear_bias, weight, ignore_index,
                          acc_dtype)
    return (w * nll).to(input.dtype)


def loss_decompositions() -> dict:
    """The decompositions of this module, for symhlo.frontend.decompositions' table (empty when
    this torch has no chunked linear cross-entropy)."""
    try:
        import torch.nn.modules.linear_cross_entropy  # noqa: F401  (registers the custom ops)
        ops = torch.ops.torch_nn
        return {
            ops._linear_cross_entropy_batch_chunked.default: linear_cross_entropy_chunked,
            ops._linear_cross_entropy_batch_chunked_no_reduction.default:
                linear_cross_entropy_chunked_none,
        }
    except (ImportError, AttributeError):
        return {}
