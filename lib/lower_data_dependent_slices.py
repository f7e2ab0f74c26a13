"""symhlo-lower-data-dependent-slices: torch.aten.slice.Tensor whose bounds come from tensor data
(unbacked symbols: `n = k.item(); x[:n]`, the compaction in nonzero / unique / masked_select)
-> stablehlo.real_dynamic_slice with torch's clamping, computed from those values.

torch-mlir's StableHLO lowering of `aten.slice.Tensor` reads an end of 0 as "the whole axis"
(`end == 0 ? dim : end`), right for the constant `x[:0]` it folds away but wrong for a bound
known only at run time: `x[:n]` at n = 0 (a mask with no true element) returned every row. This
pass, on torch backend IR (before torch-backend-to-stablehlo-backend-pipeline), lowers a slice
whose start or end is data-dependent itself, with eager's rules: a negative bound counts from
the end, both are clamped to [0, size], and an end before the start gives an empty result. The
clamping also keeps the slice inside its operand whatever the data, so a bound that breaks a
`torch._check` (reported at call time by symhlo-lower-torch-runtime-asserts) never reads past
the buffer.

    %n = torch.aten.Int.Tensor %k : !torch.vtensor<[],si64> -> !torch.int
    %r = torch.aten.slice.Tensor %x, %int0, %int0, %n, %int1
           : !torch.vtensor<[?,4],f32>, ... -> !torch.vtensor<[?,4],f32>
  ==>
    %t = torch_c.to_builtin_tensor %x : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
    %e = torch_c.to_builtin_tensor (torch.prim.NumToTensor.Scalar %n) : tensor<i64>
    %size = stablehlo.get_dimension_size %t, dim = 0
    %e1 = clamp(0, e < 0 ? e + size : e, size)            (the start likewise; end >= start)
    %s = stablehlo.real_dynamic_slice %t, [start, 0], [end, 4], [1, 1]
           : (tensor<?x4xf32>, ...) -> tensor<?x4xf32>
    %r = torch_c.from_builtin_tensor %s

Slices whose bounds are constants or sizes are left to torch-mlir. A data-dependent slice with a
step other than 1 fails the pass, naming the op.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, builtin_type, replace_with_builtin
from .contract_attrs import UNBOUNDED
from .ir_util import defining_op, ensure_upstream_registered, is_dynamic, torch_constant
from .registry import Pass, PassFailure

# Ops that read a tensor's value into a `!torch.int`: the start of a data-dependent size.
DATA_TO_INT = {"torch.aten.Int.Tensor", "torch.aten.item", "torch.aten._local_scalar_dense"}


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def is_data_dependent(v: ir.Value, depth: int = 32) -> bool:
    """Whether the scalar `v` is computed from a tensor's values (through int arithmetic)."""
    seen: set = set()
    work = [(v, 0)]
    while work:
        value, d = work.pop()
        op = defining_op(value)
        if op is None or d > depth:
            continue
        if op.name in DATA_TO_INT:
            return True
        if op.results and any(str(r.type).startswith(("!torch.vtensor", "tensor<")) for r in op.results):
            continue  # a tensor op: its own sizes are not data
        key = id(op)
        if key in seen:
            continue
        seen.add(key)
        work.extend((o, d + 1) for o in op.operands)
    return False


def _bound(b: OpBuilder, v: ir.Value, default: int) -> ir.Value:
    """A slice bound (`!torch.int`, or `!torch.none` = `default`) as a 0-d i64 tensor."""
    if str(v.type) == "!torch.none":
        return b.hlo_scalar(default)
    c = torch_constant(v)
    if c is not None:
        return b.hlo_scalar(c)
    t = b.value("torch.prim.NumToTensor.Scalar", [ir.Type.parse("!torch.vtensor<[],si64>")], [v])
    return b.value("torch_c.to_builtin_tensor", [ir.RankedTensorType.get([], _i64())], [t])


def _normalize(b: OpBuilder, v: ir.Value, size: ir.Value) -> ir.Value:
    """torch's slice bound rule: v < 0 counts from the end; then clamped to [0, size]."""
    zero = b.hlo_scalar(0)
    wrapped = b.hlo_select(b.hlo_compare("LT", v, zero, "SIGNED"), b.hlo_binary("add", v, size), v)
    return b.hlo_binary("minimum", b.hlo_binary("maximum", wrapped, zero), size)


def convert_torch_aten_slice_data_dependent(op: ir.Operation) -> bool:
    """torch.aten.slice.Tensor with a data-dependent start or end -> stablehlo.real_dynamic_slice
    of the clamped bounds (an end of 0 is empty, not the whole axis)."""
    x, dim_v, start_v, end_v, step_v = op.operands
    if not any(str(v.type) == "!torch.int" and torch_constant(v) is None and is_data_dependent(v)
               for v in (start_v, end_v)):
        return False
    t, _ = builtin_type(x.type)
    result, _ = builtin_type(op.results[0].type)
    dim = torch_constant(dim_v)
    if dim is None or not is_dynamic(result.shape[dim]):
        return False  # torch.export gave the result a size of its own: not a data-dependent one
    step = torch_constant(step_v) if str(step_v.type) != "!torch.none" else 1
    if step != 1:
        raise PassFailure("torch.aten.slice.Tensor with a data-dependent bound needs a constant "
                          "dimension and step 1",
                          [(str(op.location), f"dimension {dim}, step {step}")])
    rank = t.rank
    axis = dim + rank if dim < 0 else dim
    b = OpBuilder(op)
    xt = b.value("torch_c.to_builtin_tensor", [t], [x])
    size = b.hlo_dim(xt, axis, shape=[])
    start = _normalize(b, _bound(b, start_v, 0), size)
    end = _normalize(b, _bound(b, end_v, UNBOUNDED), size)
    end = b.hlo_binary("maximum", end, start)
    as_1d = lambda s: b.hlo_reshape(s, [1])  # noqa: E731
    starts = b.hlo_concat([as_1d(start) if a == axis else b.hlo_const([0], _i64()) for a in range(rank)])
    limits = b.hlo_concat([as_1d(end) if a == axis else b.hlo_dim(xt, a) for a in range(rank)])
    strides = b.hlo_const([1] * rank, _i64())
    out = b.value("stablehlo.real_dynamic_slice", [result], [xt, starts, limits, strides])
    replace_with_builtin(op, [out])
    return True


PATTERNS = {"torch.aten.slice.Tensor": convert_torch_aten_slice_data_dependent}


@dataclass(frozen=True)
class LowerDataDependentSlices(Pass):
    """Lower slices whose bounds come from tensor data to a clamped stablehlo.real_dynamic_slice."""

    name = "symhlo-lower-data-dependent-slices"
    summary = ("torch.aten.slice.Tensor with a data-dependent bound -> stablehlo.real_dynamic_slice "
               "with torch's clamping (x[:n] at n = 0 is empty)")

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, PATTERNS)
