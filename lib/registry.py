"""The one registry of symhlo passes and pipelines, and the driver that runs textual pipelines.

MLIR's PassManager cannot parse Python-defined passes in a pipeline string, so `run_pipeline` splits
``builtin.module(a, b, c)`` itself: consecutive upstream elements (torch-mlir, StableHLO, MLIR core)
run as one upstream PassManager, and each symhlo pass runs in between on the same module.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import shlex
import tempfile
from dataclasses import dataclass
from typing import Callable, ClassVar

from torch_mlir import ir
from torch_mlir.passmanager import PassManager


class PipelineError(Exception):
    """A pass or pipeline failed. `diagnostics` holds `(location, message)` pairs."""

    def __init__(self, message: str, diagnostics: list[tuple[str, str]] | None = None,
                 repro: str | None = None):
        super().__init__(message)
        self.message = message
        self.diagnostics = diagnostics or []
        self.repro = repro

    def __str__(self) -> str:
        text = self.message
        for loc, msg in self.diagnostics:
            text += f"\n  {loc}: error: {msg}"
        if self.repro:
            text += f"\nReproduce with:\n  {self.repro}"
        return text


class PassFailure(PipelineError):
    """Raised by a symhlo pass; diagnostics name the offending ops and their locations."""


@dataclass(frozen=True)
class Pass:
    """Base of every symhlo pass: `name` is the pass argument, dataclass fields are its options."""

    name: ClassVar[str]
    summary: ClassVar[str]

    def run(self, module: ir.Module) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def from_options(cls, options: dict[str, str]) -> "Pass":
        fields = {f.name.replace("_", "-"): f for f in dataclasses.fields(cls)}
        kwargs = {}
        for key, text in options.items():
            if key not in fields:
                valid = ", ".join(sorted(fields)) or "none"
                raise PipelineError(f"pass '{cls.name}' has no option '{key}' (options: {valid})")
            f = fields[key]
            kwargs[f.name] = _parse_option(text, f.type)
        return cls(**kwargs)


def _parse_option(text: str, typ) -> object:
    typ = typ if isinstance(typ, str) else getattr(typ, "__name__", str(typ))
    if typ == "bool":
        if text.lower() in ("1", "true", ""):
            return True
        if text.lower() in ("0", "false"):
            return False
        raise PipelineError(f"expected a boolean option value, got '{text}'")
    if typ == "int":
        try:
            return int(text)
        except ValueError:
            raise PipelineError(f"expected an integer option value, got '{text}'") from None
    return text


# name -> "module:Class"; imported lazily so listing passes costs nothing.
_PASSES: dict[str, str] = {
    "symhlo-decompose-symbolic-torch-ops": "decompose_symbolic_torch_ops:DecomposeSymbolicTorchOps",
    "symhlo-torch-symbolic-to-shape": "torch_symbolic_to_shape:TorchSymbolicToShape",
    "symhlo-fold-torch-runtime-asserts": "fold_torch_runtime_asserts:FoldTorchRuntimeAsserts",
    "symhlo-lower-torch-runtime-asserts": "lower_torch_runtime_asserts:LowerTorchRuntimeAsserts",
    "symhlo-shape-to-stablehlo": "shape_to_stablehlo:ShapeToStablehlo",
    "symhlo-simplify-broadcasts": "simplify_broadcasts:SimplifyBroadcasts",
    "symhlo-verify-pure-stablehlo": "verify_pure_stablehlo:VerifyPureStablehlo",
    "symhlo-prepare-for-iree": "prepare_for_iree:PrepareForIree",
    "symhlo-narrow-f64-constants-for-iree": "narrow_f64_constants_for_iree:NarrowF64ConstantsForIree",
    "symhlo-lower-power-for-iree": "lower_power_for_iree:LowerPowerForIree",
    "symhlo-lower-dynamic-windows-for-iree": "lower_dynamic_windows_for_iree:LowerDynamicWindowsForIree",
    "symhlo-lower-dynamic-indexing-for-iree": "lower_dynamic_indexing_for_iree:LowerDynamicIndexingForIree",
    "symhlo-sink-transposes-for-iree": "sink_transposes_for_iree:SinkTransposesForIree",
    "symhlo-slice-matmul-rows-for-iree": "slice_matmul_rows_for_iree:SliceMatmulRowsForIree",
    "symhlo-split-sliced-matmuls-for-iree": "split_sliced_matmuls_for_iree:SplitSlicedMatmulsForIree",
    "symhlo-collapse-row-chains-for-iree": "collapse_row_chains_for_iree:CollapseRowChainsForIree",
    "symhlo-fold-float-size-arithmetic": "fold_float_size_arithmetic:FoldFloatSizeArithmetic",
    "symhlo-fold-size-ranges": "fold_size_ranges:FoldSizeRanges",
    "symhlo-inline-private-calls": "inline_private_calls:InlinePrivateCalls",
    "symhlo-lower-shape-assertions": "lower_shape_assertions:LowerShapeAssertions",
    "symhlo-lower-dynamic-operand-ops": "lower_dynamic_operand_ops:LowerDynamicOperandOps",
    "symhlo-normalize-softmax-for-iree": "normalize_softmax_for_iree:NormalizeSoftmaxForIree",
    "symhlo-fold-safe-softmax-for-iree": "fold_safe_softmax_for_iree:FoldSafeSoftmaxForIree",
    "symhlo-block-attention-for-iree": "block_attention_for_iree:BlockAttentionForIree",
    "symhlo-defer-softmax-normalization-for-iree":
        "defer_softmax_normalization_for_iree:DeferSoftmaxNormalizationForIree",
    "symhlo-narrow-matmuls-as-reductions-for-iree":
        "narrow_matmuls_as_reductions_for_iree:NarrowMatmulsAsReductionsForIree",
    "symhlo-pad-bounded-matmul-rows-for-iree":
        "pad_bounded_matmul_rows_for_iree:PadBoundedMatmulRowsForIree",
    "symhlo-fold-key-transpose-for-iree": "fold_key_transpose_for_iree:FoldKeyTransposeForIree",
    "symhlo-flatten-nested-inserts-for-iree": "flatten_nested_inserts_for_iree:FlattenNestedInsertsForIree",
    "symhlo-read-shape-elements-on-host-for-iree":
        "read_shape_elements_on_host_for_iree:ReadShapeElementsOnHostForIree",
    "symhlo-lower-torch-bitcasts": "lower_torch_bitcasts:LowerTorchBitcasts",
    "symhlo-lower-torch-sort": "lower_torch_sort:LowerTorchSort",
    "symhlo-lower-torch-control-flow": "lower_torch_control_flow:LowerTorchControlFlow",
    "symhlo-prepare-loops-for-iree": "prepare_loops_for_iree:PrepareLoopsForIree",
    "symhlo-hoist-loop-counters-for-iree": "hoist_loop_counters_for_iree:HoistLoopCountersForIree",
    "symhlo-widen-narrow-region-values-for-iree":
        "widen_narrow_region_values_for_iree:WidenNarrowRegionValuesForIree",
    "symhlo-lower-torch-complex": "lower_torch_complex:LowerTorchComplex",
    "symhlo-lower-data-dependent-slices": "lower_data_dependent_slices:LowerDataDependentSlices",
    "symhlo-lower-torch-scatter-reduce": "lower_torch_scatter_reduce:LowerTorchScatterReduce",
    "symhlo-prepare-in-place-ops-for-iree": "prepare_in_place_ops_for_iree:PrepareInPlaceOpsForIree",
    "symhlo-float-compare-scalars": "float_compare_scalars:FloatCompareScalars",
    "symhlo-correct-unsigned-reduction-inits":
        "correct_unsigned_reduction_inits:CorrectUnsignedReductionInits",
    "symhlo-insert-call-checks-for-iree": "insert_call_checks_for_iree:InsertCallChecksForIree",
    "symhlo-externalize-transients-for-iree":
        "externalize_transients_for_iree:ExternalizeTransientsForIree",
    "symhlo-convert-unsigned-to-signless-for-iree":
        "convert_unsigned_to_signless_for_iree:ConvertUnsignedToSignlessForIree",
}

# name -> (summary, elements). Elements may name passes, upstream passes or other pipelines.
_PIPELINES: dict[str, tuple[str, list[str]]] = {
    "symhlo-torch-to-torch-backend-pipeline": (
        "Imported torch dialect (with symbolic shapes) -> torch backend IR with shape-dialect sizes.",
        ["symhlo-decompose-symbolic-torch-ops",
         "symhlo-float-compare-scalars",
         "symhlo-torch-symbolic-to-shape",
         "func.func(torch-match-quantized-custom-ops)",
         "torchdynamo-export-to-torch-backend-pipeline",
         "symhlo-fold-torch-runtime-asserts",
         "symhlo-lower-torch-runtime-asserts"],
    ),
    "symhlo-torch-backend-to-stablehlo-pipeline": (
        "Torch backend IR -> pure StableHLO with explicit symbolic size arithmetic.",
        ["symhlo-lower-torch-control-flow",
         "symhlo-lower-torch-bitcasts",
         "symhlo-lower-torch-complex",
         "symhlo-lower-torch-sort",
         "symhlo-lower-data-dependent-slices",
         "symhlo-lower-torch-scatter-reduce",
         "torch-backend-to-stablehlo-backend-pipeline",
         "symhlo-correct-unsigned-reduction-inits",
         "symhlo-shape-to-stablehlo",
         "symhlo-fold-float-size-arithmetic",
         "symhlo-fold-size-ranges",
         "symhlo-simplify-broadcasts",
         "canonicalize", "cse",
         "symhlo-verify-pure-stablehlo"],
    ),
    "symhlo-torch-to-stablehlo-pipeline": (
        "Imported torch dialect -> pure StableHLO: the whole symhlo lowering.",
        ["symhlo-torch-to-torch-backend-pipeline", "symhlo-torch-backend-to-stablehlo-pipeline"],
    ),
    "symhlo-import-foreign-stablehlo-pipeline": (
        "StableHLO from another exporter (jax.export, torch_xla) -> one entry function whose "
        "shape assertions are call-time checks (symhlo.shape_assertions).",
        ["symhlo-inline-private-calls", "symhlo-lower-shape-assertions"],
    ),
    "symhlo-stablehlo-to-iree-input-pipeline": (
        "Pure StableHLO -> the forms IREE 3.13 compiles (tensor reshapes, broadcast hints, "
        "linalg convs and pooling over dynamic spatial dims, static-size slices and gathers).",
        ["symhlo-prepare-in-place-ops-for-iree",
         "symhlo-lower-dynamic-operand-ops", "symhlo-normalize-softmax-for-iree",
         "symhlo-narrow-f64-constants-for-iree", "symhlo-lower-power-for-iree",
         "symhlo-fold-size-ranges", "canonicalize", "symhlo-fold-safe-softmax-for-iree",
         "symhlo-slice-matmul-rows-for-iree",
         "symhlo-split-sliced-matmuls-for-iree",
         "symhlo-lower-dynamic-indexing-for-iree", "symhlo-prepare-for-iree",
         "symhlo-block-attention-for-iree",
         "symhlo-defer-softmax-normalization-for-iree", "symhlo-fold-key-transpose-for-iree",
         "symhlo-narrow-matmuls-as-reductions-for-iree", "symhlo-pad-bounded-matmul-rows-for-iree",
         "symhlo-lower-dynamic-windows-for-iree", "symhlo-sink-transposes-for-iree",
         "symhlo-read-shape-elements-on-host-for-iree",
         "canonicalize", "cse", "symhlo-flatten-nested-inserts-for-iree",
         "symhlo-widen-narrow-region-values-for-iree", "symhlo-prepare-loops-for-iree",
         "symhlo-convert-unsigned-to-signless-for-iree"],
        # symhlo-collapse-row-chains-for-iree is out of it too: the norms fused into their
        # matmuls' row packs, but two other dispatches appeared and the whole module measured no
        # faster (Llama prefill (4, 128), GPT d=256 (1, 512); its docstring).
        # symhlo-hoist-loop-counters-for-iree is out of this pipeline: IREE 3.13 computed a wrong
        # R for linalg.qr of a 7 x 4 matrix with one of its loops counted on the host (and
        # symhlo's runtime failed reading a transient buffer before its allocation committed);
        # with the loop's condition on the device, every size is right.
    ),
}


def get_all_passes() -> dict[str, Callable[[], type[Pass]]]:
    """Maps every symhlo pass name to a lazy factory returning its class."""

    def factory(spec: str) -> Callable[[], type[Pass]]:
        def load() -> type[Pass]:
            mod, cls = spec.split(":")
            return getattr(importlib.import_module(f"{__package__}.{mod}"), cls)
        return load

    return {name: factory(spec) for name, spec in _PASSES.items()}


def get_all_pipelines() -> dict[str, tuple[str, list[str]]]:
    """Maps every symhlo pipeline name to (summary, elements)."""
    return dict(_PIPELINES)


# ---------------------------------------------------------------------------------------------
# Pipeline text parsing.


def split_top_level(text: str) -> list[str]:
    """Splits `a, b{x=1,y=2}, func.func(c, d)` at the commas outside of () and {}."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
            if depth < 0:
                raise PipelineError(f"unbalanced ')' or '}}' in pipeline '{text}'")
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise PipelineError(f"unbalanced '(' or '{{' in pipeline '{text}'")
    tail = "".join(cur).strip()
    if tail:
        parts.append(tail)
    if any(not p for p in parts):
        raise PipelineError(f"empty pass name in pipeline '{text}'")
    return parts


