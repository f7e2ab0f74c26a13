// RUN: symhlo-opt --symhlo-shape-to-stablehlo --split-input-file --verify-diagnostics %s | FileCheck %s

// tensor.dim / from_elements / extract and arith.constant -> StableHLO; failures name the op.

// CHECK-LABEL: func @tensor_dim_static_axis_is_a_constant
// CHECK-NOT:     get_dimension_size
// CHECK:         %[[C:.*]] = stablehlo.constant dense<3> : tensor<i64>
// CHECK:         return %[[C]] : tensor<i64>
func.func @tensor_dim_static_axis_is_a_constant(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c1 = arith.constant 1 : index
  %d = tensor.dim %arg0, %c1 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %t = tensor.from_elements %i : tensor<i64>
  return %t : tensor<i64>
}

// -----

// The seed's shape: [2 * dim0, 1, 768] as one concatenate (constants folded into one piece).
// CHECK-LABEL: func @from_elements_folds_constant_runs
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3x224x224xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[I]], %{{.*}} : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.reshape %[[M]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         %[[REST:.*]] = stablehlo.constant dense<[1, 768]> : tensor<2xi64>
// CHECK:         %[[S:.*]] = stablehlo.concatenate %[[R]], %[[REST]], dim = 0 : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg1, %[[S]], dims = [0, 1, 2] : (tensor<1x1x768xf32>, tensor<3xi64>) -> tensor<?x1x768xf32>
func.func @from_elements_folds_constant_runs(%arg0: tensor<?x3x224x224xf32>, %arg1: tensor<1x1x768xf32>) -> tensor<?x1x768xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : i64
  %c1 = arith.constant 1 : i64
  %c768 = arith.constant 768 : i64
  %d = tensor.dim %arg0, %c0 : tensor<?x3x224x224xf32>
  %i = arith.index_cast %d : index to i64
  %m = arith.muli %i, %c2 : i64
  %s = tensor.from_elements %m, %c1, %c768 : tensor<3xi64>
  %r = stablehlo.dynamic_broadcast_in_dim %arg1, %s, dims = [0, 1, 2] : (tensor<1x1x768xf32>, tensor<3xi64>) -> tensor<?x1x768xf32>
  return %r : tensor<?x1x768xf32>
}

// -----

// An index extent tensor feeding StableHLO: the i64 form is used directly, no index_cast left.
// CHECK-LABEL: func @from_elements_of_index_feeds_stablehlo
// CHECK:         %[[S:.*]] = stablehlo.concatenate
// CHECK-NOT:     arith.index_cast
// CHECK:         stablehlo.dynamic_iota %[[S]], dim = 0 : (tensor<2xi64>) -> tensor<?x4xi64>
func.func @from_elements_of_index_feeds_stablehlo(%arg0: tensor<?xf32>) -> tensor<?x4xi64> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  %s = tensor.from_elements %d, %c4 : tensor<2xindex>
  %r = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xindex>) -> tensor<?x4xi64>
  return %r : tensor<?x4xi64>
}

// -----

// CHECK-LABEL: func @extract_from_shape_tensor
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 1
// CHECK:         %[[E:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         return %[[E]] : tensor<i64>
func.func @extract_from_shape_tensor(%arg0: tensor<2x?xf32>) -> tensor<i64> {
  %c1 = arith.constant 1 : index
  %s = shape.shape_of %arg0 : tensor<2x?xf32> -> tensor<2xindex>
  %e = tensor.extract %s[%c1] : tensor<2xindex>
  %i = arith.index_cast %e : index to i64
  %t = tensor.from_elements %i : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @from_elements_0d_index_bridges_back
// CHECK:         %[[E:.*]] = stablehlo.convert %{{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[X:.*]] = arith.index_cast %[[E]] : tensor<i64> to tensor<index>
// CHECK:         return %[[X]] : tensor<index>
func.func @from_elements_0d_index_bridges_back(%arg0: tensor<?xf32>) -> tensor<index> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  %t = tensor.from_elements %d : tensor<index>
  return %t : tensor<index>
}

// -----

// CHECK-LABEL: func @arith_constant_index_vector
// CHECK:         %[[C:.*]] = stablehlo.constant dense<[4, 5]> : tensor<2xi64>
// CHECK:         stablehlo.dynamic_iota %[[C]], dim = 0 : (tensor<2xi64>) -> tensor<?x?xi64>
func.func @arith_constant_index_vector() -> tensor<?x?xi64> {
  %s = arith.constant dense<[4, 5]> : tensor<2xindex>
  %r = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xindex>) -> tensor<?x?xi64>
  return %r : tensor<?x?xi64>
}

// -----

// CHECK-LABEL: func @arith_constant_tensor_and_float
// CHECK-DAG:     %[[T:.*]] = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG:     %[[F:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         %[[X:.*]] = tensor.extract %[[F]][] : tensor<f32>
// CHECK:         return %[[T]], %[[X]] : tensor<2xf32>, f32
func.func @arith_constant_tensor_and_float() -> (tensor<2xf32>, f32) {
  %t = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %f = arith.constant 0.5 : f32
  return %t, %f : tensor<2xf32>, f32
}

// -----

// CHECK-LABEL: func @arith_constant_i1
// CHECK:         %[[T:.*]] = stablehlo.constant dense<true> : tensor<i1>
// CHECK:         stablehlo.select %[[T]]
func.func @arith_constant_i1(%arg0: tensor<?xf32>) -> tensor<i64> {
  %true = arith.constant true
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i64
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  %i = arith.index_cast %d : index to i64
  %r = arith.select %true, %i, %c7 : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

func.func @tensor_dim_failure_index_from_argument(%arg0: tensor<?xf32>, %arg1: index) -> index {
  // expected-error@+1 {{scalar operand %arg1 of type index comes from 'a block argument'}}
  %d = tensor.dim %arg0, %arg1 : tensor<?xf32>
  return %d : index
}

// -----

func.func @tensor_extract_failure_dynamic_index(%arg0: tensor<?x?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %s = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
  %i = tensor.dim %arg0, %c0 : tensor<?x?xf32>
  // expected-error@+1 {{the index must be a constant}}
  %e = tensor.extract %s[%i] : tensor<2xindex>
  return %e : index
}

// -----

func.func @from_elements_failure_rank_2(%arg0: tensor<?x?xf32>) -> tensor<2x2xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %arg0, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
  %a = arith.index_cast %d0 : index to i64
  %b = arith.index_cast %d1 : index to i64
  // expected-error-re@+1 {{result type tensor<2x2xi64>{{$}}}}
  %t = tensor.from_elements %a, %b, %b, %a : tensor<2x2xi64>
  return %t : tensor<2x2xi64>
}
