"""PyTorch's OpInfo database as a differential suite for symhlo, with dynamic dims.

For each op of `torch.testing._internal.common_methods_invocations.op_db` that supports float32 on
CPU (random ops and ops returning uninitialized memory excluded), a few float32 samples are run
as a new user would: every axis of size >= 2 exported as `Dim.AUTO`, compiled with
`symhlo.compile`, and compared with eager PyTorch at the sample's sizes and at a second size where
every dynamic symbol changes. Outputs must match in structure, shape, dtype (exactly) and value.
Where eager's float32 result is rounding noise (LU's pivots and `info` on a matrix singular in exact
arithmetic), a result that is eager's float64 answer passes (`matches_float64_eager`).

Each (op, sample) gets one class:
  PASS         matches eager at both sizes (or at the sample only, when no dim stayed dynamic)
  REFUSED      a typed symhlo error (SymhloError subclass) from export, compile or the call
  WRONG        runs, but the result differs from eager (value, shape, dtype or structure)
  CRASH        anything else: a raw exception, a segfault, a timeout (set by the driver, run.py)
  EXPORT_FAIL  torch.export itself fails on the sample (not symhlo's; out of the denominator)
An op's class is its worst sample's (CRASH > WRONG > REFUSED > PASS; EXPORT_FAIL only when every
sample fails to export).

This module runs in the worker processes (see run.py); it does not isolate crashes itself.
"""

from __future__ import annotations

import re
import traceback

import torch
import torch.utils._pytree as pytree

CLASSES = ("PASS", "REFUSED", "WRONG", "CRASH", "EXPORT_FAIL")
SEVERITY = {"EXPORT_FAIL": 0, "PASS": 1, "REFUSED": 2, "WRONG": 3, "CRASH": 4}
# The first sample plus up to 2 of other kinds (keyword options); OPINFO_MAX_SAMPLES overrides.
MAX_SAMPLES = int(__import__("os").environ.get("OPINFO_MAX_SAMPLES", "3"))

# Random ops and ops whose results are uninitialized memory have no eager reference to compare.
_RANDOM = re.compile(r"rand|dropout|normal|bernoulli|multinomial|uniform|poisson|exponential|fractional|"
                     r"cauchy|geometric|rrelu|log_normal")
_UNINITIALIZED = re.compile(r"(^|\.|_)empty($|_|\b)|new_empty|empty_strided|empty_permuted|"
                            r"empty_like")


def op_key(op) -> str:
    """The op's name in reports: `name` or `name.variant` (e.g. `max.reduction_with_dim`)."""
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def excluded(op) -> str | None:
    """Why an op is left out of the suite (None when it is in)."""
    key = op_key(op)
    if _RANDOM.search(key):
        return "random"
    if _UNINITIALIZED.search(key):
        return "uninitialized memory"
    if torch.float32 not in op.supported_dtypes("cpu"):
        return "no float32 on cpu"
    return None


def all_ops() -> dict:
    """op key -> OpInfo for every op in the suite (op_db order)."""
    from torch.testing._internal.common_methods_invocations import op_db

    return {op_key(op): op for op in op_db if excluded(op) is None}


def excluded_ops() -> dict[str, str]:
    """op key -> reason for the ops left out."""
    from torch.testing._internal.common_methods_invocations import op_db

    return {op_key(op): r for op in op_db if (r := excluded(op)) is not None}


def _kind(sample) -> tuple:
    """What makes two samples different in kind: their keyword names and option values (bools,
    strings, dtypes, None), and which positional arguments are tensors."""
    kw = []
    for k, v in sorted(sample.kwargs.items()):
        if isinstance(v, (bool, str, torch.dtype)) or v is None:
            kw.append((k, repr(v)))
        else:
            kw.append((k, type(v).__name__))
    pos = tuple(type(a).__name__ for a in sample.args)
    return tuple(kw), pos


def _has_dynamic_axis(sample) -> bool:
    leaves = pytree.tree_leaves((sample.input, tuple(sample.args), dict(sample.kwargs)))
    return any(isinstance(t, torch.Tensor) and any(n >= 2 for n in t.shape) for t in leaves)


