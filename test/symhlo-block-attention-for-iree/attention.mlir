// RUN: symhlo-opt --symhlo-block-attention-for-iree --split-input-file %s | FileCheck %s
// RUN: symhlo-opt --pass-pipeline='builtin.module(symhlo-block-attention-for-iree{min-length=128})' --split-input-file %s | FileCheck %s --check-prefix=IF

// Softmax attention over `?` queries and keys: q and k^T zero-padded to whole blocks of 16, the
// scores expanded into 16 x 16 blocks, every reduction over the keys reading its init at the
// padded keys (the max's masked scores read by the rest too), the probabilities zeroed there, the values padded, the real query rows sliced back.
// With min-length=128 the blocked ops run for q, k >= 128, the original ones below:
// IF-LABEL: func @softmax_attention
// IF:         %[[NQ:.*]] = tensor.dim %arg0, %c1
// IF:         %[[NK:.*]] = tensor.dim %arg1, %c2
// IF:         %[[LONGQ:.*]] = arith.cmpi sge, %[[NQ]], %c128
// IF:         %[[LONGK:.*]] = arith.cmpi sge, %[[NK]], %c128
// IF:         %[[LONG:.*]] = arith.andi %[[LONGQ]], %[[LONGK]]
// IF:         %[[R:.*]] = scf.if %[[LONG]] -> (tensor<?x?x8xf32>) {
// IF:           tensor.pad %arg0
// IF:           tensor.expand_shape {{.*}} into tensor<?x?x16x?x16xf32>
// IF:           scf.yield %{{.*}} : tensor<?x?x8xf32>
// IF:         } else {
// IF:           %[[S:.*]] = stablehlo.dot_general %arg0, %arg1
// IF:           %[[O:.*]] = stablehlo.dot_general %{{.*}}, %arg2
// IF:           scf.yield %[[O]] : tensor<?x?x8xf32>
// IF:         }
// IF:         return %[[R]]

// CHECK-LABEL: func @softmax_attention
// CHECK-SAME:    (%[[Q:.*]]: tensor<?x?x8xf32>, %[[KT:.*]]: tensor<?x8x?xf32>, %[[V:.*]]: tensor<?x?x8xf32>)
// CHECK:         %[[NQ:.*]] = tensor.dim %[[Q]], %c1
// CHECK:         %[[NK:.*]] = tensor.dim %[[KT]], %c2
// CHECK:         %[[QB:.*]] = arith.divsi %{{.*}}, %c16
// CHECK:         %[[NKB:.*]] = arith.divsi %{{.*}}, %c16
// CHECK:         %[[VALID:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x16xi1>)
// CHECK:           %[[KB:.*]] = linalg.index 0
// CHECK:           %[[J:.*]] = linalg.index 1
// CHECK:           %[[POS:.*]] = arith.addi %{{.*}}, %[[J]]
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %[[POS]], %[[NK]]
// CHECK:           linalg.yield %[[LT]]
// CHECK:         %[[QP:.*]] = tensor.pad %[[Q]] low[0, 0, 0] high[0, %{{.*}}, 0]
// CHECK:         %[[KP:.*]] = tensor.pad %[[KT]] low[0, 0, 0] high[0, 0, %{{.*}}]
// CHECK:         %[[S:.*]] = stablehlo.dot_general %[[QP]], %[[KP]], batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x8xf32>, tensor<?x8x?xf32>) -> tensor<?x?x?xf32>
// CHECK:         %[[SB:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0], [1, 2], [3, 4]] output_shape [%{{.*}}, %[[QB]], 16, %[[NKB]], 16] : tensor<?x?x?xf32> into tensor<?x?x16x?x16xf32>
// CHECK:         %[[VB:.*]] = stablehlo.dynamic_broadcast_in_dim %[[VALID]], %{{.*}}, dims = [3, 4]
// CHECK:         %[[SM:.*]] = stablehlo.select %[[VB]], %[[SB]], %{{.*}} : tensor<?x?x16x?x16xi1>, tensor<?x?x16x?x16xf32>
// CHECK:         stablehlo.reduce(%[[SM]] init: %{{.*}}) applies stablehlo.maximum across dimensions = [3, 4] : (tensor<?x?x16x?x16xf32>, tensor<f32>) -> tensor<?x?x16xf32>
// The max's masked input is what every later reader of the scores reads (mask-at-source):
// CHECK:         %[[X:.*]] = stablehlo.subtract %[[SM]], %{{.*}} : tensor<?x?x16x?x16xf32>
// CHECK:         %[[E:.*]] = stablehlo.exponential %[[X]] : tensor<?x?x16x?x16xf32>
// CHECK:         stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.add across dimensions = [3, 4]
// CHECK:         %[[P:.*]] = stablehlo.divide %[[E]], %{{.*}} : tensor<?x?x16x?x16xf32>
// CHECK:         %[[P0:.*]] = stablehlo.select %{{.*}}, %[[P]], %{{.*}} : tensor<?x?x16x?x16xi1>, tensor<?x?x16x?x16xf32>
// CHECK:         %[[PC:.*]] = tensor.collapse_shape %[[P0]] {{\[\[}}0], [1, 2], [3, 4]] : tensor<?x?x16x?x16xf32> into tensor<?x?x?xf32>
// CHECK:         %[[VP:.*]] = tensor.pad %[[V]] low[0, 0, 0] high[0, %{{.*}}, 0]
// CHECK:         %[[O:.*]] = stablehlo.dot_general %[[PC]], %[[VP]], batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
// CHECK:         %[[R:.*]] = tensor.extract_slice %[[O]][0, 0, 0] [%{{.*}}, %[[NQ]], 8] [1, 1, 1] : tensor<?x?x8xf32> to tensor<?x?x8xf32>
// CHECK:         return %[[R]]
func.func @softmax_attention(%q: tensor<?x?x8xf32>, %kt: tensor<?x8x?xf32>, %v: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = stablehlo.dot_general %q, %kt, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x8xf32>, tensor<?x8x?xf32>) -> tensor<?x?x?xf32>
  %m = stablehlo.reduce(%s init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %d0 = tensor.dim %s, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %s, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %s, %c2 : tensor<?x?x?xf32>
  %i0 = arith.index_cast %d0 : index to i64
  %i1 = arith.index_cast %d1 : index to i64
  %i2 = arith.index_cast %d2 : index to i64
  %shape = tensor.from_elements %i0, %i1, %i2 : tensor<3xi64>
  %mb = stablehlo.dynamic_broadcast_in_dim %m, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %x = stablehlo.subtract %s, %mb : tensor<?x?x?xf32>
  %e = stablehlo.exponential %x : tensor<?x?x?xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %sb = stablehlo.dynamic_broadcast_in_dim %sum, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %p = stablehlo.divide %e, %sb : tensor<?x?x?xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %o : tensor<?x?x8xf32>
}

