// RUN: symhlo-opt --symhlo-fold-size-ranges --split-input-file %s | FileCheck %s

// torch-mlir's slice-bound normalization of `buf[:, :n]` (a 64-wide buffer, n in [2, 60]):
// every step is decided by n's range, so the bound is n itself.
// CHECK-LABEL: func @slice_bound_of_a_wider_buffer
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 1
// CHECK:         %[[N:.*]] = stablehlo.convert %[[D]]
// CHECK-NOT:     stablehlo.maximum
// CHECK-NOT:     stablehlo.minimum
// CHECK-NOT:     stablehlo.compare
// CHECK-NOT:     stablehlo.select
// CHECK:         return %[[N]]
func.func @slice_bound_of_a_wider_buffer(%arg0: tensor<?x?xi64>) -> tensor<i64> attributes {symhlo.arg_shapes = [["b", "n"]], symhlo.symbols = {b = [1, 16], n = [2, 60]}} {
  %c_m64 = stablehlo.constant dense<-64> : tensor<i64>
  %c_64 = stablehlo.constant dense<64> : tensor<i64>
  %c_0 = stablehlo.constant dense<0> : tensor<i64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?xi64>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.maximum %1, %c_m64 : tensor<i64>
  %3 = stablehlo.minimum %2, %c_64 : tensor<i64>
  %4 = stablehlo.add %3, %c_64 : tensor<i64>
  %5 = stablehlo.compare GE, %3, %c_0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %6 = stablehlo.select %5, %3, %4 : tensor<i1>, tensor<i64>
  return %6 : tensor<i64>
}

// -----

// Unbounded n: min(n, 64) is undecided and stays; max(n, -64) still folds (sizes are >= 0).
// CHECK-LABEL: func @unbounded_keeps_the_minimum
// CHECK-NOT:     stablehlo.maximum
// CHECK:         %[[M:.*]] = stablehlo.minimum
// CHECK:         return %[[M]]
func.func @unbounded_keeps_the_minimum(%arg0: tensor<?xf32>) -> tensor<i64> attributes {symhlo.arg_shapes = [["n"]], symhlo.symbols = {n = [2, 9223372036854775807]}} {
  %c_m64 = stablehlo.constant dense<-64> : tensor<i64>
  %c_64 = stablehlo.constant dense<64> : tensor<i64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.maximum %1, %c_m64 : tensor<i64>
  %3 = stablehlo.minimum %2, %c_64 : tensor<i64>
  return %3 : tensor<i64>
}

// -----

// A derived size 2*h with h in [1, 8] is in [2, 16]: (2*h) % 32 is 2*h; 2*h == 40 is false.
// Without a contract (foreign), a size is only known to be in [0, 2**31 - 1]: 2*h < 40 stays.
// CHECK-LABEL: func @derived_size
// CHECK-NOT:     stablehlo.remainder
// CHECK:         %[[F:.*]] = stablehlo.constant dense<false> : tensor<i1>
// CHECK:         return %{{.*}}, %[[F]]
func.func @derived_size(%arg0: tensor<?xf32>) -> (tensor<i64>, tensor<i1>) attributes {symhlo.arg_shapes = [["2*h"]], symhlo.symbols = {h = [1, 8]}} {
  %c_32 = stablehlo.constant dense<32> : tensor<i64>
  %c_40 = stablehlo.constant dense<40> : tensor<i64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.remainder %1, %c_32 : tensor<i64>
  %3 = stablehlo.compare EQ, %1, %c_40 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  return %2, %3 : tensor<i64>, tensor<i1>
}

// -----

// CHECK-LABEL: func @foreign_undecided
// CHECK:         stablehlo.compare LT
func.func @foreign_undecided(%arg0: tensor<?xf32>) -> tensor<i1> {
  %c_40 = stablehlo.constant dense<40> : tensor<i64>
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
  %2 = stablehlo.compare LT, %1, %c_40 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  return %2 : tensor<i1>
}
