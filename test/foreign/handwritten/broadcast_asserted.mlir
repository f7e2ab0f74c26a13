// The same broadcast, with a jax-style shape assertion that the row counts agree: checked at call
// time (ShapeError with this message), so the broadcast is provably the identity and compiles.
func.func @main(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %a = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %b = stablehlo.get_dimension_size %y, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %ok = stablehlo.compare EQ, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %a, %b) {api_version = 2 : i32, error_message = "rows differ: x has {0}, y has {1}", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
  %b1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %s = stablehlo.concatenate %b1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %xb = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %r = stablehlo.add %xb, %y : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
