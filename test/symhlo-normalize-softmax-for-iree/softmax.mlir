// RUN: symhlo-opt --symhlo-normalize-softmax-for-iree --split-input-file %s | FileCheck %s

// torch-mlir's softmax over a `?` row: exp / broadcast(sum(exp)) becomes exp * broadcast(1 / sum),
// the reciprocal taken on the reduced rows (ones of the sum's dynamic shape).
// CHECK-LABEL: func @softmax_dynamic_rows
// CHECK:         %[[E:.*]] = stablehlo.exponential
// CHECK:         %[[S:.*]] = stablehlo.reduce(%[[E]] init: %{{.*}}) applies stablehlo.add across dimensions = [1]
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %[[S]], dim = 0
// CHECK:         %[[N:.*]] = stablehlo.reshape %[[D]] : (tensor<i32>) -> tensor<1xi32>
// CHECK:         %[[ONES:.*]] = stablehlo.dynamic_broadcast_in_dim %{{.*}}, %[[N]], dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
// CHECK:         %[[R:.*]] = stablehlo.divide %[[ONES]], %[[S]] : tensor<?xf32>
// CHECK:         %[[K:.*]] = stablehlo.dynamic_reshape %[[R]]
// CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %[[K]]
// CHECK:         %[[Y:.*]] = stablehlo.multiply %[[E]], %[[B]] : tensor<?x?xf32>
// CHECK-NOT:     stablehlo.divide %[[E]]
// CHECK:         return %[[Y]]
func.func @softmax_dynamic_rows(%x: tensor<?x?xf32>, %s1: tensor<2xi64>, %s2: tensor<2xi64>) -> tensor<?x?xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<?x?xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %k = stablehlo.dynamic_reshape %s, %s1 : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x1xf32>
  %b = stablehlo.dynamic_broadcast_in_dim %k, %s2, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %y = stablehlo.divide %e, %b : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Static shapes: the ones are a broadcast constant.
// CHECK-LABEL: func @softmax_static
// CHECK:         %[[ONES:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK:         stablehlo.divide %[[ONES]], %{{.*}} : tensor<4xf32>
// CHECK:         stablehlo.multiply
func.func @softmax_static(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<4x8xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %y = stablehlo.divide %e, %b : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Not softmax: the divisor sums something other than the dividend. Left alone.
// CHECK-LABEL: func @divide_by_other_sum
// CHECK-NOT:     stablehlo.multiply
// CHECK:         stablehlo.divide %{{.*}}, %{{.*}} : tensor<4x8xf32>
func.func @divide_by_other_sum(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<4x8xf32>
  %s = stablehlo.reduce(%z init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %y = stablehlo.divide %e, %b : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The sum is also returned: rewriting it in place would change that result. Left alone.
// CHECK-LABEL: func @sum_used_elsewhere
// CHECK-NOT:     stablehlo.multiply
// CHECK:         stablehlo.divide %{{.*}}, %{{.*}} : tensor<4x8xf32>
func.func @sum_used_elsewhere(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<4x8xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %y = stablehlo.divide %e, %b : tensor<4x8xf32>
  return %y, %s : tensor<4x8xf32>, tensor<4xf32>
}

// -----

// A max-reduction divisor is not softmax's sum. Left alone.
// CHECK-LABEL: func @divide_by_max
// CHECK-NOT:     stablehlo.multiply
func.func @divide_by_max(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<4x8xf32>
  %s = stablehlo.reduce(%e init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %y = stablehlo.divide %e, %b : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
