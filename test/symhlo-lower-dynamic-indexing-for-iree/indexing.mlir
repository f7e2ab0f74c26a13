// RUN: symhlo-opt --symhlo-lower-dynamic-indexing-for-iree --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --pass-pipeline='builtin.module(symhlo-lower-dynamic-indexing-for-iree{index-select-as-generic=0})' --split-input-file %s | FileCheck %s --check-prefix=IOTA

// `x[:, :1]` on ?x?x8: the static result axis gets a static size, the dynamic one
// limit - start; offsets are read from the start operand.
// CHECK-LABEL: func @slice_static_result_axis
// CHECK-NOT:     stablehlo.real_dynamic_slice
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[S0:.*]] = tensor.extract %arg1[%[[C0]]] : tensor<3xi64>
// CHECK-DAG:     %[[O0:.*]] = arith.index_cast %[[S0]] : i64 to index
// CHECK-DAG:     %[[L0:.*]] = tensor.extract %arg2[%{{.*}}] : tensor<3xi64>
// CHECK-DAG:     %[[H0:.*]] = arith.index_cast %[[L0]] : i64 to index
// CHECK:         %[[N0:.*]] = arith.subi %[[H0]], %[[O0]] : index
// CHECK:         %[[R:.*]] = tensor.extract_slice %arg0[%[[O0]], %{{.*}}, %{{.*}}] [%[[N0]], 1, 8] [1, 1, 1] : tensor<?x?x8xf32> to tensor<?x1x8xf32>
// CHECK:         return %[[R]]
func.func @slice_static_result_axis(%arg0: tensor<?x?x8xf32>, %start: tensor<3xi64>, %limit: tensor<3xi64>) -> tensor<?x1x8xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<3xi64>
  %0 = stablehlo.real_dynamic_slice %arg0, %start, %limit, %c1 : (tensor<?x?x8xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x1x8xf32>
  return %0 : tensor<?x1x8xf32>
}

// -----

