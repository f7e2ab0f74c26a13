// RUN: symhlo-opt --symhlo-lower-data-dependent-slices --split-input-file --verify-diagnostics %s | FileCheck %s

// A slice whose end is read from a tensor (`n = k.item(); x[:n]`) -> a real_dynamic_slice with
// torch's clamping computed from that value: negative counts from the end, clamped to [0, size],
// end >= start. No `end == 0 ? size : end` (torch-mlir's lowering, which made x[:0] the whole axis).

// CHECK-LABEL: func @prefix_of_data_length
// CHECK:         %[[X:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
// CHECK:         %[[NT:.*]] = torch.prim.NumToTensor.Scalar %[[N:.*]] : !torch.int -> !torch.vtensor<[],si64>
// CHECK:         %[[E:.*]] = torch_c.to_builtin_tensor %[[NT]] : !torch.vtensor<[],si64> -> tensor<i64>
// CHECK:         stablehlo.compare LT, %[[E]]
// CHECK:         stablehlo.select
// CHECK:         stablehlo.maximum
// CHECK:         stablehlo.minimum
// CHECK:         %[[S:.*]] = stablehlo.real_dynamic_slice %[[X]], {{.*}} : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4xf32>
// CHECK-NOT:     stablehlo.compare EQ
// CHECK:         torch_c.from_builtin_tensor %[[S]] : tensor<?x4xf32> -> !torch.vtensor<[?,4],f32>
// CHECK-NOT:     torch.aten.slice.Tensor
func.func @prefix_of_data_length(%arg0: !torch.vtensor<[?,4],f32>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[?,4],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %n = torch.aten.Int.Tensor %arg1 : !torch.vtensor<[],si64> -> !torch.int
  %0 = torch.aten.slice.Tensor %arg0, %int0, %int0, %n, %int1 : !torch.vtensor<[?,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}

// -----

// The start from data, through int arithmetic (x[n - 1:]); the end (None) is the axis' size.
// CHECK-LABEL: func @suffix_from_data_arithmetic
// CHECK:         torch.prim.NumToTensor.Scalar
// CHECK:         stablehlo.real_dynamic_slice {{.*}} -> tensor<?xf32>
// CHECK-NOT:     torch.aten.slice.Tensor
func.func @suffix_from_data_arithmetic(%arg0: !torch.vtensor<[?],f32>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[?],f32> {
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %n = torch.aten.Int.Tensor %arg1 : !torch.vtensor<[],si64> -> !torch.int
  %m = torch.aten.sub.int %n, %int1 : !torch.int, !torch.int -> !torch.int
  %0 = torch.aten.slice.Tensor %arg0, %int0, %m, %none, %int1 : !torch.vtensor<[?],f32>, !torch.int, !torch.int, !torch.none, !torch.int -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}

// -----

// A slice by sizes (x[:y.shape[0]]) is torch-mlir's: left alone.
// CHECK-LABEL: func @slice_by_size_is_left_alone
// CHECK:         torch.aten.slice.Tensor
// CHECK-NOT:     stablehlo.real_dynamic_slice
func.func @slice_by_size_is_left_alone(%arg0: !torch.vtensor<[?],f32>, %arg1: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %n = torch.aten.size.int %arg1, %int0 : !torch.vtensor<[?],f32>, !torch.int -> !torch.int
  %0 = torch.aten.slice.Tensor %arg0, %int0, %int0, %n, %int1 : !torch.vtensor<[?],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}

// -----

func.func @strided_data_slice_failure(%arg0: !torch.vtensor<[?],f32>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[?],f32> {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %n = torch.aten.Int.Tensor %arg1 : !torch.vtensor<[],si64> -> !torch.int
  // expected-error @+1 {{step 2}}
  %0 = torch.aten.slice.Tensor %arg0, %int0, %int0, %n, %int2 : !torch.vtensor<[?],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}
