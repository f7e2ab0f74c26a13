// RUN: symhlo-opt --pass-pipeline='builtin.module(symhlo-lower-dynamic-windows-for-iree{block-width=1})' --split-input-file --verify-diagnostics %s | FileCheck %s

// Grouped 1-D convolution (wav2vec2's positional conv) over a `?` time axis: linalg has no
// grouped 1-D named op, so it is the grouped 2-D one over a unit height.
// CHECK-LABEL: func @conv1d_groups
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 0, 2], high = [0, 0, 2], interior = [0, 0, 0]
// CHECK:         %[[X4:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1], [2, 3]] output_shape [%{{.*}}, 8, 1, %{{.*}}] : tensor<?x8x?xf32> into tensor<?x8x1x?xf32>
// CHECK:         %[[K4:.*]] = stablehlo.reshape %arg1 : (tensor<8x2x5xf32>) -> tensor<8x2x1x5xf32>
// CHECK:         %[[X5:.*]] = tensor.expand_shape %[[X4]] {{\[}}[0], [1, 2], [3], [4]] output_shape [%{{.*}}, 4, 2, 1, %{{.*}}] : tensor<?x8x1x?xf32> into tensor<?x4x2x1x?xf32>
// CHECK:         %[[K5:.*]] = stablehlo.reshape %[[K4]] : (tensor<8x2x1x5xf32>) -> tensor<4x2x2x1x5xf32>
// CHECK:         %[[C:.*]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[1, 3]> : tensor<2xi64>} ins(%[[X5]], %[[K5]] : tensor<?x4x2x1x?xf32>, tensor<4x2x2x1x5xf32>) outs(%{{.*}} : tensor<?x4x2x1x?xf32>)
// CHECK:         %[[R4:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<?x4x2x1x?xf32> into tensor<?x8x1x?xf32>
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[R4]] {{\[}}[0], [1], [2, 3]] : tensor<?x8x1x?xf32> into tensor<?x8x?xf32>
// CHECK:         return %[[R]]
// CHECK-NOT:     stablehlo.convolution
func.func @conv1d_groups(%arg0: tensor<?x8x?xf32>, %arg1: tensor<8x2x5xf32>) -> tensor<?x8x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [3], pad = [[2, 2]], rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<?x8x?xf32>, tensor<8x2x5xf32>) -> tensor<?x8x?xf32>
  return %0 : tensor<?x8x?xf32>
}

// -----

// Depthwise 1-D (groups = channels, a Conformer's conv module) is linalg's channels-last
// depthwise 1-D conv instead (option depthwise-channels-last).
// CHECK-LABEL: func @conv1d_depthwise
// CHECK:         linalg.depthwise_conv_1d_nwc_wc {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%{{.*}}, %{{.*}} : tensor<2x?x6xf32>, tensor<3x6xf32>)
// CHECK-NOT:     linalg.conv_2d_ngchw_gfchw
func.func @conv1d_depthwise(%arg0: tensor<2x6x?xf32>, %arg1: tensor<6x1x3xf32>) -> tensor<2x6x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[1, 1]], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 6 : i64} : (tensor<2x6x?xf32>, tensor<6x1x3xf32>) -> tensor<2x6x?xf32>
  return %0 : tensor<2x6x?xf32>
}

// -----

// Conv3d over `?` depth / height / width: im2col over the 27 window positions, one matmul.
// CHECK-LABEL: func @conv3d
// CHECK:         %[[T:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 3, 4, 1]
// CHECK:         %[[P:.*]] = stablehlo.pad %[[T]], %{{.*}}, low = [0, 1, 1, 1, 0], high = [0, 1, 1, 1, 0], interior = [0, 0, 0, 0, 0]
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<?x?x?x?x3x3x3x2xf32>)
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<?x54xf32>, tensor<54x4xf32>) -> tensor<?x4xf32>
// CHECK:         stablehlo.transpose %{{.*}}, dims = [0, 4, 1, 2, 3] : (tensor<?x?x?x?x4xf32>) -> tensor<?x4x?x?x?xf32>
// CHECK-NOT:     stablehlo.convolution
func.func @conv3d(%arg0: tensor<?x2x?x?x?xf32>, %arg1: tensor<4x2x3x3x3xf32>) -> tensor<?x4x?x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1, 2]x[o, i, 0, 1, 2]->[b, f, 0, 1, 2], window = {stride = [1, 2, 2], pad = [[1, 1], [1, 1], [1, 1]], rhs_dilate = [1, 1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x2x?x?x?xf32>, tensor<4x2x3x3x3xf32>) -> tensor<?x4x?x?x?xf32>
  return %0 : tensor<?x4x?x?x?xf32>
}

