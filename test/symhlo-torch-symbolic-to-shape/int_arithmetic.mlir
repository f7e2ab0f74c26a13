// RUN: symhlo-opt --symhlo-torch-symbolic-to-shape --split-input-file --verify-diagnostics %s | FileCheck %s

// torch.export's size arithmetic on !torch.int -> `shape` dialect (arith where shape has no op on
// index), bridged back to !torch.int with torch_c.from_i64. Each size starts as aten.size.int of
// a `?` axis, so it comes out as shape_of + get_extent.

// CHECK-LABEL: func @aten_add_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[R:.*]] = shape.add %[[N]], %[[C]] : index, index -> index
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @aten_add_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.add.int %n, %int8 : !torch.int, !torch.int -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @aten_mul_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[R:.*]] = shape.mul %[[N]], %[[C]] : index, index -> index
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @aten_mul_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.mul.int %n, %int8 : !torch.int, !torch.int -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @aten_sub_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[R:.*]] = arith.subi %[[N]], %[[C]] : index
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @aten_sub_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.sub.int %n, %int8 : !torch.int, !torch.int -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @aten_floordiv_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[R:.*]] = shape.div %[[N]], %[[C]] : index, index -> index
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @aten_floordiv_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.floordiv.int %n, %int8 : !torch.int, !torch.int -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @prim_max_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[R:.*]] = arith.maxsi %[[N]], %[[C]] : index
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @prim_max_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.prim.max.int %n, %int8 : !torch.int, !torch.int -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @prim_min_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[R:.*]] = arith.minsi %[[N]], %[[C]] : index
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @prim_min_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.prim.min.int %n, %int8 : !torch.int, !torch.int -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @aten_sym_max_as_torch_operator
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[R:.*]] = arith.maxsi %[[N]], %[[C]] : index
// CHECK-NOT:     torch.operator
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @aten_sym_max_as_torch_operator(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.operator "torch.aten.sym_max"(%n, %int8) : (!torch.int, !torch.int) -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @aten_sym_min_as_torch_operator
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[R:.*]] = arith.minsi %[[N]], %[[C]] : index
// CHECK-NOT:     torch.operator
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @aten_sym_min_as_torch_operator(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.operator "torch.aten.sym_min"(%n, %int8) : (!torch.int, !torch.int) -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @aten_fmod_int_as_torch_operator
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[R:.*]] = arith.remsi %[[N]], %[[C]] : index
// CHECK-NOT:     torch.operator
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @aten_fmod_int_as_torch_operator(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.operator "torch.aten.fmod.int"(%n, %int8) : (!torch.int, !torch.int) -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @aten_remainder_int_has_python_sign_semantics
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[REM:.*]] = arith.remsi %[[N]], %[[C]] : index
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[NZ:.*]] = arith.cmpi ne, %[[REM]], %[[ZERO]] : index
// CHECK:         %[[RNEG:.*]] = arith.cmpi slt, %[[REM]], %[[ZERO]] : index
// CHECK:         %[[CNEG:.*]] = arith.cmpi slt, %[[C]], %[[ZERO]] : index
// CHECK:         %[[DIFF:.*]] = arith.xori %[[RNEG]], %[[CNEG]] : i1
// CHECK:         %[[FIX:.*]] = arith.andi %[[NZ]], %[[DIFF]] : i1
// CHECK:         %[[ADJ:.*]] = arith.addi %[[REM]], %[[C]] : index
// CHECK:         %[[R:.*]] = arith.select %[[FIX]], %[[ADJ]], %[[REM]] : index
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @aten_remainder_int_has_python_sign_semantics(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.remainder.int %n, %int8 : !torch.int, !torch.int -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @aten_neg_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[R:.*]] = arith.subi %[[ZERO]], %[[N]] : index
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @aten_neg_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %r = torch.aten.neg.int %n : !torch.int -> !torch.int
  return %r : !torch.int
}

// -----

// CHECK-LABEL: func @aten_eq_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[P:.*]] = arith.cmpi eq, %[[N]], %[[C]] : index
// CHECK:         %[[B:.*]] = torch_c.from_i1 %[[P]]
// CHECK:         return %[[B]] : !torch.bool
func.func @aten_eq_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.bool {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.eq.int %n, %int8 : !torch.int, !torch.int -> !torch.bool
  return %r : !torch.bool
}

// -----

// CHECK-LABEL: func @aten_ne_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[P:.*]] = arith.cmpi ne, %[[N]], %[[C]] : index
// CHECK:         %[[B:.*]] = torch_c.from_i1 %[[P]]
// CHECK:         return %[[B]] : !torch.bool
func.func @aten_ne_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.bool {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.ne.int %n, %int8 : !torch.int, !torch.int -> !torch.bool
  return %r : !torch.bool
}

