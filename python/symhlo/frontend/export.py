"""symhlo.export (floor 2, frontend): a PyTorch model or ExportedProgram -> pure StableHLO with
symbolic sizes; StableHLOProgram, and program_from_mlir for StableHLO text."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import torch

from symhlo.passes.registry import PipelineError, run_pipeline

from ..contract.attributes import (drop_constant_args, main_func, read_contract, readable_names,
                                   rename_contract, torch_debug_names, write_contract)
from ..contract.containers import register_containers
from ..contract.dims import SymbolTable, from_exported_program, parse_shape_expr, user_names
from ..contract.inputs import (apply_input_names, bind_to_parameters, check_auto_dims,
                               inputs_to_export_spec, narrow_to_inputs, violated_dim_names,
                               with_auto_dims)
from ..contract.shape_assertions import import_foreign
from ..contract.signature import signature_of, treespec_loads
from ..errors import CompileError, SymhloError, UnsupportedOpError
from ..stages import Stage, StageTimer, bump
from .recurrent import recurrent_layers_as_scans
from .refusals import (counterexample, node_source_line, reject_data_dependent_ops,
                       reject_unimportable_nodes)


@dataclass
class StableHLOProgram:
    """A pure StableHLO module plus what is needed to call it: input specs and symbolic dims.

    Attributes:
      text: the module as StableHLO text (`str(prog)` is the same).
      symbols: the SymbolTable (input specs, symbol ranges, user names) checked at call time.
      exported_program: the torch.export program it came from (None when loaded from .mlir).
      times: seconds per stage.
    """

    text: str
    symbols: SymbolTable
    exported_program: Any = None
    times: dict = field(default_factory=dict)
    in_spec: Any = None
    out_spec: Any = None

    def __str__(self) -> str:
        return self.text

    @property
    def dims(self):
        """Each symbolic dim: name, min, max (None = unbounded), bindings, derived expressions."""
        return self.symbols.dims()

    def portable_artifact(self, target_version: str | None = None) -> bytes:
        """The module as a StableHLO portable artifact (VHLO bytecode)."""
        from torch_mlir._mlir_libs import _stablehlo

        version = target_version or _stablehlo.get_current_version()
        try:
            return _stablehlo.serialize_portable_artifact_str(self.text, version)
        except Exception as e:  # the bindings raise a bare Exception/ValueError
            raise CompileError(f"cannot serialize a portable artifact (version {version}): {e}") from None

    def save(self, path: str | Path) -> None:
        """Writes `.mlir` (text) or `.mlirbc` (portable artifact)."""
        path = Path(path)
        if path.suffix == ".mlirbc":
            path.write_bytes(self.portable_artifact())
        else:
            path.write_text(self.text)


# torch.export and run_decompositions keep their tracing state (the dispatch mode stack, the
# fake-tensor mode) in process globals: two exports in parallel threads fail with "Trying to pop
# empty mode stack". symhlo serializes its torch-side stages (export, decompose + import); the
# MLIR passes (a context per compile) and iree-compile still run in parallel.
TORCH_LOCK = threading.RLock()


class FunctionModule(torch.nn.Module):
    """A plain function (or any callable that is not an nn.Module) as a module for torch.export.

    `forward` is the function itself, so its parameter names key `dynamic_shapes` and keyword
    arguments as they would for a module's forward.
    """

    def __init__(self, fn):
        super().__init__()
        self.forward = fn


def forward_parameters(model) -> tuple[list | None, str]:
    """The parameters of a model's forward (or a plain function's), without self, and how to
    name the forward in messages; (None, ...) when the signature cannot be read."""
    import inspect

    fn = model.forward if isinstance(model, torch.nn.Module) else model
    name = f"{type(model).__name__}.forward" if isinstance(model, torch.nn.Module) else \
        getattr(model, "__name__", "the function")
    try:
        return list(inspect.signature(fn).parameters.values()), name
    except (TypeError, ValueError):
        return None, name


def _export_module(model, args, kwargs, dynamic_shapes):
    if not isinstance(model, torch.nn.Module):
        if not callable(model):
            raise SymhloError(f"export takes an nn.Module, an ExportedProgram or a function, "
                              f"not {type(model).__name__}")
        model = FunctionModule(model)
    register_containers()  # transformers' KV caches as inputs and outputs (contract.containers)
    try:
        with TORCH_LOCK, recurrent_layers_as_scans():
            return torch.export.export(model, tuple(args or ()), kwargs=kwargs or None,
                                       dynamic_shapes=dynamic_shapes)
    except Exception as e:  # torch.export raises many types; keep its message, drop the stack
        raise SymhloError(f"torch.export failed: {type(e).__name__}: {e}") from e


def _check_outputs(ep, text: str, names: dict[str, str] | None = None) -> None:
    """Silent specialization guard: an output axis symbolic in torch.export must be `?`."""
    m = re.search(r"func\.func @main\([^)]*\)\s*->\s*(\(.*?\)|tensor<(?:[^<>]|<[^<>]*>)*>)\s*"
                  r"(attributes|\{)", text, re.S)
    if not m:
        return
    # (element types may nest: tensor<?x3xcomplex<f32>>)
    result_types = re.findall(r"tensor<((?:[^<>]|<[^<>]*>)*)>", m.group(1))
    outs = [n for n in ep.graph.nodes if n.op == "output"][0].args[0]
    tensor_outs = [o for o in outs if hasattr(o, "meta") and isinstance(o.meta.get("val"), torch.Tensor)]
    for k, (node, rt) in enumerate(zip(tensor_outs, result_types)):
        dims = re.match(r"((?:(?:\?|\d+)x)*)", rt).group(1).split("x")[:-1]
        for axis, (s, d) in enumerate(zip(node.meta["val"].shape, dims)):
            if isinstance(s, torch.SymInt) and not s.node.expr.is_number and d != "?" \
                    and not _pinned_by_export(ep, s.node.expr, int(d)):
                shown = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: (names or {}).get(m.group(0), m.group(0)), str(s))
                raise CompileError(f"output {k} axis {axis} is symbolic ({shown}) in torch.export but "
                                   f"static ({d}) in the StableHLO: a dynamic dim was specialized")


def _pinned_by_export(ep, expr, value: int) -> bool:
    """Whether torch.export's own guards fix `expr` to `value` (`reshape(x, (25, 5))` guards
    `s0*s1 == 25`): then a static output axis is what the program promises, not a dim some
    lowering pinned. Proved like a decomposition's guard (refusals.counterexample over
    the ranges and the input guards the call-time checks enforce)."""
    import sympy

    premises = [(holds, syms) for _, holds, syms in from_exported_program(ep)._relation_checks]
    if not any(set(map(str, expr.free_symbols)) <= syms for _, syms in premises):
        return False   # no guard reads all of its symbols: nothing pins it
    return counterexample(sympy.Eq(expr, value), dict(ep.range_constraints), premises) is None


def _unlowered_op(module) -> tuple[str, str] | None:
    """(name, location) of the first torch op left in a module whose lowering failed, other than
    constants: the op that kept its constant operands alive, which is what to name."""
    from symhlo.passes.ir_util import walk_ops

    for op in walk_ops(module.operation):
        name = op.name
        if op.name == "torch.operator":
            name = str(op.attributes["name"]).strip('"')
        if name.startswith("torch.") and not name.startswith(("torch.constant.", "torch_c.")) \
                and name not in ("torch.prim.ListConstruct", "torch.vtensor.literal"):
            return name, str(op.location)
    return None


def _classify(e: PipelineError, module=None) -> CompileError:
    text = str(e)
    m = re.search(r"failed to legalize operation '([^']+)'", text)
    if m:
        op = m.group(1)
        named = re.search(r'name = "([^"]+)"', text)
        if op == "torch.operator" and named:
            op = named.group(1)
        loc = e.diagnostics[0][0] if e.diagnostics else "unknown location"
        # A leftover `torch.constant.int` (no location) only says that its user, some op
        # convert-torch-to-stablehlo did not lower, is still there: name that op instead.
        if op.startswith(("torch.constant.", "torch.prim.ListConstruct")) and module is not None:
            found = _unlowered_op(module)
            if found is not None:
                op, loc = found
        return UnsupportedOpError(f"unsupported op '{op}' at {loc} (in pass step "
                                  f"'{text.splitlines()[0]}')\n{text}")
    return CompileError(text)


def export(model_or_ep, args: Sequence | None = None, *, kwargs: dict | None = None,
           dynamic_shapes=None, inputs=None, verbose: bool = False) -> StableHLOProgram:
    """Exports a model to pure StableHLO, keeping every symbolic size.

    Args:
      model_or_ep: an nn.Module, or a torch.export.ExportedProgram (then args/dynamic_shapes unused).
      args, kwargs: example inputs for torch.export.
      dynamic_shapes: torch.export's spelling (Dim, derived dims like `2 * Dim("h")`).
      inputs: symhlo.Input specs instead of args + dynamic_shapes (Torch-TensorRT style).
      verbose: print each stage with its time.
    Returns:
      a StableHLOProgram.
    Raises:
      SymhloError (torch.export failed), UnsupportedOpError, CompileError.
    """
    timer = StageTimer(verbose)
    names: dict[str, str] = {}
    if isinstance(model_or_ep, torch.export.ExportedProgram):
        ep = model_or_ep
        # The Dims the program was exported with, when given again, name its symbols.
        names = user_names(ep, dynamic_shapes) if dynamic_shapes is not None else {}
        # inputs= narrows the program's ranges (and may name its inputs and dims).
        return lower_exported_program(ep, names=names, timer=timer, narrow=inputs)
    if inputs is not None:
        args, dynamic_shapes, names = inputs_to_export_spec(inputs)
        params, where = forward_parameters(model_or_ep)
        args, kwargs, dynamic_shapes, inputs = bind_to_parameters(inputs, args, dynamic_shapes, params,
                                                                  kwargs, where)
    if args is None:
        raise SymhloError("export needs example args (or inputs=[symhlo.Input(...)])")
    relations: list[str] = []
    ranges: dict = {}
    with timer.stage(Stage.EXPORT):
        if inputs is None:
            ep = _export_module(model_or_ep, args, kwargs, dynamic_shapes)
        else:
            ep, auto_names, relations, ranges = _export_over_input_ranges(
                model_or_ep, args, kwargs, dynamic_shapes, inputs)
            names = {**names, **auto_names}
    names = {**user_names(ep, dynamic_shapes, args, kwargs), **names}
    return lower_exported_program(ep, names=names, timer=timer, input_names=inputs,
                                  relations=relations, ranges=ranges)


def _export_over_input_ranges(model, args, kwargs, dynamic_shapes, inputs):
    """torch.export over symhlo.Input ranges: (ep, {symbol: name}, [relations to add],
    {symbol: range for the contract}).

    The Inputs' ranges are named Dims. Where torch.export refuses a Dim because it cannot prove
    a guard over the Dim's range (`Constraints violated (past)!`: GQA's key repeat guards
    `Min(64*p + 64, 128*p + 128) == 64*p + 64`, true for every p >= 0), the export is retried
    with those Dims as `Dim.AUTO` of the same range, and kept only if symhlo proves what
    torch.export could not: the axes stay free sizes over the whole range and every guard left
    holds for every size in it (check_auto_dims); the call checks still enforce the guards.
    Otherwise torch.export's own error is raised, with why the retry did not serve.
    """
    try:
        return _export_module(model, args, kwargs, dynamic_shapes), {}, [], {}
    except SymhloError as e:
        violated = violated_dim_names(str(e))
        if not violated:
            raise
        first = e
    try:
        ep = _export_module(model, args, kwargs, with_auto_dims(dynamic_shapes, violated))
        auto_names, ties, ranges = check_auto_dims(from_exported_program(ep), inputs, violated)
    except (SymhloError, ValueError) as e:
        raise SymhloError(f"{first}\nsymhlo exported {', '.join(sorted(violated))} with "
                          f"Dim.AUTO over the same range instead, which does not serve it: {e}") from first
    return ep, auto_names, ties, ranges


def narrow_program(prog: StableHLOProgram, inputs) -> StableHLOProgram:
    """`prog` with its ranges narrowed to `inputs` (symhlo.Input per tensor input), in @main's
    contract and in the returned program's checks (see inputs.narrow_to_inputs).

    Raises:
      ValueError: an Input that does not fit the program (count, rank, dtype, no common size).
    """
    def narrow(func) -> None:
        table = read_contract(func)
        narrow_to_inputs(table, inputs)
        write_contract(func, table, prog.symbols.signature or table.signature)

    return _edit_contract(prog, narrow)


def rename_inputs(prog: StableHLOProgram, names: Sequence[str]) -> StableHLOProgram:
    """`prog` with its tensor inputs named `names` (in @main's order) in @main's contract
    (symhlo.arg_names, see rename_contract) and so in every message of its checks."""
    return _edit_contract(prog, lambda func: rename_contract(func, {}, arg_names=list(names)))


def _edit_contract(prog: StableHLOProgram, edit: Callable) -> StableHLOProgram:
    """`prog` after `edit(@main)` changed its contract attributes; its symbols are read back from
    them (the live signature, with its pytree spec, and the shape assertions kept)."""
    from torch_mlir import ir
    from symhlo.passes.ir_util import new_context

    module = ir.Module.parse(prog.text, new_context())
    func = main_func(module)
    if func is None:
        raise CompileError("the module has no func.func @main")
    edit(func)
    contract = read_contract(func)
    contract.signature = prog.symbols.signature or contract.signature
    contract.assertions = list(getattr(prog.symbols, "assertions", []) or [])
    return StableHLOProgram(text=str(module), symbols=contract, exported_program=prog.exported_program,
                            times=dict(prog.times), in_spec=prog.in_spec, out_spec=prog.out_spec)


def restore_export_assumptions(ep) -> None:
    """Gives a deserialized program's shape env what torch.export's own had when it traced.

    torch.export traces with every backed size >= 2 (its 0/1 specialization; the Dim range it
    reports may still start at 0 or 1) and records its input guards (`y <= x` from
    `y[:x.shape[0]]`) in the shape env. `torch.export.load` rebuilds the env from
    `range_constraints` alone, so the retrace that decomposing does adds those guards anew
    (`Ne(s77, 1)`, `s77 <= s17`) and symhlo would take them for a decomposition's
    specialization. Here the env gets the >= 2 assumption for its sizes and the guards in
    `ep._guards_code` (which torch.export.save keeps; symhlo checks them at call time), exactly
    as a freshly exported program has them. Does nothing to a program traced in this process.
    """
    from torch.export.exported_program import _get_shape_env

    try:
        env = _get_shape_env(ep.graph_module)
    except Exception:
        return
    if env is None or getattr(env, "var_to_sources", None) or hasattr(env, "_symhlo_guards_before_decomposing"):
        return  # traced here (sources are set by tracing), or already seen by symhlo
    import sympy
    from torch.fx.experimental.symbolic_shapes import ShapeGuard
    from torch.utils._sympy.value_ranges import ValueRanges

    # torch.export.load puts range_constraints' derived-dim keys (`2*s77`) into the env's
    # var_to_range, which must hold symbols only: decomposing then fails in torch with
    # "expected sympy.Symbol". The derived range follows from its root's anyway.
    for key in [k for k in env.var_to_range if not isinstance(k, sympy.Symbol)]:
        del env.var_to_range[key]
    from torch.utils._sympy.symbol import SymT, symbol_is_type

    # Backed sizes only: an unbacked symbol (`u0`, the size a data-dependent op returns) was
    # never specialized for 0 / 1, and may be either.
    sizes = {s for s in ep.range_constraints if isinstance(s, sympy.Symbol)
             and not symbol_is_type(s, (SymT.UNBACKED_INT, SymT.UNBACKED_FLOAT))}
    for s in sizes:
        vr = env.var_to_range.get(s)
        if vr is not None and isinstance(vr.lower, sympy.Integer) and int(vr.lower) < 2 \
                and not (isinstance(vr.upper, sympy.Integer) and int(vr.upper) < 2):
            env.var_to_range[s] = ValueRanges(sympy.Integer(2), vr.upper)
    table = from_exported_program(ep)
    by_name = {str(s): s for s in sizes}
    ops = {"<=": sympy.Le, "<": sympy.Lt, ">=": sympy.Ge, ">": sympy.Gt, "==": sympy.Eq, "!=": sympy.Ne}
    for text in table.relations:  # data from the file: parsed, never evaluated
        m = re.fullmatch(r"(.+?)\s*(<=|>=|==|!=|<|>)\s*(.+)", text.strip())
        try:
            if not m:
                continue
            lhs, rhs = parse_shape_expr(m.group(1)), parse_shape_expr(m.group(3))
            back = {x: by_name[str(x)] for x in lhs.free_symbols | rhs.free_symbols}
            expr = ops[m.group(2)](lhs.xreplace(back), rhs.xreplace(back))
            env.guards.append(ShapeGuard(expr, None, False))
        except (ValueError, KeyError, TypeError):
            continue


def lower_exported_program(ep, *, names: dict[str, str] | None = None,
                           timer: StageTimer | None = None, input_names=None,
                           narrow=None, relations: Sequence[str] = (),
                           ranges: dict | None = None) -> StableHLOProgram:
    """ExportedProgram -> StableHLOProgram (import, torch backend, our passes).

    The call contract (the symbols' ranges from ep.range_constraints, narrowed by `narrow`; the
    input shapes, relations, the signature with kwarg names and constant arguments) is written
    onto @main right after import (contract.attributes.write_contract), so the passes fold by
    the ranges the call-time checks enforce; after them it gets the user's names
    (rename_contract) and the program's `symbols` are read back from there.

    Args:
      names: internal symbol -> the user's name (from dynamic_shapes or symhlo.Input).
      input_names: the symhlo.Inputs the module was exported from (they name its inputs).
      narrow: symhlo.Inputs whose ranges narrow an already exported program's.
      relations: more relations over ep's symbols for the call checks (axes symhlo.Inputs
        share a name whose symbols torch.export left apart).
      ranges: symbol -> (min, max) replacing ep's (a Dim.AUTO's min below 2 the Input gave).
    """
    # Deferred: torch-mlir's FX importer takes ~0.9 s to import, which `import symhlo` (and the
    # CLI's --help) need not pay before the first export.
    from .importer import import_exported_program

    timer = timer or StageTimer(False)
    symbols = from_exported_program(ep)
    symbols.names.update({**torch_debug_names(ep, symbols), **(names or {})})
    symbols.add_relations(relations)
    symbols.ranges.update(ranges or {})
    if input_names is not None:
        apply_input_names(symbols, input_names)  # Input(name=...) names the input in messages
    if narrow is not None:
        narrow_to_inputs(symbols, narrow)
    if symbols.unchecked_guards:
        raise UnsupportedOpError(
            f"torch.export guards the input sizes with {symbols.unchecked_guards[0]!r}, which "
            "symhlo cannot check at call time; the program would run unchecked where it fails. "
            "Give the axes fixed sizes or Dims whose ranges imply it")
    signature = signature_of(ep)
    with TORCH_LOCK:  # edits the program's shape env
        restore_export_assumptions(ep)
    non_tensor_outputs = [o for o in [n for n in ep.graph.nodes if n.op == "output"][0].args[0]
                          if not (hasattr(o, "meta") and isinstance(o.meta.get("val"), torch.Tensor))]
    if non_tensor_outputs:
        o = non_tensor_outputs[0]
        what, where = repr(o), "the program's outputs"
        if isinstance(o, torch.fx.Node):
            what = f"'{o.target}' (FX node '{o.name}')"
            where = node_source_line(o, where)
        raise UnsupportedOpError(
            f"unsupported op {what} at {where}: it returns a Python number (a non-tensor output, "
            "e.g. Tensor.item()); symhlo programs return tensors. Return the 0-d tensor instead")
    reject_data_dependent_ops(ep)
    reject_unimportable_nodes(ep)
    with timer.stage(Stage.IMPORT):
        try:
            with TORCH_LOCK:
                equalities: list[str] = []
                user = readable_names(symbols, symbols.names)
                module = import_exported_program(ep, relations=equalities, names=user)
                symbols.add_relations(equalities)
        except SymhloError:
            raise
        except Exception as e:
            raise CompileError(f"torch-mlir's FX importer failed: {type(e).__name__}: {e}") from e
        drop_constant_args(module, signature)
        write_contract(main_func(module), symbols, signature)
    try:
        with timer.stage(Stage.TORCH_BACKEND):
            run_pipeline(module, "symhlo-torch-to-torch-backend-pipeline")
        with timer.stage(Stage.STABLEHLO):
            run_pipeline(module, "symhlo-torch-backend-to-stablehlo-pipeline")
    except PipelineError as e:
        raise _classify(e, module) from e.__cause__
    func = main_func(module)
    rename_contract(func, user)
    contract = read_contract(func)
    contract.signature = signature  # the same, with the live pytree spec
    text = str(module)
    _check_outputs(ep, text, user)
    bump("exports")
    return StableHLOProgram(text=text, symbols=contract, exported_program=ep, times=timer.times,
                            in_spec=ep.call_spec.in_spec, out_spec=ep.call_spec.out_spec)


def program_from_mlir(text: str) -> StableHLOProgram:
    """A StableHLO module's text -> StableHLOProgram; its contract comes from @main's `symhlo.*`
    attributes (contract.attributes).

    Without them (StableHLO from another exporter), every `?` axis is its own unbounded symbol.
    """
    from torch_mlir import ir
    from symhlo.passes.ir_util import new_context

    ctx = new_context()
    module = ir.Module.parse(text, ctx)
    func = main_func(module)
    if func is None:
        raise CompileError("the module has no func.func @main")
    if import_foreign(module):  # another exporter's StableHLO: calls inlined, assertions -> checks
        text, func = module.operation.get_asm(enable_debug_info=True), main_func(module)  # keeps the input's lines
    symbols = read_contract(func)
    out_spec = None
    if symbols.signature is not None and symbols.signature.out_spec:
        try:
            out_spec = treespec_loads(symbols.signature.out_spec)
        except Exception as e:
            raise CompileError(f"@main: bad output spec in symhlo.signature: {e}") from None
    return StableHLOProgram(text=text, symbols=symbols,
                            in_spec=symbols.signature.spec() if symbols.signature else None,
                            out_spec=out_spec)
