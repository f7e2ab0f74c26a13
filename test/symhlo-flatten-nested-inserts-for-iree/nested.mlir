// RUN: symhlo-opt --symhlo-flatten-nested-inserts-for-iree --split-input-file %s | FileCheck %s

// Two layers' caches (past ++ new token along the length), stacked into one tensor: the pieces
// go straight into the stack, and the layer's other reader (here a negate, in a model its
// attention) reads the layer back as a slice of it.

// CHECK-LABEL: func @stacked_caches
// CHECK-SAME:    (%[[P0:.*]]: tensor<1x2x?x64xf32>, %[[N0:.*]]: tensor<1x2x1x64xf32>, %[[P1:.*]]: tensor<1x2x?x64xf32>, %[[N1:.*]]: tensor<1x2x1x64xf32>)
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<2x2x?x64xf32>
// CHECK:         %[[A:.*]] = tensor.insert_slice %[[P0]] into %[[E]][0, 0, 0, 0] [1, 2, %{{.*}}, 64]
// CHECK:         %[[B:.*]] = tensor.insert_slice %[[N0]] into %[[A]][0, 0, %{{.*}}, 0] [1, 2, 1, 64]
// CHECK:         %[[K0:.*]] = tensor.extract_slice %[[B]][0, 0, 0, 0] [1, 2, %{{.*}}, 64] [1, 1, 1, 1] : tensor<2x2x?x64xf32> to tensor<1x2x?x64xf32>
// CHECK:         stablehlo.negate %[[K0]]
// CHECK:         %[[C:.*]] = tensor.insert_slice %[[P1]] into %[[B]][1, 0, 0, 0]
// CHECK:         %[[D:.*]] = tensor.insert_slice %[[N1]] into %[[C]][1, 0, %{{.*}}, 0]
// CHECK-NOT:     tensor.insert_slice
// CHECK:         return %[[D]], %{{.*}} : tensor<2x2x?x64xf32>, tensor<1x2x?x64xf32>
func.func @stacked_caches(%p0: tensor<1x2x?x64xf32>, %n0: tensor<1x2x1x64xf32>,
                          %p1: tensor<1x2x?x64xf32>, %n1: tensor<1x2x1x64xf32>)
    -> (tensor<2x2x?x64xf32>, tensor<1x2x?x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %l0 = tensor.dim %p0, %c2 : tensor<1x2x?x64xf32>
  %n = arith.addi %l0, %c1 : index
  %e0 = tensor.empty(%n) : tensor<1x2x?x64xf32>
  %a0 = tensor.insert_slice %p0 into %e0[0, 0, 0, 0] [1, 2, %l0, 64] [1, 1, 1, 1] : tensor<1x2x?x64xf32> into tensor<1x2x?x64xf32>
  %k0 = tensor.insert_slice %n0 into %a0[0, 0, %l0, 0] [1, 2, 1, 64] [1, 1, 1, 1] : tensor<1x2x1x64xf32> into tensor<1x2x?x64xf32>
  %r0 = stablehlo.negate %k0 : tensor<1x2x?x64xf32>
  %l1 = tensor.dim %p1, %c2 : tensor<1x2x?x64xf32>
  %m = arith.addi %l1, %c1 : index
  %e1 = tensor.empty(%m) : tensor<1x2x?x64xf32>
  %a1 = tensor.insert_slice %p1 into %e1[0, 0, 0, 0] [1, 2, %l1, 64] [1, 1, 1, 1] : tensor<1x2x?x64xf32> into tensor<1x2x?x64xf32>
  %k1 = tensor.insert_slice %n1 into %a1[0, 0, %l1, 0] [1, 2, 1, 64] [1, 1, 1, 1] : tensor<1x2x1x64xf32> into tensor<1x2x?x64xf32>
  %s = tensor.empty(%n) : tensor<2x2x?x64xf32>
  %s0 = tensor.insert_slice %k0 into %s[0, 0, 0, 0] [1, 2, %n, 64] [1, 1, 1, 1] : tensor<1x2x?x64xf32> into tensor<2x2x?x64xf32>
  %s1 = tensor.insert_slice %k1 into %s0[1, 0, 0, 0] [1, 2, %m, 64] [1, 1, 1, 1] : tensor<1x2x?x64xf32> into tensor<2x2x?x64xf32>
  return %s1, %r0 : tensor<2x2x?x64xf32>, tensor<1x2x?x64xf32>
}

// -----