// -----

// CHECK-LABEL: func @aten_lt_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[P:.*]] = arith.cmpi slt, %[[N]], %[[C]] : index
// CHECK:         %[[B:.*]] = torch_c.from_i1 %[[P]]
// CHECK:         return %[[B]] : !torch.bool
func.func @aten_lt_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.bool {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.lt.int %n, %int8 : !torch.int, !torch.int -> !torch.bool
  return %r : !torch.bool
}

// -----

// CHECK-LABEL: func @aten_le_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[P:.*]] = arith.cmpi sle, %[[N]], %[[C]] : index
// CHECK:         %[[B:.*]] = torch_c.from_i1 %[[P]]
// CHECK:         return %[[B]] : !torch.bool
func.func @aten_le_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.bool {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.le.int %n, %int8 : !torch.int, !torch.int -> !torch.bool
  return %r : !torch.bool
}

// -----

// CHECK-LABEL: func @aten_gt_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[P:.*]] = arith.cmpi sgt, %[[N]], %[[C]] : index
// CHECK:         %[[B:.*]] = torch_c.from_i1 %[[P]]
// CHECK:         return %[[B]] : !torch.bool
func.func @aten_gt_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.bool {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.gt.int %n, %int8 : !torch.int, !torch.int -> !torch.bool
  return %r : !torch.bool
}

// -----

// CHECK-LABEL: func @aten_ge_int
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[C:.*]] = arith.constant 8 : index
// CHECK:         %[[P:.*]] = arith.cmpi sge, %[[N]], %[[C]] : index
// CHECK:         %[[B:.*]] = torch_c.from_i1 %[[P]]
// CHECK:         return %[[B]] : !torch.bool
func.func @aten_ge_int(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.bool {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int8 = torch.constant.int 8
  %r = torch.aten.ge.int %n, %int8 : !torch.int, !torch.int -> !torch.bool
  return %r : !torch.bool
}

// -----

// CHECK-LABEL: func @chain_stays_in_index
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],f32> -> tensor<?x3xf32>
// CHECK:         %[[S:.*]] = shape.shape_of %[[T]] : tensor<?x3xf32> -> tensor<2xindex>
// CHECK:         %[[N:.*]] = shape.get_extent %[[S]], %{{.*}} : tensor<2xindex>, index -> index
// CHECK:         %[[A:.*]] = shape.mul %[[N]], %{{.*}} : index, index -> index
// CHECK-NOT:     torch_c.to_i64
// CHECK:         %[[R:.*]] = shape.div %[[A]], %{{.*}} : index, index -> index
// CHECK:         %[[I:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @chain_stays_in_index(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  %int2 = torch.constant.int 2
  %int8 = torch.constant.int 8
  %a = torch.aten.mul.int %n, %int2 : !torch.int, !torch.int -> !torch.int
  %r = torch.aten.floordiv.int %a, %int8 : !torch.int, !torch.int -> !torch.int
  return %r : !torch.int
}

// -----

