// RUN: symhlo-opt --symhlo-shape-to-stablehlo %s | FileCheck %s

// torch's `inv = empty_like(p); inv[p] = arange(n)`: a tensor.empty whose only use is a scatter's
// input becomes a zero splat of its `?` size; an empty returned as it is stays (and fails later by
// name in symhlo-verify-pure-stablehlo).

// CHECK-LABEL: func @scattered_empty_is_a_zero_splat
// CHECK-NOT:     tensor.empty
// CHECK:         %[[N:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK:         %[[N64:.*]] = stablehlo.convert %[[N]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK:         %[[S:.*]] = stablehlo.reshape %[[N64]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         %[[E:.*]] = stablehlo.dynamic_broadcast_in_dim %[[Z]], %[[S]], dims = [] : (tensor<i64>, tensor<1xi64>) -> tensor<?xi64>
// CHECK:         "stablehlo.scatter"(%[[E]],
func.func @scattered_empty_is_a_zero_splat(%arg0: tensor<?xi64>, %arg1: tensor<?x1xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xi64>
  %e = tensor.empty(%d) : tensor<?xi64>
  %r = "stablehlo.scatter"(%e, %arg1, %arg0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    stablehlo.return %b : tensor<i64>
  }) : (tensor<?xi64>, tensor<?x1xi64>, tensor<?xi64>) -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// CHECK-LABEL: func @returned_empty_stays
// CHECK:         tensor.empty
func.func @returned_empty_stays(%arg0: tensor<?xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xi64>
  %e = tensor.empty(%d) : tensor<?xf32>
  return %e : tensor<?xf32>
}
