"""The frontend's refusals (floor 2, frontend): checks that name an op and its source line
before a program that would be wrong, or that torch-mlir cannot import, is lowered.

Data-dependent sizes, element types StableHLO lacks, side effects, float size arithmetic
(reject_unimportable_nodes: run on the exported program and again after decomposing), and a
decomposition's guards that specialize a dynamic size (reject_decomposition_guards, which searches
for counterexample sizes within the Dim ranges).
"""

from __future__ import annotations

import itertools
import math
import operator
import random
import re

import sympy
import torch
from torch._ops import HigherOrderOperator

from symhlo.passes.contract_attrs import MAX_DIM_SIZE

from ..contract.dims import exact_condition, parse_relation
from ..errors import UnsupportedOpError, source_line
from .decompositions.basic import fraction


# Ops whose data-dependent output size symhlo computes from the data
# (symhlo.frontend.decompositions.data, symhlo-lower-data-dependent-slices).
DATA_DEPENDENT_OPS = {
    "aten.nonzero.default", "aten.argwhere.default", "aten.where.default",
    "aten.masked_select.default", "aten.index.Tensor", "aten._unique2.default",
    "aten.unique_consecutive.default", "aten.repeat_interleave.Tensor",
    "aten.repeat_interleave.self_Tensor", "aten.item.default", "aten._local_scalar_dense.default",
    "aten.nonzero_numpy.default", "aten.combinations.default",
    "aten.tensor_split.tensor_indices_or_sections",
    # a slice or narrow whose bound is such a value (`x[:k.item()]`)
    "aten.slice.Tensor", "aten.narrow.default",
}


def _unbacked(vals) -> set:
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

    out: set = set()
    for v in vals:
        if isinstance(v, (list, tuple)):
            out |= _unbacked(v)
        elif isinstance(v, (torch.Tensor, torch.SymInt, torch.SymBool)):
            out |= set(free_unbacked_symbols(v))
    return out


def reject_data_dependent_ops(ep) -> None:
    """Raises UnsupportedOpError for the first op that makes a data-dependent size (an unbacked
    symbol `u0` new in its output) and is not one symhlo computes from the data
    (DATA_DEPENDENT_OPS: nonzero, masks, unique, repeat_interleave, item), naming the op and its
    source line up front rather than failing later on an internal op torch-mlir decomposed it
    into. Ops that only carry such a size along (`f(x[idx])`) are fine.
    """
    for node in ep.graph.nodes:
        if node.op != "call_function":
            continue
        val = node.meta.get("val")
        vals = val if isinstance(val, (list, tuple)) else [val]
        if isinstance(node.target, HigherOrderOperator):
            # torch's while_loop gives its outputs a storage offset in the trip count (`u0`),
            # which value-semantic StableHLO has no use for: only sizes count.
            vals = [v.shape if isinstance(v, torch.Tensor) else v for v in vals]
        made = _unbacked(vals)
        if not made:
            continue
        inputs = [a.meta.get("val") for a in node.all_input_nodes]
        made -= _unbacked(inputs)
        if not made or str(node.target) in DATA_DEPENDENT_OPS:
            continue
        where = node_source_line(node, code=True)
        raise UnsupportedOpError(
            f"unsupported op '{node.target}' (FX node '{node.name}') at {where}: its output size "
            f"depends on tensor values (data-dependent size {val.shape if isinstance(val, torch.Tensor) else val}), "
            f"and symhlo computes such sizes only for {', '.join(sorted(o.split('.')[1] for o in DATA_DEPENDENT_OPS))}")


def node_source_line(node, default: str = "unknown source line", code: bool = False) -> str:
    """`file:line in fn` of the user's frame that made FX node `node` (errors.source_line of its
    stack_trace), with that line's code when `code`; `default` without a trace."""
    return source_line(node.meta.get("stack_trace"), default, code)


# Element types with no StableHLO counterpart (StableHLO's complex is complex<f32 | f64> only).
_NO_STABLEHLO_DTYPES = {
    torch.complex32: "complex32 (chalf): StableHLO has no complex<f16>",
    # torch-mlir's FX importer has no dtype code for these (it raised KeyError: torch.complex128)
    torch.complex128: "complex128 tensor, which torch-mlir's FX importer cannot import",
    torch.uint16: "uint16 tensor, which torch-mlir's FX importer cannot import",
    torch.uint64: "uint64 tensor, which torch-mlir's FX importer cannot import",
}


