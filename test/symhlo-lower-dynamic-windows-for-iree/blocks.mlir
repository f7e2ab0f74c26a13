// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree="direct-block-width=16 narrow-block=1" --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree="narrow-block=1" --split-input-file %s | FileCheck %s --check-prefix=DEFAULT

// A few-channel 2-D convolution over `?` H/W (at most 32 input channels and 32 filters): a
// direct convolution over blocks of 8 output rows x 16 output columns (option
// direct-block-width; the default is 8 x 8: the halo is then 17 x 17, the padding 7 * 2 more
// columns).
// DEFAULT-LABEL: func @conv2d_blocks
// DEFAULT:         stablehlo.pad %arg0, %{{.*}}, low = [0, 0, 1, 1], high = [0, 0, 15, 15]
// DEFAULT:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x17x17x3xf32>, tensor<3x3x3x4xf32>) outs(%{{.*}} : tensor<?x8x8x4xf32>)
// With 16 columns: the input gets (8 - 1) * stride more rows and (16 - 1) * stride more
// columns of high padding; each block's halo (7 * 2 + 3 = 17 rows, 15 * 2 + 3 = 33 columns) is copied to N x RB x OB x 17 x
// 33 x C, the blocks become the batch of a conv_2d_nhwc_hwcf whose spatial dims are static,
// N x RB x OB x 8 x 16 x F is put back in channels-last order, the rows past OH and the columns
// past OW are sliced off, and one transpose takes it to the op's NCHW layout (where
// symhlo-sink-transposes-for-iree meets it with the next convolution's transpose to NHWC).
// The NCHW input (3 channels) is read in its own layout: padded where it is and gathered
// through the halo's map permuted, (n, c, rb * 16 + i, ob * 32 + j) (option
// halo-in-input-layout-channels; no transpose of the input is left), and the padded sizes are
// the input's plus the padding.
// CHECK:       #[[NCHW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d5, d1 * 16 + d3, d2 * 32 + d4)>
// CHECK-LABEL: func @conv2d_blocks
// CHECK:         %[[K:.*]] = stablehlo.transpose %arg1, dims = [2, 3, 1, 0] : (tensor<4x3x3x3xf32>) -> tensor<3x3x3x4xf32>
// CHECK-NOT:     stablehlo.transpose %arg0
// CHECK-NOT:     stablehlo.pad
// CHECK:         %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3x?x?xf32>
// CHECK:         %[[H:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3x?x?xf32>
// CHECK:         %[[W:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3x?x?xf32>
// CHECK:         %[[C16:.*]] = arith.constant 16 : index
// CHECK:         %[[PH:.*]] = arith.addi %[[H]], %[[C16]] : index
// CHECK:         %[[C17:.*]] = arith.constant 17 : index
// CHECK:         %[[H1:.*]] = arith.subi %[[PH]], %[[C17]] : index
// CHECK:         %[[H2:.*]] = arith.divsi %[[H1]], %{{.*}} : index
// CHECK:         %[[OH:.*]] = arith.addi %[[H2]], %{{.*}} : index
// CHECK:         %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[PW:.*]] = arith.addi %[[W]], %[[C32]] : index
// CHECK:         %[[C33:.*]] = arith.constant 33 : index
// CHECK:         %[[W1:.*]] = arith.subi %[[PW]], %[[C33]] : index
// CHECK:         %[[W2:.*]] = arith.divsi %[[W1]], %{{.*}} : index
// CHECK:         %[[OW:.*]] = arith.addi %[[W2]], %{{.*}} : index
// CHECK:         %[[C15:.*]] = arith.constant 15 : index
// CHECK:         %[[B1:.*]] = arith.addi %[[OW]], %[[C15]] : index
// CHECK:         %[[OB:.*]] = arith.divsi %[[B1]], %{{.*}} : index
// CHECK:         %[[C7:.*]] = arith.constant 7 : index
// CHECK:         %[[R1:.*]] = arith.addi %[[OH]], %[[C7]] : index
// CHECK:         %[[RB:.*]] = arith.divsi %[[R1]], %{{.*}} : index
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]], %[[RB]], %[[OB]]) : tensor<?x?x?x17x33x3xf32>
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 0, 1, 1], high = [0, 0, 15, 31], interior = [0, 0, 0, 0] : (tensor<?x3x?x?xf32>, tensor<f32>) -> tensor<?x3x?x?xf32>
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [#[[NCHW]], #{{.*}}], {{.*}} ins(%[[P]] : tensor<?x3x?x?xf32>) outs(%[[E]] : tensor<?x?x?x17x33x3xf32>)
// CHECK:         %[[X4:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1, 2], [3], [4], [5]] : tensor<?x?x?x17x33x3xf32> into tensor<?x17x33x3xf32>
// CHECK:         %[[NR:.*]] = arith.muli %[[N]], %[[RB]] : index
// CHECK:         %[[NRO:.*]] = arith.muli %[[NR]], %[[OB]] : index
// CHECK:         %[[Z:.*]] = tensor.empty(%[[NRO]]) : tensor<?x8x16x4xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[Z]] : tensor<?x8x16x4xf32>)
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[X4]], %[[K]] : tensor<?x17x33x3xf32>, tensor<3x3x3x4xf32>) outs(%[[F]] : tensor<?x8x16x4xf32>)
// CHECK:         %[[Y:.*]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1, 2], [3], [4], [5]] output_shape [%[[N]], %[[RB]], %[[OB]], 8, 16, 4] : tensor<?x8x16x4xf32> into tensor<?x?x?x8x16x4xf32>
// CHECK:         %[[T:.*]] = stablehlo.transpose %[[Y]], dims = [0, 1, 3, 2, 4, 5] : (tensor<?x?x?x8x16x4xf32>) -> tensor<?x?x8x?x16x4xf32>
// CHECK:         %[[W:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2], [3, 4], [5]] : tensor<?x?x8x?x16x4xf32> into tensor<?x?x?x4xf32>
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[W]][0, 0, 0, 0] [%[[N]], %[[OH]], %[[OW]], 4] [1, 1, 1, 1] : tensor<?x?x?x4xf32> to tensor<?x?x?x4xf32>
// CHECK:         %[[R:.*]] = stablehlo.transpose %[[S]], dims = [0, 3, 1, 2] : (tensor<?x?x?x4xf32>) -> tensor<?x4x?x?xf32>
// CHECK:         return %[[R]]
func.func @conv2d_blocks(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// A static height (only W is `?`): blocks of 16 columns only, the rows whole (HP x BW halos,
// 32 x 18 here); N x OB x OH x 16 x F goes back to N x OH x OB x 16 x F, is sliced to OW and
// transposed to NCHW. The input is padded in its NCHW layout and read through (n, c, h,
// ob * 16 + j).
// CHECK:       #[[NCHW2:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2, d1 * 16 + d3)>
// CHECK-LABEL: func @conv2d_blocks_static_height
// CHECK-NOT:     stablehlo.transpose %arg0
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 0, 1, 1], high = [0, 0, 1, 16], interior = [0, 0, 0, 0] : (tensor<2x3x30x?xf32>, tensor<f32>) -> tensor<2x3x32x?xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[NCHW2]], #{{.*}}], {{.*}} ins(%[[P]] : tensor<2x3x32x?xf32>) outs(%{{.*}} : tensor<2x?x32x18x3xf32>)
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x32x18x3xf32>, tensor<3x3x3x4xf32>) outs(%{{.*}} : tensor<?x30x16x4xf32>)
// CHECK:         stablehlo.transpose %{{.*}}, dims = [0, 2, 1, 3, 4] : (tensor<2x?x30x16x4xf32>) -> tensor<2x30x?x16x4xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 30, %{{.*}}, 4] [1, 1, 1, 1] : tensor<2x30x?x4xf32> to tensor<2x30x?x4xf32>
// CHECK:         stablehlo.transpose %{{.*}}, dims = [0, 3, 1, 2] : (tensor<2x30x?x4xf32>) -> tensor<2x4x30x?xf32>
func.func @conv2d_blocks_static_height(%arg0: tensor<2x3x30x?xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<2x4x30x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x30x?xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x30x?xf32>
  return %0 : tensor<2x4x30x?xf32>
}

