"""Diagnostics as MLIR tools print them (`file:line:col: error: message`), and the
`--verify-diagnostics` protocol (`// expected-error @+1 {{...}}` comments) of symhlo-opt (floor 4,
tools)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)(-re)?[ \t]*(@([+-]\d+|above|below|unknown))?[ \t]*"
    r"\{\{(.*)\}\}[ \t]*$")


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


def from_mlir_diagnostic(d, filename: str) -> list[Diagnostic]:
    out = [diagnostic_at(str(d.location), d.message, _severity(d.severity), filename)]
    for n in d.notes:
        out.extend(from_mlir_diagnostic(n, filename))
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
            errors.append(Diagnostic("error", "expected diagnostic offset points outside the input",
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


def one_line(message: str) -> str:
    """The first line of `message`, whitespace collapsed (for `tool: error: ...` lines)."""
    return " ".join(message.strip().split("\n")[0].split())
