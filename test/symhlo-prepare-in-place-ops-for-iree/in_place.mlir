// RUN: symhlo-opt --symhlo-prepare-in-place-ops-for-iree --split-input-file %s | FileCheck %s

// IREE 3.13 sorts and scatters in place. Its sort fails on a result nobody reads (an unbounded or > 32 KiB stack
// buffer): each unused result is read by a live one through a term that is zero for every
// value (`d > +inf` is false, NaN included).

// argsort: only the indices are read; the values come back in as `+ convert(values > inf)`.
// CHECK-LABEL: func @argsort
// CHECK:         %[[S:.*]]:2 = "stablehlo.sort"
// CHECK:         %[[INF:.*]] = stablehlo.constant dense<0x7F800000> : tensor<f32>
// CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %[[INF]], %{{.*}}, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK:         %[[GT:.*]] = stablehlo.compare GT, %[[S]]#0, %[[B]], FLOAT
// CHECK:         %[[Z:.*]] = stablehlo.convert %[[GT]] : (tensor<?xi1>) -> tensor<?xi64>
// CHECK:         %[[R:.*]] = stablehlo.add %[[S]]#1, %[[Z]] : tensor<?xi64>
// CHECK:         return %[[R]]
func.func @argsort(%arg0: tensor<?xf32>, %arg1: tensor<?xi64>) -> tensor<?xi64> {
  %r:2 = "stablehlo.sort"(%arg0, %arg1) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i64>, %j: tensor<i64>):
    %n = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %n : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<?xf32>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xi64>)
  return %r#1 : tensor<?xi64>
}

// -----

// msort: only the values are read; the indices (converted to f32) come back as `- 0.0`, which
// keeps -0.0 and NaN. Static shapes broadcast with broadcast_in_dim.
// CHECK-LABEL: func @msort_static
// CHECK:         %[[S:.*]]:2 = "stablehlo.sort"
// CHECK:         %[[F:.*]] = stablehlo.convert %[[S]]#1 : (tensor<10000xi64>) -> tensor<10000xf32>
// CHECK:         %[[B:.*]] = stablehlo.broadcast_in_dim
// CHECK:         %[[GT:.*]] = stablehlo.compare GT, %[[F]], %[[B]], FLOAT
// CHECK:         %[[Z:.*]] = stablehlo.convert %[[GT]] : (tensor<10000xi1>) -> tensor<10000xf32>
// CHECK:         %[[R:.*]] = stablehlo.subtract %[[S]]#0, %[[Z]] : tensor<10000xf32>
// CHECK:         return %[[R]]
func.func @msort_static(%arg0: tensor<10000xf32>, %arg1: tensor<10000xi64>) -> tensor<10000xf32> {
  %r:2 = "stablehlo.sort"(%arg0, %arg1) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i64>, %j: tensor<i64>):
    %n = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %n : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<10000xf32>, tensor<10000xi64>) -> (tensor<10000xf32>, tensor<10000xi64>)
  return %r#0 : tensor<10000xf32>
}

// -----

// Both results read: unchanged.
// CHECK-LABEL: func @both_used
// CHECK:         %[[S:.*]]:2 = "stablehlo.sort"
// CHECK-NOT:     stablehlo.compare GT
// CHECK:         return %[[S]]#0, %[[S]]#1
func.func @both_used(%arg0: tensor<?xf32>, %arg1: tensor<?xi64>) -> (tensor<?xf32>, tensor<?xi64>) {
  %r:2 = "stablehlo.sort"(%arg0, %arg1) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i64>, %j: tensor<i64>):
    %n = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %n : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<?xf32>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xi64>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi64>
}

// -----

