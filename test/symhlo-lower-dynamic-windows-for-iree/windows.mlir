// RUN: symhlo-opt --pass-pipeline='builtin.module(symhlo-lower-dynamic-windows-for-iree{block-width=1})' --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: symhlo-opt --pass-pipeline='builtin.module(symhlo-lower-dynamic-windows-for-iree{block-width=1 im2col-row-group=0})' --split-input-file --verify-diagnostics %s | FileCheck %s --check-prefix=OFF

// Convolutions and pooling over `?` spatial dims -> stablehlo.pad + linalg, with the output
// extents computed from the padded input: (padded - dilation*(window-1) - 1) / stride + 1.
// Without blocks here (block-width=1); blocks.mlir has the default, blocks of 16 columns.
// An ungrouped convolution becomes im2col + one matmul, channels-last: a linalg.generic reads
// each patch (input map n, oh*stride + kh, ow*stride + kw, c), the patches collapse to
// (N*OH*OW) x (KH*KW*C) rows, a 2-D dot_general with the (KH*KW*C) x F kernel, and back.

// CHECK-DAG:   #[[READ:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func @conv2d_stride_pad
// CHECK-DAG:     %[[ZT:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[KT:.*]] = stablehlo.transpose %arg1, dims = [2, 3, 1, 0] : (tensor<4x3x3x3xf32>) -> tensor<3x3x3x4xf32>
// CHECK:         %[[XT:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 3, 1] : (tensor<?x3x?x?xf32>) -> tensor<?x?x?x3xf32>
// CHECK:         %[[P:.*]] = stablehlo.pad %[[XT]], %[[ZT]], low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0] : (tensor<?x?x?x3xf32>, tensor<f32>) -> tensor<?x?x?x3xf32>
// CHECK:         %[[N:.*]] = tensor.dim %[[XT]], %{{.*}} : tensor<?x?x?x3xf32>
// CHECK:         %[[PH:.*]] = tensor.dim %[[P]], %{{.*}} : tensor<?x?x?x3xf32>
// CHECK:         %[[H1:.*]] = arith.subi %[[PH]], %{{.*}} : index
// CHECK:         %[[H2:.*]] = arith.divsi %[[H1]], %{{.*}} : index
// CHECK:         %[[OH:.*]] = arith.addi %[[H2]], %{{.*}} : index
// CHECK:         %[[PW:.*]] = tensor.dim %[[P]], %{{.*}} : tensor<?x?x?x3xf32>
// CHECK:         %[[OW:.*]] = arith.addi
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]], %[[OH]], %[[OW]]) : tensor<?x?x?x3x3x3xf32>
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [#[[READ]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[P]] : tensor<?x?x?x3xf32>) outs(%[[E]] : tensor<?x?x?x3x3x3xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<?x?x?x3x3x3xf32> into tensor<?x27xf32>
// CHECK:         %[[K2:.*]] = stablehlo.reshape %[[KT]] : (tensor<3x3x3x4xf32>) -> tensor<27x4xf32>
// CHECK:         %[[MM:.*]] = stablehlo.dot_general %[[ROWS]], %[[K2]], contracting_dims = [1] x [0] : (tensor<?x27xf32>, tensor<27x4xf32>) -> tensor<?x4xf32>
// CHECK:         %[[Y:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1, 2], [3]] output_shape [%[[N]], %[[OH]], %[[OW]], 4] : tensor<?x4xf32> into tensor<?x?x?x4xf32>
// CHECK:         %[[R:.*]] = stablehlo.transpose %[[Y]], dims = [0, 3, 1, 2] : (tensor<?x?x?x4xf32>) -> tensor<?x4x?x?xf32>
// CHECK:         return %[[R]]
// CHECK-NOT:     stablehlo.convolution
func.func @conv2d_stride_pad(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// At least tap-slices-min-channels (64) input channels over a `?` row count: the patches are
// one strided slice of the padded input per window tap (offsets tap * dilation, the output
// extents, the conv's strides), concatenated along the channels in the kernel's (KH, KW, C)
// order; IREE copies them as rows (its code for the generic copy over `?` rows was ~3x slower).
// CHECK-LABEL: func @conv2d_wide_tap_slices
// CHECK:         %[[P:.*]] = stablehlo.pad %{{.*}}, low = [0, 1, 2, 0], high = [0, 1, 2, 0]
// CHECK:         %[[N:.*]] = tensor.dim
// CHECK:         %[[OH:.*]] = arith.addi
// CHECK:         %[[OW:.*]] = arith.addi
// CHECK-NOT:     linalg.generic
// CHECK:         %[[T00:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [%[[N]], %[[OH]], %[[OW]], 64] [1, 2, 1, 1] : tensor<?x?x?x64xf32> to tensor<?x?x?x64xf32>
// CHECK:         %[[T01:.*]] = tensor.extract_slice %[[P]][0, 0, 2, 0] [%[[N]], %[[OH]], %[[OW]], 64] [1, 2, 1, 1]
// CHECK:         %[[T02:.*]] = tensor.extract_slice %[[P]][0, 0, 4, 0] [%[[N]], %[[OH]], %[[OW]], 64] [1, 2, 1, 1]
// CHECK:         %[[T10:.*]] = tensor.extract_slice %[[P]][0, 1, 0, 0] [%[[N]], %[[OH]], %[[OW]], 64] [1, 2, 1, 1]
// CHECK-COUNT-4: tensor.extract_slice %[[P]]
// CHECK:         %[[T22:.*]] = tensor.extract_slice %[[P]][0, 2, 4, 0] [%[[N]], %[[OH]], %[[OW]], 64] [1, 2, 1, 1]
// CHECK:         %[[CAT:.*]] = tensor.concat dim(3) %[[T00]], %[[T01]], %[[T02]], %[[T10]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[T22]] : ({{.*}}) -> tensor<?x?x?x576xf32>
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[CAT]] {{\[\[}}0, 1, 2], [3]] : tensor<?x?x?x576xf32> into tensor<?x576xf32>
// CHECK:         %[[K2:.*]] = stablehlo.reshape %{{.*}} : (tensor<3x3x64x8xf32>) -> tensor<576x8xf32>
// CHECK:         stablehlo.dot_general %[[ROWS]], %[[K2]], contracting_dims = [1] x [0] : (tensor<?x576xf32>, tensor<576x8xf32>) -> tensor<?x8xf32>
// CHECK-NOT:     stablehlo.convolution
func.func @conv2d_wide_tap_slices(%arg0: tensor<?x64x?x?xf32>, %arg1: tensor<8x64x3x3xf32>) -> tensor<?x8x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 1], pad = [[1, 1], [2, 2]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x64x?x?xf32>, tensor<8x64x3x3xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}

