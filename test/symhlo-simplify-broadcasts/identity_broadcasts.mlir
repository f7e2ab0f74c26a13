// RUN: symhlo-opt --symhlo-simplify-broadcasts --split-input-file --verify-diagnostics %s | FileCheck %s

// CHECK-LABEL: func @identity_broadcast_is_dropped
// CHECK-NOT:     stablehlo.dynamic_broadcast_in_dim
// CHECK:         %[[R:.*]] = stablehlo.add %arg0, %arg1 : tensor<?x4xf32>
// CHECK:         return %[[R]]
func.func @identity_broadcast_is_dropped(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %1 = stablehlo.dynamic_broadcast_in_dim %arg1, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %2 = stablehlo.add %0, %1 : tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}

// -----

// A static 1 that expands stays.
// CHECK-LABEL: func @expanding_broadcast_stays
// CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %arg1, %arg2, dims = [0, 1] : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
// CHECK:         stablehlo.add %arg0, %[[B]]
func.func @expanding_broadcast_stays(%arg0: tensor<?x4xf32>, %arg1: tensor<1x4xf32>, %s: tensor<2xi64>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg1, %s, dims = [0, 1] : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %1 = stablehlo.add %arg0, %0 : tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// Adding a leading axis stays, even when the type of the kept axes is unchanged.
// CHECK-LABEL: func @rank_expanding_broadcast_stays
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [1] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
func.func @rank_expanding_broadcast_stays(%arg0: tensor<?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %s, dims = [1] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Same type but a transposing dims map is not an identity.
// CHECK-LABEL: func @permuting_dims_stays
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [1, 0] : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
func.func @permuting_dims_stays(%arg0: tensor<?x?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %s, dims = [1, 0] : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// The size of an elementwise chain's result is read off the value the chain starts from.
// CHECK-LABEL: func @dim_of_elementwise_chain
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK:         %[[E:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK:         return %[[D]], %[[E]]
func.func @dim_of_elementwise_chain(%arg0: tensor<?xf32>, %c: tensor<f32>) -> (tensor<i32>, tensor<i32>) {
  %0 = stablehlo.exponential %arg0 : tensor<?xf32>
  %1 = stablehlo.compare GT, %0, %arg0, FLOAT : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
  %2 = stablehlo.select %1, %0, %arg0 : tensor<?xi1>, tensor<?xf32>
  %3 = stablehlo.clamp %c, %2, %c : (tensor<f32>, tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %d = stablehlo.get_dimension_size %3, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %e = stablehlo.get_dimension_size %1, dim = 0 : (tensor<?xi1>) -> tensor<i32>
  return %d, %e : tensor<i32>, tensor<i32>
}

// -----

// A reduce is not elementwise: its result's size stays its own.
// CHECK-LABEL: func @dim_of_non_elementwise_kept
// CHECK:         %[[R:.*]] = stablehlo.reduce
// CHECK:         stablehlo.get_dimension_size %[[R]], dim = 0
func.func @dim_of_non_elementwise_kept(%arg0: tensor<?x?xf32>) -> tensor<i32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = stablehlo.exponential %0 : tensor<?xf32>
  %d = stablehlo.get_dimension_size %1, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  return %d : tensor<i32>
}
