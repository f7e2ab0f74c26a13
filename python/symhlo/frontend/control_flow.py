"""torch.export's control-flow higher-order operators -> torch-dialect control flow (floor 2,
frontend).

torch-mlir's FxImporter imports every child GraphModule of the program (a HOP's branch or body)
as a private function before the graph that uses it, and dispatches each HOP node to a
`_import_hop_<name>` method of its GraphNodeImporter. It has none for `cond`, and its
`while_loop` makes the functions' additional inputs loop values too (a loop that fails to
verify). ControlFlowImporter extends the importer (no fork of torch-mlir) with both:

    %c = torch.ops.higher_order.cond(pred, true_graph_0, false_graph_0, (x,))
  ==>
    %b = torch.aten.Bool.Tensor %pred            (a SymBool predicate is already a !torch.bool)
    %r = torch.prim.If %b -> (!torch.vtensor<[?,4],f32>) {
      %t = func.call @true_graph_0(%x) ; torch.prim.If.yield %t
    } else {
      %f = func.call @false_graph_0(%x) ; torch.prim.If.yield %f
    }

    while_loop(cond_fn, body_fn, (i0, h0), (x,))
  ==>
    %go = torch.aten.Bool.Tensor (func.call @cond_fn(%i0, %h0, %x))
    %r:2 = torch.prim.Loop %int64_max, %go, init(%i0, %h0) {
    ^bb0(%iter, %i, %h):
      %n:2 = func.call @body_fn(%i, %h, %x) ; %c = func.call @cond_fn(%n#0, %n#1, %x)
      torch.prim.Loop.condition (torch.aten.Bool.Tensor %c), iter(%n#0, %n#1)
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
    """torch-mlir's GraphNodeImporter plus `torch.cond` (-> torch.prim.If) and a `while_loop`
    that keeps its additional inputs out of the loop values (-> torch.prim.Loop)."""

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

    def _import_hop_while_loop(self, loc: ir.Location, node: torch.fx.Node, hop) -> None:
        """torch.ops.higher_order.while_loop(cond_fn, body_fn, carried, additional) ->
        torch.prim.Loop (trip count INT64_MAX) over the carried values.

        torch-mlir's own handler flattens `additional` (what the functions read but never
        change: `x`, `x.shape[0]`) into the loop values too, so the loop has more operands than
        results and fails to verify. Here the loop carries `carried` only; the cond and body
        functions take `additional` from outside the loop, as torch.export passes it.
        """
        cond_fn, body_fn, carried, additional = node.args[:4]
        cond_name = _branch_func_name(self, cond_fn)
        body_name = _branch_func_name(self, body_fn)
        inits = [self._import_argument(loc, c) for c in carried]
        extra = [self._import_argument(loc, a) for a in additional]
        val = node.meta.get("val")
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        for v in vals:
            if not isinstance(v, torch.Tensor):
                raise NotImplementedError(
                    f"while_loop carries a {type(v).__name__}; symhlo lowers loops over tensor "
                    "values only (carry a 0-d tensor instead of a Python int)")
        result_types = [self._cc.value_info_to_type(v) for v in vals]
        b = OpBuilder(ip=ir.InsertionPoint.current, loc=loc)
        bool_t = self._cc.torch_bool_type
        first = b.create("func.call", [self._cc.get_vtensor_type(torch.Size([]), torch.bool)],
                         inits + extra, {"callee": ir.FlatSymbolRefAttr.get(cond_name)})
        go = b.value("torch.aten.Bool.Tensor", [bool_t], [first.result])
        max_trip = b.value("torch.constant.int", [self._cc.torch_int_type], [],
                           {"value": self._cc.integer_attr(torch.iinfo(torch.int64).max, 64)})
        loop = b.create("torch.prim.Loop", result_types, [max_trip, go] + inits, regions=1)
        with loc:
            block = loop.regions[0].blocks.append(self._cc.torch_int_type, *result_types)
        lb = OpBuilder(ip=ir.InsertionPoint(block), loc=loc)
        values = list(block.arguments)[1:]
        step = lb.create("func.call", result_types, values + extra,
                         {"callee": ir.FlatSymbolRefAttr.get(body_name)})
        again = lb.create("func.call", [first.result.type], list(step.results) + extra,
                          {"callee": ir.FlatSymbolRefAttr.get(cond_name)})
        go_on = lb.value("torch.aten.Bool.Tensor", [bool_t], [again.result])
        lb.create("torch.prim.Loop.condition", [], [go_on] + list(step.results))
        self._multi_result_nodes.add(node)
        for i, value in enumerate(loop.results):
            self.bind_node_value(node, value, i)
