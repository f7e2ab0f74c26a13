// RUN: symhlo-opt --symhlo-lower-torch-bitcasts --split-input-file %s | FileCheck %s

// torch.aten.view.dtype between dtypes of one width -> stablehlo.bitcast_convert, `?` dims kept.

// CHECK-LABEL: func @f32_to_si32
// CHECK:         %[[B:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[C:.*]] = stablehlo.bitcast_convert %[[B]] : (tensor<?x3xf32>) -> tensor<?x3xi32>
// CHECK:         %[[Y:.*]] = torch_c.from_builtin_tensor %[[C]] : tensor<?x3xi32> -> !torch.vtensor<[?,3],si32>
// CHECK-NOT:     torch.aten.view.dtype
// CHECK:         return %[[Y]]
func.func @f32_to_si32(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],si32> {
  %int3 = torch.constant.int 3
  %0 = torch.aten.view.dtype %arg0, %int3 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.vtensor<[?,3],si32>
  return %0 : !torch.vtensor<[?,3],si32>
}

// -----

// CHECK-LABEL: func @si32_to_f32
// CHECK:         stablehlo.bitcast_convert %{{.*}} : (tensor<?xi32>) -> tensor<?xf32>
func.func @si32_to_f32(%arg0: !torch.vtensor<[?],si32>) -> !torch.vtensor<[?],f32> {
  %int6 = torch.constant.int 6
  %0 = torch.aten.view.dtype %arg0, %int6 : !torch.vtensor<[?],si32>, !torch.int -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}

// -----

// A view to a narrower dtype changes the last dim: not a bitcast, left for the lowering to name.
// CHECK-LABEL: func @different_width_kept
// CHECK:         torch.aten.view.dtype
// CHECK-NOT:     stablehlo.bitcast_convert
func.func @different_width_kept(%arg0: !torch.vtensor<[?,2],f32>) -> !torch.vtensor<[?,8],si8> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.view.dtype %arg0, %int1 : !torch.vtensor<[?,2],f32>, !torch.int -> !torch.vtensor<[?,8],si8>
  return %0 : !torch.vtensor<[?,8],si8>
}
