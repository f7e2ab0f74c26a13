// RUN: symhlo-opt --symhlo-fold-size-ranges --canonicalize --split-input-file %s | FileCheck %s

// torch-mlir's start of `x[:, 1:2]` on an axis n in [2, 64] (the contract's range): the clamp
// chain min(n, max(-n, 1)) and the sign select fold to the constant 1.
// CHECK-LABEL: func @main
// CHECK-DAG:     %[[C1:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK-NOT:     stablehlo.select
// CHECK:         %[[V:.*]] = stablehlo.reshape %[[C1]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         return %[[V]]
func.func @main(%arg0: tensor<3x?xf32>) -> tensor<1xi64> attributes {
    symhlo.arg_shapes = [["3", "n"]], symhlo.symbols = {n = [2, 64]}} {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<3x?xf32>) -> tensor<i32>
  %n = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %neg = stablehlo.subtract %c0, %n : tensor<i64>
  %1 = stablehlo.maximum %neg, %c1 : tensor<i64>
  %2 = stablehlo.minimum %n, %1 : tensor<i64>
  %3 = stablehlo.add %n, %2 : tensor<i64>
  %4 = stablehlo.compare GE, %2, %c0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %5 = stablehlo.select %4, %2, %3 : tensor<i1>, tensor<i64>
  %6 = stablehlo.reshape %5 : (tensor<i64>) -> tensor<1xi64>
  return %6 : tensor<1xi64>
}

// -----

// The same chain with a size that may be 0 (`n = [0, ...]`): max(-n, 1) is still 1 and the
// start is >= 0, but min(n, 1) stays (it is 0 at n = 0).
// CHECK-LABEL: func @main
// CHECK-DAG:     %[[C1:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK:         %[[M:.*]] = stablehlo.minimum %{{.*}}, %[[C1]] : tensor<i64>
// CHECK-NOT:     stablehlo.select
// CHECK:         stablehlo.reshape %[[M]]
func.func @main(%arg0: tensor<3x?xf32>) -> tensor<1xi64> attributes {
    symhlo.arg_shapes = [["3", "n"]], symhlo.symbols = {n = [0, 9223372036854775807]}} {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<3x?xf32>) -> tensor<i32>
  %n = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %neg = stablehlo.subtract %c0, %n : tensor<i64>
  %1 = stablehlo.maximum %neg, %c1 : tensor<i64>
  %2 = stablehlo.minimum %n, %1 : tensor<i64>
  %3 = stablehlo.add %n, %2 : tensor<i64>
  %4 = stablehlo.compare GE, %2, %c0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %5 = stablehlo.select %4, %2, %3 : tensor<i1>, tensor<i64>
  %6 = stablehlo.reshape %5 : (tensor<i64>) -> tensor<1xi64>
  return %6 : tensor<1xi64>
}

// -----

// Without symhlo's contract (another exporter's StableHLO) a size is only known to be >= 0:
// max(n, 0) is n, compare(n, -1) is true; min(n, 5) stays.
// CHECK-LABEL: func @foreign
// CHECK-NOT:     stablehlo.maximum
// CHECK:         %[[M:.*]] = stablehlo.minimum
// CHECK:         return %[[M]]
func.func @foreign(%arg0: tensor<?xf32>) -> tensor<i64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c5 = stablehlo.constant dense<5> : tensor<i64>
  %cm1 = stablehlo.constant dense<-1> : tensor<i64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %n = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %1 = stablehlo.maximum %n, %c0 : tensor<i64>
  %p = stablehlo.compare GT, %1, %cm1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %2 = stablehlo.select %p, %1, %c0 : tensor<i1>, tensor<i64>
  %3 = stablehlo.minimum %2, %c5 : tensor<i64>
  return %3 : tensor<i64>
}
