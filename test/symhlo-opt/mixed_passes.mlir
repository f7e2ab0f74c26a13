// symhlo passes mix with upstream ones, in flag order and in --pass-pipeline; an upstream pass
// anchored on func.func given as a flag is nested like mlir-opt does.
// RUN: symhlo-opt --symhlo-shape-to-stablehlo --canonicalize --cse --stablehlo-aggressive-simplification --symhlo-verify-pure-stablehlo %s | FileCheck %s
// RUN: symhlo-opt --pass-pipeline='builtin.module(symhlo-shape-to-stablehlo, canonicalize, func.func(stablehlo-aggressive-simplification), symhlo-verify-pure-stablehlo)' %s | FileCheck %s

// CHECK-LABEL: func @mixed
// CHECK-NOT:     arith.
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK:         stablehlo.dynamic_broadcast_in_dim %arg1, %{{.*}}, dims = [0, 1]
func.func @mixed(%arg0: tensor<?x3xf32>, %arg1: tensor<1x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %s = tensor.from_elements %d, %c3 : tensor<2xindex>
  %r = stablehlo.dynamic_broadcast_in_dim %arg1, %s, dims = [0, 1] : (tensor<1x3xf32>, tensor<2xindex>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
