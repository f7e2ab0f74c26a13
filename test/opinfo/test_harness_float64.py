"""The harness's float64 rule: a result that differs from eager's float32 one passes only when it
is eager's float64 answer (integer outputs exactly, floats as close as eager's own float32).

LU of a matrix that is singular in exact arithmetic (the second size repeats the sample's rows):
float32 LAPACK leaves a ~1e-8 pivot where the exact one is 0, so its `info` and pivots are rounding
noise; float64 LAPACK gives the exact ones.
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import opinfo_harness as H  # noqa: E402

A = torch.tensor([[-0.9723, 0.0594, -0.4048, -0.3019, -0.7939],
                  [0.3866, -0.8257, -0.1576, 0.1265, 0.1072],
                  [0.4640, 0.5111, 0.6685, 0.6278, -0.4708]])
SINGULAR = A[[0, 1, 2, 0]][:, [0, 1, 2, 3, 4, 0]]      # 4 x 6, row 3 repeats row 0


def lu_ex(a):
    return tuple(torch.linalg.lu_factor_ex(a))


def test_the_float64_answer_passes_where_float32_eager_is_noise():
    eager32 = lu_ex(SINGULAR)
    exact = tuple(t.float() if t.is_floating_point() else t for t in lu_ex(SINGULAR.double()))
    assert int(exact[2]) == 4 and int(eager32[2]) != 4        # this input shows the noise
    assert H.compare(exact, eager32) is not None
    assert H.matches_float64_eager(lu_ex, (SINGULAR,), exact, eager32)


def test_a_wrong_answer_does_not_pass():
    eager32 = lu_ex(SINGULAR)
    exact = [t.float() if t.is_floating_point() else t for t in lu_ex(SINGULAR.double())]
    wrong_info = (exact[0], exact[1], torch.tensor(3, dtype=torch.int32))
    assert not H.matches_float64_eager(lu_ex, (SINGULAR,), wrong_info, eager32)
    wrong_lu = (exact[0] + 1e-2, exact[1], exact[2])
    assert not H.matches_float64_eager(lu_ex, (SINGULAR,), wrong_lu, eager32)