// -----

// One filter (a one-class segmentation head, 1x1 kernel over 8 channels): the `? x 8` by `8 x 1`
// product is a linalg.matmul; as a dot_general, IREE 3.13 made it a matrix-vector product
// through a `stablehlo.reshape` to `?x1` that it then rejected.
// CHECK-LABEL: func @conv2d_one_filter
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<?x?x?x1x1x8xf32> into tensor<?x8xf32>
// CHECK:         %[[K2:.*]] = stablehlo.reshape %{{.*}} : (tensor<1x1x8x1xf32>) -> tensor<8x1xf32>
// CHECK:         %[[R:.*]] = tensor.dim %[[ROWS]], %{{.*}} : tensor<?x8xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[R]]) : tensor<?x1xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x1xf32>)
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[ROWS]], %[[K2]] : tensor<?x8xf32>, tensor<8x1xf32>) outs(%[[F]] : tensor<?x1xf32>)
// CHECK:         tensor.expand_shape %[[MM]] {{\[\[}}0, 1, 2], [3]] output_shape [%{{.*}}, %{{.*}}, %{{.*}}, 1] : tensor<?x1xf32> into tensor<?x?x?x1xf32>
// CHECK-NOT:     stablehlo.dot_general
// CHECK-NOT:     stablehlo.convolution
func.func @conv2d_one_filter(%arg0: tensor<?x8x?x?xf32>, %arg1: tensor<1x8x1x1xf32>) -> tensor<?x1x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x8x?x?xf32>, tensor<1x8x1x1xf32>) -> tensor<?x1x?x?xf32>
  return %0 : tensor<?x1x?x?xf32>
}

