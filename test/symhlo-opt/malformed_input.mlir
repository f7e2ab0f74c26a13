// Bad input: `file:line:col: error:` with the source line, exit code 1, never a traceback; with
// --split-input-file every chunk reports its own error at the file's line numbers.
// RUN: not symhlo-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not symhlo-opt --split-input-file < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not symhlo-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK: malformed_input.mlir:[[# @LINE + 5]]:10: error: use of undeclared SSA value name
// CHECK-NEXT: return %nope : tensor<?xf32>
// CHECK-NEXT: ^
// STDIN: <stdin>:[[# @LINE + 2]]:10: error: use of undeclared SSA value name
func.func @f(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %nope : tensor<?xf32>
}

// -----

// CHECK: malformed_input.mlir:[[# @LINE + 1]]:3: error: Dialect `not' not found for custom op 'not.an_op'
  not.an_op

// -----

// CHECK: malformed_input.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected ')'
func.func @g(%arg0: tensor<?xf32>
// CHECK-NOT: Traceback

// MISSING: symhlo-opt: error: cannot open input file '{{.*}}malformed_input.mlir.missing': No such file or directory