def select_samples(op, limit: int = MAX_SAMPLES) -> list:
    """The op's first float32 CPU sample, then the first sample of each further kind (up to
    `limit` in all). A sample kind counts as new also when it is the first with an axis of size
    >= 2 (a 0-d or all-size-1 first sample exports fully static). Samples are drawn with a fixed
    seed, so runs are reproducible."""
    chosen, kinds, dynamic = [], set(), False
    torch.manual_seed(0)
    try:
        samples = op.sample_inputs("cpu", torch.float32, requires_grad=False)
        for s in samples:
            k = _kind(s)
            if k in kinds and (dynamic or not _has_dynamic_axis(s)):
                continue
            dynamic = dynamic or _has_dynamic_axis(s)
            kinds.add(k)
            chosen.append(s)
            if len(chosen) >= limit:
                break
    except Exception:
        if not chosen:
            raise
    return chosen


class OpModule(torch.nn.Module):
    """`op(sample.input, *sample.args, **sample.kwargs)` with the sample's tensors as inputs."""

    def __init__(self, fn, tree_spec, leaves, tensor_pos):
        super().__init__()
        self.fn, self.spec, self.leaves, self.tensor_pos = fn, tree_spec, leaves, tensor_pos

    def forward(self, *tensors):
        leaves = list(self.leaves)
        for pos, t in zip(self.tensor_pos, tensors):
            leaves[pos] = t
        inp, args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.fn(inp, *args, **kwargs)


