"""Malformed input to symhlo-opt and `symhlo export/compile/run`: a diagnostic and exit code 1.

Every case must end with exit code 1, an `error:` line on stderr (`file:line:col: error:` where
there is a position), no Python traceback, no `internal error`, and no signal. The cases of each
tool run in one crash-isolated worker process (harness.run_batch: a worker killed by a case is
detected, and the case is re-run alone); a few run as real processes through the installed console
scripts too, so the entry points themselves are covered.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from hardening_models import TwoInputs, two_inputs_dynamic_shapes, two_inputs_example
from harness import OPT_LAUNCHER, PYTHON, assert_polite_failure, run_batch, run_one

STABLEHLO = """func.func @main(%arg0: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
"""
TORCH_DIALECT = """func.func @main(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32> {
  %0 = torch.aten.neg %arg0 : !torch.vtensor<[?,3],f32> -> !torch.vtensor<[?,3],f32>
  return %0 : !torch.vtensor<[?,3],f32>
}
"""
# A StableHLO module whose symhlo.arg_shapes attribute is Python code: it must be read as data.
EVAL_BAIT = """func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> attributes {
    symhlo.arg_shapes = [["__import__('pathlib').Path('MARKER').touch() or s0"]],
    symhlo.symbols = {s0 = [1, 10]}} {
  return %arg0 : tensor<?xf32>
}
"""

# An op whose name holds the byte 0x80 (found by the bytecode fuzz as a flipped bit in
# `shape.to_extent_tensor`). The shape dialect accepts unknown ops, so it parses, and the first
# pass that read the name as a Python str aborted symhlo-opt (nanobind's conversion error).
NON_UTF8_OP = """func.func @main(%arg0: tensor<?x3xf32>) -> tensor<2xindex> {
  %0 = shape.shape_of %arg0 : tensor<?x3xf32> -> !shape.shape
  %1 = "shape.t\\80_extent_tensor"(%0) : (!shape.shape) -> tensor<2xindex>
  return %1 : tensor<2xindex>
}
"""


# MLIR bytecode of STABLEHLO with three bytes changed (found by the bytecode fuzz): MLIR's reader
# loops on it (still running after 6 minutes). symhlo reads bytecode in a child process and gives
# up after SYMHLO_BYTECODE_TIMEOUT_S (3 s in these tests).
HANGING_BYTECODE = bytes.fromhex(
    "4d4cef520d4d4c495232342e302e3067697400011f070105090d01030f030507130503170323110701110b130b0b"
    "131313130107371707025b050d170101010d03050f170103031701032317010511170107071b0500ffffffffffff"
    "ffff0d0505020103010b044d050150030107043d0301050350090307042903050b03030b0007060d030105010105"
    "040f030306030105010073110b05090f0f150b116275696c74696e0066756e6300737461626c65686c6f006d6f64"
    "756c650072657475726e04616464002d006d61696e000817050501010d010501010701")


def _rand(n: int, seed: int) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(n))


@pytest.fixture(scope="module")
def files(tmp_path_factory, saved_module):
    """Every malformed (and a few well-formed) input file, by name."""
    d = tmp_path_factory.mktemp("inputs")
    w = lambda name, data: (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())  # noqa: E731
    w("ok.mlir", STABLEHLO)
    w("truncated.mlir", STABLEHLO[:70])
    w("random.mlir", _rand(4096, 1))
    w("utf16.mlir", STABLEHLO.encode("utf-16"))
    w("nul.mlir", STABLEHLO + "\0" + "garbage after a NUL")
    w("unregistered.mlir", '"foo.bar"() : () -> ()\n')
    w("torch_dialect.mlir", TORCH_DIALECT)
    w("no_main.mlir", "func.func @other() { return }\n")
    w("deep.mlir", "func.func @f() attributes {a = " + "[" * 20000 + "]" * 20000 + "} { return }\n")
    w("deep_regions.mlir", "func.func @f() {\n" + '"test.op"() ({\n' * 4000 + "}) : () -> ()\n" * 4000
      + "return\n}\n")
    w("from_elements.mlir", "func.func @f(%a: i64) -> tensor<4294967296x2xi64> {\n"
      "  %t = tensor.from_elements %a, %a : tensor<4294967296x2xi64>\n"
      "  return %t : tensor<4294967296x2xi64>\n}\n")
    w("conv_dims.mlir", "func.func @f(%a: tensor<?x?x?x3xf32>, %k: tensor<3x3x3x4xf32>) -> tensor<?x?x?x4xf32> {\n"
      "  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 9223372036854775807, i, o]"
      "->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} :"
      " (tensor<?x?x?x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x?x?x4xf32>\n"
      "  return %0 : tensor<?x?x?x4xf32>\n}\n")
    w("eval_bait.mlir", EVAL_BAIT.replace("MARKER", str(d / "EVAL_RAN")))
    w("non_utf8_op.mlir", NON_UTF8_OP)
    w("non_utf8_attr.mlir", STABLEHLO.replace("{\n", 'attributes {note = "caf\\C3"} {\n', 1))
    w("utf8_escapes.mlir", STABLEHLO.replace("{\n", 'attributes {note = "caf\\C3\\A9 \\22\\5C"} {\n', 1))

    from torch_mlir import ir
    from symhlo.passes.ir_util import new_context

    buf = io.BytesIO()
    ir.Module.parse(STABLEHLO, new_context()).operation.write_bytecode(buf)
    bc = buf.getvalue()
    w("truncated.mlirbc", bc[:len(bc) // 2])
    w("random.mlirbc", b"ML\xefR" + _rand(4096, 2))
    w("hanging.mlirbc", HANGING_BYTECODE)
    with new_context() as ctx:  # the shape dialect accepts unknown ops: this one parses
        buf = io.BytesIO()
        ir.Module.parse(NON_UTF8_OP).operation.write_bytecode(buf)
    w("non_utf8_op.mlirbc", buf.getvalue())

    ep = torch.export.export(TwoInputs(), two_inputs_example(), dynamic_shapes=two_inputs_dynamic_shapes())
    torch.export.save(ep, d / "good.pt2")
    pt2 = (d / "good.pt2").read_bytes()
    w("random.pt2", _rand(4096, 3))
    w("empty.pt2", b"")
    w("truncated.pt2", pt2[:len(pt2) // 2])
    flipped = bytearray(pt2)
    flipped[len(pt2) // 3] ^= 0xFF
    w("flipped.pt2", bytes(flipped))
    with zipfile.ZipFile(d / "foreign.pt2", "w") as z:  # a zip, but not torch.export's
        z.writestr("hello.txt", "hi")
    (d / "text.pt2").write_text(STABLEHLO)  # an .mlir named .pt2
    with zipfile.ZipFile(d / "good.pt2") as zin, zipfile.ZipFile(d / "version.pt2", "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, b"999" if info.filename.endswith("archive_version") else data)

    # A .pt2 whose example-inputs pickle runs a command: torch 2.13's loader retries it with
    # weights_only=False. And one whose weights config asks for full unpickling of a weight.
    class RunsCode:
        def __reduce__(self):
            return (os.system, (f"touch {d / 'PICKLE_RAN'}",))

    buf = io.BytesIO()
    torch.save((RunsCode(),), buf)
    with zipfile.ZipFile(d / "good.pt2") as zin, \
            zipfile.ZipFile(d / "evil_inputs.pt2", "w") as z1, zipfile.ZipFile(d / "evil_weight.pt2", "w") as z2:
        for info in zin.infolist():
            data = zin.read(info.filename)
            z1.writestr(info, buf.getvalue() if "sample_inputs" in info.filename else data)
            if info.filename.endswith("_constants_config.json"):
                data = json.dumps({"config": {"c": {"path_name": "tensor_constant_0", "is_param": False,
                                                    "use_pickle": True, "tensor_meta": None}}}).encode()
                z2.writestr(info.filename.replace("_constants_config.json", "_constants_config.json"), data)
                z2.writestr(info.filename.rsplit("/", 1)[0] + "/tensor_constant_0", buf.getvalue())
                continue
            z2.writestr(info, data)

    symhlo_path, vmfb_path = saved_module
    vmfb = vmfb_path.read_bytes()
    w("good.vmfb", vmfb)
    w("truncated.vmfb", vmfb[:len(vmfb) // 2])
    w("random.vmfb", _rand(4096, 4))
    w("good.symhlo", symhlo_path.read_bytes())
    w("random.symhlo", _rand(4096, 5))
    x, y = two_inputs_example()
    np.save(d / "x.npy", x.numpy())
    np.save(d / "y.npy", y.numpy())
    np.save(d / "x64.npy", x.double().numpy())
    np.save(d / "object.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    w("random.npy", _rand(256, 6))
    return d


# (id, argv with {d} for the input folder, regex the stderr must match)
OPT_CASES = [
    ("missing-file", ["{d}/missing.mlir"], r"^symhlo-opt: error: cannot open input file '.*missing\.mlir': No such file"),
    ("directory", ["{d}"], r"^symhlo-opt: error: cannot open input file .*Is a directory"),
    ("truncated", ["{d}/truncated.mlir"], r"^.*/truncated\.mlir:2:\d+: error: "),
    ("random-bytes", ["{d}/random.mlir"], r"^.*/random\.mlir:1:\d+: error: "),
    ("utf16", ["{d}/utf16.mlir"], r"^.*/utf16\.mlir:1:\d+: error: "),
    ("nul-byte", ["{d}/nul.mlir"], r"^.*/nul\.mlir:5:1: error: NUL byte"),
    ("random-bytecode", ["{d}/random.mlirbc"], r"^.*/random\.mlirbc: error: bytecode version"),
    ("truncated-bytecode", ["{d}/truncated.mlirbc"], r"^.*/truncated\.mlirbc: error: "),
    ("hanging-bytecode", ["{d}/hanging.mlirbc"], r"^.*/hanging\.mlirbc: error: the MLIR bytecode reader did not finish in 3 s"),
    ("unregistered-dialect", ["{d}/unregistered.mlir"], r"^.*/unregistered\.mlir:1:\d+: error: operation being parsed with an unregistered dialect"),
    ("torch-into-verify-pure", ["{d}/torch_dialect.mlir", "--symhlo-verify-pure-stablehlo"],
     r"^.*/torch_dialect\.mlir:2:8: error: 'torch\.aten\.neg' is not StableHLO"),
    ("torch-into-iree-prep-then-verify", ["{d}/torch_dialect.mlir", "--symhlo-stablehlo-to-iree-input-pipeline",
                                          "--symhlo-verify-pure-stablehlo"], r":2:8: error: 'torch\.aten\.neg' is not StableHLO"),
    ("deep-nesting", ["{d}/deep.mlir", "--canonicalize"], r"^.*/deep\.mlir:1:\d+: error: nesting deeper than 256"),
    ("deep-regions", ["{d}/deep_regions.mlir", "--allow-unregistered-dialect"], r"^.*/deep_regions\.mlir:129:\d+: error: nesting deeper"),
    ("from-elements-2**32", ["{d}/from_elements.mlir"], r"^.*/from_elements\.mlir:2:\d+: error: from_elements result type has 8589934592 elements"),
    ("conv-dim-2**63", ["{d}/conv_dims.mlir"], r"^.*/conv_dims\.mlir:2:\d+: error: convolution dimension number 9223372036854775807"),
    ("non-utf8-op-name", ["{d}/non_utf8_op.mlir", "--symhlo-shape-to-stablehlo"],
     r"^.*/non_utf8_op\.mlir:3:16: error: string literal spells bytes that are not UTF-8"),
    ("non-utf8-attribute", ["{d}/non_utf8_attr.mlir", "--symhlo-stablehlo-to-iree-input-pipeline"],
     r"^.*/non_utf8_attr\.mlir:1:\d+: error: string literal spells bytes that are not UTF-8"),
    ("non-utf8-op-name-bytecode", ["{d}/non_utf8_op.mlirbc", "--symhlo-shape-to-stablehlo"],
     r"^.*/non_utf8_op\.mlirbc: error: string literal spells bytes that are not UTF-8 .*\(line \d+ of the "
     r"module read from bytecode\)"),
    ("unknown-pass", ["{d}/ok.mlir", "--no-such-pass"], r"^symhlo-opt: error: unknown pass or option '--no-such-pass'"),
    ("unknown-symhlo-pass", ["{d}/ok.mlir", "--symhlo-no-such"], r"^symhlo-opt: error: unknown symhlo pass or pipeline '--symhlo-no-such'"),
    ("unknown-in-pipeline", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(no-such-pass)"], r"^symhlo-opt: error: .*no-such-pass"),
    ("unbalanced-open", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(cse"], r"^symhlo-opt: error: .*(unbalanced|expected)"),
    ("unbalanced-close", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(cse))"], r"^symhlo-opt: error: unbalanced"),
    ("empty-element", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(cse,,canonicalize)"], r"^symhlo-opt: error: empty pass name"),
    ("garbage-pipeline", ["{d}/ok.mlir", "--pass-pipeline=)("], r"^symhlo-opt: error: unbalanced"),
    ("bad-option-name", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(cse{foo=1})"], r"^symhlo-opt: error: .*no such option foo"),
    ("bad-option-value", ["{d}/ok.mlir", "--canonicalize=max-iterations=abc"], r"symhlo-opt: error: .*canonicalize"),
    ("symhlo-option-unknown", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(symhlo-simplify-broadcasts{nope=1})"],
     r"^symhlo-opt: error: pass 'symhlo-simplify-broadcasts' has no option 'nope'"),
    ("options-on-pipeline", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(symhlo-torch-to-stablehlo-pipeline{x=1})"],
     r"^symhlo-opt: error: pipeline 'symhlo-torch-to-stablehlo-pipeline' takes no options"),
    # A func.func-only pass on a module-level pass manager is an LLVM ERROR (abort) in the bindings
    # if it reaches PassManager.add; it must be refused while parsing the pipeline.
    ("func-pass-at-module-level", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(stablehlo-aggressive-simplification)"],
     r"^symhlo-opt: error: .*restricted to 'func\.func'"),
    ("symhlo-pass-nested-in-func", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(func.func(symhlo-shape-to-stablehlo))"],
     r"^symhlo-opt: error: .*symhlo-shape-to-stablehlo"),
    ("pipeline-and-flags", ["{d}/ok.mlir", "--pass-pipeline=builtin.module(cse)", "--canonicalize"], r"^symhlo-opt: error: '--pass-pipeline' cannot be combined"),
    ("missing-option-value", ["{d}/ok.mlir", "--pass-pipeline"], r"^symhlo-opt: error: option '--pass-pipeline' requires a value"),
    ("malformed-flag", ["{d}/ok.mlir", "--=x"], r"^symhlo-opt: error: malformed option"),
    ("flag-with-value", ["{d}/ok.mlir", "--split-input-file=3"], r"^symhlo-opt: error: option '--split-input-file' takes no value"),
    ("two-inputs", ["{d}/ok.mlir", "{d}/ok.mlir"], r"^symhlo-opt: error: expected one input file"),
    ("unwritable-output", ["{d}/ok.mlir", "-o", "{d}/no/such/dir/out.mlir"], r"^symhlo-opt: error: cannot write output file"),
]

CLI_CASES = [
    ("export-missing-pt2", ["export", "{d}/missing.pt2"], r"missing\.pt2: error: no such file"),
    ("export-random-pt2", ["export", "{d}/random.pt2"], r"random\.pt2: error: not a torch\.export archive"),
    ("export-empty-pt2", ["export", "{d}/empty.pt2"], r"empty\.pt2: error: not a torch\.export archive"),
    ("export-truncated-pt2", ["export", "{d}/truncated.pt2"], r"truncated\.pt2: error: not a torch\.export archive"),
    ("export-flipped-pt2", ["export", "{d}/flipped.pt2"], r"flipped\.pt2: error: "),
    ("export-foreign-zip-pt2", ["export", "{d}/foreign.pt2"], r"foreign\.pt2: error: not a current torch\.export archive"),
    ("export-mlir-named-pt2", ["export", "{d}/text.pt2"], r"text\.pt2: error: not a torch\.export archive"),
    ("export-version-mismatch-pt2", ["export", "{d}/version.pt2"], r"version\.pt2: error: .*archive version 999"),
    ("export-pickle-in-sample-inputs", ["export", "{d}/evil_inputs.pt2"],
     r"evil_inputs\.pt2: error: 'data/sample_inputs/model\.pt' is a pickle that torch\.load\(weights_only=True\) refuses .*could run code"),
    ("export-pickled-constant", ["export", "{d}/evil_weight.pt2"],
     r"evil_weight\.pt2: error: 'data/constants/tensor_constant_0' is a pickle .*could run code"),
    ("compile-pickle-in-sample-inputs", ["compile", "{d}/evil_inputs.pt2", "-o", "{d}/out.vmfb"], r"evil_inputs\.pt2: error: .*could run code"),
    ("export-missing-mlir", ["export", "{d}/missing.mlir"], r"missing\.mlir: error: no such file"),
    ("export-random-mlir", ["export", "{d}/random.mlir"], r"random\.mlir: error: not MLIR text or bytecode"),
    ("export-truncated-mlir", ["export", "{d}/truncated.mlir"], r"truncated\.mlir:2:\d+: error: "),
    ("export-nul-mlir", ["export", "{d}/nul.mlir"], r"nul\.mlir:5:1: error: NUL byte"),
    ("export-unregistered-dialect", ["export", "{d}/unregistered.mlir"], r"unregistered\.mlir:1:\d+: error: operation being parsed with an unregistered dialect"),
    ("export-torch-dialect", ["export", "{d}/torch_dialect.mlir"], r"symhlo: error: @main argument 0 has type !torch\.vtensor"),
    ("export-no-main", ["export", "{d}/no_main.mlir"], r"symhlo: error: the module has no func\.func @main"),
    ("export-random-bytecode", ["export", "{d}/random.mlirbc"], r"random\.mlirbc: error: unreadable MLIR bytecode"),
    ("export-truncated-bytecode", ["export", "{d}/truncated.mlirbc"], r"truncated\.mlirbc: error: unreadable MLIR bytecode"),
    ("export-hanging-bytecode", ["export", "{d}/hanging.mlirbc"], r"hanging\.mlirbc: error: unreadable MLIR bytecode: the MLIR bytecode reader did not finish in 3 s"),
    ("export-non-utf8-op-name", ["export", "{d}/non_utf8_op.mlir"],
     r"non_utf8_op\.mlir:3:16: error: string literal spells bytes that are not UTF-8"),
    ("compile-non-utf8-bytecode", ["compile", "{d}/non_utf8_op.mlirbc", "-o", "{d}/out.vmfb"],
     r"non_utf8_op\.mlirbc:\d+:\d+: error: string literal spells bytes that are not UTF-8"),
    ("export-deep-nesting", ["export", "{d}/deep.mlir"], r"deep\.mlir:1:\d+: error: nesting deeper than 256"),
    ("export-eval-bait", ["export", "{d}/eval_bait.mlir"], r"symhlo: error: @main: bad symhlo\.arg_shapes entry .*not a size expression"),
    ("compile-missing", ["compile", "{d}/missing.mlir", "-o", "{d}/out.vmfb"], r"missing\.mlir: error: no such file"),
    ("compile-random-bytes", ["compile", "{d}/random.mlir", "-o", "{d}/out.vmfb"], r"random\.mlir: error: not MLIR"),
    ("compile-torch-dialect", ["compile", "{d}/torch_dialect.mlir", "-o", "{d}/out.vmfb"], r"symhlo: error: @main argument 0"),
    ("compile-random-pt2", ["compile", "{d}/random.pt2", "-o", "{d}/out.vmfb"], r"random\.pt2: error: not a torch\.export archive"),
    ("compile-bad-iree-flag", ["compile", "{d}/ok.mlir", "--iree-flag=--no-such-flag", "-o", "{d}/out.vmfb"],
     r"symhlo: error: iree-compile failed for target 'cpu'"),
    ("compile-unwritable-output", ["compile", "{d}/ok.mlir", "-o", "{d}/no/such/dir/out.vmfb"], r"out\.vmfb: error: No such file or directory"),
    ("run-missing-vmfb", ["run", "{d}/missing.vmfb"], r"missing\.vmfb: error: no such file"),
    ("run-random-vmfb", ["run", "{d}/random.vmfb"], r"symhlo: error: not a valid IREE module \(vmfb\)"),
    ("run-truncated-vmfb", ["run", "{d}/truncated.vmfb"], r"symhlo: error: not a valid IREE module \(vmfb\)"),
    ("run-random-symhlo", ["run", "{d}/random.symhlo"], r"symhlo: error: '.*random\.symhlo' is not a saved symhlo module \(bad magic\)"),
    ("run-missing-symhlo", ["run", "{d}/missing.symhlo"], r"symhlo: error: cannot read '.*missing\.symhlo'"),
    ("run-missing-npy", ["run", "{d}/good.symhlo", "--input", "@{d}/missing.npy"], r"missing\.npy: error: cannot read a \.npy array"),
    ("run-random-npy", ["run", "{d}/good.symhlo", "--input", "@{d}/random.npy"], r"random\.npy: error: cannot read a \.npy array"),
    ("run-pickled-npy", ["run", "{d}/good.symhlo", "--input", "@{d}/object.npy"], r"object\.npy: error: cannot read a \.npy array: Object arrays cannot be loaded when allow_pickle=False"),
    ("run-input-without-at", ["run", "{d}/good.symhlo", "--input", "{d}/x.npy"], r"symhlo: error: --input expects @FILE\.npy"),
    ("run-symhlo-too-few-inputs", ["run", "{d}/good.symhlo", "--input", "@{d}/x.npy"], r"symhlo: error: expected 2 tensor input\(s\) \(x, y\), got 1"),
    ("run-symhlo-wrong-dtype", ["run", "{d}/good.symhlo", "--input", "@{d}/x64.npy", "--input", "@{d}/y.npy"],
     r"symhlo: error: x: dtype is float64, expected float32"),
    ("run-symhlo-swapped-inputs", ["run", "{d}/good.symhlo", "--input", "@{d}/y.npy", "--input", "@{d}/x.npy"],
     r"symhlo: error: x: rank is 1, expected 2"),
    ("run-vmfb-too-few-inputs", ["run", "{d}/good.vmfb", "--input", "@{d}/x.npy"], r"symhlo: error: expected 2 tensor input\(s\) \(x, y\), got 1"),
    ("run-vmfb-wrong-dtype", ["run", "{d}/good.vmfb", "--input", "@{d}/x64.npy", "--input", "@{d}/y.npy"],
     r"symhlo: error: x: dtype is float64, expected float32"),   # the contract in the vmfb
    ("run-vmfb-wrong-target", ["run", "{d}/good.vmfb", "--target", "vulkan", "--input", "@{d}/x.npy", "--input", "@{d}/y.npy"],
     r"symhlo: error: "),
]


_ENV = {"SYMHLO_BYTECODE_TIMEOUT_S": "3"}


def _argv(argv: list[str], d: Path) -> list[str]:
    return [a.replace("{d}", str(d)) for a in argv]


@pytest.fixture(scope="module")
def opt_outcomes(files):
    cases = [{"id": cid, "argv": _argv(argv, files)} for cid, argv, _ in OPT_CASES]
    return {o.id: o for o in run_batch("opt", cases, env=_ENV)}


@pytest.fixture(scope="module")
def cli_outcomes(files):
    cases = [{"id": cid, "argv": _argv(argv, files)} for cid, argv, _ in CLI_CASES]
    return {o.id: o for o in run_batch("cli", cases, env=_ENV)}


@pytest.mark.parametrize("cid,pattern", [(c[0], c[2]) for c in OPT_CASES], ids=[c[0] for c in OPT_CASES])
def test_symhlo_opt_malformed(opt_outcomes, cid, pattern):
    assert_polite_failure(opt_outcomes[cid], where=pattern)


@pytest.mark.parametrize("cid,pattern", [(c[0], c[2]) for c in CLI_CASES], ids=[c[0] for c in CLI_CASES])
def test_symhlo_cli_malformed(cli_outcomes, files, cid, pattern):
    assert_polite_failure(cli_outcomes[cid], where=pattern)
    assert not (files / "EVAL_RAN").exists(), "a size expression from the file was executed"
    assert not (files / "PICKLE_RAN").exists(), "a pickle from a .pt2 was executed"


def test_good_inputs_still_work(files):
    """The same worker setup accepts the well-formed inputs (so the failures above are about the input)."""
    outs = run_batch("cli", [
        {"id": "export-pt2", "argv": ["export", str(files / "good.pt2"), "-o", str(files / "good.mlir")]},
        {"id": "run-symhlo", "argv": ["run", str(files / "good.symhlo"), "--input", f"@{files}/x.npy",
                                      "--input", f"@{files}/y.npy"]},
    ])
    for o in outs:
        assert o.kind == "ok", o.brief()
    assert "stablehlo." in (files / "good.mlir").read_text()
    opt = run_batch("opt", [{"id": "ok", "argv": [str(files / "good.mlir"), "--symhlo-verify-pure-stablehlo"]},
                            {"id": "utf8-escapes", "argv": [str(files / "utf8_escapes.mlir"), "--canonicalize"]}])
    for o in opt:
        assert o.kind == "ok", o.brief()
    assert 'note = "caf\\C3\\A9 \\22\\\\"' in opt[1].stdout, opt[1].stdout  # escapes that spell UTF-8 pass


# Real processes: the console scripts and stdin, end to end.


def test_real_process_symhlo_opt_stdin_garbage():
    p = run_one(["symhlo-opt", "-", "--canonicalize"], stdin=_rand(2048, 7))
    assert_polite_failure(p, where=r"^<stdin>:1:\d+: error: ")


def test_real_process_symhlo_opt_deep_nesting(files):
    p = run_one([PYTHON, OPT_LAUNCHER, str(files / "deep_regions.mlir"), "--allow-unregistered-dialect"])
    assert_polite_failure(p, where=r"deep_regions\.mlir:129:\d+: error: nesting deeper")


def test_real_process_symhlo_export_random_pt2(files):
    p = run_one(["symhlo", "export", str(files / "random.pt2")])
    assert_polite_failure(p, where=r"random\.pt2: error: not a torch\.export archive")


def test_real_process_symhlo_run_random_vmfb(files):
    p = run_one(["symhlo", "run", str(files / "random.vmfb")])
    assert_polite_failure(p, where=r"symhlo: error: not a valid IREE module")
