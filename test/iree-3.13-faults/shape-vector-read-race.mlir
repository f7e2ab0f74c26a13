// IREE 3.13's fault behind symhlo-read-shape-elements-on-host-for-iree, kept as a sentinel: when
// IREE stops scheduling the read below next to its writer, that pass's piece reads are no longer
// needed for correctness (its host arithmetic still saves a device round trip).
//
// A shape vector assembled from a piece a dispatch computes (torch's clamped slice bound
// `select(min(a, b) == 0, a, min(a, b))`, concatenated with a constant) and read back element by
// element: IREE has the dispatch write the piece into the vector's first 8 bytes (a tied
// update), fills the constant half, and copies the first 8 bytes out for the read. The copy is
// scheduled in the *same* `stream.cmd.concurrent` step as the dispatch that writes those bytes,
// so it races it and reads what an earlier call left there (a segment_reduce output with 12 rows
// for 20, a terabyte queue.alloca; on a busy machine only).
//
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local \
// RUN:   --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic \
// RUN:   -o /dev/null --mlir-print-ir-after=iree-stream-schedule-allocation 2>&1 \
// RUN:   | FileCheck --strict-whitespace %s

// CHECK-LABEL: util.func public @main(
// CHECK:      {{^}}      stream.cmd.concurrent {
// CHECK-NEXT: {{^}}        stream.cmd.dispatch @main_dispatch_1::@main_dispatch_1_elementwise
// CHECK-NEXT: {{^}}          ro
// CHECK-NEXT: {{^}}          rw %[[BUF:[a-z0-9]+]][%[[AT:[0-9#a-z_]+]] for %c8]
// CHECK-NOT:  {{^}}      }
// CHECK:      {{^}}        stream.cmd.copy %[[BUF]][%[[AT]]], %[[BUF]]
func.func @main(%x: tensor<?x4xf32>, %n: tensor<?xi64>) -> tensor<?x4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %z2 = stablehlo.constant dense<0> : tensor<2xi64>
  %o2 = stablehlo.constant dense<1> : tensor<2xi64>
  %a = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %a64 = stablehlo.convert %a : (tensor<i32>) -> tensor<i64>
  %b = stablehlo.get_dimension_size %n, dim = 0 : (tensor<?xi64>) -> tensor<i32>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %m = stablehlo.minimum %a64, %b64 : tensor<i64>
  %z = stablehlo.compare EQ, %m, %c0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %s = stablehlo.select %z, %a64, %m : tensor<i1>, tensor<i64>
  %r = stablehlo.reshape %s : (tensor<i64>) -> tensor<1xi64>
  %lim = stablehlo.concatenate %r, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %y = stablehlo.real_dynamic_slice %x, %z2, %lim, %o2 : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
