// RUN: symhlo-opt --symhlo-prepare-for-iree --split-input-file %s | FileCheck %s

// A dynamic_reshape whose shape operand the size facts prove to merge or split adjacent axes
// becomes tensor.collapse_shape / tensor.expand_shape (IREE fuses these; tensor.reshape blocks
// its dispatch formation). Where the facts do not prove it, the general tensor.reshape stays.

// b, s -> b*s: the shape operand is dim(x, 0) * dim(x, 1).
// CHECK-LABEL: func @merge_batch_and_seq
// CHECK-NOT:     tensor.reshape
// CHECK:         %[[R:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
// CHECK:         return %[[R]]
func.func @merge_batch_and_seq(%arg0: tensor<?x?x8xf32>) -> tensor<?x8xf32> {
  %c8 = stablehlo.constant dense<8> : tensor<1xi64>
  %b = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?x8xf32>) -> tensor<i32>
  %s = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?x8xf32>) -> tensor<i32>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %s64 = stablehlo.convert %s : (tensor<i32>) -> tensor<i64>
  %bs = stablehlo.multiply %b64, %s64 : tensor<i64>
  %bs1 = stablehlo.reshape %bs : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %bs1, %c8, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %0 = stablehlo.dynamic_reshape %arg0, %shape : (tensor<?x?x8xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// b*s -> b, s and d -> heads, d/heads: the merged rows of an earlier reshape split back, with
// the head split of a static axis in the same op (collapse nothing, expand two groups). The `?`
// sizes are not sizes of the source: their size expressions (dim(arg0, 0), dim(arg0, 1)) are
// computed on index scalars, not read from the shape tensor.
// CHECK-LABEL: func @split_rows_and_heads
// CHECK:         %[[M:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
// CHECK:         %[[T:.*]] = stablehlo.tanh %[[M]]
// CHECK-NOT:     tensor.extract
// CHECK-DAG:     %[[B:.*]] = tensor.dim %arg0, %c0 : tensor<?x?x8xf32>
// CHECK-DAG:     %[[S:.*]] = tensor.dim %arg0, %c1 : tensor<?x?x8xf32>
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[T]] {{\[\[}}0, 1], [2, 3]] output_shape [%[[B]], %[[S]], 2, 4] : tensor<?x8xf32> into tensor<?x?x2x4xf32>
// CHECK-NOT:     tensor.reshape
func.func @split_rows_and_heads(%arg0: tensor<?x?x8xf32>) -> tensor<?x?x2x4xf32> {
  %c8 = stablehlo.constant dense<8> : tensor<1xi64>
  %c24 = stablehlo.constant dense<[2, 4]> : tensor<2xi64>
  %b = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?x8xf32>) -> tensor<i32>
  %s = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?x8xf32>) -> tensor<i32>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %s64 = stablehlo.convert %s : (tensor<i32>) -> tensor<i64>
  %bs = stablehlo.multiply %b64, %s64 : tensor<i64>
  %bs1 = stablehlo.reshape %bs : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %bs1, %c8, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %0 = stablehlo.dynamic_reshape %arg0, %shape : (tensor<?x?x8xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  %1 = stablehlo.tanh %0 : tensor<?x8xf32>
  %b1 = stablehlo.reshape %b64 : (tensor<i64>) -> tensor<1xi64>
  %s1 = stablehlo.reshape %s64 : (tensor<i64>) -> tensor<1xi64>
  %shape2 = stablehlo.concatenate %b1, %s1, %c24, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %2 = stablehlo.dynamic_reshape %1, %shape2 : (tensor<?x8xf32>, tensor<4xi64>) -> tensor<?x?x2x4xf32>
  return %2 : tensor<?x?x2x4xf32>
}

// -----

// A keepdim reduce: ?x? -> ?x?x1. The `?` result sizes are the source's (tensor.dim).
// CHECK-LABEL: func @unit_axis
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %arg0, %[[C0]]
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %arg0, %[[C1]]
// CHECK:         tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [%[[D0]], %[[D1]], 1] : tensor<?x?xf32> into tensor<?x?x1xf32>
func.func @unit_axis(%arg0: tensor<?x?xf32>) -> tensor<?x?x1xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<1xi64>
  %a = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?xf32>) -> tensor<i32>
  %b = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %a1 = stablehlo.reshape %a : (tensor<i32>) -> tensor<1xi32>
  %b1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %a64 = stablehlo.convert %a1 : (tensor<1xi32>) -> tensor<1xi64>
  %b64 = stablehlo.convert %b1 : (tensor<1xi32>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %a64, %b64, %c1, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %0 = stablehlo.dynamic_reshape %arg0, %shape : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x1xf32>
  return %0 : tensor<?x?x1xf32>
}

