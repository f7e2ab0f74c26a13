// RUN: symhlo-opt --symhlo-lower-torch-sort --split-input-file %s | FileCheck %s

// torch.aten.sort / topk -> stablehlo.sort over (x, iota) whose comparator is a strict total
// order: NaN is the largest value, equal keys keep the input order (index tie-break). Over `?`
// dims the iota is a dynamic_iota of the operand's sizes (torch-mlir's stablehlo.iota of a `?`
// type does not verify). The comparator never starts with a GT compare (IREE would read it as
// chlo.top_k and drop the NaN and tie rules).

// CHECK-LABEL: func @sort_descending
// CHECK:         %[[X:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,?],f32> -> tensor<?x?xf32>
// CHECK:         %[[D0:.*]] = stablehlo.get_dimension_size %[[X]], dim = 0
// CHECK:         %[[D1:.*]] = stablehlo.get_dimension_size %[[X]], dim = 1
// CHECK:         %[[S:.*]] = stablehlo.concatenate
// CHECK:         %[[IOTA:.*]] = stablehlo.dynamic_iota %[[S]], dim = 1 : (tensor<2xi64>) -> tensor<?x?xi64>
// CHECK:         %[[R:.*]]:2 = "stablehlo.sort"(%[[X]], %[[IOTA]]) <{dimension = 1 : i64, is_stable = true}>
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>, %[[IA:.*]]: tensor<i64>, %[[IB:.*]]: tensor<i64>):
// CHECK-NEXT:      %[[ANAN:.*]] = stablehlo.compare NE, %[[A]], %[[A]], FLOAT
// CHECK-NEXT:      %[[BNAN:.*]] = stablehlo.compare NE, %[[B]], %[[B]], FLOAT
// CHECK-NEXT:      %[[EQ:.*]] = stablehlo.compare EQ, %[[A]], %[[B]], FLOAT
// CHECK-NEXT:      %[[BOTH:.*]] = stablehlo.and %[[ANAN]], %[[BNAN]]
// CHECK-NEXT:      %[[TIE:.*]] = stablehlo.or %[[EQ]], %[[BOTH]]
// CHECK-NEXT:      %[[GT:.*]] = stablehlo.compare GT, %[[A]], %[[B]], FLOAT
// CHECK-NEXT:      %[[NOTB:.*]] = stablehlo.not %[[BNAN]]
// CHECK-NEXT:      %[[NANFIRST:.*]] = stablehlo.and %[[ANAN]], %[[NOTB]]
// CHECK-NEXT:      %[[BEFORE:.*]] = stablehlo.or %[[GT]], %[[NANFIRST]]
// CHECK-NEXT:      %[[EARLIER:.*]] = stablehlo.compare LT, %[[IA]], %[[IB]], SIGNED
// CHECK-NEXT:      %[[TIEB:.*]] = stablehlo.and %[[TIE]], %[[EARLIER]]
// CHECK-NEXT:      %[[RES:.*]] = stablehlo.or %[[BEFORE]], %[[TIEB]]
// CHECK-NEXT:      stablehlo.return %[[RES]]
// CHECK:         torch_c.from_builtin_tensor %[[R]]#0 : tensor<?x?xf32> -> !torch.vtensor<[?,?],f32>
// CHECK:         torch_c.from_builtin_tensor %[[R]]#1 : tensor<?x?xi64> -> !torch.vtensor<[?,?],si64>
// CHECK-NOT:     torch.aten.sort
func.func @sort_descending(%arg0: !torch.vtensor<[?,?],f32>) -> (!torch.vtensor<[?,?],f32>, !torch.vtensor<[?,?],si64>) {
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %v, %i = torch.aten.sort %arg0, %int-1, %true : !torch.vtensor<[?,?],f32>, !torch.int, !torch.bool -> !torch.vtensor<[?,?],f32>, !torch.vtensor<[?,?],si64>
  return %v, %i : !torch.vtensor<[?,?],f32>, !torch.vtensor<[?,?],si64>
}

// -----

// Ascending, static: a plain iota; NaN last, i.e. `b` NaN and `a` not puts `a` first.
// CHECK-LABEL: func @sort_ascending_static
// CHECK:         %[[IOTA:.*]] = stablehlo.iota dim = 0 : tensor<4x6xi64>
// CHECK:         "stablehlo.sort"(%{{.*}}, %[[IOTA]]) <{dimension = 0 : i64, is_stable = true}>
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>):
// CHECK-NEXT:      %[[ANAN:.*]] = stablehlo.compare NE, %[[A]], %[[A]], FLOAT
// CHECK-NEXT:      %[[BNAN:.*]] = stablehlo.compare NE, %[[B]], %[[B]], FLOAT
// CHECK:           %[[LT:.*]] = stablehlo.compare LT, %[[A]], %[[B]], FLOAT
// CHECK-NEXT:      %[[NOTA:.*]] = stablehlo.not %[[ANAN]]
// CHECK-NEXT:      stablehlo.and %[[BNAN]], %[[NOTA]]
func.func @sort_ascending_static(%arg0: !torch.vtensor<[4,6],f32>) -> (!torch.vtensor<[4,6],f32>, !torch.vtensor<[4,6],si64>) {
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %v, %i = torch.aten.sort %arg0, %int0, %false : !torch.vtensor<[4,6],f32>, !torch.int, !torch.bool -> !torch.vtensor<[4,6],f32>, !torch.vtensor<[4,6],si64>
  return %v, %i : !torch.vtensor<[4,6],f32>, !torch.vtensor<[4,6],si64>
}

