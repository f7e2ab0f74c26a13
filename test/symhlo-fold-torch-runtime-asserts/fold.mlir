// RUN: symhlo-opt --symhlo-fold-torch-runtime-asserts --split-input-file %s | FileCheck %s

// torch.runtime.assert whose condition the size ranges prove true is erased; any other stays.

// var's correction check: float(n) + 1.0 >= 1.0 holds for every size n >= 0.
// CHECK-LABEL: func @proven_correction_check
// CHECK-NOT:     torch.runtime.assert
// CHECK-NOT:     torch.aten.ge.float
// CHECK:         return
func.func @proven_correction_check(%arg0: !torch.vtensor<[?,?],f64>) -> !torch.float {
  %int1 = torch.constant.int 1
  %float1 = torch.constant.float 1.000000e+00
  %n = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[?,?],f64>, !torch.int -> !torch.int
  %f = torch.aten.Float.Scalar %n : !torch.int -> !torch.float
  %a = torch.aten.add %f, %float1 : !torch.float, !torch.float -> !torch.float
  %c = torch.aten.ge.float %a, %float1 : !torch.float, !torch.float -> !torch.bool
  torch.runtime.assert %c, "correction value should be less than or equal to productDimSize + 1"
  %r = torch.aten.sub.float %f, %float1 : !torch.float, !torch.float -> !torch.float
  return %r : !torch.float
}

// -----

// n >= 2 is not implied by n >= 0: the assert stays (the lowering then names it).
// CHECK-LABEL: func @unproven_kept
// CHECK:         %[[C:.*]] = torch.aten.ge.int
// CHECK:         torch.runtime.assert %[[C]], "needs two"
func.func @unproven_kept(%arg0: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?],f32>, !torch.int -> !torch.int
  %c = torch.aten.ge.int %n, %int2 : !torch.int, !torch.int -> !torch.bool
  torch.runtime.assert %c, "needs two"
  return %arg0 : !torch.vtensor<[?],f32>
}