// -----

// Refused: the rows of %arg0 are not known to be dim(%arg1, 0) * dim(%arg1, 1) (the types
// alone would allow `?x8 -> ?x?x8` as a split): the general tensor.reshape stays.
// CHECK-LABEL: func @split_not_proven
// CHECK-NOT:     tensor.expand_shape
// CHECK:         tensor.reshape %arg0
func.func @split_not_proven(%arg0: tensor<?x8xf32>, %arg1: tensor<?x?xf32>) -> tensor<?x?x8xf32> {
  %c8 = stablehlo.constant dense<8> : tensor<1xi64>
  %b = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x?xf32>) -> tensor<i32>
  %s = stablehlo.get_dimension_size %arg1, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %b1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %s1 = stablehlo.reshape %s : (tensor<i32>) -> tensor<1xi32>
  %b64 = stablehlo.convert %b1 : (tensor<1xi32>) -> tensor<1xi64>
  %s64 = stablehlo.convert %s1 : (tensor<1xi32>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %b64, %s64, %c8, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %0 = stablehlo.dynamic_reshape %arg0, %shape : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// Refused: a merge whose product is not the source's (dim0 * dim0 instead of dim0 * dim1),
// though the types match the merge pattern exactly.
// CHECK-LABEL: func @merge_wrong_product
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         tensor.reshape %arg0
func.func @merge_wrong_product(%arg0: tensor<?x?x8xf32>) -> tensor<?x8xf32> {
  %c8 = stablehlo.constant dense<8> : tensor<1xi64>
  %b = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?x8xf32>) -> tensor<i32>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %bb = stablehlo.multiply %b64, %b64 : tensor<i64>
  %bb1 = stablehlo.reshape %bb : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %bb1, %c8, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %0 = stablehlo.dynamic_reshape %arg0, %shape : (tensor<?x?x8xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// torch-mlir's broadcast size `s == 1 ? other : s` is `s` under torch's contract (a function
// symhlo exported: a `?` axis never expands), so the reshape of the broadcast merges b and s.
// CHECK-LABEL: func @contract_broadcast_size
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
// CHECK-NOT:     tensor.reshape
func.func @contract_broadcast_size(%arg0: tensor<?x?x8xf32>, %arg1: tensor<?x?x8xf32>) -> tensor<?x8xf32> attributes {symhlo.symbols = {}} {
  %c8 = stablehlo.constant dense<8> : tensor<1xi64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %b = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?x8xf32>) -> tensor<i32>
  %s = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?x8xf32>) -> tensor<i32>
  %t = stablehlo.get_dimension_size %arg1, dim = 1 : (tensor<?x?x8xf32>) -> tensor<i32>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %s64 = stablehlo.convert %s : (tensor<i32>) -> tensor<i64>
  %t64 = stablehlo.convert %t : (tensor<i32>) -> tensor<i64>
  %is1 = stablehlo.compare EQ, %s64, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %n = stablehlo.select %is1, %t64, %s64 : tensor<i1>, tensor<i64>
  %b1 = stablehlo.reshape %b64 : (tensor<i64>) -> tensor<1xi64>
  %n1 = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %bshape = stablehlo.concatenate %b1, %n1, %c8, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %y = stablehlo.dynamic_broadcast_in_dim %arg0, %bshape, dims = [0, 1, 2] : (tensor<?x?x8xf32>, tensor<3xi64>) -> tensor<?x?x8xf32>
  %bs = stablehlo.multiply %b64, %s64 : tensor<i64>
  %bs1 = stablehlo.reshape %bs : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %bs1, %c8, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %0 = stablehlo.dynamic_reshape %y, %shape : (tensor<?x?x8xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// The sizes of a broadcast's shape operand are rebuilt as index arithmetic on the arguments'
// sizes (tensor.from_elements), so IREE reads the expanding axis's size on the host.
// CHECK-LABEL: func @broadcast_shape_on_host
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x1xf32>
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x?xf32>
// CHECK-DAG:     %[[I0:.*]] = arith.index_cast %[[D0]] : index to i64
// CHECK-DAG:     %[[I1:.*]] = arith.index_cast %[[D1]] : index to i64
// CHECK:         %[[S:.*]] = tensor.from_elements %[[I0]], %[[I1]] : tensor<2xi64>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg0, %[[S]], dims = [0, 1]
// CHECK-SAME:      known_expanding_dimensions = array<i64: 1>
func.func @broadcast_shape_on_host(%arg0: tensor<?x1xf32>, %arg1: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {symhlo.symbols = {}} {
  %a = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x1xf32>) -> tensor<i32>
  %b = stablehlo.get_dimension_size %arg1, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %a64 = stablehlo.convert %a : (tensor<i32>) -> tensor<i64>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %a1 = stablehlo.reshape %a64 : (tensor<i64>) -> tensor<1xi64>
  %b1 = stablehlo.reshape %b64 : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %a1, %b1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %shape, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %1 = stablehlo.add %0, %arg1 : tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// A concatenate with a `?` result dim -> tensor.empty + one insert_slice per operand (IREE
// lowers the dynamic form element by element); offsets along the axis accumulate.
// CHECK-LABEL: func @concatenate_dynamic
// CHECK:         %[[LA:.*]] = tensor.dim %arg0, %{{.*}}
// CHECK:         %[[T:.*]] = arith.addi %[[LA]], %{{.*}}
// CHECK:         %[[N:.*]] = tensor.dim %arg0, %{{.*}}
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]], %[[T]]) : tensor<?x2x?x64xf32>
// CHECK:         %[[N0:.*]] = tensor.dim %arg0, %{{.*}}
// CHECK:         %[[A:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 0, 0, 0] [%[[N0]], 2, %[[LA]], 64] [1, 1, 1, 1]
// CHECK:         %[[N1:.*]] = tensor.dim %arg1, %{{.*}}
// CHECK:         %[[R:.*]] = tensor.insert_slice %arg1 into %[[A]][0, 0, %[[LA]], 0] [%[[N1]], 2, 1, 64] [1, 1, 1, 1]
// CHECK-NOT:     stablehlo.concatenate
// CHECK:         return %[[R]]
func.func @concatenate_dynamic(%arg0: tensor<?x2x?x64xf32>, %arg1: tensor<?x2x1x64xf32>) -> tensor<?x2x?x64xf32> {
  %0 = stablehlo.concatenate %arg0, %arg1, dim = 2 : (tensor<?x2x?x64xf32>, tensor<?x2x1x64xf32>) -> tensor<?x2x?x64xf32>
  return %0 : tensor<?x2x?x64xf32>
}

