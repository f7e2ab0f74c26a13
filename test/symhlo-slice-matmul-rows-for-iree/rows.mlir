// RUN: symhlo-opt --symhlo-slice-matmul-rows-for-iree --split-input-file %s | FileCheck %s

// An LM head read only at the last position (`logits[:, -1]`, seq `?`): the lhs is reshaped to
// the product's leading axes, sliced there, and only those rows are multiplied (as a 2-D
// matmul between reshapes); the size reads of the reshaped product read the reshaped lhs.
// CHECK-LABEL: func @last_position_dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8xf32>, %[[W:.*]]: tensor<8x32xf32>, %[[SHAPE:.*]]: tensor<3xi64>)
// CHECK:         %[[HEAD:.*]] = stablehlo.slice %[[SHAPE]] [0:2]
// CHECK:         %[[K:.*]] = stablehlo.constant dense<8> : tensor<1xi64>
// CHECK:         %[[HS:.*]] = stablehlo.concatenate %[[HEAD]], %[[K]], dim = 0
// CHECK:         %[[H:.*]] = stablehlo.dynamic_reshape %[[X]], %[[HS]] : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x?x8xf32>
// CHECK:         %[[COLS:.*]] = stablehlo.constant dense<32> : tensor<i32>
// CHECK:         stablehlo.get_dimension_size %[[H]], dim = 1
// CHECK:         stablehlo.get_dimension_size %[[H]], dim = 0
// CHECK:         %[[START:.*]] = stablehlo.concatenate
// CHECK:         %[[LIMIT:.*]] = stablehlo.concatenate
// CHECK:         %[[LEAD:.*]] = stablehlo.slice %[[LIMIT]] [0:2]
// CHECK:         %[[K2:.*]] = stablehlo.constant dense<8> : tensor<1xi64>
// CHECK:         %[[LIMIT2:.*]] = stablehlo.concatenate %[[LEAD]], %[[K2]], dim = 0
// CHECK:         %[[P:.*]] = stablehlo.real_dynamic_slice %[[H]], %[[START]], %[[LIMIT2]], %{{.*}} : (tensor<?x?x8xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x1x8xf32>
// CHECK:         %[[ROWS:.*]] = stablehlo.dynamic_reshape %[[P]], %{{.*}} : (tensor<?x1x8xf32>, tensor<2xi64>) -> tensor<?x8xf32>
// CHECK:         %[[D:.*]] = stablehlo.dot_general %[[ROWS]], %[[W]], contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
// CHECK:         %[[Y:.*]] = stablehlo.dynamic_reshape %[[D]], %{{.*}} : (tensor<?x32xf32>, tensor<3xi64>) -> tensor<?x1x32xf32>
// CHECK:         return %[[Y]], %[[COLS]]
func.func @last_position_dynamic(%x: tensor<?x8xf32>, %w: tensor<8x32xf32>, %shape: tensor<3xi64>) -> (tensor<?x1x32xf32>, tensor<i32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
  %r = stablehlo.dynamic_reshape %d, %shape : (tensor<?x32xf32>, tensor<3xi64>) -> tensor<?x?x32xf32>
  %cols = stablehlo.get_dimension_size %r, dim = 2 : (tensor<?x?x32xf32>) -> tensor<i32>
  %s = stablehlo.get_dimension_size %r, dim = 1 : (tensor<?x?x32xf32>) -> tensor<i32>
  %b = stablehlo.get_dimension_size %r, dim = 0 : (tensor<?x?x32xf32>) -> tensor<i32>
  %s64 = stablehlo.convert %s : (tensor<i32>) -> tensor<i64>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %zero1 = stablehlo.constant dense<0> : tensor<1xi64>
  %n1 = stablehlo.constant dense<32> : tensor<1xi64>
  %ones = stablehlo.constant dense<1> : tensor<3xi64>
  %last = stablehlo.subtract %s64, %one : tensor<i64>
  %last1 = stablehlo.reshape %last : (tensor<i64>) -> tensor<1xi64>
  %s1 = stablehlo.reshape %s64 : (tensor<i64>) -> tensor<1xi64>
  %b1 = stablehlo.reshape %b64 : (tensor<i64>) -> tensor<1xi64>
  %start = stablehlo.concatenate %zero1, %last1, %zero1, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %limit = stablehlo.concatenate %b1, %s1, %n1, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %l = stablehlo.real_dynamic_slice %r, %start, %limit, %ones : (tensor<?x?x32xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x1x32xf32>
  return %l, %cols : tensor<?x1x32xf32>, tensor<i32>
}

// -----

// The same in a static module (stablehlo.reshape + stablehlo.slice) and with a dynamic_slice.
// CHECK-LABEL: func @last_position_static
// CHECK:         %[[H:.*]] = stablehlo.reshape %arg0 : (tensor<12x8xf32>) -> tensor<3x4x8xf32>
// CHECK:         %[[P:.*]] = stablehlo.slice %[[H]] [0:3, 3:4, 0:8]
// CHECK:         %[[ROWS:.*]] = stablehlo.reshape %[[P]] : (tensor<3x1x8xf32>) -> tensor<3x8xf32>
// CHECK:         %[[D:.*]] = stablehlo.dot_general %[[ROWS]], %arg1, contracting_dims = [1] x [0] : (tensor<3x8xf32>, tensor<8x32xf32>) -> tensor<3x32xf32>
// CHECK:         stablehlo.reshape %[[D]] : (tensor<3x32xf32>) -> tensor<3x1x32xf32>
// CHECK-LABEL: func @row_at_index
// CHECK:         %[[P:.*]] = stablehlo.dynamic_slice %arg0, %arg2, %{{.*}}, sizes = [1, 8]
// CHECK:         stablehlo.dot_general %[[P]], %arg1, contracting_dims = [1] x [0] : (tensor<1x8xf32>, tensor<8x32xf32>) -> tensor<1x32xf32>
func.func @last_position_static(%x: tensor<12x8xf32>, %w: tensor<8x32xf32>) -> tensor<3x1x32xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<12x8xf32>, tensor<8x32xf32>) -> tensor<12x32xf32>
  %r = stablehlo.reshape %d : (tensor<12x32xf32>) -> tensor<3x4x32xf32>
  %l = stablehlo.slice %r [0:3, 3:4, 0:32] : (tensor<3x4x32xf32>) -> tensor<3x1x32xf32>
  return %l : tensor<3x1x32xf32>
}
func.func @row_at_index(%x: tensor<?x8xf32>, %w: tensor<8x32xf32>, %i: tensor<i64>) -> tensor<1x32xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %l = stablehlo.dynamic_slice %d, %i, %z, sizes = [1, 32] : (tensor<?x32xf32>, tensor<i64>, tensor<i64>) -> tensor<1x32xf32>
  return %l : tensor<1x32xf32>
}

