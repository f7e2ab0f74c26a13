// Elementwise operands must have equal shapes (StableHLO); IREE trusts it. The rows of x and y
// are two different inputs' sizes, so the call is checked: unequal rows raise ShapeError.
func.func @main(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = stablehlo.add %x, %y : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
