// RUN: symhlo-opt --symhlo-prepare-for-iree %s | FileCheck %s

// The index tensors of x[:, :, ih[:, None], iw[None, :]] with b, H, W all `?` (from the e2e
// gather tests, which match eager at b = 1 and at oh, ow = 2): a `?` index axis is the result
// axis of the same computed size (oh = h // 2 on axis 2, ow on axis 3), the static 1s expand.
// CHECK-LABEL: func @gather_index_broadcasts
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg0, %arg3, dims = [0, 1, 2, 3]
// CHECK-SAME:      known_expanding_dimensions = array<i64: 1, 2, 3>
// CHECK-SAME:      known_nonexpanding_dimensions = array<i64: 0>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg1, %arg3, dims = [2, 3]
// CHECK-SAME:      known_expanding_dimensions = array<i64: 1>
// CHECK-SAME:      known_nonexpanding_dimensions = array<i64: 0>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg2, %arg3, dims = [2, 3]
// CHECK-SAME:      known_expanding_dimensions = array<i64: 0>
// CHECK-SAME:      known_nonexpanding_dimensions = array<i64: 1>
func.func @gather_index_broadcasts(%b: tensor<?x1x1x1xi64>, %ih: tensor<?x1xi64>, %iw: tensor<1x?xi64>,
                                   %s: tensor<4xi64>) -> (tensor<?x3x?x?xi64>, tensor<?x3x?x?xi64>, tensor<?x3x?x?xi64>)
    attributes {symhlo.symbols = {}} {
  %0 = stablehlo.dynamic_broadcast_in_dim %b, %s, dims = [0, 1, 2, 3] : (tensor<?x1x1x1xi64>, tensor<4xi64>) -> tensor<?x3x?x?xi64>
  %1 = stablehlo.dynamic_broadcast_in_dim %ih, %s, dims = [2, 3] : (tensor<?x1xi64>, tensor<4xi64>) -> tensor<?x3x?x?xi64>
  %2 = stablehlo.dynamic_broadcast_in_dim %iw, %s, dims = [2, 3] : (tensor<1x?xi64>, tensor<4xi64>) -> tensor<?x3x?x?xi64>
  return %0, %1, %2 : tensor<?x3x?x?xi64>, tensor<?x3x?x?xi64>, tensor<?x3x?x?xi64>
}
