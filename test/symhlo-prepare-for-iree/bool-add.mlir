// RUN: symhlo-opt --symhlo-prepare-for-iree %s | FileCheck %s

// StableHLO's add of booleans is a logical or (torch's bool + bool); IREE 3.13 lowers it to a
// wrapping i1 add (True + True = False), so it becomes stablehlo.or. Other adds stay adds.
// CHECK-LABEL: func @bool_add
// CHECK:         %[[O:.*]] = stablehlo.or %arg0, %arg1 : tensor<?x5xi1>
// CHECK:         %[[R:.*]] = stablehlo.reduce(%[[O]] init: %{{.*}}) applies stablehlo.or across dimensions = [0]
// CHECK:         %[[F:.*]] = stablehlo.add %arg2, %arg2 : tensor<?x5xf32>
// CHECK-NOT:     stablehlo.add {{.*}}i1>
// CHECK:         return %[[O]], %[[R]], %[[F]]
func.func @bool_add(%arg0: tensor<?x5xi1>, %arg1: tensor<?x5xi1>, %arg2: tensor<?x5xf32>) -> (tensor<?x5xi1>, tensor<5xi1>, tensor<?x5xf32>) {
  %0 = stablehlo.add %arg0, %arg1 : tensor<?x5xi1>
  %c = stablehlo.constant dense<false> : tensor<i1>
  %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<?x5xi1>, tensor<i1>) -> tensor<5xi1>
  %2 = stablehlo.add %arg2, %arg2 : tensor<?x5xf32>
  return %0, %1, %2 : tensor<?x5xi1>, tensor<5xi1>, tensor<?x5xf32>
}
