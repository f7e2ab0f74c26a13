"""torch.export ExportedProgram -> torch dialect module, with symbolic shape expressions (floor 2,
frontend).

Wraps torch-mlir's FxImporter with `import_symbolic_shape_expressions=True`. torch-mlir 20261001
cannot translate torch's own sympy functions (`Mod`/`PythonMod`, `FloorDiv`, `CeilToInt`, `Max`)
into affine maps and aborts the whole import; symhlo teaches it the affine ones and, for the rest,
skips only that one tensor's `torch.bind_symbolic_shape` (the size arithmetic itself is imported
as ops either way, so nothing is lost but that one annotation).
"""

from __future__ import annotations

import warnings

import torch

from torch_mlir import ir
from torch_mlir.extras import fx_importer as _fxi
from torch_mlir.extras.fx_importer import FxImporter
from torch_mlir.extras.fx_decomp_util import get_decomposition_table

from symhlo.passes.ir_util import new_context

from ..contract.dims import from_exported_program
from ..errors import CompileError, SymhloError, UnsupportedOpError, source_line
from . import decompositions
from .control_flow import ControlFlowImporter, scan_length_relations
from .decompositions.basic import on_0d_as_1d
from .decompositions.complex_numbers import complex_decompositions, complex_first
from .refusals import (float_size_product, node_source_line, reject_decomposition_guards,
                       reject_unimportable_nodes)

_upstream_translate = _fxi.sympy_expr_to_semi_affine_expr


def _translate(expr, symbols_map):
    """sympy -> affine, adding torch's Mod/PythonMod/FloorDiv to what torch-mlir knows."""
    from torch_mlir.ir import AffineModExpr, AffineFloorDivExpr

    name = type(expr).__name__
    if name in ("Mod", "PythonMod") and len(expr.args) == 2:
        a, b = expr.args
        return AffineModExpr.get(_translate(a, symbols_map), _translate(b, symbols_map))
    if name == "FloorDiv" and len(expr.args) == 2:
        a, b = expr.args
        return AffineFloorDivExpr.get(_translate(a, symbols_map), _translate(b, symbols_map))
    if type(expr).__module__.startswith("sympy") and name in ("Add", "Mul", "Pow", "Symbol",
                                                              "Integer", "One", "Zero",
                                                              "NegativeOne"):
        import sympy
        # Recurse through our translator so nested torch functions are handled too.
        if isinstance(expr, sympy.Add):
            acc = _fxi.AffineConstantExpr.get(0)
            for arg in expr.args:
                acc = _fxi.AffineAddExpr.get(acc, _translate(arg, symbols_map))
            return acc
        if isinstance(expr, sympy.Mul):
            acc = _fxi.AffineConstantExpr.get(1)
            for arg in expr.args:
                acc = _fxi.AffineMulExpr.get(acc, _translate(arg, symbols_map))
            return acc
    return _upstream_translate(expr, symbols_map)


_fxi.sympy_expr_to_semi_affine_expr = _translate
_upstream_bind = _fxi.GraphNodeImporter._create_bind_symbolic_shape_ops


def _bind_or_skip(self, loc, node):
    try:
        return _upstream_bind(self, loc, node)
    except (NotImplementedError, KeyError, AssertionError, TypeError):
        return None  # untranslatable size expression: keep the ops, skip this annotation


_fxi.GraphNodeImporter._create_bind_symbolic_shape_ops = _bind_or_skip

# `max(s, 3)` / `min(h, 4)` on SymInts trace to torch.sym_max / sym_min, which the importer does
# not know; they are TorchScript's prim::max.int / prim::min.int (symhlo-torch-symbolic-to-shape
# lowers those).
for _py, _prim in ((torch.sym_max, torch.ops.prim.max.int), (torch.sym_min, torch.ops.prim.min.int)):
    if not _fxi._IS_TORCH_2_1_OR_EARLIER and _py not in _fxi.SYMBOLIC_OP_TO_TORCH_OP:
        _fxi.SYMBOLIC_OP_TO_TORCH_OP[_py] = _prim
        _fxi.SYMBOLIC_TORCH_OPS.add(_py)


