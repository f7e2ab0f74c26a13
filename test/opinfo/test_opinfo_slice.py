"""The fast slice of the OpInfo differential suite (see opinfo_harness.py and run.py).

nn.functional.* plus the ops the model suites use, each in an isolated worker (2 workers), up
to 3 samples for the ops in MULTI_SAMPLE and 1 for the rest: fails on any WRONG or CRASH,
naming each op with its detail. The ops lowered to loops (LOOP_OPS) must PASS all 3 samples.
`make opinfo` runs the whole database and writes
test/opinfo/report.md.
"""

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as opinfo_run  # noqa: E402  (test/opinfo/run.py)

# Ops that were silently wrong before (remainder's sign, tan's poles, float64 demoted to
# float32): they must PASS outright, not merely not be WRONG.
MUST_PASS = ("remainder", "__rmod__", "tan", "double", "float_power", "nn.functional.softmin.with_dtype",
             "softmax.with_dtype", "log_softmax.with_dtype")


# Ops whose samples differ in kind in ways that have hidden bugs (ceil_mode, count_include_pad,
# dtype=, reduction=): these run up to 3 samples; the rest of the slice runs its first sample.
MULTI_SAMPLE = ("nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.avg_pool1d",
                "nn.functional.avg_pool2d", "nn.functional.huber_loss", "nn.functional.mse_loss",
                "nn.functional.cross_entropy", "softmax.with_dtype", "log_softmax.with_dtype",
                "nn.functional.softmin.with_dtype", "sum", "mean", "amax", "remainder", "__rmod__")


# Ops lowered to loops (scans, factorizations, sorts): every sample (up to 3) must PASS. Their
# regressions hid from the e2e tests, which used bounded dims or the last axis, and were found
# only by the full run (`make opinfo`): a scan over an inner `Dim.AUTO` axis refused by torch's
# while_loop, linalg.vander's loop state with two equal `?` dims miscompiled by IREE, qr wrong
# with a loop counted on the host.
LOOP_OPS = ("cumprod", "cummax", "cummin", "logcumsumexp", "mode", "kthvalue", "linalg.vander",
            "linalg.qr", "linalg.cholesky", "linalg.lu_factor", "linalg.eigh",
            "linalg.solve_triangular", "linalg.householder_product")


def _run(keys, samples):
    os.environ["OPINFO_MAX_SAMPLES"] = str(samples)  # inherited by the workers
    try:
        return opinfo_run.run(keys, workers=2, verbose=False)
    finally:
        del os.environ["OPINFO_MAX_SAMPLES"]


@pytest.fixture(scope="module")
def results():
    import opinfo_harness as H

    keys = opinfo_run.slice_ops(list(H.all_ops()))
    keys += [k for k in MUST_PASS + MULTI_SAMPLE if k not in keys]
    multi = [k for k in keys if k in MULTI_SAMPLE]
    return {**_run([k for k in keys if k not in multi], 1), **_run(multi, 3)}


def test_slice_has_no_wrong_or_crash(results):
    assert len(results) > 150
    bad = [f"{k}: {r['class']}: {r.get('detail', '')}" for k, r in results.items()
           if r["class"] in ("WRONG", "CRASH")]
    assert not bad, "\n".join(bad)


def test_formerly_wrong_ops_pass(results):
    got = {k: results[k]["class"] for k in MUST_PASS}
    assert all(c == "PASS" for c in got.values()), got


def test_loop_ops_pass_every_sample():
    got = _run(list(LOOP_OPS), 3)
    bad = {k: f"{r['class']}: {r.get('detail', '')}" for k, r in got.items() if r["class"] != "PASS"}
    assert set(got) == set(LOOP_OPS) and not bad, bad