// -----

// jax's NHWC / HWIO layout: the direct form needs no transpose of the input or the kernel, and
// the blocks go back to NHWC (N x RB x 8 x OB x 16 x F) with the dilation in the halo (7 + 2 * 2
// + 1 = 12 rows, 15 + 2 * 2 + 1 = 20 columns).
// CHECK-DAG:   #[[HALO2:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 8 + d3, d2 * 16 + d4, d5)>
// CHECK-LABEL: func @conv2d_blocks_nhwc
// CHECK-NOT:     stablehlo.transpose %arg
// CHECK:         stablehlo.pad %arg0, %{{.*}}, low = [0, 2, 2, 0], high = [0, 9, 17, 0]
// CHECK:         linalg.generic {indexing_maps = [#[[HALO2]], {{.*}}]{{.*}} outs(%{{.*}} : tensor<?x?x?x12x20x3xf32>)
// CHECK:         linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %arg1 : tensor<?x12x20x3xf32>, tensor<3x3x3x8xf32>)
// CHECK:         stablehlo.transpose %{{.*}}, dims = [0, 1, 3, 2, 4, 5] : (tensor<?x?x?x8x16x8xf32>) -> tensor<?x?x8x?x16x8xf32>
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3, 4], [5]] : tensor<?x?x8x?x16x8xf32> into tensor<?x?x?x8xf32>
// CHECK:         tensor.extract_slice
func.func @conv2d_blocks_nhwc(%arg0: tensor<?x?x?x3xf32>, %arg1: tensor<3x3x3x8xf32>) -> tensor<?x?x?x8xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], rhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x?x?x3xf32>, tensor<3x3x3x8xf32>) -> tensor<?x?x?x8xf32>
  return %0 : tensor<?x?x?x8xf32>
}

