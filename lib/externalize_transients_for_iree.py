"""symhlo-externalize-transients-for-iree: a second entry, `@main$transients`, that runs `@main`
in transient memory the caller gives it, so that a call allocates (and zeroes) nothing large.

IREE packs the transient buffers of one call into one allocation. With `?` dims the packing cannot
share memory between buffers of different size expressions, so the allocation is the sum of them
(64.5 MB for a d=64 transformer block at (4, 512), against 36 MB packed statically). IREE 3.13's
local-task device serves queue allocations from a pool whose slabs hold 64 MB; a larger one goes
to a pass-through pool that callocs it on every call: a 64 MB memset per call (3-6 ms on a 10 ms
call), or page faults when glibc maps the block afresh. IREE's external transients
(`hal.tensor.transients`) move those buffers into storage the caller passes; IREE adds a size
query, `@main$transients_transients_size`, taking the same arguments. symhlo's runtime keeps one
storage buffer per thread (shared by the modules it calls) and grows it to the largest size asked for, as PyTorch's caching
allocator keeps its blocks. The storage is a `!hal.buffer_view` (of bytes), so that IREE's own
tools can pass it as well (`iree-run-module --function=main$transients --input=@x.npy
--input=67633152xi8`):

    func.func @main(%vx: !hal.buffer_view) -> !hal.buffer_view attributes {iree.reflection = ...} {
      ...
      %r = call @symhlo_checked_main(%x)
      %v = hal.tensor.export %r "output0" : tensor<?x4xf32>{%d} -> !hal.buffer_view
      return %v
    }
  ==>
    (@main unchanged: iree-run-module and other hosts call it as before)
    func.func @main$transients(%vx: !hal.buffer_view, %storage: !hal.buffer_view) -> !hal.buffer_view
        attributes {iree.reflection = ...} {
      ...
      %r = call @symhlo_checked_main(%x)
      %t = hal.tensor.transients %r : tensor<?x4xf32>{%d} from %storage : !hal.buffer_view
      %v = hal.tensor.export %t "output0" : tensor<?x4xf32>{%d} -> !hal.buffer_view
      return %v
    }

Only a `@main` of buffer views (the entry symhlo-insert-call-checks-for-iree builds) gets the
second entry, and only where an input has a `?` dim: a static module's transients are packed at
compile time (and its second entry would only add compile time: IREE compiles the host program of
each entry). IREE must compute the transient size from the inputs' shapes before the call runs,
so modules whose sizes come from data (a contract symbol no input axis names: nonzero, `.item()`
slices) or from control flow (stablehlo.while / if / case, scf) keep the one entry: IREE 3.13
refuses them ("failed to hoist transient size computations"). The StableHLO artifact is not
touched: this runs only in the IREE preparation, for the llvm-cpu target
(symhlo.backend.compiler, which also compiles without the second entry if IREE refuses it).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .builder import OpBuilder
from .contract_attrs import ARG_SHAPES, VMFB_TRANSIENTS_SUFFIX, symbol_ranges
from .ir_util import CONTROL_FLOW_OPS, is_dynamic, walk_ops
from .registry import Pass
from .insert_call_checks_for_iree import CHECKED_MAIN
from .size_exprs import parse, symbols
from .size_facts import main_function


@dataclass(frozen=True)
class ExternalizeTransientsForIree(Pass):
    """A buffer-view @main with `?` inputs -> also @main$transients taking caller transient storage."""

    name = "symhlo-externalize-transients-for-iree"
    summary = ("Add @main$transients: @main with its transient buffers in a buffer view the caller "
               "passes (hal.tensor.transients), for modules with dynamic inputs")

    def run(self, module: ir.Module) -> None:
        main = main_function(module)
        if main is None:
            return
        ctx = module.context
        ctx.allow_unregistered_dialects = True   # hal's ops and types: IREE's, not torch-mlir's
        with ctx, main.location:
            ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
            view = ir.Type.parse("!hal.buffer_view")
            if not ftype.inputs or any(t != view for t in ftype.inputs) or \
                    any(t != view for t in ftype.results):
                return
            if not _has_dynamic_input(main) or not _sizes_known_before_the_call(module):
                return
            entry = main.clone(ip=ir.InsertionPoint.at_block_begin(module.body))
            name = ir.StringAttr(main.attributes["sym_name"]).value + VMFB_TRANSIENTS_SUFFIX
            entry.attributes["sym_name"] = ir.StringAttr.get(name)
            entry.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
                [*ftype.inputs, view], list(ftype.results)))  # storage: bytes, as IREE's tools pass
            block = entry.regions[0].blocks[0]
            storage = block.add_argument(view, main.location)
            for export in [op for op in walk_ops(entry) if op.name == "hal.tensor.export"]:
                source = export.operands[0]
                b = OpBuilder(export)
                placed = b.value("hal.tensor.transients", [source.type],
                                 [source, *list(export.operands)[1:], storage])
                export.operands[0] = placed


def _has_dynamic_input(main: ir.Operation) -> bool:
    """Whether an import in the buffer-view @main makes a tensor with a `?` dim."""
    for op in walk_ops(main):
        if op.name == "hal.tensor.import" and isinstance(op.results[0].type, ir.ShapedType):
            t = ir.ShapedType(op.results[0].type)
            if t.has_rank and any(is_dynamic(d) for d in t.shape):
                return True
    return False


def _sizes_known_before_the_call(module: ir.Module) -> bool:
    """Whether every size in the module follows from the inputs' shapes: no control flow, and
    every symbol of the contract (on the checked body) names an input axis."""
    if any(op.name in CONTROL_FLOW_OPS for op in walk_ops(module.operation)):
        return False
    bodies = [op.operation for op in module.body.operations
              if op.operation.name == "func.func"
              and ir.StringAttr(op.operation.attributes["sym_name"]).value == CHECKED_MAIN]
    if len(bodies) != 1 or ARG_SHAPES not in bodies[0].attributes:
        return False
    named: set[str] = set()
    for shape in ir.ArrayAttr(bodies[0].attributes[ARG_SHAPES]):
        for text in ir.ArrayAttr(shape):
            try:
                named |= symbols(parse(ir.StringAttr(text).value))
            except ValueError:   # an expression outside the grammar: its symbols are unknown
                return False
    return set(symbol_ranges(bodies[0])) <= named

