"""symhlo-opt: the mlir-opt of symhlo: parse MLIR, run symhlo and upstream passes, print the result.

    symhlo-opt IN.mlir --symhlo-shape-to-stablehlo --canonicalize -o OUT.mlir
    symhlo-opt - --pass-pipeline='builtin.module(symhlo-torch-to-stablehlo-pipeline)'
    symhlo-opt IN.mlir --symhlo-verify-pure-stablehlo --split-input-file --verify-diagnostics

Pipelines go through `symhlo.passes.registry.run_pipeline`, so symhlo passes mix freely with
torch-mlir's, StableHLO's and MLIR core passes. Every problem with the input or the pipeline is
reported as `file:line:col: error: message` (or one `symhlo-opt: error:` line) with exit code 1;
the tool never ends in a Python traceback. Set SYMHLO_DEBUG=1 to see one for internal errors.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Sequence

TOOL = "symhlo-opt"

# Options of the tool itself; every other `--name[=options]` names a pass or pipeline.
_TOOL_FLAGS = {
    "--split-input-file", "--verify-diagnostics", "--mlir-print-ir-after-all",
    "--allow-unregistered-dialect", "--list-passes", "--mlir-print-debuginfo", "--help",
}
_TOOL_OPTIONS_WITH_VALUE = {"--pass-pipeline", "-o"}

_SPLIT_MARKER = re.compile(r"^[ \t]*// -----[^\n]*(\n|$)", re.M)
_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)(-re)?[ \t]*(@([+-]\d+|above|below|unknown))?[ \t]*"
    r"\{\{(.*)\}\}[ \t]*$")
_BYTECODE_MAGIC = b"ML\xefR"


class UsageError(Exception):
    """A bad command line: printed as one `symhlo-opt: error:` line, exit code 1."""


# ---------------------------------------------------------------------------------------------
# Diagnostics.


@dataclass
class Diagnostic:
    """One diagnostic; `line` is None for an unknown location."""

    severity: str  # error | warning | note | remark
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None

    def render(self, sources: dict[str, list[str]]) -> str:
        """`file:line:col: error: message`, then the source line and a caret when it is known."""
        if self.line is None:
            where = f"{self.file}: " if self.file else ""
            return f"{where}{self.severity}: {self.message}"
        text = f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}"
        lines = sources.get(self.file or "")
        if lines and 1 <= self.line <= len(lines):
            src = lines[self.line - 1].rstrip("\n").replace("\0", " ")
            col = max(self.col - 1, 0)
            if len(src) > 200:  # a window around the column of a very long line
                start = max(col - 80, 0)
                src, col = src[start:start + 160], col - start
            text += f"\n{src}\n{' ' * col}^"
        return text


def diagnostic_at(location: str, message: str, severity: str, filename: str) -> Diagnostic:
    """A Diagnostic from a printed MLIR location; the parser's buffer name `-` becomes `filename`.

    Args:
      location: `str(ir.Location)`, e.g. `loc("m.mlir":3:7)`, `loc(callsite(...))`, `loc(unknown)`.
      message: the diagnostic text.
      severity: error, warning, note or remark.
      filename: the name of the input, used for locations in the unnamed parse buffer.
    Returns:
      The diagnostic at the first file:line:col inside `location` (no line when there is none).
    """
    m = _FILE_LOC.search(location)
    if not m:
        return Diagnostic(severity, message, filename)
    file = m.group(1)
    if int(m.group(2)) == 0:  # the bytecode reader's "-":0:0 is no position
        return Diagnostic(severity, message, filename if file == "-" else file)
    return Diagnostic(severity, message, filename if file == "-" else file,
                      int(m.group(2)), int(m.group(3)))


def _severity(sev) -> str:
    return str(sev).rsplit(".", 1)[-1].lower()


def _from_mlir_diagnostic(d, filename: str) -> list[Diagnostic]:
    out = [diagnostic_at(str(d.location), d.message, _severity(d.severity), filename)]
    for n in d.notes:
        out.extend(_from_mlir_diagnostic(n, filename))
    return out


# ---------------------------------------------------------------------------------------------
# --verify-diagnostics.


@dataclass
class Expected:
    """One `expected-<severity>[-re][@offset] {{message}}` comment."""

    severity: str
    line: int | None  # None: @unknown
    text: str
    regex: re.Pattern | None
    at_line: int  # where the comment is
    col: int
    matched: bool = False

    def matches(self, d: Diagnostic) -> bool:
        if d.severity != self.severity or d.line != self.line:
            return False
        if self.regex is not None:
            return self.regex.search(d.message) is not None
        return self.text in d.message


def _expected_regex(text: str) -> re.Pattern:
    """`-re` messages: literal text with `{{regex}}` pieces."""
    pieces, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        pieces.append(re.escape(text[pos:m.start()]))
        pieces.append(f"(?:{m.group(1)})")
        pos = m.end()
    pieces.append(re.escape(text[pos:]))
    return re.compile("".join(pieces))


def parse_expectations(text: str, first_line: int, filename: str) -> tuple[list[Expected], list[Diagnostic]]:
    """Collects the expected-* comments of one input chunk.

    Args:
      text: the chunk.
      first_line: the line number of the chunk's first line in the whole file.
      filename: the input's name, for errors about malformed comments.
    Returns:
      The expectations, and diagnostics for malformed ones (a regex that does not compile,
      an offset outside the file).
    """
    lines = text.split("\n")
    has_designator = ["expected-" in ln for ln in lines]
    out: list[Expected] = []
    errors: list[Diagnostic] = []
    for i, ln in enumerate(lines):
        m = _EXPECTED.search(ln)
        if not m:
            continue
        severity, is_re, _, offset, msg = m.groups()
        here = first_line + i
        col = m.start() + 1
        target: int | None = here
        if offset == "unknown":
            target = None
        elif offset == "above":
            j = i - 1
            while j >= 0 and has_designator[j]:
                j -= 1
            target = first_line + j if j >= 0 else 0
        elif offset == "below":
            j = i + 1
            while j < len(lines) and has_designator[j]:
                j += 1
            target = first_line + j if j < len(lines) else 0
        elif offset:
            target = here + int(offset)
        if target is not None and target < first_line:
            errors.append(Diagnostic("error", f"expected diagnostic offset points outside the input",
                                     filename, here, col))
            continue
        regex = None
        if is_re:
            try:
                regex = _expected_regex(msg)
            except re.error as e:
                errors.append(Diagnostic("error", f"invalid regex in expected diagnostic: {e}",
                                         filename, here, col))
                continue
        out.append(Expected(severity, target, msg, regex, here, col))
    return out, errors


def verify_diagnostics(expected: list[Expected], produced: list[Diagnostic],
                       filename: str) -> list[Diagnostic]:
    """Matches produced diagnostics against expectations, mlir-opt style.

    Args:
      expected: the chunk's expectations (their `matched` flags are updated).
      produced: every diagnostic the chunk produced.
      filename: the input's name.
    Returns:
      One error per unexpected diagnostic and per expectation that was not produced.
    """
    failures: list[Diagnostic] = []
    for d in produced:
        in_file = d.line is None or d.file == filename
        hit = next((e for e in expected if not e.matched and in_file and e.matches(d)), None)
        if hit is None:
            hit = next((e for e in expected if in_file and e.matches(d)), None)
        if hit is None:
            failures.append(Diagnostic("error", f"unexpected {d.severity}: {d.message}",
                                       d.file, d.line, d.col))
        else:
            hit.matched = True
    for e in expected:
        if not e.matched:
            failures.append(Diagnostic("error", f'expected {e.severity} "{e.text}" was not produced',
                                       filename, e.at_line, e.col))
    return failures


# ---------------------------------------------------------------------------------------------
# Input.


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
_FROM_ELEMENTS = re.compile(
    r"\b(?:tensor|vector)\.from_elements\b[^:\"]*:\s*(?:tensor|vector)<((?:\d+x)+)")


def check_source_limits(text: str, filename: str) -> list[Diagnostic]:
    """Errors for MLIR text that would crash the parser instead of failing, or be half read: a NUL
    byte (the lexer ends the input there), nesting deeper than MAX_NESTING, `tensor/vector.
    from_elements` result types with more elements than the text could list (the parser allocates
    one entry per element first, and aborts on 2^32), and convolution dimension numbers above
    MAX_NESTING (StableHLO's parser sizes a vector by them).

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
        why = _one_line(p.stderr.decode(errors="replace")) or f"exit code {p.returncode}"
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

    if isinstance(source, bytes):  # bytecode: read in a child process, continue with its text
        source = read_bytecode_isolated(source, filename, portable=True,
                                        allow_unregistered=ctx.allow_unregistered_dialects)
    else:
        # Pad with the lines before the chunk so the parser's line numbers are the file's.
        source = "\n" * (first_line - 1) + source
    problems = check_source_limits(source, filename)
    if problems:
        raise ParseFailure(problems)
    with ctx:
        try:
            module = ir.Module.parse(source)
        except ir.MLIRError as e:
            diags = [x for d in e.error_diagnostics for x in _from_mlir_diagnostic(d, filename)]
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


# ---------------------------------------------------------------------------------------------
# Command line.


@dataclass
class Options:
    input: str = "-"
    output: str = "-"
    pass_pipeline: str | None = None
    pass_flags: list[tuple[str, str | None]] = field(default_factory=list)
    split_input_file: bool = False
    verify_diagnostics: bool = False
    print_ir_after_all: bool = False
    print_debuginfo: bool = False
    allow_unregistered_dialect: bool = False
    list_passes: bool = False


def _help_parser() -> argparse.ArgumentParser:
    from symhlo.passes.registry import get_all_passes, get_all_pipelines

    p = argparse.ArgumentParser(
        prog=TOOL, description="Run symhlo, torch-mlir, StableHLO and MLIR passes on an MLIR file.",
        epilog="Any other --<name>[=<options>] names an upstream pass (torch-mlir, StableHLO, "
               "MLIR core), e.g. --canonicalize, --cse, --convert-torch-to-stablehlo. Flags run "
               "in the order given.")
    p.add_argument("input", nargs="?", default="-", help="input file, or - for stdin (default)")
    p.add_argument("-o", metavar="OUT", default="-", help="output file (default: stdout)")
    p.add_argument("--pass-pipeline", metavar="PIPELINE", help="textual pipeline, 'builtin.module(...)'")
    p.add_argument("--split-input-file", action="store_true",
                   help="split the input on '// -----' and process each chunk on its own")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check diagnostics against expected-* comments in the input")
    p.add_argument("--mlir-print-ir-after-all", action="store_true",
                   help="print the IR to stderr after each pipeline step")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--allow-unregistered-dialect", action="store_true",
                   help="accept ops of unregistered dialects")
    p.add_argument("--list-passes", action="store_true", help="list symhlo passes and pipelines")
    g = p.add_argument_group("symhlo passes")
    for name, load in sorted(get_all_passes().items()):
        g.add_argument(f"--{name}", action="store_true", help=load().summary)
    g = p.add_argument_group("symhlo pipelines")
    for name, (summary, _) in sorted(get_all_pipelines().items()):
        g.add_argument(f"--{name}", action="store_true", help=summary)
    return p


