// RUN: symhlo-opt --symhlo-hoist-loop-counters-for-iree --split-input-file %s | FileCheck %s

// A loop counted by a 0-d integer against a size runs its counting on the host: scf.while with
// the counter as an i64, the condition as arith, the body reading the counter back as a 0-d tensor.

// CHECK-LABEL: func @counted_by_a_size
// CHECK:         %[[C0:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK:         %[[T0:.*]] = tensor.extract %[[C0]][] : tensor<i64>
// CHECK:         %[[R:.*]]:3 = scf.while (%[[T:.*]] = %[[T0]], %[[A:.*]] = %arg0, %[[S:.*]] = %{{.*}}) : (i64, tensor<?x4xf32>, tensor<f32>) -> (i64, tensor<?x4xf32>, tensor<f32>) {
// CHECK:           %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK:           %[[D32:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK:           %[[D64:.*]] = arith.extsi %[[D32]] : i32 to i64
// CHECK:           %[[P:.*]] = arith.cmpi slt, %[[T]], %[[D64]] : i64
// CHECK:           scf.condition(%[[P]]) %[[T]], %[[A]], %[[S]] : i64, tensor<?x4xf32>, tensor<f32>
// CHECK:         } do {
// CHECK:         ^bb0(%[[BT:.*]]: i64, %[[BA:.*]]: tensor<?x4xf32>, %[[BS:.*]]: tensor<f32>):
// CHECK:           %[[TT:.*]] = tensor.from_elements %[[BT]] : tensor<i64>
// CHECK:           stablehlo.convert %[[TT]] : (tensor<i64>) -> tensor<f32>
// CHECK:           %[[ONE:.*]] = arith.constant 1 : i64
// CHECK:           %[[NEXT:.*]] = arith.addi %[[BT]], %[[ONE]] : i64
// CHECK:           scf.yield %[[NEXT]], %{{.*}}, %{{.*}} : i64, tensor<?x4xf32>, tensor<f32>
// CHECK:         }
// CHECK:         %[[OUT:.*]] = tensor.from_elements %[[R]]#0 : tensor<i64>
// CHECK:         return %[[OUT]], %[[R]]#1, %[[R]]#2
// CHECK-NOT:     stablehlo.while
func.func @counted_by_a_size(%arg0: tensor<?x4xf32>) -> (tensor<i64>, tensor<?x4xf32>, tensor<f32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0:3 = stablehlo.while(%t = %c0, %a = %arg0, %acc = %z) : tensor<i64>, tensor<?x4xf32>, tensor<f32>
  cond {
    %d = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %n = stablehlo.convert %d : (tensor<i32>) -> tensor<i64>
    %p = stablehlo.compare LT, %t, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %next = stablehlo.add %t, %c1 : tensor<i64>
    %f = stablehlo.convert %t : (tensor<i64>) -> tensor<f32>
    %s = stablehlo.add %acc, %f : tensor<f32>
    %g = stablehlo.add %a, %a : tensor<?x4xf32>
    stablehlo.return %next, %g, %s : tensor<i64>, tensor<?x4xf32>, tensor<f32>
  }
  return %0#0, %0#1, %0#2 : tensor<i64>, tensor<?x4xf32>, tensor<f32>
}

// -----

// A doubling step (a scan's `k = 2 * k`) and a bound by a constant: host arithmetic too.
// CHECK-LABEL: func @doubling_step
// CHECK:         scf.while (%[[K:.*]] = %{{.*}}) : (i32) -> i32
// CHECK:           arith.cmpi sle, %[[K]], %{{.*}} : i32
// CHECK:           arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     stablehlo.while
func.func @doubling_step() -> tensor<i32> {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %c100 = stablehlo.constant dense<100> : tensor<i32>
  %0 = stablehlo.while(%k = %c1) : tensor<i32>
  cond {
    %p = stablehlo.compare LE, %k, %c100, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n = stablehlo.multiply %k, %c2 : tensor<i32>
    stablehlo.return %n : tensor<i32>
  }
  return %0 : tensor<i32>
}

// -----

