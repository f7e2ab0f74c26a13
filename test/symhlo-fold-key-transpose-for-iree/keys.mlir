// RUN: symhlo-opt --symhlo-fold-key-transpose-for-iree --split-input-file %s | FileCheck %s

// Attention scores over a `?` key axis: the scaled transpose of the keys is gone, the dot
// contracts the keys' own last axis and the scalar scales the queries.
// CHECK-LABEL: func @scaled_key_transpose
// CHECK-NOT:     stablehlo.transpose
// CHECK:         %[[K:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : tensor<?x4x?x64xf32> into tensor<?x?x64xf32>
// CHECK:         %[[SB:.*]] = stablehlo.dynamic_broadcast_in_dim %arg2, %{{.*}}, dims = [] : (tensor<f32>, tensor<3xi64>) -> tensor<?x1x64xf32>
// CHECK:         %[[Q:.*]] = stablehlo.multiply %arg0, %[[SB]] : tensor<?x1x64xf32>
// CHECK:         %[[D:.*]] = stablehlo.dot_general %[[Q]], %[[K]], batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<?x1x64xf32>, tensor<?x?x64xf32>) -> tensor<?x1x?xf32>
// CHECK:         return %[[D]]
func.func @scaled_key_transpose(%q: tensor<?x1x64xf32>, %k: tensor<?x4x?x64xf32>, %s: tensor<f32>, %shape: tensor<4xi64>) -> tensor<?x1x?xf32> {
  %t = stablehlo.transpose %k, dims = [0, 1, 3, 2] : (tensor<?x4x?x64xf32>) -> tensor<?x4x64x?xf32>
  %sb = stablehlo.dynamic_broadcast_in_dim %s, %shape, dims = [] : (tensor<f32>, tensor<4xi64>) -> tensor<?x4x64x?xf32>
  %m = stablehlo.multiply %t, %sb : tensor<?x4x64x?xf32>
  %r = tensor.collapse_shape %m [[0, 1], [2], [3]] : tensor<?x4x64x?xf32> into tensor<?x64x?xf32>
  %d = stablehlo.dot_general %q, %r, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x1x64xf32>, tensor<?x64x?xf32>) -> tensor<?x1x?xf32>
  return %d : tensor<?x1x?xf32>
}

// -----

// A transpose without a scale, no collapse: folded into the dimension numbers alone.
// CHECK-LABEL: func @plain_key_transpose
// CHECK-NOT:     stablehlo.transpose
// CHECK-NOT:     stablehlo.multiply
// CHECK:         stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<?x3x8xf32>, tensor<?x?x8xf32>) -> tensor<?x3x?xf32>
func.func @plain_key_transpose(%q: tensor<?x3x8xf32>, %k: tensor<?x?x8xf32>) -> tensor<?x3x?xf32> {
  %t = stablehlo.transpose %k, dims = [0, 2, 1] : (tensor<?x?x8xf32>) -> tensor<?x8x?xf32>
  %d = stablehlo.dot_general %q, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x3x8xf32>, tensor<?x8x?xf32>) -> tensor<?x3x?xf32>
  return %d : tensor<?x3x?xf32>
}

// -----

// The transposed keys have another user: left alone (the transpose is computed anyway).
// CHECK-LABEL: func @transpose_used_twice
// CHECK:         stablehlo.transpose
// CHECK:         stablehlo.dot_general {{.*}} contracting_dims = [2] x [1]
func.func @transpose_used_twice(%q: tensor<?x3x8xf32>, %k: tensor<?x?x8xf32>) -> (tensor<?x3x?xf32>, tensor<?x8x?xf32>) {
  %t = stablehlo.transpose %k, dims = [0, 2, 1] : (tensor<?x?x8xf32>) -> tensor<?x8x?xf32>
  %d = stablehlo.dot_general %q, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x3x8xf32>, tensor<?x8x?xf32>) -> tensor<?x3x?xf32>
  return %d, %t : tensor<?x3x?xf32>, tensor<?x8x?xf32>
}

// -----

