"""symhlo: PyTorch models with unbounded dynamic dims -> pure, portable StableHLO -> IREE.

The public API only. The package is built in floors whose imports point one way (README
"Layout"): tools -> backend -> frontend -> contract -> errors, stages.
"""

from .backend.compiler import CompiledModule, compile, load
from .backend.dynamo import register as _register_backend, symhlo_backend
from .backend.generation import CompiledGenerator, compile_generation
from .contract.inputs import Input, Profile
from .errors import (CompileError, DeviceError, RuntimeCheckError, ShapeError, SymhloError,
                     UnsupportedOpError)
from .frontend.export import StableHLOProgram, export
from .stages import Stage, stats

_register_backend()  # torch.compile(backend="symhlo") works without reinstalling the entry point

__all__ = [
    "CompileError", "CompiledGenerator", "CompiledModule", "DeviceError", "Input", "Profile",
    "RuntimeCheckError", "ShapeError", "Stage", "StableHLOProgram", "SymhloError",
    "UnsupportedOpError", "compile", "compile_generation", "export", "load", "stats",
    "symhlo_backend",
]
__version__ = "0.1.0"
