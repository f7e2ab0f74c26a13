// RUN: symhlo-opt --symhlo-prepare-for-iree --split-input-file %s | FileCheck %s

// A broadcast of a broadcast becomes one hinted broadcast of the inner operand: IREE 3.13
// composes the chain itself, drops the hints and then fails to legalize the broadcast of a
// static 1 to a `?` axis (T5's decoder mask, to the batch and then to the heads).
// CHECK-LABEL: func @mask_to_batch_then_heads
// CHECK:         %[[R:.*]] = stablehlo.dynamic_broadcast_in_dim %arg0, %arg2, dims = [0, 1, 2, 3]
// CHECK-SAME:      known_expanding_dimensions = array<i64: 0, 1>
// CHECK-SAME:      known_nonexpanding_dimensions = array<i64: 2, 3>
// CHECK-SAME:      (tensor<1x1x?x?xi1>, tensor<4xi64>) -> tensor<?x4x?x?xi1>
// CHECK:         return %[[R]]
func.func @mask_to_batch_then_heads(%arg0: tensor<1x1x?x?xi1>, %arg1: tensor<4xi64>, %arg2: tensor<4xi64>) -> tensor<?x4x?x?xi1> attributes {symhlo.symbols = {}} {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1, 2, 3] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1, 2, 3>} : (tensor<1x1x?x?xi1>, tensor<4xi64>) -> tensor<?x1x?x?xi1>
  %1 = stablehlo.dynamic_broadcast_in_dim %0, %arg2, dims = [0, 1, 2, 3] {known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: 0, 2, 3>} : (tensor<?x1x?x?xi1>, tensor<4xi64>) -> tensor<?x4x?x?xi1>
  return %1 : tensor<?x4x?x?xi1>
}

// -----

// Rank-expanding chains compose their dims maps: x (n) -> (n, 1) at dims [0] -> (b, n, k) at
// dims [1, 2].
// CHECK-LABEL: func @rank_expanding_chain
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg0, %arg2, dims = [1]
// CHECK-SAME:      known_expanding_dimensions = array<i64>
// CHECK-SAME:      known_nonexpanding_dimensions = array<i64: 0>
// CHECK-NOT:     stablehlo.dynamic_broadcast_in_dim
func.func @rank_expanding_chain(%arg0: tensor<?xf32>, %arg1: tensor<2xi64>, %arg2: tensor<3xi64>) -> tensor<?x?x4xf32> attributes {symhlo.symbols = {}} {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x1xf32>
  %1 = stablehlo.dynamic_broadcast_in_dim %0, %arg2, dims = [1, 2] {known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?x1xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
  return %1 : tensor<?x?x4xf32>
}

