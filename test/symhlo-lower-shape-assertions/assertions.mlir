// RUN: symhlo-opt --symhlo-lower-shape-assertions --split-input-file --verify-diagnostics %s | FileCheck %s

// jax's `b >= 1` rule: the predicate and the message argument become JSON over the input sizes.
// CHECK-LABEL: func @main
// CHECK-SAME:    symhlo.shape_assertions = [{args = "{{\[\[}}\22dim\22, 0, 0]]", cond = "[\22ge\22, [\22dim\22, 0, 0], 1]", message = "b = {0} must be >= 1"}]
// CHECK-NOT:     custom_call
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %b = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %ok = stablehlo.compare GE, %b, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %b) {api_version = 2 : i32, error_message = "b = {0} must be >= 1", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  return %arg0 : tensor<?x4xf32>
}

// -----

// Two inputs sharing `b`: an equality across arguments; sizes go through convert / reshape.
// CHECK-LABEL: func @main
// CHECK-SAME:    cond = "[\22eq\22, [\22dim\22, 0, 0], [\22dim\22, 1, 1]]"
// CHECK-NOT:     custom_call
func.func @main(%arg0: tensor<?x4xf32>, %arg1: tensor<2x?xf32>) -> tensor<?x4xf32> {
  %b0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %b1 = stablehlo.get_dimension_size %arg1, dim = 1 : (tensor<2x?xf32>) -> tensor<i32>
  %w = stablehlo.convert %b1 : (tensor<i32>) -> tensor<i64>
  %v = stablehlo.convert %b0 : (tensor<i32>) -> tensor<i64>
  %ok = stablehlo.compare EQ, %v, %w, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %b0, %b1) {error_message = "{0} != {1}", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
  return %arg0 : tensor<?x4xf32>
}

// -----

// A predicate that holds for every call (a static size) is dropped, with its custom call.
// CHECK-LABEL: func @main
// CHECK-NOT:     symhlo.shape_assertions
// CHECK-NOT:     custom_call
func.func @main(%arg0: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<3x?xf32>) -> tensor<i32>
  %ok = stablehlo.compare GE, %n, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok) {error_message = "never", has_side_effect = true} : (tensor<i1>) -> ()
  return %arg0 : tensor<3x?xf32>
}

// -----

// A predicate on tensor values cannot be checked from the shapes: the pass fails, naming it.
func.func @main(%arg0: tensor<?xi32>, %arg1: tensor<i32>) -> tensor<?xi32> {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %ok = stablehlo.compare GE, %arg1, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  // expected-error @+1 {{shape assertion whose predicate or message arguments do not follow from the input sizes}}
  stablehlo.custom_call @shape_assertion(%ok) {error_message = "data", has_side_effect = true} : (tensor<i1>) -> ()
  return %arg0 : tensor<?xi32>
}

// -----

// An assertion left in a helper function (not inlined) is reported, not dropped.
func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %arg0 : tensor<?xf32>
}
func.func @helper(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %ok = stablehlo.compare GE, %n, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  // expected-error @+1 {{shape assertion outside the entry function}}
  stablehlo.custom_call @shape_assertion(%ok) {error_message = "helper", has_side_effect = true} : (tensor<i1>) -> ()
  return %arg0 : tensor<?xf32>
}

// -----

// No custom call, but stablehlo.add needs its operands' sizes equal: two different input sizes,
// so the equality becomes a call-time check (IREE would trust it and read past a buffer).
// CHECK-LABEL: func @main
// CHECK-SAME:    cond = "[\22eq\22, [\22dim\22, 0, 0], [\22dim\22, 1, 0]]"
// CHECK-SAME:    message = "input sizes {0} and {1} must be equal: stablehlo.add at
// CHECK-SAME:    needs arg0: axis 0 == arg1: axis 0"
func.func @main(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
