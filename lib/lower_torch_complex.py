"""symhlo-lower-torch-complex: the complex<->real primitives of torch IR -> stablehlo.complex /
real / imag.

convert-torch-to-stablehlo has no pattern for `aten.complex`, `aten.view_as_real` or
`aten.view_as_complex`. symhlo's frontend decomposes complex arithmetic into float parts
(frontend/decompositions/complex_numbers.py), which enter and leave through exactly these
ops; here they become StableHLO's elementwise complex ops, so complex inputs and outputs stay
`complex<f32>` in the artifact, `?` dims and all:

    %z = torch.aten.complex %re, %im : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>
                                       -> !torch.vtensor<[?,4],complex<f32>>
    (parts of compatible shapes: equal where both are static; stablehlo.complex takes them so)
  ==>
    %a = torch_c.to_builtin_tensor %re ...   %b = torch_c.to_builtin_tensor %im ...
    %c = stablehlo.complex %a, %b : tensor<?x4xcomplex<f32>>
    %z = torch_c.from_builtin_tensor %c ...

    %r = torch.aten.view_as_real %z : !torch.vtensor<[?,4],complex<f32>> -> !torch.vtensor<[?,4,2],f32>
  ==>
    re = stablehlo.real(z), im = stablehlo.imag(z) (or the parts of an `aten.complex` z),
    a user `squeeze.dim(slice.Tensor(r, -1, k, k + 1), -1)` (backend IR's r[..., k]) takes re / im
    directly; any other user gets
    torch.aten.cat([unsqueeze(re, -1), unsqueeze(im, -1)], -1)

    torch.aten.view_as_complex %x  ==>  complex(x[..., 0], x[..., 1])  (slice.Tensor + squeeze.dim)

The torch ops it creates (slice, squeeze, unsqueeze, cat) are lowered by convert-torch-to-stablehlo
after it. It runs on torch backend IR, right before torch-backend-to-stablehlo-backend-pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import (TorchBuilder, apply_patterns, torch_constant_int, vtensor_builtin_type,
                      vtensor_sizes_and_dtype, vtensor_type)
from .ir_util import defining_op, ensure_upstream_registered
from .registry import Pass

_PART = {"complex<f32>": "f32", "complex<f64>": "f64"}


def _part_type(t: ir.Type) -> ir.Type | None:
    """`!torch.vtensor<[?,4],complex<f32>>` -> `!torch.vtensor<[?,4],f32>`; None otherwise."""
    parts = vtensor_sizes_and_dtype(t)
    if parts is None or parts[1] not in _PART:
        return None
    return vtensor_type(parts[0], _PART[parts[1]])


def _hlo(b: TorchBuilder, name: str, result: ir.Type, operands: list[ir.Value]) -> ir.Value:
    """A stablehlo op on builtin tensors between torch_c casts: torch values in, one out."""
    builtins = [b.value("torch_c.to_builtin_tensor", [vtensor_builtin_type(v.type)[0]], [v])
                for v in operands]
    out = b.value(name, [vtensor_builtin_type(result)[0]], builtins)
    return b.value("torch_c.from_builtin_tensor", [result], [out])


def _compatible(a: ir.Type, b: ir.Type) -> bool:
    """Same rank and element type, sizes equal where both are static."""
    pa, pb = vtensor_sizes_and_dtype(a), vtensor_sizes_and_dtype(b)
    return pa is not None and pb is not None and pa[1] == pb[1] and len(pa[0]) == len(pb[0]) \
        and all(x is None or y is None or x == y for x, y in zip(pa[0], pb[0]))


def convert_torch_aten_complex(op: ir.Operation) -> bool:
    """torch.aten.complex (parts of compatible shapes) -> stablehlo.complex. Returns whether it
    converted `op`."""
    re, im = op.operands[0], op.operands[1]
    if not any(True for _ in op.results[0].uses):
        op.erase()   # its view_as_real users took the parts
        return True
    part = _part_type(op.results[0].type)
    if part is None or not (_compatible(re.type, part) and _compatible(im.type, part)):
        return False
    y = _hlo(TorchBuilder(op), "stablehlo.complex", op.results[0].type, [re, im])
    op.results[0].replace_all_uses_with(y)
    op.erase()
    return True


def _last_axis_part(user: ir.Operation, rank: int) -> tuple[int, ir.Operation] | None:
    """(k, squeeze) when `user` is `slice.Tensor(_, last axis, k, k + 1, 1)` (k in {0, 1}) whose
    one user is `squeeze.dim(_, last axis)`: torch backend IR's `select(_, -1, k)`; else None."""
    if user.name != "torch.aten.slice.Tensor":
        return None
    axis, start, end, step = (torch_constant_int(user.operands[i]) for i in (1, 2, 3, 4))
    if None in (axis, start, end, step) or axis % rank != rank - 1 or step != 1 \
            or start not in (0, 1) or end != start + 1:
        return None
    uses = list(user.results[0].uses)
    if len(uses) != 1 or uses[0].owner.name != "torch.aten.squeeze.dim":
        return None
    squeeze = uses[0].owner
    dim = torch_constant_int(squeeze.operands[1])
    if dim is None or dim % rank != rank - 1:
        return None
    return start, squeeze


