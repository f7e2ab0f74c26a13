// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree="narrow-block=1" --split-input-file %s | FileCheck %s --check-prefix=EIGHT

// A narrow direct convolution (at most 16 input channels and 16 filters, option
// narrow-max-channels) over `?` H/W computes blocks of 16 x 16 output positions (option
// narrow-block): each block's halo is 18 x 18 for 3 x 3 at stride 1 (1.27 times the block,
// against 10 x 10 per 8 x 8 block, 1.56), and the input is padded 15 more rows and columns.
// CHECK-LABEL: func @narrow_conv
// CHECK:         stablehlo.pad %{{.*}}, %{{.*}}, low = [0, 1, 1, 0], high = [0, 16, 16, 0]
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<?x?x?x18x18x8xf32>)
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x18x18x8xf32>, tensor<3x3x8x16xf32>) outs(%{{.*}} : tensor<?x16x16x16xf32>)
// EIGHT-LABEL: func @narrow_conv
// EIGHT:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x10x10x8xf32>, tensor<3x3x8x16xf32>) outs(%{{.*}} : tensor<?x8x8x16xf32>)
func.func @narrow_conv(%arg0: tensor<?x8x?x?xf32>, %arg1: tensor<16x8x3x3xf32>) -> tensor<?x16x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x8x?x?xf32>, tensor<16x8x3x3xf32>) -> tensor<?x16x?x?xf32>
  return %0 : tensor<?x16x?x?xf32>
}

// -----

// 17 filters: not narrow, blocks of 8 x 8 (options block-rows, direct-block-width).
// CHECK-LABEL: func @wider_conv
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x10x10x8xf32>, tensor<3x3x8x17xf32>) outs(%{{.*}} : tensor<?x8x8x17xf32>)
func.func @wider_conv(%arg0: tensor<?x8x?x?xf32>, %arg1: tensor<17x8x3x3xf32>) -> tensor<?x17x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x8x?x?xf32>, tensor<17x8x3x3xf32>) -> tensor<?x17x?x?xf32>
  return %0 : tensor<?x17x?x?xf32>
}
