// RUN: symhlo-opt --symhlo-torch-to-stablehlo-pipeline --split-input-file --verify-diagnostics %s | FileCheck %s

// The whole lowering on torch dialect as symhlo's importer leaves it (symbolic_int and
// bind_symbolic_shape included). The seed, `emb.expand(x.shape[0] * 2, -1, -1)`: the size is
// get_dimension_size -> multiply -> dynamic_broadcast_in_dim, and nothing outside stablehlo/func.

// CHECK-LABEL: func @main
// CHECK-SAME:    (%arg0: tensor<?x3x224x224xf32>) -> tensor<?x1x768xf32>
// CHECK-SAME:    symhlo.symbols = {s77 = [2, 64]}
// CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3x224x224xf32>) -> tensor<i32>
// CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
// CHECK:         %[[N:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[N]], %{{.*}} : tensor<i64>
// CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
// CHECK:         %[[R:.*]] = stablehlo.reshape %[[M]] : (tensor<i64>) -> tensor<1xi64>
// CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
// CHECK:         %[[S:.*]] = stablehlo.concatenate %[[R]], %{{.*}}, dim = 0 : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
// CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
// CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %{{.*}}, %[[S]], dims = [0, 1, 2] : (tensor<1x1x768xf32>, tensor<3xi64>) -> tensor<?x1x768xf32>
// CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
// CHECK:         return %[[B]] : tensor<?x1x768xf32>
func.func @main(%arg0: !torch.vtensor<[?,3,224,224],f32>) -> !torch.vtensor<[?,1,768],f32> {
  %0 = torch.symbolic_int "s77" {min_val = 2, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %arg0, [%0], affine_map<()[s0] -> (s0, 3, 224, 224)> : !torch.vtensor<[?,3,224,224],f32>
  %int0 = torch.constant.int 0
  %1 = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3,224,224],f32>, !torch.int -> !torch.int
  %int2 = torch.constant.int 2
  %2 = torch.aten.mul.int %1, %int2 : !torch.int, !torch.int -> !torch.int
  %3 = torch.vtensor.literal(dense<1.0> : tensor<1x1x768xf32>) : !torch.vtensor<[1,1,768],f32>
  %int-1 = torch.constant.int -1
  %4 = torch.prim.ListConstruct %2, %int-1, %int-1 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %5 = torch.aten.expand %3, %4, %false : !torch.vtensor<[1,1,768],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[?,1,768],f32>
  torch.bind_symbolic_shape %5, [%0], affine_map<()[s0] -> (s0 * 2, 1, 768)> : !torch.vtensor<[?,1,768],f32>
  return %5 : !torch.vtensor<[?,1,768],f32>
}

// -----

// Two inputs sharing `s0`: torch-mlir's broadcast guard (shape.assuming) is gone, the identity
// broadcasts are dropped, and `view(x + y, [s0 * 4])` reshapes to the computed size.
// CHECK-LABEL: func @main
// CHECK-SAME:    symhlo.arg_shapes = {{\[}}["s0", "4"], ["s0", "4"]]
// CHECK-SAME:    symhlo.result_shapes = {{\[}}["s0 * 4"]]
// CHECK-NOT:     stablehlo.dynamic_broadcast_in_dim
// CHECK-DAG:     %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK-DAG:     %[[N:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK-DAG:     %[[SUM:.*]] = stablehlo.add %arg0, %arg1 : tensor<?x4xf32>
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[N]], %{{.*}} : tensor<i64>
// CHECK:         %[[S:.*]] = stablehlo.reshape %[[M]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         %[[V:.*]] = stablehlo.dynamic_reshape %[[SUM]], %[[S]] : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK:         return %[[V]] : tensor<?xf32>
func.func @main(%arg0: !torch.vtensor<[?,4],f32>, %arg1: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?],f32> {
  %0 = torch.symbolic_int "s0" {min_val = 2, max_val = 9223372036854775807} : !torch.int
  torch.bind_symbolic_shape %arg0, [%0], affine_map<()[s0] -> (s0, 4)> : !torch.vtensor<[?,4],f32>
  torch.bind_symbolic_shape %arg1, [%0], affine_map<()[s0] -> (s0, 4)> : !torch.vtensor<[?,4],f32>
  %int1 = torch.constant.int 1
  %1 = torch.aten.add.Tensor %arg0, %arg1, %int1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>, !torch.int -> !torch.vtensor<[?,4],f32>
  %int0 = torch.constant.int 0
  %2 = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
  %int4 = torch.constant.int 4
  %3 = torch.aten.mul.int %2, %int4 : !torch.int, !torch.int -> !torch.int
  %4 = torch.prim.ListConstruct %3 : (!torch.int) -> !torch.list<int>
  %5 = torch.aten.view %1, %4 : !torch.vtensor<[?,4],f32>, !torch.list<int> -> !torch.vtensor<[?],f32>
  torch.bind_symbolic_shape %5, [%0], affine_map<()[s0] -> (s0 * 4)> : !torch.vtensor<[?],f32>
  return %5 : !torch.vtensor<[?],f32>
}
