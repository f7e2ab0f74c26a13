"""symhlo: PyTorch models with unbounded dynamic dims -> pure, portable StableHLO -> IREE."""

from .errors import CompileError, DeviceError, ShapeError, SymhloError, UnsupportedOpError
from .inputs import Input
from .export import StableHLOProgram, export
from .compiler import CompiledModule, compile, load, stats
from .stages import Stage

__all__ = [
    "CompileError", "CompiledModule", "DeviceError", "Input", "ShapeError", "Stage",
    "StableHLOProgram", "SymhloError", "UnsupportedOpError", "compile", "export", "load", "stats",
]
__version__ = "0.1.0"
