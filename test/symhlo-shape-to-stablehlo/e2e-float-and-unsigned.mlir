// RUN: symhlo-opt --symhlo-shape-to-stablehlo --split-input-file %s | FileCheck %s

// Float scalars computed from sizes (torch-mlir's var: x / float(n - 1)) become 0-d StableHLO.
// CHECK-LABEL: func @float_scalar_from_size
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 1
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[F:.*]] = stablehlo.convert %[[I]] : (tensor<i64>) -> tensor<f64>
// CHECK:         %[[S:.*]] = stablehlo.subtract %[[F]], %{{.*}} : tensor<f64>
// CHECK:         %[[R:.*]] = stablehlo.reshape %[[S]] : (tensor<f64>) -> tensor<1xf64>
// CHECK-NOT:     arith.
// CHECK-NOT:     tensor.
// CHECK:         return %[[R]]
func.func @float_scalar_from_size(%arg0: tensor<?x?xf64>) -> tensor<1xf64> {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.000000e+00 : f64
  %d = tensor.dim %arg0, %c1 : tensor<?x?xf64>
  %i = arith.index_cast %d : index to i64
  %f = arith.sitofp %i : i64 to f64
  %s = arith.subf %f, %one : f64
  %r = tensor.from_elements %s : tensor<1xf64>
  return %r : tensor<1xf64>
}

// -----

// divui on sizes (torch-mlir's `-1` view axis) -> signed divide: sizes are in [0, 2^31).
// CHECK-LABEL: func @divui_of_sizes
// CHECK:         %[[A:.*]] = stablehlo.convert {{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[Q:.*]] = stablehlo.divide %[[A]], %{{.*}} : tensor<i64>
// CHECK-NOT:     arith.divui
func.func @divui_of_sizes(%arg0: tensor<?x8xf32>) -> tensor<1xi64> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : i64
  %d = tensor.dim %arg0, %c0 : tensor<?x8xf32>
  %i = arith.index_cast %d : index to i64
  %q = arith.divui %i, %c4 : i64
  %r = tensor.from_elements %q : tensor<1xi64>
  return %r : tensor<1xi64>
}
