// Unknown passes and malformed pipelines: one `symhlo-opt: error:` line and exit code 1.
// RUN: not symhlo-opt --symhlo-no-such-pass %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OURS
// RUN: not symhlo-opt --no-such-pass %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN-FLAG
// RUN: not symhlo-opt --pass-pipeline='builtin.module(no-such-pass)' %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN-UPSTREAM
// RUN: not symhlo-opt --pass-pipeline='builtin.module(cse' %s 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// RUN: not symhlo-opt --pass-pipeline='builtin.module(symhlo-simplify-broadcasts{nope=1})' %s 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not symhlo-opt --pass-pipeline='builtin.module(cse)' --canonicalize %s 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not symhlo-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO-INPUTS

// UNKNOWN-OURS: symhlo-opt: error: unknown symhlo pass or pipeline '--symhlo-no-such-pass' (see --list-passes)
// UNKNOWN-FLAG: symhlo-opt: error: unknown pass or option '--no-such-pass'
// UNKNOWN-UPSTREAM: symhlo-opt: error: invalid pass pipeline 'builtin.module(no-such-pass)': {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
// UNBALANCED: symhlo-opt: error: unbalanced '(' or '{' in pipeline
// OPTION: symhlo-opt: error: pass 'symhlo-simplify-broadcasts' has no option 'nope' (options: none)
// MIXED: symhlo-opt: error: '--pass-pipeline' cannot be combined with individual pass flags (got --canonicalize)
// TWO-INPUTS: symhlo-opt: error: expected one input file, got 2
// CHECK-NOT: Traceback
func.func @f() {
  return
}
