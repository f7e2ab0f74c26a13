"""Size facts of a StableHLO function read from its IR alone: what each `?` size is, as an expression.

Used where a module does not carry symhlo's contract attributes (StableHLO from jax.export,
torch_xla, a hand-written file): a rewrite that depends on two sizes being equal must prove it.

Sizes are size expressions over the function's argument sizes (lib/size_exprs.py: the one
grammar, builder `make` and evaluator).
"""

from __future__ import annotations

import json
from typing import Sequence

from torch_mlir import ir

from .contract_attrs import ARG_SHAPES, CONTRACT_ATTRS, SHAPE_ASSERTIONS
from .builder import (comparison_direction, dot_dimension_numbers, dot_result_axis,
                      gather_dimension_numbers, reassociation_groups)
from .ir_util import defining_op, enclosing_func, is_dynamic
from .size_exprs import Expr, key as _key, make

# Elementwise ops: the result has the operands' shape, and StableHLO requires the operands'
# shapes to be equal (a `?` never broadcasts in them).
ELEMENTWISE = frozenset(f"stablehlo.{n}" for n in (
    "abs add and atan2 cbrt ceil clamp compare convert cosine count_leading_zeros divide "
    "exponential exponential_minus_one floor imag is_finite log log_plus_one logistic maximum "
    "minimum multiply negate not or popcnt power real remainder round_nearest_afz "
    "round_nearest_even rsqrt select shift_left shift_right_arithmetic shift_right_logical sign "
    "sine sqrt subtract tan tanh xor bitcast_convert").split())

# Ops whose result k has the shape of operand k (StableHLO's shape rules).
_SHAPE_OF_INPUT = frozenset(f"stablehlo.{n}" for n in (
    "scatter sort reverse dynamic_update_slice reduce_precision").split())

_BINARY = {"stablehlo.add": "add", "stablehlo.subtract": "sub", "stablehlo.multiply": "mul",
           "stablehlo.divide": "div", "stablehlo.remainder": "rem", "stablehlo.maximum": "max",
           "stablehlo.minimum": "min", "stablehlo.and": "and", "stablehlo.or": "or",
           "stablehlo.xor": "xor"}
_UNARY = {"stablehlo.negate": "neg", "stablehlo.abs": "abs", "stablehlo.sign": "sign",
          "stablehlo.not": "not"}
_COMPARE = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge"}