def _shape_env_snapshot(ep):
    """(shape env, guard count, replacements, value ranges, export's guards) before decomposing."""
    from torch.export.exported_program import _get_shape_env

    env = _get_shape_env(ep.graph_module)
    if env is None:
        return None
    # The env is the ExportedProgram's own and keeps the guards of an earlier decomposition of
    # the same `ep` (a second symhlo.export / compile of it), which would then add none: check
    # from the count symhlo first saw, not from the current one.
    if not hasattr(env, "_symhlo_guards_before_decomposing"):
        env._symhlo_guards_before_decomposing = (len(env.guards), dict(env.replacements))
    n_guards, replacements = env._symhlo_guards_before_decomposing
    # torch.export's own guards (`n <= m` for `y[:x.shape[0]]`) are re-added when decomposing
    # retraces the graph: they are not the decomposition's doing.
    exported = {g.expr.xreplace(replacements) for g in env.guards[:n_guards]}
    # The Dim ranges as given (what symhlo's runtime accepts), not the shape env's: that one
    # assumes every backed size is >= 2 (torch's 0/1 specialization), a call with 1 is allowed.
    ranges = {**env.var_to_range, **ep.range_constraints}
    # torch.export's input guards as symhlo checks them at call time (symhlo.contract.dims
    # relations): sizes that break one never reach the program, so they are no counterexample to a
    # guard.
    premises = [(holds, syms) for _, holds, syms in from_exported_program(ep)._relation_checks]
    # backed_var_to_val: torch 2.13's name (var_to_val is its deprecated alias, a FutureWarning)
    hints = {str(s): int(v) for s, v in env.backed_var_to_val.items()
             if getattr(v, "is_Integer", False)}
    inputs = {sym for n in ep.graph.nodes if n.op == "placeholder"
              for v in [n.meta.get("val")] if isinstance(v, torch.Tensor)
              for d in v.shape if isinstance(d, torch.SymInt) for sym in d.node.expr.free_symbols}
    return env, n_guards, replacements, ranges, exported, premises, hints, inputs


# Where torch decides only a tensor's layout or storage, never a value: _prims_common's stride
# bookkeeping (`n == 1` axes and `numel < 2` tensors are contiguous whatever their strides),
# FunctionalTensor's wrapper and the fake constructors (the storage a size / stride list
# needs: `n - 2 != 0`). symhlo's IR is value-semantic and a size-1 axis is addressed the same
# under any stride, so such a guard cannot change what the program computes. (A guard that
# fixes a size, `n == 1` evaluated true, becomes a replacement and is still rejected.)
_LAYOUT_FRAMES = {
    "_prims_common/__init__.py": {"is_contiguous", "check_contiguous_sizes_strides",
                                  "is_channels_last_contiguous_2d",
                                  "is_channels_last_contiguous_3d", "is_non_overlapping_and_dense",
                                  "is_contiguous_for_memory_format",
                                  "is_contiguous_for_memory_format_or_false",
                                  # an elementwise output's stride order, a suggested memory format
                                  "compute_elementwise_output_logical_to_physical_perm",
                                  "should_swap", "ge", "are_strides_like_channels_last_or_false",
                                  "suggest_memory_format"},
    "_subclasses/functional_tensor.py": {"__new__"},
    "_subclasses/fake_impls.py": {"constructors"},
}
# The shape env's own frames between the deciding code and the new guard.
_GUARD_MACHINERY = ("fx/experimental/symbolic_shapes.py", "fx/experimental/sym_node.py",
                    "fx/experimental/recording.py", "torch/__init__.py")


def _decided_by_layout(stack) -> bool:
    """Whether the code that made a guard (the innermost frame outside the shape env, or the
    caller of a C++ op) is one of _LAYOUT_FRAMES."""
    frames = [f for f in stack if not f.filename.endswith(_GUARD_MACHINERY)]
    while frames and frames[-1].filename.endswith(("_ops.py", "importer.py")):
        frames.pop()
    if not frames:
        return False
    f = frames[-1]
    return any(f.filename.endswith(path) and f.name in names
               for path, names in _LAYOUT_FRAMES.items())


def _decomposition_failure(e: Exception) -> Exception:
    """An exception from retracing an op during run_decompositions -> UnsupportedOpError naming
    the op, its FX node and the model's source line (torch reports them in the message:
    "While executing %resize_as_ : ... target=torch.ops.aten.resize_as_.default ... Original
    traceback: File "m.py", line 12"); anything else is returned unchanged."""
    import re

    text = str(e)
    node = re.search(r"While executing %(\w+) : .*?target=(?:torch\.ops\.)?([\w.]+)", text)
    if node is None:
        return e
    where = source_line(text[node.end():])
    first = text.strip().splitlines()[0][:300]
    return UnsupportedOpError(f"unsupported op '{node.group(2)}' (FX node '{node.group(1)}') at "
                              f"{where}: torch failed to retrace it for decomposition: "
                              f"{type(e).__name__}: {first}")


