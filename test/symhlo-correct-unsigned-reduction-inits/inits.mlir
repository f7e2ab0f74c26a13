// RUN: symhlo-opt --symhlo-correct-unsigned-reduction-inits %s | FileCheck %s

// torch-mlir's uint8 amax / amin start from int8's extremes (128 / 127): as ui8 those are values.
// CHECK-LABEL: func @u8_max_min
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<0> : tensor<ui8>
// CHECK:         stablehlo.reduce(%arg0 init: %[[Z]]) applies stablehlo.maximum
// CHECK:         %[[F:.*]] = stablehlo.constant dense<255> : tensor<ui8>
// CHECK:         stablehlo.reduce(%arg0 init: %[[F]]) applies stablehlo.minimum
// signed reductions and other inits are left alone
// CHECK:         %[[S:.*]] = stablehlo.constant dense<-128> : tensor<i8>
// CHECK:         stablehlo.reduce(%arg1 init: %[[S]]) applies stablehlo.maximum
func.func @u8_max_min(%arg0: tensor<?x5xui8>, %arg1: tensor<?x5xi8>) -> (tensor<5xui8>, tensor<5xui8>, tensor<5xi8>) {
  %c = stablehlo.constant dense<128> : tensor<ui8>
  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.maximum across dimensions = [0] : (tensor<?x5xui8>, tensor<ui8>) -> tensor<5xui8>
  %c1 = stablehlo.constant dense<127> : tensor<ui8>
  %1 = stablehlo.reduce(%arg0 init: %c1) applies stablehlo.minimum across dimensions = [0] : (tensor<?x5xui8>, tensor<ui8>) -> tensor<5xui8>
  %c2 = stablehlo.constant dense<-128> : tensor<i8>
  %2 = stablehlo.reduce(%arg1 init: %c2) applies stablehlo.maximum across dimensions = [0] : (tensor<?x5xi8>, tensor<i8>) -> tensor<5xi8>
  return %0, %1, %2 : tensor<5xui8>, tensor<5xui8>, tensor<5xi8>
}
