// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree="direct-block-width=16 narrow-block=1" --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree="direct-block-width=16 pool-taps-from-blocks=false narrow-block=1" --split-input-file %s | FileCheck %s --check-prefix=WINDOWS

// conv -> per-channel scale -> ReLU -> 2x2 max pool: the conv is a direct conv over 8 x 16
// blocks, and the scale, the ReLU and the pooling move onto its `B x 8 x 16 x F` blocks (the
// per-channel operand broadcast along F, the scalar one over everything); only the pooled
// `B x 4 x 8 x F` blocks go back to NHWC, sliced to (OH - 2) / 2 + 1 x (OW - 2) / 2 + 1, and
// transposed to NCHW.
// CHECK-LABEL: func @conv_scale_relu_pool
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x16x4xf32>
// CHECK:         %[[S:.*]] = stablehlo.reshape %arg2 : (tensor<4x1x1xf32>) -> tensor<4xf32>
// CHECK:         %[[SB:.*]] = stablehlo.dynamic_broadcast_in_dim %[[S]], %{{.*}}, dims = [3] {{.*}}: (tensor<4xf32>, tensor<4xi64>) -> tensor<?x8x16x4xf32>
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[C]], %[[SB]] : tensor<?x8x16x4xf32>
// CHECK:         %[[ZB:.*]] = stablehlo.dynamic_broadcast_in_dim %{{.*}}, %{{.*}}, dims = [] : (tensor<f32>, tensor<4xi64>) -> tensor<?x8x16x4xf32>
// CHECK:         %[[R:.*]] = stablehlo.maximum %[[M]], %[[ZB]] : tensor<?x8x16x4xf32>
// CHECK:         %[[P:.*]] = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[R]], %{{.*}} : tensor<?x8x16x4xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<?x4x8x4xf32>)
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1, 2], [3], [4], [5]] {{.*}} : tensor<?x4x8x4xf32> into tensor<?x?x?x4x8x4xf32>
// CHECK:         %[[T:.*]] = stablehlo.transpose %[[E]], dims = [0, 1, 3, 2, 4, 5] : (tensor<?x?x?x4x8x4xf32>) -> tensor<?x?x4x?x8x4xf32>
// CHECK:         %[[W:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2], [3, 4], [5]]
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[W]]
// CHECK:         %[[O:.*]] = stablehlo.transpose %[[S]], dims = [0, 3, 1, 2] : (tensor<?x?x?x4xf32>) -> tensor<?x4x?x?xf32>
// CHECK-NOT:     stablehlo.reduce_window
// CHECK:         return %[[O]]
func.func @conv_scale_relu_pool(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>, %arg2: tensor<4x1x1xf32>, %shape: tensor<4xi64>) -> tensor<?x4x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  %1 = stablehlo.dynamic_broadcast_in_dim %arg2, %shape, dims = [1, 2, 3] {known_expanding_dimensions = array<i64: 1, 2>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<4x1x1xf32>, tensor<4xi64>) -> tensor<?x4x?x?xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<?x4x?x?xf32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %zb = stablehlo.dynamic_broadcast_in_dim %z, %shape, dims = [] : (tensor<f32>, tensor<4xi64>) -> tensor<?x4x?x?xf32>
  %3 = stablehlo.maximum %2, %zb : tensor<?x4x?x?xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %4 = "stablehlo.reduce_window"(%3, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  return %4 : tensor<?x4x?x?xf32>
}

// -----

// Overlapping windows (3 x 3, stride 2) read across the conv's blocks: the pooling is computed
// in blocks of 8 x 16 pooled positions, each the maximum of its window's nine taps, which one
// linalg.generic reads from the conv's blocks (-inf outside H x W: the padding), starting from
// the init value (pool_over_gathered_blocks, `_pool_taps`); only the pooled blocks go back to
// NHWC (sliced) and to NCHW. The conv's blocks are not unblocked at all, nor the windows copied.
// CHECK-LABEL: func @conv_overlapping_pool
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x16x4xf32>
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %[[INIT:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x?x?x8x16x4xf32>)
// CHECK:           %[[T0:.*]] = tensor.extract %[[C]]
// CHECK:           %[[V0:.*]] = arith.select %{{.*}}, %[[T0]], %cst
// CHECK:           %[[M0:.*]] = arith.maximumf %[[INIT]], %[[V0]]
// CHECK-COUNT-8:   arith.maximumf
// CHECK:           linalg.yield
// CHECK:         %[[PC:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1, 2], [3], [4], [5]] : tensor<?x?x?x8x16x4xf32> into tensor<?x8x16x4xf32>
// CHECK-NOT:     linalg.pooling_nhwc_max
// CHECK:         tensor.expand_shape %[[PC]]
// CHECK:         %[[S:.*]] = tensor.extract_slice
// CHECK:         stablehlo.transpose %[[S]], dims = [0, 3, 1, 2]
// CHECK-NOT:     linalg.pooling_nchw_max
// Without the taps: the 17 x 33 windows are gathered from the blocks and pooled.
// WINDOWS-LABEL: func @conv_overlapping_pool
// WINDOWS:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x16x4xf32>
// WINDOWS-NOT:     tensor.extract_slice
// WINDOWS:         %[[H:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x?x?x17x33x4xf32>)
// WINDOWS:           tensor.extract %[[C]]
// WINDOWS:         %[[HC:.*]] = tensor.collapse_shape %[[H]] {{\[\[}}0, 1, 2], [3], [4], [5]] : tensor<?x?x?x17x33x4xf32> into tensor<?x17x33x4xf32>
// WINDOWS:         %[[M:.*]] = linalg.pooling_nhwc_max {{.*}} strides = dense<2> {{.*}} ins(%[[HC]], %{{.*}} : tensor<?x17x33x4xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<?x8x16x4xf32>)
// WINDOWS:         tensor.expand_shape %[[M]]
// WINDOWS:         %[[S:.*]] = tensor.extract_slice
// WINDOWS:         stablehlo.transpose %[[S]], dims = [0, 3, 1, 2]
func.func @conv_overlapping_pool(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %4 = "stablehlo.reduce_window"(%0, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 3, 3>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  return %4 : tensor<?x4x?x?xf32>
}

// -----

// The ReLU'd value has a second user (it is returned too), so the pooling does not move onto the
// blocks; the ReLU alone does (chain_over_conv_blocks), and the pooling of its sliced result, a
// channels-last value transposed, runs channels-last between transposes (not over windows
// gathered from the blocks: the NHWC value stays for the return, so that would copy it twice).
// CHECK-LABEL: func @conv_relu_two_users
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK:         stablehlo.maximum %[[C]], %{{.*}} : tensor<?x8x16x4xf32>
// CHECK:         linalg.pooling_nhwc_max {{.*}} outs(%{{.*}} : tensor<?x?x?x4xf32>)
// CHECK-NOT:     linalg.pooling_nchw_max
func.func @conv_relu_two_users(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>, %shape: tensor<4xi64>) -> (tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>) {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %zb = stablehlo.dynamic_broadcast_in_dim %z, %shape, dims = [] : (tensor<f32>, tensor<4xi64>) -> tensor<?x4x?x?xf32>
  %3 = stablehlo.maximum %0, %zb : tensor<?x4x?x?xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %4 = "stablehlo.reduce_window"(%3, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  return %4, %3 : tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>
}
