"""Saved modules are data: cm.save writes no pickle, and symhlo.load on a damaged, foreign,
version-mismatched or crafted file raises SymhloError and runs nothing from it.

"Runs nothing" is checked by making every code-loading door fail the test while symhlo.load runs
(pickle, torch.load, eval/exec, importlib, sympy.sympify), and by recording whether IREE was handed
the bytes (symhlo.backend.runtime.Runtime): a damaged file must be refused before IREE parses any of
it. Crafted headers recompute `header_sha256`, as an attacker would: the checksum only catches
damage.
"""

from __future__ import annotations

import builtins
import hashlib
import importlib
import json
import pickle
import pickletools
import random
import re
import struct
import sys
import zipfile

import pytest
import torch

import symhlo
from symhlo.backend import compiler
from symhlo.backend.compiler import CompiledModule

from hardening_models import TwoInputs, two_inputs_example

MAGIC = CompiledModule.MAGIC


def _split(data: bytes) -> tuple[dict, bytes, bytes]:
    """(header, header bytes, body) of a saved module."""
    assert data[:8] == MAGIC
    (n,) = struct.unpack("<Q", data[8:16])
    blob = data[16:16 + n]
    return json.loads(blob), blob, data[16 + n:]


def _join(header: dict, body: bytes, *, rehash: bool = True) -> bytes:
    if rehash and "header_sha256" in header:
        header = dict(header, header_sha256=compiler._header_digest(header))
    blob = json.dumps(header).encode()
    return MAGIC + struct.pack("<Q", len(blob)) + blob + body


@pytest.fixture
def no_code_paths(monkeypatch):
    """Every way of running code from data fails the test while it is active."""
    def forbid(name):
        def f(*a, **k):
            raise AssertionError(f"symhlo.load called {name}")
        return f

    monkeypatch.setattr(pickle, "loads", forbid("pickle.loads"))
    monkeypatch.setattr(pickle, "load", forbid("pickle.load"))
    monkeypatch.setattr(pickle, "Unpickler", forbid("pickle.Unpickler"))
    monkeypatch.setattr(torch, "load", forbid("torch.load"))
    monkeypatch.setattr(builtins, "eval", forbid("eval"))
    monkeypatch.setattr(builtins, "exec", forbid("exec"))
    monkeypatch.setattr(importlib, "import_module", forbid("importlib.import_module"))
    import sympy
    monkeypatch.setattr(sympy, "sympify", forbid("sympy.sympify"))


@pytest.fixture
def iree_loads(monkeypatch):
    """The vmfbs handed to IREE (Runtime construction) while the fixture is active."""
    seen = []
    real = compiler.Runtime

    def spy(vmfb, *a, **k):
        seen.append(len(vmfb))
        return real(vmfb, *a, **k)

    monkeypatch.setattr(compiler, "Runtime", spy)
    return seen


