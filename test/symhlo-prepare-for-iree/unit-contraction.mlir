// RUN: symhlo-opt --symhlo-prepare-for-iree --split-input-file %s | FileCheck %s

// A batched dot_general contracting over a static 1 with a `?` batch (LeViT / MobileViT attention
// over one position): IREE 3.13 makes it a dynamic_reshape it cannot legalize, so it becomes the
// broadcast product reduced over the unit axis.
// CHECK-LABEL: func @bmm_k1
// CHECK-NOT:     stablehlo.dot_general
// CHECK:         %[[N:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK:         %[[S:.*]] = stablehlo.concatenate
// CHECK-SAME:      -> tensor<4xi64>
// CHECK:         %[[A:.*]] = stablehlo.dynamic_broadcast_in_dim %arg0, %[[S]], dims = [0, 1, 3]
// CHECK-SAME:      known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1, 2>
// CHECK-SAME:      -> tensor<?x1x16x1xf32>
// CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %arg1, %[[S]], dims = [0, 3, 2]
// CHECK:         %[[P:.*]] = stablehlo.multiply %[[A]], %[[B]] : tensor<?x1x16x1xf32>
// CHECK:         %[[R:.*]] = stablehlo.reduce(%[[P]] init: %{{.*}}) applies stablehlo.add across dimensions = [3] : (tensor<?x1x16x1xf32>, tensor<f32>) -> tensor<?x1x16xf32>
// CHECK:         return %[[R]]
func.func @bmm_k1(%arg0: tensor<?x1x1xf32>, %arg1: tensor<?x1x16xf32>) -> tensor<?x1x16xf32> attributes {symhlo.arg_shapes = [["n", "1", "1"], ["n", "1", "16"]], symhlo.symbols = {n = [1, 64]}} {
  %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x1x1xf32>, tensor<?x1x16xf32>) -> tensor<?x1x16xf32>
  return %0 : tensor<?x1x16xf32>
}

// -----

// K > 1, or all static: left to IREE.
// CHECK-LABEL: func @bmm_k4_unchanged
// CHECK:         stablehlo.dot_general
func.func @bmm_k4_unchanged(%arg0: tensor<?x1x4xf32>, %arg1: tensor<?x4x16xf32>) -> tensor<?x1x16xf32> attributes {symhlo.arg_shapes = [["n", "1", "4"], ["n", "4", "16"]], symhlo.symbols = {n = [1, 64]}} {
  %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x1x4xf32>, tensor<?x4x16xf32>) -> tensor<?x1x16xf32>
  return %0 : tensor<?x1x16xf32>
}
