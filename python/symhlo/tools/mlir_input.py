"""Reading MLIR input that may be hostile (floor 4, tools): `// -----` chunks with their line
numbers, limits the MLIR parser cannot survive (refused before parsing), bytecode read in a child
process with a time limit, and parsing into a module whose locations name the file."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

from .diagnostics import Diagnostic, diagnostic_at, from_mlir_diagnostic, one_line

_SPLIT_MARKER = re.compile(r"^[ \t]*// -----[^\n]*(\n|$)", re.M)
BYTECODE_MAGIC = b"ML\xefR"


@dataclass
class Chunk:
    """A piece of the input between `// -----` markers; `first_line` is its line in the file."""

    text: str
    first_line: int


def split_input(text: str, split: bool) -> list[Chunk]:
    """Splits on `// -----` lines (when `split`), keeping each chunk's line numbers."""
    if not split:
        return [Chunk(text, 1)]
    chunks, pos = [], 0
    for m in _SPLIT_MARKER.finditer(text):
        chunks.append(Chunk(text[pos:m.start()], text.count("\n", 0, pos) + 1))
        pos = m.end()
    chunks.append(Chunk(text[pos:], text.count("\n", 0, pos) + 1))
    return chunks


# Inputs the MLIR parser cannot survive (it aborts or overflows its stack rather than reporting an
# error), refused before parsing. Legitimate IR nests a few dozen brackets deep; regions 3000 deep
# (6000 brackets) and attributes 10000 deep crash the parser on an 8 MB stack, and 1000 nested
# regions exceed Python's recursion limit in the walks over the parsed module.
MAX_NESTING = 256
_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->|>=|[(\[{<]|[)\]}>]')
_CONV_DIMS = re.compile(r"\[[^\[\]\n]*\]\s*x\s*\[[^\[\]\n]*\]\s*->\s*\[[^\[\]\n]*\]")
_STRING_ESCAPE = re.compile(r'\\([0-9a-fA-F]{2}|.)', re.S)
_FROM_ELEMENTS = re.compile(
    r"\b(?:tensor|vector)\.from_elements\b[^:\"]*:\s*(?:tensor|vector)<((?:\d+x)+)")


def _first_non_utf8_escape(body: str) -> int | None:
    """The offset in a string literal's body (between the quotes) where its bytes stop being UTF-8,
    or None when they are UTF-8. MLIR's escapes: \\", \\\\, \\n, \\t and \\XX (a hex byte)."""
    data, offsets, pos = bytearray(), [], 0
    for m in [*_STRING_ESCAPE.finditer(body), None]:
        plain = body[pos:m.start() if m else len(body)]
        for i, ch in enumerate(plain):
            utf8 = ch.encode()
            data += utf8
            offsets += [pos + i] * len(utf8)
        if m is None:
            break
        esc = m.group(1)
        byte = int(esc, 16) if len(esc) == 2 else ord({"n": "\n", "t": "\t"}.get(esc, esc))
        data.append(byte & 0xFF)
        offsets.append(m.start())
        pos = m.end()
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        return offsets[e.start]
    return None


