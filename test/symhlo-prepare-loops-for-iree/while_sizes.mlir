// RUN: symhlo-opt --symhlo-prepare-loops-for-iree --split-input-file %s | FileCheck %s

// Every `?` size of a stablehlo.while's loop values is read in its cond region (IREE 3.13 loses
// them otherwise, e.g. with a stablehlo.if in the body).

// CHECK-LABEL: func @reads_each_dynamic_size
// CHECK:         stablehlo.while(%[[I:.*]] = %{{.*}}, %[[H:.*]] = %arg0) : tensor<i64>, tensor<?x4x?xf32>
// CHECK:         cond {
// CHECK:           %[[P:.*]] = stablehlo.compare LT, %[[I]]
// CHECK:           %[[D0:.*]] = stablehlo.get_dimension_size %[[H]], dim = 0 : (tensor<?x4x?xf32>) -> tensor<i32>
// CHECK:           %[[OK0:.*]] = stablehlo.compare GE, %[[D0]], %{{.*}}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK:           %[[P0:.*]] = stablehlo.and %[[P]], %[[OK0]] : tensor<i1>
// CHECK-NOT:       dim = 1
// CHECK:           %[[D2:.*]] = stablehlo.get_dimension_size %[[H]], dim = 2
// CHECK:           %[[OK2:.*]] = stablehlo.compare GE, %[[D2]]
// CHECK:           %[[P2:.*]] = stablehlo.and %[[P0]], %[[OK2]] : tensor<i1>
// CHECK:           stablehlo.return %[[P2]] : tensor<i1>
// CHECK:         } do {
// CHECK-NOT:       stablehlo.get_dimension_size
// CHECK:           stablehlo.return
func.func @reads_each_dynamic_size(%arg0: tensor<?x4x?xf32>) -> tensor<?x4x?xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c3 = stablehlo.constant dense<3> : tensor<i64>
  %0:2 = stablehlo.while(%i = %c0, %h = %arg0) : tensor<i64>, tensor<?x4x?xf32>
  cond {
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n = stablehlo.add %i, %c1 : tensor<i64>
    %g = stablehlo.negate %h : tensor<?x4x?xf32>
    stablehlo.return %n, %g : tensor<i64>, tensor<?x4x?xf32>
  }
  return %0#1 : tensor<?x4x?xf32>
}

// -----

// A size the cond region reads already, and static loop values, are left alone.
// CHECK-LABEL: func @already_read_kept
// CHECK:         cond {
// CHECK-COUNT-1:   stablehlo.get_dimension_size
// CHECK-NOT:       stablehlo.and
// CHECK:           stablehlo.return
func.func @already_read_kept(%arg0: tensor<?xf32>, %arg1: tensor<4xf32>) -> tensor<?xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:3 = stablehlo.while(%i = %c0, %h = %arg0, %w = %arg1) : tensor<i32>, tensor<?xf32>, tensor<4xf32>
  cond {
    %d = stablehlo.get_dimension_size %h, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %p = stablehlo.compare LT, %i, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    stablehlo.return %i, %h, %w : tensor<i32>, tensor<?xf32>, tensor<4xf32>
  }
  return %0#1 : tensor<?xf32>
}