def reject_unsupported_dtypes(ep) -> None:
    """Raises UnsupportedOpError for the first op producing a tensor of an element type
    StableHLO cannot express, naming the op and its source line (torch-mlir emitted an invalid
    `stablehlo.convert` to `complex<f16>` instead)."""
    for node in ep.graph.nodes:
        val = node.meta.get("val")
        if node.op not in ("call_function", "placeholder") or not isinstance(val, torch.Tensor) \
                or val.dtype not in _NO_STABLEHLO_DTYPES:
            continue
        where = node_source_line(node, "the program's inputs" if node.op == "placeholder"
                                 else "unknown source line")
        raise UnsupportedOpError(
            f"unsupported op '{node.target}' (FX node '{node.name}') at {where}: it makes a "
            f"{_NO_STABLEHLO_DTYPES[val.dtype]}")


def reject_side_effects(ep) -> None:
    """Raises UnsupportedOpError for an op torch.export threads through a side effect
    (`with_effects`: a linalg error check `aten._linalg_check_errors` left by a composite symhlo
    does not decompose whole, `aten._print`,
    custom ops registered as effectful), naming it and its source line. torch-mlir's FX importer
    has no `with_effects` ("Higher-order operation 'with_effects' not implemented"), and a
    StableHLO program has no side effects to carry them."""
    for node in ep.graph.nodes:
        if node.op != "call_function" or node.target is not torch.ops.higher_order.with_effects:
            continue
        effect = node.args[1] if len(node.args) > 1 else node.target
        api = next((a for a in node.args[2:] if isinstance(a, str)), None) \
            if effect is torch.ops.aten._linalg_check_errors.default else None
        where = node_source_line(node)
        hint = (f" (the error check of {api}: its *_ex variant returns the `info` tensor "
                "instead of raising)") if api else ""
        raise UnsupportedOpError(
            f"unsupported op '{effect}' (FX node '{node.name}') at {where}: a side effect"
            f"{hint}, which a StableHLO program cannot carry")


_FLOAT_TO_INT = {math.trunc, math.floor, torch.sym_int}


def float_size_product(node) -> tuple | None:
    """(n, p, q) when the FX node `node` is `trunc(sym_float(n) * c)` (also floor, sym_int; c a
    constant on either side) whose value equals the integer `(n * p) // q` for every size
    n < 2**31 (decompositions.basic.fraction: 1.7 -> 17 / 10); else None.

    F.interpolate with recompute_scale_factor=True sizes its output so, in double arithmetic.
    """
    if node.op != "call_function" or node.target not in _FLOAT_TO_INT or len(node.args) != 1:
        return None
    mul = node.args[0]
    if not isinstance(mul, torch.fx.Node) or mul.target is not operator.mul or len(mul.args) != 2:
        return None
    a, b = mul.args
    f, c = (a, b) if isinstance(a, torch.fx.Node) else (b, a)
    if not isinstance(f, torch.fx.Node) or f.target is not torch.sym_float \
            or not isinstance(c, (int, float)) or isinstance(c, bool) or c <= 0:
        return None
    pq = fraction(float(c))
    return None if pq is None else (f.args[0], *pq)


def _foldable(sym_float_node) -> bool:
    """Whether every use of a sym_float node is a float_size_product (folded to integer size
    arithmetic by the importer)."""
    return all(u.target is operator.mul and u.users and
               all(float_size_product(t) is not None for t in u.users)
               for u in sym_float_node.users)


def reject_float_size_arithmetic(ep) -> None:
    """Raises UnsupportedOpError for size arithmetic in floating point in the user's graph
    (`math.floor(float(x.shape[2]) * 0.7)`, which F.interpolate with recompute_scale_factor
    traces as `trunc(sym_float(s) * 0.7)`), naming the node and its source line. The products
    whose floor is an integer expression for every size (`float_size_product`: scale 1.7, 0.5)
    are not refused: the importer folds them.

    torch computes them in double arithmetic, which for the other scales no integer size
    expression reproduces for every size (floor(90 * 0.7) is 62 in double), and torch-mlir's FX
    importer has no `sym_float` (it failed with NotImplementedError).
    """
    for node in ep.graph.nodes:
        if node.op != "call_function" or node.target is not torch.sym_float or _foldable(node):
            continue
        where = node_source_line(node)
        raise UnsupportedOpError(
            f"unsupported op 'sym_float' (FX node '{node.name}') at {where}: a `?` size used "
            "as a floating-point number (floor(n * 0.7) for interpolate's "
            "recompute_scale_factor, which torch evaluates in double arithmetic and no integer "
            "size arithmetic reproduces for every n); pass size= or a scale whose products "
            "round exactly (an integer, a short binary fraction, 1.7), or make that axis static")


