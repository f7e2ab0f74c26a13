// A StableHLO portable artifact (VHLO bytecode) is read like MLIR text or bytecode.
// RUN: %python -c "import sys; from torch_mlir._mlir_libs import _stablehlo as s; open(sys.argv[2], 'wb').write(s.serialize_portable_artifact_str(open(sys.argv[1]).read(), s.get_current_version()))" %s %t.mlirbc
// RUN: symhlo-opt %t.mlirbc --symhlo-verify-pure-stablehlo | FileCheck %s

// CHECK-LABEL: func @main
// CHECK-SAME:    tensor<?x4xf32>
// CHECK:         stablehlo.get_dimension_size
// CHECK:         stablehlo.dynamic_broadcast_in_dim
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = stablehlo.constant dense<4> : tensor<1xi32>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %1 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
  %2 = stablehlo.concatenate %1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %3 = stablehlo.dynamic_broadcast_in_dim %arg0, %2, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}
