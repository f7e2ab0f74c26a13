// RUN: symhlo-opt --symhlo-widen-narrow-region-values-for-iree --split-input-file %s | FileCheck %s

// A `?`-shaped f16 / bool value a stablehlo.while carries crosses the loop boundary as f32 / i32
// (IREE 3.13 packs `?`-sized loop values at offsets it keeps right only when each size is a
// multiple of 4 bytes); the loop's counter and static-shaped values keep their types.

// CHECK-LABEL: func @widens_narrow_loop_values
// CHECK-SAME:    (%[[H:.*]]: tensor<?x?xf16>, %[[M:.*]]: tensor<?xi1>, %[[S:.*]]: tensor<4xf16>)
// CHECK-DAG:     %[[HW:.*]] = stablehlo.convert %[[H]] : (tensor<?x?xf16>) -> tensor<?x?xf32>
// CHECK-DAG:     %[[MW:.*]] = stablehlo.convert %[[M]] : (tensor<?xi1>) -> tensor<?xi32>
// CHECK:         %[[W:.*]]:4 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[A:.*]] = %[[HW]], %[[B:.*]] = %[[MW]], %[[C:.*]] = %[[S]]) : tensor<i64>, tensor<?x?xf32>, tensor<?xi32>, tensor<4xf16>
// CHECK:         cond {
// CHECK-DAG:       stablehlo.convert %[[A]] : (tensor<?x?xf32>) -> tensor<?x?xf16>
// CHECK-DAG:       %[[BN:.*]] = stablehlo.convert %[[B]] : (tensor<?xi32>) -> tensor<?xi1>
// CHECK:           stablehlo.reduce(%[[BN]] init:
// CHECK:         } do {
// CHECK-DAG:       %[[AN:.*]] = stablehlo.convert %[[A]] : (tensor<?x?xf32>) -> tensor<?x?xf16>
// CHECK-DAG:       %[[BN2:.*]] = stablehlo.convert %[[B]] : (tensor<?xi32>) -> tensor<?xi1>
// CHECK:           %[[A1:.*]] = stablehlo.add %[[AN]], %[[AN]] : tensor<?x?xf16>
// CHECK:           %[[B1:.*]] = stablehlo.not %[[BN2]] : tensor<?xi1>
// CHECK-DAG:       %[[A1W:.*]] = stablehlo.convert %[[A1]] : (tensor<?x?xf16>) -> tensor<?x?xf32>
// CHECK-DAG:       %[[B1W:.*]] = stablehlo.convert %[[B1]] : (tensor<?xi1>) -> tensor<?xi32>
// CHECK:           stablehlo.return %{{.*}}, %[[A1W]], %[[B1W]], %{{.*}} : tensor<i64>, tensor<?x?xf32>, tensor<?xi32>, tensor<4xf16>
// CHECK:         }
// CHECK-DAG:     %[[R:.*]] = stablehlo.convert %[[W]]#1 : (tensor<?x?xf32>) -> tensor<?x?xf16>
// CHECK-DAG:     %[[RM:.*]] = stablehlo.convert %[[W]]#2 : (tensor<?xi32>) -> tensor<?xi1>
// CHECK:         return %[[R]], %[[RM]], %[[W]]#3
func.func @widens_narrow_loop_values(%h: tensor<?x?xf16>, %m: tensor<?xi1>, %s: tensor<4xf16>) -> (tensor<?x?xf16>, tensor<?xi1>, tensor<4xf16>) {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c3 = stablehlo.constant dense<3> : tensor<i64>
  %false = stablehlo.constant dense<false> : tensor<i1>
  %0:4 = stablehlo.while(%i = %c0, %a = %h, %b = %m, %c = %s) : tensor<i64>, tensor<?x?xf16>, tensor<?xi1>, tensor<4xf16>
  cond {
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %any = stablehlo.reduce(%b init: %false) applies stablehlo.or across dimensions = [0] : (tensor<?xi1>, tensor<i1>) -> tensor<i1>
    %q = stablehlo.or %p, %any : tensor<i1>
    stablehlo.return %q : tensor<i1>
  } do {
    %n = stablehlo.add %i, %c1 : tensor<i64>
    %a1 = stablehlo.add %a, %a : tensor<?x?xf16>
    %b1 = stablehlo.not %b : tensor<?xi1>
    stablehlo.return %n, %a1, %b1, %c : tensor<i64>, tensor<?x?xf16>, tensor<?xi1>, tensor<4xf16>
  }
  return %0#1, %0#2, %0#3 : tensor<?x?xf16>, tensor<?xi1>, tensor<4xf16>
}

// -----

// Each branch of a stablehlo.if returns its `?`-shaped bf16 result as f32; an f32 result is left
// alone.

// CHECK-LABEL: func @widens_narrow_branch_results
// CHECK:         %[[R:.*]]:2 = "stablehlo.if"(%{{.*}}) ({
// CHECK:           %[[T:.*]] = stablehlo.convert %{{.*}} : (tensor<?xbf16>) -> tensor<?xf32>
// CHECK:           stablehlo.return %[[T]], %{{.*}} : tensor<?xf32>, tensor<?xf32>
// CHECK:         }, {
// CHECK:           %[[E:.*]] = stablehlo.convert %{{.*}} : (tensor<?xbf16>) -> tensor<?xf32>
// CHECK:           stablehlo.return %[[E]], %{{.*}} : tensor<?xf32>, tensor<?xf32>
// CHECK:         }) : (tensor<i1>) -> (tensor<?xf32>, tensor<?xf32>)
// CHECK:         %[[N:.*]] = stablehlo.convert %[[R]]#0 : (tensor<?xf32>) -> tensor<?xbf16>
// CHECK:         return %[[N]], %[[R]]#1 : tensor<?xbf16>, tensor<?xf32>
func.func @widens_narrow_branch_results(%p: tensor<i1>, %x: tensor<?xbf16>, %y: tensor<?xf32>) -> (tensor<?xbf16>, tensor<?xf32>) {
  %0:2 = "stablehlo.if"(%p) ({
    %t = stablehlo.add %x, %x : tensor<?xbf16>
    stablehlo.return %t, %y : tensor<?xbf16>, tensor<?xf32>
  }, {
    stablehlo.return %x, %y : tensor<?xbf16>, tensor<?xf32>
  }) : (tensor<i1>) -> (tensor<?xbf16>, tensor<?xf32>)
  return %0#0, %0#1 : tensor<?xbf16>, tensor<?xf32>
}
