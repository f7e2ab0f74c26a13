// RUN: symhlo-opt --symhlo-decompose-symbolic-torch-ops --split-input-file %s | FileCheck %s

// Torch ops whose size operands are symbolic -> slices, `full` and `cat` that torch-mlir lowers
// with `?` dims. Pad amounts are symbolic (computed from aten.size.int).

// A pad amount the interval analysis proves >= 0, `(8 - n % 8) % 8`: one `full` block, one cat.
// CHECK-LABEL: func @constant_pad_nd_to_multiple
// CHECK:         %[[N:.*]] = torch.aten.size.int %arg0
// CHECK:         torch.aten.sub.int
// CHECK:         %[[P:.*]] = torch.aten.remainder.int
// CHECK-NOT:     torch.aten.constant_pad_nd
// CHECK:         %[[SHAPE:.*]] = torch.prim.ListConstruct %int2{{.*}}, %[[P]] : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK:         %[[Z:.*]] = torch.aten.full %[[SHAPE]], %{{.*}} -> !torch.vtensor<[2,?],f32>
// CHECK:         %[[L:.*]] = torch.prim.ListConstruct %arg0, %[[Z]]
// CHECK:         %[[R:.*]] = torch.aten.cat %[[L]], %{{.*}} -> !torch.vtensor<[2,?],f32>
// CHECK-NOT:     torch.aten.slice.Tensor
// CHECK:         return %[[R]]
func.func @constant_pad_nd_to_multiple(%arg0: !torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32> {
  %int1 = torch.constant.int 1
  %int0 = torch.constant.int 0
  %int8 = torch.constant.int 8
  %n = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,?],f32>, !torch.int -> !torch.int
  %m = torch.aten.remainder.int %n, %int8 : !torch.int, !torch.int -> !torch.int
  %d = torch.aten.sub.int %int8, %m : !torch.int, !torch.int -> !torch.int
  %p = torch.aten.remainder.int %d, %int8 : !torch.int, !torch.int -> !torch.int
  %pads = torch.prim.ListConstruct %int0, %p : (!torch.int, !torch.int) -> !torch.list<int>
  %f0 = torch.constant.float 0.000000e+00
  %r = torch.aten.constant_pad_nd %arg0, %pads, %f0 : !torch.vtensor<[2,?],f32>, !torch.list<int>, !torch.float -> !torch.vtensor<[2,?],f32>
  return %r : !torch.vtensor<[2,?],f32>
}

// -----

// A pad amount of unknown sign (n - 5) pads by max(p, 0) and then crops max(-p, 0), as torch
// defines a negative pad: nothing is assumed about n.
// CHECK-LABEL: func @constant_pad_nd_unknown_sign
// CHECK:         %[[P:.*]] = torch.aten.sub.int
// CHECK:         %[[GROW:.*]] = torch.prim.max.int %[[P]], %{{.*}}
// CHECK:         %[[NEG:.*]] = torch.aten.neg.int %[[P]]
// CHECK:         %[[CROP:.*]] = torch.prim.max.int %[[NEG]], %{{.*}}
// CHECK:         %[[Z:.*]] = torch.aten.full
// CHECK:         %[[C:.*]] = torch.aten.cat
// CHECK:         %[[LEN:.*]] = torch.aten.size.int %[[C]]
// CHECK:         %[[END:.*]] = torch.aten.sub.int %[[LEN]], %[[CROP]]
// CHECK:         %[[S:.*]] = torch.aten.slice.Tensor %[[C]], %{{.*}}, %{{.*}}, %[[END]], %{{.*}} : {{.*}} -> !torch.vtensor<[?,?],f32>
// CHECK:         return %[[S]]
func.func @constant_pad_nd_unknown_sign(%arg0: !torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32> {
  %int0 = torch.constant.int 0
  %int5 = torch.constant.int 5
  %n = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,?],f32>, !torch.int -> !torch.int
  %p = torch.aten.sub.int %n, %int5 : !torch.int, !torch.int -> !torch.int
  %pads = torch.prim.ListConstruct %int0, %p : (!torch.int, !torch.int) -> !torch.list<int>
  %f0 = torch.constant.float 0.000000e+00
  %r = torch.aten.constant_pad_nd %arg0, %pads, %f0 : !torch.vtensor<[?,?],f32>, !torch.list<int>, !torch.float -> !torch.vtensor<[?,?],f32>
  return %r : !torch.vtensor<[?,?],f32>
}

// -----

// Constant pad amounts are left to torch-mlir.
// CHECK-LABEL: func @constant_pad_nd_constant_untouched
// CHECK:         torch.aten.constant_pad_nd
func.func @constant_pad_nd_constant_untouched(%arg0: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,7],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %pads = torch.prim.ListConstruct %int1, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %f0 = torch.constant.float 0.000000e+00
  %r = torch.aten.constant_pad_nd %arg0, %pads, %f0 : !torch.vtensor<[?,4],f32>, !torch.list<int>, !torch.float -> !torch.vtensor<[?,7],f32>
  return %r : !torch.vtensor<[?,7],f32>
}

// -----

