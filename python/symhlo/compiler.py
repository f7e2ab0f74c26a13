"""symhlo.compile: StableHLO -> IREE module (.vmfb), and the callable CompiledModule around it."""

from __future__ import annotations

import json
import struct
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from symhlo.passes.ir_util import new_context
from symhlo.passes.registry import PipelineError, run_pipeline

from .dims import SymbolTable
from .errors import CompileError, DeviceError, ShapeError, SymhloError
from .export import StableHLOProgram, export as _export
from .runtime import TARGETS, Runtime, target_flags
from .stages import Stage, StageTimer

_STATS = {"iree_compiles": 0, "exports": 0}
_STATS_LOCK = threading.Lock()


def stats() -> dict:
    """Process-wide counters: {"iree_compiles": N, "exports": N}."""
    with _STATS_LOCK:
        return dict(_STATS)


def _bump(key: str) -> None:
    with _STATS_LOCK:
        _STATS[key] = _STATS.get(key, 0) + 1


def iree_flags(target: str, target_arch: str | None = None, extra: Sequence[str] = ()) -> list[str]:
    """iree-compile flags for a symhlo target name (see symhlo.runtime.target_flags)."""
    return target_flags(target, target_arch) + list(extra)


def prepare_for_iree(stablehlo_text: str) -> str:
    """Pure StableHLO text -> the IREE input form (symhlo-stablehlo-to-iree-input-pipeline)."""
    from torch_mlir import ir

    ctx = new_context()
    try:
        module = ir.Module.parse(stablehlo_text, ctx)
        run_pipeline(module, "symhlo-stablehlo-to-iree-input-pipeline")
    except PipelineError as e:
        raise CompileError(str(e)) from None
    return str(module)


def compile_to_vmfb(stablehlo_text: str, target: str = "cpu", target_arch: str | None = None,
                    extra_flags: Sequence[str] = ()) -> bytes:
    """StableHLO text -> vmfb bytes for `target`."""
    import iree.compiler as ic

    flags = iree_flags(target, target_arch, extra_flags)
    iree_input = prepare_for_iree(stablehlo_text)
    try:
        vmfb = ic.compile_str(iree_input, input_type="stablehlo", extra_args=flags)
    except ic.CompilerToolError as e:
        raise CompileError(f"iree-compile failed for target '{target}':\n{_trim(str(e))}\n"
                           "Reproduce with: symhlo compile IN.mlir --target "
                           f"{target} -o OUT.vmfb") from None
    _bump("iree_compiles")
    return vmfb


