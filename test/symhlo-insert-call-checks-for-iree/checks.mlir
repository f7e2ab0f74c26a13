// RUN: symhlo-opt --symhlo-insert-call-checks-for-iree --split-input-file %s | FileCheck %s

// A range, a shared dim, a derived dim (2*n) and a relation: the buffer-view @main imports each
// input at the size the contract allows (n clamped to [1, 100]), asserts the relation, then calls
// the original body.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[VX:.*]]: !hal.buffer_view, %[[VY:.*]]: !hal.buffer_view) -> !hal.buffer_view
// CHECK-SAME:    symhlo.contract = "func.func private @main(tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>) attributes {symhlo.arg_names
// CHECK-SAME:    symhlo.declaration = "sync func @main(%input0: tensor<?x4xf32>, %input1: tensor<?x4xf32>) -> (%output0: tensor<?x4xf32>)"
// CHECK:         %[[DX:.*]] = "hal.buffer_view.dim"(%[[VX]]) {index = 0 : index}
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[LO:.*]] = arith.maxsi %[[DX]], %[[C1]]
// CHECK:         %[[C100:.*]] = arith.constant 100 : index
// CHECK:         %[[N:.*]] = arith.minsi %[[LO]], %[[C100]]
// CHECK:         %[[X:.*]] = "hal.tensor.import"(%[[VX]], %[[N]]) {name = "symhlo contract: x tensor<?x4xf32> (axis 0 = n with n in [1, 100] (from x axis 0));"
// CHECK-SAME:      target_encoding = tensor<?x4xf32>
// CHECK:         %[[TWO_N:.*]] = arith.muli %{{.*}}, %[[N]]
// CHECK:         %[[Y:.*]] = "hal.tensor.import"(%[[VY]], %[[TWO_N]]) {name = "symhlo contract: y tensor<?x4xf32> (axis 0 = 2*n with n in [1, 100] (from x axis 0));"
// CHECK:         %[[OK:.*]] = arith.cmpi ne, %[[N]], %{{.*}}
// CHECK:         cf.assert %[[OK]], "symhlo contract: n != 7 must hold (n from x axis 0)"
// A relation bounding an axis that is a symbol itself asserts that axis's size, so IREE's message
// carries the value and the limit: n >= 3 on x axis 0 expects max(n, 3).
// CHECK:         %[[AT_LEAST:.*]] = arith.maxsi %[[N]], %{{.*}}
// CHECK:         %[[ELT:.*]] = "hal.element_type"() {type = f32} : () -> i32
// CHECK:         %[[ENC:.*]] = "hal.encoding_type"() : () -> i32
// CHECK:         "hal.buffer_view.assert"(%[[VX]], %[[ELT]], %[[ENC]], %[[AT_LEAST]], %{{.*}}) {message = "symhlo contract: 3 <= n must hold (n from x axis 0); x axis 0:"}
// CHECK:         %[[R:.*]] = call @symhlo_checked_main(%[[X]], %[[Y]])
// CHECK:         %[[D:.*]] = tensor.dim %[[R]], %{{.*}}
// CHECK:         %[[OUT:.*]] = "hal.tensor.export"(%[[R]], %[[D]]) {name = "output0", source_encoding = tensor<?x4xf32>}
// CHECK:         return %[[OUT]]
// CHECK:       func.func private @symhlo_checked_main(%{{.*}}: tensor<?x4xf32>, %{{.*}}: tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK:         stablehlo.add
func.func @main(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {
    symhlo.symbols = {n = [1, 100]}, symhlo.arg_names = ["x", "y"],
    symhlo.arg_shapes = [["n", "4"], ["2*n", "4"]], symhlo.relations = ["n != 7", "3 <= n"]} {
  %0 = stablehlo.add %x, %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A symbol seen only through a derived axis is solved from it: h = (d - 1) floordiv 2, clamped;
// unbounded: no upper clamp. A relation outside the grammar (an unknown function, a power, a
// chained comparison) is listed as unchecked.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    symhlo.unchecked = "[\22foo(h) > 1\22, \22h**2 > 4\22, \22h < 2*h < 90\22]"
// CHECK:         %[[D:.*]] = "hal.buffer_view.dim"
// CHECK:         %[[M:.*]] = arith.subi %[[D]], %{{.*}}
// CHECK:         %[[Q:.*]] = arith.floordivsi %[[M]], %{{.*}}
// CHECK:         %[[H:.*]] = arith.maxsi %[[Q]], %{{.*}}
// CHECK-NOT:     arith.minsi
// CHECK:         "hal.tensor.import"
// CHECK-NOT:     cf.assert
// CHECK:         call @symhlo_checked_main
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> attributes {
    symhlo.symbols = {h = [2, 9223372036854775807]}, symhlo.arg_names = ["x"],
    symhlo.arg_shapes = [["2*h + 1"]],
    symhlo.relations = ["foo(h) > 1", "h**2 > 4", "h < 2*h < 90"]} {
  return %x : tensor<?xf32>
}

// -----

// StableHLO without symhlo's contract (another exporter's) is left alone, but for the
// reflection's record of its declaration and symhlo.* attributes (what symhlo.load reads).
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %{{.*}}: tensor<?xf32>) -> tensor<?xf32>
// CHECK-SAME:    iree.reflection = {symhlo.contract = "func.func private @main(tensor<?xf32>) -> (tensor<?xf32>) attributes {symhlo.shape_assertions = []}"}
// CHECK-NOT:     hal.
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> attributes {symhlo.shape_assertions = []} {
  return %x : tensor<?xf32>
}

// -----

// sympy's spellings: h // 2 as floor(h/2), (h + 1) // 2 as floor(h/2 + 1/2) (one floor division
// of the rational's numerator), Mod as x - y * floor(x / y).
// CHECK-LABEL: func.func @main(
// CHECK-NOT:     symhlo.unchecked
// CHECK:         %[[H:.*]] = arith.minsi
// CHECK:         "hal.tensor.import"(%{{.*}}, %[[H]])
// CHECK:         %[[F:.*]] = arith.floordivsi %[[H]], %{{.*}}
// CHECK:         "hal.tensor.import"(%{{.*}}, %[[F]])
// CHECK:         %[[TWO_H:.*]] = arith.muli %[[H]], %{{.*}}
// CHECK:         %[[NUM:.*]] = arith.addi %[[TWO_H]], %{{.*}}
// CHECK:         %[[C:.*]] = arith.floordivsi %[[NUM]], %{{.*}}
// CHECK:         "hal.tensor.import"(%{{.*}}, %[[C]])
// CHECK:         %[[Q:.*]] = arith.floordivsi %[[H]], %[[EIGHT:.*]] :
// CHECK:         %[[P:.*]] = arith.muli %[[EIGHT]], %[[Q]]
// CHECK:         %[[M:.*]] = arith.subi %[[H]], %[[P]]
// CHECK:         arith.cmpi ne, %[[M]]
// CHECK:         cf.assert
func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>, %z: tensor<?xf32>) -> tensor<?xf32> attributes {
    symhlo.symbols = {h = [2, 64]}, symhlo.arg_names = ["x", "y", "z"],
    symhlo.arg_shapes = [["h"], ["floor(h/2)"], ["floor(h/2 + 1/2)"]], symhlo.relations = ["Mod(h, 8) != 3"]} {
  return %x : tensor<?xf32>
}