// -----

// Integers: signed compares, the tie (EQ) first.
// CHECK-LABEL: func @sort_int
// CHECK:         ^bb0(%[[A:.*]]: tensor<i32>, %[[B:.*]]: tensor<i32>, %[[IA:.*]]: tensor<i64>, %[[IB:.*]]: tensor<i64>):
// CHECK-NEXT:      %[[EQ:.*]] = stablehlo.compare EQ, %[[A]], %[[B]], SIGNED
// CHECK-NEXT:      %[[LT:.*]] = stablehlo.compare LT, %[[A]], %[[B]], SIGNED
// CHECK-NEXT:      %[[EARLIER:.*]] = stablehlo.compare LT, %[[IA]], %[[IB]], SIGNED
// CHECK-NEXT:      %[[T:.*]] = stablehlo.and %[[EQ]], %[[EARLIER]]
// CHECK-NEXT:      stablehlo.or %[[LT]], %[[T]]
func.func @sort_int(%arg0: !torch.vtensor<[?],si32>) -> (!torch.vtensor<[?],si32>, !torch.vtensor<[?],si64>) {
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %v, %i = torch.aten.sort %arg0, %int0, %false : !torch.vtensor<[?],si32>, !torch.int, !torch.bool -> !torch.vtensor<[?],si32>, !torch.vtensor<[?],si64>
  return %v, %i : !torch.vtensor<[?],si32>, !torch.vtensor<[?],si64>
}

// -----

// topk: the descending sort, then the first k along dim (a real_dynamic_slice: the batch is `?`).
// CHECK-LABEL: func @topk_dynamic
// CHECK:         %[[R:.*]]:2 = "stablehlo.sort"
// CHECK:         stablehlo.compare GT
// CHECK:         %[[K:.*]] = stablehlo.constant dense<3> : tensor<1xi64>
// CHECK:         %[[V:.*]] = stablehlo.real_dynamic_slice %[[R]]#0, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x3xf32>
// CHECK:         %[[I:.*]] = stablehlo.real_dynamic_slice %[[R]]#1, {{.*}} -> tensor<?x3xi64>
// CHECK:         torch_c.from_builtin_tensor %[[V]]
// CHECK:         torch_c.from_builtin_tensor %[[I]]
// CHECK-NOT:     torch.aten.topk
func.func @topk_dynamic(%arg0: !torch.vtensor<[?,?],f32>) -> (!torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],si64>) {
  %int3 = torch.constant.int 3
  %int1 = torch.constant.int 1
  %true = torch.constant.bool true
  %v, %i = torch.aten.topk %arg0, %int3, %int1, %true, %true : !torch.vtensor<[?,?],f32>, !torch.int, !torch.int, !torch.bool, !torch.bool -> !torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],si64>
  return %v, %i : !torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],si64>
}

// -----

// topk(largest=False) over a static operand: ascending sort and a static slice.
// CHECK-LABEL: func @topk_smallest_static
// CHECK:         "stablehlo.sort"
// CHECK:         stablehlo.compare LT, %{{.*}}, %{{.*}}, FLOAT
// CHECK:         stablehlo.slice %{{.*}} [0:2, 0:5] : (tensor<6x5xf32>) -> tensor<2x5xf32>
// CHECK:         stablehlo.slice %{{.*}} [0:2, 0:5] : (tensor<6x5xi64>) -> tensor<2x5xi64>
func.func @topk_smallest_static(%arg0: !torch.vtensor<[6,5],f32>) -> (!torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],si64>) {
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %v, %i = torch.aten.topk %arg0, %int2, %int0, %false, %true : !torch.vtensor<[6,5],f32>, !torch.int, !torch.int, !torch.bool, !torch.bool -> !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],si64>
  return %v, %i : !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],si64>
}

// -----

// A 0-d sort is the value at index 0.
// CHECK-LABEL: func @sort_0d
// CHECK-NOT:     stablehlo.sort
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK:         torch_c.from_builtin_tensor %[[Z]]
func.func @sort_0d(%arg0: !torch.vtensor<[],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],si64>) {
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %v, %i = torch.aten.sort %arg0, %int0, %false : !torch.vtensor<[],f32>, !torch.int, !torch.bool -> !torch.vtensor<[],f32>, !torch.vtensor<[],si64>
  return %v, %i : !torch.vtensor<[],f32>, !torch.vtensor<[],si64>
}
