// RUN: symhlo-opt --symhlo-lower-torch-runtime-asserts --split-input-file %s | FileCheck %s

// torch.runtime.assert on a data-dependent size: erased when proven (a mask's popcount >= 0),
// else an extra 0-d si64 result of the function, its message in symhlo.runtime_checks.

// CHECK-LABEL: func @popcount_nonnegative_is_proven
// CHECK-SAME:    -> !torch.vtensor<[?],si64> {
// CHECK-NOT:     torch.runtime.assert
// CHECK-NOT:     symhlo.runtime_checks
func.func @popcount_nonnegative_is_proven(%arg0: !torch.vtensor<[?],i1>) -> !torch.vtensor<[?],si64> {
  %int4 = torch.constant.int 4
  %false = torch.constant.bool false
  %none = torch.constant.none
  %c0 = arith.constant 0 : index
  %0 = torch.aten.to.dtype %arg0, %int4, %false, %false, %none : !torch.vtensor<[?],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?],si64>
  %1 = torch.prim.ListConstruct  : () -> !torch.list<int>
  %2 = torch.aten.sum.dim_IntList %0, %1, %false, %none : !torch.vtensor<[?],si64>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[],si64>
  %3 = torch.aten.Int.Tensor %2 : !torch.vtensor<[],si64> -> !torch.int
  %4 = torch_c.to_i64 %3
  %5 = arith.index_cast %4 : i64 to index
  %6 = arith.cmpi sge, %5, %c0 : index
  %7 = torch_c.from_i1 %6
  %8 = torch.aten.Int.bool %7 : !torch.bool -> !torch.int
  %9 = torch.aten.Bool.int %8 : !torch.int -> !torch.bool
  torch.runtime.assert %9, "Runtime assertion failed for expression u0 >= 0 on node 'ge'"
  return %0 : !torch.vtensor<[?],si64>
}

// -----

// `n = k.item(); torch._check(n <= x.shape[0])`: only the data decides it.
// CHECK-LABEL: func @item_bound_is_a_call_time_check
// CHECK-SAME:    -> (!torch.vtensor<[?],f32>, !torch.vtensor<[],si64>)
// CHECK-SAME:    symhlo.runtime_checks = ["Runtime assertion failed for expression u0 <= s0 on node 'le'"]
// CHECK:         %[[C:.*]] = torch.aten.le.int
// CHECK-NOT:     torch.runtime.assert
// CHECK:         %[[I:.*]] = torch.aten.Int.bool %[[C]] : !torch.bool -> !torch.int
// CHECK:         %[[T:.*]] = torch.prim.NumToTensor.Scalar %[[I]] : !torch.int -> !torch.vtensor<[],si64>
// CHECK:         return %arg0, %[[T]] : !torch.vtensor<[?],f32>, !torch.vtensor<[],si64>
func.func @item_bound_is_a_call_time_check(%arg0: !torch.vtensor<[?],f32>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[?],f32> {
  %int0 = torch.constant.int 0
  %n = torch.aten.Int.Tensor %arg1 : !torch.vtensor<[],si64> -> !torch.int
  %s = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?],f32>, !torch.int -> !torch.int
  %c = torch.aten.le.int %n, %s : !torch.int, !torch.int -> !torch.bool
  torch.runtime.assert %c, "Runtime assertion failed for expression u0 <= s0 on node 'le'"
  return %arg0 : !torch.vtensor<[?],f32>
}

// -----

// A sum of values that may be negative proves nothing: `repeats.sum() >= 0` is checked.
// CHECK-LABEL: func @signed_sum_is_a_call_time_check
// CHECK-SAME:    symhlo.runtime_checks = ["u0 >= 0"]
func.func @signed_sum_is_a_call_time_check(%arg0: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?],si64> {
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %none = torch.constant.none
  %1 = torch.prim.ListConstruct  : () -> !torch.list<int>
  %2 = torch.aten.sum.dim_IntList %arg0, %1, %false, %none : !torch.vtensor<[?],si64>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[],si64>
  %3 = torch.aten.Int.Tensor %2 : !torch.vtensor<[],si64> -> !torch.int
  %c = torch.aten.ge.int %3, %int0 : !torch.int, !torch.int -> !torch.bool
  torch.runtime.assert %c, "u0 >= 0"
  return %arg0 : !torch.vtensor<[?],si64>
}

// -----

// A value checked `>= 0` and not proven is clamped for its other users: a call whose check fails
// must not size anything negative before the wrapper raises.
// CHECK-LABEL: func @checked_value_is_clamped_for_other_users
// CHECK:         %[[N:.*]] = torch.aten.Int.Tensor %arg1
// CHECK-NEXT:    %[[RAW:.*]] = torch_c.to_i64 %[[N]]
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[MAX:.*]] = arith.maxsi %[[RAW]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[SAFE:.*]] = torch_c.from_i64 %[[MAX]]
// CHECK:         torch.aten.ge.int %[[N]], %{{.*}}
// CHECK:         torch.aten.arange %[[SAFE]]
func.func @checked_value_is_clamped_for_other_users(%arg0: !torch.vtensor<[?],f32>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[?],si64> {
  %int0 = torch.constant.int 0
  %int4 = torch.constant.int 4
  %none = torch.constant.none
  %cpu = torch.constant.device "cpu"
  %false = torch.constant.bool false
  %n = torch.aten.Int.Tensor %arg1 : !torch.vtensor<[],si64> -> !torch.int
  %c = torch.aten.ge.int %n, %int0 : !torch.int, !torch.int -> !torch.bool
  torch.runtime.assert %c, "u0 >= 0"
  %r = torch.aten.arange %n, %int4, %none, %cpu, %false : !torch.int, !torch.int, !torch.none, !torch.Device, !torch.bool -> !torch.vtensor<[?],si64>
  return %r : !torch.vtensor<[?],si64>
}