// -----

// More than 128 filters (direct-max-filters): im2col in blocks
// of 16 columns. The patches are N x OH x ceil(OW / 16) x 16 x KH x KW x C (static inside, so
// IREE's pack of the matmul rows, 16 to a tile, fuses into the patch loop), and the columns past
// OW are sliced off the product.
// CHECK-DAG:   #[[READ:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, (d2 * 16 + d3) * 2 + d5, d6)>
// CHECK-LABEL: func @conv2d_many_filters_im2col_blocks
// CHECK:         %[[P:.*]] = stablehlo.pad %{{.*}}, %{{.*}}, low = [0, 1, 1, 0], high = [0, 1, 31, 0], interior = [0, 0, 0, 0]
// CHECK:         %[[N:.*]] = tensor.dim
// CHECK:         %[[OH:.*]] = arith.addi
// CHECK:         %[[OW:.*]] = arith.addi
// CHECK:         %[[NB:.*]] = arith.divsi
// CHECK:         %[[OWB:.*]] = arith.muli %[[NB]], %{{.*}} : index
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]], %[[OH]], %[[NB]]) : tensor<?x?x?x16x3x3x3xf32>
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [#[[READ]], {{.*}}]{{.*}} ins(%[[P]] : tensor<?x?x?x3xf32>) outs(%[[E]] : tensor<?x?x?x16x3x3x3xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1, 2, 3], [4, 5, 6]] : tensor<?x?x?x16x3x3x3xf32> into tensor<?x27xf32>
// CHECK:         %[[MM:.*]] = stablehlo.dot_general %[[ROWS]], %{{.*}}, contracting_dims = [1] x [0] : (tensor<?x27xf32>, tensor<27x256xf32>) -> tensor<?x256xf32>
// CHECK:         %[[Y:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1, 2], [3]] output_shape [%[[N]], %[[OH]], %[[OWB]], 256] : tensor<?x256xf32> into tensor<?x?x?x256xf32>
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[Y]][0, 0, 0, 0] [%[[N]], %[[OH]], %[[OW]], 256] [1, 1, 1, 1] : tensor<?x?x?x256xf32> to tensor<?x?x?x256xf32>
// CHECK:         %[[R:.*]] = stablehlo.transpose %[[S]], dims = [0, 3, 1, 2] : (tensor<?x?x?x256xf32>) -> tensor<?x256x?x?xf32>
// CHECK:         return %[[R]]
func.func @conv2d_many_filters_im2col_blocks(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<256x3x3x3xf32>) -> tensor<?x256x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<256x3x3x3xf32>) -> tensor<?x256x?x?xf32>
  return %0 : tensor<?x256x?x?xf32>
}

// -----

// A static last axis (only H is `?`) needs no blocks: the plain im2col.
// CHECK-LABEL: func @conv2d_static_width_no_blocks
// CHECK:         stablehlo.pad %{{.*}}, %{{.*}}, low = [0, 1, 1, 0], high = [0, 1, 1, 0]
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<2x?x8x3x3x3xf32>)
// CHECK-NOT:     tensor.extract_slice
func.func @conv2d_static_width_no_blocks(%arg0: tensor<2x3x?x8xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<2x4x?x8xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x?x8xf32>
  return %0 : tensor<2x4x?x8xf32>
}

