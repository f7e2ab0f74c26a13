// RUN: symhlo-opt --symhlo-prepare-for-iree --split-input-file %s | FileCheck %s

// A dynamic_reshape to rank 1 is always the full collapse: tensor.collapse_shape, no extents
// (a one-element index shape tensor would cross an IREE dispatch boundary).
// CHECK-LABEL: func @flatten_to_rank1
// CHECK:         %[[R:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : tensor<?x?x8xf32> into tensor<?xf32>
// CHECK-NOT:     stablehlo.dynamic_reshape
// CHECK:         return %[[R]]
func.func @flatten_to_rank1(%arg0: tensor<?x?x8xf32>, %arg1: tensor<1xi64>) -> tensor<?xf32> {
  %0 = stablehlo.dynamic_reshape %arg0, %arg1 : (tensor<?x?x8xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