// -----

// A dynamic batch alone compiles in IREE as StableHLO: left alone.
// CHECK-LABEL: func @conv2d_dynamic_batch_only_unchanged
// CHECK:         stablehlo.convolution
// CHECK-NOT:     linalg
func.func @conv2d_dynamic_batch_only_unchanged(%arg0: tensor<?x3x8x8xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

// More input channels than block-max-channels (128) over static spatial dims: an im2col matmul
// too (option wide-static-as-matmul), whose rows are static when the batch is; over the `?`
// batch the patches are one slice per tap (tap-slices-min-channels), static but for the batch.
// CHECK-LABEL: func @conv2d_wide_static_spatial
// CHECK-NOT:     stablehlo.convolution
// CHECK-COUNT-9: tensor.extract_slice {{.*}} : tensor<?x4x4x160xf32> to tensor<?x2x2x160xf32>
// CHECK:         tensor.concat dim(3) {{.*}} -> tensor<?x2x2x1440xf32>
// CHECK:         tensor.collapse_shape {{.*}} into tensor<?x1440xf32>
// CHECK:         stablehlo.dot_general {{.*}} : (tensor<?x1440xf32>, tensor<1440x4xf32>) -> tensor<?x4xf32>
// CHECK-LABEL: func @conv2d_wide_all_static
// CHECK:         tensor.collapse_shape {{.*}} into tensor<8x1440xf32>
// CHECK:         stablehlo.dot_general {{.*}} -> tensor<8x4xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<2x2x2x4xf32>
func.func @conv2d_wide_static_spatial(%arg0: tensor<?x160x4x4xf32>, %arg1: tensor<4x160x3x3xf32>) -> tensor<?x4x2x2xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x160x4x4xf32>, tensor<4x160x3x3xf32>) -> tensor<?x4x2x2xf32>
  return %0 : tensor<?x4x2x2xf32>
}
func.func @conv2d_wide_all_static(%arg0: tensor<2x160x4x4xf32>, %arg1: tensor<4x160x3x3xf32>) -> tensor<2x4x2x2xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x160x4x4xf32>, tensor<4x160x3x3xf32>) -> tensor<2x4x2x2xf32>
  return %0 : tensor<2x4x2x2xf32>
}

// -----

// A static result whose 196 positions fill 13 groups of 16 rows (208, at most an eighth more):
// the patch rows are grouped by 16 (option im2col-row-group), read at position
// min(g * 16 + t, 195) = (n, oh, ow) by division, so that IREE's pack of the matmul rows fuses
// into the patch loop; the 12 surplus rows are sliced off the product.
// CHECK-LABEL: func @conv2d_wide_static_row_groups
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<13x16x3x3x144xf32>)
// CHECK:           %[[M:.*]] = arith.minsi %{{.*}}, %c195
// CHECK:           arith.remui %[[M]], %c14
// CHECK:           tensor.extract
// CHECK:         tensor.collapse_shape %[[P]] {{.*}} into tensor<208x1296xf32>
// CHECK:         %[[Y:.*]] = stablehlo.dot_general {{.*}} -> tensor<208x4xf32>
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[Y]][0, 0] [196, 4]
// CHECK:         tensor.expand_shape %[[S]] {{.*}} into tensor<1x14x14x4xf32>
// OFF-LABEL: func @conv2d_wide_static_row_groups
// OFF:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1x14x14x3x3x144xf32>)
func.func @conv2d_wide_static_row_groups(%arg0: tensor<1x144x16x16xf32>, %arg1: tensor<4x144x3x3xf32>) -> tensor<1x4x14x14xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x144x16x16xf32>, tensor<4x144x3x3xf32>) -> tensor<1x4x14x14xf32>
  return %0 : tensor<1x4x14x14xf32>
}

// -----

