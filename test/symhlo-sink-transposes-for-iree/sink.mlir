// RUN: symhlo-opt --symhlo-sink-transposes-for-iree --split-input-file %s | FileCheck %s

// A convolution's channels-last result, back to NCHW for a per-channel scale and a ReLU, then
// to NHWC again for the next one: the ops run on the NHWC value and both transposes are gone.
// The 64x1x1 scale is transposed to 1x1x64 so its broadcast axes stay increasing.
// CHECK-LABEL: func @scale_relu_between_layouts
// CHECK-NOT:     stablehlo.transpose %arg0
// CHECK:         %[[C:.*]] = stablehlo.transpose %arg1, dims = [1, 2, 0] : (tensor<64x1x1xf32>) -> tensor<1x1x64xf32>
// CHECK:         %[[S:.*]] = stablehlo.dynamic_broadcast_in_dim %[[C]], %{{.*}}, dims = [1, 2, 3] {known_expanding_dimensions = array<i64: 0, 1>, known_nonexpanding_dimensions = array<i64: 2>} : (tensor<1x1x64xf32>, tensor<4xi64>) -> tensor<?x?x?x64xf32>
// CHECK:         %[[M:.*]] = stablehlo.multiply %arg0, %[[S]] : tensor<?x?x?x64xf32>
// CHECK:         %[[R:.*]] = stablehlo.maximum %[[M]], %{{.*}} : tensor<?x?x?x64xf32>
// CHECK-NOT:     stablehlo.transpose
// CHECK:         return %[[R]] : tensor<?x?x?x64xf32>
func.func @scale_relu_between_layouts(%y: tensor<?x?x?x64xf32>, %scale: tensor<64x1x1xf32>, %shape: tensor<4xi64>) -> tensor<?x?x?x64xf32> {
  %t = stablehlo.transpose %y, dims = [0, 3, 1, 2] : (tensor<?x?x?x64xf32>) -> tensor<?x64x?x?xf32>
  %s = stablehlo.dynamic_broadcast_in_dim %scale, %shape, dims = [1, 2, 3] {known_expanding_dimensions = array<i64: 1, 2>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<64x1x1xf32>, tensor<4xi64>) -> tensor<?x64x?x?xf32>
  %m = stablehlo.multiply %t, %s : tensor<?x64x?x?xf32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %zb = stablehlo.dynamic_broadcast_in_dim %z, %shape, dims = [] : (tensor<f32>, tensor<4xi64>) -> tensor<?x64x?x?xf32>
  %r = stablehlo.maximum %m, %zb : tensor<?x64x?x?xf32>
  %n = stablehlo.transpose %r, dims = [0, 2, 3, 1] : (tensor<?x64x?x?xf32>) -> tensor<?x?x?x64xf32>
  return %n : tensor<?x?x?x64xf32>
}

// -----

// A residual add of two transposed values (one component from two transposes), a zero pad
// and a size read of the result: one transpose left, after the pad, for the NCHW return.
// CHECK-LABEL: func @residual_pad
// CHECK:         %[[A:.*]] = stablehlo.add %arg0, %arg1 : tensor<2x?x?x8xf32>
// CHECK:         %[[P:.*]] = stablehlo.pad %[[A]], %{{.*}}, low = [0, 1, 2, 0], high = [0, 3, 4, 0], interior = [0, 0, 0, 0] : (tensor<2x?x?x8xf32>, tensor<f32>) -> tensor<2x?x?x8xf32>
// CHECK:         %[[T:.*]] = stablehlo.transpose %[[P]], dims = [0, 3, 1, 2] : (tensor<2x?x?x8xf32>) -> tensor<2x8x?x?xf32>
// CHECK:         stablehlo.get_dimension_size %[[P]], dim = 2
// CHECK-NOT:     stablehlo.transpose
// CHECK:         return %[[T]]
func.func @residual_pad(%a: tensor<2x?x?x8xf32>, %b: tensor<2x?x?x8xf32>) -> (tensor<2x8x?x?xf32>, tensor<i32>) {
  %ta = stablehlo.transpose %a, dims = [0, 3, 1, 2] : (tensor<2x?x?x8xf32>) -> tensor<2x8x?x?xf32>
  %tb = stablehlo.transpose %b, dims = [0, 3, 1, 2] : (tensor<2x?x?x8xf32>) -> tensor<2x8x?x?xf32>
  %s = stablehlo.add %ta, %tb : tensor<2x8x?x?xf32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %p = stablehlo.pad %s, %z, low = [0, 0, 1, 2], high = [0, 0, 3, 4], interior = [0, 0, 0, 0] : (tensor<2x8x?x?xf32>, tensor<f32>) -> tensor<2x8x?x?xf32>
  %d = stablehlo.get_dimension_size %p, dim = 3 : (tensor<2x8x?x?xf32>) -> tensor<i32>
  return %p, %d : tensor<2x8x?x?xf32>, tensor<i32>
}

// -----

