// Hand-written StableHLO: x's `?` rows broadcast to y's row count. StableHLO lets a `?` axis of
// size 1 expand here (x: 1x4, y: 5x4 is a valid call), and nothing proves the sizes equal, so
// IREE's non-expanding hint would be a guess: symhlo must refuse (or compute it right).
func.func @main(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %b = stablehlo.get_dimension_size %y, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %b1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %s = stablehlo.concatenate %b1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %xb = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %r = stablehlo.add %xb, %y : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
