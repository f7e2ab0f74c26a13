"""Seeded mutation fuzzing of symhlo-opt: broken inputs derived from the lit tests' .mlir files.

Each case takes one `// -----` chunk of a lit test, applies one or two mutations (truncate, delete,
duplicate or swap lines, flip bytes, replace a token with another of its kind), and runs it through
symhlo-opt with the lit file's own pass or with one of a few pipelines. Every case must end in exit
code 0 or a polite `error:` diagnostic (exit code 1): no crash, abort, hang, traceback or internal
error. All cases run in one worker process (harness.run_batch), which pins down a crashing case
exactly and re-runs it alone.

    SYMHLO_FUZZ_CASES=3000 SYMHLO_FUZZ_SEED=7 pytest test/hardening/test_fuzz_symhlo_opt.py -s

The cases are a function of the seed and of the lit files present (sorted), so a run is reproducible
for a given checkout; failing inputs are copied to a kept `symhlo-fuzz-failures-*` directory.

The default budget (240 text cases) takes about 15 s on 2 cores. A second test mutates MLIR
bytecode (CASES // 6 cases, ~1 s each: symhlo reads bytecode in a child process with a time limit,
SYMHLO_BYTECODE_TIMEOUT_S, because MLIR's bytecode reader can hang on a crafted file).
"""

from __future__ import annotations

import collections
import os
import random
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from harness import ROOT, run_batch

CASES = int(os.environ.get("SYMHLO_FUZZ_CASES", "240"))
SEED = int(os.environ.get("SYMHLO_FUZZ_SEED", "20261001"))

PIPELINES = [
    ["--symhlo-torch-to-stablehlo-pipeline"],
    ["--symhlo-stablehlo-to-iree-input-pipeline"],
    ["--symhlo-shape-to-stablehlo", "--canonicalize", "--symhlo-verify-pure-stablehlo"],
    ["--pass-pipeline=builtin.module(symhlo-torch-symbolic-to-shape, symhlo-fold-torch-runtime-asserts,"
     " symhlo-simplify-broadcasts, symhlo-fold-float-size-arithmetic, cse)"],
]

_TOKEN_KINDS = [
    re.compile(r"%[\w.#]+"),                         # SSA values
    re.compile(r"\b(?:i1|i32|i64|f16|f32|f64|index)\b"),  # element types
    re.compile(r"(?<=[<x])(?:\?|\d+)(?=x)"),         # tensor dims
    re.compile(r"-?\b\d+\b"),                        # integers
    re.compile(r"\b(?:stablehlo|torch|shape|arith|tensor|func)\.[\w.]+"),  # op names
    re.compile(r"[(){}<>\[\],:=]"),                  # punctuation
]


def lit_sources() -> list[tuple[str, list[str], str]]:
    """(file, its RUN line's pass flags, chunk text) for every chunk of every lit .mlir test."""
    out = []
    for path in sorted(Path(ROOT, "test").rglob("*.mlir")):
        if "Output" in path.parts or "hardening" in path.parts or "foreign" in path.parts:  # foreign: pytest data
            continue
        text = path.read_text(errors="replace")
        run = re.search(r"RUN: symhlo-opt ([^|\n]*)", text)
        flags = [f for f in (run.group(1).split() if run else [])
                 if f.startswith("--symhlo-") or f.startswith("-symhlo-")]
        body = "\n".join(ln for ln in text.split("\n") if "RUN:" not in ln)
        for chunk in re.split(r"^// -----.*$", body, flags=re.M):
            if "func" in chunk or "module" in chunk:
                out.append((str(path.relative_to(ROOT)), flags, chunk))
    return out


def mutate(text: str, rng: random.Random) -> tuple[str | bytes, str]:
    """One mutation of `text`; returns (mutated text or bytes, what was done)."""
    lines = text.split("\n")
    op = rng.choice(["truncate", "delete", "duplicate", "swap", "flip", "token", "token", "token"])
    if op == "truncate":
        k = rng.randrange(len(text) + 1)
        return text[:k], f"truncate@{k}"
    if op == "delete" and len(lines) > 1:
        k = rng.randrange(len(lines))
        return "\n".join(lines[:k] + lines[k + 1:]), f"delete line {k + 1}"
    if op == "duplicate":
        k = rng.randrange(len(lines))
        return "\n".join(lines[:k + 1] + lines[k:]), f"duplicate line {k + 1}"
    if op == "swap" and len(lines) > 1:
        a, b = rng.sample(range(len(lines)), 2)
        lines[a], lines[b] = lines[b], lines[a]
        return "\n".join(lines), f"swap lines {a + 1},{b + 1}"
    if op == "flip":
        data = bytearray(text.encode())
        n = rng.randint(1, 4)
        for _ in range(n):
            if data:
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return bytes(data), f"flip {n} bits"
    kind = rng.choice(_TOKEN_KINDS)
    hits = list(kind.finditer(text))
    if not hits:
        k = rng.randrange(len(text) + 1)
        return text[:k], f"truncate@{k}"
    m = rng.choice(hits)
    others = sorted({h.group(0) for h in hits} - {m.group(0)}) or [""]
    repl = rng.choice(others + ["", "?", "0", "-1", "9223372036854775807", "2147483648"])
    return text[:m.start()] + repl + text[m.end():], f"token {m.group(0)!r}->{repl!r} @{m.start()}"