def parse_command_line(argv: Sequence[str]) -> Options:
    """Parses the command line; pass flags keep their order.

    Args:
      argv: the arguments after the program name. Single-dash long flags (`-split-input-file`)
        are accepted as in mlir-opt.
    Returns:
      The options.
    Raises:
      UsageError: for a missing option value, a second input file, or mixing --pass-pipeline
        with pass flags.
    """
    opts = Options()
    inputs: list[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            inputs.append(arg)
            continue
        if arg == "--":
            inputs.extend(args[i:])
            break
        if arg == "-h":
            arg = "--help"
        elif arg.startswith("-o") and len(arg) > 2:
            arg = "-o=" + arg[2:].removeprefix("=")  # -oOUT, -o=OUT
        elif not arg.startswith("--") and arg != "-o":
            arg = "-" + arg  # mlir-opt also takes -split-input-file
        name, eq, value = arg.partition("=")
        if name in _TOOL_OPTIONS_WITH_VALUE:
            if not eq:
                if i >= len(args):
                    raise UsageError(f"option '{name}' requires a value")
                value = args[i]
                i += 1
            if name == "-o":
                opts.output = value
            else:
                opts.pass_pipeline = value
            continue
        if name in _TOOL_FLAGS:
            if eq:
                raise UsageError(f"option '{name}' takes no value")
            if name == "--help":
                _help_parser().print_help()
                raise SystemExit(0)
            setattr(opts, {"--mlir-print-ir-after-all": "print_ir_after_all",
                           "--mlir-print-debuginfo": "print_debuginfo"}.get(
                               name, name[2:].replace("-", "_")), True)
            continue
        pass_name = name[2:]
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", pass_name):
            raise UsageError(f"malformed option '{arg}'")
        opts.pass_flags.append((pass_name, value if eq else None))
    if len(inputs) > 1:
        raise UsageError(f"expected one input file, got {len(inputs)}: {' '.join(inputs)}")
    if inputs:
        opts.input = inputs[0]
    if opts.pass_pipeline is not None and opts.pass_flags:
        raise UsageError("'--pass-pipeline' cannot be combined with individual pass flags "
                         f"(got --{opts.pass_flags[0][0]})")
    return opts


def _one_line(message: str) -> str:
    return " ".join(message.strip().split("\n")[0].split())


def flags_to_pipeline(flags: list[tuple[str, str | None]], ctx) -> str:
    """Turns `--name[=options]` flags into one `builtin.module(...)` pipeline.

    Upstream passes anchored on another op (e.g. func.func) are nested in that op, like
    mlir-opt's implicit nesting; they are checked with PassManager.parse, which raises (rather
    than aborting the process) for a pass restricted to another op.

    Args:
      flags: (pass name, options text or None) in command-line order.
      ctx: the context the pipeline will run in.
    Returns:
      The pipeline text.
    Raises:
      UsageError: for a flag that names no pass.
    """
    from torch_mlir import ir
    from torch_mlir.passmanager import PassManager
    from symhlo.passes.registry import get_all_passes, get_all_pipelines

    ours = set(get_all_passes()) | set(get_all_pipelines())
    elements = []
    for name, options in flags:
        element = f"{name}{{{options}}}" if options else name
        if name in ours:
            elements.append(element)
            continue
        if name.startswith("symhlo-"):
            raise UsageError(f"unknown symhlo pass or pipeline '--{name}' (see --list-passes)")
        with ctx:
            try:
                PassManager.parse(f"builtin.module({element})")
            except (ValueError, ir.MLIRError) as e:
                anchor = re.search(r"restricted to '([\w.]+)'", str(e))
                if anchor is None:
                    if "does not refer to a registered pass" in str(e):
                        raise UsageError(f"unknown pass or option '--{name}' (see --help and "
                                         f"--list-passes)") from None
                    raise UsageError(f"invalid pass '--{name}{'=' + options if options else ''}': "
                                     f"{_one_line(str(e))}") from None
                element = f"{anchor.group(1)}({element})"
        elements.append(element)
    return f"builtin.module({', '.join(elements)})"


def list_passes() -> str:
    """The symhlo passes and pipelines, one `  --name  summary` line each."""
    from symhlo.passes.registry import get_all_passes, get_all_pipelines

    rows = [("Passes:", None)]
    rows += [(name, load().summary) for name, load in sorted(get_all_passes().items())]
    rows += [("Pipelines:", None)]
    rows += [(name, summary) for name, (summary, _) in sorted(get_all_pipelines().items())]
    width = max(len(n) for n, s in rows if s is not None) + 2
    lines = [n if s is None else f"  --{n.ljust(width)}{s}" for n, s in rows]
    lines.append("Upstream passes (torch-mlir, StableHLO, MLIR core) are accepted by name too.")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Driver.


def _read_input(path: str) -> tuple[str | bytes, str]:
    try:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    except OSError as e:
        raise UsageError(f"cannot open input file '{path}': {e.strerror}") from None
    name = "<stdin>" if path == "-" else path
    if data.startswith(_BYTECODE_MAGIC):
        return data, name
    return data.decode("utf-8", errors="replace"), name


def _run_chunk(chunk_source: str | bytes, first_line: int, filename: str, pipeline: str | None,
               opts: Options, ctx, sink: list[Diagnostic]) -> str | None:
    """Parses and transforms one chunk; returns its printed module, or None when it failed."""
    from torch_mlir import ir
    from symhlo.passes.registry import PipelineError, run_pipeline

    try:
        module = parse_module(chunk_source, first_line, filename, ctx)
    except ParseFailure as e:
        sink.extend(e.diagnostics)
        return None
    if pipeline is not None:
        def dump(text: str) -> None:
            sys.stderr.write(text if text.endswith("\n") else text + "\n")
        try:
            run_pipeline(module, pipeline, print_ir_after_all=opts.print_ir_after_all,
                         printer=dump, repro=False)
        except PipelineError as e:
            if e.diagnostics:
                sink.extend(diagnostic_at(loc, msg, "error", filename) for loc, msg in e.diagnostics)
            else:
                sink.append(Diagnostic("error", e.message, filename))
            return None
        except Exception as e:  # a bug in a pass: report it as a diagnostic, keep other chunks going
            if os.environ.get("SYMHLO_DEBUG"):
                raise
            sink.append(Diagnostic("error", f"internal error in the pass pipeline: "
                                   f"{type(e).__name__}: {_one_line(str(e))}", filename))
            return None
        # Python passes do not verify their output; mlir-opt verifies after every pass.
        with ctx:
            try:
                module.operation.verify()
            except ir.MLIRError as e:
                sink.extend(x for d in e.error_diagnostics for x in _from_mlir_diagnostic(d, filename))
                return None
    with ctx:
        return module.operation.get_asm(enable_debug_info=opts.print_debuginfo)


def run(opts: Options) -> int:
    """Runs symhlo-opt with parsed options.

    Args:
      opts: the options from `parse_command_line`.
    Returns:
      The exit code: 0 on success, 1 on any error or failed diagnostic check.
    Raises:
      UsageError: for a bad pipeline or an unreadable input.
    """
    from symhlo.passes.ir_util import new_context
    from symhlo.passes.registry import PipelineError, validate_pipeline

    if opts.list_passes:
        sys.stdout.write(list_passes())
        return 0
    ctx = new_context()
    ctx.allow_unregistered_dialects = opts.allow_unregistered_dialect
    pipeline = opts.pass_pipeline
    if pipeline is None and opts.pass_flags:
        pipeline = flags_to_pipeline(opts.pass_flags, ctx)
    if pipeline is not None:
        try:
            validate_pipeline(pipeline, ctx)
        except PipelineError as e:
            raise UsageError(_one_line(e.message)) from None

    source, filename = _read_input(opts.input)
    sources = {filename: source.split("\n") if isinstance(source, str) else []}
    chunks = (split_input(source, opts.split_input_file) if isinstance(source, str)
              else [Chunk(source, 1)])

    # Diagnostics not captured as exceptions (warnings, remarks) reach this handler.
    current: list[Diagnostic] = []

    def handler(d) -> bool:
        current.extend(_from_mlir_diagnostic(d, filename))
        return True

    ctx.attach_diagnostic_handler(handler)

    outputs: list[str] = []
    failed = False
    for chunk in chunks:
        current.clear()
        text = _run_chunk(chunk.text, chunk.first_line, filename, pipeline, opts, ctx, current)
        produced = list(current)
        if opts.verify_diagnostics:
            expected, bad = (parse_expectations(chunk.text, chunk.first_line, filename)
                             if isinstance(chunk.text, str) else ([], []))
            problems = bad + verify_diagnostics(expected, produced, filename)
        else:
            problems = produced
            if text is None and not produced:
                problems = [Diagnostic("error", "failed without a diagnostic", filename)]
        for d in problems:
            sys.stderr.write(d.render(sources) + "\n")
        if opts.verify_diagnostics:
            failed |= bool(problems)
        else:
            failed |= text is None or any(d.severity == "error" for d in produced)
        if text is not None:
            outputs.append(text)
    _write_output(opts.output, "// -----\n".join(outputs))
    return 1 if failed else 0


def _write_output(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"cannot write output file '{path}': {e.strerror}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """The `symhlo-opt` entry point.

    Args:
      argv: the arguments after the program name (default: sys.argv[1:]).
    Returns:
      The process exit code (0 success, 1 failure); errors go to stderr, never as a traceback.
    """
    try:
        return run(parse_command_line(sys.argv[1:] if argv is None else argv))
    except UsageError as e:
        sys.stderr.write(f"{TOOL}: error: {e}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # an internal error: one line, unless SYMHLO_DEBUG asks for the stack
        if os.environ.get("SYMHLO_DEBUG"):
            raise
        sys.stderr.write(f"{TOOL}: internal error: {type(e).__name__}: {_one_line(str(e))}\n"
                         f"(set SYMHLO_DEBUG=1 for the Python traceback)\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
