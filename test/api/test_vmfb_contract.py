"""The call contract compiled into the .vmfb (symhlo-insert-call-checks-for-iree): any IREE host
refuses a call outside the exported ranges and relations, naming input, axis, value and limit;
`symhlo run m.vmfb` refuses it first with symhlo's own message (rank and dtype included)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.export import Dim

import symhlo
from symhlo.tools.cli import main

IREE_RUN = shutil.which("iree-run-module", path=str(Path(sys.executable).parent)) or \
    shutil.which("iree-run-module")


class Three(torch.nn.Module):
    def forward(self, x, y, z):
        return x + 1, y[: x.shape[0]] * 2, z.reshape(-1, 2, 4)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("vmfb")
    h = Dim("h", min=1, max=50)
    cm = symhlo.compile(Three(), (torch.randn(6, 4), torch.randn(8, 4), torch.randn(6, 4)),
                        dynamic_shapes=({0: 2 * h}, {0: Dim("n", min=2)}, {0: 2 * h}))
    assert "hal." not in cm.stablehlo   # the portable StableHLO stays pure
    (d / "m.vmfb").write_bytes(cm.variants[0].vmfb)
    arrays = {"x": (10, 4), "y": (12, 4), "z": (10, 4), "x101": (101, 4), "x9": (9, 4),
              "y8": (8, 4), "z12": (12, 4), "x3d": (10, 4, 1)}
    rng = np.random.default_rng(0)
    for name, shape in arrays.items():
        np.save(d / f"{name}.npy", rng.standard_normal(shape).astype(np.float32))
    np.save(d / "xi.npy", np.ones((10, 4), np.int32))
    return d


def _iree_run(d, *names):
    return subprocess.run([IREE_RUN, f"--module={d / 'm.vmfb'}", "--function=main",
                           "--device=local-task", *[f"--input=@{d / n}.npy" for n in names],
                           f"--output=@{d / 'o0.npy'}", f"--output=@{d / 'o1.npy'}",
                           f"--output=@{d / 'o2.npy'}"], capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(IREE_RUN is None, reason="iree-run-module (iree-base-runtime) not installed")
def test_iree_run_module_runs_in_range_and_refuses_outside(files):
    p = _iree_run(files, "x", "y", "z")
    assert p.returncode == 0, p.stderr
    x, y, z = (torch.from_numpy(np.load(files / f"{n}.npy")) for n in "xyz")
    for k, want in enumerate(Three()(x, y, z)):
        torch.testing.assert_close(torch.from_numpy(np.load(files / f"o{k}.npy")), want)
    cases = [
        (("x101", "y", "z"), r"symhlo contract: x tensor<\?x4xf32> \(axis 0 = 2\*h with h in \[2, 50\] "
                             r"\(from x axis 0\)\); shape dimension 0 mismatch; expected 100 but have 101"),
        (("x9", "y", "z"), r"symhlo contract: x .*2\*h.*; shape dimension 0 mismatch; expected 8 but have 9"),
        (("x", "y", "z12"), r"symhlo contract: z tensor<\?x4xf32> \(axis 0 = 2\*h with h in \[2, 50\] "
                            r"\(from x axis 0\)\); shape dimension 0 mismatch; expected 10 but have 12"),
        (("x", "y8", "z"), r"symhlo contract: 2\*h <= n must hold \(h from x axis 0, n from y axis 0\); "
                           r"y axis 0: shape dimension 0 mismatch; expected 10 but have 8"),
        (("x3d", "y", "z"), r"symhlo contract: x tensor<\?x4xf32> .*shape rank mismatch; expected 2 but have 3"),
        (("xi", "y", "z"), r"symhlo contract: x tensor<\?x4xf32> .*element type mismatch; expected f32"),
    ]
    for names, pattern in cases:
        p = _iree_run(files, *names)
        assert p.returncode != 0 and re.search(pattern, p.stderr), (names, p.returncode, p.stderr)


def test_symhlo_run_vmfb_refuses_out_of_range_in_a_subprocess(files):
    p = subprocess.run([sys.executable, "-m", "symhlo.tools.cli", "run", str(files / "m.vmfb"),
                        *[f"--input=@{files / n}.npy" for n in ("x101", "y", "z")]],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    assert p.stderr == "symhlo: error: x: axis 0 is 101, but must be 2*h for some integer h\n"


@pytest.mark.parametrize("names, pattern", [
    (("x", "y", "z12"), r"symhlo: error: z: axis 0 is 12, but must be 2\*h = 10 \(h = 5 from x: axis 0\)"),
    (("x", "y8", "z"), r"symhlo: error: the shapes break '2\*h <= n'"),
    (("x3d", "y", "z"), r"symhlo: error: x: rank is 3, expected 2 \(shape \(2\*h, 4\)\)"),
    (("xi", "y", "z"), r"symhlo: error: x: dtype is int32, expected float32"),
])
def test_symhlo_run_vmfb_refuses_with_symhlos_message(files, names, pattern, capsys):
    assert main(["run", str(files / "m.vmfb"), *[f"--input=@{files / n}.npy" for n in names]]) == 1
    err = capsys.readouterr().err
    assert re.fullmatch(pattern + r".*\n", err), err


SQUARE = """func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> attributes {
    symhlo.symbols = {h = [1, 8]}, symhlo.arg_names = ["x", "y"], symhlo.arg_shapes = [["h"], ["h**2"]]} {
  return %x : tensor<?xf32>
}
"""


def test_a_check_that_cannot_be_compiled_in_needs_allow_unchecked(tmp_path, capsys):
    src, out = tmp_path / "sq.mlir", tmp_path / "sq.vmfb"
    src.write_text(SQUARE)
    assert main(["compile", str(src), "-o", str(out)]) == 1
    assert re.fullmatch(r".*sq\.vmfb: error: the shape checks for y axis 0 = h\*\*2 cannot be compiled "
                        r"into the \.vmfb, .* or pass --allow-unchecked to write the \.vmfb anyway\n",
                        capsys.readouterr().err)
    assert not out.exists()
    assert main(["compile", str(src), "-o", str(out), "--allow-unchecked"]) == 0 and out.exists()
    np.save(tmp_path / "h3.npy", np.ones(3, np.float32))
    np.save(tmp_path / "h8.npy", np.ones(8, np.float32))
    capsys.readouterr()
    assert main(["run", str(out), f"--input=@{tmp_path / 'h3.npy'}", f"--input=@{tmp_path / 'h8.npy'}"]) == 1
    assert capsys.readouterr().err == "symhlo: error: y: axis 0 is 8, but must be h**2 = 9 (h = 3 from x: axis 0)\n"