// A 1 x 1 window over static spatial dims (ResNet's strided downsampling conv, here with 64
// channels, under block-max-channels): a matmul too (option pointwise-static-as-matmul), the
// strided im2col a copy of every other position (over the `?` batch its one tap's strided
// slice); one input channel stays with IREE.
// CHECK-LABEL: func @conv2d_pointwise_strided_static
// CHECK-NOT:     stablehlo.convolution
// CHECK:         %[[S:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [%{{.*}}, 4, 4, 64] [1, 2, 2, 1] : tensor<?x8x8x64xf32> to tensor<?x4x4x64xf32>
// CHECK-NOT:     tensor.concat
// CHECK:         tensor.collapse_shape %[[S]] {{.*}} into tensor<?x64xf32>
// CHECK:         stablehlo.dot_general {{.*}} : (tensor<?x64xf32>, tensor<64x128xf32>) -> tensor<?x128xf32>
// CHECK:         stablehlo.transpose {{.*}} dims = [0, 3, 1, 2] : (tensor<?x4x4x128xf32>) -> tensor<?x128x4x4xf32>
// CHECK-LABEL: func @conv2d_pointwise_one_channel_unchanged
// CHECK:         stablehlo.convolution
// CHECK-NOT:     linalg
func.func @conv2d_pointwise_strided_static(%arg0: tensor<?x64x8x8xf32>, %arg1: tensor<128x64x1x1xf32>) -> tensor<?x128x4x4xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x64x8x8xf32>, tensor<128x64x1x1xf32>) -> tensor<?x128x4x4xf32>
  return %0 : tensor<?x128x4x4xf32>
}
func.func @conv2d_pointwise_one_channel_unchanged(%arg0: tensor<?x1x8x8xf32>, %arg1: tensor<4x1x1x1xf32>) -> tensor<?x4x8x8xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x1x8x8xf32>, tensor<4x1x1x1xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

// A wide static transposed convolution (lhs dilation) stays with IREE.
// CHECK-LABEL: func @conv_transpose_wide_static_unchanged
// CHECK:         stablehlo.convolution
// CHECK-NOT:     linalg
func.func @conv_transpose_wide_static_unchanged(%arg0: tensor<?x160x4x4xf32>, %arg1: tensor<4x160x3x3xf32>) -> tensor<?x4x9x9xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x160x4x4xf32>, tensor<4x160x3x3xf32>) -> tensor<?x4x9x9xf32>
  return %0 : tensor<?x4x9x9xf32>
}

// -----