// -----

func.func @conv3d_groups_failure(%arg0: tensor<1x4x?x5x5xf32>, %arg1: tensor<4x2x3x3x3xf32>) -> tensor<1x4x?x3x3xf32> {
  // expected-error@+1 {{'stablehlo.convolution' over dynamic spatial dims with feature_group_count = 2 on a 3-D convolution has no IREE lowering (symhlo-lower-dynamic-windows-for-iree)}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1, 2]x[o, i, 0, 1, 2]->[b, f, 0, 1, 2], window = {stride = [1, 1, 1], pad = [[0, 0], [0, 0], [0, 0]], rhs_dilate = [1, 1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x?x5x5xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x?x3x3xf32>
  return %0 : tensor<1x4x?x3x3xf32>
}

// -----

// 3-D pooling: linalg pools NDHWC only, so the padded input is transposed there and back.
// CHECK-LABEL: func @max_pool3d
// CHECK:         %[[X:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 3, 4, 1] : (tensor<?x3x?x?x?xf32>) -> tensor<?x?x?x?x3xf32>
// CHECK:         %[[T:.*]] = stablehlo.pad %[[X]], %{{.*}}, low = [0, 0, 0, 0, 0], high = [0, 1, 1, 1, 0], interior = [0, 0, 0, 0, 0]
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?x?x3xf32>
// CHECK:         %[[K:.*]] = tensor.empty() : tensor<3x3x3xf32>
// CHECK:         %[[M:.*]] = linalg.pooling_ndhwc_max {dilations = dense<1> : tensor<3xi64>, strides = dense<2> : tensor<3xi64>} ins(%[[T]], %[[K]] : tensor<?x?x?x?x3xf32>, tensor<3x3x3xf32>) outs(%{{.*}} : tensor<?x?x?x?x3xf32>)
// CHECK:         %[[R:.*]] = stablehlo.transpose %[[M]], dims = [0, 4, 1, 2, 3] : (tensor<?x?x?x?x3xf32>) -> tensor<?x3x?x?x?xf32>
// CHECK:         return %[[R]]
func.func @max_pool3d(%arg0: tensor<?x3x?x?x?xf32>) -> tensor<?x3x?x?x?xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[0, 0], [0, 0], [0, 1], [0, 1], [0, 1]]> : tensor<5x2xi64>, window_dimensions = array<i64: 1, 1, 3, 3, 3>, window_strides = array<i64: 1, 1, 2, 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x3x?x?x?xf32>, tensor<f32>) -> tensor<?x3x?x?x?xf32>
  return %0 : tensor<?x3x?x?x?xf32>
}

// -----

// The sum behind avg_pool3d, over a `?` batch alone (IREE 3.13 rejects that reduce_window too).
// CHECK-LABEL: func @sum_pool3d_batch_only
// CHECK:         stablehlo.transpose %arg0, dims = [0, 2, 3, 4, 1]
// CHECK:         linalg.pooling_ndhwc_sum {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 2]> : tensor<3xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x4x6x6x3xf32>, tensor<2x2x2xf32>) outs(%{{.*}} : tensor<?x3x3x3x3xf32>)
// CHECK:         stablehlo.transpose %{{.*}}, dims = [0, 4, 1, 2, 3] : (tensor<?x3x3x3x3xf32>) -> tensor<?x3x3x3x3xf32>
// CHECK-NOT:     stablehlo.reduce_window
func.func @sum_pool3d_batch_only(%arg0: tensor<?x3x4x6x6xf32>) -> tensor<?x3x3x3x3xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{window_dimensions = array<i64: 1, 1, 2, 2, 2>, window_strides = array<i64: 1, 1, 1, 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x3x4x6x6xf32>, tensor<f32>) -> tensor<?x3x3x3x3xf32>
  return %0 : tensor<?x3x3x3x3xf32>
}
