// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree="narrow-block=1" --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --symhlo-lower-dynamic-windows-for-iree="elementwise-on-blocks=false halo-in-input-layout-channels=0 narrow-block=1" --split-input-file %s | FileCheck %s --check-prefix=OFF

// A residual block, relu(conv_b(y) + y) with y = conv_a(x), before a third conv: both operands
// of the add are direct convs' 8 x 8 blocks over the same H x W, so the add and the ReLU run on
// the blocks (elementwise_on_blocks), and the third conv gathers its halos from the sum's
// blocks: nothing goes back to NHWC but the result.
// CHECK-LABEL: func @residual_add
// CHECK:         %[[A:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x8x4xf32>
// CHECK:         %[[B:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x8x4xf32>
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %[[S:.*]] = stablehlo.add %[[B]], %[[A]] : tensor<?x8x8x4xf32>
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %[[R:.*]] = stablehlo.maximum %[[S]], %{{.*}} : tensor<?x8x8x4xf32>
// CHECK-NOT:     tensor.extract_slice
// CHECK-NOT:     stablehlo.pad
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<?x?x?x10x10x4xf32>)
// CHECK:           tensor.extract %[[R]]
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x8x2xf32>
// CHECK:         tensor.extract_slice
// CHECK:         return
// Off: the conv's blocks go back to NHWC for the add; the sum is padded and copied into halos.
// OFF-LABEL: func @residual_add
// OFF:         tensor.extract_slice
// OFF:         stablehlo.add {{.*}} : tensor<?x4x?x?xf32>
// OFF:         stablehlo.pad
func.func @residual_add(%x: tensor<?x3x?x?xf32>, %ka: tensor<4x3x3x3xf32>, %kb: tensor<4x4x3x3xf32>, %kc: tensor<2x4x3x3xf32>, %shape: tensor<4xi64>) -> tensor<?x2x?x?xf32> {
  %y = stablehlo.convolution(%x, %ka) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  %b = stablehlo.convolution(%y, %kb) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x4x?x?xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x?x?xf32>
  %s = stablehlo.add %b, %y : tensor<?x4x?x?xf32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %zb = stablehlo.dynamic_broadcast_in_dim %z, %shape, dims = [] : (tensor<f32>, tensor<4xi64>) -> tensor<?x4x?x?xf32>
  %r = stablehlo.maximum %s, %zb : tensor<?x4x?x?xf32>
  %c = stablehlo.convolution(%r, %kc) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x4x?x?xf32>, tensor<2x4x3x3xf32>) -> tensor<?x2x?x?xf32>
  return %c : tensor<?x2x?x?xf32>
}

// -----

// One operand is not blocks (the function's argument): the add stays on the NCHW values.
// CHECK-LABEL: func @add_of_unblocked_argument
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x8x8x4xf32>
// CHECK:         tensor.extract_slice
// CHECK:         stablehlo.add {{.*}} : tensor<?x4x?x?xf32>
func.func @add_of_unblocked_argument(%x: tensor<?x4x?x?xf32>, %k: tensor<4x4x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %y = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x4x?x?xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x?x?xf32>
  %s = stablehlo.add %y, %x : tensor<?x4x?x?xf32>
  return %s : tensor<?x4x?x?xf32>
}

// -----

// Blocks of one type on grids that need not match: two 2 x 2 poolings over convs of two inputs
// whose maps may differ in size (16 and 17 rows both pool to 8; the convs' grids have 2 and 3
// rows of 8-row blocks). Each pooling's blocks keep its conv's grid, so the add of the pooled
// `4 x 4` blocks would pair positions wrongly: it stays on the unblocked values.
// CHECK-LABEL: func @pooled_grids_differ
// CHECK-COUNT-2: linalg.pooling_nhwc_max {{.*}} -> tensor<?x4x4x4xf32>
// CHECK:         stablehlo.add {{.*}} : tensor<?x4x?x?xf32>
func.func @pooled_grids_differ(%x1: tensor<?x3x?x?xf32>, %x2: tensor<?x3x?x?xf32>, %k: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %a = stablehlo.convolution(%x1, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  %b = stablehlo.convolution(%x2, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %pa = "stablehlo.reduce_window"(%a, %ninf) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %m = stablehlo.maximum %p, %q : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  %pb = "stablehlo.reduce_window"(%b, %ninf) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %m = stablehlo.maximum %p, %q : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  %s = stablehlo.add %pa, %pb : tensor<?x4x?x?xf32>
  return %s : tensor<?x4x?x?xf32>
}