def build(op, sample):
    """(module, example tensors, dynamic_shapes) for one sample."""
    leaves, spec = pytree.tree_flatten((sample.input, tuple(sample.args), dict(sample.kwargs)))
    tensor_pos = [k for k, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    tensors = tuple(leaves[k].detach().clone() for k in tensor_pos)
    module = OpModule(op.op, spec, [None if isinstance(x, torch.Tensor) else x for x in leaves],
                      tensor_pos)
    dyn = tuple({a: torch.export.Dim.AUTO for a, n in enumerate(t.shape) if n >= 2} or None
                for t in tensors)
    return module, tensors, (dyn,)  # forward(*tensors): one spec, for the varargs tuple


def _input_shapes(ep):
    """The symbolic shape (tuple of sympy exprs) of each user tensor input of an ExportedProgram."""
    from torch.export.graph_signature import InputKind

    user = {s.arg.name for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT}
    shapes = []
    for node in ep.graph.nodes:
        if node.op == "placeholder" and node.name in user:
            val = node.meta.get("val")
            if isinstance(val, torch.Tensor):
                shapes.append(tuple(d.node.expr if isinstance(d, torch.SymInt) else
                                    __import__("sympy").Integer(d) for d in val.shape))
    return shapes


def _grow(t: torch.Tensor, shape) -> torch.Tensor:
    """`t` resized to `shape` by repeating its own values (index i -> i mod n along each axis), so
    the values stay in the op's domain (positive, valid indices, ...)."""
    out = t
    for axis, (old, new) in enumerate(zip(t.shape, shape)):
        if old != new:
            idx = torch.arange(new) % max(old, 1)
            out = out.index_select(axis, idx)
    return out.clone()


def second_inputs(ep, tensors, check, eager) -> tuple[tuple | None, str]:
    """Inputs at a second size where every dynamic symbol changes: each symbol + d (d = 1, 2, 3,
    5), the first that the program's ranges, the compiled module's shape checks and eager
    itself accept (glu halves an axis, hsplit needs a multiple: eager raises at odd sizes).

    Returns:
      (inputs or None, a note: the symbol values used, or why there is no second size).
    """
    import sympy

    shapes = _input_shapes(ep)
    if len(shapes) != len(tensors):
        return None, "input count differs from the exported program's"
    hints: dict = {}
    for shape, t in zip(shapes, tensors):
        for expr, n in zip(shape, t.shape):
            if isinstance(expr, sympy.Symbol):
                hints[expr] = int(n)
    free = set().union(*[e.free_symbols for s in shapes for e in s]) if shapes else set()
    if not free:
        return None, "static (no dim stayed dynamic)"
    if not free <= set(hints):
        return None, f"symbols without a value in the sample: {sorted(map(str, free - set(hints)))}"
    ranges = ep.range_constraints
    last = "no candidate"
    for d in (1, 2, 3, 5):
        vals = {s: hints[s] + d for s in free}
        if any(s in ranges and not (ranges[s].lower <= v <= ranges[s].upper) for s, v in vals.items()):
            last = f"+{d} is outside the symbol ranges"
            continue
        new = tuple(_grow(t, [int(e.subs(vals)) for e in shape]) for shape, t in zip(shapes, tensors))
        try:
            check(*new)
        except Exception as e:  # ShapeError from the module's own checks
            last = f"+{d}: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
            continue
        try:
            expected = eager(*new)
        except Exception as e:
            last = f"+{d}: eager raises {type(e).__name__}: {str(e).splitlines()[0][:200]}"
            continue
        return (new, expected), ", ".join(f"{s}={v}" for s, v in sorted(vals.items(), key=str))
    return None, f"no second size accepted ({last})"


# Ops whose index output names one of several equal elements, which one eager leaves to
# libstdc++ (topk: partial_sort / nth_element; kthvalue: quickselect; median: nth_element; the
# unstable sort): op name -> (dim, keepdim) read from the sample's arguments. The second size
# repeats the sample's values (see _grow), so it always has such ties.
_TIE_INDEXED = {
    "topk": lambda a, kw: (a[1] if len(a) > 1 else kw.get("dim", -1), True),
    "kthvalue": lambda a, kw: (a[1] if len(a) > 1 else kw.get("dim", -1),
                               a[2] if len(a) > 2 else kw.get("keepdim", False)),
    "median": lambda a, kw: (a[0] if a else kw.get("dim"), a[1] if len(a) > 1 else kw.get("keepdim", False)),
    "nanmedian": lambda a, kw: (a[0] if a else kw.get("dim"), a[1] if len(a) > 1 else kw.get("keepdim", False)),
    "sort": lambda a, kw: (a[0] if a else kw.get("dim", -1), True),
    "argsort": lambda a, kw: (a[0] if a else kw.get("dim", -1), True),
}


# Ops whose outputs torch defines only up to signs (eigenvectors, singular vectors: LAPACK's
# choice): compared as OpInfo's own tests compare them, through the sample's
# output_process_fn_grad (|vectors|, U @ Vh, ...), on symhlo's and eager's outputs alike.
_SIGN_FREE = ("linalg.eigh", "linalg.svd", "svd")


def comparable(op, sample, out):
    """`out` as OpInfo compares it: through output_process_fn_grad for _SIGN_FREE ops."""
    if op.name in _SIGN_FREE and sample.output_process_fn_grad is not None:
        return sample.output_process_fn_grad(out)
    return out


def selection(op, sample, inputs) -> tuple | None:
    """(input, dim, keepdim) when `op`'s index output may pick any of equal elements, else None."""
    rule = _TIE_INDEXED.get(op.name)
    if rule is None or not inputs or not isinstance(sample.input, torch.Tensor):
        return None
    dim, keepdim = rule(tuple(sample.args), dict(sample.kwargs))
    if dim is None or (op.name in ("sort", "argsort") and sample.kwargs.get("stable")):
        return None
    return inputs[0], dim, keepdim


def same_selection(a: torch.Tensor, e: torch.Tensor, sel) -> bool:
    """Whether index tensors `a` and `e` pick the same values of the input along `dim` (ties
    taken in another order, or another of equal elements), NaN matching NaN, `a` naming no
    element twice. `sel` is (input, dim, keepdim). With no ties this holds only when the
    indices are equal. Shared with the size fuzzer (test/fuzz/size_fuzz.py)."""
    x, dim, keepdim = sel
    if x.dim() == 0 or a.shape != e.shape:
        return False
    dim = dim % x.dim()
    if not keepdim:
        a, e = a.unsqueeze(dim), e.unsqueeze(dim)
    if a.shape[dim] > 1 and bool((torch.sort(a, dim).values.diff(dim=dim) == 0).any()):
        return False
    try:
        va, ve = torch.take_along_dim(x, a, dim), torch.take_along_dim(x, e, dim)
    except (RuntimeError, IndexError):
        return False
    return bool(((va == ve) | (va.isnan() & ve.isnan())).all())


def compare(actual, expected, selection=None) -> str | None:
    """None when `actual` (symhlo's outputs) matches `expected` (eager's); else what differs.

    Dtypes must match exactly; floats within rtol 1e-3 and an absolute tolerance of 1e-4 times
    the largest magnitude in the expected tensor (at least 1e-4), NaN where eager has NaN. With
    `selection` (see `selection()`), an int64 index output may differ from eager's where both
    pick equal values of the input: eager's choice among ties is unspecified there.
    """
    exp_leaves, exp_spec = pytree.tree_flatten(expected)
    exp_t = [x for x in exp_leaves if isinstance(x, torch.Tensor)]
    act_leaves, _ = pytree.tree_flatten(actual)
    act_t = [x for x in act_leaves if isinstance(x, torch.Tensor)]
    if len(exp_t) != len(act_t):
        return f"{len(act_t)} output tensors, eager has {len(exp_t)}"
    for k, (a, e) in enumerate(zip(act_t, exp_t)):
        if a.dtype != e.dtype:
            return f"output {k}: dtype {a.dtype}, eager {e.dtype}"
        if tuple(a.shape) != tuple(e.shape):
            return f"output {k}: shape {tuple(a.shape)}, eager {tuple(e.shape)}"
        if e.numel() == 0:
            continue
        if e.is_floating_point() or e.is_complex():
            finite = e[torch.isfinite(e)]
            scale = float(finite.abs().max()) if finite.numel() else 1.0
            atol = 1e-4 * max(1.0, scale)
            try:
                torch.testing.assert_close(a, e, rtol=1e-3, atol=atol, equal_nan=True,
                                           check_device=False)
            except AssertionError as err:
                return f"output {k}: " + " ".join(str(err).split())[:300]
        elif not torch.equal(a, e):
            if selection is not None and e.dtype == torch.int64 and same_selection(a, e, selection):
                continue
            bad = (a != e).sum().item()
            return f"output {k}: {bad} of {e.numel()} {e.dtype} elements differ"
    return None


def matches_float64_eager(module, inputs, actual, expected) -> bool:
    """Whether `actual` is the float64 answer where eager's float32 one is rounding noise: eager
    rerun on the inputs widened to float64 (float32 tensors only) agrees with `actual` -- integer
    and bool outputs exactly (pivot choices and LAPACK's `info` on a matrix that is singular in
    exact arithmetic: float32 LAPACK leaves a 1e-8 pivot where the exact one is 0), float outputs
    as close to that float64 truth as eager's own float32 result is (twice its error, plus the
    compare tolerance). When eager cannot run in float64 the mismatch stands."""
    try:
        wide = tuple(t.double() if t.dtype == torch.float32 else t for t in inputs)
        ref = module(*wide)
    except Exception:
        return False
    g_flat = [x for x in pytree.tree_leaves(actual) if isinstance(x, torch.Tensor)]
    e_flat = [x for x in pytree.tree_leaves(expected) if isinstance(x, torch.Tensor)]
    r_flat = [x for x in pytree.tree_leaves(ref) if isinstance(x, torch.Tensor)]
    if not len(g_flat) == len(e_flat) == len(r_flat):
        return False
    for g, e, r in zip(g_flat, e_flat, r_flat):
        if g.dtype != e.dtype or g.shape != e.shape or r.shape != e.shape:
            return False
        if not e.is_floating_point():
            if not torch.equal(g, r.to(g.dtype)):
                return False
            continue
        r = r.double()
        finite = torch.isfinite(r)
        if not torch.equal(finite, torch.isfinite(g.double())):
            return False
        scale = float(r[finite].abs().max()) if bool(finite.any()) else 1.0
        err = (g.double() - r).abs()[finite]
        allowed = 2 * (e.double() - r).abs()[finite] + 1e-4 * max(1.0, scale) + 1e-3 * r.abs()[finite]
        if bool((err > allowed).any()):
            return False
    return True


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return (text.splitlines()[0] if text else "")[:400]


def _refusal(e) -> dict:
    """The refused op and whether the error's headline (its first line: what the user reads;
    torch-mlir's cascade of follow-on diagnostics comes after it) names a source location."""
    text = str(e)
    m = re.search(r"unsupported op '([^']+)'", text)
    op = m.group(1) if m else None
    head = text.strip().splitlines()[0] if text.strip() else ""
    unlocated = bool(re.search(r"loc\(unknown\)|unknown location|unknown source line", head)) \
        or not re.search(r"\.py\"?:\d+|\.py\", line \d+|loc\(\"", head)
    return {"aten_op": op, "located": not unlocated}


def run_sample(op, sample) -> dict:
    """Runs one sample; returns {"class", "detail", ...} (never raises for symhlo's failures)."""
    import symhlo
    from symhlo.errors import SymhloError

    out = {"sample": _describe(sample)}
    module, tensors, dyn = build(op, sample)
    try:
        expected = module(*tensors)
    except Exception as e:
        return {**out, "class": "EXPORT_FAIL", "detail": f"eager failed: {type(e).__name__}: {_first_line(e)}"}
    try:
        ep = torch.export.export(module, tensors, dynamic_shapes=dyn)
    except Exception as e:
        return {**out, "class": "EXPORT_FAIL", "detail": f"{type(e).__name__}: {_first_line(e)}"}
    stage = "compile"
    try:
        cm = symhlo.compile(ep)
        stage = "call"
        got = cm(*tensors)
        diff = compare(comparable(op, sample, got), comparable(op, sample, expected),
                       selection(op, sample, tensors))
        if diff and matches_float64_eager(module, tensors, got, expected):
            out["float64"] = f"judged against float64 eager at the sample size ({diff[:120]})"
            diff = None
        if diff:
            return {**out, "class": "WRONG", "detail": f"at the sample size: {diff}"}
        stage = "second size"
        second, note = second_inputs(ep, tensors, cm.check, module)
        out["second"] = note
        if second is not None:
            stage = "call at the second size"
            new, expected2 = second
            got2 = cm(*new)
            diff = compare(comparable(op, sample, got2), comparable(op, sample, expected2),
                           selection(op, sample, new))
            if diff and matches_float64_eager(module, new, got2, expected2):
                out["float64"] = f"judged against float64 eager at the second size ({diff[:120]})"
                diff = None
            if diff:
                return {**out, "class": "WRONG", "detail": f"at the second size ({note}): {diff}"}
    except SymhloError as e:
        return {**out, "class": "REFUSED", "stage": stage, "error": type(e).__name__,
                "detail": _first_line(e), **_refusal(e)}
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)
        where = f"{tb[-1].filename}:{tb[-1].lineno}" if tb else "?"
        return {**out, "class": "CRASH", "stage": stage,
                "detail": f"{type(e).__name__}: {_first_line(e)} (at {where})"}
    return {**out, "class": "PASS"}


