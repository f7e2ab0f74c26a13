// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree="direct-block-width=16 narrow-block=1" --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree="halo-from-blocks=false halo-in-input-layout-channels=0 direct-block-width=16 narrow-block=1" --split-input-file %s | FileCheck %s --check-prefix=OFF

// conv -> 2x2 max pool -> conv: the second conv's halos (10 x 18 input rows x columns per 8 x 16
// output block, one row and column of padding) are gathered from the pooled `B x 4 x 8 x 4`
// blocks: block (n * RB + y / 4) * OB + x / 8, row y % 4, column x % 8, and zero outside
// H x W. The pooled blocks never go back to NHWC and nothing is padded.
// CHECK-LABEL: func @conv_pool_conv
// CHECK:         %[[P:.*]] = linalg.pooling_nhwc_max {{.*}} -> tensor<?x4x8x4xf32>
// CHECK-NOT:     tensor.extract_slice
// CHECK-NOT:     stablehlo.pad
// CHECK:         %[[H:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x?x?x10x18x4xf32>)
// CHECK:           %[[Y:.*]] = arith.subi %{{.*}}, %c1
// CHECK:           %[[X:.*]] = arith.subi %{{.*}}, %c1
// CHECK:           arith.andi
// CHECK:           arith.andi
// CHECK:           %[[IN:.*]] = arith.andi
// CHECK:           %[[YC:.*]] = arith.select %[[IN]], %[[Y]], %c0
// CHECK:           %[[XC:.*]] = arith.select %[[IN]], %[[X]], %c0
// CHECK-DAG:       %[[XB:.*]] = arith.divui %[[XC]], %c8
// CHECK-DAG:       %[[YB:.*]] = arith.divui %[[YC]], %c4
// CHECK-DAG:       %[[YR:.*]] = arith.remui %[[YC]], %c4
// CHECK-DAG:       %[[XR:.*]] = arith.remui %[[XC]], %c8
// CHECK:           %[[E:.*]] = tensor.extract %[[P]][%{{.*}}, %[[YR]], %[[XR]], %{{.*}}] : tensor<?x4x8x4xf32>
// CHECK:           %[[V:.*]] = arith.select %[[IN]], %[[E]], %cst
// CHECK:           linalg.yield %[[V]]
// CHECK:         tensor.collapse_shape %[[H]]
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x16x8xf32>
// CHECK-NOT:     stablehlo.pad
// CHECK:         return
// Off: the pooled blocks go back to NHWC, are sliced, padded, and copied into halos.
// OFF-LABEL: func @conv_pool_conv
// OFF:         linalg.pooling_nhwc_max
// OFF:         tensor.extract_slice
// OFF:         stablehlo.pad
// OFF:         linalg.generic {{.*}} ins(
// OFF:         linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x16x8xf32>
func.func @conv_pool_conv(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>, %arg2: tensor<8x4x3x3xf32>) -> tensor<?x8x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %1 = "stablehlo.reduce_window"(%0, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  %2 = stablehlo.convolution(%1, %arg2) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x?x?xf32>
  return %2 : tensor<?x8x?x?xf32>
}

// -----

// A stride-2 conv reading a conv that is returned too: its 17 x 33 halos (block rows and columns
// 16 and 32 apart) are gathered from the first conv's 8 x 16 blocks; the first conv's blocks
// still go back to NCHW for the return.
// CHECK-LABEL: func @conv_conv_two_users
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x16x4xf32>
// CHECK:         %[[S:.*]] = tensor.extract_slice
// CHECK:         %[[R:.*]] = stablehlo.transpose %[[S]], dims = [0, 3, 1, 2]
// CHECK-NOT:     stablehlo.pad
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<?x?x?x17x33x4xf32>)
// CHECK:           affine.apply #{{.*}}(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:           tensor.extract %[[C]]
// CHECK:         linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK:         return %{{.*}}, %[[R]]
func.func @conv_conv_two_users(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>, %arg2: tensor<8x4x3x3xf32>) -> (tensor<?x8x?x?xf32>, tensor<?x4x?x?xf32>) {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  %2 = stablehlo.convolution(%0, %arg2) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x?x?xf32>
  return %2, %0 : tensor<?x8x?x?xf32>, tensor<?x4x?x?xf32>
}

// -----

// A residual add between the convs: the second conv's input is not blocks, so it is padded and
// its halos gathered from the NCHW sum itself, padded in that layout (4 channels:
// read_halo_in_input_layout; no transpose of the sum).
// CHECK-LABEL: func @residual_add_conv
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK:         %[[S:.*]] = stablehlo.add
// CHECK-NOT:     stablehlo.transpose %[[S]]
// CHECK:         %[[P:.*]] = stablehlo.pad %[[S]], %{{.*}}, low = [0, 0, 1, 1], high = [0, 0, 8, 16]
// CHECK:         linalg.generic {{.*}} ins(%[[P]] : tensor<?x4x?x?xf32>) outs(%{{.*}} : tensor<?x?x?x10x18x4xf32>)
// CHECK:         linalg.conv_2d_nhwc_hwcf
func.func @residual_add_conv(%arg0: tensor<?x4x?x?xf32>, %arg1: tensor<4x4x3x3xf32>, %arg2: tensor<8x4x3x3xf32>) -> tensor<?x8x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x4x?x?xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x?x?xf32>
  %1 = stablehlo.add %0, %arg0 : tensor<?x4x?x?xf32>
  %2 = stablehlo.convolution(%1, %arg2) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x?x?xf32>
  return %2 : tensor<?x8x?x?xf32>
}
