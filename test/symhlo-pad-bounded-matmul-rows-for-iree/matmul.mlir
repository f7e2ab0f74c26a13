// RUN: symhlo-opt --symhlo-pad-bounded-matmul-rows-for-iree --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --pass-pipeline='builtin.module(symhlo-pad-bounded-matmul-rows-for-iree{keep-padded=false})' --split-input-file %s | FileCheck %s --check-prefix=NOKEEP

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

// -----

// Two padded matmuls with row-wise ops between them (a residual add, an RMS-style row reduction
// broadcast back over its row, a per-column scale): the second matmul reads the first one's 8 rows
// through the same ops on 8 rows; only the input is padded, only the result is sliced.
// CHECK-LABEL: func @rows_stay_padded
// With keep-padded=false each matmul pads its own operand and slices its result.
// NOKEEP-LABEL: func @rows_stay_padded
// NOKEEP:         tensor.pad %arg0
// NOKEEP:         tensor.extract_slice {{.*}} : tensor<8x16xf32> to tensor<?x16xf32>
// NOKEEP:         stablehlo.add %arg0, {{.*}} : tensor<?x16xf32>
// NOKEEP:         tensor.pad
// NOKEEP:         stablehlo.dot_general {{.*}} -> tensor<8x32xf32>
// CHECK:         %[[P:.*]] = tensor.pad %arg0
// CHECK:         %[[D1:.*]] = stablehlo.dot_general %[[P]], %arg1, {{.*}} -> tensor<8x16xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         %[[A:.*]] = stablehlo.add %[[P]], %[[D1]] : tensor<8x16xf32>
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[A]], %[[A]] : tensor<8x16xf32>
// CHECK:         %[[R:.*]] = stablehlo.reduce(%[[M]] init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK:         %[[RB:.*]] = stablehlo.broadcast_in_dim %[[R]], dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
// CHECK:         %[[N:.*]] = stablehlo.multiply %[[A]], %[[RB]] : tensor<8x16xf32>
// CHECK:         %[[WB:.*]] = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
// CHECK:         %[[S:.*]] = stablehlo.multiply %[[N]], %[[WB]] : tensor<8x16xf32>
// CHECK:         %[[D2:.*]] = stablehlo.dot_general %[[S]], %arg2, {{.*}} -> tensor<8x32xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         %[[OUT:.*]] = tensor.extract_slice %[[D2]][0, 0] [%{{.*}}, 32] [1, 1] : tensor<8x32xf32> to tensor<?x32xf32>
// CHECK:         return %[[OUT]]
func.func @rows_stay_padded(%x: tensor<?x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x32xf32>, %g: tensor<16xf32>) -> tensor<?x32xf32>
    attributes {symhlo.arg_shapes = [["batch", "16"], ["16", "16"], ["16", "32"], ["16"]], symhlo.symbols = {batch = [1, 8]}} {
  %c0 = arith.constant 0 : index
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %y = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  %h = stablehlo.add %x, %y : tensor<?x16xf32>
  %sq = stablehlo.multiply %h, %h : tensor<?x16xf32>
  %r = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x16xf32>, tensor<f32>) -> tensor<?xf32>
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %n64 = arith.index_cast %n : index to i64
  %c16 = arith.constant 16 : i64
  %shape = tensor.from_elements %n64, %c16 : tensor<2xi64>
  %rb = stablehlo.dynamic_broadcast_in_dim %r, %shape, dims = [0] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x16xf32>
  %nh = stablehlo.multiply %h, %rb : tensor<?x16xf32>
  %gb = stablehlo.dynamic_broadcast_in_dim %g, %shape, dims = [1] : (tensor<16xf32>, tensor<2xi64>) -> tensor<?x16xf32>
  %s = stablehlo.multiply %nh, %gb : tensor<?x16xf32>
  %z = stablehlo.dot_general %s, %w2, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %z : tensor<?x32xf32>
}

// -----

