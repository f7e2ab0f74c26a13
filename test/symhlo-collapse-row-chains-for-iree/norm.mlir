// RUN: symhlo-opt --symhlo-collapse-row-chains-for-iree --split-input-file %s | FileCheck %s

// An RMS norm of (batch, seq, 16) before a matmul over its collapsed rows: the norm runs on the
// rows (x collapsed once, read by both the square and the scaling).
// CHECK-LABEL: func @rms_norm_before_matmul
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x16xf32>, %[[W:.*]]: tensor<16x32xf32>)
// CHECK:         %[[X2:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x?x16xf32> into tensor<?x16xf32>
// CHECK:         %[[N:.*]] = tensor.dim %[[X2]], %{{.*}} : tensor<?x16xf32>
// CHECK:         %[[SQ:.*]] = stablehlo.multiply %[[X2]], %[[X2]] : tensor<?x16xf32>
// CHECK:         %[[R:.*]] = stablehlo.reduce(%[[SQ]] init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<?x16xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [%[[N]], 1] : tensor<?xf32> into tensor<?x1xf32>
// CHECK:         %[[RS:.*]] = stablehlo.rsqrt %[[E]] : tensor<?x1xf32>
// CHECK:         %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:         %[[SH:.*]] = tensor.from_elements %[[N64]], %{{.*}} : tensor<2xi64>
// CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %[[RS]], %[[SH]], dims = [0, 1] {known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x16xf32>
// CHECK:         %[[Y:.*]] = stablehlo.multiply %[[X2]], %[[B]] : tensor<?x16xf32>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %{{.*}}, %{{.*}}, dims = [1] {{.*}} : (tensor<16xf32>, tensor<2xi64>) -> tensor<?x16xf32>
// CHECK:         %[[G:.*]] = stablehlo.multiply %[[Y]], %{{.*}} : tensor<?x16xf32>
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         stablehlo.dot_general %[[G]], %[[W]], contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
func.func @rms_norm_before_matmul(%x: tensor<?x?x16xf32>, %w: tensor<16x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %gamma = stablehlo.constant dense<2.0> : tensor<16xf32>
  %b = tensor.dim %x, %c0 : tensor<?x?x16xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x16xf32>
  %b64 = arith.index_cast %b : index to i64
  %s64 = arith.index_cast %s : index to i64
  %c16 = arith.constant 16 : i64
  %shape = tensor.from_elements %b64, %s64, %c16 : tensor<3xi64>
  %sq = stablehlo.multiply %x, %x : tensor<?x?x16xf32>
  %r = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<?x?x16xf32>, tensor<f32>) -> tensor<?x?xf32>
  %e = tensor.expand_shape %r [[0], [1, 2]] output_shape [%b, %s, 1] : tensor<?x?xf32> into tensor<?x?x1xf32>
  %rs = stablehlo.rsqrt %e : tensor<?x?x1xf32>
  %bc = stablehlo.dynamic_broadcast_in_dim %rs, %shape, dims = [0, 1, 2] {known_expanding_dimensions = array<i64: 2>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x?x1xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  %y = stablehlo.multiply %x, %bc : tensor<?x?x16xf32>
  %gb = stablehlo.dynamic_broadcast_in_dim %gamma, %shape, dims = [2] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  %g = stablehlo.multiply %y, %gb : tensor<?x?x16xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<?x?x16xf32> into tensor<?x16xf32>
  %m = stablehlo.dot_general %c, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %m : tensor<?x32xf32>
}

// -----

// The normalized value is read elsewhere too (the residual stream): the chain keeps it, and the
// matmul reads its collapse as before.
// CHECK-LABEL: func @norm_read_elsewhere
// CHECK:         %[[Y:.*]] = stablehlo.multiply %{{.*}}, %{{.*}} : tensor<?x?x16xf32>
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]]
// CHECK:         stablehlo.dot_general %[[C]]
func.func @norm_read_elsewhere(%x: tensor<?x?x16xf32>, %w: tensor<16x32xf32>) -> (tensor<?x32xf32>, tensor<?x?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %b = tensor.dim %x, %c0 : tensor<?x?x16xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x16xf32>
  %b64 = arith.index_cast %b : index to i64
  %s64 = arith.index_cast %s : index to i64
  %c16 = arith.constant 16 : i64
  %shape = tensor.from_elements %b64, %s64, %c16 : tensor<3xi64>
  %r = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<?x?x16xf32>, tensor<f32>) -> tensor<?x?xf32>
  %e = tensor.expand_shape %r [[0], [1, 2]] output_shape [%b, %s, 1] : tensor<?x?xf32> into tensor<?x?x1xf32>
  %bc = stablehlo.dynamic_broadcast_in_dim %e, %shape, dims = [0, 1, 2] {known_expanding_dimensions = array<i64: 2>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x?x1xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  %y = stablehlo.multiply %x, %bc : tensor<?x?x16xf32>
  %c = tensor.collapse_shape %y [[0, 1], [2]] : tensor<?x?x16xf32> into tensor<?x16xf32>
  %m = stablehlo.dot_general %c, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %m, %y : tensor<?x32xf32>, tensor<?x?x16xf32>
}

// -----

// A broadcast whose leading axes may expand (a (1, seq, 16) table over the batch) is an input
// of the chain, collapsed after it is broadcast; no reduction: left alone.
// CHECK-LABEL: func @no_reduction_left
// CHECK:         %[[Y:.*]] = stablehlo.multiply %{{.*}}, %{{.*}} : tensor<?x?x16xf32>
// CHECK:         tensor.collapse_shape %[[Y]]
func.func @no_reduction_left(%x: tensor<?x?x16xf32>, %t: tensor<1x?x16xf32>, %shape: tensor<3xi64>, %w: tensor<16x32xf32>) -> tensor<?x32xf32> {
  %tb = stablehlo.dynamic_broadcast_in_dim %t, %shape, dims = [0, 1, 2] : (tensor<1x?x16xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  %y = stablehlo.multiply %x, %tb : tensor<?x?x16xf32>
  %c = tensor.collapse_shape %y [[0, 1], [2]] : tensor<?x?x16xf32> into tensor<?x16xf32>
  %m = stablehlo.dot_general %c, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %m : tensor<?x32xf32>
}
