// RUN: symhlo-opt --symhlo-float-compare-scalars --split-input-file %s | FileCheck %s

// A float tensor compared with a constant int: the scalar becomes the same constant as a float.
// CHECK-LABEL: func @float_tensor_int_scalar
// CHECK:         %[[F:.*]] = torch.constant.float 0.000000e+00
// CHECK:         torch.aten.gt.Scalar %arg0, %[[F]] : !torch.vtensor<[],f32>, !torch.float -> !torch.vtensor<[],i1>
// CHECK:         %[[G:.*]] = torch.constant.float 2.000000e+00
// CHECK:         torch.aten.eq.Scalar %arg1, %[[G]] : !torch.vtensor<[?],f16>, !torch.float -> !torch.vtensor<[?],i1>
func.func @float_tensor_int_scalar(%arg0: !torch.vtensor<[],f32>, %arg1: !torch.vtensor<[?],f16>) -> (!torch.vtensor<[],i1>, !torch.vtensor<[?],i1>) {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %0 = torch.aten.gt.Scalar %arg0, %int0 : !torch.vtensor<[],f32>, !torch.int -> !torch.vtensor<[],i1>
  %1 = torch.aten.eq.Scalar %arg1, %int2 : !torch.vtensor<[?],f16>, !torch.int -> !torch.vtensor<[?],i1>
  return %0, %1 : !torch.vtensor<[],i1>, !torch.vtensor<[?],i1>
}

// -----

// Integer tensors, and scalars that are not constants, are left alone.
// CHECK-LABEL: func @left_alone
// CHECK:         torch.aten.gt.Scalar %arg0, %{{.*}} : !torch.vtensor<[?],si64>, !torch.int
// CHECK:         torch.aten.lt.Scalar %arg1, %arg2 : !torch.vtensor<[?],f32>, !torch.int
func.func @left_alone(%arg0: !torch.vtensor<[?],si64>, %arg1: !torch.vtensor<[?],f32>, %arg2: !torch.int) -> (!torch.vtensor<[?],i1>, !torch.vtensor<[?],i1>) {
  %int0 = torch.constant.int 0
  %0 = torch.aten.gt.Scalar %arg0, %int0 : !torch.vtensor<[?],si64>, !torch.int -> !torch.vtensor<[?],i1>
  %1 = torch.aten.lt.Scalar %arg1, %arg2 : !torch.vtensor<[?],f32>, !torch.int -> !torch.vtensor<[?],i1>
  return %0, %1 : !torch.vtensor<[?],i1>, !torch.vtensor<[?],i1>
}