// -----

// Heads split off and transposed (`q.view(b, s, h, d).transpose(1, 2)`, k transposed once more
// for the scores): each is padded on its own sequence axis before the transpose, split into
// (blocks, 16), transposed and collapsed, so that the padded axis reaches the matmul as a
// collapse of (blocks, 16) with the 16 static (pad-in-blocks).
// CHECK-LABEL: func @heads_transposed
// CHECK:         %[[QP:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, %{{.*}}, 0, 0]
// CHECK:         %[[QE:.*]] = tensor.expand_shape %[[QP]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.*}}, %{{.*}}, 16, 2, 8] : tensor<?x?x2x8xf32> into tensor<?x?x16x2x8xf32>
// CHECK:         %[[QT:.*]] = stablehlo.transpose %[[QE]], dims = [0, 3, 1, 2, 4] : (tensor<?x?x16x2x8xf32>) -> tensor<?x2x?x16x8xf32>
// CHECK:         %[[QC:.*]] = tensor.collapse_shape %[[QT]] {{\[\[}}0, 1], [2, 3], [4]] : tensor<?x2x?x16x8xf32> into tensor<?x?x8xf32>
// CHECK:         %[[KP:.*]] = tensor.pad %arg1 low[0, 0, 0, 0] high[0, %{{.*}}, 0, 0]
// CHECK:         %[[KT:.*]] = stablehlo.transpose %{{.*}}, dims = [0, 3, 4, 1, 2] : (tensor<?x?x16x2x8xf32>) -> tensor<?x2x8x?x16xf32>
// CHECK:         %[[KC:.*]] = tensor.collapse_shape %[[KT]] {{\[\[}}0, 1], [2], [3, 4]] : tensor<?x2x8x?x16xf32> into tensor<?x8x?xf32>
// CHECK:         stablehlo.dot_general %[[QC]], %[[KC]], batching_dims = [0] x [0], contracting_dims = [2] x [1]
// The values' product, its heads put back beside the sequence: expanded with the padded query
// axis as (blocks, 16), transposed, collapsed, and only then the real rows sliced
// (slice-after-transposes).
// CHECK:         %[[O:.*]] = stablehlo.dot_general %{{.*}}, %{{.*}}, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
// CHECK:         %[[OE:.*]] = tensor.expand_shape %[[O]] {{\[\[}}0, 1], [2, 3], [4]] output_shape [%{{.*}}, 2, %{{.*}}, 16, 8] : tensor<?x?x8xf32> into tensor<?x2x?x16x8xf32>
// CHECK:         %[[OT:.*]] = stablehlo.transpose %[[OE]], dims = [0, 2, 3, 1, 4] : (tensor<?x2x?x16x8xf32>) -> tensor<?x?x16x2x8xf32>
// CHECK:         %[[OC:.*]] = tensor.collapse_shape %[[OT]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x?x16x2x8xf32> into tensor<?x?x2x8xf32>
// CHECK:         %[[R:.*]] = tensor.extract_slice %[[OC]][0, 0, 0, 0] [%{{.*}}, %{{.*}}, 2, 8] [1, 1, 1, 1]
// CHECK:         return %[[R]]
func.func @heads_transposed(%q4: tensor<?x?x2x8xf32>, %k4: tensor<?x?x2x8xf32>, %v: tensor<?x?x8xf32>) -> tensor<?x?x2x8xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %qt = stablehlo.transpose %q4, dims = [0, 2, 1, 3] : (tensor<?x?x2x8xf32>) -> tensor<?x2x?x8xf32>
  %q = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<?x2x?x8xf32> into tensor<?x?x8xf32>
  %ktt = stablehlo.transpose %k4, dims = [0, 2, 3, 1] : (tensor<?x?x2x8xf32>) -> tensor<?x2x8x?xf32>
  %kt = tensor.collapse_shape %ktt [[0, 1], [2], [3]] : tensor<?x2x8x?xf32> into tensor<?x8x?xf32>
  %s = stablehlo.dot_general %q, %kt, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x8xf32>, tensor<?x8x?xf32>) -> tensor<?x?x?xf32>
  %m = stablehlo.reduce(%s init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %d0 = tensor.dim %s, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %s, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %s, %c2 : tensor<?x?x?xf32>
  %i0 = arith.index_cast %d0 : index to i64
  %i1 = arith.index_cast %d1 : index to i64
  %i2 = arith.index_cast %d2 : index to i64
  %shape = tensor.from_elements %i0, %i1, %i2 : tensor<3xi64>
  %mb = stablehlo.dynamic_broadcast_in_dim %m, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %x = stablehlo.subtract %s, %mb : tensor<?x?x?xf32>
  %e = stablehlo.exponential %x : tensor<?x?x?xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %sb = stablehlo.dynamic_broadcast_in_dim %sum, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %p = stablehlo.divide %e, %sb : tensor<?x?x?xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %b = tensor.dim %q4, %c0 : tensor<?x?x2x8xf32>
  %n = tensor.dim %q4, %c1 : tensor<?x?x2x8xf32>
  %oe = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [%b, 2, %n, 8] : tensor<?x?x8xf32> into tensor<?x2x?x8xf32>
  %ot = stablehlo.transpose %oe, dims = [0, 2, 1, 3] : (tensor<?x2x?x8xf32>) -> tensor<?x?x2x8xf32>
  return %ot : tensor<?x?x2x8xf32>
}

