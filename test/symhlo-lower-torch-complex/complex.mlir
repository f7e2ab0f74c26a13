// RUN: symhlo-opt --symhlo-lower-torch-complex --split-input-file %s | FileCheck %s

// torch.aten.complex / view_as_real / view_as_complex -> stablehlo.complex / real / imag,
// `?` dims kept.

// CHECK-LABEL: func @complex_of_parts
// CHECK:         %[[A:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
// CHECK:         %[[B:.*]] = torch_c.to_builtin_tensor %arg1 : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
// CHECK:         %[[C:.*]] = stablehlo.complex %[[A]], %[[B]] : tensor<?x4xcomplex<f32>>
// CHECK:         %[[Z:.*]] = torch_c.from_builtin_tensor %[[C]] : tensor<?x4xcomplex<f32>> -> !torch.vtensor<[?,4],complex<f32>>
// CHECK-NOT:     torch.aten.complex
// CHECK:         return %[[Z]]
func.func @complex_of_parts(%re: !torch.vtensor<[?,4],f32>, %im: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],complex<f32>> {
  %0 = torch.aten.complex %re, %im : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],complex<f32>>
  return %0 : !torch.vtensor<[?,4],complex<f32>>
}

// -----

// A view_as_real user of torch backend IR's `r[..., 1]` (slice + squeeze) takes stablehlo.imag.

// CHECK-LABEL: func @imag_part
// CHECK:         %[[B:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?],complex<f32>> -> tensor<?xcomplex<f32>>
// CHECK:         %[[I:.*]] = stablehlo.imag %[[B]] : (tensor<?xcomplex<f32>>) -> tensor<?xf32>
// CHECK:         %[[Y:.*]] = torch_c.from_builtin_tensor %[[I]] : tensor<?xf32> -> !torch.vtensor<[?],f32>
// CHECK-NOT:     torch.aten.view_as_real
// CHECK-NOT:     torch.aten.slice.Tensor
// CHECK:         return %[[Y]]
func.func @imag_part(%z: !torch.vtensor<[?],complex<f32>>) -> !torch.vtensor<[?],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %0 = torch.aten.view_as_real %z : !torch.vtensor<[?],complex<f32>> -> !torch.vtensor<[?,2],f32>
  %1 = torch.aten.slice.Tensor %0, %int1, %int1, %int2, %int1 : !torch.vtensor<[?,2],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,1],f32>
  %2 = torch.aten.squeeze.dim %1, %int1 : !torch.vtensor<[?,1],f32>, !torch.int -> !torch.vtensor<[?],f32>
  return %2 : !torch.vtensor<[?],f32>
}

// -----

// view_as_real of aten.complex folds to the parts; the pair is gone.

// CHECK-LABEL: func @real_of_complex_folds
// CHECK-NOT:     stablehlo.complex
// CHECK-NOT:     stablehlo.real
// CHECK:         %[[U0:.*]] = torch.aten.unsqueeze %arg0
// CHECK:         %[[U1:.*]] = torch.aten.unsqueeze %arg1
// CHECK:         %[[L:.*]] = torch.prim.ListConstruct %[[U0]], %[[U1]]
// CHECK:         %[[R:.*]] = torch.aten.cat %[[L]], %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[?,3,2],f32>
// CHECK:         return %[[R]]
func.func @real_of_complex_folds(%re: !torch.vtensor<[?,3],f32>, %im: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3,2],f32> {
  %0 = torch.aten.complex %re, %im : !torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],f32> -> !torch.vtensor<[?,3],complex<f32>>
  %1 = torch.aten.view_as_real %0 : !torch.vtensor<[?,3],complex<f32>> -> !torch.vtensor<[?,3,2],f32>
  return %1 : !torch.vtensor<[?,3,2],f32>
}

// -----

// CHECK-LABEL: func @view_as_complex
// CHECK:         %[[S0:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}} -> !torch.vtensor<[?,5,1],f32>
// CHECK:         %[[RE:.*]] = torch.aten.squeeze.dim %[[S0]]
// CHECK:         %[[S1:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}} -> !torch.vtensor<[?,5,1],f32>
// CHECK:         %[[IM:.*]] = torch.aten.squeeze.dim %[[S1]]
// CHECK:         stablehlo.complex %{{.*}}, %{{.*}} : tensor<?x5xcomplex<f32>>
// CHECK-NOT:     torch.aten.view_as_complex
func.func @view_as_complex(%x: !torch.vtensor<[?,5,2],f32>) -> !torch.vtensor<[?,5],complex<f32>> {
  %0 = torch.aten.view_as_complex %x : !torch.vtensor<[?,5,2],f32> -> !torch.vtensor<[?,5],complex<f32>>
  return %0 : !torch.vtensor<[?,5],complex<f32>>
}

// -----

// Real element types are not this pass's: aten.complex of f32 parts into complex<f64> is left.

// CHECK-LABEL: func @mismatched_parts_left
// CHECK:         torch.aten.complex
func.func @mismatched_parts_left(%re: !torch.vtensor<[?],f32>, %im: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],complex<f64>> {
  %0 = torch.aten.complex %re, %im : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32> -> !torch.vtensor<[?],complex<f64>>
  return %0 : !torch.vtensor<[?],complex<f64>>
}

// -----

// Parts whose static sizes differ only where one is `?` are compatible: stablehlo.complex takes them.

// CHECK-LABEL: func @compatible_parts
// CHECK:         stablehlo.complex %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xcomplex<f32>>
// CHECK-NOT:     torch.aten.complex
func.func @compatible_parts(%re: !torch.vtensor<[?,4],f32>, %im: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],complex<f32>> {
  %0 = torch.aten.complex %re, %im : !torch.vtensor<[?,4],f32>, !torch.vtensor<[3,4],f32> -> !torch.vtensor<[3,4],complex<f32>>
  return %0 : !torch.vtensor<[3,4],complex<f32>>
}
