// RUN: symhlo-opt --symhlo-prepare-for-iree --split-input-file --verify-diagnostics %s | FileCheck %s

// IREE 3.13 rejects every stablehlo.dynamic_reshape: tensor.reshape with index extents instead,
// static extents as constants, dynamic ones read from the shape operand.
// CHECK-LABEL: func @dynamic_reshape_split
// CHECK-NOT:     stablehlo.dynamic_reshape
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[E:.*]] = tensor.extract %arg1[%[[C0]]] : tensor<3xi64>
// CHECK-DAG:     %[[D:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[S:.*]] = tensor.from_elements %[[D]], %[[C4]], %[[C2]] : tensor<3xindex>
// CHECK:         %[[R:.*]] = tensor.reshape %arg0(%[[S]]) : (tensor<?x8xf32>, tensor<3xindex>) -> tensor<?x4x2xf32>
// CHECK:         return %[[R]]
func.func @dynamic_reshape_split(%arg0: tensor<?x8xf32>, %s: tensor<3xi64>) -> tensor<?x4x2xf32> {
  %0 = stablehlo.dynamic_reshape %arg0, %s : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x4x2xf32>
  return %0 : tensor<?x4x2xf32>
}

// -----

// CHECK-LABEL: func @dynamic_reshape_merge_two_dynamic_axes
// CHECK:         %[[E:.*]] = tensor.extract %arg1[%{{.*}}] : tensor<2xi64>
// CHECK:         %[[D:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK:         %[[S:.*]] = tensor.from_elements %[[D]], %{{.*}} : tensor<2xindex>
// CHECK:         tensor.reshape %arg0(%[[S]]) : (tensor<?x?x8xf32>, tensor<2xindex>) -> tensor<?x8xf32>
func.func @dynamic_reshape_merge_two_dynamic_axes(%arg0: tensor<?x?x8xf32>, %s: tensor<2xi64>) -> tensor<?x8xf32> {
  %0 = stablehlo.dynamic_reshape %arg0, %s : (tensor<?x?x8xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// torch's contract (a function symhlo exported: symhlo.symbols): a `?` operand axis never
// expands, a static 1 under a larger axis does.
// CHECK-LABEL: func @broadcast_gets_expansion_hints
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1]
// CHECK-SAME:      known_expanding_dimensions = array<i64: 1>
// CHECK-SAME:      known_nonexpanding_dimensions = array<i64: 0>
func.func @broadcast_gets_expansion_hints(%arg0: tensor<?x1xf32>, %s: tensor<2xi64>) -> tensor<?x5xf32> attributes {symhlo.symbols = {}} {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %s, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// The seed: a constant 1x1x768 broadcast to ?x1x768. Axis 0 (a static 1 under `?`) expands;
// the equal static axes do not.
// CHECK-LABEL: func @broadcast_static_one_under_dynamic_axis
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1, 2]
// CHECK-SAME:      known_expanding_dimensions = array<i64: 0>
// CHECK-SAME:      known_nonexpanding_dimensions = array<i64: 1, 2>
func.func @broadcast_static_one_under_dynamic_axis(%arg0: tensor<1x1x768xf32>, %s: tensor<3xi64>) -> tensor<?x1x768xf32> attributes {symhlo.symbols = {}} {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %s, dims = [0, 1, 2] : (tensor<1x1x768xf32>, tensor<3xi64>) -> tensor<?x1x768xf32>
  return %0 : tensor<?x1x768xf32>
}

// -----

// CHECK-LABEL: func @identity_broadcast_is_dropped
// CHECK-NOT:     stablehlo.dynamic_broadcast_in_dim
// CHECK:         return %arg0 : tensor<?x4xf32>
func.func @identity_broadcast_is_dropped(%arg0: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x4xf32> attributes {symhlo.symbols = {}} {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