// split_with_sizes by the sizes of other tensors: slices at running offsets.
// CHECK-LABEL: func @split_with_sizes_symbolic
// CHECK:         %[[A:.*]] = torch.aten.size.int %arg1
// CHECK:         %[[B:.*]] = torch.aten.size.int %arg2
// CHECK-NOT:     torch.aten.split_with_sizes
// CHECK:         %[[S0:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %[[A]], %{{.*}} : {{.*}} -> !torch.vtensor<[3,?],f32>
// CHECK:         %[[E:.*]] = torch.aten.add.int %[[A]], %[[B]]
// CHECK:         %[[S1:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %[[A]], %[[E]], %{{.*}} : {{.*}} -> !torch.vtensor<[3,?],f32>
// CHECK:         return %[[S0]], %[[S1]]
func.func @split_with_sizes_symbolic(%arg0: !torch.vtensor<[3,?],f32>, %arg1: !torch.vtensor<[3,?],f32>, %arg2: !torch.vtensor<[3,?],f32>) -> (!torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],f32>) {
  %int1 = torch.constant.int 1
  %a = torch.aten.size.int %arg1, %int1 : !torch.vtensor<[3,?],f32>, !torch.int -> !torch.int
  %b = torch.aten.size.int %arg2, %int1 : !torch.vtensor<[3,?],f32>, !torch.int -> !torch.int
  %sizes = torch.prim.ListConstruct %a, %b : (!torch.int, !torch.int) -> !torch.list<int>
  %parts = torch.aten.split_with_sizes %arg0, %sizes, %int1 : !torch.vtensor<[3,?],f32>, !torch.list<int>, !torch.int -> !torch.list<vtensor>
  %r:2 = torch.prim.ListUnpack %parts : !torch.list<vtensor> -> !torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],f32>
  return %r#0, %r#1 : !torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],f32>
}

// -----

// cumsum over a `?` axis whose symbol has max 4 (<= 1024): a masked sum over the triangle
// j <= i, no gather, no `cat` (IREE 3.13 fails on a cat of a widened integer).
// CHECK-LABEL: func @cumsum_bounded_symbol
// CHECK:         %[[N:.*]] = torch.aten.size.int %arg0
// CHECK:         %[[I:.*]] = torch.aten.arange %[[N]], {{.*}} -> !torch.vtensor<[?],si64>
// CHECK:         %[[C:.*]] = torch.aten.unsqueeze %[[I]], %{{.*}} -> !torch.vtensor<[1,?],si64>
// CHECK:         %[[R:.*]] = torch.aten.unsqueeze %[[I]], %{{.*}} -> !torch.vtensor<[?,1],si64>
// CHECK:         %[[T:.*]] = torch.aten.le.Tensor %[[C]], %[[R]] : {{.*}} -> !torch.vtensor<[?,?],i1>
// CHECK:         %[[X:.*]] = torch.aten.unsqueeze %arg0, %{{.*}} -> !torch.vtensor<[2,1,?],f32>
// CHECK:         %[[M:.*]] = torch.aten.where.ScalarOther %[[T]], %[[X]], %{{.*}} -> !torch.vtensor<[2,?,?],f32>
// CHECK:         %[[S:.*]] = torch.aten.sum.dim_IntList %[[M]], {{.*}} -> !torch.vtensor<[2,?],f32>
// CHECK-NOT:     torch.aten.cat
// CHECK-NOT:     torch.aten.cumsum
// CHECK:         return %[[S]]
func.func @cumsum_bounded_symbol(%arg0: !torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32> {
  %s = torch.symbolic_int "s0" {min_val = 2, max_val = 4} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s], affine_map<()[s0] -> (2, s0)> : !torch.vtensor<[2,?],f32>
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %r = torch.aten.cumsum %arg0, %int1, %none : !torch.vtensor<[2,?],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,?],f32>
  return %r : !torch.vtensor<[2,?],f32>
}

// -----

// cumsum over an axis of max 4096 (> 1024): the shift-and-add scan, 12 steps (k = 1, 2, ...,
// 2048). The first shifts by a static pad of one zero (IREE 3.13 failed on a `cat` of a widened
// input: "exceeded stack allocation limit"), the others by `cat([zeros(min(k, n)), x])[:n]`; the
// zeros block is never longer than the axis (a static 2^30 block of an unbounded axis exhausted
// memory at load).
// CHECK-LABEL: func @cumsum_long_axis
// CHECK:         %[[P1:.*]] = torch.aten.constant_pad_nd %arg0, {{.*}} -> !torch.vtensor<[?,?],f32>
// CHECK:         %[[S1:.*]] = torch.aten.slice.Tensor %[[P1]], {{.*}} -> !torch.vtensor<[?,?],f32>
// CHECK:         %[[A1:.*]] = torch.aten.add.Tensor %arg0, %[[S1]]
// CHECK:         %[[W2:.*]] = torch.prim.min.int %int2{{.*}}, %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK:         %[[Z2:.*]] = torch.aten.full {{.*}} -> !torch.vtensor<[?,?],f32>
// CHECK:         %[[C2:.*]] = torch.aten.cat {{.*}} -> !torch.vtensor<[?,?],f32>
// CHECK:         %[[S2:.*]] = torch.aten.slice.Tensor %[[C2]], {{.*}} -> !torch.vtensor<[?,?],f32>
// CHECK:         torch.aten.add.Tensor %[[A1]], %[[S2]]
// CHECK-COUNT-10: torch.aten.cat
// CHECK-NOT:     torch.aten.cat
// CHECK-NOT:     torch.aten.cumsum
func.func @cumsum_long_axis(%arg0: !torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32> {
  %s = torch.symbolic_int "s0" {min_val = 2, max_val = 4096} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s], affine_map<()[s0] -> (s0, s0)> : !torch.vtensor<[?,?],f32>
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  %r = torch.aten.cumsum %arg0, %int0, %none : !torch.vtensor<[?,?],f32>, !torch.int, !torch.none -> !torch.vtensor<[?,?],f32>
  return %r : !torch.vtensor<[?,?],f32>
}
