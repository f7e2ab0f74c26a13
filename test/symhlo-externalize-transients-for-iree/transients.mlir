// RUN: symhlo-opt --symhlo-insert-call-checks-for-iree --symhlo-externalize-transients-for-iree --split-input-file %s | FileCheck %s

// A `?` input: @main stays as symhlo-insert-call-checks-for-iree built it, and @main$transients,
// the same entry with a trailing storage buffer view, marks each result's transients as living in it.
// CHECK-LABEL: func.func @main$transients(
// CHECK-SAME:    %[[VX:.*]]: !hal.buffer_view, %[[STORAGE:.*]]: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view)
// CHECK-SAME:    symhlo.declaration = "sync func @main(%input0: tensor<?x4xf32>) -> (%output0: tensor<?x4xf32>, %output1: tensor<4xf32>)"
// CHECK:         %[[X:.*]] = "hal.tensor.import"(%[[VX]], %{{.*}})
// CHECK:         %[[R:.*]]:2 = call @symhlo_checked_main(%[[X]])
// CHECK:         %[[D:.*]] = tensor.dim %[[R]]#0
// CHECK:         %[[T0:.*]] = "hal.tensor.transients"(%[[R]]#0, %[[D]], %[[STORAGE]]) : (tensor<?x4xf32>, index, !hal.buffer_view) -> tensor<?x4xf32>
// CHECK:         %[[O0:.*]] = "hal.tensor.export"(%[[T0]], %[[D]]) {name = "output0"
// CHECK:         %[[T1:.*]] = "hal.tensor.transients"(%[[R]]#1, %[[STORAGE]]) : (tensor<4xf32>, !hal.buffer_view) -> tensor<4xf32>
// CHECK:         %[[O1:.*]] = "hal.tensor.export"(%[[T1]]) {name = "output1"
// CHECK:         return %[[O0]], %[[O1]]
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %{{.*}}: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view)
// CHECK-NOT:     hal.tensor.transients
// CHECK:         return
// CHECK:       func.func private @symhlo_checked_main
func.func @main(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<4xf32>) attributes {
    symhlo.symbols = {n = [1, 100]}, symhlo.arg_names = ["x"], symhlo.arg_shapes = [["n", "4"]]} {
  %0 = stablehlo.add %x, %x : tensor<?x4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<4xf32>
}

// -----

// Static inputs: IREE packs the transients at compile time; no second entry.
// CHECK-LABEL: func.func @main(
// CHECK-NOT:   transients
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> attributes {
    symhlo.symbols = {}, symhlo.arg_names = ["x"], symhlo.arg_shapes = [["3", "4"]]} {
  %0 = stablehlo.add %x, %x : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A @main of tensors (no contract: StableHLO from another exporter, left to IREE's own ABI): no
// second entry.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    tensor<?xf32>
// CHECK-NOT:   transients
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A size from data (u0: nonzero's count, no input axis names it): IREE cannot size the transients
// before the call; one entry.
// CHECK-LABEL: func.func @main(
// CHECK-NOT:   transients
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> attributes {
    symhlo.symbols = {n = [1, 100], u0 = [0, 100]}, symhlo.arg_names = ["x"],
    symhlo.arg_shapes = [["n"]], symhlo.result_shapes = [["u0"]]} {
  %c = stablehlo.constant dense<1> : tensor<1xi32>
  %0 = stablehlo.real_dynamic_slice %x, %c, %c, %c : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Control flow: the sizes inside a loop are the loop's; one entry.
// CHECK-LABEL: func.func @main(
// CHECK-NOT:   transients
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> attributes {
    symhlo.symbols = {n = [1, 100]}, symhlo.arg_names = ["x"], symhlo.arg_shapes = [["n"]]} {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c, %v = %x) : tensor<i32>, tensor<?xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      stablehlo.return %i, %v : tensor<i32>, tensor<?xf32>
    }
  return %0#1 : tensor<?xf32>
}
