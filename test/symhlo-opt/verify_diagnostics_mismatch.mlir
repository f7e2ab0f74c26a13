// A diagnostic that was not expected, and an expectation that was not met: exit 1, both named.
// RUN: not symhlo-opt --symhlo-verify-pure-stablehlo --verify-diagnostics %s 2>&1 | FileCheck %s

// CHECK-DAG: verify_diagnostics_mismatch.mlir:[[# @LINE + 5]]:9: error: unexpected error: 'arith.constant' is not StableHLO
// CHECK-DAG: verify_diagnostics_mismatch.mlir:[[# @LINE + 5]]:6: error: expected error "'tensor.reshape' is not StableHLO" was not produced
// CHECK-DAG: verify_diagnostics_mismatch.mlir:[[# @LINE + 5]]:8: error: unexpected error: 'tensor.dim' is not StableHLO
// CHECK-NOT: Traceback
func.func @f(%arg0: tensor<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'tensor.reshape' is not StableHLO}}
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  return %d : index
}