# The higher-order ops symhlo imports (frontend.control_flow.ControlFlowImporter) and lowers
# to StableHLO control flow; `with_effects` has its own refusal.
LOWERED_HOPS = ("cond", "while_loop", "scan", "map_impl")
# Grad-mode and autocast regions (transformers' rotary embeddings run under @torch.no_grad():
# every decoder LLM exported with grad enabled has one) are inlined when the program is
# decomposed for import: no control flow to lower.
INLINED_HOPS = ("wrap_with_set_grad_enabled", "wrap_with_autocast")


def reject_unsupported_higher_order_ops(ep) -> None:
    """Raises UnsupportedOpError for a higher-order op (in the program or any branch / body
    graph) that symhlo does not lower to StableHLO control flow (`associative_scan`,
    `invoke_subgraph`, `flex_attention`, ...), naming it and its source line: torch-mlir's
    importer would stop with "Higher-order operation ... not implemented", or import it as an op
    no StableHLO lowering takes."""
    for gm in ep.graph_module.modules():
        if not isinstance(gm, torch.fx.GraphModule):
            continue
        for node in gm.graph.nodes:
            if node.op != "call_function" or not isinstance(node.target, HigherOrderOperator):
                continue
            name = node.target.name()
            if name in LOWERED_HOPS or name in INLINED_HOPS or name == "with_effects":
                continue
            raise UnsupportedOpError(
                f"unsupported op 'torch.ops.higher_order.{name}' (FX node '{node.name}') at "
                f"{node_source_line(node)}: symhlo lowers the higher-order ops "
                f"{', '.join(LOWERED_HOPS)} to StableHLO control flow, and no other")


def reject_unimportable_nodes(ep) -> None:
    """The refusals of nodes torch-mlir's FX importer cannot take (element types, float size
    arithmetic, side effects, higher-order ops other than LOWERED_HOPS), each naming the op and
    its source line. Run on the exported program (the user's op names) and again after
    decomposing (what decompositions add)."""
    reject_unsupported_dtypes(ep)
    reject_float_size_arithmetic(ep)
    reject_side_effects(ep)
    reject_unsupported_higher_order_ops(ep)


