// RUN: symhlo-opt --symhlo-lower-torch-scatter-reduce --split-input-file --verify-diagnostics %s | FileCheck %s

// torch.aten.scatter_reduce.two (include_self) -> stablehlo.scatter whose region is the reducer.
// Each update's coordinate is `index` along dim and an iota along the other axes; src is cut to
// index's shape; coordinates are i32 (clamped first, so an out-of-range index stays so).

// CHECK-LABEL: func @scatter_amax
// CHECK:         %[[SELF:.*]] = torch_c.to_builtin_tensor %arg0
// CHECK:         %[[IDX:.*]] = torch_c.to_builtin_tensor %arg1
// CHECK:         %[[SRC:.*]] = torch_c.to_builtin_tensor %arg2
// CHECK:         %[[UPD:.*]] = stablehlo.real_dynamic_slice %[[SRC]], {{.*}} -> tensor<?x?xf32>
// CHECK:         %[[COL0:.*]] = stablehlo.dynamic_reshape %[[IDX]], %{{.*}} -> tensor<?x?x1xi64>
// CHECK:         %[[COL1:.*]] = stablehlo.dynamic_iota %{{.*}}, dim = 1 : (tensor<3xi64>) -> tensor<?x?x1xi64>
// CHECK:         %[[K:.*]] = stablehlo.concatenate %[[COL0]], %[[COL1]], dim = 2
// CHECK:         %[[KC:.*]] = stablehlo.clamp %{{.*}}, %[[K]], %{{.*}}
// CHECK:         %[[K32:.*]] = stablehlo.convert %[[KC]] : (tensor<?x?x2xi64>) -> tensor<?x?x2xi32>
// CHECK:         %[[R:.*]] = "stablehlo.scatter"(%[[SELF]], %[[K32]], %[[UPD]]) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}>
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[M:.*]] = stablehlo.maximum %[[A]], %[[B]] : tensor<f32>
// CHECK-NEXT:      stablehlo.return %[[M]]
// CHECK:         torch_c.from_builtin_tensor %[[R]]
// CHECK-NOT:     torch.aten.scatter_reduce
func.func @scatter_amax(%arg0: !torch.vtensor<[?,?],f32>, %arg1: !torch.vtensor<[?,?],si64>, %arg2: !torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32> {
  %int0 = torch.constant.int 0
  %str = torch.constant.str "amax"
  %true = torch.constant.bool true
  %r = torch.aten.scatter_reduce.two %arg0, %int0, %arg1, %arg2, %str, %true : !torch.vtensor<[?,?],f32>, !torch.int, !torch.vtensor<[?,?],si64>, !torch.vtensor<[?,?],f32>, !torch.str, !torch.bool -> !torch.vtensor<[?,?],f32>
  return %r : !torch.vtensor<[?,?],f32>
}

// -----

// prod along dim 1: the iota column comes first, the index column second.
// CHECK-LABEL: func @scatter_prod_dim1
// CHECK:         %[[COL0:.*]] = stablehlo.dynamic_iota %{{.*}}, dim = 0 : (tensor<3xi64>) -> tensor<?x?x1xi64>
// CHECK:         %[[COL1:.*]] = stablehlo.dynamic_reshape
// CHECK:         stablehlo.concatenate %[[COL0]], %[[COL1]], dim = 2
// CHECK:         "stablehlo.scatter"
// CHECK:           stablehlo.multiply
func.func @scatter_prod_dim1(%arg0: !torch.vtensor<[?,?],f32>, %arg1: !torch.vtensor<[?,?],si64>, %arg2: !torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32> {
  %int1 = torch.constant.int 1
  %str = torch.constant.str "prod"
  %true = torch.constant.bool true
  %r = torch.aten.scatter_reduce.two %arg0, %int1, %arg1, %arg2, %str, %true : !torch.vtensor<[?,?],f32>, !torch.int, !torch.vtensor<[?,?],si64>, !torch.vtensor<[?,?],f32>, !torch.str, !torch.bool -> !torch.vtensor<[?,?],f32>
  return %r : !torch.vtensor<[?,?],f32>
}

// -----

// include_self=False is rewritten before import (symhlo.frontend.decompositions.select); here it is
// an error.
func.func @scatter_without_self(%arg0: !torch.vtensor<[?],f32>, %arg1: !torch.vtensor<[?],si64>, %arg2: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %int0 = torch.constant.int 0
  %str = torch.constant.str "sum"
  %false = torch.constant.bool false
  // expected-error@+1 {{unsupported scatter_reduce form}}
  %r = torch.aten.scatter_reduce.two %arg0, %int0, %arg1, %arg2, %str, %false : !torch.vtensor<[?],f32>, !torch.int, !torch.vtensor<[?],si64>, !torch.vtensor<[?],f32>, !torch.str, !torch.bool -> !torch.vtensor<[?],f32>
  return %r : !torch.vtensor<[?],f32>
}
