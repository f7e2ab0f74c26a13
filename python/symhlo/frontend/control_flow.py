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
`stablehlo.while`. `scan` and `map_impl` become the same while-form loop over the rows of their
sequence (_import_row_loop). Any other higher-order op is refused before import
(refusals.reject_unsupported_higher_order_ops), naming the op and its source line.
"""

from __future__ import annotations

import torch

from torch_mlir import ir
from torch_mlir.extras import fx_importer as _fxi

from symhlo.passes.builder import OpBuilder, vtensor_sizes_and_dtype, vtensor_type

from ..errors import UnsupportedOpError
from .refusals import node_source_line


def scan_length_relations(ep) -> list[str]:
    """`n >= 1` (over the program's symbols) for each `?` length n that a `scan` or `map` in the
    program's own graph loops over: eager PyTorch refuses to scan or map zero rows ("scan
    dimension > 0", "Leading dimensions of mapped xs cannot be 0"), so the compiled module must
    not quietly return empty results there. (A scan inside a branch runs only if taken: left
    unchecked.)"""
    out = []
    for node in ep.graph.nodes:
        if node.op != "call_function" or node.target not in (torch.ops.higher_order.scan,
                                                               torch.ops.higher_order.map_impl):
            continue
        xs = node.args[2] if node.target is torch.ops.higher_order.scan else node.args[1]
        n = xs[0].meta["val"].shape[0] if xs else 1
        if isinstance(n, torch.SymInt) and n.node.expr.free_symbols:
            out.append(f"{n.node.expr} >= 1")
    return out


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
                raise UnsupportedOpError(
                    f"unsupported op 'torch.ops.higher_order.while_loop' (FX node '{node.name}') "
                    f"at {node_source_line(node)}: it carries a {type(v).__name__}; symhlo lowers "
                    "loops over tensor values only (carry a 0-d tensor instead of a Python int)")
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

    # -- scan and map: a while loop over the rows of `xs` ------------------------------------

    def _import_hop_scan(self, loc: ir.Location, node: torch.fx.Node, hop) -> None:
        """torch.ops.higher_order.scan(combine_fn, init, xs, additional) -> a while-form
        torch.prim.Loop over the rows of xs (see _import_row_loop)."""
        combine, init, xs, additional = node.args[:4]
        self._import_row_loop(loc, node, _branch_func_name(self, combine), list(init), list(xs),
                              list(additional))

    def _import_hop_map_impl(self, loc: ir.Location, node: torch.fx.Node, hop) -> None:
        """torch.ops.higher_order.map_impl(body_fn, xs, additional) -> a while-form
        torch.prim.Loop over the rows of xs (see _import_row_loop)."""
        body, xs, additional = node.args[:3]
        self._import_row_loop(loc, node, _branch_func_name(self, body), [], list(xs),
                              list(additional))

    def _import_row_loop(self, loc, node, fn_name: str, init: list, xs: list,
                         additional: list) -> None:
        """`fn(carry..., x[i]..., additional...) -> (carry'..., y...)` for i in 0..n-1, n =
        xs[0].shape[0] (`?` or not), the ys stacked along a new axis 0 ==>

            %i0 = zeros [] si64 ; %bufs = zeros [n, *y.shape] ; %n = aten.size.int xs0, 0
            torch.prim.Loop INT64_MAX, (%i0 < %n), init(%i0, %carry..., %bufs...) {
              %r = unsqueeze %i, 0                         (the row index as a [1] tensor)
              %x = squeeze.dim (index_select %xs, 0, %r), 0
              %c', %y = func.call @fn(%carry, %x, %additional)
              %buf' = index_put %buf, [%r], (unsqueeze %y, 0)
              condition (%i + 1 < %n), iter(%i + 1, %c', %buf')
            }

        The row index is a 0-d tensor throughout (no `.item()`): the rows are read with a gather
        and written with a scatter of one row, so n stays `?` and n = 0 runs no iteration. A
        y axis that is symbolic must be +, *, // and % of the loop's operands' axes (its size is
        computed from theirs before the loop); anything else is refused by name.
        """
        b = OpBuilder(ip=ir.InsertionPoint.current, loc=loc)
        cc = self._cc
        int_t, bool_t = cc.torch_int_type, cc.torch_bool_type
        val = node.meta.get("val")
        outs = list(val) if isinstance(val, (list, tuple)) else [val]
        op = f"unsupported op '{node.target}' (FX node '{node.name}') at {node_source_line(node)}"
        if not xs:
            raise UnsupportedOpError(f"{op}: no sequence to loop over")
        for v in outs:
            if not isinstance(v, torch.Tensor):
                raise UnsupportedOpError(f"{op}: it returns a {type(v).__name__}; symhlo lowers "
                                         "it over tensor values only")
        carry_vals, y_vals = outs[:len(init)], outs[len(init):]
        init_v = [self._import_argument(loc, a) for a in init]
        xs_v = [self._import_argument(loc, a) for a in xs]
        extra_v = [self._import_argument(loc, a) for a in additional]

        def const_int(v: int) -> ir.Value:
            return b.value("torch.constant.int", [int_t], [], {"value": cc.integer_attr(v, 64)})

        none = b.value("torch.constant.none", [ir.Type.parse("!torch.none")], [])
        operands = [(a, v) for a, v in zip(init + xs + additional, init_v + xs_v + extra_v)
                    if isinstance(a, torch.fx.Node) and isinstance(a.meta.get("val"), torch.Tensor)]

        def axis_of(expr) -> ir.Value | None:
            for a, v in operands:
                for axis, s in enumerate(a.meta["val"].shape):
                    if isinstance(s, torch.SymInt) and s.node.expr == expr:
                        return b.value("torch.aten.size.int", [int_t], [v, const_int(axis)])
            return None

        def size_expr(expr, d, what: str) -> ir.Value:
            """`expr` (sympy, over the operands' axis symbols) as !torch.int arithmetic."""
            if expr.is_Integer:
                return const_int(int(expr))
            found = axis_of(expr)
            if found is not None:
                return found
            kind = type(expr).__name__
            ops = {"Add": "torch.aten.add.int", "Mul": "torch.aten.mul.int",
                   "FloorDiv": "torch.aten.floordiv.int", "PythonMod": "torch.aten.remainder.int",
                   "Mod": "torch.aten.remainder.int"}
            if kind not in ops or not expr.args:
                raise UnsupportedOpError(
                    f"{op}: {what} has the symbolic size {d}, which is no arithmetic (+, *, //, "
                    "%) of the loop's operands' axes; symhlo cannot size the stacked output "
                    "before the loop")
            acc = size_expr(expr.args[0], d, what)
            for arg in expr.args[1:]:
                acc = b.value(ops[kind], [int_t], [acc, size_expr(arg, d, what)])
            return acc

        def size_of(d, what: str) -> ir.Value:
            return const_int(d) if isinstance(d, int) else size_expr(d.node.expr, d, what)

        zero = const_int(0)
        n = b.value("torch.aten.size.int", [int_t], [xs_v[0], zero])
        scalar_i64 = cc.get_vtensor_type(torch.Size([]), torch.int64)
        row_t = cc.get_vtensor_type(torch.Size([1]), torch.int64)
        pred_t = cc.get_vtensor_type(torch.Size([]), torch.bool)

        i0 = b.value("torch.aten.zeros", [scalar_i64],
                     [b.value("torch.prim.ListConstruct", [ir.Type.parse("!torch.list<int>")], []),
                      const_int(_fxi.TORCH_DTYPE_TO_INT[torch.int64]), none, none, none])
        bufs, buf_types = [], []
        for k, y in enumerate(y_vals):
            sizes = [n] + [size_of(d, f"output {len(init) + k} axis {axis + 1}")
                           for axis, d in enumerate(y.shape[1:])]
            t = cc.value_info_to_type(y)
            lst = b.value("torch.prim.ListConstruct", [ir.Type.parse("!torch.list<int>")], sizes)
            fill = (b.value("torch.constant.float", [ir.Type.parse("!torch.float")], [],
                            {"value": ir.FloatAttr.get_f64(0.0)})
                    if y.dtype.is_floating_point else zero)
            bufs.append(b.value("torch.aten.full", [t],
                                [lst, fill, const_int(_fxi.TORCH_DTYPE_TO_INT[y.dtype]), none,
                                 none, none]))
            buf_types.append(t)
        carry_types = [cc.value_info_to_type(v) for v in carry_vals]

        def go(bb: OpBuilder, i: ir.Value) -> ir.Value:
            lt = bb.value("torch.aten.lt.Scalar", [pred_t], [i, n])
            return bb.value("torch.aten.Bool.Tensor", [bool_t], [lt])

        max_trip = const_int(torch.iinfo(torch.int64).max)
        loop_types = [scalar_i64] + carry_types + buf_types
        loop = b.create("torch.prim.Loop", loop_types,
                        [max_trip, go(b, i0), i0] + init_v + bufs, regions=1)
        with loc:
            block = loop.regions[0].blocks.append(int_t, *loop_types)
        lb = OpBuilder(ip=ir.InsertionPoint(block), loc=loc)
        i, *rest = list(block.arguments)[1:]
        carries, old_bufs = rest[:len(init)], rest[len(init):]
        l_zero = lb.value("torch.constant.int", [int_t], [], {"value": cc.integer_attr(0, 64)})
        l_one = lb.value("torch.constant.int", [int_t], [], {"value": cc.integer_attr(1, 64)})
        row = lb.value("torch.aten.unsqueeze", [row_t], [i, l_zero])
        slices = []
        for x in xs_v:
            sizes, dtype = vtensor_sizes_and_dtype(x.type)
            picked = lb.value("torch.aten.index_select", [vtensor_type([1] + sizes[1:], dtype)],
                              [x, l_zero, row])
            slices.append(lb.value("torch.aten.squeeze.dim", [vtensor_type(sizes[1:], dtype)],
                                   [picked, l_zero]))
        fn_types = carry_types + [vtensor_type(vtensor_sizes_and_dtype(t)[0][1:],
                                               vtensor_sizes_and_dtype(t)[1]) for t in buf_types]
        call = lb.create("func.call", fn_types, carries + slices + extra_v,
                         {"callee": ir.FlatSymbolRefAttr.get(fn_name)})
        results = list(call.results)
        new_carries, ys = results[:len(init)], results[len(init):]
        index_list = lb.value("torch.prim.ListConstruct",
                              [ir.Type.parse("!torch.list<optional<vtensor>>")], [row])
        false = lb.value("torch.constant.bool", [bool_t], [], {"value": ir.BoolAttr.get(False)})
        new_bufs = []
        for y, buf in zip(ys, old_bufs):
            sizes, dtype = vtensor_sizes_and_dtype(y.type)
            y1 = lb.value("torch.aten.unsqueeze", [vtensor_type([1] + sizes, dtype)], [y, l_zero])
            new_bufs.append(lb.value("torch.aten.index_put", [buf.type],
                                     [buf, index_list, y1, false]))
        i1 = lb.value("torch.aten.add.Scalar", [scalar_i64], [i, l_one, l_one])
        lb.create("torch.prim.Loop.condition", [], [go(lb, i1), i1] + new_carries + new_bufs)
        self._multi_result_nodes.add(node)
        for k, value in enumerate(list(loop.results)[1:]):
            self.bind_node_value(node, value, k)