class _GuardRecorder(list):
    """The shape env's guard list, noting which new guards only decide a layout, and which a
    decomposition stated as a precondition eager enforces (decompositions.views.require_sizes:
    `preconditions`, checked at call time)."""

    def __init__(self, guards):
        super().__init__(guards)
        self.layout_only: set[int] = set()
        self.preconditions: set[int] = set()

    def append(self, guard):
        import traceback

        if _decided_by_layout(traceback.extract_stack()[:-1]):
            self.layout_only.add(id(guard))
        super().append(guard)


def import_exported_program(ep: torch.export.ExportedProgram, *, func_name: str = "main",
                            relations: list | None = None,
                            names: dict[str, str] | None = None) -> ir.Module:
    """Imports `ep` (after core-ATen decompositions) as a torch-dialect module.

    Weights are imported as inline dense constants (not `dense_resource`), which the portable
    artifact accepts. `relations`, when given, receives the size equalities the decompositions
    rely on (over ep's internal symbols), which the caller must check at call time. `names`
    (internal symbol -> the user's name) words the errors.
    """
    snapshot = _shape_env_snapshot(ep)
    _drop_identity_resizes(ep)
    table = get_decomposition_table()
    ep = _run_decompositions(ep, complex_first({**table, **on_0d_as_1d(table),
                                                **decompositions.symhlo_decompositions()},
                                               complex_decompositions()))
    _drop_storage_offset_asserts(ep)
    _fold_strides_into_sizes(ep.graph_module)
    _fold_float_size_products(ep.graph_module)
    equalities = reject_decomposition_guards(ep, snapshot, names)
    # What decomposing introduced (a decomposition's float size arithmetic, `sym_float`):
    # refused naming the op here, not as the FX importer's NotImplementedError.
    reject_unimportable_nodes(ep)
    if equalities and relations is None:
        raise UnsupportedOpError(f"decomposing needs input sizes equal ({', '.join(equalities)}), "
                                 "and this caller cannot check that at call time")
    if relations is not None:
        relations.extend(equalities)
        relations.extend(scan_length_relations(ep))
    _copy_state_in_lists(ep)
    ctx = new_context()
    importer = FxImporter(context=ctx, graph_node_importer_cls=ControlFlowImporter)
    importer.import_frozen_program(_FrozenState(ep), func_name=func_name,
                                   import_symbolic_shape_expressions=True)
    _keep_user_outputs(importer.module, ep, func_name)
    return importer.module


def _run_decompositions(ep, table):
    """ep.run_decompositions(table) without re-evaluating torch.export's input guards.

    The retrace runs `ep.module()`, whose `_guards_fn` evaluates each of `ep._guards_code` as a
    Python bool. A guard over `max(0, min(n, m - 2))` (diagonal's length) then picks a side of the
    min (`m - 2 < n`, `m - 2 > 0`) and records that as a new guard, which
    reject_decomposition_guards must take for a specialization. The guards themselves are symhlo's
    call-time checks (symhlo.contract.dims relations, from the original program); the retrace only
    needs the graph.
    """
    from torch.export.exported_program import _get_shape_env

    saved = ep._guards_code
    ep._guards_code = []
    env = _get_shape_env(ep.graph_module)
    if env is not None and not isinstance(env.guards, _GuardRecorder):
        env.guards = _GuardRecorder(env.guards)   # kept: reject_decomposition_guards reads it
    validate = torch.export.ExportedProgram._validate

    def fill_then_validate(program):
        _fill_loop_placeholder_vals(program.graph_module)
        return validate(program)

    torch.export.ExportedProgram._validate = fill_then_validate
    try:
        with warnings.catch_warnings():  # under TORCH_LOCK: no other thread edits the filters
            # torch 2.13's run_decompositions deep-copies its own treespecs through a deprecated
            # isinstance check; nothing a user of symhlo can change.
            warnings.filterwarnings("ignore", r"`isinstance\(treespec, LeafSpec\)` is deprecated",
                                    FutureWarning)
            return ep.run_decompositions(table)
    except SymhloError:
        raise   # a decomposition's own refusal, with its message
    except Exception as e:
        raise _decomposition_failure(e) from e
    finally:
        torch.export.ExportedProgram._validate = validate
        ep._guards_code = saved


