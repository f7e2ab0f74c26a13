"""Every e2e model through the file path: `torch.export.save` -> `symhlo compile M.pt2` ->
`symhlo run M.symhlo --input @x.npy ...`, with results compared to eager PyTorch.

A `.pt2` is the CLI's main input, and torch.export.load rebuilds a program whose shape env has lost
what the export's had (the Dim names, the >= 2 tracing assumption, the input guards), so this path
once refused programs `symhlo.compile(ep)` took. The models are the ones the other e2e tests pass to
`check_model`: each e2e test function is run with a recording `check_model` (nothing compiled
there), and each recorded model is exported, saved, compiled by the CLI once, and run by the CLI at
every size the e2e test uses. The CLI runs in-process (`symhlo.tools.cli.main`, the console script's
entry point) to keep the suite's time down.
"""

from __future__ import annotations

import inspect
import itertools
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.utils._pytree as pytree
from torch.export import Dim

import symhlo
from symhlo.tools import cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))  # the e2e models and harness

import test_cnn_models  # noqa: E402
import test_cnn_ops  # noqa: E402
import test_core_models  # noqa: E402
import test_gaps_cnn  # noqa: E402
import test_gaps_gather  # noqa: E402
import test_gaps_indexing  # noqa: E402
import test_gaps_pad_interp  # noqa: E402
import test_transformer_models  # noqa: E402
import test_transformer_ops  # noqa: E402

# The default run (about a minute on 2 cores): models covering what the .pt2 path must restore
# (relations, derived dims, size arithmetic, windows). SYMHLO_PT2_ALL=1 runs all of them (about 9
# minutes; GPT-2, BERT, ResNet and UNet included).
_ALL = os.environ.get("SYMHLO_PT2_ALL") == "1"
_DEFAULT = {
    "core_models::test_slicing_symbolic_bounds", "core_models::test_cat_split_by_input_sizes",
    "core_models::test_pad_to_multiple", "core_models::test_view_computed_sizes",
    "core_models::test_arange_positions", "transformer_ops::test_size_arithmetic_shared_derived_dims",
    "transformer_ops::test_former_iree_gaps[slice_then_expand]",
    "cnn_ops::test_conv2d[conv2d_s2_p1-3-8-3]", "cnn_ops::test_upsample_concat_skip[nearest]",
    "cnn_ops::test_pooling[max_pool2d_k3_s2_p1]", "cnn_ops::test_batch_norm_inference",
    "cnn_ops::test_max_pool2d_dynamic_batch_only",
}

_MODULES = [test_core_models, test_transformer_ops, test_cnn_ops, test_gaps_cnn, test_gaps_gather,
            test_gaps_indexing, test_gaps_pad_interp, test_cnn_models, test_transformer_models]


def _cases():
    """One pytest.param per e2e test function (and parametrization) that calls check_model."""
    out = []
    for mod in _MODULES:
        short = mod.__name__.removeprefix("test_")
        for name, fn in vars(mod).items():
            if not (name.startswith("test_") and inspect.isfunction(fn)
                    and "check_model(" in inspect.getsource(fn)):
                continue
            params = list(inspect.signature(fn).parameters)
            marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
            grids = []
            for m in marks:
                names = [n.strip() for n in m.args[0].split(",")] if isinstance(m.args[0], str) else list(m.args[0])
                values = [v.values if hasattr(v, "values") else v for v in m.args[1]]
                grids.append([dict(zip(names, v if len(names) > 1 else (v,))) for v in values])
            for combo in itertools.product(*grids) if grids else [()]:
                kwargs = {k: v for d in combo for k, v in d.items()}
                if set(params) - set(kwargs):
                    continue  # needs a fixture: not a check_model test
                label = "-".join(v.__name__ if inspect.isclass(v) else str(v) for v in kwargs.values()
                                 if inspect.isclass(v) or isinstance(v, (str, int)))
                case = f"{short}::{name}" + (f"[{label}]" if label else "")
                if case in _DEFAULT or _ALL:  # the rest are not collected (no skips to count)
                    out.append(pytest.param(mod, fn, kwargs, id=case))
    return out


