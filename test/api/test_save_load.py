"""CompiledModule.save / symhlo.load: round trip, shape checks kept, damaged files -> SymhloError."""

import json
import struct

import pytest
import torch

import symhlo


class Affine(torch.nn.Module):
    def forward(self, x, y):
        return x * 2 + y, x.sum(1)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    cm = symhlo.compile(Affine(), inputs=[
        symhlo.Input(min_shape=(1, 3), opt_shape=(4, 3), max_shape=(32, 3), dims=("n", None), name="x"),
        symhlo.Input(shape=("n", 3), name="y")])
    path = tmp_path_factory.mktemp("m") / "m.symhlo"
    cm.save(path)
    return cm, path, path.read_bytes()


def test_round_trip_matches_eager_and_checks_shapes(saved):
    cm, path, _ = saved
    cm2 = symhlo.load(path)
    x, y = torch.randn(7, 3), torch.randn(7, 3)
    for got, want in zip(cm2(x, y), Affine()(x, y)):
        torch.testing.assert_close(got, want)
    assert [repr(d) for d in cm2.dims] == [repr(d) for d in cm.dims]
    with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 33, above max 32 of 'n'$"):
        cm2(torch.randn(33, 3), torch.randn(33, 3))
    with pytest.raises(symhlo.ShapeError, match=r"^y: axis 0 is 4, but x: axis 0 is 5; both are 'n'"):
        cm2(torch.randn(5, 3), torch.randn(4, 3))


def test_header_is_json_not_pickle(saved):
    _, _, data = saved
    (n,) = struct.unpack("<Q", data[8:16])
    header = json.loads(data[16:16 + n])
    assert header["format"] == 3 and header["target"] == "cpu"
    assert "symbols" not in header   # the contract is the vmfb's record of @main's attributes
    (variant,) = header["variants"]
    assert "symbols" not in variant
    assert variant["size"] == len(data) - 16 - n and len(variant["sha256"]) == 64


@pytest.mark.parametrize("cut", [0, 3, 8, 12, 20, -1000, -1])
def test_truncated_file(saved, tmp_path, cut):
    _, _, data = saved
    bad = tmp_path / "cut.symhlo"
    bad.write_bytes(data[:cut])
    with pytest.raises(symhlo.SymhloError, match=r"'.*cut\.symhlo' is (truncated|empty)"):
        symhlo.load(bad)


@pytest.mark.parametrize("content, pattern", [
    (b"PK\x03\x04 a zip file, not ours", r"not a saved symhlo module \(bad magic\)"),
    (b"\x7fELF" + bytes(100), r"not a saved symhlo module \(bad magic\)"),
    (b"SYMHLO\x00\x01" + struct.pack("<Q", 5) + b"{oops", r"is corrupt: JSONDecodeError"),
    (b"SYMHLO\x00\x01" + struct.pack("<Q", 2) + b"[]", r"is corrupt: ValueError: the header is not a JSON object"),
    (b"SYMHLO\x00\x01" + struct.pack("<Q", 13) + b'{"format": 9}', r"has format version 9; this symhlo reads 1, 2 and 3"),
    (b"SYMHLO\x00\x01" + struct.pack("<Q", 2**40), r"is truncated: the header needs 1099511627776 bytes"),
])
def test_foreign_or_corrupt_file(tmp_path, content, pattern):
    bad = tmp_path / "bad.symhlo"
    bad.write_bytes(content)
    with pytest.raises(symhlo.SymhloError, match=pattern):
        symhlo.load(bad)


def test_flipped_byte_in_the_module_fails_its_checksum(saved, tmp_path):
    _, _, data = saved
    damaged = bytearray(data)
    damaged[-100] ^= 0xFF
    bad = tmp_path / "flip.symhlo"
    bad.write_bytes(bytes(damaged))
    with pytest.raises(symhlo.SymhloError, match=r"is corrupt: IREE module 0 fails its sha256 check"):
        symhlo.load(bad)


def test_edited_header_missing_key(saved, tmp_path):
    _, _, data = saved
    (n,) = struct.unpack("<Q", data[8:16])
    header = json.loads(data[16:16 + n])
    del header["variants"][0]["size"]
    blob = json.dumps(header).encode()
    bad = tmp_path / "edit.symhlo"
    bad.write_bytes(data[:8] + struct.pack("<Q", len(blob)) + blob + data[16 + n:])
    with pytest.raises(symhlo.SymhloError, match=r"is corrupt: KeyError: 'size'"):
        symhlo.load(bad)


def test_trailing_garbage(saved, tmp_path):
    _, _, data = saved
    bad = tmp_path / "tail.symhlo"
    bad.write_bytes(data + b"xyz")
    with pytest.raises(symhlo.SymhloError, match=r"is corrupt: 3 unexpected trailing bytes"):
        symhlo.load(bad)


def test_missing_file(tmp_path):
    with pytest.raises(symhlo.SymhloError, match=r"cannot read '.*nope\.symhlo'"):
        symhlo.load(tmp_path / "nope.symhlo")


def _with_header(data: bytes, header: dict) -> bytes:
    from symhlo.backend.compiler import _header_digest

    header = dict(header, header_sha256=_header_digest(header))
    (n,) = struct.unpack("<Q", data[8:16])
    blob = json.dumps(header).encode()
    return data[:8] + struct.pack("<Q", len(blob)) + blob + data[16 + n:]


def test_format_2_file_reads_its_contract_from_the_vmfb_not_its_json(saved, tmp_path):
    """A format-2 header also carried the contract as JSON; load reads the vmfb's record of
    @main's attributes instead, so a stale (here: widened) JSON table changes nothing."""
    cm, _, data = saved
    (n,) = struct.unpack("<Q", data[8:16])
    header = json.loads(data[16:16 + n])
    stale = {"inputs": [], "ranges": {"n": [0, 10**6]}, "names": {}, "relations": []}
    header = dict(header, format=2, symbols=stale,
                  variants=[dict(v, symbols=stale) for v in header["variants"]])
    p = tmp_path / "v2.symhlo"
    p.write_bytes(_with_header(data, header))
    cm2 = symhlo.load(p)
    assert [repr(d) for d in cm2.dims] == [repr(d) for d in cm.dims]
    with pytest.raises(symhlo.ShapeError, match=r"^x: axis 0 is 33, above max 32 of 'n'$"):
        cm2(torch.randn(33, 3), torch.randn(33, 3))


def test_vmfb_without_recorded_contract_is_refused(saved, tmp_path, monkeypatch):
    from symhlo.backend import compiler

    _, path, _ = saved
    monkeypatch.setattr(compiler, "recorded_main", lambda vmfb: None)
    with pytest.raises(symhlo.SymhloError, match=r"\(format version 3\): IREE module 0 records no call "
                                                 r"contract .*compile and save the model again"):
        symhlo.load(path)