// A transpose inside a collapsed group (the group's elements reordered) cannot be folded.
// CHECK-LABEL: func @transpose_inside_a_group
// CHECK:         stablehlo.transpose
// CHECK:         stablehlo.dot_general {{.*}} contracting_dims = [1] x [1]
func.func @transpose_inside_a_group(%q: tensor<?x8xf32>, %k: tensor<?x2x4xf32>) -> tensor<?xf32> {
  %t = stablehlo.transpose %k, dims = [0, 2, 1] : (tensor<?x2x4xf32>) -> tensor<?x4x2xf32>
  %r = tensor.collapse_shape %t [[0], [1, 2]] : tensor<?x4x2xf32> into tensor<?x8xf32>
  %d = stablehlo.dot_general %q, %r, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?xf32>
  return %d : tensor<?xf32>
}

// -----

// Static shapes: IREE fuses the transpose into the pack already; left alone.
// CHECK-LABEL: func @static_keys
// CHECK:         stablehlo.transpose
func.func @static_keys(%q: tensor<4x1x8xf32>, %k: tensor<4x9x8xf32>) -> tensor<4x1x9xf32> {
  %t = stablehlo.transpose %k, dims = [0, 2, 1] : (tensor<4x9x8xf32>) -> tensor<4x8x9xf32>
  %d = stablehlo.dot_general %q, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x1x8xf32>, tensor<4x8x9xf32>) -> tensor<4x1x9xf32>
  return %d : tensor<4x1x9xf32>
}

// -----

// Size reads of the transposed keys (torch-mlir's shape arithmetic) read the keys' own axes.
// CHECK-LABEL: func @size_reads_follow_the_keys
// CHECK-NOT:     stablehlo.transpose
// CHECK:         %[[N:.*]] = stablehlo.get_dimension_size %arg1, dim = 1 : (tensor<?x?x8xf32>) -> tensor<i32>
// CHECK:         stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [2]
// CHECK:         return {{.*}}, %[[N]]
func.func @size_reads_follow_the_keys(%q: tensor<?x3x8xf32>, %k: tensor<?x?x8xf32>) -> (tensor<?x3x?xf32>, tensor<i32>) {
  %t = stablehlo.transpose %k, dims = [0, 2, 1] : (tensor<?x?x8xf32>) -> tensor<?x8x?xf32>
  %n = stablehlo.get_dimension_size %t, dim = 2 : (tensor<?x8x?xf32>) -> tensor<i32>
  %d = stablehlo.dot_general %q, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x3x8xf32>, tensor<?x8x?xf32>) -> tensor<?x3x?xf32>
  return %d, %n : tensor<?x3x?xf32>, tensor<i32>
}

// -----

// `?` queries (a prefill's scores): left alone.
// CHECK-LABEL: func @dynamic_queries
// CHECK:         stablehlo.transpose
// CHECK:         stablehlo.dot_general {{.*}} contracting_dims = [2] x [1]
func.func @dynamic_queries(%q: tensor<?x?x8xf32>, %k: tensor<?x?x8xf32>) -> tensor<?x?x?xf32> {
  %t = stablehlo.transpose %k, dims = [0, 2, 1] : (tensor<?x?x8xf32>) -> tensor<?x8x?xf32>
  %d = stablehlo.dot_general %q, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x8xf32>, tensor<?x8x?xf32>) -> tensor<?x?x?xf32>
  return %d : tensor<?x?x?xf32>
}

// -----