class SizeFacts:
    """Sizes and integer scalars of one function's values, as expressions over its argument sizes.

    In a function symhlo exported from torch.export (it carries the contract attributes, see
    `has_symhlo_contract`), a `?` operand axis of `dynamic_broadcast_in_dim` never expands: its
    result axis has the operand's size. That is the fact prepare-for-iree hands IREE as
    `known_nonexpanding_dimensions`, and it identifies torch-mlir's broadcast size arithmetic
    (`a == 1 ? b : a`) with `a`.

    Args:
      func: the `func.func` whose block arguments are the leaves.
      contract: apply torch's contract (default: when `func` carries the contract attributes).
      gather_rows: also identify a gather's batch axes with its indices' axes. Only the matmul-row
        padding asks for it: handed to prepare-for-iree and the window lowerings, the extra
        equalities let IREE 3.13 form dispatches it cannot compile (max_pool with indices over
        `?` H/W: "failed to resolve workgroup count hint").
    """

    def __init__(self, func: ir.Operation, contract: bool | None = None, gather_rows: bool = False):
        self.func = func.operation
        self.gather_rows = gather_rows
        if contract is None:
            contract = any(a in self.func.attributes for a in CONTRACT_ATTRS)
        self.contract = contract
        self.args = list(self.func.regions[0].blocks[0].arguments)
        self._arg_index = {a: k for k, a in enumerate(self.args)}
        self._scalar: dict[ir.Value, Expr | None] = {}
        self._dims: dict[tuple[ir.Value, int], Expr] = {}
        self._opaque: dict[ir.Value, int] = {}
        self._parent: dict[str, str] = {}
        self._exprs: dict[str, Expr] = {}
        # Equalities StableHLO's op rules imply (elementwise operands, dot_general's contracting
        # and batch sizes): (a, b, op) for call-time checks where a and b are input sizes.
        self.implied: list[tuple[Expr, Expr, ir.Operation]] = []

    # -- equalities -------------------------------------------------------------------------------

    def _find(self, k: str) -> str:
        while self._parent.get(k, k) != k:
            k = self._parent[k]
        return k

    def assume_equal(self, a: Expr, b: Expr) -> None:
        """Records a == b (a fact the caller knows: a checked assertion, StableHLO's rules)."""
        ka, kb = self._find(_key(a)), self._find(_key(b))
        if ka != kb:
            # An integer class representative wins, so a size known constant reads as one.
            if isinstance(self._exprs.get(ka, a), int):
                ka, kb = kb, ka
            self._parent[ka] = kb
            self._exprs.setdefault(kb, b)

    def joined(self, k: str) -> bool:
        """An equality joined the class of key `k` to another size."""
        k = self._find(k)
        return any(self._find(m) == k for m in self._parent if m != k)

    def equal(self, a: Expr, b: Expr) -> bool:
        """True when a == b is proven (same expression, or joined by recorded equalities)."""
        if a is None or b is None:
            return False
        return self._find(_key(a)) == self._find(_key(b))

    # -- sizes -------------------------------------------------------------------------------------

    def dim(self, v: ir.Value, axis: int) -> Expr:
        """The size of `v` along `axis`."""
        t = ir.RankedTensorType(v.type)
        if not is_dynamic(t.shape[axis]):
            return int(t.shape[axis])
        key = (v, axis)
        if key not in self._dims:
            self._dims[key] = self._opaque_dim(v, axis)  # cycle guard
            self._dims[key] = self._compute_dim(v, axis)
        return self._dims[key]

    def _opaque_dim(self, v: ir.Value, axis: int) -> Expr:
        n = self._opaque.setdefault(v, len(self._opaque))
        return ["opaque", n, axis]

    def _compute_dim(self, v: ir.Value, axis: int) -> Expr:
        if v in self._arg_index:
            return ["dim", self._arg_index[v], axis]
        op = defining_op(v)
        if op is None:
            return self._opaque_dim(v, axis)
        name, ops = op.name, list(op.operands)
        dims_attr = lambda k: [int(x) for x in ir.DenseI64ArrayAttr(op.attributes[k])]  # noqa: E731
        if name in ELEMENTWISE:
            shaped = [o for o in ops if ir.RankedTensorType(o.type).rank == ir.RankedTensorType(v.type).rank]
            exprs = [self.dim(o, axis) for o in shaped]
            for e in exprs[1:]:
                self.assume_equal(exprs[0], e)  # StableHLO: elementwise operands have equal shapes
                self.implied.append((exprs[0], e, op))
            return exprs[0] if exprs else self._opaque_dim(v, axis)
        if name == "stablehlo.dynamic_broadcast_in_dim" and self.contract:
            bd = dims_attr("broadcast_dimensions")
            if axis in bd and is_dynamic(ir.RankedTensorType(ops[0].type).shape[bd.index(axis)]):
                e = self.dim(ops[0], bd.index(axis))
                vec = self.vector(ops[1])
                if vec is not None:
                    self.assume_equal(vec[axis], e)
                return e
        if name in ("stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_iota",
                    "stablehlo.dynamic_reshape"):
            vec = self.vector(ops[1] if name != "stablehlo.dynamic_iota" else ops[0])
            return vec[axis] if vec is not None else self._opaque_dim(v, axis)
        if name == "stablehlo.broadcast_in_dim":
            bd = dims_attr("broadcast_dimensions")
            if axis in bd:
                return self.dim(ops[0], bd.index(axis))
        if name == "stablehlo.transpose":
            return self.dim(ops[0], dims_attr("permutation")[axis])
        if name in _SHAPE_OF_INPUT:
            # result k has the shape of input k (scatter's and sort's inputs come first)
            k = next(i for i, r in enumerate(op.results) if r == v)
            return self.dim(ops[k], axis)
        if name == "stablehlo.reduce":
            n = len(op.results)
            reduced = set(dims_attr("dimensions"))
            kept = [d for d in range(ir.RankedTensorType(ops[0].type).rank) if d not in reduced]
            exprs = [self.dim(ops[k], kept[axis]) for k in range(n)]
            return exprs[0]
        if name == "stablehlo.concatenate":
            cat = ir.IntegerAttr(op.attributes["dimension"]).value
            if axis != cat:
                return self.dim(ops[0], axis)
            total: Expr = 0
            for o in ops:
                total = make("add", total, self.dim(o, axis))
            return total
        if name == "stablehlo.real_dynamic_slice":
            start, limit, stride = (self.vector(o) for o in ops[1:])
            if None not in (start, limit, stride):
                span = make("sub", limit[axis], start[axis])
                if stride[axis] == 1:
                    return span
                # ceil(span / stride) for span >= 0
                return make("div", make("add", span, make("sub", stride[axis], 1)), stride[axis])
        if name == "stablehlo.dot_general":
            nums = dot_dimension_numbers(op)
            pairs = list(zip(nums["lhs_batching_dimensions"], nums["rhs_batching_dimensions"])) + \
                list(zip(nums["lhs_contracting_dimensions"], nums["rhs_contracting_dimensions"]))
            for a, b in pairs:
                ea, eb = self.dim(ops[0], a), self.dim(ops[1], b)
                self.assume_equal(ea, eb)
                self.implied.append((ea, eb, op))
            src, d = dot_result_axis(op, axis)
            return self.dim(ops[src], d)
        if name == "stablehlo.gather" and self.gather_rows:
            # A result axis that is not a slice (offset) axis is an axis of the indices, in order,
            # without the index vector axis.
            g = gather_dimension_numbers(op.attributes["dimension_numbers"])
            offset = list(g["offset_dims"])
            if axis not in offset:
                ivd = int(g["index_vector_dim"])
                batch = [d for d in range(ir.RankedTensorType(ops[1].type).rank) if d != ivd]
                kept = [d for d in range(ir.RankedTensorType(v.type).rank) if d not in offset]
                if len(batch) == len(kept):
                    return self.dim(ops[1], batch[kept.index(axis)])
        if name == "stablehlo.pad":
            lo, hi, interior = (dims_attr(k)[axis] for k in ("edge_padding_low", "edge_padding_high",
                                                             "interior_padding"))
            n = self.dim(ops[0], axis)
            inner = make("mul", make("max", make("sub", n, 1), 0), interior)
            return make("add", make("add", n, inner), lo + hi)
        if name == "stablehlo.dynamic_pad":
            lo, hi, interior = (self.vector(o) for o in ops[2:5])
            if None not in (lo, hi, interior):
                n = self.dim(ops[0], axis)
                inner = make("mul", make("max", make("sub", n, 1), 0), interior[axis])
                return make("add", make("add", n, inner), make("add", lo[axis], hi[axis]))
        if name == "tensor.extract_slice":
            sizes = dims_attr("static_sizes")
            dyn = [k for k, n in enumerate(sizes) if is_dynamic(n)]
            counts = [int(x) for x in ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])]
            size_ops = ops[1 + counts[1]:1 + counts[1] + counts[2]]
            dropped = _dropped_unit_axes(sizes, ir.RankedTensorType(v.type).rank)
            if dropped is not None:
                axes = [k for k in range(len(sizes)) if k not in dropped]
                k = axes[axis]
                if not is_dynamic(sizes[k]):
                    return int(sizes[k])
                e = self.scalar(size_ops[dyn.index(k)])
                if e is not None:
                    return e
        if name == "tensor.insert_slice":
            return self.dim(ops[1], axis)
        if name == "tensor.empty":
            k = sum(1 for s in ir.RankedTensorType(v.type).shape[:axis] if is_dynamic(s))
            e = self.scalar(ops[k])
            if e is not None:
                return e
        if name == "tensor.expand_shape":
            out = dims_attr("static_output_shape")
            dyn = [k for k, n in enumerate(out) if is_dynamic(n)]
            e = self.scalar(ops[1 + dyn.index(axis)]) if axis in dyn else None
            if e is not None:
                return e
        if name == "tensor.collapse_shape":
            groups = reassociation_groups(op)
            total: Expr = 1
            for a in groups[axis]:
                total = make("mul", total, self.dim(ops[0], a))
            return total
        if name == "tensor.reshape":
            vec = self.vector(ops[1])
            if vec is not None:
                return vec[axis]
        if name == "scf.if" and len(op.regions) == 2 and op.regions[1].blocks:
            # both branches yield the same value; the else one of symhlo-block-attention-for-iree
            # is the original computation
            k = next(i for i, r in enumerate(op.results) if r == v)
            ops_ = list(op.regions[1].blocks[0].operations)
            return self.dim(ops_[-1].operands[k], axis)
        if name in ("tensor.cast", "stablehlo.optimization_barrier", "stablehlo.custom_call") \
                and len(ops) == 1:
            return self.dim(ops[0], axis)
        return self._opaque_dim(v, axis)

    # -- integer scalars and shape vectors -------------------------------------------------------

    def scalar(self, v: ir.Value) -> Expr | None:
        """The value of an integer (or boolean) 0-d or 1-element tensor, or None."""
        if v not in self._scalar:
            self._scalar[v] = None
            self._scalar[v] = self._compute_scalar(v)
        return self._scalar[v]

    def _compute_scalar(self, v: ir.Value) -> Expr | None:
        t = v.type
        if isinstance(t, (ir.IndexType, ir.IntegerType)):
            return self._compute_index(v)
        if not isinstance(t, ir.RankedTensorType):
            return None
        t = ir.RankedTensorType(t)
        if not isinstance(t.element_type, ir.IntegerType) or any(s != 1 for s in t.shape):
            return None
        op = defining_op(v)
        if op is None:
            return None
        name, ops = op.name, list(op.operands)
        if name == "stablehlo.get_dimension_size":
            return self.dim(ops[0], ir.IntegerAttr(op.attributes["dimension"]).value)
        if name in ("stablehlo.constant", "arith.constant"):
            attr = ir.DenseIntElementsAttr(op.attributes["value"])
            width = ir.IntegerType(t.element_type).width
            x = int(attr[0])
            return x & 1 if width == 1 else x
        if name in ("stablehlo.convert", "stablehlo.reshape", "stablehlo.broadcast_in_dim"):
            src = ir.RankedTensorType(ops[0].type)
            if not isinstance(src.element_type, ir.IntegerType):
                return None
            x = self.scalar(ops[0])
            if x is not None and ir.IntegerType(t.element_type).width == 1 \
                    and ir.IntegerType(src.element_type).width != 1:
                x = make("ne", x, 0)
            return x
        if name == "stablehlo.slice":
            vec = self.vector(ops[0])
            start = [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["start_indices"])]
            return vec[start[0]] if vec is not None and len(start) == 1 else None
        if name in _BINARY:
            a, b = self.scalar(ops[0]), self.scalar(ops[1])
            return None if a is None or b is None else make(_BINARY[name], a, b)
        if name in _UNARY:
            a = self.scalar(ops[0])
            return None if a is None else make(_UNARY[name], a)
        if name == "stablehlo.compare":
            a, b = self.scalar(ops[0]), self.scalar(ops[1])
            direction = comparison_direction(op)
            if a is None or b is None or direction not in _COMPARE:
                return None
            return make(_COMPARE[direction], a, b)
        if name == "stablehlo.select":
            c, a, b = (self.scalar(o) for o in ops)
            return None if None in (c, a, b) else make("select", c, a, b)
        if name == "stablehlo.clamp":
            lo, x, hi = (self.scalar(o) for o in ops)
            return None if None in (lo, x, hi) else make("min", make("max", x, lo), hi)
        return None

    def _compute_index(self, v: ir.Value) -> Expr | None:
        """An `index` or integer scalar (not a tensor) as the tensor ops of the IREE preparation
        build them: arith.index_cast of a tensor.extract at a constant position, tensor.dim,
        constants, integer arithmetic."""
        op = defining_op(v)
        if op is None:
            return None
        name, ops = op.name, list(op.operands)
        if name == "arith.constant":
            attr = op.attributes["value"]
            return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None
        if name in ("arith.index_cast", "arith.index_castui", "arith.extsi"):
            return self.scalar(ops[0])
        if name == "tensor.extract":
            src = ir.RankedTensorType(ops[0].type)
            if src.rank == 0:
                return self.scalar(ops[0])
            if src.rank != 1 or len(ops) != 2:
                return None
            pos = self.scalar(ops[1])
            vec = self.vector(ops[0])
            return vec[pos] if isinstance(pos, int) and vec is not None and 0 <= pos < len(vec) else None
        if name == "tensor.dim":
            axis = self.scalar(ops[1])
            return self.dim(ops[0], axis) if isinstance(axis, int) else None
        arith = {"arith.muli": "mul", "arith.addi": "add", "arith.subi": "sub",
                 "arith.maxsi": "max", "arith.minsi": "min"}
        if name in arith:
            a, b = self.scalar(ops[0]), self.scalar(ops[1])
            return None if a is None or b is None else make(arith[name], a, b)
        if name == "arith.select":  # torch-mlir's broadcast sizes: `a == 1 ? b : a`
            c, a, b = (self.scalar(o) for o in ops)
            return None if None in (c, a, b) else make("select", c, a, b)
        if name == "arith.cmpi":
            pred = {0: "eq", 1: "ne", 2: "lt", 3: "le", 4: "gt", 5: "ge"}.get(
                ir.IntegerAttr(op.attributes["predicate"]).value)
            a, b = self.scalar(ops[0]), self.scalar(ops[1])
            return None if None in (pred, a, b) else make(pred, a, b)
        return None

    def vector(self, v: ir.Value) -> list[Expr] | None:
        """The elements of a rank-1 integer or index tensor (a shape operand), or None."""
        t = ir.RankedTensorType(v.type)
        if t.rank != 1 or is_dynamic(t.shape[0]) or \
                not isinstance(t.element_type, (ir.IntegerType, ir.IndexType)):
            return None
        op = defining_op(v)
        if op is not None and op.name == "tensor.from_elements":  # the IREE preparation's shapes
            out = [self.scalar(o) for o in op.operands]
            return None if any(e is None for e in out) else out
        if t.shape[0] == 1:
            x = self.scalar(v)
            return None if x is None else [x]
        op = defining_op(v)
        if op is None:
            return None
        name, ops = op.name, list(op.operands)
        if name in ("stablehlo.constant", "arith.constant"):
            attr = ir.DenseIntElementsAttr(op.attributes["value"])
            return [int(attr[0])] * t.shape[0] if attr.is_splat else [int(x) for x in attr]
        if name == "stablehlo.concatenate":
            out: list[Expr] = []
            for o in ops:
                part = self.vector(o)
                if part is None:
                    return None
                out += part
            return out
        if name in ("stablehlo.convert", "stablehlo.reshape") and ir.RankedTensorType(ops[0].type).rank == 1:
            return self.vector(ops[0])
        if name == "stablehlo.slice":
            whole = self.vector(ops[0])
            start, limit, step = (ir.DenseI64ArrayAttr(op.attributes[k])[0]
                                  for k in ("start_indices", "limit_indices", "strides"))
            return None if whole is None else whole[start:limit:step]
        if name in _BINARY:
            a, b = self.vector(ops[0]), self.vector(ops[1])
            if a is None or b is None:
                return None
            return [make(_BINARY[name], x, y) for x, y in zip(a, b)]
        return None

    def matrix(self, v: ir.Value) -> list[list[Expr]] | None:
        """The rows of a rank-2 integer tensor (a padding operand, `Nx2`), or None."""
        t = ir.RankedTensorType(v.type)
        if t.rank != 2 or any(is_dynamic(s) for s in t.shape):
            return None
        op = defining_op(v)
        if op is None:
            return None
        rows, cols = t.shape
        if op.name in ("stablehlo.constant", "arith.constant"):
            attr = ir.DenseIntElementsAttr(op.attributes["value"])
            flat = [int(attr[0])] * (rows * cols) if attr.is_splat else [int(x) for x in attr]
            return [flat[r * cols:(r + 1) * cols] for r in range(rows)]
        if op.name == "stablehlo.reshape":
            flat = self.vector(op.operands[0])
            return None if flat is None else [flat[r * cols:(r + 1) * cols] for r in range(rows)]
        if op.name == "stablehlo.concatenate" and ir.IntegerAttr(op.attributes["dimension"]).value == 0:
            out = []
            for o in op.operands:
                part = self.matrix(o)
                if part is None:
                    return None
                out += part
            return out
        if op.name == "stablehlo.convert":
            return self.matrix(op.operands[0])
        return None


