// Chunks are processed on their own and joined with `// -----`; diagnostics keep the file's
// line numbers; one failing chunk fails the run but the others are still printed.
// RUN: not symhlo-opt --split-input-file --symhlo-verify-pure-stablehlo %s 2> %t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR --input-file %t.err

// CHECK-LABEL: func @first
// CHECK:       // -----
// CHECK-LABEL: func @third
// CHECK-NOT:   func @second
func.func @first(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %arg0 : tensor<?xf32>
}

// -----

func.func @second(%arg0: tensor<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  // ERR: split_input_file.mlir:[[# @LINE + 1]]:8: error: 'tensor.dim' is not StableHLO
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  return %d : index
}

// -----

func.func @third(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %arg0 : tensor<?xf32>
}
