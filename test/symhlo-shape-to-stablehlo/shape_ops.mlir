// RUN: symhlo-opt --symhlo-shape-to-stablehlo --split-input-file --verify-diagnostics %s | FileCheck %s

// `shape` dialect ops (ours and torch-mlir's) -> StableHLO on tensor<i64> / tensor<Nxi64>.

// CHECK-LABEL: func @shape_of_mixes_dynamic_and_static_axes
// CHECK-DAG:     %[[D0:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3x?xf32>) -> tensor<i32>
// CHECK-DAG:     %[[D2:.*]] = stablehlo.get_dimension_size %arg0, dim = 2 : (tensor<?x3x?xf32>) -> tensor<i32>
// CHECK-DAG:     %[[E0:.*]] = stablehlo.convert %[[D0]] : (tensor<i32>) -> tensor<i64>
// CHECK-DAG:     %[[E2:.*]] = stablehlo.convert %[[D2]] : (tensor<i32>) -> tensor<i64>
// CHECK-DAG:     %[[R0:.*]] = stablehlo.reshape %[[E0]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-DAG:     %[[THREE:.*]] = stablehlo.constant dense<3> : tensor<1xi64>
// CHECK-DAG:     %[[R2:.*]] = stablehlo.reshape %[[E2]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         %[[S:.*]] = stablehlo.concatenate %[[R0]], %[[THREE]], %[[R2]], dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg1, %[[S]], dims = [0, 1, 2] : (tensor<1x3x1xf32>, tensor<3xi64>) -> tensor<?x3x?xf32>
func.func @shape_of_mixes_dynamic_and_static_axes(%arg0: tensor<?x3x?xf32>, %arg1: tensor<1x3x1xf32>) -> tensor<?x3x?xf32> {
  %s = shape.shape_of %arg0 : tensor<?x3x?xf32> -> tensor<3xindex>
  %r = stablehlo.dynamic_broadcast_in_dim %arg1, %s, dims = [0, 1, 2] : (tensor<1x3x1xf32>, tensor<3xindex>) -> tensor<?x3x?xf32>
  return %r : tensor<?x3x?xf32>
}

// -----

