// RUN: symhlo-opt --symhlo-lower-torch-control-flow --split-input-file %s | FileCheck %s

// A while-form torch.prim.Loop (trip count INT64_MAX, counter unused; what while_loop imports
// as) -> stablehlo.while; `?` loop values stay `?`. The condition, computed at the end of the
// body from what it yields, is cloned into `cond` on the region's arguments (StableHLO's own
// form), and its first evaluation before the loop is erased.

// CHECK-LABEL: func @while_form
// CHECK-NOT:     torch.aten.Bool.Tensor
// CHECK:         %[[X:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
// CHECK:         %[[W:.*]] = stablehlo.while(%[[H:.*]] = %[[X]]) : tensor<?x4xf32>
// CHECK:         cond {
// CHECK:           %[[HC:.*]] = torch_c.from_builtin_tensor %[[H]] : tensor<?x4xf32> -> !torch.vtensor<[?,4],f32>
// CHECK:           %[[S:.*]] = torch.aten.sum %[[HC]]
// CHECK:           %[[GT:.*]] = torch.aten.gt.Scalar %[[S]]
// CHECK-NOT:       torch.aten.Bool.Tensor
// CHECK:           %[[P:.*]] = torch_c.to_builtin_tensor %[[GT]] : !torch.vtensor<[],i1> -> tensor<i1>
// CHECK:           stablehlo.return %[[P]] : tensor<i1>
// CHECK:         } do {
// CHECK:           %[[HT:.*]] = torch_c.from_builtin_tensor %[[H]] : tensor<?x4xf32> -> !torch.vtensor<[?,4],f32>
// CHECK:           %[[T:.*]] = torch.aten.tanh %[[HT]]
// CHECK-NOT:       torch.aten.sum
// CHECK:           %[[TB:.*]] = torch_c.to_builtin_tensor %[[T]] : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
// CHECK:           stablehlo.return %[[TB]] : tensor<?x4xf32>
// CHECK:         }
// CHECK:         %[[R:.*]] = torch_c.from_builtin_tensor %[[W]] : tensor<?x4xf32> -> !torch.vtensor<[?,4],f32>
// CHECK-NOT:     torch.prim.Loop
// CHECK:         return %[[R]]
func.func @while_form(%arg0: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32> {
  %max = torch.constant.int 9223372036854775807
  %none0 = torch.constant.none
  %s0 = torch.aten.sum %arg0, %none0 : !torch.vtensor<[?,4],f32>, !torch.none -> !torch.vtensor<[],f32>
  %zero0 = torch.constant.float 0.0
  %gt0 = torch.aten.gt.Scalar %s0, %zero0 : !torch.vtensor<[],f32>, !torch.float -> !torch.vtensor<[],i1>
  %go = torch.aten.Bool.Tensor %gt0 : !torch.vtensor<[],i1> -> !torch.bool
  %0 = torch.prim.Loop %max, %go, init(%arg0) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?,4],f32>):
    %t = torch.aten.tanh %h : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
    %none = torch.constant.none
    %s = torch.aten.sum %t, %none : !torch.vtensor<[?,4],f32>, !torch.none -> !torch.vtensor<[],f32>
    %zero = torch.constant.float 0.0
    %gt = torch.aten.gt.Scalar %s, %zero : !torch.vtensor<[],f32>, !torch.float -> !torch.vtensor<[],i1>
    %b = torch.aten.Bool.Tensor %gt : !torch.vtensor<[],i1> -> !torch.bool
    torch.prim.Loop.condition %b, iter(%t : !torch.vtensor<[?,4],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}

// -----

// A condition that reads the values before the step (the block argument) cannot move to `cond`:
// the go/stop flag is carried as the first loop value.
// CHECK-LABEL: func @while_flag_carried
// CHECK-NOT:     torch.aten.Bool.Tensor
// CHECK:         %[[P0:.*]] = torch_c.to_builtin_tensor %arg1 : !torch.vtensor<[],i1> -> tensor<i1>
// CHECK:         %[[X:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
// CHECK:         %[[W:.*]]:2 = stablehlo.while(%[[GO:.*]] = %[[P0]], %[[H:.*]] = %[[X]]) : tensor<i1>, tensor<?x4xf32>
// CHECK:         cond {
// CHECK:           stablehlo.return %[[GO]] : tensor<i1>
// CHECK:         } do {
// CHECK:           %[[HT:.*]] = torch_c.from_builtin_tensor %[[H]] : tensor<?x4xf32> -> !torch.vtensor<[?,4],f32>
// CHECK:           %[[T:.*]] = torch.aten.tanh %[[HT]]
// CHECK:           %[[S:.*]] = torch.aten.sum %[[HT]]
// CHECK:           %[[GT:.*]] = torch.aten.gt.Scalar %[[S]]
// CHECK-NOT:       torch.aten.Bool.Tensor
// CHECK:           %[[P1:.*]] = torch_c.to_builtin_tensor %[[GT]] : !torch.vtensor<[],i1> -> tensor<i1>
// CHECK:           %[[TB:.*]] = torch_c.to_builtin_tensor %[[T]] : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
// CHECK:           stablehlo.return %[[P1]], %[[TB]] : tensor<i1>, tensor<?x4xf32>
// CHECK:         }
// CHECK:         torch_c.from_builtin_tensor %[[W]]#1 : tensor<?x4xf32> -> !torch.vtensor<[?,4],f32>
func.func @while_flag_carried(%arg0: !torch.vtensor<[?,4],f32>, %arg1: !torch.vtensor<[],i1>) -> !torch.vtensor<[?,4],f32> {
  %max = torch.constant.int 9223372036854775807
  %go = torch.aten.Bool.Tensor %arg1 : !torch.vtensor<[],i1> -> !torch.bool
  %0 = torch.prim.Loop %max, %go, init(%arg0) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?,4],f32>):
    %t = torch.aten.tanh %h : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
    %none = torch.constant.none
    %s = torch.aten.sum %h, %none : !torch.vtensor<[?,4],f32>, !torch.none -> !torch.vtensor<[],f32>
    %zero = torch.constant.float 0.0
    %gt = torch.aten.gt.Scalar %s, %zero : !torch.vtensor<[],f32>, !torch.float -> !torch.vtensor<[],i1>
    %b = torch.aten.Bool.Tensor %gt : !torch.vtensor<[],i1> -> !torch.bool
    torch.prim.Loop.condition %b, iter(%t : !torch.vtensor<[?,4],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}
// -----

// A counted loop (finite trip count, the counter read) is no while loop: left alone, so the
// torch -> StableHLO conversion fails on it by name.
// CHECK-LABEL: func @counted_loop_kept
// CHECK:         torch.prim.Loop
// CHECK-NOT:     stablehlo.while
func.func @counted_loop_kept(%arg0: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %n = torch.constant.int 3
  %true = torch.constant.bool true
  %0 = torch.prim.Loop %n, %true, init(%arg0) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>):
    %one = torch.constant.int 1
    %t = torch.aten.add.Scalar %h, %i, %one : !torch.vtensor<[?],f32>, !torch.int, !torch.int -> !torch.vtensor<[?],f32>
    torch.prim.Loop.condition %true, iter(%t : !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}