def _record(mod, fn, kwargs, monkeypatch) -> list[dict]:
    calls = []

    def check_model(name, model, example_args, dynamic_shapes, sizes, *, rtol=1e-4, atol=1e-4,
                    expect_symbolic_outputs=True):
        calls.append(dict(name=name, model=model.eval(), example=tuple(example_args),
                          dynamic_shapes=dynamic_shapes, sizes=sizes, rtol=rtol, atol=atol))

    monkeypatch.setattr(mod, "check_model", check_model)
    fn(**kwargs)
    return calls


def _flat(x) -> list[torch.Tensor]:
    return [t for t in pytree.tree_leaves(x) if isinstance(t, torch.Tensor)]


def _cli(args: list[str], capsys) -> tuple[int, str]:
    rc = cli.main([str(a) for a in args])
    return rc, capsys.readouterr().err


def _roundtrip(call: dict, d: Path, capsys) -> None:
    ep = torch.export.export(call["model"], call["example"], dynamic_shapes=call["dynamic_shapes"])
    torch.export.save(ep, d / "m.pt2")
    rc, err = _cli(["compile", d / "m.pt2", "-o", d / "m.symhlo"], capsys)
    assert rc == 0, f"{call['name']}: symhlo compile m.pt2 failed:\n{err}"
    for k, args in enumerate(call["sizes"]):
        inputs = _flat(args)
        cmd = ["run", d / "m.symhlo"]
        for i, t in enumerate(inputs):
            np.save(d / f"in{k}_{i}.npy", t.numpy())
            cmd += ["--input", f"@{d}/in{k}_{i}.npy"]
        with torch.no_grad():
            expected = _flat(call["model"](*args))
        for i in range(len(expected)):
            cmd += ["--output", f"@{d}/out{k}_{i}.npy"]
        rc, err = _cli(cmd, capsys)
        shapes = [tuple(t.shape) for t in inputs]
        assert rc == 0, f"{call['name']}: symhlo run at {shapes} failed:\n{err}"
        for i, e in enumerate(expected):
            got = torch.from_numpy(np.load(d / f"out{k}_{i}.npy"))
            assert got.shape == e.shape and got.dtype == e.dtype, \
                f"{call['name']} output {i} at {shapes}: {got.dtype}{list(got.shape)} vs {e.dtype}{list(e.shape)}"
            torch.testing.assert_close(got, e, rtol=call["rtol"], atol=call["atol"],
                                       msg=lambda m: f"{call['name']} output {i} at {shapes}: {m}")


def test_default_subset_names_real_e2e_cases():
    """A renamed e2e test must not silently drop out of the default round-trip run."""
    collected = {p.id for p in _cases()}
    assert _DEFAULT <= collected, sorted(_DEFAULT - collected)


@pytest.mark.parametrize("mod, fn, kwargs", _cases())
def test_e2e_model_roundtrips_through_pt2_and_the_cli(mod, fn, kwargs, monkeypatch, tmp_path, capsys):
    calls = _record(mod, fn, kwargs, monkeypatch)
    assert calls, "the e2e test made no check_model call"
    for n, call in enumerate(calls):
        d = tmp_path / str(n)
        d.mkdir()
        _roundtrip(call, d, capsys)


class SliceByOther(torch.nn.Module):
    def forward(self, x, y):
        return y[: x.shape[0]] * 2 + x


class SoftmaxOverExpand(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x.expand(x.shape[0], 5, 4), -1)