// -----

// 1-D over `?` time with dilation 2: blocks of 16 along the time axis, 15 more columns read.
// CHECK-DAG:   #[[READ1:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 16 + d2 + d3 * 2, d4)>
// CHECK-LABEL: func @conv1d_blocks
// CHECK:         stablehlo.pad %{{.*}}, %{{.*}}, low = [0, 2, 0], high = [0, 17, 0]
// CHECK:         linalg.generic {indexing_maps = [#[[READ1]], {{.*}}]
// CHECK-SAME:      outs(%{{.*}} : tensor<2x?x16x3x3xf32>)
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0] [2, %{{.*}}, 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<2x?x4xf32>
func.func @conv1d_blocks(%arg0: tensor<2x3x?xf32>, %arg1: tensor<4x3x3xf32>) -> tensor<2x4x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[2, 2]], rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x?xf32>, tensor<4x3x3xf32>) -> tensor<2x4x?xf32>
  return %0 : tensor<2x4x?xf32>
}

// -----

// More than 128 input channels (block-max-channels): no blocks. There the matmul outweighs the
// patch copy and the last block's surplus columns cost more than the fused pack saves
// (ResNet-18's 256- and 512-channel layers on their 14x14 and 7x7 maps, H/W dynamic). Their
// patches are one slice per tap (tap-slices-min-channels), of the unblocked output extents.
// CHECK-LABEL: func @conv2d_many_channels_no_blocks
// CHECK:         %[[P:.*]] = stablehlo.pad %{{.*}}, %{{.*}}, low = [0, 1, 1, 0], high = [0, 1, 1, 0]
// CHECK-NOT:     linalg.generic
// CHECK-COUNT-9: tensor.extract_slice %[[P]]{{.*}} [1, 1, 1, 1] : tensor<?x?x?x256xf32> to tensor<?x?x?x256xf32>
// CHECK:         tensor.concat dim(3) {{.*}} -> tensor<?x?x?x2304xf32>
// CHECK-NOT:     tensor.extract_slice
func.func @conv2d_many_channels_no_blocks(%arg0: tensor<?x256x?x?xf32>, %arg1: tensor<64x256x3x3xf32>) -> tensor<?x64x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x256x?x?xf32>, tensor<64x256x3x3xf32>) -> tensor<?x64x?x?xf32>
  return %0 : tensor<?x64x?x?xf32>
}

// -----

// A convolution without padding on its last axis (torch's padding_mode="reflect" pads before it,
// through a gather) gets no blocks: they would add a pad op, which IREE 3.13 failed to compile
// after such a gather.
// CHECK-LABEL: func @conv2d_unpadded_no_blocks
// CHECK-NOT:     stablehlo.pad
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<?x?x?x3x3x3xf32>)
// CHECK-NOT:     tensor.extract_slice
func.func @conv2d_unpadded_no_blocks(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// 64 channels and 64 filters (ResNet-18's first stage): a direct convolution over 8 x 16 blocks,
// as for a few channels (block-max-channels and direct-max-filters are 128). Its NCHW input
// is transposed to channels-last first (halo-in-input-layout-channels is 4).
// CHECK-LABEL: func @conv2d_64_channels_direct_blocks
// CHECK:         %[[T:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 3, 1]
// CHECK:         %[[P:.*]] = stablehlo.pad %[[T]], %{{.*}}, low = [0, 1, 1, 0]
// CHECK:         linalg.generic {{.*}} ins(%[[P]] : tensor<?x?x?x64xf32>)
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x10x18x64xf32>, tensor<3x3x64x64xf32>) outs(%{{.*}} : tensor<?x8x16x64xf32>)
// CHECK-NOT:     stablehlo.dot_general
func.func @conv2d_64_channels_direct_blocks(%arg0: tensor<?x64x?x?xf32>, %arg1: tensor<64x64x3x3xf32>) -> tensor<?x64x?x?xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x64x?x?xf32>, tensor<64x64x3x3xf32>) -> tensor<?x64x?x?xf32>
  return %0 : tensor<?x64x?x?xf32>
}
