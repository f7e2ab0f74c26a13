// RUN: symhlo-opt --symhlo-narrow-matmuls-as-reductions-for-iree --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --symhlo-narrow-matmuls-as-reductions-for-iree="max-weights=100" --split-input-file %s | FileCheck %s --check-prefix=LIMIT

// A classifier head over `?` pooled rows (a mean over the last axis), 16 x 10 weights (<= 256):
// the product broadcast over the rows and reduced over the 16 contracted features; no
// dot_general is left.
// CHECK-LABEL: func @head
// CHECK:         %[[POOL:.*]] = stablehlo.divide
// CHECK:         %[[N:.*]] = tensor.dim %[[POOL]], %{{.*}} : tensor<?x16xf32>
// CHECK:         %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %[[N64]], %{{.*}}, %{{.*}} : tensor<3xi64>
// CHECK:         %[[X:.*]] = stablehlo.dynamic_broadcast_in_dim %[[POOL]], %[[SHAPE]], dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x16xf32>, tensor<3xi64>) -> tensor<?x16x10xf32>
// CHECK:         %[[W:.*]] = stablehlo.dynamic_broadcast_in_dim %arg1, %[[SHAPE]], dims = [1, 2] {{.*}} : (tensor<16x10xf32>, tensor<3xi64>) -> tensor<?x16x10xf32>
// CHECK:         %[[P:.*]] = stablehlo.multiply %[[X]], %[[W]] : tensor<?x16x10xf32>
// CHECK:         %[[Y:.*]] = stablehlo.reduce(%[[P]] init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<?x16x10xf32>, tensor<f32>) -> tensor<?x10xf32>
// CHECK-NOT:     stablehlo.dot_general
// CHECK:         return %[[Y]]
// LIMIT-LABEL: func @head
// LIMIT:         stablehlo.dot_general
func.func @head(%arg0: tensor<?x16x49xf32>, %arg1: tensor<16x10xf32>) -> tensor<?x10xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<?x16x49xf32>, tensor<f32>) -> tensor<?x16xf32>
  %c = stablehlo.constant dense<49.0> : tensor<f32>
  %n = stablehlo.get_dimension_size %sum, dim = 0 : (tensor<?x16xf32>) -> tensor<i32>
  %shape = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c16 = stablehlo.constant dense<16> : tensor<1xi32>
  %s = stablehlo.concatenate %shape, %c16, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %cb = stablehlo.dynamic_broadcast_in_dim %c, %s, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x16xf32>
  %pool = stablehlo.divide %sum, %cb : tensor<?x16xf32>
  %0 = stablehlo.dot_general %pool, %arg1, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// Left to IREE's data tiling: a lhs not computed by a reduction (an input, a norm's output: the
// pack fuses an elementwise producer), more weights than max-weights (16 x 17), static rows, an
// integer matmul, and f16 (the reduce would accumulate in f16).
// CHECK-LABEL: func @left
// CHECK-COUNT-5: stablehlo.dot_general
func.func @left(%arg0: tensor<?x16xf32>, %arg1: tensor<16x17xf32>, %arg2: tensor<4x16xf32>, %arg3: tensor<16x10xf32>,
                %arg4: tensor<?x16xi32>, %arg5: tensor<16x10xi32>, %arg6: tensor<?x16x4xf16>, %arg7: tensor<16x10xf16>)
    -> (tensor<?x10xf32>, tensor<?x17xf32>, tensor<4x10xf32>, tensor<?x10xi32>, tensor<?x10xf16>) {
  %t = stablehlo.tanh %arg0 : tensor<?x16xf32>
  %0 = stablehlo.dot_general %t, %arg3, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x10xf32>) -> tensor<?x10xf32>
  %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x17xf32>) -> tensor<?x17xf32>
  %2 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x10xf32>) -> tensor<4x10xf32>
  %3 = stablehlo.dot_general %arg4, %arg5, contracting_dims = [1] x [0] : (tensor<?x16xi32>, tensor<16x10xi32>) -> tensor<?x10xi32>
  %zh = stablehlo.constant dense<0.0> : tensor<f16>
  %sh = stablehlo.reduce(%arg6 init: %zh) applies stablehlo.add across dimensions = [2] : (tensor<?x16x4xf16>, tensor<f16>) -> tensor<?x16xf16>
  %4 = stablehlo.dot_general %sh, %arg7, contracting_dims = [1] x [0] : (tensor<?x16xf16>, tensor<16x10xf16>) -> tensor<?x10xf16>
  return %0, %1, %2, %3, %4 : tensor<?x10xf32>, tensor<?x17xf32>, tensor<4x10xf32>, tensor<?x10xi32>, tensor<?x10xf16>
}