def _drop_identity_resizes(ep) -> None:
    """Replaces each in-place `aten.resize_as_(t, other)` / `aten.resize_(t, size)` whose target
    shape is t's own (for every size: `torch.resize_as_(x.clone(), y)` with y of x's shape) by
    `aten.clone(t)`, the same values. torch's retrace of these in-place ops for decomposing failed with an internal
    assert ("dispatch_on_subclass called with NO overloaded args"). A resize to another shape
    keeps part of the storage or exposes uninitialized memory, which a value-semantic program
    does not have: refused by name."""
    aten = torch.ops.aten
    graph = ep.graph
    changed = False
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target not in (aten.resize_as_.default,
                                                             aten.resize_.default):
            continue
        t, target = node.args[0], node.args[1]
        have = t.meta.get("val") if isinstance(t, torch.fx.Node) else None
        want = target.meta.get("val").shape if isinstance(target, torch.fx.Node) else target
        if not isinstance(have, torch.Tensor) or want is None:
            continue
        if not (len(have.shape) == len(want) and all(_known(a == b) for a, b in zip(have.shape, want))):
            raise UnsupportedOpError(
                f"unsupported op '{node.target}' (FX node '{node.name}') at "
                f"{node_source_line(node)}: a resize to another shape ({list(want)} from "
                f"{list(have.shape)}) keeps part of the storage or exposes uninitialized memory, "
                "which a value-semantic program does not have")
        # A clone keeps the node (its name may be a graph-signature output) and its meta.
        node.target, node.args, node.kwargs = aten.clone.default, (t,), {}
        changed = True
    if changed:
        graph.lint()
        ep.graph_module.recompile()


def _drop_storage_offset_asserts(ep) -> None:
    """Erases torch.export's runtime asserts on a view's storage offset (`x[k.item():]` asserts
    `sym_storage_offset(view) >= 0`), with the offset node itself. An offset is a layout fact,
    non-negative by construction; symhlo's IR is value-semantic and has no storage to offset
    into. An offset read by anything but such an assert is left (and refused by name)."""
    import operator

    graph = ep.graph
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not torch.ops.aten.sym_storage_offset.default:
            continue
        dead, ok = [], True
        for cmp in list(node.users):
            if cmp.target not in (operator.ge, operator.gt, operator.le, operator.lt, operator.eq):
                ok = False
                break
            if not all(u.target is torch.ops.aten._assert_scalar.default for u in cmp.users):
                ok = False
                break
            dead += list(cmp.users) + [cmp]
        if not ok:
            continue
        for n in dead + [node]:
            graph.erase_node(n)
    graph.lint()


def _fold_float_size_products(gm) -> None:
    """Rewrites each size computed in double arithmetic whose value is an integer expression
    for every size (refusals.float_size_product) as that integer expression:

        f = torch.sym_float(n); m = operator.mul(f, 1.7); k = math.trunc(m)
      ==>
        k = operator.floordiv(operator.mul(n, 17), 10)

    (F.interpolate's recompute_scale_factor output size; torch-mlir's FX importer cannot import
    sym_float.) The tensors sized by k keep their meta; their size annotation over the float
    expression is skipped by the importer (_bind_or_skip)."""
    import operator

    graph = gm.graph
    for node in list(graph.nodes):
        folded = float_size_product(node)
        if folded is None:
            continue
        n, p, q = folded
        with graph.inserting_before(node):
            mul = graph.call_function(operator.mul, (n, p))
            div = graph.call_function(operator.floordiv, (mul, q))
        mul.meta["val"] = n.meta["val"] * p
        div.meta["val"] = node.meta["val"]
        node.replace_all_uses_with(div)
        product = node.args[0]
        graph.erase_node(node)
        for dead in (product, *[a for a in product.args if isinstance(a, torch.fx.Node)]):
            if not dead.users:
                graph.erase_node(dead)
    graph.lint()