def _dropped_unit_axes(sizes: list[int], rank: int) -> set[int] | None:
    """The axes a rank-reducing tensor.extract_slice drops (static 1s, leading first), or None
    when that is ambiguous."""
    extra = len(sizes) - rank
    if extra == 0:
        return set()
    units = [k for k, n in enumerate(sizes) if n == 1]
    return set(units[:extra]) if len(units) == extra else None


def main_function(module: ir.Module) -> ir.Operation | None:
    """The module's `func.func @main` (or its only public function)."""
    funcs = [op.operation for op in module.body.operations if op.operation.name == "func.func"]
    for f in funcs:
        if ir.StringAttr(f.attributes["sym_name"]).value == "main":
            return f
    public = [f for f in funcs if "sym_visibility" not in f.attributes
              or ir.StringAttr(f.attributes["sym_visibility"]).value == "public"]
    return public[0] if len(public) == 1 else None


def has_symhlo_contract(module: ir.Module) -> bool:
    """True for modules symhlo exported from torch.export (they carry its contract attributes):
    a `?` axis there never broadcasts, sizes that meet were proven equal, and the runtime checks
    the inputs those proofs rest on. Other modules get only what their IR proves."""
    f = main_function(module)
    return f is not None and any(a in f.attributes for a in CONTRACT_ATTRS)


