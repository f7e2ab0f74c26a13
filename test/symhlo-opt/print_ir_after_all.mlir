// The IR after each step goes to stderr; the result to stdout.
// RUN: symhlo-opt --mlir-print-ir-after-all --symhlo-shape-to-stablehlo --canonicalize %s -o %t 2> %t.dump
// RUN: FileCheck %s --input-file %t.dump

// CHECK: // -----// IR Dump After symhlo-shape-to-stablehlo //----- //
// CHECK: stablehlo.get_dimension_size
// CHECK: tensor.extract
// CHECK: // -----// IR Dump After canonicalize //----- //
// CHECK: stablehlo.get_dimension_size
func.func @f(%arg0: tensor<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  return %d : index
}
