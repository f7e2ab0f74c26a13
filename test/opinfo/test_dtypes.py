"""Dtypes at the module boundary: float64 stays float64, bfloat16/float16 pass in and out on CPU.

Found by the OpInfo suite: `x.double()` came back as float32 (IREE demotes f64 to f32 unless told
not to), and any bfloat16 input or output raised numpy's TypeError at the call.
"""

import pytest
import torch
from torch.export import Dim

import symhlo

A = Dim.AUTO


class Mixed(torch.nn.Module):
    def forward(self, x, y):
        return x.double() * 1.25, torch.softmax(x, -1, dtype=torch.float64), x.bfloat16() * 2, \
            y.float() + 1, y * y, x.half() - 1


def _check(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, rtol=1e-6 if w.dtype == torch.float64 else 1e-2, atol=1e-7)


def test_float64_bfloat16_float16_outputs_keep_their_dtype_at_two_sizes():
    x, y = torch.randn(4, 5), torch.randn(4, 5).bfloat16()
    ep = torch.export.export(Mixed(), (x, y), dynamic_shapes=({0: A, 1: A}, {0: A, 1: A}))
    cm = symhlo.compile(ep)
    _check(cm(x, y), Mixed()(x, y))
    x2, y2 = torch.randn(7, 3), torch.randn(7, 3).bfloat16()
    _check(cm(x2, y2), Mixed()(x2, y2))
    # f64 is computed as f64, not f32 then widened: 1 + 1e-12 survives.
    one = torch.full((2, 2), 1.0, dtype=torch.float64)

    class AddTiny(torch.nn.Module):
        def forward(self, a):
            return a + 1e-12

    out = symhlo.compile(AddTiny(), (one,), dynamic_shapes=({0: A, 1: A},))(one)
    assert out.dtype == torch.float64 and bool((out > 1.0).all())


def test_float64_libm_function_is_refused_with_a_way_out():
    class Sin64(torch.nn.Module):
        def forward(self, a):
            return a.double().sin()

    x = torch.randn(3, 4)
    with pytest.raises(symhlo.UnsupportedOpError, match=r"float64 sin \(libm\).*demote-f64-to-f32=true"):
        symhlo.compile(Sin64(), (x,), dynamic_shapes=({0: A},))
    # The opt-in: computed as f32, returned as the float64 torch promised.
    cm = symhlo.compile(Sin64(), (x,), dynamic_shapes=({0: A},),
                        options={"iree_flags": ["--iree-input-demote-f64-to-f32=true"]})
    out = cm(x)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out, x.double().sin(), rtol=1e-5, atol=1e-6)
