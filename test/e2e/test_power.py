"""Float powers over `?` dims vs eager, negative bases with integral exponents above all.

IREE 3.13 computes a float `stablehlo.power` as exp(y * log(x)), NaN for every negative base:
`torch.linalg.vector_norm(x, ord=6)` (its decomposition raises x itself to the even power)
returned NaN at OpInfo's sample [-8.478, -1.766] where eager gives 8.478.
symhlo-lower-power-for-iree rewrites the powers on IREE's copy (repeated multiplication for
small integral constants, power(|x|, y) with the sign restored otherwise). One module per test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from torch.export import Dim

from e2e_harness import check_model, seeded

NAN, INF = float("nan"), float("inf")
SPECIAL = [-8.478373527526855, -1.765825867652893, -0.0, 0.0, -1.0, 1.0, -INF, INF, NAN, -0.5]


def bases(n: int, seed: int) -> torch.Tensor:
    """Negative and positive values, the special ones first."""
    x = torch.randn(n, generator=seeded(seed)) * 3
    k = min(n, len(SPECIAL))
    x[:k] = torch.tensor(SPECIAL[:k])
    return x


class VectorNormEvenOrd(torch.nn.Module):
    def forward(self, x):
        return (torch.linalg.vector_norm(x, ord=6), torch.linalg.vector_norm(x, ord=4, dim=-1),
                x / torch.linalg.vector_norm(x, ord=2))


def test_vector_norm_even_ord_at_the_opinfo_sample():
    # Regression: NaN at OpInfo's linalg.vector_norm sample (ord=6 over [-8.478, -1.766]).
    sample = torch.tensor(SPECIAL[:2])
    n = Dim("n", min=1, max=4096)
    check_model("vector_norm_even_ord", VectorNormEvenOrd(), (torch.randn(5),), ({0: n},),
                [(sample,), (-torch.rand(1) - 0.5,), (torch.randn(17, generator=seeded(3)),),
                 (torch.randn(65, generator=seeded(4)) - 1,)], rtol=1e-5, atol=1e-6)


class ConstantPowers(torch.nn.Module):
    def forward(self, x):
        return (x ** 4.0, x ** 5, x ** -3.0, x ** 0, x ** 1, x ** 2, x ** 100, x ** -101,
                x ** 0.5, x ** -0.5, torch.pow(x, 2.5), torch.float_power(x, 6).float())


def test_constant_integral_exponents_on_negative_bases():
    n = Dim("n", min=1, max=1 << 20)
    check_model("constant_powers", ConstantPowers(), (torch.randn(12),), ({0: n},),
                [(bases(n_, seed),) for seed, n_ in enumerate((1, 10, 17, 64))],
                rtol=1e-5, atol=1e-30, equal_nan=True)   # subnormals may flush


class TensorPowers(torch.nn.Module):
    def forward(self, x, y):
        return torch.pow(x, y), torch.pow(x, y.floor()), torch.pow(2.0 * x, y.round() - 3)


def power_args(n: int, seed: int):
    y = torch.randn(n, generator=seeded(seed + 100)) * 3
    y[: min(n, 4)] = torch.tensor([3.0, 2.0, 0.0, -1.0])[: min(n, 4)]
    return bases(n, seed), y


def test_tensor_exponents_on_negative_bases():
    n = Dim("n", min=1, max=1 << 20)
    check_model("tensor_powers", TensorPowers(), power_args(12, 9), ({0: n}, {0: n}),
                [power_args(n_, seed) for seed, n_ in enumerate((1, 10, 17, 63))],
                rtol=1e-5, atol=1e-30, equal_nan=True)   # subnormals may flush


def test_opinfo_vector_norm_samples_pass():
    """Every OpInfo sample of linalg.vector_norm (the 9th and 10th were WRONG) passes."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "opinfo"))
    import opinfo_harness as H

    op = H.all_ops()["linalg.vector_norm"]
    samples = [s for s in H.select_samples(op, 12) if s.input.dim() >= 1]
    assert samples, "OpInfo has no vector_norm sample with a dynamic axis"
    results = []
    for s in samples:
        torch.manual_seed(0)
        results.append(H.run_sample(op, s))
    bad = [r.get("detail", "") for r in results if r["class"] != "PASS"]
    assert not bad, "\n".join(bad)


class ManyTensorPowers(torch.nn.Module):
    """40 powers with tensor exponents (each `power(|x|, y)` plus its sign and special-case
    selects) fused into one dispatch: the question was whether their sizes would exceed the 64
    push constants a dispatch may take (polygamma's thirty powers once needed 68 on local-task).
    Measured: 2 (and 8 with the exponents as columns of one (n, 40) input) on Vulkan and CPU."""

    def forward(self, x, t):
        acc = x * 0
        for i in range(40):
            acc = acc + x ** (t + 0.25 * i)
        return acc


def test_forty_tensor_powers_fit_the_push_constant_limit():
    import re

    import iree.compiler as ic

    import symhlo
    from symhlo.backend.compiler import iree_flags, prepare_for_iree

    prog = symhlo.export(ManyTensorPowers(), (torch.rand(6) + 0.5, torch.rand(6)),
                         dynamic_shapes=({0: Dim("n", min=2)}, {0: Dim("n", min=2)}))
    hal = ic.compile_str(prepare_for_iree(prog.text), input_type="stablehlo",
                         extra_args=iree_flags("vulkan", "lavapipe") + ["--compile-to=executable-targets"])
    counts = [int(c) for c in re.findall(r"constants = (\d+)", hal.decode())]
    assert counts and max(counts) <= 8, counts
