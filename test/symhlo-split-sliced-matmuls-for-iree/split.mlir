// RUN: symhlo-opt --symhlo-split-sliced-matmuls-for-iree --split-input-file %s | FileCheck %s

// A fused q/k/v projection over `?` rows, split along its static feature axis: one matmul per
// slice over the weight's columns, the bias sliced with it, the reshape to `?x?x4`.
// CHECK-LABEL: func @qkv_split
// CHECK-NOT:     real_dynamic_slice
// CHECK:         %[[W0:.*]] = stablehlo.slice %arg1 [0:8, 0:4] : (tensor<8x12xf32>) -> tensor<8x4xf32>
// CHECK:         %[[D0:.*]] = stablehlo.dot_general %arg0, %[[W0]], contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
// CHECK:         %[[B0:.*]] = stablehlo.slice %arg2 [0:4] : (tensor<12xf32>) -> tensor<4xf32>
// CHECK:         %[[BB0:.*]] = stablehlo.dynamic_broadcast_in_dim %[[B0]], %{{.*}}, dims = [1] : (tensor<4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
// CHECK:         %[[A0:.*]] = stablehlo.add %[[D0]], %[[BB0]] : tensor<?x4xf32>
// CHECK:         %[[Q:.*]] = stablehlo.dynamic_reshape %[[A0]], %{{.*}} : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
// CHECK:         stablehlo.slice %arg1 [0:8, 4:8]
// CHECK:         stablehlo.slice %arg2 [4:8]
// CHECK:         %[[K:.*]] = stablehlo.dynamic_reshape {{.*}} -> tensor<?x?x4xf32>
// CHECK:         stablehlo.slice %arg1 [0:8, 8:12]
// CHECK:         stablehlo.slice %arg2 [8:12]
// CHECK:         %[[V:.*]] = stablehlo.dynamic_reshape {{.*}} -> tensor<?x?x4xf32>
// CHECK-NOT:     stablehlo.dot_general
// CHECK:         return %[[Q]], %[[K]], %[[V]]
func.func @qkv_split(%x: tensor<?x8xf32>, %w: tensor<8x12xf32>, %bias: tensor<12xf32>, %bs: tensor<2xi64>)
    -> (tensor<?x?x4xf32>, tensor<?x?x4xf32>, tensor<?x?x4xf32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x12xf32>) -> tensor<?x12xf32>
  %n = stablehlo.get_dimension_size %d, dim = 0 : (tensor<?x12xf32>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %n1 = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %c12 = stablehlo.constant dense<12> : tensor<1xi64>
  %shape2 = stablehlo.concatenate %n1, %c12, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %bb = stablehlo.dynamic_broadcast_in_dim %bias, %shape2, dims = [1] : (tensor<12xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  %a = stablehlo.add %d, %bb : tensor<?x12xf32>
  %shape3 = stablehlo.concatenate %bs, %c12, dim = 0 : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r = stablehlo.dynamic_reshape %a, %shape3 : (tensor<?x12xf32>, tensor<3xi64>) -> tensor<?x?x12xf32>
  %s0 = stablehlo.get_dimension_size %r, dim = 0 : (tensor<?x?x12xf32>) -> tensor<i32>
  %s1 = stablehlo.get_dimension_size %r, dim = 1 : (tensor<?x?x12xf32>) -> tensor<i32>
  %t0 = stablehlo.convert %s0 : (tensor<i32>) -> tensor<i64>
  %t1 = stablehlo.convert %s1 : (tensor<i32>) -> tensor<i64>
  %u0 = stablehlo.reshape %t0 : (tensor<i64>) -> tensor<1xi64>
  %u1 = stablehlo.reshape %t1 : (tensor<i64>) -> tensor<1xi64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %c8 = stablehlo.constant dense<8> : tensor<1xi64>
  %l0 = stablehlo.concatenate %u0, %u1, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %l1 = stablehlo.concatenate %u0, %u1, %c8, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %l2 = stablehlo.concatenate %u0, %u1, %c12, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %o0 = stablehlo.constant dense<[0, 0, 0]> : tensor<3xi64>
  %o1 = stablehlo.constant dense<[0, 0, 4]> : tensor<3xi64>
  %o2 = stablehlo.constant dense<[0, 0, 8]> : tensor<3xi64>
  %one = stablehlo.constant dense<1> : tensor<3xi64>
  %q = stablehlo.real_dynamic_slice %r, %o0, %l0, %one : (tensor<?x?x12xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x?x4xf32>
  %k = stablehlo.real_dynamic_slice %r, %o1, %l1, %one : (tensor<?x?x12xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x?x4xf32>
  %v = stablehlo.real_dynamic_slice %r, %o2, %l2, %one : (tensor<?x?x12xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x?x4xf32>
  return %q, %k, %v : tensor<?x?x4xf32>, tensor<?x?x4xf32>, tensor<?x?x4xf32>
}

// -----

// Slices that overlap (together more than the axis once over) would add work: left alone.
// CHECK-LABEL: func @overlapping_slices
// CHECK-COUNT-1: stablehlo.dot_general
// CHECK-COUNT-2: stablehlo.real_dynamic_slice
func.func @overlapping_slices(%x: tensor<?x8xf32>, %w: tensor<8x12xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x12xf32>) -> tensor<?x12xf32>
  %s0 = stablehlo.get_dimension_size %d, dim = 0 : (tensor<?x12xf32>) -> tensor<i32>
  %t0 = stablehlo.convert %s0 : (tensor<i32>) -> tensor<i64>
  %u0 = stablehlo.reshape %t0 : (tensor<i64>) -> tensor<1xi64>
  %c8 = stablehlo.constant dense<8> : tensor<1xi64>
  %c12 = stablehlo.constant dense<12> : tensor<1xi64>
  %l0 = stablehlo.concatenate %u0, %c8, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %l1 = stablehlo.concatenate %u0, %c12, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %o0 = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %o1 = stablehlo.constant dense<[0, 4]> : tensor<2xi64>
  %one = stablehlo.constant dense<1> : tensor<2xi64>
  %a = stablehlo.real_dynamic_slice %d, %o0, %l0, %one : (tensor<?x12xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x8xf32>
  %b = stablehlo.real_dynamic_slice %d, %o1, %l1, %one : (tensor<?x12xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x8xf32>
  return %a, %b : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// The matmul's result has another reader besides the slices: left alone (it is computed whole
// anyway).
// CHECK-LABEL: func @result_read_whole
// CHECK-COUNT-1: stablehlo.dot_general
// CHECK:         stablehlo.real_dynamic_slice
func.func @result_read_whole(%x: tensor<?x8xf32>, %w: tensor<8x12xf32>) -> (tensor<?x4xf32>, tensor<?x12xf32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x12xf32>) -> tensor<?x12xf32>
  %e = stablehlo.exponential %d : tensor<?x12xf32>
  %s0 = stablehlo.get_dimension_size %e, dim = 0 : (tensor<?x12xf32>) -> tensor<i32>
  %t0 = stablehlo.convert %s0 : (tensor<i32>) -> tensor<i64>
  %u0 = stablehlo.reshape %t0 : (tensor<i64>) -> tensor<1xi64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %l0 = stablehlo.concatenate %u0, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %o0 = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %one = stablehlo.constant dense<1> : tensor<2xi64>
  %a = stablehlo.real_dynamic_slice %e, %o0, %l0, %one : (tensor<?x12xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4xf32>
  return %a, %d : tensor<?x4xf32>, tensor<?x12xf32>
}

// -----

// A slice of the `?` rows (not every row taken): left alone.
// CHECK-LABEL: func @rows_sliced
// CHECK-COUNT-1: stablehlo.dot_general
// CHECK:         stablehlo.real_dynamic_slice
func.func @rows_sliced(%x: tensor<?x8xf32>, %w: tensor<8x12xf32>, %m: tensor<1xi64>) -> tensor<?x4xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x12xf32>) -> tensor<?x12xf32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %l0 = stablehlo.concatenate %m, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %o0 = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %one = stablehlo.constant dense<1> : tensor<2xi64>
  %a = stablehlo.real_dynamic_slice %d, %o0, %l0, %one : (tensor<?x12xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4xf32>
  return %a : tensor<?x4xf32>
}
