// RUN: symhlo-opt --symhlo-pad-bounded-matmul-rows-for-iree --split-input-file %s | FileCheck %s

// Rows = batch in [1, 8]: the matmul runs on 8 zero-padded rows and the real ones are sliced back.
// CHECK-LABEL: func @rows_bounded_by_contract
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[N:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x16xf32>
// CHECK:         %[[H:.*]] = arith.subi %{{.*}}, %[[N]] : index
// CHECK:         %[[P:.*]] = tensor.pad %arg0 low[0, 0] high[%[[H]], 0]
// CHECK:           tensor.yield %{{.*}} : f32
// CHECK:         } : tensor<?x16xf32> to tensor<8x16xf32>
// CHECK:         %[[D:.*]] = stablehlo.dot_general %[[P]], %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[D]][0, 0] [%[[N]], 32] [1, 1] : tensor<8x32xf32> to tensor<?x32xf32>
// CHECK:         return %[[S]]
func.func @rows_bounded_by_contract(%x: tensor<?x16xf32>, %w: tensor<16x32xf32>) -> tensor<?x32xf32>
    attributes {symhlo.arg_shapes = [["batch", "16"], ["16", "32"]], symhlo.symbols = {batch = [1, 8]}} {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// Rows = 2 * batch, batch in [1, 8]: bound 16, one tile.
// CHECK-LABEL: func @rows_product_bounded
// CHECK:         tensor.pad
// CHECK:         } : tensor<?x16xf32> to tensor<16x16xf32>
// CHECK:         stablehlo.dot_general {{.*}} -> tensor<16x32xf32>
func.func @rows_product_bounded(%x: tensor<?x2x16xf32>, %w: tensor<16x32xf32>) -> tensor<?x32xf32>
    attributes {symhlo.arg_shapes = [["batch", "2", "16"], ["16", "32"]], symhlo.symbols = {batch = [1, 8]}} {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x2x16xf32> into tensor<?x16xf32>
  %y = stablehlo.dot_general %c, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// Rows up to 64: more than one tile, left to IREE's data tiling.
// CHECK-LABEL: func @rows_over_one_tile
// CHECK-NOT:     tensor.pad
// CHECK:         stablehlo.dot_general {{.*}} -> tensor<?x32xf32>
func.func @rows_over_one_tile(%x: tensor<?x16xf32>, %w: tensor<16x32xf32>) -> tensor<?x32xf32>
    attributes {symhlo.arg_shapes = [["batch", "16"], ["16", "32"]], symhlo.symbols = {batch = [1, 64]}} {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// No contract (foreign StableHLO): no range, nothing padded.
// CHECK-LABEL: func @no_contract
// CHECK-NOT:     tensor.pad
func.func @no_contract(%x: tensor<?x16xf32>, %w: tensor<16x32xf32>) -> tensor<?x32xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// An unbounded symbol: nothing padded.
// CHECK-LABEL: func @rows_unbounded
// CHECK-NOT:     tensor.pad
func.func @rows_unbounded(%x: tensor<?x16xf32>, %w: tensor<16x32xf32>) -> tensor<?x32xf32>
    attributes {symhlo.arg_shapes = [["batch", "16"], ["16", "32"]], symhlo.symbols = {batch = [1, 9223372036854775807]}} {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// Rows of a gather's result are the indices' rows (an embedding lookup of `batch` ids).
// CHECK-LABEL: func @rows_through_gather
// CHECK:         tensor.pad
// CHECK:         } : tensor<?x16xf32> to tensor<4x16xf32>
func.func @rows_through_gather(%ids: tensor<?xi64>, %table: tensor<100x16xf32>, %w: tensor<16x32xf32>) -> tensor<?x32xf32>
    attributes {symhlo.arg_shapes = [["batch"], ["100", "16"], ["16", "32"]], symhlo.symbols = {batch = [1, 4]}} {
  %e = "stablehlo.gather"(%table, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<100x16xf32>, tensor<?xi64>) -> tensor<?x16xf32>
  %y = stablehlo.dot_general %e, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}