def recorded_assertions(func: ir.Operation) -> list[dict]:
    """The call-time checks symhlo-lower-shape-assertions recorded on `func` (decoded)."""
    if SHAPE_ASSERTIONS not in func.attributes:
        return []
    out = []
    for a in ir.ArrayAttr(func.attributes[SHAPE_ASSERTIONS]):
        d = ir.DictAttr(a)
        out.append({"cond": json.loads(ir.StringAttr(d["cond"]).value),
                    "args": json.loads(ir.StringAttr(d["args"]).value),
                    "message": ir.StringAttr(d["message"]).value})
    return out


def facts_for(func: ir.Operation, gather_rows: bool = False, shared_sizes: bool = False) -> SizeFacts:
    """SizeFacts of `func`, with the equalities its recorded call-time checks guarantee;
    `shared_sizes`: also the argument axes whose contract sizes (`symhlo.arg_shapes`) are the
    same expression, which symhlo's call checks enforce (one Dim shared between inputs)."""
    facts = SizeFacts(func, gather_rows=gather_rows)
    if shared_sizes and ARG_SHAPES in func.attributes:
        first: dict[str, Expr] = {}
        for k, shape in enumerate(ir.ArrayAttr(func.attributes[ARG_SHAPES])):
            for axis, size in enumerate(ir.ArrayAttr(shape)):
                name = ir.StringAttr(size).value
                if name.isdigit():
                    continue
                here = ["dim", k, axis]
                if name in first:
                    facts.assume_equal(first[name], here)
                else:
                    first[name] = here
    try:
        recorded = recorded_assertions(func)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        recorded = []  # malformed: no facts from it (program_from_mlir refuses such files)
    for a in recorded:
        cond = a["cond"]
        if isinstance(cond, list) and cond[0] == "eq":
            facts.assume_equal(cond[1], cond[2])
    return facts


