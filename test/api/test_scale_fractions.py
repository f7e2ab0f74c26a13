"""frontend.decompositions.basic.fraction: the integer form (n * p) // q of torch's output size
floor(n * scale) in double arithmetic (interpolate by a scale factor over a `?` axis)."""

from __future__ import annotations

import numpy as np
import pytest

from symhlo.frontend.decompositions.basic import fraction

N = np.arange(1 << 20, dtype=np.int64)


@pytest.mark.parametrize("scale", [1.5, 0.75, 2.5, 1.7, 0.9, 0.8, 1.3, 2.2, 0.1, 1.9, 0.3, 0.6,
                                   3.3, 2.7, 0.45, 1.01, 0.99, 5.3])
def test_accepted_scales_equal_double_arithmetic(scale):
    p, q = fraction(scale)
    assert np.array_equal(np.floor(N.astype(np.float64) * scale).astype(np.int64), (N * p) // q)


@pytest.mark.parametrize("scale", [0.7, 0.35, 1.15, 4.1])
def test_refused_scales_round_below_an_integer_somewhere(scale):
    """These doubles lie below p / q by more than half an ulp of some products: floor(90 * 0.7)
    is 62 in double arithmetic, not 63."""
    assert fraction(scale) is None
    from fractions import Fraction
    g = Fraction(scale).limit_denominator(10 ** 4)
    exact = (N * g.numerator) // g.denominator
    assert (np.floor(N.astype(np.float64) * scale).astype(np.int64) != exact).any()


def test_irrational_looking_scales_are_refused():
    assert fraction(0.123456789) is None and fraction(-1.5) is None