// A global average pool's sum over NCHW's H and W of a transposed NHWC value: the reduce reads
// the NHWC value over its axes 1 and 2 (the channels stay innermost).
// CHECK-LABEL: func @pool_sum
// CHECK-NOT:     stablehlo.transpose
// CHECK:         stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [1, 2] : (tensor<?x?x?x16xf32>, tensor<f32>) -> tensor<?x16xf32>
func.func @pool_sum(%y: tensor<?x?x?x16xf32>) -> tensor<?x16xf32> {
  %t = stablehlo.transpose %y, dims = [0, 3, 1, 2] : (tensor<?x?x?x16xf32>) -> tensor<?x16x?x?xf32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %r = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [2, 3] : (tensor<?x16x?x?xf32>, tensor<f32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

// Attention's heads: the transposed queries are scaled and read by a dot_general. Sinking would
// leave a transpose before the dot anyway: nothing changes.
// CHECK-LABEL: func @heads_into_dot
// CHECK:         %[[T:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 1, 3]
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[T]], %{{.*}} : tensor<?x4x?x64xf32>
// CHECK:         stablehlo.dot_general %[[M]]
func.func @heads_into_dot(%q: tensor<?x?x4x64xf32>, %k: tensor<?x4x?x64xf32>, %s: tensor<?x4x?x64xf32>) -> tensor<?x4x?x?xf32> {
  %t = stablehlo.transpose %q, dims = [0, 2, 1, 3] : (tensor<?x?x4x64xf32>) -> tensor<?x4x?x64xf32>
  %m = stablehlo.multiply %t, %s : tensor<?x4x?x64xf32>
  %d = stablehlo.dot_general %m, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>) -> tensor<?x4x?x?xf32>
  return %d : tensor<?x4x?x?xf32>
}

// -----

// An operand that is neither transposed, broadcast nor constant would need a transpose of its
// own: with the one it saves, no fewer transposes, so nothing changes.
// CHECK-LABEL: func @plain_operand
// CHECK:         %[[T:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 1]
// CHECK:         %[[A:.*]] = stablehlo.add %[[T]], %arg1
// CHECK:         stablehlo.transpose %[[A]], dims = [0, 2, 1]
func.func @plain_operand(%x: tensor<?x3x5xf32>, %y: tensor<?x5x3xf32>) -> tensor<?x3x5xf32> {
  %t = stablehlo.transpose %x, dims = [0, 2, 1] : (tensor<?x3x5xf32>) -> tensor<?x5x3xf32>
  %a = stablehlo.add %t, %y : tensor<?x5x3xf32>
  %b = stablehlo.transpose %a, dims = [0, 2, 1] : (tensor<?x5x3xf32>) -> tensor<?x3x5xf32>
  return %b : tensor<?x3x5xf32>
}

// -----

// A GLU between channels-last ops (a Conformer's 1 x 1 conv, GLU, depthwise conv): its two
// channel slices move with the transpose, their offsets / sizes permuted (the dynamic sizes
// with them), and the transposes to NCW and back cancel.
// CHECK-LABEL: func @glu_slices
// CHECK-NOT:     stablehlo.transpose
// CHECK:         %[[A:.*]] = tensor.extract_slice %arg0[0, 0, 0] [%arg1, %arg2, 4] [1, 1, 1] : tensor<?x?x8xf32> to tensor<?x?x4xf32>
// CHECK:         %[[B:.*]] = tensor.extract_slice %arg0[0, 0, 4] [%arg1, %arg2, 4] [1, 1, 1] : tensor<?x?x8xf32> to tensor<?x?x4xf32>
// CHECK:         %[[G:.*]] = stablehlo.logistic %[[B]] : tensor<?x?x4xf32>
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[A]], %[[G]] : tensor<?x?x4xf32>
// CHECK-NOT:     stablehlo.transpose
// CHECK:         return %[[M]]
// The dynamic operands follow their axes: sizes [%a, %b, 4] of the transposed value are [%b, %a,
// 4] of the untransposed one.
// CHECK-LABEL: func @swapped_slice_sizes
// CHECK-NOT:     stablehlo.transpose
// CHECK:         %[[S:.*]] = tensor.extract_slice %arg0[0, 0, 2] [%arg2, %arg1, 4] [1, 1, 1] : tensor<?x?x8xf32> to tensor<?x?x4xf32>
// CHECK:         %[[N:.*]] = stablehlo.negate %[[S]]
// CHECK:         return %[[N]]
func.func @glu_slices(%arg0: tensor<?x?x8xf32>, %arg1: index, %arg2: index) -> tensor<?x?x4xf32> {
  %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<?x?x8xf32>) -> tensor<?x8x?xf32>
  %1 = tensor.extract_slice %0[0, 0, 0] [%arg1, 4, %arg2] [1, 1, 1] : tensor<?x8x?xf32> to tensor<?x4x?xf32>
  %2 = tensor.extract_slice %0[0, 4, 0] [%arg1, 4, %arg2] [1, 1, 1] : tensor<?x8x?xf32> to tensor<?x4x?xf32>
  %3 = stablehlo.logistic %2 : tensor<?x4x?xf32>
  %4 = stablehlo.multiply %1, %3 : tensor<?x4x?xf32>
  %5 = stablehlo.transpose %4, dims = [0, 2, 1] : (tensor<?x4x?xf32>) -> tensor<?x?x4xf32>
  return %5 : tensor<?x?x4xf32>
}
func.func @swapped_slice_sizes(%arg0: tensor<?x?x8xf32>, %arg1: index, %arg2: index) -> tensor<?x?x4xf32> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0, 2] : (tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %1 = tensor.extract_slice %0[0, 0, 2] [%arg1, %arg2, 4] [1, 1, 1] : tensor<?x?x8xf32> to tensor<?x?x4xf32>
  %2 = stablehlo.negate %1 : tensor<?x?x4xf32>
  %3 = stablehlo.transpose %2, dims = [1, 0, 2] : (tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
  return %3 : tensor<?x?x4xf32>
}