def facts_by_function():
    """A function `facts_of(op)`: the SizeFacts of the func.func enclosing `op`, built once per
    function and kept. For a pass that reads the facts while it rewrites: only values its
    rewrites leave in place may be asked about."""
    cache: dict[str, SizeFacts] = {}

    def facts_of(op: ir.Operation) -> SizeFacts:
        func = enclosing_func(op)
        key = str(ir.StringAttr(func.attributes["sym_name"]).value)
        if key not in cache:
            cache[key] = SizeFacts(func)
        return cache[key]

    return facts_of


# -- reshapes as reassociations ------------------------------------------------------------------

Monomial = tuple  # (coefficient: int, atoms: tuple[str, ...] sorted, with repeats)


def monomial(facts: SizeFacts, e: Expr) -> Monomial | None:
    """`e` as coefficient * product of atoms, where an atom is the equality class of a size that
    is not a product (a leaf `dim`, an opaque size, a quotient, ...); None for a non-positive
    constant factor (a reshape with a 0 or negative extent is left to the general form)."""
    if e is None:
        return None
    if isinstance(e, int):
        return (e, ()) if e > 0 else None
    k = facts._find(_key(e))
    rep = facts._exprs.get(k)
    if isinstance(rep, int):
        return (rep, ()) if rep > 0 else None
    if e[0] == "mul":
        a, b = monomial(facts, e[1]), monomial(facts, e[2])
        if a is None or b is None:
            return None
        return (a[0] * b[0], tuple(sorted(a[1] + b[1])))
    if e[0] == "add" and not facts.joined(k):
        # like terms: x + x = 2x (torch.stack's concatenate of equal batches); a sum an equality
        # joined to other sizes stays that class's atom, as it was
        a, b = monomial(facts, e[1]), monomial(facts, e[2])
        if a is not None and b is not None and a[1] == b[1] and a[1]:
            return (a[0] + b[0], a[1])
    return (1, (k,))


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    return (a[0] * b[0], tuple(sorted(a[1] + b[1])))


