"""symhlo-decompose-symbolic-torch-ops: torch ops whose size operands are symbolic -> ops torch-mlir lowers.

torch-mlir's convert-torch-to-stablehlo only legalizes some torch ops when their size operands are
constants: `aten.constant_pad_nd` with a pad amount computed from a symbolic size, and
`aten.split_with_sizes` split by sizes read off other tensors, stay illegal. This pass runs on the
imported torch IR (before symhlo-torch-symbolic-to-shape, which then lowers the `!torch.int`
arithmetic it emits) and rewrites them into slices, `full` and `cat`, which lower with `?` dims:

    %p = torch.prim.ListConstruct %int0, %n : (!torch.int, !torch.int) -> !torch.list<int>
    %y = torch.aten.constant_pad_nd %x, %p, %f0 : !torch.vtensor<[2,?],f32>, ... -> !torch.vtensor<[2,?],f32>
  ==>
    %s = torch.prim.ListConstruct %int2, %n : (!torch.int, !torch.int) -> !torch.list<int>
    %z = torch.aten.full %s, %f0, %int6, %none, %none, %none : ... -> !torch.vtensor<[2,?],f32>
    %l = torch.prim.ListConstruct %x, %z : ... -> !torch.list<vtensor>
    %y = torch.aten.cat %l, %int1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,?],f32>

    %parts = torch.aten.split_with_sizes %x, [%a, %b], %int1 ; %0:2 = torch.prim.ListUnpack %parts
  ==>
    %e = torch.aten.add.int %int0, %a
    %0 = torch.aten.slice.Tensor %x, %int1, %int0, %e, %int1
    %f = torch.aten.add.int %e, %b
    %1 = torch.aten.slice.Tensor %x, %int1, %e, %f, %int1

A symbolic pad amount that a small interval analysis over the `!torch.int` ops cannot prove
non-negative is handled as torch defines it (a negative amount crops): the tensor is padded by
`max(p, 0)` and then sliced by `max(-p, 0)`. Nothing is assumed about a size's value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from torch_mlir import ir

from .builder import (TorchBuilder, apply_patterns, torch_constant_int, vtensor_sizes_and_dtype,
                      vtensor_type)
from .contract_attrs import MAX_DIM_SIZE
from .ir_util import defining_op, ensure_upstream_registered, walk_ops
from .registry import Pass, PassFailure

_INF = float("inf")

# torch ScalarType codes for `aten.full`'s dtype operand.
_TORCH_DTYPE = {"f32": 6, "f64": 7, "f16": 5, "bf16": 15, "si64": 4, "si32": 3, "si16": 2,
                "si8": 1, "ui8": 0, "i1": 11}


def _vtensor_parts(t: ir.Type) -> tuple[list[int | None], str]:
    """`!torch.vtensor<[2,?],f32>` -> ([2, None], "f32")."""
    parts = vtensor_sizes_and_dtype(t)
    if parts is None:
        raise ValueError(f"not a ranked value tensor: {t}")
    return parts


_vtensor = vtensor_type
constant_int = torch_constant_int


_COMPARE = {"eq": lambda a, b: (a[0] == a[1] == b[0] == b[1], a[1] < b[0] or b[1] < a[0]),
            "ne": lambda a, b: (a[1] < b[0] or b[1] < a[0], a[0] == a[1] == b[0] == b[1]),
            "lt": lambda a, b: (a[1] < b[0], a[0] >= b[1]),
            "le": lambda a, b: (a[1] <= b[0], a[0] > b[1]),
            "gt": lambda a, b: (a[0] > b[1], a[1] <= b[0]),
            "ge": lambda a, b: (a[0] >= b[1], a[1] < b[0])}


def _mul(a: float, b: float) -> float:
    return 0 if a == 0 or b == 0 else a * b


def int_range(v: ir.Value, depth: int = 0) -> tuple[float, float]:
    """A conservative [lo, hi] of a `!torch.int` / `!torch.float` size value; (-inf, inf) if unknown.

    Sizes (`aten.size.int`) are >= 0 and symbols carry their ranges; `!torch.bool` comparisons
    give (1, 1) when provably true, (0, 0) when provably false.
    """
    c = constant_int(v)
    if c is not None:
        return (c, c)
    d = defining_op(v)
    if d is None or depth > 32:
        return (-_INF, _INF)
    name = d.name
    if name == "torch.operator":
        name = ir.StringAttr(d.attributes["name"]).value
    if name == "torch.constant.float":
        f = ir.FloatAttr(d.attributes["value"]).value
        return (f, f)
    if name in ("torch.aten.size.int", "torch.aten.sym_size.int"):
        return (0, _INF)
    if name == "torch.symbolic_int":
        return (ir.IntegerAttr(d.attributes["min_val"]).value,
                ir.IntegerAttr(d.attributes["max_val"]).value)
    args = [int_range(x, depth + 1) for x in d.operands
            if str(x.type) in ("!torch.int", "!torch.float")]
    if len(args) == 1 and name in ("torch.aten.Float.Scalar", "torch.aten.Int.float",
                                   "torch_c.from_i64", "torch.aten.Float.int"):
        return args[0] if name != "torch.aten.Int.float" else (
            -_INF if args[0][0] == -_INF else int(args[0][0]),
            _INF if args[0][1] == _INF else int(args[0][1]))
    if len(args) == 1 and name in ("torch.aten.neg.int", "torch.aten.neg.float"):
        (lo, hi), = args
        return (-hi, -lo)
    if len(args) != 2:
        return (-_INF, _INF)
    (alo, ahi), (blo, bhi) = args
    m = re.match(r"torch\.aten\.(eq|ne|lt|le|gt|ge)\.(int|float)$", name)
    if m:
        true, false = _COMPARE[m.group(1)](args[0], args[1])
        return (1, 1) if true else (0, 0) if false else (0, 1)
    name = re.sub(r"\.float$", ".int", name)
    if name in ("torch.aten.add.int", "torch.aten.add"):
        return (alo + blo, ahi + bhi)
    if name == "torch.aten.sub.int":
        return (alo - bhi, ahi - blo)
    if name == "torch.aten.mul.int" and alo >= 0 and blo >= 0:
        return (_mul(alo, blo), _mul(ahi, bhi))
    if name in ("torch.prim.max.int", "torch.aten.sym_max"):
        return (max(alo, blo), max(ahi, bhi))
    if name in ("torch.prim.min.int", "torch.aten.sym_min"):
        return (min(alo, blo), min(ahi, bhi))
    if name == "torch.aten.floordiv.int" and alo >= 0 and blo > 0 and blo == bhi:
        return (alo // blo, ahi // blo if ahi != _INF else _INF)
    if name == "torch.aten.remainder.int" and blo > 0:
        return (0, min(bhi - 1, ahi) if alo >= 0 else bhi - 1)
    if name == "torch.aten.fmod.int" and blo > 0 and alo >= 0:
        return (0, min(bhi - 1, ahi))
    return (-_INF, _INF)


def _nonneg_part(b: TorchBuilder, p: ir.Value) -> tuple[ir.Value | None, ir.Value | None]:
    """(amount to pad, amount to crop) for a pad amount `p`; None where provably zero."""
    c = constant_int(p)
    if c is not None:
        return (b.int(c) if c > 0 else None, b.int(-c) if c < 0 else None)
    lo, hi = int_range(p)
    if lo >= 0:
        return (p, None)
    if hi <= 0:
        return (None, b.int_op("torch.aten.neg.int", p))
    zero = b.int(0)
    return (b.int_op("torch.prim.max.int", p, zero),
            b.int_op("torch.prim.max.int", b.int_op("torch.aten.neg.int", p), zero))


def _list_elements(v: ir.Value) -> list[ir.Value] | None:
    d = defining_op(v)
    if d is None or d.name != "torch.prim.ListConstruct":
        return None
    return list(d.operands)


def convert_torch_aten_constant_pad_nd(op: ir.Operation) -> bool:
    """torch.aten.constant_pad_nd with symbolic amounts -> cat with `full` blocks, then slices."""
    x, pads_list, value = op.operands
    pads = _list_elements(pads_list)
    if pads is None or all(constant_int(p) is not None for p in pads):
        return False
    sizes, dtype = _vtensor_parts(x.type)
    if dtype not in _TORCH_DTYPE:
        raise PassFailure("constant_pad_nd with symbolic amounts on an unsupported dtype",
                          [(str(op.location), f"element type {dtype}")])
    b = TorchBuilder(op)
    rank = len(sizes)
    cur = x
    for i in range(len(pads) // 2):
        axis = rank - 1 - i
        (l_pad, l_crop), (r_pad, r_crop) = (_nonneg_part(b, pads[2 * i]),
                                            _nonneg_part(b, pads[2 * i + 1]))
        if l_pad is None and r_pad is None and l_crop is None and r_crop is None:
            continue
        cur_sizes, _ = _vtensor_parts(cur.type)
        grown = list(cur_sizes)
        grown[axis] = None
        if l_pad is not None or r_pad is not None:
            parts = []
            for amount in (l_pad, "body", r_pad):
                if amount is None:
                    continue
                if isinstance(amount, str):
                    parts.append(cur)
                    continue
                block = [amount if a == axis else b.size(cur, a) for a in range(rank)]
                block_sizes = list(cur_sizes)
                block_sizes[axis] = constant_int(amount)
                parts.append(b.create("torch.aten.full", [_vtensor(block_sizes, dtype)],
                                  [b.list(block, "int"), value, b.int(_TORCH_DTYPE[dtype]),
                                   b.none(), b.none(), b.none()]).result)
            cur = b.create("torch.aten.cat", [_vtensor(grown, dtype)],
                       [b.list(parts, "vtensor"), b.int(axis)]).result
        if l_crop is not None or r_crop is not None:
            start = l_crop if l_crop is not None else b.int(0)
            end = b.size(cur, axis)
            if r_crop is not None:
                end = b.int_op("torch.aten.sub.int", end, r_crop)
            cur = b.slice(cur, axis, start, end, _vtensor(grown, dtype))
    op.results[0].replace_all_uses_with(cur)
    op.erase()
    return True


def convert_torch_aten_split_with_sizes(op: ir.Operation) -> bool:
    """torch.aten.split_with_sizes (symbolic sizes) + prim.ListUnpack -> slices at running offsets."""
    x, sizes_list, dim = op.operands
    sizes = _list_elements(sizes_list)
    axis = constant_int(dim)
    users = [u.owner for u in op.results[0].uses]
    if (sizes is None or axis is None or all(constant_int(s) is not None for s in sizes)
            or len(users) != 1 or users[0].name != "torch.prim.ListUnpack"):
        return False
    unpack = users[0]
    b = TorchBuilder(op)
    rank = len(_vtensor_parts(x.type)[0])
    axis = axis + rank if axis < 0 else axis
    start = b.int(0)
    for size, res in zip(sizes, unpack.results):
        end = b.add(start, size)
        res.replace_all_uses_with(b.slice(x, axis, start, end, res.type))
        start = end
    unpack.erase()
    op.erase()
    return True


def dim_upper_bound(x: ir.Value, axis: int) -> int:
    """An upper bound of `x.shape[axis]`: static size, else from `torch.bind_symbolic_shape`.

    A bound expression that is a sum / product of symbols and non-negative constants is evaluated
    at the symbols' maxima; anything else (or no binding) is bounded by MAX_DIM_SIZE.
    """
    sizes, _ = _vtensor_parts(x.type)
    if sizes[axis] is not None:
        return sizes[axis]
    func = (x.owner.owner if isinstance(x.owner, ir.Block) else x.owner).operation
    while func.name != "func.func":
        func = func.parent.operation
    for op in walk_ops(func):
        if op.name != "torch.bind_symbolic_shape" or op.operands[0] != x:
            continue
        exprs = [str(e) for e in ir.AffineMapAttr(op.attributes["shape_expressions"]).value.results]
        if len(exprs) != len(sizes) or not re.fullmatch(r"[s\d\s+*]+", exprs[axis]):
            break
        maxima = []
        for sym in op.operands[1:]:
            d = defining_op(sym)
            if d is None or d.name != "torch.symbolic_int":
                return MAX_DIM_SIZE
            maxima.append(min(ir.IntegerAttr(d.attributes["max_val"]).value, MAX_DIM_SIZE))
        bound = eval(re.sub(r"s(\d+)", lambda m: str(maxima[int(m.group(1))]), exprs[axis]),
                     {"__builtins__": {}})
        return min(int(bound), MAX_DIM_SIZE)
    return MAX_DIM_SIZE


# Axis bound up to which cumsum is a masked sum over an n x n triangle (O(n^2) work and memory).
_TRIANGLE_MAX = 1024


def convert_torch_aten_cumsum(op: ir.Operation) -> bool:
    """torch.aten.cumsum along an axis of upper bound n_max -> exact ops with `?` sizes.

    n_max <= 1024 (its static size or its symbol's max): a masked sum over the triangle j <= i,
    O(n^2), no gather and no `cat`:

      %r = torch.aten.cumsum %x, %int1, %none : !torch.vtensor<[2,?],f32>, ... -> !torch.vtensor<[2,?],f32>
    ==>
      %i = torch.aten.arange %n ; %tri = torch.aten.le.Tensor (unsqueeze %i, 0), (unsqueeze %i, 1)
      %m = torch.aten.where.ScalarOther %tri, (torch.aten.unsqueeze %x, -2), 0    : [2,?,?]
      %r = torch.aten.sum.dim_IntList %m, [-1]                                    : [2,?]

    Larger or unbounded axes: a log-step (Hillis-Steele) scan, x += shift(x, k) for k = 1, 2,
    4, ... up to the bound (MAX_DIM_SIZE when unbounded), with shift(x, k) = `cat([zeros(min(k, n)),
    x])[:n]`, exact for any n (a shift by k >= n adds zeros), O(n log n_max); shift(x, 1) is
    `constant_pad_nd(x, 1 zero in front)[:n]`.

    Why two forms: IREE 3.13 fails to compile a `concatenate` along a `?` axis whose operand's
    dispatch holds a widening `convert` ("'memref.alloca' op stack allocation size overflows 64
    bits"): RoBERTa's position ids, `cumsum(mask.int(), 1)`, are i1 -> i32 -> i64 into the scan.
    Shifting by gathers instead compiles, but IREE fuses each gather's producer chain into it and
    compile time doubles per step (138 s CPU and 3 GB at n_max = 64); a `stablehlo.pad` + slice
    shift fails with "failed to resolve workgroup count hint". The triangle has neither problem.
    Over an unbounded or > 1024 axis, only the first shift's `cat` has the widened input itself as
    operand; padding it instead compiles (int32 -> int64 cumsum over max 10000 or unbounded axes).
    """
    x, dim, _dtype = op.operands
    axis = constant_int(dim)
    if axis is None:
        return False
    sizes, xdtype = _vtensor_parts(x.type)
    rsizes, rdtype = _vtensor_parts(op.results[0].type)
    if rdtype not in _TORCH_DTYPE:
        raise PassFailure("cumsum on an unsupported dtype", [(str(op.location), rdtype)])
    rank = len(sizes)
    axis = axis + rank if axis < 0 else axis
    bound = dim_upper_bound(x, axis)
    b = TorchBuilder(op)
    cur = x
    if xdtype != rdtype:
        false = b.bool(False)
        cur = b.create("torch.aten.to.dtype", [_vtensor(sizes, rdtype)],
                   [x, b.int(_TORCH_DTYPE[rdtype]), false, false, b.none()]).result
    if bound <= _TRIANGLE_MAX:
        cur = _cumsum_triangle(b, cur, axis, rank, sizes, rdtype)
    else:
        cur = _cumsum_scan(b, cur, axis, rank, sizes, rdtype, bound)
    op.results[0].replace_all_uses_with(cur)
    op.erase()
    return True


def _cumsum_triangle(b: TorchBuilder, cur: ir.Value, axis: int, rank: int, sizes, rdtype: str) -> ir.Value:
    n = sizes[axis]
    last = rank - 1
    if axis != last:
        t_sizes = list(sizes)
        t_sizes[axis], t_sizes[last] = t_sizes[last], t_sizes[axis]
        cur = b.create("torch.aten.transpose.int", [_vtensor(t_sizes, rdtype)],
                   [cur, b.int(axis), b.int(last)]).result
    lead, _ = _vtensor_parts(cur.type)
    lead = lead[:-1]
    iota = b.create("torch.aten.arange", [_vtensor([n], "si64")],
                [b.size(cur, last), b.int(_TORCH_DTYPE["si64"]), b.none(), b.none(),
                 b.none()]).result
    cols = b.create("torch.aten.unsqueeze", [_vtensor([1, n], "si64")], [iota, b.int(0)]).result
    rows = b.create("torch.aten.unsqueeze", [_vtensor([n, 1], "si64")], [iota, b.int(1)]).result
    tri = b.create("torch.aten.le.Tensor", [_vtensor([n, n], "i1")], [cols, rows]).result  # j <= i
    row = b.create("torch.aten.unsqueeze", [_vtensor(lead + [1, n], rdtype)],
               [cur, b.int(-2)]).result
    masked = b.create("torch.aten.where.ScalarOther", [_vtensor(lead + [n, n], rdtype)],
                  [tri, row, b.int(0)]).result
    false = b.bool(False)
    cur = b.create("torch.aten.sum.dim_IntList", [_vtensor(lead + [n], rdtype)],
               [masked, b.list([b.int(-1)], "int"), false, b.int(_TORCH_DTYPE[rdtype])]).result
    if axis != last:
        cur = b.create("torch.aten.transpose.int", [_vtensor(sizes, rdtype)],
                   [cur, b.int(axis), b.int(last)]).result
    return cur


def _cumsum_scan(b: TorchBuilder, cur: ir.Value, axis: int, rank: int, sizes, rdtype: str,
                 bound: int) -> ir.Value:
    n = sizes[axis]
    if bound > 1:
        # The first shift pads one zero in front (a static pad) instead of `cat`: IREE 3.13
        # failed on a `cat` along a `?` axis of the widened input itself (int32 cumsum to int64
        # over an axis of max 10000: "exceeded stack allocation limit ... 240064 bytes"; unbounded:
        # "stack allocation size overflows 64 bits"). The later shifts' `cat`s of sums compile.
        pads = [0] * (2 * (rank - axis))
        pads[-2] = 1   # torch's pad list runs from the last axis: (low, high) of `axis` is last
        grown = list(sizes)
        grown[axis] = None if n is None else n + 1
        padded = b.create("torch.aten.constant_pad_nd", [_vtensor(grown, rdtype)],
                          [cur, b.list([b.int(p) for p in pads], "int"), b.int(0)]).result
        shifted = b.slice(padded, axis, b.int(0), b.size(cur, axis), cur.type)
        cur = b.create("torch.aten.add.Tensor", [cur.type], [cur, shifted, b.int(1)]).result
    k = 2
    while k < bound:
        # The zeros block is min(k, n) long, never k: a static block of k = 2^30 elements (an
        # unbounded axis' last steps) was allocated at module load (RESOURCE_EXHAUSTED, Llama
        # with an unbounded sequence).
        if n is None:
            width = b.int_op("torch.prim.min.int", b.int(k), b.size(cur, axis))
        else:
            width = b.int(min(k, n))
        block = [width if a == axis else b.size(cur, a) for a in range(rank)]
        block_sizes = list(sizes)
        block_sizes[axis] = None if n is None else min(k, n)
        zeros = b.create("torch.aten.full", [_vtensor(block_sizes, rdtype)],
                     [b.list(block, "int"), b.int(0), b.int(_TORCH_DTYPE[rdtype]),
                      b.none(), b.none(), b.none()]).result
        grown = list(sizes)
        grown[axis] = None if n is None else n + min(k, n)
        cat = b.create("torch.aten.cat", [_vtensor(grown, rdtype)],
                   [b.list([zeros, cur], "vtensor"), b.int(axis)]).result
        shifted = b.slice(cat, axis, b.int(0), b.size(cur, axis), cur.type)
        cur = b.create("torch.aten.add.Tensor", [cur.type], [cur, shifted, b.int(1)]).result
        k *= 2
    return cur


def convert_torch_aten_upsample_nearest_vec(op: ir.Operation) -> bool:
    """torch.aten.upsample_nearest{1,2}d.vec by a scale factor -> an error naming the op.

    symhlo.frontend.decompositions lowers `size=`, integer scales, the fractional scales whose
    products round exactly (1.5, 1.7) and any scale on a static axis before import. What reaches
    this pass is another fractional scale on a `?` axis (0.7): torch sizes the output
    floor(n * 0.7) in double arithmetic, which no integer size arithmetic reproduces for every n
    (it is 62 at n = 90), and torch-mlir would leave an unlegalized `torch.constant.float` at an
    unknown location. The error names this op at its source line:

      %y = torch.aten.upsample_nearest2d.vec %x, %none, [0.7, 0.7] : !torch.vtensor<[?,3,?,9],f32>
    ==>
      error: failed to legalize operation 'torch.aten.upsample_nearest2d.vec' (scale factor 0.7)
    """
    scales = _list_elements(op.operands[2]) if len(op.operands) == 3 else None
    if not scales:
        return False
    values = []
    for v in scales:
        d = defining_op(v)
        values.append(ir.FloatAttr(d.attributes["value"]).value
                      if d is not None and d.name == "torch.constant.float" else "?")
    if all(isinstance(v, float) and v == int(v) for v in values):
        return False  # integer scales: left to torch-mlir as before
    shown = ", ".join(f"{v:g}" if isinstance(v, float) else v for v in values)
    raise PassFailure(
        f"failed to legalize operation '{op.name}': nearest interpolation by scale factor "
        f"{shown} on a dynamic axis (output size floor(n * scale) in double arithmetic); "
        "use size= or a scale whose products round exactly (an integer, a short binary "
        "fraction, 1.7)",
        [(str(op.location), f"unsupported scale factor {shown} on a `?` axis")])


PATTERNS = {
    "torch.aten.cumsum": convert_torch_aten_cumsum,
    "torch.aten.constant_pad_nd": convert_torch_aten_constant_pad_nd,
    "torch.aten.split_with_sizes": convert_torch_aten_split_with_sizes,
    "torch.aten.upsample_nearest1d.vec": convert_torch_aten_upsample_nearest_vec,
    "torch.aten.upsample_nearest2d.vec": convert_torch_aten_upsample_nearest_vec,
}


@dataclass(frozen=True)
class DecomposeSymbolicTorchOps(Pass):
    """Rewrite torch ops with symbolic size operands into slices, full and cat."""

    name = "symhlo-decompose-symbolic-torch-ops"
    summary = "constant_pad_nd / split_with_sizes with symbolic sizes -> slice, full, cat; cumsum -> masked triangle sum or shift-and-add scan"

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            # apply_patterns collects first: split's pattern erases the ListUnpack after its root.
            apply_patterns(module.operation, PATTERNS)