def _describe(sample) -> str:
    def fmt(x):
        if isinstance(x, torch.Tensor):
            return f"T{list(x.shape)}:{str(x.dtype)[6:]}"
        if isinstance(x, (list, tuple)):
            inner = ", ".join(fmt(y) for y in x)
            return f"[{inner}]" if isinstance(x, list) else f"({inner})"
        return repr(x)
    parts = [fmt(sample.input)] + [fmt(a) for a in sample.args] + \
        [f"{k}={fmt(v)}" for k, v in sample.kwargs.items()]
    return ", ".join(parts)[:300]


def run_op(op) -> dict:
    """Runs an op's selected samples; the op's class is its worst sample's."""
    try:
        samples = select_samples(op)
    except Exception as e:
        return {"class": "EXPORT_FAIL", "detail": f"sample_inputs failed: {type(e).__name__}: "
                f"{_first_line(e)}", "samples": []}
    if not samples:
        return {"class": "EXPORT_FAIL", "detail": "no float32 sample", "samples": []}
    results = []
    for s in samples:
        torch.manual_seed(0)
        results.append(run_sample(op, s))
    exported = [r for r in results if r["class"] != "EXPORT_FAIL"]
    worst = max(exported or results, key=lambda r: SEVERITY[r["class"]])
    return {"class": worst["class"], "detail": worst.get("detail", ""), "samples": results}