def _mono_divides(a: Monomial, b: Monomial) -> bool:
    """a | b: a's coefficient divides b's and a's atoms are a sub-multiset of b's."""
    if b[0] % a[0]:
        return False
    rest = list(b[1])
    for atom in a[1]:
        if atom not in rest:
            return False
        rest.remove(atom)
    return True


def reassociation(facts: SizeFacts, src: Sequence[Expr], dst: Sequence[Expr]
                  ) -> list[tuple[list[int], list[int]]] | None:
    """Groups (source axes, result axes) of a row-major reshape from sizes `src` to sizes `dst`
    such that every group's sizes have provably equal products (as monomials over the size
    classes `facts` knows): the reshape then only merges and splits adjacent axes, i.e. it is a
    collapse_shape followed by an expand_shape. None when the facts do not prove it.

    Unit axes (size 1) join the group of the nearest non-unit axis before them (the first group
    when there is none). Every group has at least one axis on each side.
    """
    ms, md = [monomial(facts, e) for e in src], [monomial(facts, e) for e in dst]
    if None in ms or None in md:
        return None
    one = (1, ())
    a = [i for i, m in enumerate(ms) if m != one]
    b = [j for j, m in enumerate(md) if m != one]
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        gi, gj = [a[i]], [b[j]]
        pa, pb = ms[a[i]], md[b[j]]
        i, j = i + 1, j + 1
        while pa != pb:
            if _mono_divides(pa, pb) and i < len(a):
                pa = _mono_mul(pa, ms[a[i]])
                gi.append(a[i])
                i += 1
            elif _mono_divides(pb, pa) and j < len(b):
                pb = _mono_mul(pb, md[b[j]])
                gj.append(b[j])
                j += 1
            elif i < len(a):  # neither divides (2a, 3 -> 3a, 2): widen the group
                pa = _mono_mul(pa, ms[a[i]])
                gi.append(a[i])
                i += 1
            elif j < len(b):
                pb = _mono_mul(pb, md[b[j]])
                gj.append(b[j])
                j += 1
            else:
                return None
        groups.append((gi, gj))
    if i < len(a) or j < len(b):
        return None
    if not groups:  # every size is 1 on both sides: one group of everything
        if not src or not dst:
            return None
        return [(list(range(len(src))), list(range(len(dst))))]
    for side, n in ((0, len(src)), (1, len(dst))):
        for axis in range(n):
            if any(axis in g[side] for g in groups):
                continue
            before = [k for k, g in enumerate(groups) if g[side][0] < axis]
            groups[before[-1] if before else 0][side].append(axis)
    for g in groups:
        g[0].sort()
        g[1].sort()
    # Groups must be contiguous runs in order on both sides.
    for side in (0, 1):
        flat = [x for g in groups for x in g[side]]
        if flat != list(range(len(flat))) or any(g[side] != list(range(g[side][0], g[side][-1] + 1))
                                                 for g in groups):
            return None
    return groups