def _select_last(b: TorchBuilder, x: ir.Value, k: int, part: ir.Type) -> ir.Value:
    """x[..., k] as torch backend IR spells it: slice.Tensor + squeeze.dim."""
    sizes, dtype = vtensor_sizes_and_dtype(x.type)
    axis = b.int(len(sizes) - 1)
    sliced = b.slice(x, len(sizes) - 1, b.int(k), b.int(k + 1), vtensor_type(sizes[:-1] + [1], dtype))
    return b.value("torch.aten.squeeze.dim", [part], [sliced, axis])


def convert_torch_aten_view_as_real(op: ir.Operation) -> bool:
    """torch.aten.view_as_real -> stablehlo.real/imag (the parts of an aten.complex operand
    directly); a last-axis select user takes a part, other users a cat of the two."""
    z, r = op.operands[0], op.results[0]
    part = _part_type(z.type)
    if part is None:
        return False
    b = TorchBuilder(op)
    src = defining_op(z)
    made: dict[int, ir.Value] = {}
    if src is not None and src.name == "torch.aten.complex" and str(src.operands[0].type) == str(part):
        made = {0: src.operands[0], 1: src.operands[1]}

    def part_of(k: int) -> ir.Value:   # built once, on first use
        if k not in made:
            made[k] = _hlo(b, ("stablehlo.real", "stablehlo.imag")[k], part, [z])
        return made[k]

    rank = len(vtensor_sizes_and_dtype(r.type)[0])
    for use in list(r.uses):
        user = use.owner
        found = _last_axis_part(user, rank)
        if found is not None and str(found[1].results[0].type) == str(part):
            found[1].results[0].replace_all_uses_with(part_of(found[0]))
            found[1].erase()
            user.erase()
    if any(True for _ in r.uses):
        sizes, dtype = vtensor_sizes_and_dtype(part)
        one = vtensor_type(sizes + [1], dtype)
        last = b.int(-1)
        cols = [b.value("torch.aten.unsqueeze", [one], [part_of(k), last]) for k in (0, 1)]
        y = b.value("torch.aten.cat", [r.type], [b.list(cols, "vtensor"), last])
        r.replace_all_uses_with(y)
    op.erase()
    return True


def convert_torch_aten_view_as_complex(op: ir.Operation) -> bool:
    """torch.aten.view_as_complex -> stablehlo.complex of the last axis' two selects."""
    x, z = op.operands[0], op.results[0]
    part = _part_type(z.type)
    if part is None:
        return False
    b = TorchBuilder(op)
    re, im = (_select_last(b, x, k, part) for k in (0, 1))
    y = _hlo(b, "stablehlo.complex", z.type, [re, im])
    z.replace_all_uses_with(y)
    op.erase()
    return True


@dataclass(frozen=True)
class LowerTorchComplex(Pass):
    """Lower torch.aten.complex / view_as_real / view_as_complex to stablehlo.complex/real/imag."""

    name = "symhlo-lower-torch-complex"
    summary = "torch.aten.complex / view_as_real / view_as_complex -> stablehlo.complex / real / imag"

    def run(self, module: ir.Module) -> None:
        ensure_upstream_registered(module.context)
        with module.context, ir.Location.unknown():
            # view_as_real first (users-first), so a complex -> view_as_real pair folds.
            apply_patterns(module.operation, {
                "torch.aten.view_as_real": convert_torch_aten_view_as_real,
                "torch.aten.view_as_complex": convert_torch_aten_view_as_complex}, reverse=True)
            apply_patterns(module.operation, {"torch.aten.complex": convert_torch_aten_complex})
