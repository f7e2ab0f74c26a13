// RUN: symhlo-opt --symhlo-decompose-symbolic-torch-ops --split-input-file --verify-diagnostics %s | FileCheck %s

// Nearest upsampling that reaches the torch dialect: symhlo.frontend.decompositions already lowered
// `size=`, integer scales, the fractional scales whose products round exactly and static axes,
// so what is left with a fractional scale (0.7, on a `?` axis) is named as unsupported at its location, instead of failing
// later on an unlegalized torch.constant.float at an unknown location.

func.func @upsample_nearest2d_failure_fractional_scale(%arg0: !torch.vtensor<[?,3,?,9],f32>) -> !torch.vtensor<[?,3,?,11],f32> {
  %none = torch.constant.none
  %f = torch.constant.float 7.000000e-01
  %s = torch.prim.ListConstruct %f, %f : (!torch.float, !torch.float) -> !torch.list<float>
  // expected-error@+1 {{unsupported scale factor 0.7, 0.7 on a `?` axis}}
  %r = torch.aten.upsample_nearest2d.vec %arg0, %none, %s : !torch.vtensor<[?,3,?,9],f32>, !torch.none, !torch.list<float> -> !torch.vtensor<[?,3,?,11],f32>
  return %r : !torch.vtensor<[?,3,?,11],f32>
}

// -----

// Integer scales are left to torch-mlir, as before.
// CHECK-LABEL: func @upsample_nearest1d_integer_scale_unchanged
// CHECK:         torch.aten.upsample_nearest1d.vec %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[?,3,?],f32>
func.func @upsample_nearest1d_integer_scale_unchanged(%arg0: !torch.vtensor<[?,3,?],f32>) -> !torch.vtensor<[?,3,?],f32> {
  %none = torch.constant.none
  %f = torch.constant.float 2.000000e+00
  %s = torch.prim.ListConstruct %f : (!torch.float) -> !torch.list<float>
  %r = torch.aten.upsample_nearest1d.vec %arg0, %none, %s : !torch.vtensor<[?,3,?],f32>, !torch.none, !torch.list<float> -> !torch.vtensor<[?,3,?],f32>
  return %r : !torch.vtensor<[?,3,?],f32>
}

// -----

// An explicit output size (no scale factors) is not this pattern's concern.
// CHECK-LABEL: func @upsample_nearest2d_output_size_unchanged
// CHECK:         torch.aten.upsample_nearest2d.vec %arg0, %{{.*}}, %none
func.func @upsample_nearest2d_output_size_unchanged(%arg0: !torch.vtensor<[?,3,4,4],f32>) -> !torch.vtensor<[?,3,7,5],f32> {
  %none = torch.constant.none
  %int7 = torch.constant.int 7
  %int5 = torch.constant.int 5
  %o = torch.prim.ListConstruct %int7, %int5 : (!torch.int, !torch.int) -> !torch.list<int>
  %r = torch.aten.upsample_nearest2d.vec %arg0, %o, %none : !torch.vtensor<[?,3,4,4],f32>, !torch.list<int>, !torch.none -> !torch.vtensor<[?,3,7,5],f32>
  return %r : !torch.vtensor<[?,3,7,5],f32>
}
