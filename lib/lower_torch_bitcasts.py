"""symhlo-lower-torch-bitcasts: torch.aten.view.dtype of one bit width -> stablehlo.bitcast_convert.

convert-torch-to-stablehlo has no pattern for `aten.view.dtype` (reinterpreting a tensor's bits
as another dtype), which torch's own decompositions use (signbit) and which symhlo's exact
lowerings of copysign, signbit, frexp and nextafter need: float32 bits as int32 is the only way
to see a NaN's sign, or a subnormal that IREE's CPU arithmetic flushes to zero. Between element
types of the same width it is an elementwise bitcast, `?` dims and all:

    %int3 = torch.constant.int 3
    %y = torch.aten.view.dtype %x, %int3 : !torch.vtensor<[?],f32>, !torch.int -> !torch.vtensor<[?],si32>
  ==>
    %b = torch_c.to_builtin_tensor %x : !torch.vtensor<[?],f32> -> tensor<?xf32>
    %c = stablehlo.bitcast_convert %b : (tensor<?xf32>) -> tensor<?xi32>
    %y = torch_c.from_builtin_tensor %c : tensor<?xi32> -> !torch.vtensor<[?],si32>

Views between widths (f32 -> si8, which changes the last dim) are left alone, so the lowering
still fails on them by name. The pass runs on torch backend IR, right before
torch-backend-to-stablehlo-backend-pipeline, whose type finalization folds the casts away.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder, apply_patterns, vtensor_builtin_type, vtensor_sizes_and_dtype
from .ir_util import ensure_upstream_registered
from .registry import Pass

_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "si8": 8, "ui8": 8, "si16": 16,
          "si32": 32, "si64": 64, "i1": 1}


def _builtin(t: ir.Type) -> ir.Type | None:
    """`!torch.vtensor<[?,4],si32>` -> `tensor<?x4xi32>` (builtin tensors are signless)."""
    parts = vtensor_sizes_and_dtype(t)
    if parts is None or parts[1] not in _WIDTH:
        return None
    return vtensor_builtin_type(t)[0]


def _width(t: ir.Type) -> int | None:
    parts = vtensor_sizes_and_dtype(t)
    return _WIDTH.get(parts[1]) if parts is not None else None


def convert_torch_aten_view_dtype(op: ir.Operation) -> bool:
    """torch.aten.view.dtype (same element width) -> stablehlo.bitcast_convert. Returns whether
    it converted `op`."""
    x = op.operands[0]
    src, dst = _builtin(x.type), _builtin(op.results[0].type)
    w_src, w_dst = _width(x.type), _width(op.results[0].type)
    if src is None or dst is None or w_src != w_dst or w_src == 1:
        return False
    b = OpBuilder(op)
    t = b.value("torch_c.to_builtin_tensor", [src], [x])
    c = b.value("stablehlo.bitcast_convert", [dst], [t])
    y = b.value("torch_c.from_builtin_tensor", [op.results[0].type], [c])
    op.results[0].replace_all_uses_with(y)
    op.erase()
    return True


@dataclass(frozen=True)
class LowerTorchBitcasts(Pass):
    """Lower torch.aten.view.dtype between equal-width dtypes to stablehlo.bitcast_convert."""

    name = "symhlo-lower-torch-bitcasts"
    summary = "torch.aten.view.dtype (same element width) -> stablehlo.bitcast_convert"

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {"torch.aten.view.dtype": convert_torch_aten_view_dtype})