// -----

// Left alone: a column slice (not every column), a product read twice, a bias between.
// CHECK-LABEL: func @not_matched
// CHECK-COUNT-3: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
func.func @not_matched(%x: tensor<?x8xf32>, %w: tensor<8x32xf32>, %bias: tensor<?x32xf32>) -> (tensor<2x16xf32>, tensor<2x32xf32>, tensor<?x32xf32>, tensor<2x32xf32>) {
  %zeros = stablehlo.constant dense<0> : tensor<2xi64>
  %ones = stablehlo.constant dense<1> : tensor<2xi64>
  %lim = stablehlo.constant dense<[2, 16]> : tensor<2xi64>
  %lim2 = stablehlo.constant dense<[2, 32]> : tensor<2xi64>
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
  %c = stablehlo.real_dynamic_slice %d, %zeros, %lim, %ones : (tensor<?x32xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x16xf32>
  %d2 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
  %t = stablehlo.real_dynamic_slice %d2, %zeros, %lim2, %ones : (tensor<?x32xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x32xf32>
  %d3 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
  %a = stablehlo.add %d3, %bias : tensor<?x32xf32>
  %u = stablehlo.real_dynamic_slice %a, %zeros, %lim2, %ones : (tensor<?x32xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x32xf32>
  return %c, %t, %d2, %u : tensor<2x16xf32>, tensor<2x32xf32>, tensor<?x32xf32>, tensor<2x32xf32>
}

// -----

// A slice that keeps every row (a decode step's single position, `logits[:, -1]` of one):
// nothing to save, left as it is.
// CHECK-LABEL: func @every_row_kept
// CHECK:         stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
// CHECK:         stablehlo.real_dynamic_slice {{.*}} -> tensor<?x1x32xf32>
func.func @every_row_kept(%x: tensor<?x8xf32>, %w: tensor<8x32xf32>, %shape: tensor<3xi64>) -> tensor<?x1x32xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
  %r = stablehlo.dynamic_reshape %d, %shape : (tensor<?x32xf32>, tensor<3xi64>) -> tensor<?x1x32xf32>
  %b = stablehlo.get_dimension_size %r, dim = 0 : (tensor<?x1x32xf32>) -> tensor<i32>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %b1 = stablehlo.reshape %b64 : (tensor<i64>) -> tensor<1xi64>
  %tail = stablehlo.constant dense<[1, 32]> : tensor<2xi64>
  %limit = stablehlo.concatenate %b1, %tail, dim = 0 : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  %zeros = stablehlo.constant dense<0> : tensor<3xi64>
  %ones = stablehlo.constant dense<1> : tensor<3xi64>
  %l = stablehlo.real_dynamic_slice %r, %zeros, %limit, %ones : (tensor<?x1x32xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x1x32xf32>
  return %l : tensor<?x1x32xf32>
}