def counterexample(expr, ranges, premises=(), hints=None, limit: int = 4096) -> dict | None:
    """Sizes within `ranges` that satisfy every premise and at which the guard `expr` is false,
    or None if none were found.

    Candidates per symbol: its lower bound and the next 47 values, its upper bound and midpoint,
    powers of two up to the bound (MAX_DIM_SIZE when unbounded), and the example's size +- 3 (from
    `hints`). `premises` are (holds(values) -> bool, symbol names): torch.export's input guards,
    which the call-time checks enforce. The symbols of premises that share a symbol with `expr`
    join the search; a premise over one symbol first filters that symbol's candidates (so
    `h - 4 == 1` leaves h = 5 only). Then all combinations are tried when there are at most
    `limit`, else `limit` seeded random ones, skipping those that break a premise whose symbols
    are all assigned. A guard that fails none of these is taken as implied.
    """
    names = {str(s): s for s in expr.free_symbols}
    by_name = {str(s): s for s in ranges if isinstance(s, sympy.Symbol)}
    premises = list(premises)
    grown = True
    while grown and len(names) < 8:
        grown = False
        for _, syms in premises:
            if syms & set(names) and not syms <= set(names) and syms <= set(by_name) | set(names):
                for x in syms - set(names):
                    names[x] = by_name[x]
                grown = True
    syms = sorted(names.values(), key=str)
    candidates = []
    for sym in syms:
        vr = ranges.get(sym)
        lo = int(vr.lower) if vr is not None and isinstance(vr.lower, sympy.Integer) else 0
        hi = (min(int(vr.upper), MAX_DIM_SIZE) if vr is not None
              and isinstance(vr.upper, sympy.Integer) else MAX_DIM_SIZE)
        vals = set(range(lo, min(lo + 48, hi + 1))) | {hi, max(lo, hi - 1), (lo + hi) // 2}
        vals |= {2**k + d for k in range(6, 31) for d in (-1, 0, 1) if lo <= 2**k + d <= hi}
        h = (hints or {}).get(str(sym))
        if h is not None:
            vals |= {v for v in range(h - 3, h + 4) if lo <= v <= hi}
        unary = [holds for holds, ps in premises if ps == {str(sym)}]
        vals = [v for v in sorted(vals) if _holds_all(unary, {str(sym): v})]
        candidates.append(vals)
    total = 1
    for c in candidates:
        total *= len(c)
    if total == 0:
        return None   # no size passes the call-time checks: the guard is never reached
    if total <= limit:
        points = itertools.product(*candidates)
    else:
        rng = random.Random(0)
        points = (tuple(rng.choice(c) for c in candidates) for _ in range(limit))
    assigned = {str(s) for s in syms}
    checks = [holds for holds, ps in premises if ps <= assigned and len(ps) > 1]
    guard_syms = expr.free_symbols
    fast = exact_condition(expr)
    sym_names = [str(s) for s in syms]
    for point in points:
        env = dict(zip(sym_names, point))
        if not _holds_all(checks, env):
            continue
        try:
            if fast is not None:
                false = not fast(env)
            else:
                value = expr.xreplace({s: sympy.Integer(v) for s, v in zip(syms, point)
                                       if s in guard_syms})
                false = value in (sympy.false, False)
        except (ArithmeticError, TypeError, ValueError):   # Mod(2, Mod(h, 2)) at an even h
            continue
        if false:
            return {str(s): v for s, v in zip(syms, point) if s in guard_syms}
    return None


def _holds_all(checks, env: dict) -> bool:
    """Whether every relation check holds at `env` (one that cannot be evaluated there, e.g. a
    division by zero, counts as broken: the call-time check refuses such sizes too)."""
    for holds in checks:
        try:
            if not holds(env):
                return False
        except (ArithmeticError, TypeError, ValueError, KeyError):
            return False
    return True


def _checkable(expr) -> bool:
    """Whether a guard reads as a relation the call-time checks evaluate."""
    try:
        parse_relation(str(expr))
        return True
    except (ValueError, KeyError, TypeError):
        return False


def reject_decomposition_guards(ep, snapshot, user_names: dict[str, str] | None = None) -> list:
    """Raises UnsupportedOpError if decomposing specialized a dynamic size to the example's.
    Returns the equalities between input sizes that decomposing introduced (`s1 == s0`: a
    decomposition that needs two inputs' sizes equal, as eager does), as relations for the
    call-time checks.

    A decomposition that branches in Python on a SymInt (`if h % oh == 0`, `for i in
    range(h // oh + 1)`) adds a guard to the shape env. torch.export checked its own guards
    against the Dim ranges, but `run_decompositions` does not: it records the new ones only in
    `ep._guards_code`, which `ep.module()` asserts at call time and the FX importer drops. The
    imported graph is then valid only where the guards hold and computes wrong values (or reads
    clamped out-of-range gathers) everywhere else. torch's `_adaptive_avg_pool2d` decomposition
    did this on `?` H/W (kernel sizes and an unrolled window loop fixed to the example's).
    Allowed: guards torch.export itself recorded (re-added by the retrace), and guards the Dim
    ranges imply (proved by bound_sympy), or that no sizes break within the ranges and
    torch.export's own input guards (which the call-time checks enforce: `h - 3 != 1` and
    `h - 3 >= 1` make a contiguity check's `h - 3 > 1` hold). A guard a decomposition stated as
    a precondition that eager enforces (views.require_sizes: as_strided's last position within
    the source, where eager raises) is returned with the equalities, as a call-time check.
    The error names each guard, the
    decomposition's source line and sizes at which it fails, in `user_names` (internal symbol
    -> the user's Dim name) where given, else as `input.shape[axis]`.
    """
    if snapshot is None:
        return []
    from torch.utils._sympy.value_ranges import bound_sympy

    env, n_guards, replacements, ranges, exported, premises, hints, inputs = snapshot
    # Retracing gives a non-tensor input torch.export specialized (`k: int` = 3) a fresh symbol
    # and then guards it to the exported value (`Eq(s72, 3)`). That symbol is no input size: the
    # value is a constant of the program, which the call-time binding checks (ShapeError).
    sizes = {s for n in ep.graph.nodes if n.op == "placeholder"
             for v in [n.meta.get("val")] if isinstance(v, (torch.Tensor, torch.SymInt))
             for s in (v.shape if isinstance(v, torch.Tensor) else [v])
             if isinstance(s, torch.SymInt) for s in s.node.expr.free_symbols}
    sizes |= {s for s in ep.range_constraints if getattr(s, "is_Symbol", False)}
    constants = {s: v for s, v in env.replacements.items()
                 if s not in sizes and getattr(v, "is_number", False)}
    bad = []
    equalities = []
    layout_only = getattr(env.guards, "layout_only", set())
    preconditions = getattr(env.guards, "preconditions", set())
    for guard in env.guards[n_guards:]:
        if id(guard) in layout_only:
            continue
        expr = guard.expr.xreplace(replacements).xreplace(constants)
        if expr in exported or expr is True or getattr(expr, "is_Boolean", False) and bool(expr) is True:
            continue
        if not expr.free_symbols <= sizes:
            continue  # about a specialized non-tensor input only
        try:
            implied = bound_sympy(expr, ranges)
            if implied.lower == implied.upper and bool(implied.lower) is True:
                continue
        except Exception:
            pass
        if id(guard) in preconditions and _checkable(expr):
            equalities.append(str(expr))   # eager raises outside it: a call-time check
            continue
        # bound_sympy proves only what interval arithmetic shows; a guard it cannot prove (a
        # float identity between derived dims, `0.5*(2*h) + 1.0 == h + 1`) is rejected only when
        # some in-range sizes break it.
        witness = counterexample(expr, ranges, premises, hints)
        if witness is not None:
            bad.append((expr, guard.sloc, witness))
    for sym, value in env.replacements.items():
        if sym in ranges and sym not in constants and replacements.get(sym) != value:
            if not value.is_number and sym not in inputs and value.free_symbols <= inputs:
                # A symbol no input axis has (the retrace's own, for an intermediate size: sdpa's
                # mask broadcast) now written over input sizes: nothing about the inputs.
                continue
            if not value.is_number and sym in inputs and value.free_symbols <= inputs:
                # Two input sizes unified (select_scatter's src must have the selected slice's
                # shape; eager raises otherwise, torch.export's meta did not check): a rule on
                # the inputs, checked at call time like torch.export's own unifications.
                equalities.append(f"{sym} == {value}")
            else:
                bad.append((f"{sym} == {value}", None, None))
    if not bad:
        return equalities
    axes = {}  # internal symbol -> `input.shape[axis]` it binds
    for node in ep.graph.nodes:
        if node.op == "placeholder" and isinstance(node.meta.get("val"), torch.Tensor):
            for axis, size in enumerate(node.meta["val"].shape):
                if isinstance(size, torch.SymInt) and size.node.expr.is_Symbol:
                    axes.setdefault(str(size.node.expr), f"{node.name}.shape[{axis}]")
    names = {**axes, **(user_names or {})}
    used: dict[str, None] = {}

    def where(sloc) -> str:
        frame = getattr(sloc, "framework_loc", None)
        if frame is None:
            return ""
        if hasattr(frame, "filename"):
            return f" ({frame.filename.split('site-packages/')[-1]}:{frame.lineno} in {frame.name})"
        return f" ({frame})"

    from torch.utils._sympy.printers import PythonPrinter

    def rename(expr) -> str:
        if not isinstance(expr, str):
            try:
                expr = PythonPrinter().doprint(expr)
            except Exception:
                expr = str(expr)

        def one(m):
            used.setdefault(m.group(0))
            return names.get(m.group(0), m.group(0))
        return re.sub(r"\b[su]\d+\b", one, expr)

    def broken(witness) -> str:
        if not witness:
            return ""
        return ", false at " + ", ".join(f"{rename(k)} = {v}" for k, v in witness.items())

    lines = "; ".join(f"{rename(e)}{where(s)}{broken(w)}" for e, s, w in bad[:6])
    more = f" and {len(bad) - 6} more" if len(bad) > 6 else ""
    legend = ", ".join(f"{names[s]} is {axes[s]}" for s in used
                       if s in axes and names.get(s) != axes[s])
    more += f" [{legend}]" if legend else ""
    raise UnsupportedOpError(
        "a decomposition specialized dynamic sizes to the example's: the decomposed graph holds "
        f"only where {lines}{more}, which the Dim ranges do not imply, so the compiled program "
        "would compute wrong values at other sizes. Make those axes static, or give the op a "
        "size-generic decomposition in symhlo.frontend.decompositions")
