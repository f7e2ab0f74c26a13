// RUN: symhlo-opt --symhlo-read-shape-elements-on-host-for-iree --split-input-file %s | FileCheck %s

// A slice bound torch clamps, `min(n + 1, n)`, assembled with a constant into a shape vector:
// the element read is index arithmetic on the argument's size, not a read of the vector.
// CHECK-LABEL: func @bound_from_sizes
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[D:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?xi64>
// CHECK:         %[[P:.*]] = arith.addi %{{.*}}, %[[D]] : index
// CHECK:         %[[M:.*]] = arith.minsi %[[P]], %[[D]] : index
// CHECK:         %[[E:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK-NOT:     tensor.extract %{{.*}} : tensor<2xi64>
// CHECK:         return %[[E]]
func.func @bound_from_sizes(%arg0: tensor<?xi64>) -> i64 {
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xi64>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.add %1, %c1 : tensor<i64>
  %3 = stablehlo.minimum %2, %1 : tensor<i64>
  %4 = stablehlo.reshape %3 : (tensor<i64>) -> tensor<1xi64>
  %5 = stablehlo.concatenate %4, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %5[%c0] : tensor<2xi64>
  return %e : i64
}

// -----

// A size that comes from data (a count) is read from its own 0-d tensor, the constant
// element is a constant: nothing reads the assembled vector.
// CHECK-LABEL: func @count_from_data
// CHECK-DAG:     %[[N:.*]] = stablehlo.reduce
// CHECK-DAG:     %[[E0:.*]] = tensor.extract %[[N]][] : tensor<i64>
// CHECK-DAG:     %[[E1:.*]] = arith.constant 4 : i64
// CHECK-NOT:     tensor.extract %{{.*}} : tensor<2xi64>
// CHECK:         return %[[E0]], %[[E1]]
func.func @count_from_data(%mask: tensor<?xi64>) -> (i64, i64) {
  %z = stablehlo.constant dense<0> : tensor<i64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %n = stablehlo.reduce(%mask init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?xi64>, tensor<i64>) -> tensor<i64>
  %r = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %v = stablehlo.concatenate %r, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e0 = tensor.extract %v[%c0] : tensor<2xi64>
  %e1 = tensor.extract %v[%c1] : tensor<2xi64>
  return %e0, %e1 : i64, i64
}

// -----

// The limit of a slice left for IREE, made by a concatenate of a data-dependent piece and a
// constant, becomes from_elements of the two elements read where they are made.
// CHECK-LABEL: func @slice_limit_operand
// CHECK:         %[[E:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK:         %[[C:.*]] = arith.constant 4 : i64
// CHECK:         %[[L:.*]] = tensor.from_elements %[[E]], %[[C]] : tensor<2xi64>
// CHECK:         stablehlo.real_dynamic_slice %arg0, %{{.*}}, %[[L]], %{{.*}}
func.func @slice_limit_operand(%x: tensor<?x4xf32>, %mask: tensor<?xi64>) -> tensor<?x4xf32> {
  %z = stablehlo.constant dense<0> : tensor<i64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %c00 = stablehlo.constant dense<0> : tensor<2xi64>
  %c11 = stablehlo.constant dense<1> : tensor<2xi64>
  %n = stablehlo.reduce(%mask init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?xi64>, tensor<i64>) -> tensor<i64>
  %r = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %v = stablehlo.concatenate %r, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %s = stablehlo.real_dynamic_slice %x, %c00, %v, %c11 : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// -----

// The rows of a scatter's result are its operand's rows: a bound over them is host arithmetic.
// CHECK-LABEL: func @bound_through_scatter
// CHECK:         tensor.dim %arg0
// CHECK:         %[[M:.*]] = arith.minsi
// CHECK:         %[[E:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK:         return %[[E]]
func.func @bound_through_scatter(%arg0: tensor<?x4xf32>, %idx: tensor<?x1xi64>, %upd: tensor<?x4xf32>, %n: tensor<?xi64>) -> i64 {
  %s = "stablehlo.scatter"(%arg0, %idx, %upd) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %sum = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) : (tensor<?x4xf32>, tensor<?x1xi64>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %0 = stablehlo.get_dimension_size %s, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.get_dimension_size %n, dim = 0 : (tensor<?xi64>) -> tensor<i32>
  %3 = stablehlo.convert %2 : (tensor<i32>) -> tensor<i64>
  %4 = stablehlo.minimum %1, %3 : tensor<i64>
  %5 = stablehlo.reshape %4 : (tensor<i64>) -> tensor<1xi64>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %5[%c0] : tensor<1xi64>
  return %e : i64
}

// -----

// In a function with control flow the pieces are read directly, without host arithmetic
// (IREE 3.13 failed on loops carrying values sized by the arguments' tensor.dim).
// CHECK-LABEL: func @looped
// CHECK-NOT:     tensor.dim
// CHECK:         %[[M:.*]] = stablehlo.minimum
// CHECK:         tensor.extract %[[M]][] : tensor<i64>
func.func @looped(%arg0: tensor<?xi64>, %k: tensor<i64>) -> (i64, tensor<i64>) {
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xi64>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.add %1, %c1 : tensor<i64>
  %3 = stablehlo.minimum %2, %1 : tensor<i64>
  %4 = stablehlo.reshape %3 : (tensor<i64>) -> tensor<1xi64>
  %5 = stablehlo.concatenate %4, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %5[%c0] : tensor<2xi64>
  %w = stablehlo.while(%i = %k) : tensor<i64>
    cond {
      %lt = stablehlo.compare LT, %i, %c1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %n = stablehlo.add %i, %c1 : tensor<i64>
      stablehlo.return %n : tensor<i64>
    }
  return %e, %w : i64, tensor<i64>
}

// -----

// torch's floor division `(n - 4) // 3` with its sign test folded to false: `and(false, ...)`
// is false, the select its quotient, all on host.
// CHECK-LABEL: func @floor_division
// CHECK:         %[[D:.*]] = tensor.dim %arg0
// CHECK:         %[[A:.*]] = arith.subi %[[D]], %{{.*}} : index
// CHECK:         %[[Q:.*]] = arith.divsi %[[A]], %{{.*}} : index
// CHECK-NOT:     arith.andi
// CHECK:         %[[E:.*]] = arith.index_cast %[[Q]] : index to i64
// CHECK:         return %[[E]]
func.func @floor_division(%arg0: tensor<?xf32>) -> i64 {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c3 = stablehlo.constant dense<3> : tensor<i64>
  %c4 = stablehlo.constant dense<4> : tensor<i64>
  %false = stablehlo.constant dense<false> : tensor<i1>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %d = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %a = stablehlo.subtract %d, %c4 : tensor<i64>
  %q = stablehlo.divide %a, %c3 : tensor<i64>
  %r = stablehlo.remainder %a, %c3 : tensor<i64>
  %nz = stablehlo.compare NE, %r, %c0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %both = stablehlo.and %false, %nz : tensor<i1>
  %q1 = stablehlo.subtract %q, %c1 : tensor<i64>
  %s = stablehlo.select %both, %q1, %q : tensor<i1>, tensor<i64>
  %v = stablehlo.reshape %s : (tensor<i64>) -> tensor<1xi64>
  %i = arith.constant 0 : index
  %e = tensor.extract %v[%i] : tensor<1xi64>
  return %e : i64
}