def check_source_limits(text: str, filename: str) -> list[Diagnostic]:
    """Errors for MLIR text that would crash the parser instead of failing, or be half read: a NUL
    byte (the lexer ends the input there), nesting deeper than MAX_NESTING, `tensor/vector.
    from_elements` result types with more elements than the text could list (the parser allocates
    one entry per element first, and aborts on 2^32), and convolution dimension numbers above
    MAX_NESTING (StableHLO's parser sizes a vector by them), and string literals whose `\\XX`
    escapes spell bytes that are not UTF-8 (an op, symbol or attribute named so parses, and the
    first pass or diagnostic that reads the name as a Python str aborts the process).

    Args:
      text: the input (one chunk, already padded to its line numbers, or the whole file).
      filename: the name diagnostics carry.
    Returns:
      At most one diagnostic per problem kind, at its line and column.
    """
    def at(offset: int, message: str) -> Diagnostic:
        line = text.count("\n", 0, offset) + 1
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return Diagnostic("error", message, filename, line, col)

    out = []
    nul = text.find("\0")
    if nul >= 0:  # the lexer stops at a NUL: the rest of the file would be silently ignored
        out.append(at(nul, "NUL byte in MLIR text (is this a binary file?)"))
    depth = 0
    for m in _BRACKETS.finditer(text):
        tok = m.group(0)
        if tok in "([{<":
            depth += 1
            if depth > MAX_NESTING:
                out.append(at(m.start(), f"nesting deeper than {MAX_NESTING} levels of brackets; "
                                         "refused before parsing (the MLIR parser would overflow its stack)"))
                break
        elif tok in ")]}>":
            depth = max(depth - 1, 0)
    for m in _BRACKETS.finditer(text):
        if m.group(0).startswith('"') and "\\" in m.group(0):
            bad = _first_non_utf8_escape(m.group(0)[1:-1])
            if bad is not None:
                out.append(at(m.start() + 1 + bad,
                              "string literal spells bytes that are not UTF-8 (an escape such as "
                              "\\80 alone); refused before parsing"))
                break
    for m in _FROM_ELEMENTS.finditer(text):
        n = 1
        for d in m.group(1).split("x")[:-1]:
            n *= int(d)
        if n > len(text):
            out.append(at(m.start(1), f"from_elements result type has {n} elements, more than this "
                                      f"{len(text)}-byte input can list; refused before parsing "
                                      "(the MLIR parser would abort)"))
            break
    for m in _CONV_DIMS.finditer(text):
        big = [int(x) for x in re.findall(r"\d+", m.group(0)) if int(x) > MAX_NESTING]
        if big:
            out.append(at(m.start(), f"convolution dimension number {big[0]} is out of range; "
                                     "refused before parsing (StableHLO's parser would abort)"))
            break
    return out


# MLIR's bytecode reader is not hardened against crafted input: a 219-byte file derived from a
# valid one by flipping 3 bytes made it loop for minutes. Bytecode is therefore read in a child
# process with a time limit and handed back as text (with its locations).
BYTECODE_TIMEOUT_S = float(os.environ.get("SYMHLO_BYTECODE_TIMEOUT_S", "300"))
_BYTECODE_CHILD = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("_symhlo_ir_util", sys.argv[1])
ir_util = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ir_util)
from torch_mlir import ir
data = sys.stdin.buffer.read()
ctx = ir_util.new_context()
ctx.allow_unregistered_dialects = sys.argv[3] == "1"
module, diags = None, []
def flat(d):
    out = [[str(d.location), str(d.message), str(d.severity).rsplit(".", 1)[-1].lower()]]
    for n in d.notes:
        out += flat(n)
    return out
if sys.argv[2] == "1":  # a StableHLO portable artifact (VHLO) first
    from torch_mlir._mlir_libs import _stablehlo
    try:
        module = _stablehlo.deserialize_portable_artifact(ctx, data)
    except Exception:
        module = None
if module is None:
    try:
        module = ir.Module.parse(data, ctx)
    except ir.MLIRError as e:
        diags = [x for d in e.error_diagnostics for x in flat(d)]
    except Exception as e:
        diags = [["loc(unknown)", f"{type(e).__name__}: {e}", "error"]]
