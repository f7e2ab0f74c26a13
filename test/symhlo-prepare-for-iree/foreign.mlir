// RUN: symhlo-opt --symhlo-prepare-for-iree --split-input-file --verify-diagnostics %s | FileCheck %s

// Functions without symhlo's contract attributes (StableHLO from jax.export, hand-written):
// a `?` axis is non-expanding only where the IR proves its size equal to the result's.

// jax's softmax shape: ? -> ?x1 (unit axis only: tensor.expand_shape), then ?x1 -> ?x?, whose
// axis 0 is proven equal (both read get_dimension_size %arg0, 0; the reduce keeps axis 0).
// CHECK-LABEL: func @main
// CHECK:         %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [%{{.*}}, 1] : tensor<?xf32> into tensor<?x1xf32>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %[[E]], %{{.*}}, dims = [0, 1]
// CHECK-SAME:      known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: 0>
func.func @main(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c = stablehlo.constant dense<1> : tensor<1xi32>
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?xf32>) -> tensor<i32>
  %n = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %2 = stablehlo.concatenate %1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %3 = stablehlo.dynamic_broadcast_in_dim %0, %2, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x1xf32>
  %4 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %5 = stablehlo.concatenate %1, %4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %6 = stablehlo.dynamic_broadcast_in_dim %3, %5, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %7 = stablehlo.subtract %arg0, %6 : tensor<?x?xf32>
  return %7 : tensor<?x?xf32>
}

// -----

// A `?` axis of one input broadcast to another input's size: 1 at run time would expand, and
// nothing in the IR says it cannot. Refused (IREE would assume it does not expand).
func.func @main(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %b = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<4> : tensor<1xi32>
  %2 = stablehlo.concatenate %1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  // expected-error @+1 {{operand axis 0 is `?` and may be 1 at run time, expanding to result axis 0}}
  %3 = stablehlo.dynamic_broadcast_in_dim %arg0, %2, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %4 = stablehlo.add %3, %arg1 : tensor<?x4xf32>
  return %4 : tensor<?x4xf32>
}

// -----

// The same broadcast once a recorded shape assertion checks dim(arg0, 0) == dim(arg1, 0) at call
// time: proven, and the identity broadcast goes.
// CHECK-LABEL: func @main
// CHECK-NOT:     dynamic_broadcast_in_dim
// CHECK:         stablehlo.add %arg0, %arg1
func.func @main(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {
    symhlo.shape_assertions = [{args = "[]", cond = "[\22eq\22, [\22dim\22, 0, 0], [\22dim\22, 1, 0]]", message = "b differs"}]} {
  %b = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<4> : tensor<1xi32>
  %2 = stablehlo.concatenate %1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %3 = stablehlo.dynamic_broadcast_in_dim %arg0, %2, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %4 = stablehlo.add %3, %arg1 : tensor<?x4xf32>
  return %4 : tensor<?x4xf32>
}

// -----

// dynamic_pad with computed edge amounts (possibly negative: crop) -> tensor.pad of max(a, 0)
// and tensor.extract_slice dropping max(-a, 0); constant amounts stay static.
// CHECK-LABEL: func @dynamic_pad
// CHECK-NOT:     stablehlo.dynamic_pad
// CHECK:         %[[P:.*]] = tensor.pad %arg0 low[1, 0] high[2, %{{.*}}]
// CHECK:           tensor.yield
// CHECK:         tensor.extract_slice %[[P]]
func.func @dynamic_pad(%arg0: tensor<?x?xf32>, %v: tensor<f32>) -> tensor<?x?xf32> {
  %n = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %a = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %c2 = stablehlo.constant dense<2> : tensor<1xi32>
  %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %hi = stablehlo.concatenate %c2, %a, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %in = stablehlo.constant dense<0> : tensor<2xi32>
  %0 = stablehlo.dynamic_pad %arg0, %v, %lo, %hi, %in : (tensor<?x?xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Gather indices `?x1` with the index vector last: IREE 3.13 reshapes them with a static-only
// stablehlo.reshape. The unit axis goes (implicit index vector).
// CHECK-LABEL: func @gather_unit_index_vector
// CHECK:         %[[I:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<?x1xi32> into tensor<?xi32>
// CHECK:         "stablehlo.gather"(%arg0, %[[I]])
// CHECK-SAME:      index_vector_dim = 1
func.func @gather_unit_index_vector(%arg0: tensor<10x8xf32>, %arg1: tensor<?x1xi32>) -> tensor<?x8xf32> {
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<10x8xf32>, tensor<?x1xi32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// (b, n, 16) x (16, 8) without batching: IREE would flatten it with a dynamic_reshape it cannot
// compile; collapse to 2-D, a 2-D dot_general, expand back.
// CHECK-LABEL: func @rank3_matmul
// CHECK:         %[[F:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<?x?x16xf32> into tensor<?x16xf32>
// CHECK:         %[[D:.*]] = stablehlo.dot_general %[[F]], %arg1, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
// CHECK:         tensor.expand_shape %[[D]] {{\[\[}}0, 1], [2]]
func.func @rank3_matmul(%arg0: tensor<?x?x16xf32>, %arg1: tensor<16x8xf32>) -> tensor<?x?x8xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0] : (tensor<?x?x16xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}
