// RUN: symhlo-opt --symhlo-narrow-f64-constants-for-iree --split-input-file --verify-diagnostics %s | FileCheck %s

// torch-mlir's form of a Python float scalar used on an f32 tensor of dynamic size.
// CHECK-LABEL: func @scalar_chain_becomes_an_f32_constant
// CHECK-NOT:     f64
// CHECK:         %[[C:.*]] = stablehlo.constant dense<8.{{6999|7000}}{{[0-9]*}}> : tensor<f32>
// CHECK-NOT:     f64
// CHECK:         stablehlo.dynamic_broadcast_in_dim %[[C]], %arg1, dims = []
func.func @scalar_chain_becomes_an_f32_constant(%arg0: tensor<?xf32>, %arg1: tensor<1xi64>) -> tensor<?xf32> {
  %c = stablehlo.constant dense<8.6999999999999993> : tensor<1xf64>
  %0 = stablehlo.convert %c : tensor<1xf64>
  %1 = stablehlo.reshape %0 : (tensor<1xf64>) -> tensor<f64>
  %2 = stablehlo.convert %1 : (tensor<f64>) -> tensor<f32>
  %3 = stablehlo.dynamic_broadcast_in_dim %2, %arg1, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %4 = stablehlo.multiply %arg0, %3 : tensor<?xf32>
  return %4 : tensor<?xf32>
}

// -----

// A non-splat constant keeps its values, reshaped; f16 too.
// CHECK-LABEL: func @dense_constant_to_f16
// CHECK-NOT:     f64
// CHECK:         %[[C:.*]] = stablehlo.constant dense<{{\[}}[1.000000e+00, 2.500000e+00]]> : tensor<1x2xf16>
// CHECK:         return %[[C]]
func.func @dense_constant_to_f16() -> tensor<1x2xf16> {
  %c = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf64>
  %0 = stablehlo.reshape %c : (tensor<2xf64>) -> tensor<1x2xf64>
  %1 = stablehlo.convert %0 : (tensor<1x2xf64>) -> tensor<1x2xf16>
  return %1 : tensor<1x2xf16>
}

// -----

// f64 computed from an argument is float64 work the user asked for: it stays.
// CHECK-LABEL: func @f64_from_an_argument_stays
// CHECK:         stablehlo.add %arg0, %{{.*}} : tensor<2xf64>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2xf64>) -> tensor<2xf32>
func.func @f64_from_an_argument_stays(%arg0: tensor<2xf64>) -> tensor<2xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf64>
  %0 = stablehlo.add %arg0, %c : tensor<2xf64>
  %1 = stablehlo.convert %0 : (tensor<2xf64>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
