// RUN: symhlo-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: not symhlo-opt %s 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: "my.op"() : () -> ()
// ERR: allow_unregistered_dialect.mlir:[[# @LINE + 2]]:10: error: operation being parsed with an unregistered dialect
func.func @f() {
  "my.op"() : () -> ()
  return
}