// A grouped convolution with only the batch dynamic: IREE 3.13 fails to legalize it. A
// depthwise one (one input channel per group) is a channels-last linalg depthwise conv between
// transposes (option depthwise-channels-last), a channel multiplier M > 1 its `_hwcm` form with
// the G x M output channels collapsed group-major; any other takes the grouped NCHW linalg form.
// CHECK-LABEL: func @depthwise_dynamic_batch_only
// CHECK:         %[[K:.*]] = stablehlo.transpose %arg1, dims = [2, 3, 1, 0] : (tensor<8x1x3x3xf32>) -> tensor<3x3x1x8xf32>
// CHECK:         %[[KR:.*]] = stablehlo.reshape %[[K]] : (tensor<3x3x1x8xf32>) -> tensor<3x3x8xf32>
// CHECK:         %[[X:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 3, 1]
// CHECK:         %[[P:.*]] = stablehlo.pad %[[X]], %{{.*}}, low = [0, 1, 1, 0], high = [0, 1, 1, 0]
// CHECK:         %[[Y:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[P]], %[[KR]] : tensor<?x10x10x8xf32>, tensor<3x3x8xf32>) outs(%{{.*}} : tensor<?x8x8x8xf32>)
// CHECK:         stablehlo.transpose %[[Y]], dims = [0, 3, 1, 2]
// CHECK-NOT:     stablehlo.convolution
// CHECK-LABEL: func @depthwise_multiplier_dynamic_hw
// CHECK:         stablehlo.reshape %{{.*}} : (tensor<3x3x1x8xf32>) -> tensor<3x3x4x2xf32>
// CHECK:         %[[Y:.*]] = linalg.depthwise_conv_2d_nhwc_hwcm {{.*}}strides = dense<2> {{.*}} outs(%{{.*}} : tensor<2x?x?x4x2xf32>)
// CHECK:         tensor.collapse_shape %[[Y]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<2x?x?x4x2xf32> into tensor<2x?x?x8xf32>
// CHECK-LABEL: func @depthwise_1d_multiplier
// CHECK:         stablehlo.reshape %{{.*}} : (tensor<5x1x8xf32>) -> tensor<5x4x2xf32>
// CHECK:         stablehlo.pad %{{.*}}, %{{.*}}, low = [0, 2, 0], high = [0, 2, 0]
// CHECK:         %[[Y:.*]] = linalg.depthwise_conv_1d_nwc_wcm {{.*}}strides = dense<2> {{.*}} outs(%{{.*}} : tensor<?x?x4x2xf32>)
// CHECK:         tensor.collapse_shape %[[Y]] {{\[\[}}0], [1], [2, 3]] : tensor<?x?x4x2xf32> into tensor<?x?x8xf32>
// CHECK-LABEL: func @grouped_dynamic_batch_only
// CHECK:         tensor.expand_shape
// CHECK:         linalg.conv_2d_ngchw_gfchw
// CHECK:         tensor.collapse_shape
// CHECK-NOT:     stablehlo.convolution
func.func @depthwise_dynamic_batch_only(%arg0: tensor<?x8x8x8xf32>, %arg1: tensor<8x1x3x3xf32>) -> tensor<?x8x8x8xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 8 : i64} : (tensor<?x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<?x8x8x8xf32>
  return %0 : tensor<?x8x8x8xf32>
}
func.func @depthwise_multiplier_dynamic_hw(%arg0: tensor<2x4x?x?xf32>, %arg1: tensor<8x1x3x3xf32>) -> tensor<2x8x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<2x4x?x?xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x?x?xf32>
  return %0 : tensor<2x8x?x?xf32>
}
func.func @depthwise_1d_multiplier(%arg0: tensor<?x4x?xf32>, %arg1: tensor<8x1x5xf32>) -> tensor<?x8x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2], pad = [[2, 2]], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<?x4x?xf32>, tensor<8x1x5xf32>) -> tensor<?x8x?xf32>
  return %0 : tensor<?x8x?xf32>
}
func.func @grouped_dynamic_batch_only(%arg0: tensor<?x8x8x8xf32>, %arg1: tensor<8x2x3x3xf32>) -> tensor<?x8x8x8xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<?x8x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<?x8x8x8xf32>
  return %0 : tensor<?x8x8x8xf32>
}

// -----

// No padding: no pad op; dilation 2 widens the window span to 2*(3-1)+1 = 5 and spaces the
// patch reads (input map ow + 2*kw).
// CHECK-DAG:   #[[READ1:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 + d2 * 2, d3)>
// CHECK-LABEL: func @conv1d_dilated
// CHECK-NOT:     stablehlo.pad
// CHECK:         %[[W:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<2x?x3xf32>
// CHECK:         %[[C5:.*]] = arith.constant 5 : index
// CHECK:         %[[S:.*]] = arith.subi %[[W]], %[[C5]] : index
// CHECK:         %[[OW:.*]] = arith.addi %[[S]], %{{.*}} : index
// CHECK:         %[[E:.*]] = tensor.empty(%[[OW]]) : tensor<2x?x3x3xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[READ1]], {{.*}}]
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<?x9xf32>, tensor<9x4xf32>) -> tensor<?x4xf32>
func.func @conv1d_dilated(%arg0: tensor<2x3x?xf32>, %arg1: tensor<4x3x3xf32>) -> tensor<2x4x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[0, 0]], rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x?xf32>, tensor<4x3x3xf32>) -> tensor<2x4x?xf32>
  return %0 : tensor<2x4x?xf32>
}

// -----