text = module.operation.get_asm(enable_debug_info=sys.argv[4] == "1") if module is not None else None
sys.stdout.write(json.dumps({"text": text, "diagnostics": diags}))
"""


def read_bytecode_isolated(data: bytes, filename: str, *, portable: bool = False,
                           allow_unregistered: bool = False, locations: bool = True,
                           timeout: float = BYTECODE_TIMEOUT_S) -> str:
    """MLIR bytecode -> MLIR text, read in a child process with a time limit.

    Args:
      data: the bytecode.
      filename: the input's name, for diagnostics.
      portable: try it as a StableHLO portable artifact (VHLO) first.
      allow_unregistered: accept ops of unregistered dialects.
      locations: keep the ops' locations in the text.
      timeout: seconds before the reader is considered hung.
    Returns:
      The module as text.
    Raises:
      ParseFailure: the reader's diagnostics, or an error saying it crashed or hung.
    """
    import json
    import signal
    import subprocess

    from symhlo.passes import ir_util

    try:
        p = subprocess.run([sys.executable, "-c", _BYTECODE_CHILD, ir_util.__file__,
                            "1" if portable else "0", "1" if allow_unregistered else "0",
                            "1" if locations else "0"],
                           input=data, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ParseFailure([Diagnostic("error", f"the MLIR bytecode reader did not finish in "
                                       f"{timeout:.0f} s; refusing this input (corrupt or crafted "
                                       "bytecode?)", filename)]) from None
    if p.returncode < 0:
        try:
            sig = signal.Signals(-p.returncode).name
        except ValueError:
            sig = f"signal {-p.returncode}"
        raise ParseFailure([Diagnostic("error", f"the MLIR bytecode reader crashed on this input "
                                       f"({sig}); refusing it (corrupt or crafted bytecode?)", filename)])
    try:
        out = json.loads(p.stdout)
    except ValueError:
        why = one_line(p.stderr.decode(errors="replace")) or f"exit code {p.returncode}"
        raise ParseFailure([Diagnostic("error", f"cannot read MLIR bytecode: {why}", filename)]) from None
    if out["text"] is None:
        diags = [diagnostic_at(loc, msg, sev, filename) for loc, msg, sev in out["diagnostics"]]
        raise ParseFailure(diags or [Diagnostic("error", "unreadable MLIR bytecode", filename)])
    return out["text"]


class ParseFailure(Exception):
    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("parse failure")
        self.diagnostics = diagnostics


def parse_module(source: str | bytes, first_line: int, filename: str, ctx):
    """Parses MLIR text (or bytecode) into a module whose locations name `filename`.

    Top-level ops other than a single `builtin.module` get an implicit module, as in mlir-opt.

    Args:
      source: the text of one chunk, or bytecode.
      first_line: the chunk's first line in the file; line numbers are shifted to match it.
      filename: the name locations should carry.
      ctx: a context from `symhlo.passes.ir_util.new_context()`.
    Returns:
      The parsed `ir.Module`.
    Raises:
      ParseFailure: with the parser's diagnostics, at `filename:line:col`.
    """
    from torch_mlir import ir

    bytecode = isinstance(source, bytes)
    if bytecode:  # read in a child process, continue with its text
        source = read_bytecode_isolated(source, filename, portable=True,
                                        allow_unregistered=ctx.allow_unregistered_dialects)
    else:
        # Pad with the lines before the chunk so the parser's line numbers are the file's.
        source = "\n" * (first_line - 1) + source
    problems = check_source_limits(source, filename)
    if problems and bytecode:  # a line of the text form is no place in a binary file
        problems = [Diagnostic(d.severity, f"{d.message} (line {d.line} of the module read from "
                               "bytecode)", filename) for d in problems]
    if problems:
        raise ParseFailure(problems)
    with ctx:
        try:
            module = ir.Module.parse(source)
        except ir.MLIRError as e:
            diags = [x for d in e.error_diagnostics for x in from_mlir_diagnostic(d, filename)]
            raise ParseFailure(diags or [Diagnostic("error", str(e), filename)]) from None
        relocate(module, filename)
    return module


def relocate(module, filename: str) -> None:
    """Renames the parser's buffer name `-` to `filename` in the locations of every op and block argument."""
    from torch_mlir import ir

    def fix(loc) -> "ir.Location | None":
        m = re.fullmatch(r'loc\("-":(\d+):(\d+)\)', str(loc))
        return ir.Location.file(filename, int(m.group(1)), int(m.group(2))) if m else None

    def visit(op) -> None:
        new = fix(op.location)
        if new is not None:
            op.location = new
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    new = fix(arg.location)
                    if new is not None:
                        arg.set_location(new)
                for child in block.operations:
                    visit(child.operation)

    visit(module.operation)