// A condition on data (a convergence test) needs the device's value: left as it is.
// CHECK-LABEL: func @data_condition_kept
// CHECK:         stablehlo.while
// CHECK-NOT:     scf.while
func.func @data_condition_kept(%arg0: tensor<f32>) -> tensor<f32> {
  %eps = stablehlo.constant dense<1.0e-3> : tensor<f32>
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %0 = stablehlo.while(%x = %arg0) : tensor<f32>
  cond {
    %p = stablehlo.compare GT, %x, %eps, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n = stablehlo.multiply %x, %half : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// A counter whose next value reads data (or divides by a value that may be 0) is no counter;
// the condition then reads the device: left as it is.
// CHECK-LABEL: func @counter_from_data_kept
// CHECK:         stablehlo.while
// CHECK-NOT:     scf.while
func.func @counter_from_data_kept(%arg0: tensor<4xi64>, %arg1: tensor<i64>) -> tensor<i64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c9 = stablehlo.constant dense<9> : tensor<i64>
  %0 = stablehlo.while(%t = %c0) : tensor<i64>
  cond {
    %p = stablehlo.compare LT, %t, %c9, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %q = stablehlo.divide %c9, %arg1 : tensor<i64>
    %n = stablehlo.add %t, %q : tensor<i64>
    stablehlo.return %n : tensor<i64>
  }
  return %0 : tensor<i64>
}

// -----

// Nested loops: the inner one is bounded by the outer one's counter (`j < i`), which the host
// has once the outer loop is hoisted (pre-order): both count on the host.
// CHECK-LABEL: func @triangular_nest
// CHECK:         scf.while (%[[I:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) : (i64, tensor<f32>)
// CHECK:         ^bb0(%[[BI:.*]]: i64, %{{.*}}: tensor<f32>):
// CHECK:           scf.while (%[[J:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) : (i64, tensor<f32>)
// CHECK:             arith.cmpi slt, %[[J]], %[[BI]] : i64
// CHECK-NOT:     stablehlo.while
func.func @triangular_nest(%arg0: tensor<f32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c5 = stablehlo.constant dense<5> : tensor<i64>
  %0:2 = stablehlo.while(%i = %c0, %s = %arg0) : tensor<i64>, tensor<f32>
  cond {
    %p = stablehlo.compare LT, %i, %c5, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %1:2 = stablehlo.while(%j = %c0, %t = %s) : tensor<i64>, tensor<f32>
    cond {
      %q = stablehlo.compare LT, %j, %i, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %q : tensor<i1>
    } do {
      %jn = stablehlo.add %j, %c1 : tensor<i64>
      %u = stablehlo.add %t, %t : tensor<f32>
      stablehlo.return %jn, %u : tensor<i64>, tensor<f32>
    }
    %in = stablehlo.add %i, %c1 : tensor<i64>
    stablehlo.return %in, %1#1 : tensor<i64>, tensor<f32>
  }
  return %0#1 : tensor<f32>
}

// -----

// The condition reads the size of a value computed in the condition itself (a convert of a loop
// value: linalg.vander's scan). The condition's ops do not move into the new loop, so the size is
// read from the loop value the convert keeps the shape of (reading it from the convert left a
// use of an erased op, and symhlo-opt crashed verifying it).
// CHECK-LABEL: func @size_of_a_convert_in_the_condition
// CHECK:         scf.while (%[[T:.*]] = %{{.*}}, %[[R:.*]] = %arg0) : (i64, tensor<?xi32>) -> (i64, tensor<?xi32>) {
// CHECK:           %[[D:.*]] = tensor.dim %[[R]], %{{.*}} : tensor<?xi32>
// CHECK:           arith.cmpi slt, %[[T]], %{{.*}} : i64
// CHECK-NOT:     stablehlo.while
func.func @size_of_a_convert_in_the_condition(%arg0: tensor<?xi32>) -> tensor<?xi32> {
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c2 = stablehlo.constant dense<2> : tensor<i64>
  %0:2 = stablehlo.while(%k = %c1, %r = %arg0) : tensor<i64>, tensor<?xi32>
  cond {
    %1 = stablehlo.convert %r : (tensor<?xi32>) -> tensor<?xi8>
    %2 = stablehlo.get_dimension_size %1, dim = 0 : (tensor<?xi8>) -> tensor<i32>
    %3 = stablehlo.convert %2 : (tensor<i32>) -> tensor<i64>
    %4 = stablehlo.compare LT, %k, %3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %4 : tensor<i1>
  } do {
    %5 = stablehlo.multiply %k, %c2 : tensor<i64>
    stablehlo.return %5, %r : tensor<i64>, tensor<?xi32>
  }
  return %0#1 : tensor<?xi32>
}

// -----

// A size the host cannot read in the condition (of a value computed there by something other
// than an elementwise op of a loop value): the loop is left as it is.
// CHECK-LABEL: func @size_of_a_condition_value_left
// CHECK:         stablehlo.while
// CHECK-NOT:     scf.while
func.func @size_of_a_condition_value_left(%arg0: tensor<?xi32>) -> tensor<?xi32> {
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c2 = stablehlo.constant dense<2> : tensor<i64>
  %0:2 = stablehlo.while(%k = %c1, %r = %arg0) : tensor<i64>, tensor<?xi32>
  cond {
    %1 = stablehlo.concatenate %r, %r, dim = 0 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
    %2 = stablehlo.get_dimension_size %1, dim = 0 : (tensor<?xi32>) -> tensor<i32>
    %3 = stablehlo.convert %2 : (tensor<i32>) -> tensor<i64>
    %4 = stablehlo.compare LT, %k, %3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %4 : tensor<i1>
  } do {
    %5 = stablehlo.multiply %k, %c2 : tensor<i64>
    stablehlo.return %5, %r : tensor<i64>, tensor<?xi32>
  }
  return %0#1 : tensor<?xi32>
}

// -----

// Two loops in a row, the second reading the first's result: the first is counted on the host,
// the second stays a stablehlo.while (IREE 3.13 failed at run time on linalg.qr's two loops
// both counted on the host).
// CHECK-LABEL: func @second_loop_reads_the_first
// CHECK:         %[[FIRST:.*]]:2 = scf.while
// CHECK:         stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[FIRST]]#1)
// CHECK-NOT:     scf.while
func.func @second_loop_reads_the_first(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %0:2 = stablehlo.while(%k = %c0, %r = %arg0) : tensor<i64>, tensor<?xf32>
  cond {
    %n = stablehlo.get_dimension_size %r, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
    %p = stablehlo.compare LT, %k, %n64, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %k1 = stablehlo.add %k, %c1 : tensor<i64>
    %r1 = stablehlo.add %r, %r : tensor<?xf32>
    stablehlo.return %k1, %r1 : tensor<i64>, tensor<?xf32>
  }
  %1:2 = stablehlo.while(%k = %c0, %r = %0#1) : tensor<i64>, tensor<?xf32>
  cond {
    %n = stablehlo.get_dimension_size %r, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
    %p = stablehlo.compare LT, %k, %n64, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %k1 = stablehlo.add %k, %c1 : tensor<i64>
    %r1 = stablehlo.multiply %r, %r : tensor<?xf32>
    stablehlo.return %k1, %r1 : tensor<i64>, tensor<?xf32>
  }
  return %1#1 : tensor<?xf32>
}
