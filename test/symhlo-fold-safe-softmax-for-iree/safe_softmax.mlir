// RUN: symhlo-opt --symhlo-fold-safe-softmax-for-iree --split-input-file %s | FileCheck %s

// torch's _safe_softmax after symhlo-normalize-softmax-for-iree and canonicalization: the
// all(x == -inf) row test goes, the row max is 0 where -inf and the reciprocal 0 where the sum
// is 0, both on the reduced rows.
// CHECK-LABEL: func @safe_softmax_static
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x16xf32>)
// CHECK:         %[[M:.*]] = stablehlo.reduce(%[[X]] init: %{{.*}}) applies stablehlo.maximum across dimensions = [2]
// CHECK:         %[[NINF:.*]] = stablehlo.constant dense<0xFF800000> : tensor<2x8xf32>
// CHECK:         %[[MNINF:.*]] = stablehlo.compare EQ, %[[M]], %[[NINF]], FLOAT : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
// CHECK:         %[[Z0:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<2x8xf32>
// CHECK:         %[[M0:.*]] = stablehlo.select %[[MNINF]], %[[Z0]], %[[M]] : tensor<2x8xi1>, tensor<2x8xf32>
// CHECK:         %[[MK:.*]] = stablehlo.reshape %[[M0]] : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
// CHECK:         %[[MB:.*]] = stablehlo.broadcast_in_dim %[[MK]], dims = [0, 1, 2]
// CHECK:         %[[D:.*]] = stablehlo.subtract %[[X]], %[[MB]]
// CHECK:         %[[E:.*]] = stablehlo.exponential %[[D]]
// CHECK:         %[[S:.*]] = stablehlo.reduce(%[[E]] init: %{{.*}}) applies stablehlo.add across dimensions = [2]
// CHECK:         %[[R:.*]] = stablehlo.divide %{{.*}}, %[[S]] : tensor<2x8xf32>
// CHECK:         %[[SZ:.*]] = stablehlo.compare EQ, %[[S]], %{{.*}}, FLOAT
// CHECK:         %[[R0:.*]] = stablehlo.select %[[SZ]], %{{.*}}, %[[R]] : tensor<2x8xi1>, tensor<2x8xf32>
// CHECK:         %[[RK:.*]] = stablehlo.reshape %[[R0]]
// CHECK:         %[[RB:.*]] = stablehlo.broadcast_in_dim %[[RK]], dims = [0, 1, 2]
// CHECK:         %[[P:.*]] = stablehlo.multiply %[[E]], %[[RB]]
// CHECK-NOT:     stablehlo.and
// CHECK-NOT:     stablehlo.select
// CHECK:         return %[[P]] : tensor<2x8x16xf32>
func.func @safe_softmax_static(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %zeros = stablehlo.constant dense<0.0> : tensor<2x8x16xf32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8xf32>
  %mk = stablehlo.reshape %m : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
  %mb = stablehlo.broadcast_in_dim %mk, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  %d = stablehlo.subtract %x, %mb : tensor<2x8x16xf32>
  %e = stablehlo.exponential %d : tensor<2x8x16xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ones = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<2x8xf32>
  %r = stablehlo.divide %ones, %s : tensor<2x8xf32>
  %rk = stablehlo.reshape %r : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
  %rb = stablehlo.broadcast_in_dim %rk, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  %p = stablehlo.multiply %e, %rb : tensor<2x8x16xf32>
  %ninfs = stablehlo.broadcast_in_dim %ninf, dims = [] : (tensor<f32>) -> tensor<2x8x16xf32>
  %c = stablehlo.compare EQ, %x, %ninfs, FLOAT : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xi1>
  %t = stablehlo.reduce(%c init: %true) applies stablehlo.and across dimensions = [2] : (tensor<2x8x16xi1>, tensor<i1>) -> tensor<2x8xi1>
  %tk = stablehlo.reshape %t : (tensor<2x8xi1>) -> tensor<2x8x1xi1>
  %tb = stablehlo.broadcast_in_dim %tk, dims = [0, 1, 2] : (tensor<2x8x1xi1>) -> tensor<2x8x16xi1>
  %pb = stablehlo.broadcast_in_dim %p, dims = [0, 1, 2] : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %y = stablehlo.select %tb, %zeros, %pb : tensor<2x8x16xi1>, tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

// `?` rows and keys (dynamic reshapes and broadcasts): the guards' constants are broadcast to the
// reduced rows' sizes; the row test's size reads move to the max's rows, and the test goes.
// CHECK-LABEL: func @safe_softmax_dynamic
// CHECK:         %[[M:.*]] = stablehlo.reduce(%{{.*}}) applies stablehlo.maximum across dimensions = [1]
// CHECK:         stablehlo.compare EQ, %[[M]], %{{.*}}, FLOAT : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
// CHECK:         %[[M0:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[M]] : tensor<?xi1>, tensor<?xf32>
// CHECK:         stablehlo.dynamic_reshape %[[M0]]
// CHECK:         %[[S:.*]] = stablehlo.reduce(%{{.*}}) applies stablehlo.add across dimensions = [1]
// CHECK:         %[[R:.*]] = stablehlo.divide %{{.*}}, %[[S]]
// CHECK:         stablehlo.compare EQ, %[[S]], %{{.*}}, FLOAT
// CHECK:         %[[R0:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[R]] : tensor<?xi1>, tensor<?xf32>
// CHECK:         stablehlo.dynamic_reshape %[[R0]]
// CHECK:         %[[N:.*]] = stablehlo.get_dimension_size %[[M]], dim = 0
// CHECK-NOT:     stablehlo.and
// CHECK:         return %{{.*}}, %[[N]]
func.func @safe_softmax_dynamic(%x: tensor<?x?xf32>, %k: tensor<2xi64>, %full: tensor<2xi64>, %rows: tensor<1xi64>) -> (tensor<?x?xf32>, tensor<i32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %mk = stablehlo.dynamic_reshape %m, %k : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x1xf32>
  %mb = stablehlo.dynamic_broadcast_in_dim %mk, %full, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %d = stablehlo.subtract %x, %mb : tensor<?x?xf32>
  %e = stablehlo.exponential %d : tensor<?x?xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %ones = stablehlo.dynamic_broadcast_in_dim %one, %rows, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %r = stablehlo.divide %ones, %s : tensor<?xf32>
  %rk = stablehlo.dynamic_reshape %r, %k : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x1xf32>
  %rb = stablehlo.dynamic_broadcast_in_dim %rk, %full, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %p = stablehlo.multiply %e, %rb : tensor<?x?xf32>
  %ninfs = stablehlo.dynamic_broadcast_in_dim %ninf, %full, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %c = stablehlo.compare EQ, %x, %ninfs, FLOAT : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %t = stablehlo.reduce(%c init: %true) applies stablehlo.and across dimensions = [1] : (tensor<?x?xi1>, tensor<i1>) -> tensor<?xi1>
  %n = stablehlo.get_dimension_size %t, dim = 0 : (tensor<?xi1>) -> tensor<i32>
  %tk = stablehlo.dynamic_reshape %t, %k : (tensor<?xi1>, tensor<2xi64>) -> tensor<?x1xi1>
  %tb = stablehlo.dynamic_broadcast_in_dim %tk, %full, dims = [0, 1] : (tensor<?x1xi1>, tensor<2xi64>) -> tensor<?x?xi1>
  %zeros = stablehlo.dynamic_broadcast_in_dim %zero, %full, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %y = stablehlo.select %tb, %zeros, %p : tensor<?x?xi1>, tensor<?x?xf32>
  return %y, %n : tensor<?x?xf32>, tensor<i32>
}

// -----

// Left alone: the row test reduces another axis than the softmax (not the same rows).
// CHECK-LABEL: func @other_axis
// CHECK:         stablehlo.and
// CHECK:         stablehlo.select
func.func @other_axis(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %ones = stablehlo.constant dense<1.0> : tensor<4xf32>
  %zeros = stablehlo.constant dense<0.0> : tensor<4x4xf32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
  %d = stablehlo.subtract %x, %mb : tensor<4x4xf32>
  %e = stablehlo.exponential %d : tensor<4x4xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = stablehlo.divide %ones, %s : tensor<4xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
  %p = stablehlo.multiply %e, %rb : tensor<4x4xf32>
  %ninfs = stablehlo.constant dense<0xFF800000> : tensor<4x4xf32>
  %c = stablehlo.compare EQ, %x, %ninfs, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
  %t = stablehlo.reduce(%c init: %true) applies stablehlo.and across dimensions = [0] : (tensor<4x4xi1>, tensor<i1>) -> tensor<4xi1>
  %tb = stablehlo.broadcast_in_dim %t, dims = [1] : (tensor<4xi1>) -> tensor<4x4xi1>
  %y = stablehlo.select %tb, %zeros, %p : tensor<4x4xi1>, tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// Left alone: the exponentials are also returned (they would change in an all -inf row).
// CHECK-LABEL: func @exp_read_elsewhere
// CHECK:         stablehlo.and
// CHECK:         stablehlo.select
func.func @exp_read_elsewhere(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %ones = stablehlo.constant dense<1.0> : tensor<4xf32>
  %zeros = stablehlo.constant dense<0.0> : tensor<4x4xf32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
  %d = stablehlo.subtract %x, %mb : tensor<4x4xf32>
  %e = stablehlo.exponential %d : tensor<4x4xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = stablehlo.divide %ones, %s : tensor<4xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
  %p = stablehlo.multiply %e, %rb : tensor<4x4xf32>
  %ninfs = stablehlo.constant dense<0xFF800000> : tensor<4x4xf32>
  %c = stablehlo.compare EQ, %x, %ninfs, FLOAT : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
  %t = stablehlo.reduce(%c init: %true) applies stablehlo.and across dimensions = [1] : (tensor<4x4xi1>, tensor<i1>) -> tensor<4xi1>
  %tb = stablehlo.broadcast_in_dim %t, dims = [0] : (tensor<4xi1>) -> tensor<4x4xi1>
  %y = stablehlo.select %tb, %zeros, %p : tensor<4x4xi1>, tensor<4x4xf32>
  return %y, %e : tensor<4x4xf32>, tensor<4x4xf32>
}