// Constant starts and strides stay static; a dynamic axis with stride 2 is ceildiv(limit - start, 2).
// CHECK-LABEL: func @slice_constant_start_stride
// CHECK:         %[[N:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK:         tensor.extract_slice %arg0[0, 1] [%[[N]], 4] [2, 1] : tensor<?x8xf32> to tensor<?x4xf32>
func.func @slice_constant_start_stride(%arg0: tensor<?x8xf32>, %limit: tensor<2xi64>) -> tensor<?x4xf32> {
  %start = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %strides = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
  %0 = stablehlo.real_dynamic_slice %arg0, %start, %limit, %strides : (tensor<?x8xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// All result axes dynamic: IREE compiles these, the op stays.
// CHECK-LABEL: func @slice_all_dynamic_kept
// CHECK:         stablehlo.real_dynamic_slice
// CHECK-NOT:     tensor.extract_slice
func.func @slice_all_dynamic_kept(%arg0: tensor<?x?xf32>, %s: tensor<2xi64>, %l: tensor<2xi64>, %t: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = stablehlo.real_dynamic_slice %arg0, %s, %l, %t : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// index_select(x, 1, idx) on ?x?x8: a linalg.generic reading idx through an indexing map and x
// at (i, clamp(idx[j], 0, dim 1 - 1), k) (gather's start clamping).
// CHECK-LABEL: func @gather_index_select_axis1
// CHECK-NOT:     stablehlo.dynamic_gather
// CHECK-NOT:     stablehlo.gather
// CHECK:         %[[B:.*]] = tensor.extract %arg2[%{{.*}}] : tensor<3xi64>
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x8xf32>
// CHECK:         %[[LAST:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<?xi64>) outs(%[[E]] : tensor<?x?x8xf32>)
// CHECK:         ^bb0(%[[P:.*]]: i64, %{{.*}}: f32):
// CHECK:           %[[PI:.*]] = arith.index_cast %[[P]] : i64 to index
// CHECK:           %[[LO:.*]] = arith.maxsi %[[PI]], %{{.*}} : index
// CHECK:           %[[AT:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[K:.*]] = linalg.index 2 : index
// CHECK:           %[[V:.*]] = tensor.extract %arg0[%[[I]], %[[AT]], %[[K]]] : tensor<?x?x8xf32>
// CHECK:           linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
// The iota form (option index-select-as-generic=0): the dynamic offset axis 0 becomes a collapsed
// axis indexed by an iota; slice sizes are then static and the op a stablehlo.gather.
// IOTA-LABEL: func @gather_index_select_axis1
// IOTA-NOT:     stablehlo.dynamic_gather
// IOTA-DAG:     %[[B:.*]] = stablehlo.slice %arg2 [0:1] : (tensor<3xi64>) -> tensor<1xi64>
// IOTA-DAG:     %[[N32:.*]] = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?xi64>) -> tensor<i32>
// IOTA:         %[[SH:.*]] = stablehlo.concatenate %[[B]], %{{.*}}, %{{.*}}, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
// IOTA:         %[[I:.*]] = stablehlo.dynamic_broadcast_in_dim %arg1, %[[SH]], dims = [1]
// IOTA-SAME:      known_nonexpanding_dimensions = array<i64: 0>
// IOTA-SAME:      -> tensor<?x?x1xi64>
// IOTA:         %[[J:.*]] = stablehlo.dynamic_iota %{{.*}}, dim = 0 : (tensor<3xi64>) -> tensor<?x?x1xi64>
// IOTA:         %[[IJ:.*]] = stablehlo.concatenate %[[I]], %[[J]], dim = 2 : (tensor<?x?x1xi64>, tensor<?x?x1xi64>) -> tensor<?x?x2xi64>
// IOTA:         %[[R:.*]] = "stablehlo.gather"(%arg0, %[[IJ]])
// IOTA-SAME:      offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [1, 0], index_vector_dim = 2
// IOTA-SAME:      slice_sizes = array<i64: 1, 1, 8>
// IOTA-SAME:      -> tensor<?x?x8xf32>
// IOTA:         return %[[R]]
func.func @gather_index_select_axis1(%arg0: tensor<?x?x8xf32>, %idx: tensor<?xi64>, %sizes: tensor<3xi64>) -> tensor<?x?x8xf32> {
  %0 = "stablehlo.dynamic_gather"(%arg0, %idx, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false}> : (tensor<?x?x8xf32>, tensor<?xi64>, tensor<3xi64>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// index_select(x, 0, idx): idx read at the result's axis 0.
// CHECK-LABEL: func @gather_index_select_axis0
// CHECK:         linalg.generic {{.*}} ins(%arg1 : tensor<?xi64>)
// CHECK:           %[[AT:.*]] = arith.minsi
// CHECK:           %[[J:.*]] = linalg.index 1 : index
// CHECK:           %[[K:.*]] = linalg.index 2 : index
// CHECK:           tensor.extract %arg0[%[[AT]], %[[J]], %[[K]]] : tensor<?x?x8xf32>
// The iota form: the batch axis leads, the dynamic offset axis 1 follows it.
// IOTA-LABEL: func @gather_index_select_axis0
// IOTA:         stablehlo.dynamic_broadcast_in_dim %arg1, %{{.*}}, dims = [0]
// IOTA:         stablehlo.dynamic_iota %{{.*}}, dim = 1 : (tensor<3xi64>) -> tensor<?x?x1xi64>
// IOTA:         "stablehlo.gather"
// IOTA-SAME:      offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2
// IOTA-SAME:      slice_sizes = array<i64: 1, 1, 8>
func.func @gather_index_select_axis0(%arg0: tensor<?x?x8xf32>, %idx: tensor<?xi64>, %sizes: tensor<3xi64>) -> tensor<?x?x8xf32> {
  %0 = "stablehlo.dynamic_gather"(%arg0, %idx, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<?x?x8xf32>, tensor<?xi64>, tensor<3xi64>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// index_select of a slice seen through a reshape (`x[:, :, 0][idx]`): the iota gather stays
// (IREE 3.13 failed to translate the element read of the fused strided view to LLVM).
// CHECK-LABEL: func @index_select_of_a_slice_kept
// CHECK-NOT:     linalg.generic
// CHECK:         "stablehlo.gather"
func.func @index_select_of_a_slice_kept(%arg0: tensor<?x?x?xf32>, %start: tensor<3xi64>, %limit: tensor<3xi64>, %shape: tensor<2xi64>, %idx: tensor<?xi64>, %sizes: tensor<2xi64>) -> tensor<?x?xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<3xi64>
  %s = stablehlo.real_dynamic_slice %arg0, %start, %limit, %c1 : (tensor<?x?x?xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x?x1xf32>
  %r = stablehlo.dynamic_reshape %s, %shape : (tensor<?x?x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %0 = "stablehlo.dynamic_gather"(%r, %idx, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<?x?xf32>, tensor<?xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A dynamic window at an indexed start cannot use an iota: the op stays for IREE to report.
// CHECK-LABEL: func @gather_dynamic_indexed_window_kept
// CHECK:         stablehlo.dynamic_gather
func.func @gather_dynamic_indexed_window_kept(%arg0: tensor<?x8xf32>, %idx: tensor<1xi64>, %sizes: tensor<2xi64>) -> tensor<?x8xf32> {
  %0 = "stablehlo.dynamic_gather"(%arg0, %idx, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [0], index_vector_dim = 0>}> : (tensor<?x8xf32>, tensor<1xi64>, tensor<2xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A gather of a unit-stride slice reads the slice's source, its indices shifted by the slice's
// start (every operand axis indexed): IREE 3.13 miscompiled a gather of the `?x1` slice lowered
// to tensor.extract_slice (each row read x[0, 0]).
// CHECK-LABEL: func @gather_of_slice
// CHECK-NOT:     stablehlo.real_dynamic_slice
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %[[OFF:.*]] = stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
// CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %[[OFF]], %{{.*}}, dims = [2]
// CHECK:         %[[I:.*]] = stablehlo.add %arg2, %[[B]] : tensor<?x?x2xi64>
// CHECK:         "stablehlo.gather"(%arg0, %[[I]]) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [1, 0], index_vector_dim = 2>
func.func @gather_of_slice(%arg0: tensor<?x?xf32>, %start: tensor<2xi64>, %idx: tensor<?x?x2xi64>, %limit: tensor<2xi64>) -> tensor<?x?xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<2xi64>
  %s = stablehlo.real_dynamic_slice %arg0, %start, %limit, %c1 : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x1xf32>
  %r = "stablehlo.gather"(%s, %idx) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<?x1xf32>, tensor<?x?x2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A count read from data that folded to a constant (`k = ones(2).sum().item()`, `x[:k]`): a static
// operand, constant bounds (the limit through a reshape of a 0-d constant), a `?` result. IREE 3.13
// folded it itself and failed ("unresolved source materialization from tensor<2xf32> to
// tensor<?xf32>"): a static extract_slice, cast to `?`.
// CHECK-LABEL: func @slice_constant_count
// CHECK-NOT:     stablehlo.real_dynamic_slice
// CHECK:         %[[S:.*]] = tensor.extract_slice %arg0[0] [2] [1] : tensor<2xf32> to tensor<2xf32>
// CHECK:         %[[R:.*]] = tensor.cast %[[S]] : tensor<2xf32> to tensor<?xf32>
// CHECK:         return %[[R]]
func.func @slice_constant_count(%arg0: tensor<2xf32>) -> tensor<?xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<1xi64>
  %c1 = stablehlo.constant dense<1> : tensor<1xi64>
  %k = stablehlo.constant dense<2> : tensor<i64>
  %limit = stablehlo.reshape %k : (tensor<i64>) -> tensor<1xi64>
  %0 = stablehlo.real_dynamic_slice %arg0, %c0, %limit, %c1 : (tensor<2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A data-dependent limit on a static operand stays a real_dynamic_slice (IREE compiles it).
// CHECK-LABEL: func @slice_data_count
// CHECK:         stablehlo.real_dynamic_slice
func.func @slice_data_count(%arg0: tensor<2xf32>, %limit: tensor<1xi64>) -> tensor<?xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<1xi64>
  %c1 = stablehlo.constant dense<1> : tensor<1xi64>
  %0 = stablehlo.real_dynamic_slice %arg0, %c0, %limit, %c1 : (tensor<2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Rotary embeddings' rotate_half, `cat(-x[..., 32:], x[..., :32])` over `?` batch and sequence
// (the slices' limits are x's own sizes there): x split into halves by a reshape, the halves
// swapped by a reverse, the first negated by a select; no slice or concatenate is left.
// CHECK-LABEL: func @rotate_half
// CHECK:         %[[E:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1], [2], [3, 4]] output_shape [%{{.*}}, 4, %{{.*}}, 2, 32] : tensor<?x4x?x64xf32> into tensor<?x4x?x2x32xf32>
// CHECK:         %[[R:.*]] = stablehlo.reverse %[[E]], dims = [3] : tensor<?x4x?x2x32xf32>
// CHECK:         %[[M:.*]] = stablehlo.dynamic_broadcast_in_dim %{{.*}}, %{{.*}}, dims = [3] {{.*}} : (tensor<2xi1>, tensor<5xi64>) -> tensor<?x4x?x2x32xi1>
// CHECK:         %[[N:.*]] = stablehlo.negate %[[R]]
// CHECK:         %[[S:.*]] = stablehlo.select %[[M]], %[[N]], %[[R]]
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[S]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<?x4x?x2x32xf32> into tensor<?x4x?x64xf32>
// CHECK-NOT:     stablehlo.concatenate
// CHECK-NOT:     extract_slice
// CHECK:         return %[[C]]
func.func @rotate_half(%arg0: tensor<?x4x?x64xf32>) -> tensor<?x4x?x64xf32> {
  %n = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4x?x64xf32>) -> tensor<i32>
  %s = stablehlo.get_dimension_size %arg0, dim = 2 : (tensor<?x4x?x64xf32>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %s64 = stablehlo.convert %s : (tensor<i32>) -> tensor<i64>
  %n1 = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %s1 = stablehlo.reshape %s64 : (tensor<i64>) -> tensor<1xi64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %c32 = stablehlo.constant dense<32> : tensor<1xi64>
  %c64 = stablehlo.constant dense<64> : tensor<1xi64>
  %lim_lo = stablehlo.concatenate %n1, %c4, %s1, %c32, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %lim_hi = stablehlo.concatenate %n1, %c4, %s1, %c64, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %zero = stablehlo.constant dense<0> : tensor<4xi64>
  %one = stablehlo.constant dense<1> : tensor<4xi64>
  %half = stablehlo.constant dense<[0, 0, 0, 32]> : tensor<4xi64>
  %x1 = stablehlo.real_dynamic_slice %arg0, %zero, %lim_lo, %one : (tensor<?x4x?x64xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) -> tensor<?x4x?x32xf32>
  %x2 = stablehlo.real_dynamic_slice %arg0, %half, %lim_hi, %one : (tensor<?x4x?x64xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) -> tensor<?x4x?x32xf32>
  %m = stablehlo.negate %x2 : tensor<?x4x?x32xf32>
  %r = stablehlo.concatenate %m, %x1, dim = 3 : (tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>) -> tensor<?x4x?x64xf32>
  return %r : tensor<?x4x?x64xf32>
}

// -----

// The same halves in their own order (`cat(x[..., :32], x[..., 32:])`) are not a rotation: the
// concatenate stays (and the slices become tensor.extract_slice).
// CHECK-LABEL: func @halves_in_order
// CHECK-NOT:     stablehlo.reverse
// CHECK:         stablehlo.concatenate
func.func @halves_in_order(%arg0: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %n = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x64xf32>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %n1 = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %c32 = stablehlo.constant dense<32> : tensor<1xi64>
  %c64 = stablehlo.constant dense<64> : tensor<1xi64>
  %lim_lo = stablehlo.concatenate %n1, %c32, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %lim_hi = stablehlo.concatenate %n1, %c64, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %zero = stablehlo.constant dense<0> : tensor<2xi64>
  %one = stablehlo.constant dense<1> : tensor<2xi64>
  %half = stablehlo.constant dense<[0, 32]> : tensor<2xi64>
  %x1 = stablehlo.real_dynamic_slice %arg0, %zero, %lim_lo, %one : (tensor<?x64xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x32xf32>
  %x2 = stablehlo.real_dynamic_slice %arg0, %half, %lim_hi, %one : (tensor<?x64xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x32xf32>
  %r = stablehlo.concatenate %x1, %x2, dim = 1 : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// Learned positions, `wpe(arange(s))` with s in [2, 1024] (the contract) over a 1024-row table:
// the gather of rows 0 .. s-1 becomes a slice of the table's first s rows.
// CHECK-LABEL: func @positions_gathered_at_arange
// CHECK-NOT:     stablehlo.gather
// CHECK:         %[[S:.*]] = tensor.extract_slice %arg1[0, 0] [%{{.*}}, 8] [1, 1] : tensor<1024x8xf32> to tensor<?x8xf32>
// CHECK:         return %[[S]]
func.func @positions_gathered_at_arange(%x: tensor<2x?xf32>, %wpe: tensor<1024x8xf32>) -> tensor<?x8xf32> attributes {
    symhlo.arg_shapes = [["2", "s"], ["1024", "8"]], symhlo.symbols = {s = [2, 1024]}} {
  %0 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x?xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.reshape %1 : (tensor<i64>) -> tensor<1xi64>
  %i = stablehlo.dynamic_iota %2, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %ones = stablehlo.dynamic_broadcast_in_dim %c1, %2, dims = [] : (tensor<i64>, tensor<1xi64>) -> tensor<?xi64>
  %j = stablehlo.multiply %i, %ones : tensor<?xi64>
  %r = "stablehlo.gather"(%wpe, %j) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>}> : (tensor<1024x8xf32>, tensor<?xi64>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// The same with positions starting at 1 (`arange(s) + 1`): row s would lie past the table
// for s = 1024, so the gather (which clamps it) stays.
// CHECK-LABEL: func @positions_past_the_table
// CHECK:         stablehlo.gather
func.func @positions_past_the_table(%x: tensor<2x?xf32>, %wpe: tensor<1024x8xf32>) -> tensor<?x8xf32> attributes {
    symhlo.arg_shapes = [["2", "s"], ["1024", "8"]], symhlo.symbols = {s = [2, 1024]}} {
  %0 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x?xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.reshape %1 : (tensor<i64>) -> tensor<1xi64>
  %i = stablehlo.dynamic_iota %2, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %ones = stablehlo.dynamic_broadcast_in_dim %c1, %2, dims = [] : (tensor<i64>, tensor<1xi64>) -> tensor<?xi64>
  %j = stablehlo.add %i, %ones : tensor<?xi64>
  %r = "stablehlo.gather"(%wpe, %j) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>}> : (tensor<1024x8xf32>, tensor<?xi64>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