def _split_name_options(element: str) -> tuple[str, dict[str, str]]:
    if "{" not in element:
        return element.strip(), {}
    name, rest = element.split("{", 1)
    if not rest.endswith("}"):
        raise PipelineError(f"malformed options in '{element}'")
    options = {}
    for item in rest[:-1].replace(",", " ").split():
        key, _, value = item.partition("=")
        options[key] = value
    return name.strip(), options


def strip_anchor(text: str) -> str:
    """`builtin.module(a, b)` -> `a, b`; a bare list is returned as is."""
    text = text.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        return text[len("builtin.module("):-1]
    if text.startswith("any(") and text.endswith(")"):
        return text[len("any("):-1]
    return text


@dataclass
class Step:
    """One element of a parsed pipeline: a symhlo pass, or a run of upstream elements."""

    text: str
    symhlo_pass: Pass | None = None


def parse_pipeline(text: str) -> list[Step]:
    """Parses a textual pipeline, expanding symhlo pipelines and grouping upstream elements."""
    passes = get_all_passes()
    steps: list[Step] = []
    upstream: list[str] = []

    def flush() -> None:
        if upstream:
            steps.append(Step(", ".join(upstream)))
            upstream.clear()

    def expand(elements: list[str], seen: tuple[str, ...]) -> None:
        for element in elements:
            name, options = _split_name_options(element)
            if name in _PIPELINES:
                if options:
                    raise PipelineError(f"pipeline '{name}' takes no options (got "
                                        f"'{element[len(name):].strip()}')")
                if name in seen:
                    raise PipelineError(f"pipeline '{name}' includes itself")
                expand(_PIPELINES[name][1], seen + (name,))
            elif name in passes:
                flush()
                steps.append(Step(element, passes[name]().from_options(options)))
            elif name.startswith("symhlo-"):
                raise PipelineError(f"unknown symhlo pass or pipeline '{name}' "
                                    f"(known: {', '.join(sorted(list(passes) + list(_PIPELINES)))})")
            else:
                upstream.append(element)

    expand(split_top_level(strip_anchor(text)), ())
    flush()
    return steps