// torch.stack as StableHLO has it: a concatenate along the batch axis, reshaped to
// (layers, batch, ...). The contract shares the batch between the inputs, so each layer's rows
// are provably one index of the layer axis: the pieces land at [k, 0] with (1, batch) rows.

// CHECK-LABEL: func @stack_by_a_split_reshape
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<2x?x2x?x64xf32>
// CHECK:         %[[X0:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2], [3], [4]{{\]}}
// CHECK:         tensor.insert_slice %[[X0]] into %[[E]][0, 0, 0, 0, 0] [1, %{{.*}}, 2, %{{.*}}, 64]
// CHECK:         %[[X1:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2], [3], [4]{{\]}}
// CHECK:         %[[R:.*]] = tensor.insert_slice %[[X1]] into %{{.*}}[1, 0, 0, 0, 0] [1, %{{.*}}, 2, %{{.*}}, 64]
// CHECK-NOT:     tensor.reshape
// CHECK:         return %[[R]]
func.func @stack_by_a_split_reshape(%k0: tensor<?x2x?x64xf32>, %k1: tensor<?x2x?x64xf32>)
    -> tensor<2x?x2x?x64xf32> attributes {
      symhlo.arg_shapes = [["b", "2", "l", "64"], ["b", "2", "l", "64"]],
      symhlo.symbols = {b = [1, 8], l = [1, 1024]}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %b0 = tensor.dim %k0, %c0 : tensor<?x2x?x64xf32>
  %b1 = tensor.dim %k1, %c0 : tensor<?x2x?x64xf32>
  %l = tensor.dim %k0, %c2 : tensor<?x2x?x64xf32>
  %rows = arith.addi %b0, %b1 : index
  %e = tensor.empty(%rows, %l) : tensor<?x2x?x64xf32>
  %s0 = tensor.insert_slice %k0 into %e[0, 0, 0, 0] [%b0, 2, %l, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> into tensor<?x2x?x64xf32>
  %s1 = tensor.insert_slice %k1 into %s0[%b0, 0, 0, 0] [%b1, 2, %l, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> into tensor<?x2x?x64xf32>
  %shape = tensor.from_elements %c2, %b0, %c2, %l, %c64 : tensor<5xindex>
  %st = tensor.reshape %s1(%shape) : (tensor<?x2x?x64xf32>, tensor<5xindex>) -> tensor<2x?x2x?x64xf32>
  %f = tensor.empty(%b0, %l) : tensor<2x?x2x?x64xf32>
  %r = tensor.insert_slice %st into %f[0, 0, 0, 0, 0] [2, %b0, 2, %l, 64] [1, 1, 1, 1, 1] : tensor<2x?x2x?x64xf32> into tensor<2x?x2x?x64xf32>
  return %r : tensor<2x?x2x?x64xf32>
}

// -----

// Without the contract nothing says the two inputs' rows are equal: the reshape's split is not
// proven and the stack stays as it is.

// CHECK-LABEL: func @unproven_split_is_left
// CHECK:         tensor.reshape
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0, 0]
func.func @unproven_split_is_left(%k0: tensor<?x2x?x64xf32>, %k1: tensor<?x2x?x64xf32>)
    -> tensor<2x?x2x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %b0 = tensor.dim %k0, %c0 : tensor<?x2x?x64xf32>
  %b1 = tensor.dim %k1, %c0 : tensor<?x2x?x64xf32>
  %l = tensor.dim %k0, %c2 : tensor<?x2x?x64xf32>
  %rows = arith.addi %b0, %b1 : index
  %e = tensor.empty(%rows, %l) : tensor<?x2x?x64xf32>
  %s0 = tensor.insert_slice %k0 into %e[0, 0, 0, 0] [%b0, 2, %l, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> into tensor<?x2x?x64xf32>
  %s1 = tensor.insert_slice %k1 into %s0[%b0, 0, 0, 0] [%b1, 2, %l, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> into tensor<?x2x?x64xf32>
  %shape = tensor.from_elements %c2, %b0, %c2, %l, %c64 : tensor<5xindex>
  %st = tensor.reshape %s1(%shape) : (tensor<?x2x?x64xf32>, tensor<5xindex>) -> tensor<2x?x2x?x64xf32>
  %f = tensor.empty(%b0, %l) : tensor<2x?x2x?x64xf32>
  %r = tensor.insert_slice %st into %f[0, 0, 0, 0, 0] [2, %b0, 2, %l, 64] [1, 1, 1, 1, 1] : tensor<2x?x2x?x64xf32> into tensor<2x?x2x?x64xf32>
  return %r : tensor<2x?x2x?x64xf32>
}

// -----

// A layer's reader that merges axes (attention folding heads into the batch) reads the stack
// collapsed the same way: IREE 3.13 copies a slice that a reshape reads.

// CHECK-LABEL: func @collapsed_reader
// CHECK:         %[[B:.*]] = tensor.insert_slice %arg1 into %{{.*}}[0, 0, %{{.*}}, 0] [1, 2, 1, 64]
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2], [3]{{\]}} : tensor<2x2x?x64xf32> into tensor<4x?x64xf32>
// CHECK:         %[[R:.*]] = tensor.extract_slice %[[C]][0, 0, 0] [2, %{{.*}}, 64] [1, 1, 1] : tensor<4x?x64xf32> to tensor<2x?x64xf32>
// CHECK:         stablehlo.negate %[[R]]
func.func @collapsed_reader(%p0: tensor<1x2x?x64xf32>, %n0: tensor<1x2x1x64xf32>,
                            %p1: tensor<1x2x?x64xf32>, %n1: tensor<1x2x1x64xf32>)
    -> (tensor<2x2x?x64xf32>, tensor<2x?x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %l0 = tensor.dim %p0, %c2 : tensor<1x2x?x64xf32>
  %n = arith.addi %l0, %c1 : index
  %e0 = tensor.empty(%n) : tensor<1x2x?x64xf32>
  %a0 = tensor.insert_slice %p0 into %e0[0, 0, 0, 0] [1, 2, %l0, 64] [1, 1, 1, 1] : tensor<1x2x?x64xf32> into tensor<1x2x?x64xf32>
  %k0 = tensor.insert_slice %n0 into %a0[0, 0, %l0, 0] [1, 2, 1, 64] [1, 1, 1, 1] : tensor<1x2x1x64xf32> into tensor<1x2x?x64xf32>
  %m0 = tensor.collapse_shape %k0 [[0, 1], [2], [3]] : tensor<1x2x?x64xf32> into tensor<2x?x64xf32>
  %r0 = stablehlo.negate %m0 : tensor<2x?x64xf32>
  %l1 = tensor.dim %p1, %c2 : tensor<1x2x?x64xf32>
  %m = arith.addi %l1, %c1 : index
  %e1 = tensor.empty(%m) : tensor<1x2x?x64xf32>
  %a1 = tensor.insert_slice %p1 into %e1[0, 0, 0, 0] [1, 2, %l1, 64] [1, 1, 1, 1] : tensor<1x2x?x64xf32> into tensor<1x2x?x64xf32>
  %k1 = tensor.insert_slice %n1 into %a1[0, 0, %l1, 0] [1, 2, 1, 64] [1, 1, 1, 1] : tensor<1x2x1x64xf32> into tensor<1x2x?x64xf32>
  %s = tensor.empty(%n) : tensor<2x2x?x64xf32>
  %s0 = tensor.insert_slice %k0 into %s[0, 0, 0, 0] [1, 2, %n, 64] [1, 1, 1, 1] : tensor<1x2x?x64xf32> into tensor<2x2x?x64xf32>
  %s1 = tensor.insert_slice %k1 into %s0[1, 0, 0, 0] [1, 2, %m, 64] [1, 1, 1, 1] : tensor<1x2x?x64xf32> into tensor<2x2x?x64xf32>
  return %s1, %r0 : tensor<2x2x?x64xf32>, tensor<2x?x64xf32>
}

// -----

// A tensor inserted twice (`torch.cat([x, x])`) stays one tensor: its pieces cannot go to two
// places at once.

// CHECK-LABEL: func @inserted_twice_is_left
// CHECK:         %[[X:.*]] = tensor.insert_slice %arg0 into %{{.*}}[0, 0] [%{{.*}}, 4]
// CHECK:         %[[Y0:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 0]
// CHECK:         tensor.insert_slice %[[X]] into %[[Y0]][%{{.*}}, 0]
func.func @inserted_twice_is_left(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %x = tensor.insert_slice %a into %e[0, 0] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  %two = arith.addi %n, %n : index
  %f = tensor.empty(%two) : tensor<?x4xf32>
  %y0 = tensor.insert_slice %x into %f[0, 0] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  %y = tensor.insert_slice %x into %y0[%n, 0] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
