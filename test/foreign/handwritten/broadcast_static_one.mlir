// A static 1 expanding to y's `?` rows: always correct to expand (known_expanding_dimensions).
func.func @main(%x: tensor<1x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %b = stablehlo.get_dimension_size %y, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %b1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %s = stablehlo.concatenate %b1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %xb = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<1x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %r = stablehlo.multiply %xb, %y : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
