"""Shape fuzzing: sizes drawn inside each model's declared ranges, compared with eager PyTorch.

Two models are compiled once each (GPT-2-style decoder: dynamic batch and sequence; U-Net-style
CNN: dynamic batch and H/W as derived dims 4*h, 4*w). Hypothesis then draws many sizes per
compiled module (sizes are cheap, compiles are not) and shrinks a failure to the smallest size
that shows it. Before compiling, each model is also exported at a second example size and the two
StableHLO texts must be identical (e2e_harness.check_not_specialized): no size is pinned to the example.

Budget: SYMHLO_FUZZ_EXAMPLES draws per model (default 12), the same draws on every run
(derandomized) unless SYMHLO_FUZZ_SEED=<int> picks others. The U-Net's draws are capped at
SYMHLO_FUZZ_PIXELS batch*H*W (default 2**17) so CI stays fast; raise it to reach the corners of
the full range. A larger run by hand:

    SYMHLO_FUZZ_EXAMPLES=200 SYMHLO_FUZZ_SEED=$RANDOM SYMHLO_FUZZ_PIXELS=$((1<<22)) \\
        pytest test/e2e/test_fuzz_shapes.py
"""

from __future__ import annotations

import os
import time

import pytest
import torch
from hypothesis import HealthCheck, example, given, seed, settings, strategies as st
from torch.export import Dim

import symhlo
from e2e_harness import (_REPORTS, Report, _flat, _shapes, check_not_specialized, check_pure,
                      check_symbolic_outputs, randint, randn, seeded)
from test_cnn_models import UNetSmall
from test_transformer_models import GPT2

EXAMPLES = int(os.environ.get("SYMHLO_FUZZ_EXAMPLES", "12"))
SEED = os.environ.get("SYMHLO_FUZZ_SEED")
PIXELS = int(os.environ.get("SYMHLO_FUZZ_PIXELS", str(1 << 17)))


def fuzz_settings(fn):
    fn = settings(max_examples=EXAMPLES, deadline=None, database=None,
                  derandomize=SEED is None, print_blob=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])(fn)
    return seed(int(SEED))(fn) if SEED is not None else fn


class Fuzzed:
    """One model compiled once; `check(args)` compares one call with eager and records it."""

    def __init__(self, name, model, example, other, dynamic_shapes, rtol, atol):
        self.model = model.eval()
        self.rtol, self.atol = rtol, atol
        self.report = Report(f"fuzz:{name}")
        t0 = time.perf_counter()
        self.prog = check_not_specialized(self.model, example, other, dynamic_shapes)
        self.report.export_s = time.perf_counter() - t0          # both exports
        self.report.dialects = check_pure(self.prog.text)
        assert self.prog.portable_artifact()
        assert check_symbolic_outputs(self.prog) > 0
        t0 = time.perf_counter()
        self.cm = symhlo.compile(self.prog)
        self.report.iree_s = time.perf_counter() - t0
        _REPORTS.append(self.report)

    def check(self, args) -> None:
        with torch.no_grad():
            expected = _flat(self.model(*args))
        got = _flat(self.cm(*args))
        assert len(got) == len(expected)
        for k, (g, e) in enumerate(zip(got, expected)):
            assert g.shape == e.shape, f"output {k} at {_shapes(args)}: {g.shape} != {e.shape}"
            torch.testing.assert_close(g, e, rtol=self.rtol, atol=self.atol,
                                       msg=lambda m: f"output {k} at {_shapes(args)}: {m}")
            self.report.max_abs_err = max(self.report.max_abs_err, float((g - e).abs().max()))
        self.report.sizes.append(_shapes(args))


GPT_BATCH, GPT_SEQ = (2, 16), (2, 1024)


@pytest.fixture(scope="module")
def gpt2():
    b = Dim("batch", min=GPT_BATCH[0], max=GPT_BATCH[1])
    s = Dim("seq", min=GPT_SEQ[0], max=GPT_SEQ[1])
    return Fuzzed("gpt2", GPT2(), (randint(97, 2, 7),), (randint(97, 3, 11),), ({0: b, 1: s},),
                  rtol=1e-4, atol=2e-4)


@fuzz_settings
@given(batch=st.integers(*GPT_BATCH), seq=st.integers(*GPT_SEQ), data_seed=st.integers(0, 2**16))
@example(batch=GPT_BATCH[0], seq=GPT_SEQ[0], data_seed=0)     # the range's corners, always
@example(batch=GPT_BATCH[1], seq=GPT_SEQ[1], data_seed=1)
def test_fuzz_gpt2_sizes(gpt2, batch, seq, data_seed):
    gpt2.check((randint(97, batch, seq, gen=seeded(data_seed)),))


UNET_BATCH, UNET_QUARTER = (1, 16), (2, 256)        # H = 4*h, W = 4*w with h, w in UNET_QUARTER


@pytest.fixture(scope="module")
def unet():
    b = Dim("b", min=UNET_BATCH[0], max=UNET_BATCH[1])
    h = Dim("h", min=UNET_QUARTER[0], max=UNET_QUARTER[1])
    w = Dim("w", min=UNET_QUARTER[0], max=UNET_QUARTER[1])
    return Fuzzed("unet", UNetSmall(), (randn(2, 3, 16, 24),), (randn(3, 3, 20, 28),),
                  ({0: b, 2: 4 * h, 3: 4 * w},), rtol=1e-4, atol=1e-4)


@st.composite
def unet_sizes(draw):
    """(batch, H, W) inside the declared ranges with batch*H*W <= PIXELS (cost cap for CI)."""
    lo = UNET_QUARTER[0]
    b = draw(st.integers(UNET_BATCH[0], min(UNET_BATCH[1], PIXELS // (16 * lo * lo))))
    first = draw(st.integers(lo, min(UNET_QUARTER[1], PIXELS // (16 * b * lo))))
    second = draw(st.integers(lo, min(UNET_QUARTER[1], PIXELS // (16 * b * first))))
    h, w = (first, second) if draw(st.booleans()) else (second, first)
    return b, 4 * h, 4 * w


@fuzz_settings
@given(size=unet_sizes(), data_seed=st.integers(0, 2**16))
@example(size=(UNET_BATCH[0], 4 * UNET_QUARTER[0], 4 * UNET_QUARTER[0]), data_seed=0)
@example(size=(UNET_BATCH[1], 4 * UNET_QUARTER[0], 4 * UNET_QUARTER[1]), data_seed=1)
def test_fuzz_unet_sizes(unet, size, data_seed):
    b, h, w = size
    unet.check((randn(b, 3, h, w, gen=seeded(data_seed)),))


class PinnedByBranch(torch.nn.Module):
    """With Dim.AUTO, a branch on the size specializes it at one example and not at the other."""

    def forward(self, x):
        if x.shape[1] == 7:
            return x * 2
        return x + 1


def test_specialization_check_catches_a_pinned_size():
    ds = ({0: Dim.AUTO, 1: Dim.AUTO},)
    with pytest.raises(AssertionError, match=r"(?s)depends on the example sizes.*tensor<\?x7xf32>"):
        check_not_specialized(PinnedByBranch(), (randn(3, 7),), (randn(4, 9),), ds)


def test_specialization_check_needs_differing_examples():
    b = Dim("b", min=2, max=64)
    with pytest.raises(AssertionError, match=r"input 0 axis 0 is 3 in both examples"):
        check_not_specialized(PinnedByBranch(), (randn(3, 7),), (randn(3, 9),), ({0: b},))
