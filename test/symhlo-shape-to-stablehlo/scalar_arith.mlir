// RUN: symhlo-opt --symhlo-shape-to-stablehlo --split-input-file --verify-diagnostics %s | FileCheck %s

// Scalar size arithmetic: arith on i64 sizes -> StableHLO on 0-d tensor<i64>. Each size starts as a
// tensor.dim of a `?` axis, so it comes out as get_dimension_size (i32) widened to i64 once.

// CHECK-LABEL: func @arith_addi
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<5> : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.add %[[I]], %[[C]] : tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_addi(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 5 : i64
  %r = arith.addi %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_subi
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.subtract %[[I]], %[[C]] : tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_subi(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 1 : i64
  %r = arith.subi %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_muli
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<2> : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.multiply %[[I]], %[[C]] : tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_muli(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 2 : i64
  %r = arith.muli %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_divsi
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<2> : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.divide %[[I]], %[[C]] : tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_divsi(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 2 : i64
  %r = arith.divsi %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_remsi
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<8> : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.remainder %[[I]], %[[C]] : tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_remsi(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 8 : i64
  %r = arith.remsi %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_maxsi
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.maximum %[[I]], %[[C]] : tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_maxsi(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 4 : i64
  %r = arith.maxsi %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_minsi
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.minimum %[[I]], %[[C]] : tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_minsi(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 4 : i64
  %r = arith.minsi %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_floordivsi_rounds_toward_minus_infinity
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[B:.*]] = stablehlo.constant dense<-2> : tensor<i64>
// CHECK:         %[[Q:.*]] = stablehlo.divide %[[I]], %[[B]] : tensor<i64>
// CHECK:         %[[REM:.*]] = stablehlo.remainder %[[I]], %[[B]] : tensor<i64>
// CHECK:         %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK:         %[[NZ:.*]] = stablehlo.compare NE, %[[REM]], %[[ZERO]]
// CHECK:         %[[RNEG:.*]] = stablehlo.compare LT, %[[REM]], %[[ZERO]]
// CHECK:         %[[BNEG:.*]] = stablehlo.compare LT, %[[B]], %[[ZERO]]
// CHECK:         %[[DIFF:.*]] = stablehlo.compare NE, %[[RNEG]], %[[BNEG]] : (tensor<i1>, tensor<i1>) -> tensor<i1>
// CHECK:         %[[FIX:.*]] = stablehlo.and %[[NZ]], %[[DIFF]] : tensor<i1>
// CHECK:         %[[ONE:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK:         %[[QM1:.*]] = stablehlo.subtract %[[Q]], %[[ONE]] : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.select %[[FIX]], %[[QM1]], %[[Q]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_floordivsi_rounds_toward_minus_infinity(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant -2 : i64
  %r = arith.floordivsi %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_ceildivsi_rounds_toward_plus_infinity
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[B:.*]] = stablehlo.constant dense<8> : tensor<i64>
// CHECK:         %[[Q:.*]] = stablehlo.divide %[[I]], %[[B]] : tensor<i64>
// CHECK:         %[[REM:.*]] = stablehlo.remainder %[[I]], %[[B]] : tensor<i64>
// CHECK:         %[[NZ:.*]] = stablehlo.compare NE, %[[REM]], %[[ZERO:.*]] :
// CHECK:         %[[RNEG:.*]] = stablehlo.compare LT, %[[REM]], %[[ZERO]]
// CHECK:         %[[BNEG:.*]] = stablehlo.compare LT, %[[B]], %[[ZERO]]
// CHECK:         %[[SAME:.*]] = stablehlo.compare EQ, %[[RNEG]], %[[BNEG]] : (tensor<i1>, tensor<i1>) -> tensor<i1>
// CHECK:         %[[FIX:.*]] = stablehlo.and %[[NZ]], %[[SAME]] : tensor<i1>
// CHECK:         %[[QP1:.*]] = stablehlo.add %[[Q]], %{{.*}} : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.select %[[FIX]], %[[QP1]], %[[Q]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_ceildivsi_rounds_toward_plus_infinity(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 8 : i64
  %r = arith.ceildivsi %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_cmpi_eq_select
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK:         %[[P:.*]] = stablehlo.compare EQ, %[[I]], %[[C]] : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %[[C]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_cmpi_eq_select(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 4 : i64
  %p = arith.cmpi eq, %i, %c : i64
  %r = arith.select %p, %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_cmpi_ne_select
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK:         %[[P:.*]] = stablehlo.compare NE, %[[I]], %[[C]] : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %[[C]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_cmpi_ne_select(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 4 : i64
  %p = arith.cmpi ne, %i, %c : i64
  %r = arith.select %p, %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_cmpi_slt_select
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK:         %[[P:.*]] = stablehlo.compare LT, %[[I]], %[[C]] : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %[[C]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_cmpi_slt_select(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 4 : i64
  %p = arith.cmpi slt, %i, %c : i64
  %r = arith.select %p, %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_cmpi_sle_select
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK:         %[[P:.*]] = stablehlo.compare LE, %[[I]], %[[C]] : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %[[C]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_cmpi_sle_select(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 4 : i64
  %p = arith.cmpi sle, %i, %c : i64
  %r = arith.select %p, %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_cmpi_sgt_select
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK:         %[[P:.*]] = stablehlo.compare GT, %[[I]], %[[C]] : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %[[C]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_cmpi_sgt_select(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 4 : i64
  %p = arith.cmpi sgt, %i, %c : i64
  %r = arith.select %p, %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_cmpi_sge_select
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK:         %[[P:.*]] = stablehlo.compare GE, %[[I]], %[[C]] : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %[[C]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_cmpi_sge_select(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 4 : i64
  %p = arith.cmpi sge, %i, %c : i64
  %r = arith.select %p, %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_cmpi_ult_select
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[C:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK:         %[[P:.*]] = stablehlo.compare LT, %[[I]], %[[C]] : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %[[C]] : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_cmpi_ult_select(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 4 : i64
  %p = arith.cmpi ult, %i, %c : i64
  %r = arith.select %p, %i, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_andi_on_predicates
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[LO:.*]] = stablehlo.compare GE, %[[I]]
// CHECK:         %[[HI:.*]] = stablehlo.compare LT, %[[I]]
// CHECK:         %[[P:.*]] = stablehlo.and %[[LO]], %[[HI]] : tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %{{.*}} : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_andi_on_predicates(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c2 = arith.constant 2 : i64
  %c9 = arith.constant 9 : i64
  %lo = arith.cmpi sge, %i, %c2 : i64
  %hi = arith.cmpi slt, %i, %c9 : i64
  %p = arith.andi %lo, %hi : i1
  %r = arith.select %p, %i, %c2 : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_ori_on_predicates
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[LO:.*]] = stablehlo.compare GE, %[[I]]
// CHECK:         %[[HI:.*]] = stablehlo.compare LT, %[[I]]
// CHECK:         %[[P:.*]] = stablehlo.or %[[LO]], %[[HI]] : tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %{{.*}} : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_ori_on_predicates(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c2 = arith.constant 2 : i64
  %c9 = arith.constant 9 : i64
  %lo = arith.cmpi sge, %i, %c2 : i64
  %hi = arith.cmpi slt, %i, %c9 : i64
  %p = arith.ori %lo, %hi : i1
  %r = arith.select %p, %i, %c2 : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_xori_on_predicates
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[LO:.*]] = stablehlo.compare GE, %[[I]]
// CHECK:         %[[HI:.*]] = stablehlo.compare LT, %[[I]]
// CHECK:         %[[P:.*]] = stablehlo.xor %[[LO]], %[[HI]] : tensor<i1>
// CHECK:         %[[R:.*]] = stablehlo.select %[[P]], %[[I]], %{{.*}} : tensor<i1>, tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_xori_on_predicates(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c2 = arith.constant 2 : i64
  %c9 = arith.constant 9 : i64
  %lo = arith.cmpi sge, %i, %c2 : i64
  %hi = arith.cmpi slt, %i, %c9 : i64
  %p = arith.xori %lo, %hi : i1
  %r = arith.select %p, %i, %c2 : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_casts_are_looked_through
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK-NOT:     stablehlo.convert
// CHECK:         %[[R:.*]] = stablehlo.add %[[I]], %{{.*}} : tensor<i64>
// CHECK-NEXT:    return %[[R]] : tensor<i64>
func.func @arith_casts_are_looked_through(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %t32 = arith.trunci %i : i64 to i32
  %e = arith.extsi %t32 : i32 to i64
  %x = arith.index_castui %e : i64 to index
  %y = arith.index_cast %x : index to i64
  %c = arith.constant 3 : i64
  %r = arith.addi %y, %c : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_extui_of_predicate_converts_i1
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[P:.*]] = stablehlo.compare LT, %[[I]]
// CHECK:         %[[E:.*]] = stablehlo.convert %[[P]] : (tensor<i1>) -> tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.add %[[I]], %[[E]] : tensor<i64>
// CHECK:         return %[[R]] : tensor<i64>
func.func @arith_extui_of_predicate_converts_i1(%arg0: tensor<?x3xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 3 : i64
  %p = arith.cmpi slt, %i, %c : i64
  %e = arith.extui %p : i1 to i64
  %r = arith.addi %i, %e : i64
  %t = tensor.from_elements %r : tensor<i64>
  return %t : tensor<i64>
}

// -----

// CHECK-LABEL: func @arith_sitofp
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[F:.*]] = stablehlo.convert %[[I]] : (tensor<i64>) -> tensor<f32>
// CHECK:         return %[[F]] : tensor<f32>
func.func @arith_sitofp(%arg0: tensor<?x3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %f = arith.sitofp %i : i64 to f32
  %t = tensor.from_elements %f : tensor<f32>
  return %t : tensor<f32>
}

// -----

// CHECK-LABEL: func @scalar_bridge_for_unconverted_user
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.multiply %[[I]], %{{.*}} : tensor<i64>
// CHECK:         %[[X:.*]] = tensor.extract %[[R]][] : tensor<i64>
// CHECK:         return %[[X]] : i64
func.func @scalar_bridge_for_unconverted_user(%arg0: tensor<?x3xf32>) -> i64 {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 2 : i64
  %r = arith.muli %i, %c : i64
  return %r : i64
}

// -----

// CHECK-LABEL: func @scalar_bridge_back_to_index
// CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[D]] : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.multiply %[[I]], %{{.*}} : tensor<i64>
// CHECK:         %[[X:.*]] = tensor.extract %[[R]][] : tensor<i64>
// CHECK:         %[[IDX:.*]] = arith.index_cast %[[X]] : i64 to index
// CHECK:         return %[[IDX]] : index
func.func @scalar_bridge_back_to_index(%arg0: tensor<?x3xf32>) -> index {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %c = arith.constant 2 : index
  %r = arith.muli %d, %c : index
  return %r : index
}