def _trim(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else text[:limit] + "\n... (truncated)"


class CompiledModule:
    """A compiled symhlo module: call it with torch tensors, get torch tensors back.

    Shapes are checked before anything runs (symhlo.ShapeError naming input, axis, value, rule).
    """

    def __init__(self, vmfb: bytes, symbols: SymbolTable, *, target: str = "cpu",
                 in_spec: Any = None, out_spec: Any = None, stablehlo: str | None = None,
                 times: dict | None = None):
        self.vmfb = vmfb
        self.symbols = symbols
        self.target = target
        self.in_spec = in_spec
        self.out_spec = out_spec
        self.stablehlo = stablehlo
        self.times = times or {}
        self._local = threading.local()
        self._driver = TARGETS[target][1]
        self._runtime()  # fail early on a missing driver or a bad module

    @property
    def dims(self):
        return self.symbols.dims()

    def _runtime(self) -> Runtime:
        rt = getattr(self._local, "rt", None)
        if rt is None:
            rt = self._local.rt = Runtime(self.vmfb, self._driver)
        return rt

    def _flatten(self, args, kwargs) -> list[torch.Tensor]:
        import torch.utils._pytree as pytree

        flat, _ = pytree.tree_flatten((tuple(args), dict(kwargs)))
        return [x for x in flat if isinstance(x, torch.Tensor)]

    def check(self, *args, **kwargs) -> dict[str, int]:
        """Checks the call's shapes and dtypes; returns the symbol values."""
        tensors = self._flatten(args, kwargs)
        return self.symbols.check([tuple(t.shape) for t in tensors],
                                  [str(t.dtype).replace("torch.", "") for t in tensors])

    def __call__(self, *args, **kwargs):
        tensors = self._flatten(args, kwargs)
        self.symbols.check([tuple(t.shape) for t in tensors],
                           [str(t.dtype).replace("torch.", "") for t in tensors])
        for spec, t in zip(self.symbols.inputs, tensors):
            if t.device.type != "cpu" and self.target == "cpu":
                raise DeviceError(f"{spec.name}: tensor is on {t.device}, but the module runs on cpu")
        arrays = [np.ascontiguousarray(t.detach().cpu().numpy()) for t in tensors]
        outs = [torch.from_numpy(a) for a in self._runtime()(arrays)]
        if self.out_spec is not None:
            import torch.utils._pytree as pytree

            return pytree.tree_unflatten(outs, self.out_spec)
        return outs[0] if len(outs) == 1 else tuple(outs)

    # -- persistence ----------------------------------------------------------------------------

    MAGIC = b"SYMHLO\x00\x01"

    def save(self, path: str | Path) -> None:
        """One file: magic, a JSON header (specs, symbols, target), the vmfb. No pickle."""
        import torch.utils._pytree as pytree

        header = {
            "format": 1, "target": self.target, "symbols": self.symbols.to_json(),
            "out_spec": pytree.treespec_dumps(self.out_spec) if self.out_spec is not None else None,
            "vmfb_size": len(self.vmfb),
        }
        blob = json.dumps(header).encode()
        with open(path, "wb") as f:
            f.write(self.MAGIC + struct.pack("<Q", len(blob)) + blob + self.vmfb)

    @classmethod
    def load(cls, path: str | Path) -> "CompiledModule":
        """Reads a file written by `save`; raises SymhloError on anything else."""
        import torch.utils._pytree as pytree

        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise SymhloError(f"cannot read '{path}': {e.strerror}") from None
        if not data.startswith(cls.MAGIC) or len(data) < len(cls.MAGIC) + 8:
            raise SymhloError(f"'{path}' is not a saved symhlo module (bad magic)")
        (n,) = struct.unpack("<Q", data[len(cls.MAGIC):len(cls.MAGIC) + 8])
        start = len(cls.MAGIC) + 8
        try:
            header = json.loads(data[start:start + n].decode())
            vmfb = data[start + n:]
            if header.get("format") != 1:
                raise SymhloError(f"'{path}' has format version {header.get('format')}, expected 1")
            if len(vmfb) != header["vmfb_size"]:
                raise SymhloError(f"'{path}' is truncated: module has {len(vmfb)} bytes, "
                                  f"expected {header['vmfb_size']}")
            symbols = SymbolTable.from_json(header["symbols"])
            out_spec = pytree.treespec_loads(header["out_spec"]) if header.get("out_spec") else None
            target = header["target"]
        except SymhloError:
            raise
        except Exception as e:
            raise SymhloError(f"'{path}' is corrupt: {type(e).__name__}: {e}") from None
        return cls(vmfb, symbols, target=target, out_spec=out_spec)


def compile(model, args: Sequence | None = None, *, inputs=None, dynamic_shapes=None,
            kwargs: dict | None = None, target: str = "cpu", target_arch: str | None = None,
            options: dict | None = None, verbose: bool = False) -> CompiledModule:
    """Compiles a model, ExportedProgram or StableHLOProgram for `target` once for all sizes.

    Args:
      model: nn.Module, torch.export.ExportedProgram, or symhlo.StableHLOProgram.
      args, kwargs: example inputs (with dynamic_shapes), or use inputs=[symhlo.Input(...)].
      target: "cpu" (default), "vulkan", "cuda", "rocm".
      target_arch: e.g. "sm_80", "gfx942"; defaults per target.
      options: {"iree_flags": [...]} extra iree-compile flags.
      verbose: print each stage with its time.
    Returns:
      a CompiledModule.
    """
    options = dict(options or {})
    iree_flags(target, target_arch)  # an unknown target or arch fails before the export
    timer = StageTimer(verbose)
    if isinstance(model, StableHLOProgram):
        prog = model
    else:
        prog = _export(model, args, kwargs=kwargs, dynamic_shapes=dynamic_shapes, inputs=inputs,
                       verbose=verbose)
    timer.times.update(prog.times)
    with timer.stage(Stage.IREE):
        vmfb = compile_to_vmfb(prog.text, target, target_arch, options.get("iree_flags", ()))
    return CompiledModule(vmfb, prog.symbols, target=target, in_spec=prog.in_spec,
                          out_spec=prog.out_spec, stablehlo=prog.text, times=timer.times)


def load(path: str | Path) -> CompiledModule:
    """Loads a module saved with CompiledModule.save."""
    return CompiledModule.load(path)