// Feature groups: N x (G*C) x H x W -> N x G x C x H x W, kernel (G*F) x C -> G x F x C.
// CHECK-LABEL: func @conv2d_groups
// CHECK:         %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [%{{.*}}, 2, 2, %{{.*}}, %{{.*}}] : tensor<?x4x?x?xf32> into tensor<?x2x2x?x?xf32>
// CHECK:         %[[K:.*]] = stablehlo.reshape %arg1 : (tensor<6x2x3x3xf32>) -> tensor<2x3x2x3x3xf32>
// CHECK:         %[[C:.*]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[K]] : tensor<?x2x2x?x?xf32>, tensor<2x3x2x3x3xf32>) outs(%{{.*}} : tensor<?x2x3x?x?xf32>)
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<?x2x3x?x?xf32> into tensor<?x6x?x?xf32>
// CHECK:         return %[[R]]
func.func @conv2d_groups(%arg0: tensor<?x4x?x?xf32>, %arg1: tensor<6x2x3x3xf32>) -> tensor<?x6x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<?x4x?x?xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x?x?xf32>
  return %0 : tensor<?x6x?x?xf32>
}

// -----

// Transposed convolution (torch's ConvTranspose2d): the HWOI kernel is transposed to OIHW and
// the lhs dilation becomes interior padding.
// CHECK-LABEL: func @conv_transpose2d
// CHECK:         %[[K:.*]] = stablehlo.transpose %arg1, dims = [2, 3, 0, 1] : (tensor<2x2x3x4xf32>) -> tensor<3x4x2x2xf32>
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 0, 1, 1], high = [0, 0, 1, 1], interior = [0, 0, 1, 1]
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[P]], %[[K]] : tensor<?x4x?x?xf32>, tensor<3x4x2x2xf32>)
func.func @conv_transpose2d(%arg0: tensor<?x4x?x?xf32>, %arg1: tensor<2x2x3x4xf32>) -> tensor<?x3x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[0, 1, o, i]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x4x?x?xf32>, tensor<2x2x3x4xf32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}

// -----

// Max pooling: the padding holds the init value (-inf), the output starts at the init value.
// CHECK-LABEL: func @max_pool2d
// CHECK:         %[[INIT:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:         %[[I:.*]] = tensor.extract %[[INIT]][] : tensor<f32>
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %[[INIT]], low = [0, 0, 1, 1], high = [0, 0, 1, 1], interior = [0, 0, 0, 0]
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x3x?x?xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%[[I]] : f32) outs(%[[E]] : tensor<?x3x?x?xf32>)
// CHECK:         %[[K:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[K]] : tensor<?x3x?x?xf32>, tensor<3x3xf32>) outs(%[[F]] : tensor<?x3x?x?xf32>)
// CHECK-NOT:     stablehlo.reduce_window
func.func @max_pool2d(%arg0: tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 3, 3>, window_strides = array<i64: 1, 1, 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x3x?x?xf32>, tensor<f32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}

// -----

// The sum behind avg_pool2d, without padding.
// CHECK-LABEL: func @sum_pool2d
// CHECK-NOT:     stablehlo.pad
// CHECK:         linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%arg0, %{{.*}} : tensor<?x3x?x?xf32>, tensor<2x2xf32>)
func.func @sum_pool2d(%arg0: tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x3x?x?xf32>, tensor<f32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}

// -----

// CHECK-LABEL: func @max_pool1d
// CHECK:         linalg.pooling_ncw_max {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg0, %{{.*}} : tensor<?x3x?xf32>, tensor<2xf32>)
func.func @max_pool1d(%arg0: tensor<?x3x?xf32>) -> tensor<?x3x?xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{window_dimensions = array<i64: 1, 1, 2>, window_strides = array<i64: 1, 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x3x?xf32>, tensor<f32>) -> tensor<?x3x?xf32>
  return %0 : tensor<?x3x?xf32>
}

// -----