@pytest.fixture(scope="module")
def saved(two_inputs_module, tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "m.symhlo"
    two_inputs_module.save(path)
    return path.read_bytes()


def test_save_writes_json_and_the_vmfb_only(two_inputs_module, saved, tmp_path, monkeypatch):
    header, blob, body = _split(saved)
    # The whole file is: magic, length, a JSON object, the IREE module(s), byte for byte.
    assert body == two_inputs_module.vmfb
    assert [v["size"] for v in header["variants"]] == [len(body)]
    assert header["variants"][0]["sha256"] == hashlib.sha256(body).hexdigest()
    assert header["header_sha256"] == compiler._header_digest(header)

    def plain(x) -> bool:
        if isinstance(x, dict):
            return all(isinstance(k, str) and plain(v) for k, v in x.items())
        if isinstance(x, list):
            return all(plain(v) for v in x)
        return x is None or isinstance(x, (str, int, bool))
    assert plain(header)
    # No pickle in the header: no protocol marker, no torch.save zip, not parseable as a pickle.
    assert b"\x80\x02" not in blob and b"\x80\x04" not in blob and b"\x80\x05" not in blob
    assert b"PK\x03\x04" not in blob and b"data.pkl" not in blob
    with pytest.raises(Exception):
        list(pickletools.genops(blob))
    # And the save path never calls a pickler.
    for mod, name in [(pickle, "dumps"), (pickle, "dump"), (pickle, "Pickler"), (torch, "save")]:
        monkeypatch.setattr(mod, name, lambda *a, **k: pytest.fail(f"cm.save called {name}"))
    two_inputs_module.save(tmp_path / "again.symhlo")
    assert (tmp_path / "again.symhlo").read_bytes() == saved


def test_good_file_loads_without_any_code_path(saved, tmp_path, no_code_paths, iree_loads):
    p = tmp_path / "m.symhlo"
    p.write_bytes(saved)
    cm = symhlo.load(p)
    assert iree_loads == [len(_split(saved)[2])]
    x, y = two_inputs_example()
    for got, want in zip(cm(x, y), TwoInputs()(x, y)):
        torch.testing.assert_close(got, want)
    with pytest.raises(symhlo.ShapeError, match=r"^y: axis 0 is 65, above max 64 of 's'$"):
        cm(x, torch.randn(65))


def _cuts(n: int) -> list[int]:
    rng = random.Random(0)
    return sorted(set(list(range(0, 24)) + [rng.randrange(24, n) for _ in range(40)] + [n - 1]))


def test_truncated_anywhere(saved, tmp_path, no_code_paths, iree_loads):
    p = tmp_path / "cut.symhlo"
    cuts = _cuts(len(saved))
    for cut in cuts:
        p.write_bytes(saved[:cut])
        with pytest.raises(symhlo.SymhloError, match=r"'.*cut\.symhlo' is (truncated|empty|not a saved|corrupt)"):
            symhlo.load(p)
    assert iree_loads == [], "IREE was handed a truncated module"
    print(f"\ntruncated saved module: {len(cuts)} cut points, all SymhloError before IREE")


def test_flipped_bytes_anywhere(saved, tmp_path, no_code_paths, iree_loads):
    """Every byte of the magic, length and header, and 200 bytes of the vmfb, each with one bit
    flipped: SymhloError before IREE, or (only when the flip leaves the file's meaning unchanged,
    e.g. inside the name of the `header_sha256` key) the very same module."""
    header, blob, body = _split(saved)
    rng = random.Random(1)
    positions = list(range(16 + len(blob))) + [16 + len(blob) + rng.randrange(len(body)) for _ in range(200)]
    p = tmp_path / "flip.symhlo"
    refused, same = 0, []
    for pos in positions:
        bad = bytearray(saved)
        bad[pos] ^= 1 << rng.randrange(8)
        p.write_bytes(bytes(bad))
        iree_loads.clear()
        try:
            cm = symhlo.load(p)
        except symhlo.SymhloError:
            refused += 1
            assert iree_loads == [], f"flip at {pos}: IREE was handed the bytes before the refusal"
            continue
        # Accepted: it must be exactly the saved module.
        h2, _, b2 = _split(bytes(bad))
        known = ("format", "target", "out_spec", "variants")
        assert b2 == body and cm.vmfb == body, f"flip at {pos} was accepted with a different vmfb"
        assert {k: h2.get(k) for k in known} == {k: header[k] for k in known}, \
            f"flip at {pos} was accepted with a different header"
        renamed = set(h2) - set(header)
        assert len(renamed) == 1 and sum(a != b for a, b in zip(renamed.pop(), "header_sha256")) == 1
        same.append(pos)
    print(f"\nflipped saved module: {len(positions)} flips, {refused} SymhloError, "
          f"{len(same)} accepted as the identical module (flips inside the key name 'header_sha256')")
    assert refused >= len(positions) - 16


FOREIGN = [
    ("empty", b"", r"is empty"),
    ("png", b"\x89PNG\r\n\x1a\n" + bytes(64), r"not a saved symhlo module \(bad magic\)"),
    ("zip", None, r"not a saved symhlo module \(bad magic\)"),
    ("elf", b"\x7fELF\x02\x01\x01" + bytes(100), r"not a saved symhlo module \(bad magic\)"),
    ("pickle", pickle.dumps({"format": 2}), r"not a saved symhlo module \(bad magic\)"),
    ("mlir-text", b"func.func @main() { return }\n", r"not a saved symhlo module \(bad magic\)"),
    ("mlir-bytecode", b"ML\xefR" + bytes(64), r"not a saved symhlo module \(bad magic\)"),
    ("magic-only", MAGIC, r"is truncated"),
    ("huge-header-length", MAGIC + struct.pack("<Q", 2**63), r"is truncated: the header needs"),
    ("header-not-utf8", MAGIC + struct.pack("<Q", 4) + b"\xff\xfe\xfd\xfc", r"is corrupt: UnicodeDecodeError"),
    ("header-not-object", MAGIC + struct.pack("<Q", 2) + b"[]", r"is corrupt: ValueError"),
    ("deeply-nested-header", MAGIC + struct.pack("<Q", 200000) + b"[" * 100000 + b"]" * 100000, r"is corrupt: RecursionError"),
]


@pytest.mark.parametrize("content,pattern", [c[1:] for c in FOREIGN], ids=[c[0] for c in FOREIGN])
def test_foreign_files(tmp_path, content, pattern, no_code_paths, iree_loads):
    p = tmp_path / "foreign.symhlo"
    if content is None:
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("data.pkl", pickle.dumps(1))
    else:
        p.write_bytes(content)
    with pytest.raises(symhlo.SymhloError, match=pattern):
        symhlo.load(p)
    assert iree_loads == []


def test_raw_vmfb_and_pt2_are_not_saved_modules(two_inputs_module, tmp_path, no_code_paths):
    (tmp_path / "m.vmfb").write_bytes(two_inputs_module.vmfb)
    with pytest.raises(symhlo.SymhloError, match=r"not a saved symhlo module \(bad magic\)"):
        symhlo.load(tmp_path / "m.vmfb")
    with pytest.raises(symhlo.SymhloError, match=r"cannot read"):
        symhlo.load(tmp_path)  # a directory


@pytest.mark.parametrize("fmt", [0, 4, 99, -1, "2", None, [2], True, 2.0])
def test_version_mismatch(saved, tmp_path, fmt, no_code_paths, iree_loads):
    header, _, body = _split(saved)
    p = tmp_path / "v.symhlo"
    p.write_bytes(_join(dict(header, format=fmt), body))
    with pytest.raises(symhlo.SymhloError, match=rf"has format version {re.escape(repr(fmt))}; this symhlo reads"):
        symhlo.load(p)
    assert iree_loads == []


def test_crafted_shape_expression_is_not_executed(saved, tmp_path, monkeypatch, no_code_paths, iree_loads):
    """The contract a saved module carries is its vmfb's record of @main's attributes (a crafted
    vmfb can say anything there): its size expressions are parsed, never evaluated."""
    from torch_mlir import ir
    from symhlo.passes.ir_util import new_context

    marker = tmp_path / "RAN"
    payload = ("[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]"
               f".__init__.__globals__['system']('touch {marker}')")
    crafted = ('func.func private @main(tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>) '
               f'attributes {{symhlo.arg_shapes = [["{payload}", "4"], ["n", "4"]], '
               'symhlo.symbols = {n = [0, 9]}}')
    keep = []

    def recorded(vmfb):
        keep.append(ir.Module.parse(crafted, new_context()))
        return keep[-1]

    monkeypatch.setattr(compiler, "recorded_main", recorded)
    p = tmp_path / "crafted.symhlo"
    p.write_bytes(saved)
    with pytest.raises(symhlo.SymhloError, match=r"is corrupt: its recorded contract: @main: bad "
                                                 r"symhlo.arg_shapes entry for arg0 axis 0"):
        symhlo.load(p)
    assert not marker.exists()
    assert iree_loads == []


def test_crafted_output_spec_imports_nothing(saved, tmp_path, monkeypatch, iree_loads):
    """torch's treespec_loads imports the module an `__enum__` context names; load must refuse it."""
    marker = tmp_path / "IMPORTED"
    (tmp_path / "symhlo_bait_module.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\nimport enum\n"
        "class E(enum.Enum):\n    A = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    header, _, body = _split(saved)
    ctx = json.dumps([{"__enum__": True, "fqn": "symhlo_bait_module:E", "name": "A"}])
    spec = json.dumps([1, {"type": "builtins.dict", "context": ctx, "children_spec": [
        {"type": None, "context": None, "children_spec": []}]}])
    p = tmp_path / "enum.symhlo"
    p.write_bytes(_join(dict(header, out_spec=spec), body))
    with pytest.raises(symhlo.SymhloError, match=r"is corrupt: ValueError: the output spec names a Python enum"):
        symhlo.load(p)
    assert not marker.exists() and "symhlo_bait_module" not in sys.modules
    assert iree_loads == []


def test_edited_header_without_rehash_fails_the_header_checksum(saved, tmp_path, no_code_paths, iree_loads):
    header, _, body = _split(saved)
    h = json.loads(json.dumps(header))
    h["variants"][0]["profile"] = {"index": 0}
    p = tmp_path / "edited.symhlo"
    p.write_bytes(_join(h, body, rehash=False))
    with pytest.raises(symhlo.SymhloError, match=r"is corrupt: its header fails its sha256 check"):
        symhlo.load(p)
    assert iree_loads == []
