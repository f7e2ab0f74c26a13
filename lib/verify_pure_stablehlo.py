"""symhlo-verify-pure-stablehlo: fail on any op outside the stablehlo and func dialects.

A pure StableHLO module serializes to a portable (VHLO) artifact and runs on any StableHLO
consumer. Every impure op is reported with its location:

    %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  ==>
    loc("m.py":3:0): error: 'tensor.dim' is not StableHLO (symhlo-verify-pure-stablehlo)
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from .ir_util import walk_ops
from .registry import Pass, PassFailure

ALLOWED_PREFIXES = ("stablehlo.", "func.", "builtin.module")


def impure_ops(module: ir.Module) -> list[ir.Operation]:
    """Every op of `module` outside stablehlo/func, in program order."""
    return [op for op in walk_ops(module.operation) if not op.name.startswith(ALLOWED_PREFIXES)]


@dataclass(frozen=True)
class VerifyPureStablehlo(Pass):
    """Verify that only stablehlo and func ops remain."""

    name = "symhlo-verify-pure-stablehlo"
    summary = "Fail with a diagnostic for every op outside the stablehlo and func dialects"

    def run(self, module: ir.Module) -> None:
        with module.context, ir.Location.unknown():
            bad = impure_ops(module)
            if bad:
                diags = [(str(op.location), f"'{op.name}' is not StableHLO ({self.name})")
                         for op in bad]
                raise PassFailure(f"{len(bad)} op(s) outside stablehlo/func remain", diags)