// A static axis needs no shape op.
// CHECK-LABEL: func @size_of_static_axis_is_a_constant
// CHECK-NOT:     shape.shape_of
// CHECK:         %[[C:.*]] = arith.constant 3 : index
// CHECK:         %[[I:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK:         %[[OUT:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         return %[[OUT]] : !torch.int
func.func @size_of_static_axis_is_a_constant(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.int {
  %int-1 = torch.constant.int -1
  %n = torch.aten.size.int %arg0, %int-1 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  return %n : !torch.int
}

// -----

// The seed model as torch.export leaves it: symbols and per-value shapes become func attributes,
// the size feeds torch.aten.expand through torch_c.from_i64.
// CHECK-LABEL: func @seed_expand
// CHECK-SAME:    symhlo.arg_shapes = {{\[}}["s77", "3", "224", "224"]]
// CHECK-SAME:    symhlo.result_shapes = {{\[}}["s77 * 2", "1", "768"]]
// CHECK-SAME:    symhlo.symbols = {s77 = [2, 64]}
// CHECK-NOT:     torch.symbolic_int
// CHECK-NOT:     torch.bind_symbolic_shape
// CHECK:         %[[N:.*]] = shape.get_extent
// CHECK:         %[[M:.*]] = shape.mul %[[N]], %{{.*}} : index, index -> index
// CHECK:         %[[I:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK:         %[[T:.*]] = torch_c.from_i64 %[[I]]
// CHECK:         %[[L:.*]] = torch.prim.ListConstruct %[[T]], %{{.*}}, %{{.*}} :
// CHECK:         torch.aten.expand %{{.*}}, %[[L]]
func.func @seed_expand(%arg0: !torch.vtensor<[?,3,224,224],f32>) -> !torch.vtensor<[?,1,768],f32> {
  %0 = torch.symbolic_int "s77" {min_val = 2, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %arg0, [%0], affine_map<()[s0] -> (s0, 3, 224, 224)> : !torch.vtensor<[?,3,224,224],f32>
  %int0 = torch.constant.int 0
  %1 = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,3,224,224],f32>, !torch.int -> !torch.int
  %int2 = torch.constant.int 2
  %2 = torch.aten.mul.int %1, %int2 : !torch.int, !torch.int -> !torch.int
  %3 = torch.vtensor.literal(dense<1.0> : tensor<1x1x768xf32>) : !torch.vtensor<[1,1,768],f32>
  %int-1 = torch.constant.int -1
  %4 = torch.prim.ListConstruct %2, %int-1, %int-1 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %5 = torch.aten.expand %3, %4, %false : !torch.vtensor<[1,1,768],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[?,1,768],f32>
  torch.bind_symbolic_shape %5, [%0], affine_map<()[s0] -> (s0 * 2, 1, 768)> : !torch.vtensor<[?,1,768],f32>
  return %5 : !torch.vtensor<[?,1,768],f32>
}

// -----

// A contract already on the function (symhlo.export writes it right after import: s77 narrowed
// to [3, 40] by inputs=) keeps its ranges and argument shapes; only the symbol no argument binds
// (u0, a data-dependent size) is added, with torch's range.
// CHECK-LABEL: func @contract_keeps_its_ranges
// CHECK-SAME:    symhlo.arg_shapes = {{\[}}["s77", "3"]]
// CHECK-SAME:    symhlo.result_shapes = {{\[}}["u0", "2"]]
// CHECK-SAME:    symhlo.symbols = {s77 = [3, 40], u0 = [0, 9223372036854775806]}
// CHECK-NOT:     torch.symbolic_int
func.func @contract_keeps_its_ranges(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,2],si64>
    attributes {symhlo.symbols = {s77 = [3, 40]}, symhlo.arg_shapes = [["s77", "3"]]} {
  %0 = torch.symbolic_int "s77" {min_val = 2, max_val = 64} : !torch.int
  %1 = torch.symbolic_int "u0" {min_val = 0, max_val = 9223372036854775806} : !torch.int
  torch.bind_symbolic_shape %arg0, [%0], affine_map<()[s0] -> (s0, 3)> : !torch.vtensor<[?,3],f32>
  %2 = torch.aten.nonzero %arg0 : !torch.vtensor<[?,3],f32> -> !torch.vtensor<[?,2],si64>
  torch.bind_symbolic_shape %2, [%1], affine_map<()[s0] -> (s0, 2)> : !torch.vtensor<[?,2],si64>
  return %2 : !torch.vtensor<[?,2],si64>
}

// -----

func.func @size_failure_non_constant_dim(%arg0: !torch.vtensor<[?,3],f32>, %arg1: !torch.int) -> !torch.int {
  // expected-error@+1 {{dimension must be a constant}}
  %n = torch.aten.size.int %arg0, %arg1 : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
  return %n : !torch.int
}

// -----

func.func @size_failure_unranked(%arg0: !torch.vtensor<*,f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  // expected-error@+1 {{operand type !torch.vtensor<*,f32>}}
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<*,f32>, !torch.int -> !torch.int
  return %n : !torch.int
}

// -----

// An argument axis typed `?` that torch.export pinned (its size expression is the constant 2)
// gets the static size in the argument's and the function's type, matching the ops after it.
// CHECK-LABEL: func @pinned_arg_axis
// CHECK-SAME:    (%arg0: !torch.vtensor<[1,?,2],f32>) -> !torch.vtensor<[1,?,2,1],f32>
// CHECK-SAME:    symhlo.arg_shapes = {{\[}}["1", "s85", "2"]]
// CHECK:         torch.aten.unsqueeze %arg0, %{{.*}} : !torch.vtensor<[1,?,2],f32>, !torch.int -> !torch.vtensor<[1,?,2,1],f32>
func.func @pinned_arg_axis(%arg0: !torch.vtensor<[1,?,?],f32>) -> !torch.vtensor<[1,?,2,1],f32> {
  %0 = torch.symbolic_int "s85" {min_val = 2, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %arg0, [%0], affine_map<()[s0] -> (1, s0, 2)> : !torch.vtensor<[1,?,?],f32>
  %int-1 = torch.constant.int -1
  %1 = torch.aten.unsqueeze %arg0, %int-1 : !torch.vtensor<[1,?,?],f32>, !torch.int -> !torch.vtensor<[1,?,2,1],f32>
  return %1 : !torch.vtensor<[1,?,2,1],f32>
}