// -----

// Copies of one value (rotary embeddings' cat((freqs, freqs), -1)): a broadcast over a new axis
// of 2 before the concatenated one, collapsed into it; no insert_slice (a memcpy dispatch each),
// the broadcast fuses into its readers. Three copies along a `?` axis likewise.
// CHECK-DAG:   #[[READ:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG:   #[[READ3:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @concatenate_copies
// CHECK:         %[[S:.*]] = tensor.dim %arg0, %{{.*}} : tensor<1x?x32xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[S]]) : tensor<1x?x2x32xf32>
// CHECK:         %[[B:.*]] = linalg.generic {indexing_maps = [#[[READ]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x?x32xf32>) outs(%[[E]] : tensor<1x?x2x32xf32>)
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0], [1], [2, 3]] : tensor<1x?x2x32xf32> into tensor<1x?x64xf32>
// CHECK-NOT:     tensor.insert_slice
// CHECK-NOT:     stablehlo.concatenate
// CHECK:         %[[B3:.*]] = linalg.generic {indexing_maps = [#[[READ3]], #{{.*}}], {{.*}} ins(%arg1 : tensor<?xf32>) outs(%{{.*}} : tensor<3x?xf32>)
// CHECK:         %[[R3:.*]] = tensor.collapse_shape %[[B3]] {{\[\[}}0, 1]] : tensor<3x?xf32> into tensor<?xf32>
// CHECK:         return %[[R]], %[[R3]]
func.func @concatenate_copies(%arg0: tensor<1x?x32xf32>, %arg1: tensor<?xf32>) -> (tensor<1x?x64xf32>, tensor<?xf32>) {
  %0 = stablehlo.concatenate %arg0, %arg0, dim = 2 : (tensor<1x?x32xf32>, tensor<1x?x32xf32>) -> tensor<1x?x64xf32>
  %1 = stablehlo.concatenate %arg1, %arg1, %arg1, dim = 0 : (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<1x?x64xf32>, tensor<?xf32>
}

// -----

// A result type less refined than its operands': the collapse gives 64, a cast the `?`.
// CHECK-LABEL: func @concatenate_copies_unrefined_result
// CHECK:         %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<?x2x32xf32> into tensor<?x64xf32>
// CHECK:         %[[R:.*]] = tensor.cast %[[C]] : tensor<?x64xf32> to tensor<?x?xf32>
// CHECK:         return %[[R]]
func.func @concatenate_copies_unrefined_result(%arg0: tensor<?x32xf32>) -> tensor<?x?xf32> {
  %0 = stablehlo.concatenate %arg0, %arg0, dim = 1 : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A static concatenate is left to IREE.
// CHECK-LABEL: func @concatenate_static
// CHECK:         stablehlo.concatenate
func.func @concatenate_static(%arg0: tensor<2x3xf32>, %arg1: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %0 = stablehlo.concatenate %arg0, %arg1, dim = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Padding by a broadcast constant (ceil_mode pooling's edge) is left to IREE: as insert_slices
// it fused into the pooling dispatch with an unbounded stack allocation.
// CHECK-LABEL: func @concatenate_constant_padding
// CHECK:         stablehlo.concatenate
// CHECK-NOT:     tensor.insert_slice
func.func @concatenate_constant_padding(%arg0: tensor<?x2x?xf32>, %s: tensor<3xi64>) -> tensor<?x2x?xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %pad = stablehlo.dynamic_broadcast_in_dim %zero, %s, dims = [] : (tensor<f32>, tensor<3xi64>) -> tensor<?x2x?xf32>
  %0 = stablehlo.concatenate %arg0, %pad, dim = 2 : (tensor<?x2x?xf32>, tensor<?x2x?xf32>) -> tensor<?x2x?xf32>
  return %0 : tensor<?x2x?xf32>
}

// -----

// A proven reshape that feeds a scatter keeps tensor.reshape: IREE 3.13 fused an expand_shape
// of `?` scatter indices with their producers into the scatter's dispatch and sized its stack
// buffer from the unbounded `?` (histc over `?` n failed to compile).
// CHECK-LABEL: func @reshape_into_scatter_indices
// CHECK-NOT:     tensor.expand_shape
// CHECK:         %[[I:.*]] = tensor.reshape %arg1
// CHECK:         "stablehlo.scatter"(%arg0, %[[I]], %arg2)
func.func @reshape_into_scatter_indices(%arg0: tensor<8xf32>, %arg1: tensor<?xi64>, %arg2: tensor<?xf32>) -> tensor<8xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<1xi64>
  %n = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?xi64>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %n1 = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %n1, %c1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %idx = stablehlo.dynamic_reshape %arg1, %shape : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x1xi64>
  %0 = "stablehlo.scatter"(%arg0, %idx, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8xf32>, tensor<?x1xi64>, tensor<?xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Likewise a proven reshape of a gather's operand (IREE 3.13 left an
// unrealized_conversion_cast in the LLVM code of `x[:, :, 0][idx]`).
// CHECK-LABEL: func @reshape_into_gather_operand
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[X:.*]] = tensor.reshape %arg0
// CHECK:         "stablehlo.gather"(%[[X]], %{{.*}})
func.func @reshape_into_gather_operand(%arg0: tensor<?x?x1xf32>, %arg1: tensor<?x1xi64>) -> tensor<?x4xf32> {
  %a = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?x1xf32>) -> tensor<i32>
  %b = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?x1xf32>) -> tensor<i32>
  %a64 = stablehlo.convert %a : (tensor<i32>) -> tensor<i64>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %a1 = stablehlo.reshape %a64 : (tensor<i64>) -> tensor<1xi64>
  %b1 = stablehlo.reshape %b64 : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %a1, %b1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %x = stablehlo.dynamic_reshape %arg0, %shape : (tensor<?x?x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %0 = "stablehlo.gather"(%x, %arg1) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, offset_dims = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
