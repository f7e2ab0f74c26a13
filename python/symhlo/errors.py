"""symhlo's exception classes (floor 0): every error a user can see is a SymhloError; and
`source_line`, the one reader of the user's source line that an error about an op names."""

from __future__ import annotations

import re

# One frame of a Python traceback, with the line of code under it when there is one.
_FRAME = re.compile(r'File "([^"]+)", line (\d+)(?:, in (\S+))?(?:\n(?![ \t]*File ")[ \t]*(.*))?')


def source_line(trace: str | None, default: str = "unknown source line", code: bool = False) -> str:
    """`file:line in fn` of the innermost user frame of a traceback text (an FX node's
    `stack_trace`, or the "Original traceback" torch quotes in an error), skipping the graph code
    dynamo generated (`<eval_with_key>.N`, which a higher-order op's trace ends in); with that
    line's code when `code`; `default` when the text names no frame."""
    frames = [m.groups() for m in _FRAME.finditer(trace or "")]
    frames = [f for f in frames if not f[0].startswith("<eval_with_key>")] or frames
    if not frames:
        return default
    file, line, fn, text = frames[-1]
    where = f"{file}:{line}" + (f" in {fn}" if fn else "")
    return where + (f": {text.strip()}" if code and text and text.strip() else "")


class SymhloError(Exception):
    """Base of every symhlo error."""


class ShapeError(SymhloError, ValueError):
    """A call's shapes break the exported constraints (input, axis, value and rule are named)."""


class CompileError(SymhloError):
    """A lowering or compile step failed; the message says how to reproduce it."""


class UnsupportedOpError(CompileError):
    """An op symhlo cannot lower; the message names the op and where it came from."""


class DeviceError(SymhloError):
    """The requested target or device is not available here."""


class RuntimeCheckError(SymhloError, RuntimeError):
    """A check only the data can decide failed at call time (a `torch._check` on a size that
    comes from tensor values, e.g. `n = k.item(); torch._check(n <= x.shape[0])`)."""
