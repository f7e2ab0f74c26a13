"""symhlo's exception classes (floor 0): every error a user can see is a SymhloError."""

from __future__ import annotations


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
