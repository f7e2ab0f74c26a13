"""Bad calls of a compiled module from Python: a typed symhlo error naming the input, before IREE runs.

"Before anything runs" is checked by counting IREE invocations: the module's Runtime objects are
wrapped so that any call reaching the device fails the test. Strided and non-contiguous tensors
are not errors: they must run and match eager.

The size rule: every axis of every input must be <= 2**31 - 1 (symhlo.contract.dims.MAX_DIM_SIZE).
The programs read sizes with stablehlo.get_dimension_size, which returns i32; size arithmetic is
i64.
"""

from __future__ import annotations

import re

import pytest
import torch

import symhlo
from symhlo.contract.dims import MAX_DIM_SIZE

from hardening_models import TwoInputs, two_inputs_example


@pytest.fixture
def cm(two_inputs_module, monkeypatch):
    """The session module, with every IREE invocation counted (and forbidden unless allowed)."""
    calls = []
    real = two_inputs_module._runtimes

    def runtimes():
        out = []
        for rt in real():
            class Spy:
                def __call__(self, arrays, _rt=rt):
                    calls.append([a.shape for a in arrays])
                    return _rt(arrays)
            out.append(Spy())
        return out

    monkeypatch.setattr(two_inputs_module, "_runtimes", runtimes)
    two_inputs_module.device_calls = calls
    return two_inputs_module


X, Y = two_inputs_example()

BAD_CALLS = [
    # (id, args, error type, message regex)
    ("too-few-inputs", lambda: (X,), symhlo.ShapeError, r"^missing argument 'y' \(the program takes \(x, y\)\)$"),
    ("too-many-inputs", lambda: (X, Y, Y), symhlo.ShapeError, r"^the program takes 2 positional argument\(s\) \(x, y\), got 3$"),
    ("no-inputs", lambda: (), symhlo.ShapeError, r"^missing argument 'x'"),
    ("numpy-instead-of-tensor", lambda: (X.numpy(), Y), symhlo.ShapeError, r"^x: expected a tensor, got ndarray"),
    ("float64", lambda: (X.double(), Y), symhlo.ShapeError, r"^x: dtype is float64, expected float32$"),
    ("int64", lambda: (X, Y.long()), symhlo.ShapeError, r"^y: dtype is int64, expected float32$"),
    ("float16", lambda: (X.half(), Y), symhlo.ShapeError, r"^x: dtype is float16, expected float32$"),
    ("bool", lambda: (X, Y > 0), symhlo.ShapeError, r"^y: dtype is bool, expected float32$"),
    ("complex", lambda: (X.to(torch.complex64), Y), symhlo.ShapeError, r"^x: dtype is complex64"),
    ("rank-3", lambda: (X[None], Y), symhlo.ShapeError, r"^x: rank is 3, expected 2 \(shape \(b, 4\)\)$"),
    ("rank-0", lambda: (X, Y.sum()), symhlo.ShapeError, r"^y: rank is 0, expected 1"),
    ("static-axis", lambda: (torch.randn(3, 5), Y), symhlo.ShapeError, r"^x: axis 1 is 5, expected 4 \(static\)$"),
    ("size-1-below-min", lambda: (torch.randn(1, 4), Y), symhlo.ShapeError, r"^x: axis 0 is 1, below min 2 of 'b'$"),
    ("size-0-below-min", lambda: (torch.randn(0, 4), Y), symhlo.ShapeError, r"^x: axis 0 is 0, below min 2 of 'b'$"),
    ("size-1-bounded", lambda: (X, torch.randn(1)), symhlo.ShapeError, r"^y: axis 0 is 1, below min 2 of 's'$"),
    ("size-0-bounded", lambda: (X, torch.randn(0)), symhlo.ShapeError, r"^y: axis 0 is 0, below min 2 of 's'$"),
    ("above-max", lambda: (X, torch.randn(65)), symhlo.ShapeError, r"^y: axis 0 is 65, above max 64 of 's'$"),
    # 2**31 rows without 32 GB: a stride-0 view, and a meta tensor. The unbounded 'b' accepts any
    # size its range allows, so only the i32 rule refuses them.
    ("2**31-expanded", lambda: (torch.zeros(1, 4).expand(2**31, 4), Y), symhlo.ShapeError,
     r"^x: axis 0 is 2147483648, above 2147483647 \(2\*\*31 - 1\).*get_dimension_size"),
    ("2**31-meta", lambda: (torch.empty(2**31, 4, device="meta"), Y), symhlo.ShapeError,
     r"^x: axis 0 is 2147483648, above 2147483647"),
    ("2**40-meta", lambda: (torch.empty(2**40, 4, device="meta"), Y), symhlo.ShapeError,
     r"^x: axis 0 is 1099511627776, above 2147483647"),
    ("2**63-1-meta", lambda: (torch.empty(2**63 - 1, 0, device="meta"), Y), symhlo.ShapeError,
     r"^x: axis 0 is 9223372036854775807, above 2147483647"),
    ("meta-device", lambda: (X.to("meta"), Y), symhlo.DeviceError, r"^x: tensor is on meta, but the module runs on cpu$"),
    ("meta-device-second", lambda: (X, Y.to("meta")), symhlo.DeviceError, r"^y: tensor is on meta"),
    ("sparse", lambda: (X.to_sparse(), Y), symhlo.SymhloError, r"^x: a torch\.sparse_coo tensor"),
]


