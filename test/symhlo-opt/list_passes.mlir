// RUN: symhlo-opt --list-passes | FileCheck %s
// RUN: symhlo-opt --help | FileCheck %s --check-prefix=HELP

// CHECK: Passes:
// CHECK: --symhlo-shape-to-stablehlo{{ +}}shape/tensor/arith size computations -> StableHLO
// CHECK: --symhlo-torch-symbolic-to-shape
// CHECK: --symhlo-verify-pure-stablehlo
// CHECK: Pipelines:
// CHECK: --symhlo-torch-to-stablehlo-pipeline{{ +}}Imported torch dialect -> pure StableHLO

// HELP: usage: symhlo-opt
// HELP: --pass-pipeline PIPELINE
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: symhlo passes:
// HELP: --symhlo-prepare-for-iree
