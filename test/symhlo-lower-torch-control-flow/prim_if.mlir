// RUN: symhlo-opt --symhlo-lower-torch-control-flow --split-input-file %s | FileCheck %s

// torch.prim.If -> stablehlo.if: the regions move over unchanged, `?` dims kept, the branch
// results cross as builtin tensors.

// A 0-d bool tensor (`x.sum() > 0`) is the predicate itself.
// CHECK-LABEL: func @if_on_data
// CHECK-NOT:     torch.aten.Bool.Tensor
// CHECK:         %[[P:.*]] = torch_c.to_builtin_tensor %arg1 : !torch.vtensor<[],i1> -> tensor<i1>
// CHECK:         %[[IF:.*]] = "stablehlo.if"(%[[P]]) ({
// CHECK:           %[[S:.*]] = torch.aten.sin %arg0 : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
// CHECK:           %[[SB:.*]] = torch_c.to_builtin_tensor %[[S]] : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
// CHECK:           stablehlo.return %[[SB]] : tensor<?x4xf32>
// CHECK:         }, {
// CHECK:           torch.aten.cos %arg0
// CHECK:           stablehlo.return %{{.*}} : tensor<?x4xf32>
// CHECK:         }) : (tensor<i1>) -> tensor<?x4xf32>
// CHECK:         %[[R:.*]] = torch_c.from_builtin_tensor %[[IF]] : tensor<?x4xf32> -> !torch.vtensor<[?,4],f32>
// CHECK-NOT:     torch.prim.If
// CHECK:         return %[[R]]
func.func @if_on_data(%arg0: !torch.vtensor<[?,4],f32>, %arg1: !torch.vtensor<[],i1>) -> !torch.vtensor<[?,4],f32> {
  %0 = torch.aten.Bool.Tensor %arg1 : !torch.vtensor<[],i1> -> !torch.bool
  %1 = torch.prim.If %0 -> (!torch.vtensor<[?,4],f32>) {
    %2 = torch.aten.sin %arg0 : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
    torch.prim.If.yield %2 : !torch.vtensor<[?,4],f32>
  } else {
    %2 = torch.aten.cos %arg0 : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
    torch.prim.If.yield %2 : !torch.vtensor<[?,4],f32>
  }
  return %1 : !torch.vtensor<[?,4],f32>
}

// -----

// A size comparison (`x.shape[0] > 8`, by now an arith.cmpi) becomes a 0-d tensor<i1> that
// symhlo-shape-to-stablehlo folds into the compare; two results of different `?` shapes.
// CHECK-LABEL: func @if_on_size_two_results
// CHECK:         %[[B:.*]] = torch_c.to_i1 %{{.*}}
// CHECK:         %[[P:.*]] = tensor.from_elements %[[B]] : tensor<i1>
// CHECK:         %[[IF:.*]]:2 = "stablehlo.if"(%[[P]])
// CHECK:         }) : (tensor<i1>) -> (tensor<?x4xf32>, tensor<?xf32>)
// CHECK:         torch_c.from_builtin_tensor %[[IF]]#0 : tensor<?x4xf32> -> !torch.vtensor<[?,4],f32>
// CHECK:         torch_c.from_builtin_tensor %[[IF]]#1 : tensor<?xf32> -> !torch.vtensor<[?],f32>
func.func @if_on_size_two_results(%arg0: !torch.vtensor<[?,4],f32>, %arg1: !torch.vtensor<[?],f32>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?],f32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %t = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,4],f32> -> tensor<?x4xf32>
  %d = tensor.dim %t, %c0 : tensor<?x4xf32>
  %cmp = arith.cmpi sgt, %d, %c8 : index
  %b = torch_c.from_i1 %cmp
  %0:2 = torch.prim.If %b -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?],f32>) {
    torch.prim.If.yield %arg0, %arg1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?],f32>
  } else {
    %1 = torch.aten.neg %arg0 : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
    torch.prim.If.yield %1, %arg1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?],f32>
  }
  return %0#0, %0#1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?],f32>
}

// -----

// Nested: the inner If moves with its parent's region and is converted where it lands.
// CHECK-LABEL: func @if_nested
// CHECK:         "stablehlo.if"
// CHECK:           "stablehlo.if"
// CHECK-NOT:     torch.prim.If
func.func @if_nested(%arg0: !torch.vtensor<[?],f32>, %arg1: !torch.vtensor<[],i1>, %arg2: !torch.vtensor<[],i1>) -> !torch.vtensor<[?],f32> {
  %0 = torch.aten.Bool.Tensor %arg1 : !torch.vtensor<[],i1> -> !torch.bool
  %1 = torch.prim.If %0 -> (!torch.vtensor<[?],f32>) {
    %2 = torch.aten.Bool.Tensor %arg2 : !torch.vtensor<[],i1> -> !torch.bool
    %3 = torch.prim.If %2 -> (!torch.vtensor<[?],f32>) {
      torch.prim.If.yield %arg0 : !torch.vtensor<[?],f32>
    } else {
      %4 = torch.aten.neg %arg0 : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
      torch.prim.If.yield %4 : !torch.vtensor<[?],f32>
    }
    torch.prim.If.yield %3 : !torch.vtensor<[?],f32>
  } else {
    torch.prim.If.yield %arg0 : !torch.vtensor<[?],f32>
  }
  return %1 : !torch.vtensor<[?],f32>
}

// -----

// A one-element bool tensor of shape [1] is reshaped to the 0-d predicate; the bool it was read
// through is erased.
// CHECK-LABEL: func @if_on_one_element
// CHECK-NOT:     torch.aten.Bool.Tensor
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg1 : !torch.vtensor<[1],i1> -> tensor<1xi1>
// CHECK:         %[[P:.*]] = stablehlo.reshape %[[T]] : (tensor<1xi1>) -> tensor<i1>
// CHECK:         "stablehlo.if"(%[[P]])
func.func @if_on_one_element(%arg0: !torch.vtensor<[?],f32>, %arg1: !torch.vtensor<[1],i1>) -> !torch.vtensor<[?],f32> {
  %0 = torch.aten.Bool.Tensor %arg1 : !torch.vtensor<[1],i1> -> !torch.bool
  %1 = torch.prim.If %0 -> (!torch.vtensor<[?],f32>) {
    torch.prim.If.yield %arg0 : !torch.vtensor<[?],f32>
  } else {
    %2 = torch.aten.neg %arg0 : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.If.yield %2 : !torch.vtensor<[?],f32>
  }
  return %1 : !torch.vtensor<[?],f32>
}