// A reduction over the rows between the matmuls reads the real rows (the slice), never the
// padding; its row-independent result is broadcast onto the 8 rows.
// CHECK-LABEL: func @row_reduction_reads_real_rows
// CHECK:         %[[D1:.*]] = stablehlo.dot_general {{.*}} -> tensor<8x16xf32>
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[D1]][0, 0] [%{{.*}}, 16] [1, 1] : tensor<8x16xf32> to tensor<?x16xf32>
// CHECK:         %[[COL:.*]] = stablehlo.reduce(%[[S]] init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<?x16xf32>, tensor<f32>) -> tensor<16xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         %[[CB:.*]] = stablehlo.broadcast_in_dim %[[COL]], dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
// CHECK:         %[[A:.*]] = stablehlo.add %[[D1]], %[[CB]] : tensor<8x16xf32>
// CHECK:         stablehlo.dot_general %[[A]], %arg2, {{.*}} -> tensor<8x32xf32>
func.func @row_reduction_reads_real_rows(%x: tensor<?x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x32xf32>) -> tensor<?x32xf32>
    attributes {symhlo.arg_shapes = [["batch", "16"], ["16", "16"], ["16", "32"]], symhlo.symbols = {batch = [1, 8]}} {
  %c0 = arith.constant 0 : index
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %y = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  %col = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<?x16xf32>, tensor<f32>) -> tensor<16xf32>
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %n64 = arith.index_cast %n : index to i64
  %c16 = arith.constant 16 : i64
  %shape = tensor.from_elements %n64, %c16 : tensor<2xi64>
  %cb = stablehlo.dynamic_broadcast_in_dim %col, %shape, dims = [1] : (tensor<16xf32>, tensor<2xi64>) -> tensor<?x16xf32>
  %s = stablehlo.add %y, %cb : tensor<?x16xf32>
  %z = stablehlo.dot_general %s, %w2, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %z : tensor<?x32xf32>
}

// -----

// Rows of a slice with `?` sizes (an LM head at the last position): IREE 3.13 failed to compile
// the pad of such a slice, so the bound's rows are gathered, those past the real ones copies of
// the last real row.
// CHECK-LABEL: func @rows_of_dynamic_slice_gathered
// CHECK-NOT:     tensor.pad
// CHECK:         %[[N:.*]] = tensor.dim %[[C:.*]], %c0{{.*}} : tensor<?x16xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<8x16xf32>)
// CHECK:           %[[I:.*]] = linalg.index 0
// CHECK:           %[[J:.*]] = linalg.index 1
// CHECK:           %[[LAST:.*]] = arith.subi %[[N]], %c1
// CHECK:           %[[ROW:.*]] = arith.minsi %[[I]], %[[LAST]]
// CHECK:           tensor.extract %[[C]][%[[ROW]], %[[J]]] : tensor<?x16xf32>
// CHECK:         %[[D:.*]] = stablehlo.dot_general %[[G]], %{{.*}} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
// CHECK:         tensor.extract_slice %[[D]][0, 0] [%[[N]], 32] [1, 1] : tensor<8x32xf32> to tensor<?x32xf32>
func.func @rows_of_dynamic_slice_gathered(%x: tensor<?x?x16xf32>, %w: tensor<16x32xf32>, %last: index) -> tensor<?x32xf32>
    attributes {symhlo.arg_shapes = [["batch", "seq", "16"], ["16", "32"], []], symhlo.symbols = {batch = [1, 8], seq = [1, 64]}} {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x16xf32>
  %s = tensor.extract_slice %x[0, %last, 0] [%b, 1, 16] [1, 1, 1] : tensor<?x?x16xf32> to tensor<?x1x16xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2]] : tensor<?x1x16xf32> into tensor<?x16xf32>
  %y = stablehlo.dot_general %c, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// The same slice where the contract allows no rows at all (batch in [0, 8]): no last real row to
// repeat, so the rows stay `?`.
// CHECK-LABEL: func @rows_of_dynamic_slice_maybe_empty
// CHECK-NOT:     linalg.generic
// CHECK:         stablehlo.dot_general {{.*}} : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
func.func @rows_of_dynamic_slice_maybe_empty(%x: tensor<?x?x16xf32>, %w: tensor<16x32xf32>, %last: index) -> tensor<?x32xf32>
    attributes {symhlo.arg_shapes = [["batch", "seq", "16"], ["16", "32"], []], symhlo.symbols = {batch = [0, 8], seq = [1, 64]}} {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x16xf32>
  %s = tensor.extract_slice %x[0, %last, 0] [%b, 1, 16] [1, 1, 1] : tensor<?x?x16xf32> to tensor<?x1x16xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2]] : tensor<?x1x16xf32> into tensor<?x16xf32>
  %y = stablehlo.dot_general %c, %w, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}