// A reduction across a `?` axis that is not windowed (the window is 1 everywhere but the static
// axis 1) is not a spatial window: left alone.
// CHECK-LABEL: func @reduce_window_static_window_axis_unchanged
// CHECK:         stablehlo.reduce_window
func.func @reduce_window_static_window_axis_unchanged(%arg0: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

func.func @min_pool_failure_no_linalg_op(%arg0: tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32> {
  %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
  // expected-error@+1 {{'stablehlo.reduce_window' over dynamic spatial dims with a body of 'stablehlo.minimum' (only stablehlo.maximum and stablehlo.add) has no IREE lowering (symhlo-lower-dynamic-windows-for-iree)}}
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.minimum %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x3x?x?xf32>, tensor<f32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}

// -----

// jax's layout: NHWC input and output, HWIO kernel. im2col reads channels-last and multiplies
// by a `KH x KW x C x F` kernel, so neither the input, the kernel nor the output is transposed.
// CHECK-DAG:   #[[READ_NHWC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3 * 2, d2 + d4, d5)>
// CHECK-LABEL: func @conv2d_nhwc_hwio
// CHECK-NOT:     stablehlo.transpose
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 2, 1, 0], high = [0, 2, 1, 0], interior = [0, 0, 0, 0] : (tensor<?x?x?x3xf32>, tensor<f32>) -> tensor<?x?x?x3xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[READ_NHWC]], {{.*}}]{{.*}} ins(%[[P]] : tensor<?x?x?x3xf32>) outs(%{{.*}} : tensor<?x?x?x3x3x3xf32>)
// CHECK:         %[[K2:.*]] = stablehlo.reshape %arg1 : (tensor<3x3x3x4xf32>) -> tensor<27x4xf32>
// CHECK:         %[[MM:.*]] = stablehlo.dot_general %{{.*}}, %[[K2]], contracting_dims = [1] x [0] : (tensor<?x27xf32>, tensor<27x4xf32>) -> tensor<?x4xf32>
// CHECK:         %[[Y:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1, 2], [3]] output_shape [%{{.*}}, %{{.*}}, %{{.*}}, 4] : tensor<?x4xf32> into tensor<?x?x?x4xf32>
// CHECK-NOT:     stablehlo.transpose
// CHECK:         return %[[Y]]
func.func @conv2d_nhwc_hwio(%arg0: tensor<?x?x?x3xf32>, %arg1: tensor<3x3x3x4xf32>) -> tensor<?x?x?x4xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [1, 1]], rhs_dilate = [2, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x?x?x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x?x?x4xf32>
  return %0 : tensor<?x?x?x4xf32>
}

// -----

// Any other layout is transposed to and from the canonical one around the op: a grouped
// convolution with channels-last input, HWIO-style kernel and a channels-first output.
// CHECK-LABEL: func @grouped_nhwc_to_nchw
// CHECK:         %[[K:.*]] = stablehlo.transpose %arg1, dims = [3, 2, 0, 1] : (tensor<3x3x2x8xf32>) -> tensor<8x2x3x3xf32>
// CHECK:         %[[X:.*]] = stablehlo.transpose %arg0, dims = [0, 3, 1, 2] : (tensor<?x?x?x8xf32>) -> tensor<?x8x?x?xf32>
// CHECK:         %[[P:.*]] = stablehlo.pad %[[X]], %{{.*}}, low = [0, 0, 1, 1], high = [0, 0, 1, 1], interior = [0, 0, 0, 0]
// CHECK:         linalg.conv_2d_ngchw_gfchw
// CHECK:         %[[R:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<?x4x2x?x?xf32> into tensor<?x8x?x?xf32>
// CHECK-NOT:     stablehlo.transpose
// CHECK:         return %[[R]]
// A depthwise one is channels-last itself: the input and the kernel as they are (reshaped),
// one transpose of the output to channels-first.
// CHECK-LABEL: func @depthwise_nhwc_to_nchw
// CHECK:         %[[K:.*]] = stablehlo.reshape %arg1 : (tensor<3x3x1x8xf32>) -> tensor<3x3x8xf32>
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0]
// CHECK:         %[[Y:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[P]], %[[K]] :
// CHECK:         %[[R:.*]] = stablehlo.transpose %[[Y]], dims = [0, 3, 1, 2] : (tensor<?x?x?x8xf32>) -> tensor<?x8x?x?xf32>
// CHECK:         return %[[R]]
func.func @grouped_nhwc_to_nchw(%arg0: tensor<?x?x?x8xf32>, %arg1: tensor<3x3x2x8xf32>) -> tensor<?x8x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<?x?x?x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}
func.func @depthwise_nhwc_to_nchw(%arg0: tensor<?x?x?x8xf32>, %arg1: tensor<3x3x1x8xf32>) -> tensor<?x8x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 8 : i64} : (tensor<?x?x?x8xf32>, tensor<3x3x1x8xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}

