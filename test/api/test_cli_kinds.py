"""Every CLI command checks the kinds of the files it reads and writes by extension and refuses an
unknown or mismatched one before doing any work (exit 1, a message naming what it takes)."""

import re
import subprocess
import sys

import pytest

from symhlo.tools.cli import main


def test_export_to_vmfb_is_refused_in_a_subprocess(tmp_path):
    out = tmp_path / "a.vmfb"
    proc = subprocess.run([sys.executable, "-m", "symhlo.tools.cli", "export", "m.pt2", "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert re.fullmatch(r"symhlo export: error: output '.*a\.vmfb' has '\.vmfb'; symhlo export takes "
                        r"\.mlir \(StableHLO text\) or \.mlirbc \(StableHLO portable artifact \(VHLO\)\); "
                        r"symhlo compile writes \.vmfb\n", proc.stderr), proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("argv, pattern", [
    (["export", "m.pt2", "-o", "a.bin"], r"symhlo export: error: output 'a\.bin' has '\.bin'; "
                                         r"symhlo export takes \.mlir .* or \.mlirbc"),
    (["export", "m.onnx"], r"symhlo export: error: input 'm\.onnx' has '\.onnx'; symhlo export takes "
                           r"\.pt2 \(torch\.export archive\) or \.mlir .* or \.mlirbc"),
    (["compile", "m.pt2", "-o", "m.mlir"], r"symhlo compile: error: output 'm\.mlir' has '\.mlir'; "
                                           r"symhlo compile takes \.vmfb \(IREE module\) or \.symhlo .*; "
                                           r"symhlo export writes \.mlir"),
    (["compile", "m.pt2", "-o", "model"], r"symhlo compile: error: output 'model' has no extension"),
    (["compile", "m.txt", "-o", "m.vmfb"], r"symhlo compile: error: input 'm\.txt' has '\.txt'"),
    (["run", "m.mlir"], r"symhlo run: error: module 'm\.mlir' has '\.mlir'; symhlo run takes \.vmfb"),
    (["run", "m.vmfb", "--input", "@x.txt"], r"symhlo run: error: --input 'x\.txt' has '\.txt'; "
                                             r"symhlo run takes \.npy \(numpy array\)"),
    (["run", "m.vmfb", "--output", "@y.bin"], r"symhlo run: error: --output 'y\.bin' has '\.bin'"),
])
def test_mismatched_kind_is_refused(argv, pattern, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert re.search(pattern, err), err
    assert list(tmp_path.iterdir()) == []  # nothing written