// Grouped-query attention's repeat_kv: the values repeated over a unit axis inside the batch
// group are read unrepeated, each group of 2 probability rows against one row of values.
// CHECK-LABEL: func @repeated_values
// CHECK-NOT:     stablehlo.dynamic_broadcast_in_dim
// CHECK:         %[[V:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1, 2], [3], [4]] : tensor<?x2x1x?x64xf32> into tensor<?x?x64xf32>
// CHECK:         %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x1x?xf32>
// CHECK:         %[[R:.*]] = arith.divui %[[N]], %{{.*}} : index
// CHECK:         %[[P4:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1], [2], [3]] output_shape [%[[R]], 2, 1, %{{.*}}] : tensor<?x1x?xf32> into tensor<?x2x1x?xf32>
// CHECK:         %[[P:.*]] = tensor.collapse_shape %[[P4]] {{\[\[}}0], [1, 2], [3]] : tensor<?x2x1x?xf32> into tensor<?x2x?xf32>
// CHECK:         %[[O:.*]] = stablehlo.dot_general %[[P]], %[[V]], batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x2x?xf32>, tensor<?x?x64xf32>) -> tensor<?x2x64xf32>
// CHECK:         %[[O4:.*]] = tensor.expand_shape %[[O]] {{\[\[}}0], [1, 2], [3]] output_shape [%[[R]], 2, 1, 64] : tensor<?x2x64xf32> into tensor<?x2x1x64xf32>
// CHECK:         %[[OUT:.*]] = tensor.collapse_shape %[[O4]] {{\[\[}}0, 1], [2], [3]] : tensor<?x2x1x64xf32> into tensor<?x1x64xf32>
// CHECK:         return %[[OUT]]
func.func @repeated_values(%p: tensor<?x1x?xf32>, %e: tensor<?x2x1x?x64xf32>, %s: tensor<5xi64>) -> tensor<?x1x64xf32> {
  %b = stablehlo.dynamic_broadcast_in_dim %e, %s, dims = [0, 1, 2, 3, 4] {known_expanding_dimensions = array<i64: 2>, known_nonexpanding_dimensions = array<i64: 0, 1, 3, 4>} : (tensor<?x2x1x?x64xf32>, tensor<5xi64>) -> tensor<?x2x2x?x64xf32>
  %v = tensor.collapse_shape %b [[0, 1, 2], [3], [4]] : tensor<?x2x2x?x64xf32> into tensor<?x?x64xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x1x?xf32>, tensor<?x?x64xf32>) -> tensor<?x1x64xf32>
  return %o : tensor<?x1x64xf32>
}

// -----

// The repeated axis is not the innermost of the batch group (batch rows would not come in
// groups of one values row): left alone.
// CHECK-LABEL: func @repeat_outside_the_inner_axis
// CHECK:         stablehlo.dynamic_broadcast_in_dim
// CHECK:         stablehlo.dot_general {{.*}} : (tensor<?x1x?xf32>, tensor<?x?x64xf32>)
func.func @repeat_outside_the_inner_axis(%p: tensor<?x1x?xf32>, %e: tensor<?x1x2x?x64xf32>, %s: tensor<5xi64>) -> tensor<?x1x64xf32> {
  %b = stablehlo.dynamic_broadcast_in_dim %e, %s, dims = [0, 1, 2, 3, 4] {known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: 0, 2, 3, 4>} : (tensor<?x1x2x?x64xf32>, tensor<5xi64>) -> tensor<?x2x2x?x64xf32>
  %v = tensor.collapse_shape %b [[0, 1, 2], [3], [4]] : tensor<?x2x2x?x64xf32> into tensor<?x?x64xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x1x?xf32>, tensor<?x?x64xf32>) -> tensor<?x1x64xf32>
  return %o : tensor<?x1x64xf32>
}

// -----

// A `?` axis the broadcast may expand (not known non-expanding): left alone.
// CHECK-LABEL: func @maybe_expanding_axis
// CHECK:         stablehlo.dynamic_broadcast_in_dim
func.func @maybe_expanding_axis(%p: tensor<?x1x?xf32>, %e: tensor<?x2x1x?x64xf32>, %s: tensor<5xi64>) -> tensor<?x1x64xf32> {
  %b = stablehlo.dynamic_broadcast_in_dim %e, %s, dims = [0, 1, 2, 3, 4] {known_expanding_dimensions = array<i64: 2>, known_nonexpanding_dimensions = array<i64: 1, 3, 4>} : (tensor<?x2x1x?x64xf32>, tensor<5xi64>) -> tensor<?x2x2x?x64xf32>
  %v = tensor.collapse_shape %b [[0, 1, 2], [3], [4]] : tensor<?x2x2x?x64xf32> into tensor<?x?x64xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x1x?xf32>, tensor<?x?x64xf32>) -> tensor<?x1x64xf32>
  return %o : tensor<?x1x64xf32>
}