// An iota operand is replaced by the same values out of a reduction over [iota, 0], which the
// in-place sort may overwrite without touching the argmax's iota (IREE merged the two).
// CHECK-LABEL: func @own_iota
// CHECK:         %[[IOTA:.*]] = stablehlo.dynamic_iota %arg1, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
// CHECK:         %[[COL:.*]] = stablehlo.dynamic_reshape %[[IOTA]], %{{.*}} : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x1xi64>
// CHECK:         %[[PAIR:.*]] = stablehlo.pad %[[COL]], %{{.*}}, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<?x1xi64>, tensor<i64>) -> tensor<?x2xi64>
// CHECK:         %[[OWN:.*]] = stablehlo.reduce(%[[PAIR]] init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<?x2xi64>, tensor<i64>) -> tensor<?xi64>
// CHECK:         "stablehlo.sort"(%arg0, %[[OWN]])
// CHECK:         stablehlo.add %[[IOTA]], %{{.*}}
func.func @own_iota(%arg0: tensor<?xf32>, %arg1: tensor<1xi64>) -> (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) {
  %iota = stablehlo.dynamic_iota %arg1, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
  %r:2 = "stablehlo.sort"(%arg0, %iota) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i64>, %j: tensor<i64>):
    %n = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %n : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<?xf32>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xi64>)
  %other = stablehlo.add %iota, %iota : tensor<?xi64>
  return %r#0, %r#1, %other : tensor<?xf32>, tensor<?xi64>, tensor<?xi64>
}

// -----

// A scatter into a broadcast constant (`zeros_like(x).scatter_add(...)`): the destination is
// materialized too, with -0.0 as the padding so that the sum keeps every value's sign.
// CHECK-LABEL: func @scatter_into_zeros
// CHECK:         %[[Z:.*]] = stablehlo.dynamic_broadcast_in_dim
// CHECK:         %[[NEG0:.*]] = stablehlo.constant dense<-0.000000e+00> : tensor<f32>
// CHECK:         %[[PAIR:.*]] = stablehlo.pad %{{.*}}, %[[NEG0]], low = [0, 0], high = [0, 1]
// CHECK:         %[[OWN:.*]] = stablehlo.reduce(%[[PAIR]] init: %[[NEG0]]) applies stablehlo.add across dimensions = [1]
// CHECK:         "stablehlo.scatter"(%[[OWN]], %arg1, %arg2)
func.func @scatter_into_zeros(%arg0: tensor<1xi64>, %arg1: tensor<?x1xi32>, %arg2: tensor<?xf32>) -> tensor<?xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %z = stablehlo.dynamic_broadcast_in_dim %zero, %arg0, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %r = "stablehlo.scatter"(%z, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<?xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A loop result returned as it is gets a buffer of its own (IREE 3.13 shared it with the loop's
// in-place state: inv(a) beside lu_factor(a) gave a NaN inverse); a loop result used otherwise,
// and a returned argument, are left alone.
// CHECK-LABEL: func @returned_loop_result
// CHECK:         %[[W:.*]]:2 = stablehlo.while
// CHECK:         %[[P:.*]] = stablehlo.pad %{{.*}}, %{{.*}}, low = [0, 0, 0], high = [0, 0, 1], interior = [0, 0, 0] : (tensor<?x?x1xf32>, tensor<f32>) -> tensor<?x?x2xf32>
// CHECK:         %[[R:.*]] = stablehlo.reduce(%[[P]] init: %{{.*}}) applies stablehlo.add across dimensions = [2]
// CHECK:         return %[[R]], %arg0
func.func @returned_loop_result(%arg0: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %w:2 = stablehlo.while(%k = %c0, %m = %arg0) : tensor<i64>, tensor<?x?xf32>
  cond {
    %p = stablehlo.compare LT, %k, %c1, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %k1 = stablehlo.add %k, %c1 : tensor<i64>
    %m1 = stablehlo.add %m, %m : tensor<?x?xf32>
    stablehlo.return %k1, %m1 : tensor<i64>, tensor<?x?xf32>
  }
  return %w#1, %arg0 : tensor<?x?xf32>, tensor<?x?xf32>
}
