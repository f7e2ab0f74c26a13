// RUN: symhlo-opt --symhlo-lower-dynamic-operand-ops --split-input-file --verify-diagnostics %s | FileCheck %s

// Constant padding: a plain stablehlo.convolution with the padding as its attribute.
// CHECK-LABEL: func @dynamic_conv_constant_padding
// CHECK-NOT:     dynamic_conv
// CHECK:         stablehlo.convolution(%arg0, %arg1)
// CHECK-SAME:      pad = {{\[\[}}1, 1], [0, 2]]
func.func @dynamic_conv_constant_padding(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %p = stablehlo.constant dense<[[1, 1], [0, 2]]> : tensor<2x2xi32>
  %0 = "stablehlo.dynamic_conv"(%arg0, %arg1, %p) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, window_strides = array<i64: 2, 2>}> : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<2x2xi32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// Padding computed from H: a dynamic_pad of the spatial axes (zero-filled), then no padding.
// CHECK-LABEL: func @dynamic_conv_computed_padding
// CHECK:         %[[P:.*]] = stablehlo.dynamic_pad %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x3x?x?xf32>, tensor<f32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<?x3x?x?xf32>
// CHECK:         stablehlo.convolution(%[[P]], %arg1)
// CHECK-NOT:       pad =
// CHECK-SAME:      window = {stride = [2, 2]}
func.func @dynamic_conv_computed_padding(%arg0: tensor<?x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %h = stablehlo.get_dimension_size %arg0, dim = 2 : (tensor<?x3x?x?xf32>) -> tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r = stablehlo.remainder %h, %one : tensor<i32>
  %a = stablehlo.reshape %r : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<1> : tensor<1xi32>
  %row = stablehlo.concatenate %a, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %row2 = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
  %pad = stablehlo.concatenate %row, %row2, dim = 0 : (tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>
  %p = stablehlo.reshape %pad : (tensor<4xi32>) -> tensor<2x2xi32>
  %0 = "stablehlo.dynamic_conv"(%arg0, %arg1, %p) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, window_strides = array<i64: 2, 2>}> : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<2x2xi32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// jax's cumsum: window = the axis size n, padding n - 1 before: a masked reduce over i <= j.
// CHECK-LABEL: func @cumsum
// CHECK-NOT:     custom_call
// CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %arg0, %{{.*}}, dims = [0, 2]
// CHECK-SAME:      -> tensor<?x?x?xf32>
// CHECK:         %[[J:.*]] = stablehlo.dynamic_iota %{{.*}}, dim = 1
// CHECK:         %[[I:.*]] = stablehlo.dynamic_iota %{{.*}}, dim = 2
// CHECK:         %[[M:.*]] = stablehlo.compare LE, %[[I]], %[[J]]
// CHECK:         %[[S:.*]] = stablehlo.select %[[M]], %[[B]], %{{.*}}
// CHECK:         stablehlo.reduce(%[[S]] init: %{{.*}}) applies stablehlo.add across dimensions = [2]
// CHECK-NOT:   func.func @reduce_window_add
func.func @cumsum(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %c0 = stablehlo.constant dense<0> : tensor<1xi32>
  %cm1 = stablehlo.constant dense<-1> : tensor<i32>
  %n = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %win = stablehlo.concatenate %c1, %n1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %ones = stablehlo.concatenate %c1, %c1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %nm1 = stablehlo.add %n, %cm1 : tensor<i32>
  %lo = stablehlo.reshape %nm1 : (tensor<i32>) -> tensor<1xi32>
  %r0 = stablehlo.concatenate %c0, %c0, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r1 = stablehlo.concatenate %lo, %c0, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %m0 = stablehlo.reshape %r0 : (tensor<2xi32>) -> tensor<1x2xi32>
  %m1 = stablehlo.reshape %r1 : (tensor<2xi32>) -> tensor<1x2xi32>
  %pad = stablehlo.concatenate %m0, %m1, dim = 0 : (tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<2x2xi32>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%arg0, %zero, %win, %ones, %ones, %ones, %pad) {api_version = 2 : i32, called_computations = [@reduce_window_add]} : (tensor<?x?xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @reduce_window_add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A constant window with computed padding (max pooling, SAME): dynamic_pad with the init value,
// then a reduce_window with static attributes.
// CHECK-LABEL: func @max_pool_computed_padding
// CHECK:         %[[P:.*]] = stablehlo.dynamic_pad %arg0, %[[INIT:[^,]*]],
// CHECK:         "stablehlo.reduce_window"(%[[P]], %[[INIT]])
// CHECK-SAME:      window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 2>
// CHECK:           stablehlo.maximum
func.func @max_pool_computed_padding(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %win = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
  %str = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %ones = stablehlo.constant dense<1> : tensor<2xi32>
  %n = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %r = stablehlo.remainder %n, %two : tensor<i32>
  %hi = stablehlo.reshape %r : (tensor<i32>) -> tensor<1xi32>
  %c0 = stablehlo.constant dense<0> : tensor<1xi32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %pad = stablehlo.concatenate %c0, %c0, %c1, %hi, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  %p = stablehlo.reshape %pad : (tensor<4xi32>) -> tensor<2x2xi32>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%arg0, %init, %win, %str, %ones, %ones, %p) {api_version = 2 : i32, called_computations = [@reduce_window_max]} : (tensor<?x?xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @reduce_window_max(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.maximum %a, %b : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// jax's x[:n // 2]: one window from a start index -> real_dynamic_slice from the clamped start.
// CHECK-LABEL: func @gather_one_window
// CHECK-NOT:     dynamic_gather
// CHECK:         %[[S:.*]] = stablehlo.clamp
// CHECK:         %[[START:.*]] = stablehlo.concatenate %[[S]], %{{.*}}, dim = 0
// CHECK:         %[[LIMIT:.*]] = stablehlo.add %[[START]], %arg1
// CHECK:         stablehlo.real_dynamic_slice %arg0, %[[START]], %[[LIMIT]], %{{.*}} : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x4xf32>
func.func @gather_one_window(%arg0: tensor<?x4xf32>, %arg1: tensor<2xi32>) -> tensor<?x4xf32> {
  %idx = stablehlo.constant dense<0> : tensor<1xi32>
  %0 = "stablehlo.dynamic_gather"(%arg0, %idx, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [0]>, indices_are_sorted = true}> : (tensor<?x4xf32>, tensor<1xi32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A window computed from sizes that is not a prefix scan is refused, naming the op.
func.func @failure_dynamic_window(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %n = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %win = stablehlo.concatenate %c1, %n1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %ones = stablehlo.concatenate %c1, %c1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %pad = stablehlo.constant dense<0> : tensor<2x2xi32>
  // expected-error @+1 {{not a prefix scan}}
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%arg0, %zero, %win, %ones, %ones, %ones, %pad) {api_version = 2 : i32, called_computations = [@reduce_window_add]} : (tensor<?x?xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @reduce_window_add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
