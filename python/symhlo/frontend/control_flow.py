"""torch.export's control-flow higher-order operators -> torch-dialect control flow (floor 2,
frontend).

torch-mlir's FxImporter imports every child GraphModule of the program (a HOP's branch or body)
as a private function before the graph that uses it, and dispatches each HOP node to a
`_import_hop_<name>` method of its GraphNodeImporter. It has one for `while_loop` (a
`torch.prim.Loop` calling the cond and body functions) but none for `cond`. ControlFlowImporter
extends the importer (no fork of torch-mlir) with:

    %c = torch.ops.higher_order.cond(pred, true_graph_0, false_graph_0, (x,))
  ==>
    %b = torch.aten.Bool.Tensor %pred            (a SymBool predicate is already a !torch.bool)
    %r = torch.prim.If %b -> (!torch.vtensor<[?,4],f32>) {
      %t = func.call @true_graph_0(%x) ; torch.prim.If.yield %t
    } else {
      %f = func.call @false_graph_0(%x) ; torch.prim.If.yield %f
    }

The torch backend pipeline inlines the calls into the regions; symhlo-lower-torch-control-flow
then turns `torch.prim.If` / the while-form `torch.prim.Loop` into `stablehlo.if` /
`stablehlo.while`. Higher-order ops with no such lowering (`scan`, `map_impl`, ...) are refused
before import by refusals.reject_unimportable_nodes, naming the op and the source line.
"""

from __future__ import annotations

import torch

from torch_mlir import ir
from torch_mlir.extras import fx_importer as _fxi

from symhlo.passes.builder import OpBuilder

# The HOPs that ControlFlowImporter (and torch-mlir's own importer) turn into torch control flow
# that symhlo-lower-torch-control-flow lowers to StableHLO.
IMPORTED_HOPS = ("cond", "while_loop")


def _branch_func_name(importer: "_fxi.GraphNodeImporter", node: torch.fx.Node) -> str:
    """The private function torch-mlir imported for the get_attr `node` (a branch or body)."""
    if node.op != "get_attr":
        raise NotImplementedError(f"expected a submodule (get_attr) as branch, got {node.op}")
    module = getattr(node.graph.owning_module, node.target)
    return importer.fx_importer._graph_module_to_func_name[id(module)]


class ControlFlowImporter(_fxi.GraphNodeImporter):
    """torch-mlir's GraphNodeImporter plus `torch.cond` (-> torch.prim.If)."""

    def _import_hop_cond(self, loc: ir.Location, node: torch.fx.Node, hop) -> None:
        """torch.ops.higher_order.cond(pred, true_fn, false_fn, operands) -> torch.prim.If whose
        regions call the imported branch functions."""
        pred, true_fn, false_fn, operands = node.args[:4]
        true_name = _branch_func_name(self, true_fn)
        false_name = _branch_func_name(self, false_fn)
        operand_values = []
        for o in operands:
            operand_values.append(self._import_argument(loc, o))
        cond = self._import_argument(loc, pred)
        b = OpBuilder(ip=ir.InsertionPoint.current, loc=loc)
        if str(cond.type) != "!torch.bool":
            # A 0-d bool tensor (`x.sum() > 0`): the branch is picked by its one element.
            cond = b.value("torch.aten.Bool.Tensor", [self._cc.torch_bool_type], [cond])
        val = node.meta.get("val")
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        result_types = [self._cc.value_info_to_type(v) for v in vals]
        if_op = b.create("torch.prim.If", result_types, [cond], regions=2)
        for region, callee in zip(if_op.regions, (true_name, false_name)):
            rb = OpBuilder(ip=ir.InsertionPoint(region.blocks.append()), loc=loc)
            call = rb.create("func.call", result_types, operand_values,
                             {"callee": ir.FlatSymbolRefAttr.get(callee)})
            rb.create("torch.prim.If.yield", [], list(call.results))
        # cond always returns a tuple (list) of tensors, unpacked by getitem nodes.
        self._multi_result_nodes.add(node)
        for i, value in enumerate(if_op.results):
            self.bind_node_value(node, value, i)