def _fold_strides_into_sizes(gm) -> None:
    """Rewrites each `aten.sym_stride.int(t, d)` (in the program and in its loop / branch
    graphs) as the product of the sizes of the axes laid out inside axis d, which is what the
    stride of t's fake tensor is:

        s = aten.sym_stride.int(t, 1)              t: f32[b, n, n], strides (n*n, n, 1)
      ==>
        s = aten.sym_size.int(t, 2)                (the product over the inner axes; 1 if none)

    Retracing a while_loop's graphs binds a size symbol (`n`) to whichever carried tensor's
    size or stride first holds it, so a decomposition's `a.shape[-1]` can come back as a
    stride, which torch-mlir has no lowering for (`torch.aten.stride.int`). symhlo's IR is
    value-semantic: a stride is only layout bookkeeping, and its value is the size product
    above. A stride that is not such a product (an expanded axis' 0, overlapping or padded
    layouts) is left, and refused by name."""
    import operator

    for sub in gm.children():
        if isinstance(sub, torch.fx.GraphModule):
            _fold_strides_into_sizes(sub)
    graph = gm.graph
    changed = False
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not torch.ops.aten.sym_stride.int:
            continue
        t, d = node.args
        fake = t.meta.get("val") if isinstance(t, torch.fx.Node) else None
        if not isinstance(fake, torch.Tensor) or not isinstance(d, int):
            continue
        sizes, strides = fake.shape, fake.stride()
        d = d % fake.dim()
        inner = sorted((k for k in range(fake.dim()) if k != d and _known(strides[k] < strides[d])),
                       key=lambda k: -k)
        product = 1
        for k in inner:
            product = product * sizes[k]
        if not _known(product == strides[d]):
            continue
        with graph.inserting_before(node):
            value = None
            for k in inner:
                size = graph.call_function(torch.ops.aten.sym_size.int, (t, k))
                size.meta["val"] = sizes[k]
                if value is None:
                    value = size
                else:
                    prev = value
                    value = graph.call_function(operator.mul, (prev, size))
                    value.meta["val"] = prev.meta["val"] * sizes[k]
        if value is None:
            value = 1
        for user in list(node.users):
            user.args = torch.fx.node.map_arg(user.args, lambda a: value if a is node else a)
            user.kwargs = torch.fx.node.map_arg(user.kwargs, lambda a: value if a is node else a)
        graph.erase_node(node)
        changed = True
    if changed:
        graph.lint()
        gm.recompile()


def _known(cond) -> bool:
    """A size comparison that holds for every size (a SymBool decided without a guard)."""
    if isinstance(cond, bool):
        return cond
    from torch.fx.experimental.symbolic_shapes import statically_known_true
    return statically_known_true(cond)


def _fill_loop_placeholder_vals(gm) -> None:
    """Gives each placeholder of a while_loop's cond / body graph the `val` of the operand it
    binds (carried values, then additional inputs), where retracing left it without one.

    When run_decompositions retraces a program whose decompositions make while loops (symhlo's
    linalg: several loops in one program, or a loop after another program's), some lifted size
    placeholders of the loop graphs come back without `val`, and torch.export's verifier
    refuses the program; their values are the loop node's operands'."""
    for node in gm.graph.nodes:
        if node.op != "call_function" or node.target is not torch.ops.higher_order.while_loop:
            continue
        operands = list(node.args[2]) + list(node.args[3])
        for ref in node.args[:2]:
            sub = getattr(gm, ref.target)
            _fill_loop_placeholder_vals(sub)
            holders = [n for n in sub.graph.nodes if n.op == "placeholder"]
            for ph, operand in zip(holders, operands):
                if "val" not in ph.meta:
                    ph.meta["val"] = operand.meta.get("val") if isinstance(operand, torch.fx.Node) \
                        else operand


def _copy_state_in_lists(ep) -> None:
    """A weight or buffer inside a list argument (Swin's `table[index_buffer]` is
    `aten.index.Tensor(param, [buffer])`) is read through an `aten.clone` node.

    import_frozen_program replaces each lifted placeholder by its tensor in every use, and its
    list import accepts only graph nodes as tensor elements ("Heterogeneous lists are not
    supported: expected vtensor, got torch.Tensor"); a clone stays a node (of the literal)."""
    sig = ep.graph_signature
    lifted = {**sig.inputs_to_parameters, **sig.inputs_to_buffers,
              **sig.inputs_to_lifted_tensor_constants}
    graph = ep.graph
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        for i, arg in enumerate(node.args):
            if not isinstance(arg, (list, tuple)):
                continue
            if not any(isinstance(a, torch.fx.Node) and a.op == "placeholder" and a.name in lifted
                       for a in arg):
                continue
            items = []
            for a in arg:
                if isinstance(a, torch.fx.Node) and a.op == "placeholder" and a.name in lifted:
                    with graph.inserting_before(node):
                        c = graph.call_function(torch.ops.aten.clone.default, (a,))
                    c.meta.update(a.meta)
                    a = c
                items.append(a)
            node.update_arg(i, type(arg)(items) if isinstance(arg, tuple) else items)


