// Input from a file or stdin, output to stdout or -o; single-dash long flags as in mlir-opt.
// RUN: symhlo-opt %s | FileCheck %s
// RUN: symhlo-opt - < %s | FileCheck %s
// RUN: symhlo-opt < %s | FileCheck %s
// RUN: symhlo-opt %s -o %t && FileCheck %s --input-file %t
// RUN: symhlo-opt -symhlo-shape-to-stablehlo %s -o=%t.2 && FileCheck %s --check-prefix=PASS --input-file %t.2

// CHECK-LABEL: func @io
// CHECK:         tensor.dim %arg0
// PASS-LABEL:  func @io
// PASS:          stablehlo.get_dimension_size %arg0, dim = 0
func.func @io(%arg0: tensor<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  return %d : index
}
