// RUN: symhlo-opt --symhlo-defer-softmax-normalization-for-iree --split-input-file %s | FileCheck %s

// Attention over `?` keys: the row factor moves from the (bh, q, k) probabilities to the
// (bh, q, 16) product, with the lhs's collapse applied to the exponential and to the factor.
// CHECK-LABEL: func @attention_dynamic_keys
// CHECK:         %[[E:.*]] = stablehlo.exponential %arg0
// CHECK:         %[[L:.*]] = tensor.collapse_shape %[[E]] {{\[\[}}0, 1], [2], [3]]
// CHECK:         %[[O:.*]] = stablehlo.dot_general %[[L]], %arg2, batching_dims = [0] x [0], contracting_dims = [2] x [1]
// CHECK:         %[[R1:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<?x4x?x1xf32> into tensor<?x4x?xf32>
// CHECK:         %[[R2:.*]] = tensor.collapse_shape %[[R1]] {{\[\[}}0, 1], [2]] : tensor<?x4x?xf32> into tensor<?x?xf32>
// CHECK:         %[[RB:.*]] = stablehlo.dynamic_broadcast_in_dim %[[R2]], %{{.*}}, dims = [0, 1]
// CHECK-SAME:      known_nonexpanding_dimensions = array<i64: 0, 1>
// CHECK:         %[[Y:.*]] = stablehlo.multiply %[[O]], %[[RB]] : tensor<?x?x16xf32>
// CHECK-NOT:     stablehlo.multiply %[[E]]
// CHECK:         return %[[Y]]
func.func @attention_dynamic_keys(%d: tensor<?x4x?x?xf32>, %r: tensor<?x4x?xf32>, %v: tensor<?x?x16xf32>, %s4: tensor<4xi64>) -> tensor<?x?x16xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %e = stablehlo.exponential %d : tensor<?x4x?x?xf32>
  %n = tensor.dim %r, %c0 : tensor<?x4x?xf32>
  %q = tensor.dim %r, %c2 : tensor<?x4x?xf32>
  %x = tensor.expand_shape %r [[0], [1], [2, 3]] output_shape [%n, 4, %q, 1] : tensor<?x4x?xf32> into tensor<?x4x?x1xf32>
  %b = stablehlo.dynamic_broadcast_in_dim %x, %s4, dims = [0, 1, 2, 3] {known_expanding_dimensions = array<i64: 3>, known_nonexpanding_dimensions = array<i64: 0, 1, 2>} : (tensor<?x4x?x1xf32>, tensor<4xi64>) -> tensor<?x4x?x?xf32>
  %p = stablehlo.multiply %e, %b : tensor<?x4x?x?xf32>
  %l = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<?x4x?x?xf32> into tensor<?x?x?xf32>
  %o = stablehlo.dot_general %l, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %o : tensor<?x?x16xf32>
}

// -----

// The factor's `?` batch axis might be 1 and broadcast (no hint says otherwise): collapsing it with
// the heads would misplace rows, so it is left alone.
// CHECK-LABEL: func @factor_batch_may_expand
// CHECK:         %[[P:.*]] = stablehlo.multiply
// CHECK:         %[[L:.*]] = tensor.collapse_shape %[[P]]
// CHECK:         stablehlo.dot_general %[[L]], %arg2
func.func @factor_batch_may_expand(%d: tensor<?x4x?x?xf32>, %r: tensor<?x4x?x1xf32>, %v: tensor<?x?x16xf32>, %s4: tensor<4xi64>) -> tensor<?x?x16xf32> {
  %e = stablehlo.exponential %d : tensor<?x4x?x?xf32>
  %b = stablehlo.dynamic_broadcast_in_dim %r, %s4, dims = [0, 1, 2, 3] {known_expanding_dimensions = array<i64: 3>, known_nonexpanding_dimensions = array<i64: 2>} : (tensor<?x4x?x1xf32>, tensor<4xi64>) -> tensor<?x4x?x?xf32>
  %p = stablehlo.multiply %e, %b : tensor<?x4x?x?xf32>
  %l = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<?x4x?x?xf32> into tensor<?x?x?xf32>
  %o = stablehlo.dot_general %l, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %o : tensor<?x?x16xf32>
}

// -----

// A factor that varies along the contracted axis does not commute: left alone.
// CHECK-LABEL: func @factor_along_keys
// CHECK:         %[[P:.*]] = stablehlo.multiply
// CHECK:         stablehlo.dot_general %[[P]], %arg2
func.func @factor_along_keys(%d: tensor<?x?x?xf32>, %r: tensor<?x?xf32>, %v: tensor<?x?x16xf32>, %s3: tensor<3xi64>) -> tensor<?x?x16xf32> {
  %e = stablehlo.exponential %d : tensor<?x?x?xf32>
  %b = stablehlo.dynamic_broadcast_in_dim %r, %s3, dims = [0, 2] : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %p = stablehlo.multiply %e, %b : tensor<?x?x?xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %o : tensor<?x?x16xf32>
}

// -----

// Static keys: IREE fuses the normalization into the matmul's pack already; left alone.
// CHECK-LABEL: func @static_keys
// CHECK:         %[[P:.*]] = stablehlo.multiply
// CHECK:         stablehlo.dot_general %[[P]], %arg2
func.func @static_keys(%d: tensor<8x64x64xf32>, %r: tensor<8x64xf32>, %v: tensor<8x64x16xf32>) -> tensor<8x64x16xf32> {
  %e = stablehlo.exponential %d : tensor<8x64x64xf32>
  %b = stablehlo.broadcast_in_dim %r, dims = [0, 1] : (tensor<8x64xf32>) -> tensor<8x64x64xf32>
  %p = stablehlo.multiply %e, %b : tensor<8x64x64xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<8x64x64xf32>, tensor<8x64x16xf32>) -> tensor<8x64x16xf32>
  return %o : tensor<8x64x16xf32>
}

// -----

// The probabilities used twice (returned as well): left alone.
// CHECK-LABEL: func @probabilities_also_returned
// CHECK:         %[[P:.*]] = stablehlo.multiply
// CHECK:         stablehlo.dot_general %[[P]], %arg2
func.func @probabilities_also_returned(%d: tensor<?x?x?xf32>, %r: tensor<?x?xf32>, %v: tensor<?x?x16xf32>, %s3: tensor<3xi64>) -> (tensor<?x?x16xf32>, tensor<?x?x?xf32>) {
  %e = stablehlo.exponential %d : tensor<?x?x?xf32>
  %b = stablehlo.dynamic_broadcast_in_dim %r, %s3, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %p = stablehlo.multiply %e, %b : tensor<?x?x?xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %o, %p : tensor<?x?x16xf32>, tensor<?x?x?xf32>
}
