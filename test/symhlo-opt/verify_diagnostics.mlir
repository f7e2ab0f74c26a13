// expected-* comments: @+N, @-N, @above, @below, -re with {{regex}}; all matched -> exit 0.
// RUN: symhlo-opt --symhlo-verify-pure-stablehlo --split-input-file --verify-diagnostics %s

func.func @offsets(%arg0: tensor<?xf32>) -> index {
  // expected-error@+1 {{'arith.constant' is not StableHLO}}
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  // expected-error@-1 {{'tensor.dim' is not StableHLO}}
  return %d : index
}

// -----

func.func @above_and_below(%arg0: tensor<?xf32>) -> index {
  // expected-error@below {{'arith.constant'}}
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  // expected-error@above {{'tensor.dim'}}
  return %d : index
}

// -----

func.func @regex(%arg0: tensor<?xf32>) -> index {
  // expected-error-re@+1 {{'{{[a-z]+}}.constant' is not {{StableHLO|pure}}}}
  %c0 = arith.constant 0 : index
  // expected-error-re@+1 {{'tensor.dim' is not StableHLO (symhlo-{{.*}})}}
  %d = tensor.dim %arg0, %c0 : tensor<?xf32>
  return %d : index
}
