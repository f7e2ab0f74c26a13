// RUN: symhlo-opt --symhlo-convert-unsigned-to-signless-for-iree --split-input-file --verify-diagnostics %s | FileCheck %s

// IREE 3.13 left a tensor.dim of the ui8 operand of a `?`-sized reverse illegal: no unsigned type
// is left. Sign-agnostic ops only change types; constants keep their bits; a public function
// keeps its ui8 signature through bitcasts.
// CHECK-LABEL: func @reverse_add
// CHECK-SAME:    (%[[X:.*]]: tensor<?x5xui8>) -> tensor<?x5xui8>
// CHECK:         %[[S:.*]] = stablehlo.bitcast_convert %[[X]] : (tensor<?x5xui8>) -> tensor<?x5xi8>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<-6> : tensor<5xi8>
// CHECK:         %[[R:.*]] = stablehlo.reverse %[[S]], dims = [0] : tensor<?x5xi8>
// CHECK:         %[[A:.*]] = stablehlo.add %[[R]], %{{.*}} : tensor<?x5xi8>
// CHECK:         %[[U:.*]] = stablehlo.bitcast_convert %[[A]] : (tensor<?x5xi8>) -> tensor<?x5xui8>
// CHECK:         return %[[U]]
func.func @reverse_add(%x: tensor<?x5xui8>) -> tensor<?x5xui8> {
  %c = stablehlo.constant dense<250> : tensor<5xui8>
  %r = stablehlo.reverse %x, dims = [0] : tensor<?x5xui8>
  %b = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<5xui8>) -> tensor<2x5xui8>
  %d = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x5xui8>) -> tensor<i32>
  %s = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c5 = stablehlo.constant dense<5> : tensor<1xi32>
  %shape = stablehlo.concatenate %s, %c5, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %bc = stablehlo.dynamic_broadcast_in_dim %c, %shape, dims = [1] : (tensor<5xui8>, tensor<2xi32>) -> tensor<?x5xui8>
  %a = stablehlo.add %r, %bc : tensor<?x5xui8>
  return %a : tensor<?x5xui8>
}

// -----

// Sign-dependent ops run on zero extensions (convert, then and 255) and are truncated back;
// a private function's signature becomes signless.
// CHECK-LABEL: func private @sign_dependent
// CHECK-SAME:    (%[[X:.*]]: tensor<4xi8>, %[[Y:.*]]: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi1>, tensor<4xi8>)
// CHECK-DAG:     %[[M:.*]] = stablehlo.constant dense<255> : tensor<4xi32>
// CHECK-DAG:     %[[XW:.*]] = stablehlo.convert %[[X]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK-DAG:     %[[XZ:.*]] = stablehlo.and %[[XW]], %[[M]]
// CHECK-DAG:     %[[YW:.*]] = stablehlo.convert %[[Y]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK-DAG:     %[[YZ:.*]] = stablehlo.and %[[YW]], %[[M]]
// CHECK:         %[[D:.*]] = stablehlo.divide %[[XZ]], %[[YZ]] : tensor<4xi32>
// CHECK:         %[[DN:.*]] = stablehlo.convert %[[D]] : (tensor<4xi32>) -> tensor<4xi8>
// CHECK:         %[[G:.*]] = stablehlo.compare GT, %{{.*}}, %{{.*}}, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK:         %[[MX:.*]] = stablehlo.maximum %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK:         %[[MN:.*]] = stablehlo.convert %[[MX]] : (tensor<4xi32>) -> tensor<4xi8>
// CHECK:         return %[[DN]], %[[G]], %[[MN]]
func.func private @sign_dependent(%x: tensor<4xui8>, %y: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xi1>, tensor<4xui8>) {
  %d = stablehlo.divide %x, %y : tensor<4xui8>
  %g = stablehlo.compare GT, %x, %y, SIGNED : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %m = stablehlo.maximum %x, %y : tensor<4xui8>
  return %d, %g, %m : tensor<4xui8>, tensor<4xi1>, tensor<4xui8>
}

// -----

// Converts: ui8 -> f32 and ui8 -> i32 zero-extend; f32 -> ui8 goes through i32; i32 -> ui8
// truncates as a signless convert. A `?` shape's mask is a broadcast of a scalar to its sizes.
// CHECK-LABEL: func private @converts
// CHECK:         %[[W:.*]] = stablehlo.convert %arg0 : (tensor<?xi8>) -> tensor<?xi32>
// CHECK:         %[[MASK:.*]] = stablehlo.dynamic_broadcast_in_dim %{{.*}}, %{{.*}}, dims = [] : (tensor<i32>, tensor<1xi64>) -> tensor<?xi32>
// CHECK:         %[[Z:.*]] = stablehlo.and %[[W]], %[[MASK]] : tensor<?xi32>
// CHECK:         stablehlo.convert %[[Z]] : (tensor<?xi32>) -> tensor<?xf32>
// CHECK:         stablehlo.and %{{.*}}, %{{.*}} : tensor<?xi32>
// CHECK:         %[[FW:.*]] = stablehlo.convert %arg1 : (tensor<?xf32>) -> tensor<?xi32>
// CHECK:         stablehlo.convert %[[FW]] : (tensor<?xi32>) -> tensor<?xi8>
// CHECK:         stablehlo.convert %arg2 : (tensor<?xi32>) -> tensor<?xi8>
func.func private @converts(%x: tensor<?xui8>, %f: tensor<?xf32>, %i: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi32>, tensor<?xui8>, tensor<?xui8>) {
  %0 = stablehlo.convert %x : (tensor<?xui8>) -> tensor<?xf32>
  %1 = stablehlo.convert %x : (tensor<?xui8>) -> tensor<?xi32>
  %2 = stablehlo.convert %f : (tensor<?xf32>) -> tensor<?xui8>
  %3 = stablehlo.convert %i : (tensor<?xi32>) -> tensor<?xui8>
  return %0, %1, %2, %3 : tensor<?xf32>, tensor<?xi32>, tensor<?xui8>, tensor<?xui8>
}

// -----

// Region bodies are rewritten like any other ops: an unsigned max reduction compares zero extensions.
// CHECK-LABEL: func private @reduce_max
// CHECK:         stablehlo.reduce(%arg0 init: %{{.*}}) across dimensions = [0] : (tensor<?x5xi8>, tensor<i8>) -> tensor<5xi8>
// CHECK:         reducer(%[[A:.*]]: tensor<i8>, %[[B:.*]]: tensor<i8>)
// CHECK:           stablehlo.maximum %{{.*}}, %{{.*}} : tensor<i32>
func.func private @reduce_max(%x: tensor<?x5xui8>) -> tensor<5xui8> {
  %c = stablehlo.constant dense<0> : tensor<ui8>
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [0] : (tensor<?x5xui8>, tensor<ui8>) -> tensor<5xui8>
  return %r : tensor<5xui8>
}

// -----

// An op on unsigned values without a signless rule is refused, naming it.
func.func private @unknown_op_failure(%x: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{'stablehlo.custom_call' on unsigned integers has no signless form for IREE}}
  %r = stablehlo.custom_call @foo(%x) : (tensor<4xui8>) -> tensor<4xui8>
  return %r : tensor<4xui8>
}
