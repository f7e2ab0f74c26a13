// RUN: symhlo-opt --symhlo-fold-float-size-arithmetic --split-input-file %s | FileCheck %s

// arange's length ceil((end - start) / step), computed by torch-mlir in f64, becomes integer
// arithmetic on the size itself.

// CHECK-LABEL: func @arange_length_step_one
// CHECK:         %[[N:.*]] = stablehlo.subtract
// CHECK:         %[[S:.*]] = stablehlo.reshape %[[N]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         stablehlo.dynamic_iota %[[S]], dim = 0
func.func @arange_length_step_one(%arg0: tensor<?x3xf32>) -> tensor<?xi64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.subtract %1, %c0 : tensor<i64>
  %3 = stablehlo.convert %c1 : (tensor<i64>) -> tensor<f64>
  %4 = stablehlo.convert %2 : (tensor<i64>) -> tensor<f64>
  %5 = stablehlo.divide %4, %3 : tensor<f64>
  %6 = stablehlo.ceil %5 : tensor<f64>
  %7 = stablehlo.convert %6 : (tensor<f64>) -> tensor<i64>
  %8 = stablehlo.reshape %7 : (tensor<i64>) -> tensor<1xi64>
  %9 = stablehlo.dynamic_iota %8, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
  return %9 : tensor<?xi64>
}

// -----

// Step 3 (a float constant): ceil(x / 3) = x / 3 + (x % 3 > 0 ? 1 : 0).
// CHECK-LABEL: func @arange_length_step_three
// CHECK:         %[[X:.*]] = stablehlo.convert %{{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[K:.*]] = stablehlo.constant dense<3> : tensor<i64>
// CHECK:         %[[Q:.*]] = stablehlo.divide %[[X]], %[[K]] : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.remainder %[[X]], %[[K]] : tensor<i64>
// CHECK:         %[[GT:.*]] = stablehlo.compare GT, %[[R]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:         %[[ONE:.*]] = stablehlo.select %[[GT]], %{{.*}}, %{{.*}} : tensor<i1>, tensor<i64>
// CHECK:         %[[N:.*]] = stablehlo.add %[[Q]], %[[ONE]] : tensor<i64>
// CHECK:         return %[[N]]
func.func @arange_length_step_three(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %k = stablehlo.constant dense<3.000000e+00> : tensor<f64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.convert %1 : (tensor<i64>) -> tensor<f64>
  %3 = stablehlo.divide %2, %k : tensor<f64>
  %4 = stablehlo.ceil %3 : tensor<f64>
  %5 = stablehlo.convert %4 : (tensor<f64>) -> tensor<i64>
  return %5 : tensor<i64>
}

// -----

// A fractional step is not an integer ceil-division: unchanged.
// CHECK-LABEL: func @fractional_step_unchanged
// CHECK:         stablehlo.ceil
// CHECK:         %[[R:.*]] = stablehlo.convert %{{.*}} : (tensor<f64>) -> tensor<i64>
// CHECK:         return %[[R]]
func.func @fractional_step_unchanged(%arg0: tensor<i64>) -> tensor<i64> {
  %k = stablehlo.constant dense<5.000000e-01> : tensor<f64>
  %2 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<f64>
  %3 = stablehlo.divide %2, %k : tensor<f64>
  %4 = stablehlo.ceil %3 : tensor<f64>
  %5 = stablehlo.convert %4 : (tensor<f64>) -> tensor<i64>
  return %5 : tensor<i64>
}

// -----

// A negative step (`arange(s - 1, -1, -1)`): ceil(x / -2) = ceil(-x / 2), integer throughout.
// CHECK-LABEL: func @arange_length_negative_step
// CHECK:         %[[X:.*]] = stablehlo.convert %{{.*}} : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[NX:.*]] = stablehlo.negate %[[X]] : tensor<i64>
// CHECK:         %[[K:.*]] = stablehlo.constant dense<2> : tensor<i64>
// CHECK:         %[[Q:.*]] = stablehlo.divide %[[NX]], %[[K]] : tensor<i64>
// CHECK-NOT:     f64
// CHECK:         return
func.func @arange_length_negative_step(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %k = stablehlo.constant dense<-2> : tensor<i64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.convert %k : (tensor<i64>) -> tensor<f64>
  %3 = stablehlo.convert %1 : (tensor<i64>) -> tensor<f64>
  %4 = stablehlo.divide %3, %2 : tensor<f64>
  %5 = stablehlo.ceil %4 : tensor<f64>
  %6 = stablehlo.convert %5 : (tensor<f64>) -> tensor<i64>
  return %6 : tensor<i64>
}
