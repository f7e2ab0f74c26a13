"""symhlo: PyTorch models with unbounded dynamic dims -> pure, portable StableHLO -> IREE."""

from .errors import CompileError, DeviceError, ShapeError, SymhloError, UnsupportedOpError
from .inputs import Input, Profile
from .export import StableHLOProgram, export
from .compiler import CompiledModule, compile, load, stats
from .stages import Stage
from .backend import register as _register_backend, symhlo_backend

_register_backend()  # torch.compile(backend="symhlo") works without reinstalling the entry point

__all__ = [
    "CompileError", "CompiledModule", "DeviceError", "Input", "Profile", "ShapeError", "Stage",
    "StableHLOProgram", "SymhloError", "UnsupportedOpError", "compile", "export", "load", "stats",
    "symhlo_backend",
]
__version__ = "0.1.0"
