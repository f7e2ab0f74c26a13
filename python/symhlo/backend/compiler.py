"""symhlo.compile (floor 3, backend): StableHLO -> IREE module (.vmfb), the callable CompiledModule
around it, symhlo.load and the saved file format.

A CompiledModule holds one IREE module, or one per optimization profile (`symhlo.Input(profiles=)`);
every call is shape-checked before anything runs, and dispatched to the first profile that fits.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import torch

from symhlo.passes.contract_attrs import VMFB_TRANSIENTS_SUFFIX
from symhlo.passes.ir_util import new_context
from symhlo.passes.registry import PipelineError, run_pipeline

from ..contract.attributes import main_func, read_contract, signature_specs
from ..contract.containers import resolve_type_names
from ..contract.dims import SymbolTable
from ..contract.inputs import Profile, opt_static_inputs, profile_groups
from ..contract.signature import treespec_loads
from ..contract.standins import spec_type_names
from ..errors import (CompileError, DeviceError, RuntimeCheckError, ShapeError, SymhloError,
                      UnsupportedOpError)
from ..frontend.export import StableHLOProgram, export as _export, narrow_program
from ..stages import Stage, StageTimer, bump as _bump
from .runtime import Runtime, to_numpy, to_torch
from .targets import TARGETS, check_program, check_vmfb, recorded_main, target_flags



def iree_flags(target: str, target_arch: str | None = None, extra: Sequence[str] = ()) -> list[str]:
    """iree-compile flags for a symhlo target name and arch (see targets.target_flags)."""
    return target_flags(target, target_arch) + list(extra)


def prepare_for_iree(stablehlo_text: str, *, call_checks: bool = True, demote_f64: bool = False,
                     external_transients: bool = False) -> str:
    """Pure StableHLO text -> the IREE input form (symhlo-stablehlo-to-iree-input-pipeline), with
    the call contract compiled in as checks (symhlo-insert-call-checks-for-iree) unless
    `call_checks` is False; `demote_f64`: the module is compiled with f64 -> f32 demotion;
    `external_transients`: a module with `?` inputs also gets `@main$transients`, which takes its
    transient memory from the caller (symhlo-externalize-transients-for-iree; symhlo's runtime
    calls it)."""
    from torch_mlir import ir

    ctx = new_context()
    pipeline = "symhlo-stablehlo-to-iree-input-pipeline"
    if call_checks:
        pipeline = (f"builtin.module({pipeline}, symhlo-insert-call-checks-for-iree"
                    f"{{demote-f64={'true' if demote_f64 else 'false'}}}"
                    + (", symhlo-externalize-transients-for-iree" if external_transients else "")
                    + ")")
    try:
        module = ir.Module.parse(stablehlo_text, ctx)
        run_pipeline(module, pipeline)
    except PipelineError as e:  # a pass that crashed keeps its exception as the cause
        if getattr(e, "unsupported_op", False):   # e.g. grouped conv3d over `?` spatial dims
            raise UnsupportedOpError(str(e)) from e.__cause__
        raise CompileError(str(e)) from e.__cause__
    return str(module)


def _boundary_element_types(stablehlo_text: str) -> set[str]:
    """The element types ("f64", "i1", ...) of the tensors public functions take or return."""
    from torch_mlir import ir
    ctx = new_context()
    found = set()
    with ctx:
        module = ir.Module.parse(stablehlo_text, ctx)
        for op in module.body.operations:
            if op.operation.name != "func.func":
                continue
            if "sym_visibility" in op.attributes and \
                    ir.StringAttr(op.attributes["sym_visibility"]).value == "private":
                continue
            fn_t = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            for t in list(fn_t.inputs) + list(fn_t.results):
                if isinstance(t, ir.ShapedType):
                    found.add(str(ir.ShapedType(t).element_type))
    return found


def _boundary_has_f64(stablehlo_text: str) -> bool:
    """Whether a public function of the module takes or returns a float64 tensor."""
    return "f64" in _boundary_element_types(stablehlo_text)


def _iree_compile(iree_input: str, target: str, flags: list[str]) -> bytes:
    import iree.compiler as ic

    try:
        vmfb = ic.compile_str(iree_input, input_type="stablehlo", extra_args=flags)
    except ic.CompilerToolError as e:
        import re

        missing = sorted(set(re.findall(r"undefined symbol: (\w+)", str(e))))
        if missing:
            raise UnsupportedOpError(
                f"float64 {', '.join(missing)} (libm) is not available to IREE's {target} "
                "executables, which symhlo builds without f64->f32 demotion so that float64 stays "
                "float64. Compute those ops in float32, or opt into demotion (every f64 tensor "
                "computed as f32) with options={'iree_flags': "
                "['--iree-input-demote-f64-to-f32=true']}") from None
        raise CompileError(f"iree-compile failed for target '{target}':\n{_trim(str(e))}\n"
                           "Reproduce with: symhlo compile IN.mlir --target "
                           f"{target} -o OUT.vmfb") from None
    _bump("iree_compiles")
    return vmfb


def compile_to_vmfb(stablehlo_text: str, target: str = "cpu", target_arch: str | None = None,
                    extra_flags: Sequence[str] = (), timer: StageTimer | None = None) -> bytes:
    """StableHLO text -> vmfb bytes for `target`.

    Args:
      stablehlo_text: a pure StableHLO module.
      target, target_arch, extra_flags: see symhlo.compile.
      timer: records the iree-input and iree stages (and prints them when verbose).
    Returns:
      the vmfb bytes.
    """
    timer = timer or StageTimer(False)
    flags = iree_flags(target, target_arch, extra_flags)
    if not any(f.startswith("--iree-input-demote-f64-to-f32") for f in flags):
        # IREE demotes f64 to f32 by default: float64 results would silently come back float32
        # (and with f32 precision), so a module whose inputs or outputs are float64 keeps f64.
        # A module with no f64 at its boundary keeps IREE's demotion: its f64 is torch-mlir's own
        # widening inside float32 ops (aten.var / layer_norm accumulate in f64), which eager
        # computes in float32 and which GPU targets fail to compile as f64 reductions.
        # The user overrides either way with this same flag.
        demote = not _boundary_has_f64(stablehlo_text)
        flags.append(f"--iree-input-demote-f64-to-f32={'true' if demote else 'false'}")
    check_program(stablehlo_text, target, target_arch,
                  boundary=_boundary_element_types(stablehlo_text) if target == "vulkan" else ())
    demoted = [f for f in flags if f.startswith("--iree-input-demote-f64-to-f32")][-1]
    demote_f64 = not demoted.endswith(("=false", "=0"))
    with timer.stage(Stage.IREE_INPUT):
        # llvm-cpu only: external transients are not run on a GPU here (no device to test them).
        iree_input = prepare_for_iree(stablehlo_text, demote_f64=demote_f64,
                                      external_transients=target == "cpu")
    flags += module_flags(iree_input, target, flags)
    with timer.stage(Stage.IREE):
        try:
            return _iree_compile_retrying_data_tiling(iree_input, target, flags, extra_flags)
        except CompileError:
            if VMFB_TRANSIENTS_SUFFIX not in iree_input:
                raise
            # IREE refuses external transients where it cannot size them before the call
            # (symhlo-externalize-transients-for-iree skips the cases known to fail): compile
            # without @main$transients; symhlo's runtime then calls @main.
            _bump("external_transients_retries")
            iree_input = prepare_for_iree(stablehlo_text, demote_f64=demote_f64)
            return _iree_compile_retrying_data_tiling(iree_input, target, flags, extra_flags)


def _iree_compile_retrying_data_tiling(iree_input: str, target: str, flags: list[str],
                                       extra_flags: Sequence[str]) -> bytes:
    try:
        return _iree_compile(iree_input, target, flags)
    except CompileError:
        if _DATA_TILING not in flags or _DATA_TILING in extra_flags:
            raise
        # IREE 3.13's data tiling fails on some dynamic dispatches ("failed to resolve
        # workgroup count hint in terms of workload ordinals": OPT's layer norm feeding a
        # ?x32 x 32x64 matmul); the same module compiles without it (slower matmuls).
        _bump("data_tiling_retries")
        return _iree_compile(iree_input, target, [f for f in flags if f != _DATA_TILING])


_DATA_TILING = "--iree-global-opt-data-tiling"

_OFFSET_ALIGNMENT = "--iree-stream-resource-min-offset-alignment"
# (scf.if / scf.while too: the IREE preparation builds some, e.g. symhlo-block-attention-for-iree
# with min-length > 1; IREE packs their results the same way.)
_REGION_CONTROL_FLOW = re.compile(r"\b(?:stablehlo\.(?:while|if|case)|scf\.(?:if|while))\b")


def control_flow_offset_flags(iree_input: str, flags: Sequence[str]) -> list[str]:
    """`--iree-stream-resource-min-offset-alignment=4` for a module with region control flow
    (stablehlo.while / if / case), unless `flags` set the alignment themselves: IREE 3.13 folded a
    buffer offset to a wrong constant there with its default 64.

    IREE packs the `?`-sized values one execution region produces into one allocation, at offsets
    `util.align(size of the slices before, 64) + ...`, and carries each value's offset through the
    scf.while / scf.if that a stablehlo.while / if / case becomes. Its integer range analysis
    (iree-util-optimize-int-arithmetic, in the stream pipeline) gives `util.align %size, 64` no
    range when %size may be within 63 of 2^64 (its aligned upper bound wraps), as every product of
    unbounded sizes may be; where such an offset meets a constant offset (the loop entry's, the
    other branch's), the join is the constant alone and the offset is folded to it. A loop then
    reads its second `?x?` state at the first one's offset, a cond returns one result's bytes for
    another, silently (test/e2e/test_control_flow.py's SplatStateLoops: a while_loop swapping two
    `?x?` states from zeros / ones, three states rotating, a swap without torch.where, a cond
    returning two `?x?` tensors; most elements wrong; test/iree-3.13-faults keeps the fold).

    Aligned to 4, an offset after slices whose sizes are multiples of 4 bytes needs no `util.align`
    (IREE folds it) and keeps its value; symhlo-widen-narrow-region-values-for-iree makes the
    `?`-shaped values that cross a region boundary 4-byte elements (f16 states were still wrong).
    Alignments below 4 are no fix: at 1 or 2 an f32 buffer could start at an offset that is no
    multiple of 4 and cholesky(a @ a.mT + I) came back as the identity, silently.
    """
    if any(f.startswith(_OFFSET_ALIGNMENT) for f in flags):
        return []
    if not _REGION_CONTROL_FLOW.search(iree_input):
        return []
    _bump("offset_alignment_1")
    return [f"{_OFFSET_ALIGNMENT}=4"]


def module_flags(iree_input: str, target: str, flags: Sequence[str]) -> list[str]:
    """The iree-compile flags symhlo adds for this IREE input on `target` to `flags` (which
    win where they set the same flag): control_flow_offset_flags, and on cpu
    dynamic_matmul_tile_flags and vector_peel_flags. bench/dispatch_profile.py compiles with
    the same."""
    added = control_flow_offset_flags(iree_input, flags)
    if target == "cpu":
        added += dynamic_matmul_tile_flags(iree_input, [*flags, *added])
        added += vector_peel_flags(iree_input, [*flags, *added])
    return added


_VECTOR_PPROC = "--iree-llvmcpu-vector-pproc-strategy"
# The first operand type of a stablehlo.reduce (pretty form, one or more `(%x init: %y)`).
_REDUCE_OPERAND = re.compile(r"\bstablehlo\.reduce\(.*?across dimensions = \[[\d, ]*\] : "
                             r"\(tensor<([^<>]*)>")


def _all_dynamic(tensor_body: str, min_rank: int = 3) -> bool:
    """Whether `tensor<BODY>` (BODY = "?x?x?xf32") has rank >= min_rank and every dim `?`."""
    dims = tensor_body.split("x")[:-1]
    return len(dims) >= min_rank and all(d == "?" for d in dims)


def peel_explodes(iree_input: str) -> bool:
    """Whether the module holds a stablehlo.reduce whose operand has rank >= 3 and every dim `?`
    (symhlo's QR / LU / LDL / eigh / SVD decompositions: Householder and elimination steps
    `reduce(a * broadcast(v))` over `?x?x?`; a scan's triangle; a user's `(a * x[:, None]).sum(-1)`
    with every size dynamic).

    IREE 3.13 peels such a dispatch at every tiling level along each `?` loop and the versions
    multiply: one `matvec_like_DxDxD` dispatch of LU took 31.6 s to compile peeled and 0.33 s
    masked (856 KB of code), and whole modules (iree-compile, Intel Xeon, 2 cores): eigh 97.2 ->
    17.2 s, LU solve 120 -> 5.1, SVD values 74.2 -> 4.8, QR 49.2 -> 6.5, LDL 53.7 -> 5.3 (the
    last three against no pre-processing at all, not IREE's default). No bench model holds one
    (their reductions keep a static dim: heads, channels, the attention blocks), and peeling
    changed their compile time by -1..+4 s. `(a * x[:, None]).sum(-1)` alone: 14.6 -> 0.8 s. A
    dot_general over `?x?x?` operands becomes a data-tiled mmt4d, which peeling leaves alone.
    """
    return any(_all_dynamic(m.group(1)) for m in _REDUCE_OPERAND.finditer(iree_input))


def vector_peel_flags(iree_input: str, flags: Sequence[str]) -> list[str]:
    """`--iree-llvmcpu-vector-pproc-strategy=peel` unless `flags` choose a strategy themselves or
    the module's all-`?` reductions would make peeling explode (peel_explodes): there IREE's
    default (masked vectors) stays.

    Peeled, a loop over a `?` axis runs whole vectors and a scalar remainder. IREE 3.13 masks the
    vectors on AVX-512 hosts instead, and its masked reduction over a `?` row ran 3.5x slower than
    the static one (max over 8192 x 512: 3.0 vs 0.9 ms CPU; peeled 1.2); GPT-2 width (4, 512)
    440 -> 402 ms, GPT d=256 72.7 -> 64.4, the static modules unchanged (AMD EPYC, AVX-512;
    README Performance).
    """
    if any(f.startswith(_VECTOR_PPROC) for f in flags) or peel_explodes(iree_input):
        return []
    return [f"{_VECTOR_PPROC}=peel"]


_MATMUL_TILE_BYTES = "--iree-llvmcpu-matmul-tile-bytes"
_DYNAMIC_TENSOR = re.compile(r"tensor<(?:[\d?]+x)*\?[x>]")


def dynamic_matmul_tile_flags(iree_input: str, flags: Sequence[str]) -> list[str]:
    """`--iree-llvmcpu-matmul-tile-bytes=131072` (half IREE 3.13's default) for a module with a
    `?` dim, unless `flags` set the budget themselves.

    IREE sizes a data-tiled matmul's workgroup tiles (llvm-cpu) from this byte budget. With every
    dim static it then shrinks the tiles until the workgroups fill the threads; with a `?` dim it
    assumes that dim is large and keeps the budget's tiles. GPT d=256's 256 x 256 projections
    (`mmt4d 16x?x256`, `?` the 16-row tiles) got tiles of all 256 output columns x 64 rows: one
    workgroup, one busy core, at seq 32 (0.14 vs 0.08 ms per call in the static module, whose
    tiles split 8 ways). At 131072 bytes the tile is 32 columns x 64 rows.

    Measured on the bench models' dynamic modules (iree-benchmark-module on symhlo's entry, 5
    alternated rounds, median wall ms, default -> 131072; AMD EPYC, 2 cores): GPT d=256 (1, 32)
    0.73 -> 0.38 (static 0.33), (1, 128) 1.90 -> 1.95, (4, 512) 31.9 -> 31.2; ResNet-18 with
    batch, H and W dynamic, batch 8 101 -> 93 (static 80), batch 1 13.5 -> 13.2; batch-only
    batch 8 82.1 -> 81.6; GPT-2 width (4, 128) 40.7 -> 40.6; the block (4, 512) 5.84 -> 5.76; the
    Llama prefill (4, 128) 6.49 -> 6.30 but (1, 512) 8.61 -> 9.05; the decode step (1, 128)
    0.335 -> 0.356, (4, 512) 1.13 -> 1.17. 196608 bytes: between the two. The static modules
    keep IREE's default (GPT-2 width (4, 512) 213 -> 220 ms with it, bench/flags.py).
    """
    if any(f.startswith(_MATMUL_TILE_BYTES) for f in flags):
        return []
    if not _DYNAMIC_TENSOR.search(iree_input):
        return []
    return [f"{_MATMUL_TILE_BYTES}=131072"]


def _trim(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else text[:limit] + "\n... (truncated)"


@dataclass
class Variant:
    """One IREE module of a CompiledModule: its vmfb, its symbol rules, its profile (or None)."""

    vmfb: bytes
    symbols: SymbolTable
    profile: Profile | None = None
    out_dtypes: list[str] | None = None  # torch dtype names of the outputs, as exported


_MLIR_DTYPE = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16",
               "i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8", "i1": "bool",
               "complex<f32>": "complex64"}


def _declared_inputs(decl: str) -> list[str] | None:
    """The element types (torch names) the IREE function takes, from its ABI declaration."""
    import re

    m = re.search(r"@main\((.*?)\)\s*->", decl)
    if not m:
        return None
    types = re.findall(r"tensor<((?:[^<>]|<[^<>]*>)*)>", m.group(1))   # nested: complex<f32>
    return [_MLIR_DTYPE.get(re.sub(r"^(?:(?:\?|\d+)x)*", "", t), "") for t in types]


def _out_dtypes(prog: StableHLOProgram) -> list[str] | None:
    ep = prog.exported_program
    if ep is None:
        return None
    outs = [n for n in ep.graph.nodes if n.op == "output"][0].args[0]
    return [str(o.meta["val"].dtype)[6:] for o in outs
            if hasattr(o, "meta") and isinstance(o.meta.get("val"), torch.Tensor)]


class CompiledModule:
    """A compiled symhlo module: call it with torch tensors, get torch tensors back.

    Shapes are checked before anything runs (symhlo.ShapeError naming input, axis, value, rule).
    A module built from `symhlo.Input(profiles=...)` holds one IREE module per profile and runs
    each call on the first profile that fits, in declared order.

    Args:
      vmfb: the IREE module (ignored when `variants` is given).
      symbols: the shape rules (for several variants: their union, used for `dims`).
      target: the symhlo target the vmfb was built for.
      in_spec, out_spec: pytree specs of the inputs and outputs.
      stablehlo: the StableHLO text it came from (optional).
      times: seconds per stage.
      variants: one Variant per profile, in dispatch order.
    """

    def __init__(self, vmfb: bytes, symbols: SymbolTable, *, target: str = "cpu",
                 in_spec: Any = None, out_spec: Any = None, stablehlo: str | None = None,
                 times: dict | None = None, variants: Sequence[Variant] | None = None):
        if target not in TARGETS:
            raise DeviceError(f"unknown target '{target}' (valid: {', '.join(TARGETS)})")
        self.variants = list(variants) if variants else [Variant(vmfb, symbols, None)]
        self.vmfb = self.variants[0].vmfb
        self.symbols = symbols
        self.target = target
        self.in_spec = in_spec
        self.out_spec = out_spec
        self.stablehlo = stablehlo
        self.times = times or {}
        self._local = threading.local()
        self._driver = TARGETS[target][1]
        self._twin: CompiledModule | None = None   # see _empty_input_twin
        self._twin_lock = threading.Lock()
        # With f64->f32 demotion (IREE's default, which symhlo turns off unless the user's
        # iree_flags ask for it) the module takes and returns f32 where the model has f64.
        # Cast at the boundary to keep torch's types.
        self._in_casts = []
        for v in self.variants:
            declared = _declared_inputs(check_vmfb(v.vmfb, target)) or []
            self._in_casts.append({k: getattr(torch, d) for k, (spec, d) in
                                   enumerate(zip(v.symbols.inputs, declared))
                                   if d and d != spec.dtype and spec.dtype == "float64"})
        # A GPU module is built and checked without its device, which is opened on the first call.
        if target == "cpu":
            self._runtimes()  # fail early on a missing driver or a bad module

    @property
    def dims(self):
        """Each symbolic dim (symhlo.contract.dims.Dim): name, min, max, bindings, derived
        expressions."""
        return self.symbols.dims()

    @property
    def profiles(self) -> list[Profile]:
        """The optimization profiles in dispatch order ([] for a module compiled without any)."""
        return [v.profile for v in self.variants if v.profile is not None]

    def _runtimes(self) -> list[Runtime]:
        rts = getattr(self._local, "rts", None)
        if rts is None:
            rts = self._local.rts = [Runtime(v.vmfb, self._driver) for v in self.variants]
        return rts

    def _flatten(self, args, kwargs) -> list[torch.Tensor]:
        """The call's tensors in @main's order, bound as the model's forward binds them.

        With the program's signature (symhlo.contract.signature.Signature): keyword arguments bind
        by name, and non-tensor arguments must equal the constants the program was exported with
        (ShapeError naming the argument otherwise).
        """
        import torch.utils._pytree as pytree

        sig = self.symbols.signature
        if sig is not None:
            return sig.bind(args, kwargs)
        if not kwargs and all(type(a) is torch.Tensor for a in args):
            return list(args)  # the common case, without pytree's ~25 us
        if kwargs:
            raise ShapeError("this module has no recorded signature (StableHLO without symhlo's "
                             "contract attributes): pass its tensors by position")
        flat, _ = pytree.tree_flatten((tuple(args), dict(kwargs)))
        return [x for x in flat if isinstance(x, torch.Tensor)]

    def _select(self, tensors) -> tuple[int, dict[str, int]]:
        shapes = [tuple(t.shape) for t in tensors]
        dtypes = [str(t.dtype)[6:] for t in tensors]  # "torch.float32" -> "float32"
        if len(self.variants) == 1:
            return 0, self.variants[0].symbols.check(shapes, dtypes)
        errors = []
        for k, v in enumerate(self.variants):
            try:
                return k, v.symbols.check(shapes, dtypes)
            except ShapeError as e:
                errors.append(e)
        names = [i.name for i in self.variants[0].symbols.inputs]
        got = "; ".join(f"{n} {s}" for n, s in zip(names, shapes))
        lines = [f"no profile fits the call ({got}):"]
        for v, e in zip(self.variants, errors):
            label = str(v.profile) if v.profile is not None else v.symbols.describe()
            lines.append(f"  {label}  -- {e}")
        raise ShapeError("\n".join(lines))

    def check(self, *args, **kwargs) -> dict[str, int]:
        """Checks the call's shapes and dtypes without running it.

        Returns:
          the symbol values (of the profile that would run).
        Raises:
          ShapeError: naming input, axis, value and rule (every profile's, when none fits).
        """
        return self._select(self._flatten(args, kwargs))[1]

    def profile_for(self, *args, **kwargs) -> int:
        """The index (into `profiles`) of the profile a call with these arguments would run.

        Returns:
          0 for a module without profiles when the call fits.
        Raises:
          ShapeError: no profile fits; the message lists every profile's ranges.
        """
        return self._select(self._flatten(args, kwargs))[0]

    def __call__(self, *args, **kwargs):
        return self.call_tensors(*self._flatten(args, kwargs))

    def call_tensors(self, *tensors):
        """Runs on the program's tensor inputs alone, in @main's order (what `symhlo run` passes):
        non-tensor arguments keep the values they were exported with."""
        k, _ = self._select(tensors)
        for spec, t in zip(self.variants[k].symbols.inputs, tensors):
            if t.layout != torch.strided:
                raise SymhloError(f"{spec.name}: a {t.layout} tensor; symhlo modules take dense "
                                  "(torch.strided) tensors, e.g. x.to_dense()")
        if self.target == "cpu":
            for spec, t in zip(self.variants[k].symbols.inputs, tensors):
                if t.device.type != "cpu":
                    raise DeviceError(f"{spec.name}: tensor is on {t.device}, but the module runs on cpu")
        if self.target == "vulkan" and any(t.numel() == 0 for t in tensors):
            return self._empty_input_twin(k, tensors).call_tensors(*tensors)
        casts = self._in_casts[k]
        if casts:
            tensors = [t.to(casts[i]) if i in casts else t for i, t in enumerate(tensors)]
        arrays = [to_numpy(t) for t in tensors]
        outs = [to_torch(a) for a in self._runtimes()[k](arrays)]
        checks = self.variants[k].symbols.runtime_checks
        if checks:
            outs, flags = outs[:-len(checks)], outs[-len(checks):]
            for message, flag in zip(checks, flags):
                if int(flag) == 0:
                    raise RuntimeCheckError(
                        f"a check on a size computed from the data failed at call time: "
                        f"{message}")
        want = self.variants[k].out_dtypes
        if want:  # an f64 output of a module built with (opted-in) f64->f32 demotion
            outs = [o.to(torch.float64) if d == "float64" and o.dtype == torch.float32 else o
                    for o, d in zip(outs, want + [""] * (len(outs) - len(want)))]
        if self.out_spec is not None:
            import torch.utils._pytree as pytree

            return pytree.tree_unflatten(outs, self.out_spec)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _empty_input_twin(self, k: int, tensors) -> "CompiledModule":
        """The CPU module that runs a Vulkan module's calls with an empty input tensor.

        IREE 3.13's Vulkan driver refuses every dispatch that binds a 0-byte buffer, even one with
        no work to do ("Vulkan dispatch binding 0 resolved to an empty buffer range": `x * 2` or
        `x.sum(0)` of a 0-row x), while what a computation over an empty input returns is empty
        or a few reduction identities. Such calls run on an llvm-cpu build of the same StableHLO,
        compiled on the first one. A module without its StableHLO (loaded from a file, or built
        per profile) refuses them, naming the empty input.
        """
        with self._twin_lock:
            if self._twin is None:
                if self.stablehlo is None or len(self.variants) != 1:
                    spec, t = next((s, t) for s, t in zip(self.variants[k].symbols.inputs, tensors)
                                   if t.numel() == 0)
                    axis = list(t.shape).index(0)
                    raise DeviceError(
                        f"{spec.name}: axis {axis} is 0 (shape {tuple(t.shape)}); IREE 3.13's "
                        "Vulkan driver cannot bind an empty buffer to a dispatch, and this module "
                        "has no StableHLO to build the CPU module symhlo runs such calls on (it was "
                        "loaded from a file or compiled per profile): call it with non-empty "
                        "tensors, or compile it in this process")
                _bump("empty_input_cpu_compiles")
                v = self.variants[0]
                vmfb = compile_to_vmfb(self.stablehlo, "cpu")
                self._twin = CompiledModule(vmfb, self.symbols, target="cpu", in_spec=self.in_spec,
                                            out_spec=self.out_spec, stablehlo=self.stablehlo,
                                            variants=[Variant(vmfb, v.symbols, None, v.out_dtypes)])
            return self._twin

    # -- persistence ----------------------------------------------------------------------------

    MAGIC = b"SYMHLO\x00\x01"
    FORMAT = 3

    def save(self, path: str | Path) -> None:
        """Writes one file: magic, header length, a JSON header, then each variant's vmfb.

        The header holds the target, the output spec, per variant its profile, output dtypes,
        size and sha256, and the sha256 of the header itself (`header_sha256`, over its canonical
        JSON). The call contract is not in it: each vmfb records its @main's contract attributes
        (symhlo-insert-call-checks-for-iree), and `load` reads them back with the reader the live
        path uses (contract.attributes.read_contract). No pickle: loading never runs code from
        the file.

        Args:
          path: where to write (conventionally `*.symhlo`).
        """
        import torch.utils._pytree as pytree

        header = {
            "format": self.FORMAT, "target": self.target,
            "out_spec": pytree.treespec_dumps(self.out_spec) if self.out_spec is not None else None,
            "variants": [{"profile": v.profile.to_json() if v.profile is not None else None,
                          "out_dtypes": v.out_dtypes,
                          "size": len(v.vmfb), "sha256": hashlib.sha256(v.vmfb).hexdigest()}
                         for v in self.variants],
        }
        header["header_sha256"] = _header_digest(header)
        blob = json.dumps(header).encode()
        with open(path, "wb") as f:
            f.write(self.MAGIC + struct.pack("<Q", len(blob)) + blob)
            for v in self.variants:
                f.write(v.vmfb)

    @classmethod
    def load(cls, path: str | Path, *, containers: str = "import") -> "CompiledModule":
        """Reads a file written by `save` (format 3; formats 1 and 2, whose headers also carried
        the contract as JSON, load the same way: their JSON is not read).

        Args:
          path: the file.
          containers: "import" (default): the output and input container classes the file names
            (a ModelOutput, a DynamicCache) are imported from their installed modules, so calls
            return the same classes as the saved module did; "standin": nothing is imported and
            classes this process does not know come back as dict stand-ins (for tools that need
            the tensors only, e.g. `symhlo run`).
        Returns:
          a CompiledModule that checks shapes exactly as the saved one did: each variant's
          contract is read from its vmfb's record of @main's attributes.
        Raises:
          SymhloError: the file is missing, foreign, truncated or corrupt (checked before IREE
          sees any byte of it); a vmfb without a recorded contract; with containers="import", a
          container class that cannot be imported (named with its module).
        """
        if containers not in ("import", "standin"):
            raise ValueError(f"containers must be 'import' or 'standin', got {containers!r}")

        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise SymhloError(f"cannot read '{path}': {e.strerror}") from None
        start = len(cls.MAGIC) + 8
        if not data.startswith(cls.MAGIC):
            what = ("empty" if not data else
                    f"truncated: {len(data)} bytes" if cls.MAGIC.startswith(data) else
                    "not a saved symhlo module (bad magic)")
            raise SymhloError(f"'{path}' is {what}")
        if len(data) < start:
            raise SymhloError(f"'{path}' is truncated: {len(data)} bytes, the header length is missing")
        (n,) = struct.unpack("<Q", data[len(cls.MAGIC):start])
        if len(data) < start + n:
            raise SymhloError(f"'{path}' is truncated: the header needs {n} bytes, "
                              f"{len(data) - start} are there")
        try:
            header = json.loads(data[start:start + n].decode())
            if not isinstance(header, dict):
                raise ValueError("the header is not a JSON object")
            fmt = header.get("format")
            if type(fmt) is not int or fmt not in (1, 2, 3):
                raise SymhloError(f"'{path}' has format version {fmt!r}; this symhlo reads 1, 2 and 3")
            body = data[start + n:]
            if fmt == 1:
                entries = [{"profile": None, "size": header["vmfb_size"]}]
            else:
                entries = header["variants"]
                if not isinstance(entries, list) or not entries:
                    raise ValueError("no variants")
            want = sum(int(e["size"]) for e in entries)
            if len(body) != want:
                raise SymhloError(f"'{path}' is truncated: its IREE module(s) have {len(body)} bytes, "
                                  f"expected {want}" if len(body) < want else
                                  f"'{path}' is corrupt: {len(body) - want} unexpected trailing bytes")
            target = header["target"]
            if target not in TARGETS:
                raise ValueError(f"unknown target {target!r}")
            if "header_sha256" in header and header["header_sha256"] != _header_digest(header):
                raise SymhloError(f"'{path}' is corrupt: its header fails its sha256 check")
            vmfbs, offset = [], 0
            for k, e in enumerate(entries):
                vmfb = body[offset:offset + int(e["size"])]
                offset += int(e["size"])
                if "sha256" in e and hashlib.sha256(vmfb).hexdigest() != e["sha256"]:
                    raise SymhloError(f"'{path}' is corrupt: IREE module {k} fails its sha256 check")
                vmfbs.append(vmfb)
            recorded = []   # each vmfb's record of @main and its contract attributes
            for k, vmfb in enumerate(vmfbs):
                parsed = recorded_main(vmfb)
                if parsed is None:
                    raise SymhloError(f"'{path}' (format version {fmt}): IREE module {k} records no "
                                      "call contract (saved by a symhlo older than the contract "
                                      "attributes): compile and save the model again")
                recorded.append(parsed)
            if containers == "import":  # before any spec is parsed: inputs' specs name them too
                texts = [header.get("out_spec")] + [t for m in recorded for t in signature_specs(main_func(m))]
                resolve_type_names(_spec_type_names(texts), strict=True)
            variants = []
            for e, vmfb, parsed in zip(entries, vmfbs, recorded):
                profile = Profile.from_json(e["profile"]) if e.get("profile") else None
                out_dtypes = e.get("out_dtypes")
                if out_dtypes is not None and not all(isinstance(d, str) for d in out_dtypes):
                    raise ValueError("out_dtypes must be dtype names")
                variants.append(Variant(vmfb, read_contract(main_func(parsed)), profile, out_dtypes))
            symbols = (variants[0].symbols if len(variants) == 1 else
                       SymbolTable.union([v.symbols for v in variants]))
            out_spec = (treespec_loads(header["out_spec"], strict=containers == "import")
                        if header.get("out_spec") else None)
        except CompileError as e:   # read_contract: a malformed recorded contract
            raise SymhloError(f"'{path}' is corrupt: its recorded contract: {e}") from None
        except SymhloError:
            raise
        except Exception as e:
            raise SymhloError(f"'{path}' is corrupt: {type(e).__name__}: {e}") from None
        return cls(variants[0].vmfb, symbols, target=target, out_spec=out_spec, variants=variants)


def _spec_type_names(texts: Sequence[str | None]) -> set[str]:
    """The container type names in a saved module's pytree specs (outputs, and each variant's
    signature: inputs and outputs)."""
    names: set[str] = set()
    for text in texts:
        if isinstance(text, str):
            doc = json.loads(text)
            if isinstance(doc, list) and len(doc) == 2:
                names |= spec_type_names(doc[1])
    return names


def _header_digest(header: dict) -> str:
    """sha256 of a saved module's header (without its own digest), over canonical JSON."""
    rest = {k: v for k, v in header.items() if k != "header_sha256"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()


_OPTION_KEYS = ("iree_flags", "target_arch", "opt_variant")


def compile(model, args: Sequence | None = None, *, inputs=None, dynamic_shapes=None,
            kwargs: dict | None = None, target: str = "cpu", target_arch: str | None = None,
            options: dict | None = None, verbose: bool = False) -> CompiledModule:
    """Compiles a model, ExportedProgram or StableHLOProgram for `target` once for all sizes.

    Args:
      model: nn.Module, torch.export.ExportedProgram, or symhlo.StableHLOProgram.
      args, kwargs: example inputs (with dynamic_shapes), or use inputs=[symhlo.Input(...)].
      inputs: one symhlo.Input per tensor argument: example args come from the opt shapes, and
        torch.export Dims from the ranges and names. Inputs with `profiles=` give one IREE
        module per profile, each exported and compiled with that profile's ranges (static at
        its opt shape where min == max).
      dynamic_shapes: torch.export's spelling (Dim, derived dims like `2 * Dim("h")`).
      target: "cpu" (default), "vulkan", "cuda", "rocm".
      target_arch: e.g. "sm_80", "gfx942"; defaults per target.
      options: {"iree_flags": [...]} extra iree-compile flags; {"target_arch": ...};
        {"opt_variant": True} with inputs= (ranges, no profiles=) also builds a static module at
        the inputs' opt shapes and runs calls of exactly those shapes on it (as Torch-TensorRT
        tunes for opt); every other size runs on the dynamic module. Two IREE compiles.
      verbose: print each stage with its time (to stderr).
    Returns:
      a CompiledModule.
    Raises:
      ValueError (bad inputs/options), SymhloError (torch.export failed), CompileError,
      UnsupportedOpError, DeviceError (unknown target).
    """
    options = dict(options or {})
    unknown = [k for k in options if k not in _OPTION_KEYS]
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} (valid: {', '.join(_OPTION_KEYS)})")
    target_arch = target_arch or options.get("target_arch")
    iree_flags(target, target_arch)  # an unknown target or arch fails before the export
    extra = list(options.get("iree_flags", ()))
    groups = profile_groups(inputs) if inputs else None
    opt_variant = options.get("opt_variant", False)
    if not isinstance(opt_variant, bool):
        raise ValueError(f"option 'opt_variant' must be True or False, got {opt_variant!r}")
    if opt_variant:
        if not inputs or groups is not None:
            raise ValueError("option 'opt_variant' needs inputs=[symhlo.Input(min_shape=, opt_shape=, "
                             "max_shape=)] without profiles= (declare a static profile there instead)")
        if isinstance(model, (StableHLOProgram, torch.export.ExportedProgram)):
            raise SymhloError("option 'opt_variant' needs an nn.Module: the static variant is "
                              f"exported at the opt shapes, and a {type(model).__name__} is "
                              "already exported")
        groups = [opt_static_inputs(inputs), list(inputs)]
    if groups is not None:
        return _compile_profiles(model, groups, kwargs, target, target_arch, extra, verbose)
    timer = StageTimer(verbose)
    if isinstance(model, StableHLOProgram):
        prog = model if inputs is None else narrow_program(model, inputs)
    else:
        prog = _export(model, args, kwargs=kwargs, dynamic_shapes=dynamic_shapes, inputs=inputs,
                       verbose=verbose)
    timer.times.update(prog.times)
    vmfb = compile_to_vmfb(prog.text, target, target_arch, extra, timer)
    return CompiledModule(vmfb, prog.symbols, target=target, in_spec=prog.in_spec,
                          out_spec=prog.out_spec, stablehlo=prog.text, times=timer.times,
                          variants=[Variant(vmfb, prog.symbols, None, _out_dtypes(prog))])


def _compile_profiles(model, groups, kwargs, target, target_arch, extra, verbose) -> CompiledModule:
    """One export + IREE compile per profile; dispatch order = declared order."""
    if isinstance(model, (StableHLOProgram, torch.export.ExportedProgram)):
        raise SymhloError("Input(profiles=...) needs an nn.Module: each profile is exported with its "
                          f"own ranges, and a {type(model).__name__} is already exported")
    variants, times, last = [], {}, None
    for k, group in enumerate(groups):
        if verbose:
            print(f"[symhlo] profile {k + 1}/{len(groups)}", file=sys.stderr, flush=True)
        timer = StageTimer(verbose)
        prog = _export(model, inputs=group, kwargs=kwargs, verbose=verbose)
        timer.times.update(prog.times)
        vmfb = compile_to_vmfb(prog.text, target, target_arch, extra, timer)
        names = tuple(i.name for i in prog.symbols.inputs)
        profile = Profile(k, names, tuple(i.min_shape for i in group), tuple(i.opt_shape for i in group),
                          tuple(i.max_shape for i in group))
        variants.append(Variant(vmfb, prog.symbols, profile, _out_dtypes(prog)))
        for stage, dt in timer.times.items():
            times[stage] = times.get(stage, 0.0) + dt
        last = prog
    union = SymbolTable.union([v.symbols for v in variants])
    return CompiledModule(variants[0].vmfb, union, target=target, in_spec=last.in_spec,
                          out_spec=last.out_spec, stablehlo=None, times=times, variants=variants)


def load(path: str | Path, *, containers: str = "import") -> CompiledModule:
    """Loads a module saved with CompiledModule.save.

    Args:
      path: the file.
      containers: "import" (default) imports the modules that define the container classes the
        file names (transformers.modeling_outputs for a CausalLMOutputWithPast) so calls return
        those classes, refusing a class that cannot be imported; "standin" imports nothing and
        gives dict stand-ins for unknown classes (see CompiledModule.load).
    Returns:
      the CompiledModule (all its profile variants).
    Raises:
      SymhloError: missing, foreign, truncated or corrupt file; a container class that cannot be
      imported (naming the class and its module).
    """
    return CompiledModule.load(path, containers=containers)