// -----

// NHWC max pooling (jax's): linalg.pooling_nhwc_max as it is, no transposes.
// CHECK-LABEL: func @max_pool2d_nhwc
// CHECK-NOT:     stablehlo.transpose
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 0, 0, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0]
// CHECK:         %[[K:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         %[[M:.*]] = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[K]] : tensor<?x?x?x3xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<?x?x?x3xf32>)
// CHECK-NOT:     stablehlo.transpose
// CHECK:         return %[[M]]
func.func @max_pool2d_nhwc(%arg0: tensor<?x?x?x3xf32>) -> tensor<?x?x?x3xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x?x?x3xf32>, tensor<f32>) -> tensor<?x?x?x3xf32>
  return %0 : tensor<?x?x?x3xf32>
}

// -----

// A window over one axis of an NHWC tensor: the plain W axis joins the spatial axes with a
// window of 1, so the pooling op is NHWC without transposes.
// CHECK-LABEL: func @sum_pool_rows_nhwc
// CHECK-NOT:     stablehlo.transpose
// CHECK:         %[[K:.*]] = tensor.empty() : tensor<3x1xf32>
// CHECK:         linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %[[K]] : tensor<?x?x?x3xf32>, tensor<3x1xf32>)
func.func @sum_pool_rows_nhwc(%arg0: tensor<?x?x?x3xf32>) -> tensor<?x?x?x3xf32> {
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[0, 0], [1, 1], [0, 0], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 1, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x?x?x3xf32>, tensor<f32>) -> tensor<?x?x?x3xf32>
  return %0 : tensor<?x?x?x3xf32>
}

// -----

// Windows over the leading axes (HWCN): transposed to NCHW and back.
// CHECK-LABEL: func @max_pool2d_hwcn
// CHECK:         %[[T:.*]] = stablehlo.transpose %arg0, dims = [2, 3, 0, 1] : (tensor<?x?x3x?xf32>) -> tensor<3x?x?x?xf32>
// CHECK:         %[[M:.*]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[T]], %{{.*}} : tensor<3x?x?x?xf32>, tensor<2x2xf32>)
// CHECK:         %[[R:.*]] = stablehlo.transpose %[[M]], dims = [2, 3, 0, 1] : (tensor<3x?x?x?xf32>) -> tensor<?x?x3x?xf32>
// CHECK:         return %[[R]]
func.func @max_pool2d_hwcn(%arg0: tensor<?x?x3x?xf32>) -> tensor<?x?x3x?xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{window_dimensions = array<i64: 2, 2, 1, 1>, window_strides = array<i64: 2, 2, 1, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x?x3x?xf32>, tensor<f32>) -> tensor<?x?x3x?xf32>
  return %0 : tensor<?x?x3x?xf32>
}

// -----

func.func @max_pool_rank2_failure(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  // expected-error@+1 {{'stablehlo.reduce_window' over dynamic spatial dims with windows over axes [1] of a rank-2 tensor (only 1 to 3 windowed axes beside two others) has no IREE lowering}}
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A `?` batch alone: IREE 3.13 rejects reduce_window over it, so it is lowered too.
// CHECK-LABEL: func @max_pool2d_dynamic_batch_only
// CHECK:         linalg.pooling_nchw_max
// CHECK-NOT:     stablehlo.reduce_window
func.func @max_pool2d_dynamic_batch_only(%arg0: tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %cst) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<?x3x8x8xf32>, tensor<f32>) -> tensor<?x3x4x4xf32>
  return %0 : tensor<?x3x4x4xf32>
}