@pytest.mark.parametrize("make_args,error,pattern", [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS])
def test_bad_call_is_refused_before_running(cm, make_args, error, pattern):
    args = make_args()
    with pytest.raises(error) as info:
        cm(*args)
    assert isinstance(info.value, symhlo.SymhloError)
    assert re.search(pattern, str(info.value)), str(info.value)
    assert cm.device_calls == [], "IREE ran before the call was refused"
    # check() gives the same verdict without running.
    if error is symhlo.ShapeError:
        with pytest.raises(symhlo.ShapeError):
            cm.check(*args)


def test_max_dim_size_rule():
    assert MAX_DIM_SIZE == 2**31 - 1
    assert 2**31 - 1 == torch.iinfo(torch.int32).max


def _strided_inputs():
    g = torch.Generator().manual_seed(1)
    base = torch.randn(6, 8, generator=g)
    return [
        ("column-slice", base[:, ::2], torch.randn(5, generator=g)),
        ("transposed", torch.randn(4, 7, generator=g).t(), torch.randn(9, generator=g)[::3]),
        ("row-and-column-slice", base[1::2, 2:6], torch.randn(40, generator=g)[3:20]),
        ("expanded-stride-0", torch.randn(1, 4, generator=g).expand(5, 4),
         torch.randn(1, generator=g).expand(7)),
        ("offset-view", base.view(-1)[4:36].view(8, 4)[::2], torch.randn(64, generator=g)),
        ("requires-grad-transposed", torch.randn(4, 3, generator=g, requires_grad=True).t(),
         torch.randn(2, generator=g)),
    ]


@pytest.mark.parametrize("name,x,y", _strided_inputs(), ids=[c[0] for c in _strided_inputs()])
def test_strided_and_noncontiguous_inputs_match_eager(cm, name, x, y):
    assert x.shape[1] == 4 and not x.is_contiguous(), (name, x.shape, x.stride())
    x_before, stride_before = x.detach().clone(), x.stride()
    got = cm(x, y)
    want = TwoInputs()(x.detach(), y.detach())
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    assert len(cm.device_calls) == 1
    assert x.stride() == stride_before and torch.equal(x.detach(), x_before)  # the caller's tensor is untouched


def test_kwargs_and_nested_structures_are_counted_as_inputs(cm):
    with pytest.raises(symhlo.ShapeError, match=r"^the call's arguments are nested differently from the exported ones"):
        cm(X, {"a": Y, "b": [Y]})
    assert cm.device_calls == []