def make_cases(n: int, seed: int, workdir: str) -> tuple[list[dict], dict[str, str]]:
    rng = random.Random(seed)
    sources = lit_sources()
    assert len(sources) >= 20, f"too few lit chunks to fuzz: {len(sources)}"
    cases, what = [], {}
    for i in range(n):
        src, flags, chunk = rng.choice(sources)
        data, how = mutate(chunk, rng)
        if rng.random() < 0.25:  # a second mutation now and then
            text = data.decode(errors="replace") if isinstance(data, bytes) else data
            data, how2 = mutate(text, rng)
            how += "; " + how2
        path = os.path.join(workdir, f"case{i:05d}.mlir")
        Path(path).write_bytes(data if isinstance(data, bytes) else data.encode())
        r = rng.random()
        argv = [path] + (flags if (flags and r < 0.4) else rng.choice(PIPELINES))
        if rng.random() < 0.15:
            argv.append("--split-input-file")
        cid = f"case{i:05d}"
        cases.append({"id": cid, "argv": argv})
        what[cid] = f"{src}: {how}"
    return cases, what


def test_mutation_fuzz_symhlo_opt():
    with tempfile.TemporaryDirectory(prefix="symhlo-fuzz-") as d:
        cases, what = make_cases(CASES, SEED, d)
        outcomes = run_batch("opt", cases)
        counts = collections.Counter(o.kind for o in outcomes)
        print(f"\nsymhlo-opt mutation fuzz: {CASES} cases, seed {SEED}: {dict(counts)}")
        bad = [o for o in outcomes if o.kind not in ("ok", "error")]
        if bad:  # keep the failing inputs: the temporary directory goes away
            keep = tempfile.mkdtemp(prefix="symhlo-fuzz-failures-")
            for o in bad:
                shutil.copy(o.argv[0], keep)
                o.argv = [os.path.join(keep, os.path.basename(o.argv[0]))] + o.argv[1:]
        report = "\n".join(f"{o.brief()}\n    mutation: {what[o.id]}\n    {o.detail[-800:]}"
                           for o in bad[:10])
        assert not bad, f"{len(bad)} of {CASES} cases failed impolitely:\n{report}"
        # Every located diagnostic names the input file and a line inside it.
        for o in outcomes:
            if o.kind != "error":
                continue
            path = o.argv[0]
            nlines = Path(path).read_bytes().count(b"\n") + 1
            for m in re.finditer(r"^(\S+?):(\d+):(\d+): error:", o.stderr, re.M):
                assert m.group(1) == path, f"{o.id}: diagnostic names {m.group(1)}, not {path}:\n{o.stderr}"
                assert 1 <= int(m.group(2)) <= nlines, f"{o.id}: line {m.group(2)} > {nlines}:\n{o.stderr}"
        # The mix must exercise both sides: some mutants still pass, many are refused.
        assert counts["error"] >= CASES // 4 and counts["ok"] >= 1, dict(counts)


def _bytecode_sources() -> list[bytes]:
    """MLIR bytecode of the lit chunks that parse, plus StableHLO portable artifacts of a few."""
    import io

    from torch_mlir import ir
    from torch_mlir._mlir_libs import _stablehlo
    from symhlo.passes.ir_util import new_context

    out, artifacts = [], 0
    for _, _, chunk in lit_sources():
        try:
            module = ir.Module.parse(chunk, new_context())
        except Exception:
            continue
        buf = io.BytesIO()
        module.operation.write_bytecode(buf)
        out.append(buf.getvalue())
        if artifacts < 3 and "stablehlo." in chunk and "torch." not in chunk and "shape." not in chunk:
            try:
                out.append(_stablehlo.serialize_portable_artifact_str(chunk, _stablehlo.get_current_version()))
                artifacts += 1
            except Exception:
                pass
    return out


def test_mutation_fuzz_symhlo_opt_bytecode():
    n = max(CASES // 6, 10)
    rng = random.Random(SEED + 1)
    sources = _bytecode_sources()
    assert len(sources) >= 10
    with tempfile.TemporaryDirectory(prefix="symhlo-fuzz-bc-") as d:
        cases = []
        for i in range(n):
            b = bytearray(rng.choice(sources))
            r = rng.random()
            if r < 0.5:
                for _ in range(rng.randint(1, 3)):
                    b[rng.randrange(4, len(b))] ^= 1 << rng.randrange(8)
            elif r < 0.8:
                b = b[:rng.randrange(4, len(b))]
            else:
                b[rng.randrange(4, len(b))] = rng.choice([0, 0x7F, 0x80, 0xFF])
            path = os.path.join(d, f"bc{i:04d}.mlirbc")
            Path(path).write_bytes(bytes(b))
            cases.append({"id": f"bc{i:04d}", "argv": [path, rng.choice(["--canonicalize", "--symhlo-shape-to-stablehlo",
                                                                          "--symhlo-torch-to-stablehlo-pipeline"])]})
        outcomes = run_batch("opt", cases, per_case_s=90, env={"SYMHLO_BYTECODE_TIMEOUT_S": "20"})
        counts = collections.Counter(o.kind for o in outcomes)
        hung = sum("did not finish" in o.stderr for o in outcomes)
        crashed = sum("bytecode reader crashed" in o.stderr for o in outcomes)
        print(f"\nsymhlo-opt bytecode mutation fuzz: {n} cases, seed {SEED + 1}: {dict(counts)}; "
              f"reader hung (refused after 20 s): {hung}, reader crashed (refused): {crashed}")
        bad = [o for o in outcomes if o.kind not in ("ok", "error")]
        assert not bad, "\n".join(o.brief() for o in bad[:10])
