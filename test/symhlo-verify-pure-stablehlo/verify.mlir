// RUN: symhlo-opt --symhlo-verify-pure-stablehlo --split-input-file --verify-diagnostics %s | FileCheck %s

// CHECK-LABEL: func @pure_module_passes_unchanged
// CHECK:         stablehlo.get_dimension_size %arg0, dim = 0
// CHECK:         stablehlo.dynamic_broadcast_in_dim
func.func @pure_module_passes_unchanged(%arg0: tensor<?x3xf32>, %arg1: tensor<1x3xf32>) -> tensor<?x3xf32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %1 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<3> : tensor<1xi32>
  %2 = stablehlo.concatenate %1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %3 = stablehlo.dynamic_broadcast_in_dim %arg1, %2, dims = [0, 1] : (tensor<1x3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  return %3 : tensor<?x3xf32>
}

// -----

// Every impure op is named, at its own location.
func.func @verify_failure_names_every_impure_op(%arg0: tensor<?x3xf32>) -> index {
  // expected-error@+1 {{'arith.constant' is not StableHLO (symhlo-verify-pure-stablehlo)}}
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'tensor.dim' is not StableHLO}}
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  return %d : index
}

// -----

func.func @verify_failure_nested_shape_ops(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error@+1 {{'shape.shape_of' is not StableHLO}}
  %0 = shape.shape_of %arg0 : tensor<?x4xf32> -> tensor<2xindex>
  // expected-error@+1 {{'shape.shape_of' is not StableHLO}}
  %1 = shape.shape_of %arg1 : tensor<?x4xf32> -> tensor<2xindex>
  // expected-error@+1 {{'shape.cstr_broadcastable' is not StableHLO}}
  %2 = shape.cstr_broadcastable %0, %1 : tensor<2xindex>, tensor<2xindex>
  // expected-error@+1 {{'shape.assuming' is not StableHLO}}
  %3 = shape.assuming %2 -> (tensor<?x4xf32>) {
    %4 = stablehlo.add %arg0, %arg1 : tensor<?x4xf32>
    // expected-error@+1 {{'shape.assuming_yield' is not StableHLO}}
    shape.assuming_yield %4 : tensor<?x4xf32>
  }
  return %3 : tensor<?x4xf32>
}

// -----

func.func @verify_failure_chlo_is_not_stablehlo(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error-re@+1 {{'chlo.{{[a-z_]+}}' is not StableHLO}}
  %0 = chlo.erf %arg0 : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