def test_pt2_relations_are_checked_by_symhlo_run(tmp_path, capsys):
    """torch.export's guard `x.shape[0] <= y.shape[0]` survives save/load and is checked by the CLI."""
    ep = torch.export.export(SliceByOther(), (torch.randn(3, 4), torch.randn(5, 4)),
                             dynamic_shapes=({0: Dim("m")}, {0: Dim("n")}))
    torch.export.save(ep, tmp_path / "s.pt2")
    rc, err = _cli(["compile", tmp_path / "s.pt2", "-o", tmp_path / "s.symhlo"], capsys)
    assert rc == 0, err
    x, y = np.random.rand(6, 4).astype(np.float32), np.random.rand(5, 4).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    rc, err = _cli(["run", tmp_path / "s.symhlo", "--input", f"@{tmp_path}/x.npy",
                    "--input", f"@{tmp_path}/y.npy"], capsys)
    assert rc == 1
    assert err.strip() == ("symhlo: error: the shapes break 'x_dim0 <= y_dim0', which the exported "
                           "program relies on (x_dim0 = 6 from x: axis 0, y_dim0 = 5 from y: axis 0)")
    np.save(tmp_path / "x.npy", x[:4])
    rc, err = _cli(["run", tmp_path / "s.symhlo", "--input", f"@{tmp_path}/x.npy", "--input",
                    f"@{tmp_path}/y.npy", "--output", f"@{tmp_path}/o.npy"], capsys)
    assert rc == 0, err
    want = SliceByOther()(torch.from_numpy(x[:4]), torch.from_numpy(y))
    torch.testing.assert_close(torch.from_numpy(np.load(tmp_path / "o.npy")), want)


@pytest.mark.parametrize("target", ["cpu", "cuda", "rocm", "vulkan"])
def test_pt2_with_min_1_compiles_for_every_target(target, tmp_path, capsys):
    """A softmax over an expand with Dim(min=1) from a .pt2: compiled (to .vmfb) for each target,
    run on the CPU vs eager, including at the size 1 torch.export never traced."""
    ep = torch.export.export(SoftmaxOverExpand(), (torch.randn(3, 1, 4),),
                             dynamic_shapes=({0: Dim("b", min=1)},))
    torch.export.save(ep, tmp_path / "e.pt2")
    out = tmp_path / ("e.symhlo" if target == "cpu" else "e.vmfb")
    rc, err = _cli(["compile", tmp_path / "e.pt2", "--target", target, "-o", out], capsys)
    assert rc == 0, err
    if target != "cpu":
        assert out.stat().st_size > 0
        return
    for b in (1, 2, 7):
        x = torch.randn(b, 1, 4)
        np.save(tmp_path / "x.npy", x.numpy())
        rc, err = _cli(["run", out, "--input", f"@{tmp_path}/x.npy", "--output", f"@{tmp_path}/o.npy"], capsys)
        assert rc == 0, err
        torch.testing.assert_close(torch.from_numpy(np.load(tmp_path / "o.npy")), SoftmaxOverExpand()(x))


class ScaledByConstants(torch.nn.Module):
    def forward(self, x, k: int, *, a: float = 1.0):
        return x * k + a


def test_pt2_with_constant_arguments_runs_with_their_exported_values(tmp_path, capsys):
    """Non-tensor arguments (k: int positional, a: float keyword) survive save/load as constants:
    `symhlo run` takes the tensor alone, and the loaded module refuses other values by name."""
    ep = torch.export.export(ScaledByConstants(), (torch.randn(3, 4), 3), kwargs={"a": 0.5},
                             dynamic_shapes={"x": {0: Dim("b")}, "k": None, "a": None})
    torch.export.save(ep, tmp_path / "k.pt2")
    rc, err = _cli(["compile", tmp_path / "k.pt2", "-o", tmp_path / "k.symhlo"], capsys)
    assert rc == 0, err
    x = torch.randn(6, 4)
    np.save(tmp_path / "x.npy", x.numpy())
    rc, err = _cli(["run", tmp_path / "k.symhlo", "--input", f"@{tmp_path}/x.npy",
                    "--output", f"@{tmp_path}/o.npy"], capsys)
    assert rc == 0, err
    want = ScaledByConstants()(x, 3, a=0.5)
    torch.testing.assert_close(torch.from_numpy(np.load(tmp_path / "o.npy")), want)
    cm = symhlo.load(tmp_path / "k.symhlo")
    torch.testing.assert_close(cm(x, 3, a=0.5), want)
    with pytest.raises(symhlo.ShapeError, match=r"^a: the program was exported with a = 0\.5, got 0\.7"):
        cm(x, 3, a=0.7)