// CHECK-LABEL: func @shape_of_static_is_a_constant
// CHECK:         %[[S:.*]] = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
// CHECK-NOT:     get_dimension_size
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg1, %[[S]]
func.func @shape_of_static_is_a_constant(%arg0: tensor<2x3xf32>, %arg1: tensor<1x3xf32>) -> tensor<?x3xf32> {
  %s = shape.shape_of %arg0 : tensor<2x3xf32> -> tensor<2xindex>
  %r = stablehlo.dynamic_broadcast_in_dim %arg1, %s, dims = [0, 1] : (tensor<1x3xf32>, tensor<2xindex>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func @get_extent_of_shape_of_is_get_dimension_size
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<4x?xf32>) -> tensor<i32>
// CHECK:         %[[E:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK-NOT:     stablehlo.slice
// CHECK:         return %[[E]] : tensor<i64>
func.func @get_extent_of_shape_of_is_get_dimension_size(%arg0: tensor<4x?xf32>) -> tensor<i64> {
  %c1 = arith.constant 1 : index
  %s = shape.shape_of %arg0 : tensor<4x?xf32> -> tensor<2xindex>
  %e = shape.get_extent %s, %c1 : tensor<2xindex>, index -> index
  %i = arith.index_cast %e : index to i64
  %t = tensor.from_elements %i : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @get_extent_of_opaque_extents_slices
// CHECK:         %[[SL:.*]] = stablehlo.slice %arg0 [1:2] : (tensor<3xi64>) -> tensor<1xi64>
// CHECK:         %[[E:.*]] = stablehlo.reshape %[[SL]] : (tensor<1xi64>) -> tensor<i64>
// CHECK:         return %[[E]] : tensor<i64>
func.func @get_extent_of_opaque_extents_slices(%arg0: tensor<3xi64>) -> tensor<i64> {
  %c1 = arith.constant 1 : index
  %s = arith.index_cast %arg0 : tensor<3xi64> to tensor<3xindex>
  %e = shape.get_extent %s, %c1 : tensor<3xindex>, index -> index
  %i = arith.index_cast %e : index to i64
  %t = tensor.from_elements %i : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @const_shape
// CHECK:         %[[S:.*]] = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg0, %[[S]], dims = [1]
func.func @const_shape(%arg0: tensor<3xf32>) -> tensor<?x3xf32> {
  %s = shape.const_shape [2, 3] : tensor<2xindex>
  %r = stablehlo.dynamic_broadcast_in_dim %arg0, %s, dims = [1] : (tensor<3xf32>, tensor<2xindex>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// Two `?` axes that meet: select(a == 1, b, a). A static 1 never wins, equal statics stay.
// CHECK-LABEL: func @broadcast_two_dynamic_axes
// CHECK-DAG:     %[[A:.*]] = stablehlo.convert %{{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK-DAG:     %[[B:.*]] = stablehlo.convert %{{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[ONE:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK:         %[[EQ:.*]] = stablehlo.compare EQ, %[[A]], %[[ONE]]
// CHECK:         %[[SEL:.*]] = stablehlo.select %[[EQ]], %[[B]], %[[A]] : tensor<i1>, tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.reshape %[[SEL]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         %[[FOUR:.*]] = stablehlo.constant dense<4> : tensor<1xi64>
// CHECK:         %[[S:.*]] = stablehlo.concatenate %[[R]], %[[FOUR]], dim = 0
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg0, %[[S]], dims = [0, 1]
func.func @broadcast_two_dynamic_axes(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = shape.shape_of %arg0 : tensor<?x4xf32> -> tensor<2xindex>
  %1 = shape.shape_of %arg1 : tensor<?x4xf32> -> tensor<2xindex>
  %2 = shape.broadcast %0, %1 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  %3 = stablehlo.dynamic_broadcast_in_dim %arg0, %2, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}

// -----

// Right-aligned extents; a static 1 against a `?` needs no select.
// CHECK-LABEL: func @broadcast_lower_rank_and_static_one
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK:         %[[A:.*]] = stablehlo.convert %[[D]]
// CHECK-NOT:     stablehlo.select
// CHECK:         %[[R:.*]] = stablehlo.reshape %[[A]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         %[[REST:.*]] = stablehlo.constant dense<[5, 4]> : tensor<2xi64>
// CHECK:         %[[S:.*]] = stablehlo.concatenate %[[R]], %[[REST]], dim = 0 : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg1, %[[S]], dims = [1, 2]
func.func @broadcast_lower_rank_and_static_one(%arg0: tensor<?x1x4xf32>, %arg1: tensor<5x4xf32>) -> tensor<?x5x4xf32> {
  %0 = shape.shape_of %arg0 : tensor<?x1x4xf32> -> tensor<3xindex>
  %1 = shape.shape_of %arg1 : tensor<5x4xf32> -> tensor<2xindex>
  %2 = shape.broadcast %0, %1 : tensor<3xindex>, tensor<2xindex> -> tensor<3xindex>
  %3 = stablehlo.dynamic_broadcast_in_dim %arg1, %2, dims = [1, 2] : (tensor<5x4xf32>, tensor<3xindex>) -> tensor<?x5x4xf32>
  return %3 : tensor<?x5x4xf32>
}

// -----

// CHECK-LABEL: func @num_elements_is_the_product
// CHECK-DAG:     %[[A:.*]] = stablehlo.convert %{{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK-DAG:     %[[ONE:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK:         %[[P0:.*]] = stablehlo.multiply %[[ONE]], %[[A]] : tensor<i64>
// CHECK:         %[[SIX:.*]] = stablehlo.constant dense<6> : tensor<i64>
// CHECK:         %[[P1:.*]] = stablehlo.multiply %[[P0]], %[[SIX]] : tensor<i64>
// CHECK:         return %[[P1]] : tensor<i64>
func.func @num_elements_is_the_product(%arg0: tensor<?x6xf32>) -> tensor<i64> {
  %0 = shape.shape_of %arg0 : tensor<?x6xf32> -> tensor<2xindex>
  %1 = shape.num_elements %0 : tensor<2xindex> -> index
  %2 = arith.index_cast %1 : index to i64
  %t = tensor.from_elements %2 : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @from_extents_through_to_extent_tensor
// CHECK:         %[[E:.*]] = stablehlo.convert %{{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.reshape %[[E]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         %[[S:.*]] = stablehlo.concatenate %[[R]], %{{.*}}, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg1, %[[S]]
// CHECK-NOT:     shape.
func.func @from_extents_through_to_extent_tensor(%arg0: tensor<?x3xf32>, %arg1: tensor<1x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %s = shape.from_extents %d, %c3 : index, index
  %t = shape.to_extent_tensor %s : !shape.shape -> tensor<2xindex>
  %r = stablehlo.dynamic_broadcast_in_dim %arg1, %t, dims = [0, 1] : (tensor<1x3xf32>, tensor<2xindex>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// shape.add/mul on index, and shape.div with Python's floor semantics. (shape.max/min take only
// !shape.size, which torch-symbolic-to-shape never makes: it uses arith.maxsi/minsi.)
// CHECK-LABEL: func @shape_scalar_ops
// CHECK:         %[[D:.*]] = stablehlo.convert %{{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[D]], %[[TWO:.*]] : tensor<i64>
// CHECK:         %[[A:.*]] = stablehlo.add %[[M]], %[[TWO]] : tensor<i64>
// CHECK:         %[[Q:.*]] = stablehlo.divide %[[A]], %[[TWO]] : tensor<i64>
// CHECK:         stablehlo.remainder %[[A]], %[[TWO]]
// CHECK:         %[[FD:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[Q]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[FD]] : tensor<i64>
func.func @shape_scalar_ops(%arg0: tensor<?xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  %m = shape.mul %d, %c2 : index, index -> index
  %a = shape.add %m, %c2 : index, index -> index
  %q = shape.div %a, %c2 : index, index -> index
  %i = arith.index_cast %q : index to i64
  %t = tensor.from_elements %i : tensor<i64>
  return %t : tensor<i64>
}

// -----

// torch-mlir's broadcast guard: cstr_broadcastable + assuming are inlined (torch.export proved
// the broadcast; the runtime wrapper checks the input shapes the proof rests on).
// CHECK-LABEL: func @assuming_is_inlined
// CHECK-NOT:     shape.
// CHECK:         %[[S:.*]] = stablehlo.concatenate
// CHECK:         %[[X:.*]] = stablehlo.dynamic_broadcast_in_dim %arg0, %[[S]], dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
// CHECK:         %[[Y:.*]] = stablehlo.dynamic_broadcast_in_dim %arg1, %[[S]], dims = [1] : (tensor<4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
// CHECK:         %[[R:.*]] = stablehlo.add %[[X]], %[[Y]] : tensor<?x4xf32>
// CHECK:         return %[[R]] : tensor<?x4xf32>
func.func @assuming_is_inlined(%arg0: tensor<?x4xf32>, %arg1: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = shape.shape_of %arg0 : tensor<?x4xf32> -> tensor<2xindex>
  %1 = shape.shape_of %arg1 : tensor<4xf32> -> tensor<1xindex>
  %2 = shape.cstr_broadcastable %0, %1 : tensor<2xindex>, tensor<1xindex>
  %3 = shape.assuming %2 -> (tensor<?x4xf32>) {
    %4 = shape.broadcast %0, %1 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
    %5 = stablehlo.dynamic_broadcast_in_dim %arg0, %4, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    %6 = stablehlo.dynamic_broadcast_in_dim %arg1, %4, dims = [1] : (tensor<4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    %7 = stablehlo.add %5, %6 : tensor<?x4xf32>
    shape.assuming_yield %7 : tensor<?x4xf32>
  }
  return %3 : tensor<?x4xf32>
}

// -----

// shape.index_to_size / size_to_index carry the index unchanged.
// CHECK-LABEL: func @size_casts_pass_through
// CHECK:         %[[E:.*]] = stablehlo.convert %{{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK:         return %[[E]] : tensor<i64>
func.func @size_casts_pass_through(%arg0: tensor<?xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  %s = shape.index_to_size %d
  %i = shape.size_to_index %s : !shape.size
  %x = arith.index_cast %i : index to i64
  %t = tensor.from_elements %x : tensor<i64>
  return %t : tensor<i64>
}

// -----

func.func @shape_failure_shape_value_with_unsupported_user(%arg0: tensor<?x3xf32>) -> !shape.shape {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %s = shape.from_extents %d, %c3 : index, index
  // expected-error@+1 {{'func.return' takes a !shape.shape; only shape.to_extent_tensor users are supported}}
  return %s : !shape.shape
}

// -----

func.func @get_extent_failure_dynamic_index(%arg0: tensor<?x?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %s = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
  %i = tensor.dim %arg0, %c0 : tensor<?x?xf32>
  // expected-error@+1 {{the extent index must be a constant}}
  %e = shape.get_extent %s, %i : tensor<2xindex>, index -> index
  return %e : index
}
