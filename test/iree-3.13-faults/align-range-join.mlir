// IREE 3.13's fault behind backend.compiler.control_flow_offset_flags, kept as a sentinel: when
// IREE stops folding the first loop below, the flags that work around it can go.
//
// iree-util-optimize-int-arithmetic (run in IREE's stream pipeline after resource packing) gives
// `util.align %size, 64` no range when %size may be within 63 of 2^64 (the aligned upper bound
// wraps), as every product of unbounded `?` sizes may be. Where such a value meets a constant at a
// join (a loop header, an scf.if result), the join is the constant alone. IREE carries each
// packed `?`-sized value's byte offset through the loops and ifs a stablehlo.while / if becomes,
// so a second `?x?` loop state was read at the first one's offset (symhlo's splat-state loops,
// test/e2e/test_control_flow.py), silently.
//
// RUN: iree-opt --pass-pipeline='builtin.module(util.func(canonicalize, iree-util-optimize-int-arithmetic))' %s | FileCheck %s

// The offset starts as align(%size, 64) and is 64 on later trips: the loop's result is folded to
// 64, wrong when the loop stops before its first trip.
// CHECK-LABEL: util.func public @offset_joined_with_unbounded_align
// CHECK: util.return %c64
util.func public @offset_joined_with_unbounded_align(%size: index, %n: index) -> index {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %start = util.align %size, %c64 : index
  %w:2 = scf.while (%k = %c1, %offset = %start) : (index, index) -> (index, index) {
    %more = arith.cmpi slt, %k, %n : index
    %k1 = arith.addi %k, %c1 : index
    scf.condition(%more) %k1, %offset : index, index
  } do {
  ^bb0(%k2: index, %offset2: index):
    scf.yield %k2, %c64 : index, index
  }
  util.return %w#1 : index
}

// Aligned to 4 (--iree-stream-resource-min-offset-alignment=4, symhlo's flag for modules with
// control flow), the align of a size of 4-byte elements folds away: the offset stays the loop's.
// CHECK-LABEL: util.func public @offset_after_four_byte_multiples
// CHECK-NOT:     util.align
// CHECK:         %[[W:.*]]:2 = scf.while
// CHECK:         util.return %[[W]]#1
util.func public @offset_after_four_byte_multiples(%elements: index, %n: index) -> index {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %size = arith.muli %elements, %c4 : index
  %start = util.align %size, %c4 : index
  %w:2 = scf.while (%k = %c1, %offset = %start) : (index, index) -> (index, index) {
    %more = arith.cmpi slt, %k, %n : index
    %k1 = arith.addi %k, %c1 : index
    scf.condition(%more) %k1, %offset : index, index
  } do {
  ^bb0(%k2: index, %offset2: index):
    scf.yield %k2, %c64 : index, index
  }
  util.return %w#1 : index
}
