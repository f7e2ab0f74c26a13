// RUN: symhlo-opt --symhlo-narrow-matmuls-as-reductions-for-iree --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --symhlo-narrow-matmuls-as-reductions-for-iree="max-weights=100" --split-input-file %s | FileCheck %s --check-prefix=LIMIT

// A classifier head over `?` rows, 16 x 10 weights (<= 256): the product broadcast over the rows
// and reduced over the 16 contracted features; no dot_general is left.
// CHECK-LABEL: func @head
// CHECK:         %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x16xf32>
// CHECK:         %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %[[N64]], %{{.*}}, %{{.*}} : tensor<3xi64>
// CHECK:         %[[X:.*]] = stablehlo.dynamic_broadcast_in_dim %arg0, %[[SHAPE]], dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x16xf32>, tensor<3xi64>) -> tensor<?x16x10xf32>
// CHECK:         %[[W:.*]] = stablehlo.dynamic_broadcast_in_dim %arg1, %[[SHAPE]], dims = [1, 2] {{.*}} : (tensor<16x10xf32>, tensor<3xi64>) -> tensor<?x16x10xf32>
// CHECK:         %[[P:.*]] = stablehlo.multiply %[[X]], %[[W]] : tensor<?x16x10xf32>
// CHECK:         %[[Y:.*]] = stablehlo.reduce(%[[P]] init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<?x16x10xf32>, tensor<f32>) -> tensor<?x10xf32>
// CHECK-NOT:     stablehlo.dot_general
// CHECK:         return %[[Y]]
// LIMIT-LABEL: func @head
// LIMIT:         stablehlo.dot_general
func.func @head(%arg0: tensor<?x16xf32>, %arg1: tensor<16x10xf32>) -> tensor<?x10xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// Left to IREE's data tiling: more weights than max-weights (16 x 17), static rows, and an
// integer matmul.
// CHECK-LABEL: func @left
// CHECK-COUNT-3: stablehlo.dot_general
func.func @left(%arg0: tensor<?x16xf32>, %arg1: tensor<16x17xf32>, %arg2: tensor<4x16xf32>, %arg3: tensor<16x10xf32>,
                %arg4: tensor<?x16xi32>, %arg5: tensor<16x10xi32>) -> (tensor<?x17xf32>, tensor<4x10xf32>, tensor<?x10xi32>) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x17xf32>) -> tensor<?x17xf32>
  %1 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x10xf32>) -> tensor<4x10xf32>
  %2 = stablehlo.dot_general %arg4, %arg5, contracting_dims = [1] x [0] : (tensor<?x16xi32>, tensor<16x10xi32>) -> tensor<?x10xi32>
  return %0, %1, %2 : tensor<?x17xf32>, tensor<4x10xf32>, tensor<?x10xi32>
}