# ---------------------------------------------------------------------------------------------
# Running.


def _upstream_pm(text: str, ctx: ir.Context) -> PassManager:
    from .ir_util import ensure_upstream_registered

    ensure_upstream_registered(ctx)
    with ctx:
        try:
            return PassManager.parse(f"builtin.module({text})")
        except (ValueError, ir.MLIRError) as e:
            raise PipelineError(f"invalid pass pipeline 'builtin.module({text})': "
                                f"{str(e).strip()}") from None


def validate_pipeline(text: str, ctx: ir.Context) -> list[Step]:
    """Parses `text` and checks that every upstream segment names registered passes."""
    steps = parse_pipeline(text)
    for step in steps:
        if step.symhlo_pass is None:
            _upstream_pm(step.text, ctx)
    return steps


def _repro(module_text: str, pipeline: str) -> str:
    fd, path = tempfile.mkstemp(prefix="symhlo-repro-", suffix=".mlir")
    with os.fdopen(fd, "w") as f:
        f.write(module_text)
    return f"symhlo-opt --pass-pipeline={shlex.quote('builtin.module(' + pipeline + ')')} {path}"


def run_pipeline(module: ir.Module, text: str, *, print_ir_after_all: bool = False,
                 printer: Callable[[str], None] | None = None,
                 on_step: Callable[[str], None] | None = None,
                 repro: bool = True) -> None:
    """Runs the textual pipeline `text` on `module` in place.

    Args:
      module: a module in a context from `ir_util.new_context()` (or torch-mlir's importer).
      text: `builtin.module(...)` or a bare comma-separated list; symhlo passes and pipelines mix
        freely with upstream ones.
      print_ir_after_all: print the IR after each step (`// -----// IR Dump After <step>`).
      on_step: called with each step's text before it runs (progress reporting).
      repro: on failure, save the failing step's input and name a symhlo-opt command reproducing it.
    Raises:
      PipelineError: naming the failed step, its diagnostics, and the repro command.
    """
    ctx = module.context
    steps = validate_pipeline(text, ctx)
    emit = printer or print
    for step in steps:
        if on_step:
            on_step(step.text)
        before = module.operation.clone() if repro else None
        try:
            if step.symhlo_pass is not None:
                step.symhlo_pass.run(module)
            else:
                pm = _upstream_pm(step.text, ctx)
                with ctx:
                    pm.run(module.operation)
        except PipelineError as e:
            if repro and e.repro is None:
                e.repro = _repro(str(before), step.text)
            raise
        except ir.MLIRError as e:
            diags = [(str(d.location), d.message) for d in e.error_diagnostics]
            raise PipelineError(f"pass pipeline step '{step.text}' failed", diags,
                                _repro(str(before), step.text) if repro else None) from None
        except Exception as e:  # a bug in a pass: name the pass, keep the original as __cause__
            raise PipelineError(f"pass '{step.text}' raised {type(e).__name__}: {e}", [],
                                _repro(str(before), step.text) if repro else None) from e
        if before is not None:
            before.erase()
        if print_ir_after_all:
            emit(f"// -----// IR Dump After {step.text} //----- //\n{module}")
