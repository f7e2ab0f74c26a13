// RUN: symhlo-opt --symhlo-inline-private-calls --split-input-file %s | FileCheck %s

// jax.export's form: @main reads the sizes and calls a private wrapper, which calls helpers.
// CHECK-LABEL: func @main
// CHECK-NOT:     call
// CHECK:         %[[N:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK:         %[[Q:.*]] = stablehlo.divide %[[N]], %{{.*}} : tensor<i32>
// CHECK:         stablehlo.add %arg0, %arg0 : tensor<?xf32>
// CHECK-NOT:   func.func private
func.func @main(%arg0: tensor<?xf32>) -> (tensor<?xf32>, tensor<i32>) {
  %n = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %r:2 = call @_wrapped_jax_export_main(%n, %arg0) : (tensor<i32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<i32>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<i32>
}
func.func private @_wrapped_jax_export_main(%n: tensor<i32> {jax.global_constant = "b"}, %x: tensor<?xf32>) -> (tensor<?xf32>, tensor<i32>) {
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %h = call @floor_divide(%n, %c2) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = stablehlo.add %x, %x : tensor<?xf32>
  return %y, %h : tensor<?xf32>, tensor<i32>
}
func.func private @floor_divide(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
  %q = stablehlo.divide %a, %b : tensor<i32>
  return %q : tensor<i32>
}

// -----

// A public function called from @main is inlined too; it stays (it is public).
// CHECK-LABEL: func @main
// CHECK-NOT:     call
// CHECK:         stablehlo.multiply %arg0, %arg0
// CHECK-LABEL: func @helper
func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %r = call @helper(%arg0) : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @helper(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = stablehlo.multiply %x, %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// A module without calls is left as it is (its unused private functions too).
// CHECK-LABEL: func @no_calls
// CHECK:         stablehlo.negate
// CHECK-LABEL: func private @unused
func.func @no_calls(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %y = stablehlo.negate %arg0 : tensor<?xf32>
  return %y : tensor<?xf32>
}
func.func private @unused(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