// -----

// The scores are also returned: the region escapes, nothing is blocked.
// CHECK-LABEL: func @scores_returned_too
// CHECK-NOT:     tensor.pad
// CHECK-NOT:     x16x
// CHECK:         return
// IF-LABEL: func @scores_returned_too
// IF-NOT:     scf.if
// IF:         return
func.func @scores_returned_too(%q: tensor<?x?x8xf32>, %kt: tensor<?x8x?xf32>, %v: tensor<?x?x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x?xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = stablehlo.dot_general %q, %kt, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x8xf32>, tensor<?x8x?xf32>) -> tensor<?x?x?xf32>
  %m = stablehlo.reduce(%s init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %d0 = tensor.dim %s, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %s, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %s, %c2 : tensor<?x?x?xf32>
  %i0 = arith.index_cast %d0 : index to i64
  %i1 = arith.index_cast %d1 : index to i64
  %i2 = arith.index_cast %d2 : index to i64
  %shape = tensor.from_elements %i0, %i1, %i2 : tensor<3xi64>
  %mb = stablehlo.dynamic_broadcast_in_dim %m, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %x = stablehlo.subtract %s, %mb : tensor<?x?x?xf32>
  %e = stablehlo.exponential %x : tensor<?x?x?xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %sb = stablehlo.dynamic_broadcast_in_dim %sum, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %p = stablehlo.divide %e, %sb : tensor<?x?x?xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %o, %s : tensor<?x?x8xf32>, tensor<?x?x?xf32>
}