class _FrozenState:
    """`ep` as torch-mlir's `import_frozen_program` reads it, with every lifted value findable.

    The importer looks a buffer's value up in `ep.state_dict` only, but torch.export keeps a
    non-persistent buffer (`register_buffer(..., persistent=False)`: transformers' rotary
    `inv_freq`, BERT's `position_ids` and `token_type_ids`) in `ep.constants`, so every such
    model failed with "Could not find state mapping for buffer". Here `state_dict` also holds
    those buffers (from `ep.constants`, under the names the graph signature gives); everything
    else is `ep`'s own. A buffer found in neither raises CompileError naming it.
    """

    def __init__(self, ep):
        self._ep = ep
        state = dict(ep.state_dict)
        missing = []
        for name in ep.graph_signature.inputs_to_buffers.values():
            if name in state:
                continue
            if name in ep.constants:
                state[name] = ep.constants[name]
            else:
                missing.append(name)
        if missing:
            raise CompileError(f"buffers with no value in the exported program's state_dict or "
                               f"constants: {missing}")
        self.state_dict = state

    def __getattr__(self, name):
        return getattr(self._ep, name)


def _keep_user_outputs(module: ir.Module, ep: torch.export.ExportedProgram, func_name: str) -> None:
    """Drops the results that only carry buffer mutations (e.g. batch_norm's running stats in
    train mode): weights are frozen into the module, so those updates cannot persist, and the
    caller's outputs are the user outputs alone, in order."""
    from torch.export.graph_signature import OutputKind

    kinds = [spec.kind for spec in ep.graph_signature.output_specs]
    keep = [i for i, kind in enumerate(kinds) if kind == OutputKind.USER_OUTPUT]
    if len(keep) == len(kinds):
        return
    with module.context, ir.Location.unknown():
        for op in module.body.operations:
            func = op.operation
            if func.name != "func.func" or ir.StringAttr(func.attributes["sym_name"]).value != func_name:
                continue
            ret = func.regions[0].blocks[0].operations[len(func.regions[0].blocks[0].operations) - 1]
            ret = ret.operation
            values = [ret.operands[i] for i in keep]
            ir.Operation.create("func.return", operands=values, ip=ir.InsertionPoint(ret))
            ret.erase()
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            func.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(list(ftype.inputs), [v.type for v in values]))


def _make_inline_literal_op(tensor: torch.Tensor, vtensor_type, py_attr_tracker):
    """torch.vtensor.literal with an inline DenseElementsAttr (portable; no dense_resource).

    A complex tensor is a float literal of its real view (`[..., 2]`) under
    `torch.aten.view_as_complex`: the MLIR Python bindings cannot read a complex dense attribute
    (symhlo's passes would fail on it), and symhlo-lower-torch-complex lowers the view."""
    import numpy as np

    if tensor.is_complex():
        real = torch.view_as_real(tensor.detach().resolve_conj()).contiguous()
        text = str(vtensor_type)
        head, elt = text[:text.rindex("],")], text[text.rindex("],") + 2:-1]
        part = {"complex<f32>": "f32", "complex<f64>": "f64"}[elt]
        sizes = head[len("!torch.vtensor<["):]
        real_type = ir.Type.parse(f"!torch.vtensor<[{sizes + ',' if sizes else ''}2],{part}>")
        literal = _make_inline_literal_op(real, real_type, py_attr_tracker)
        return ir.Operation.create(name="torch.aten.view_as_complex", results=[vtensor_type],
                                   operands=[literal.result])

    mapping = py_attr_tracker.track(tensor)
    if mapping.is_empty:
        element_type = _fxi.TORCH_DTYPE_TO_MLIR_TYPE[tensor.dtype]()
        t = tensor.detach().cpu().contiguous()
        if t.dtype == torch.bfloat16:
            array = t.view(torch.int16).numpy()
        elif t.dtype == torch.bool:
            array = t.numpy().astype(np.bool_)
        else:
            array = t.numpy()
        # bf16 has no numpy dtype: its int16 bit patterns go in as raw 16-bit elements of type
        # bf16 (re-typing the printed i16 attribute read the patterns as integers, not floats).
        mapping.value = ir.DenseElementsAttr.get(array, type=element_type, shape=list(t.shape))
    return ir.Operation.create(name="torch.vtensor.literal", results=[vtensor_type],
                               attributes={"value": mapping.value})


_fxi._make_vtensor_literal_op = _make_inline_literal_op
