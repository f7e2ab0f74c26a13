"""torch.export ExportedProgram -> torch dialect module, with symbolic shape expressions.

Wraps torch-mlir's FxImporter with `import_symbolic_shape_expressions=True`. torch-mlir 20261001
cannot translate torch's own sympy functions (`Mod`/`PythonMod`, `FloorDiv`, `CeilToInt`, `Max`)
into affine maps and aborts the whole import; symhlo teaches it the affine ones and, for the rest,
skips only that one tensor's `torch.bind_symbolic_shape` (the size arithmetic itself is imported
as ops either way, so nothing is lost but that one annotation).
"""

from __future__ import annotations

import torch

from torch_mlir import ir
from torch_mlir.extras import fx_importer as _fxi
from torch_mlir.extras.fx_importer import FxImporter
from torch_mlir.extras.fx_decomp_util import get_decomposition_table

from symhlo.passes.ir_util import new_context

_upstream_translate = _fxi.sympy_expr_to_semi_affine_expr


def _translate(expr, symbols_map):
    """sympy -> affine, adding torch's Mod/PythonMod/FloorDiv to what torch-mlir knows."""
    from torch.utils._sympy import functions as F
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


def import_exported_program(ep: torch.export.ExportedProgram, *,
                            func_name: str = "main") -> ir.Module:
    """Imports `ep` (after core-ATen decompositions) as a torch-dialect module.

    Weights are imported as inline dense constants (not `dense_resource`), which the portable
    artifact accepts.
    """
    from .decompositions import symhlo_decompositions

    ep = ep.run_decompositions({**get_decomposition_table(), **symhlo_decompositions()})
    ctx = new_context()
    importer = FxImporter(context=ctx)
    importer.import_frozen_program(ep, func_name=func_name,
                                   import_symbolic_shape_expressions=True)
    _keep_user_outputs(importer.module, ep, func_name)
    return importer.module


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
    """torch.vtensor.literal with an inline DenseElementsAttr (portable; no dense_resource)."""
    import numpy as np

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
        if t.dtype == torch.bfloat16:
            raw = ir.DenseElementsAttr.get(array, type=ir.IntegerType.get_signless(16),
                                           shape=list(t.shape))
            mapping.value = ir.DenseElementsAttr.get(
                array, type=element_type, shape=list(t.shape)) if False else \
                ir.Attribute.parse(str(raw).replace("xi16>", "xbf16>"))  # pragma: no cover
        else:
            mapping.value = ir.DenseElementsAttr.get(array, type=element_type,
                                                     shape=list(t.shape))
    return ir.Operation.create(name="torch.vtensor.literal", results=[vtensor_type],
                               attributes={"value": mapping.value})


_fxi._make_vtensor_literal_op = _make_inline_literal_op
