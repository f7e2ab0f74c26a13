// RUN: symhlo-opt --symhlo-lower-power-for-iree --split-input-file %s | FileCheck %s

// IREE 3.13 computes a float power as exp(y * log(x)): NaN for a negative base even with an
// integral exponent (vector_norm(ord=6) on negative values). A small integral constant exponent
// becomes repeated squaring.
// CHECK-LABEL: func @even_constant_exponent
// CHECK-NOT:     stablehlo.power
// CHECK:         %[[X2:.*]] = stablehlo.multiply %arg0, %arg0 : tensor<?x4xf32>
// CHECK:         %[[X4:.*]] = stablehlo.multiply %[[X2]], %[[X2]] : tensor<?x4xf32>
// CHECK:         %[[X6:.*]] = stablehlo.multiply %[[X2]], %[[X4]] : tensor<?x4xf32>
// CHECK:         return %[[X6]]
func.func @even_constant_exponent(%arg0: tensor<?x4xf32>, %shape: tensor<2xi64>) -> tensor<?x4xf32> {
  %c = stablehlo.constant dense<6> : tensor<1xi64>
  %0 = stablehlo.convert %c : (tensor<1xi64>) -> tensor<1xf32>
  %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
  %2 = stablehlo.dynamic_broadcast_in_dim %1, %shape, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x4xf32>
  %3 = stablehlo.power %arg0, %2 : tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}

// -----

// A negative exponent divides 1 (broadcast to the base's `?` shape) by the product.
// CHECK-LABEL: func @negative_constant_exponent
// CHECK:         %[[X2:.*]] = stablehlo.multiply %arg0, %arg0 : tensor<?xf32>
// CHECK:         %[[X3:.*]] = stablehlo.multiply %arg0, %[[X2]] : tensor<?xf32>
// CHECK:         %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[N:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK:         %[[ONES:.*]] = stablehlo.dynamic_broadcast_in_dim %[[ONE]], %{{.*}}, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK:         %[[R:.*]] = stablehlo.divide %[[ONES]], %[[X3]] : tensor<?xf32>
// CHECK:         return %[[R]]
func.func @negative_constant_exponent(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %e = stablehlo.constant dense<-3.0> : tensor<f32>
  %n = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %s = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %b = stablehlo.dynamic_broadcast_in_dim %e, %s, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %1 = stablehlo.power %arg0, %b : tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// torch's pow(q, -x) of a full_like x (polygamma's zeta(n + 1, q)): the exponent is a negated
// dynamic reshape of a broadcast constant, still seen as the constant -3 (as the |x|-power form
// the thirty powers of polygamma(2, 3, 4) needed 68 dispatch push constants, past IREE's 64).
// CHECK-LABEL: func @negated_reshaped_constant_exponent
// CHECK-NOT:     stablehlo.power
// CHECK:         %[[X2:.*]] = stablehlo.multiply %arg0, %arg0 : tensor<3x?xf32>
// CHECK:         %[[X3:.*]] = stablehlo.multiply %arg0, %[[X2]] : tensor<3x?xf32>
// CHECK:         %[[R:.*]] = stablehlo.divide %{{.*}}, %[[X3]] : tensor<3x?xf32>
// CHECK:         return %[[R]]
func.func @negated_reshaped_constant_exponent(%arg0: tensor<3x?xf32>, %s1: tensor<1xi64>, %s2: tensor<2xi64>, %s3: tensor<2xi64>) -> tensor<3x?xf32> {
  %c = stablehlo.constant dense<3.0> : tensor<f32>
  %0 = stablehlo.dynamic_broadcast_in_dim %c, %s1, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %1 = stablehlo.dynamic_reshape %0, %s2 : (tensor<?xf32>, tensor<2xi64>) -> tensor<1x?xf32>
  %2 = stablehlo.negate %1 : tensor<1x?xf32>
  %3 = stablehlo.dynamic_broadcast_in_dim %2, %s3, dims = [0, 1] : (tensor<1x?xf32>, tensor<2xi64>) -> tensor<3x?xf32>
  %4 = stablehlo.power %arg0, %3 : tensor<3x?xf32>
  return %4 : tensor<3x?xf32>
}

// -----

// A constant non-integral exponent takes the |x| form too: IREE made pow(-inf, 2.5) NaN (eager:
// inf); a finite negative base still gives NaN.
// CHECK-LABEL: func @fractional_constant_exponent
// CHECK:         %[[AX:.*]] = stablehlo.abs %arg0 : tensor<3xf32>
// CHECK:         stablehlo.power %[[AX]], %{{.*}} : tensor<3xf32>
// CHECK:         stablehlo.is_finite %arg0
func.func @fractional_constant_exponent(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<2.5> : tensor<3xf32>
  %0 = stablehlo.power %arg0, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Exponents 0.5 and -0.5 are sqrt and rsqrt, as in eager's pow kernel (sqrt(-inf) = NaN).
// CHECK-LABEL: func @square_roots
// CHECK:         %[[S:.*]] = stablehlo.sqrt %arg0 : tensor<?xf32>
// CHECK:         %[[R:.*]] = stablehlo.rsqrt %arg0 : tensor<?xf32>
// CHECK:         return %[[S]], %[[R]]
func.func @square_roots(%arg0: tensor<?xf32>, %shape: tensor<1xi64>) -> (tensor<?xf32>, tensor<?xf32>) {
  %h = stablehlo.constant dense<0.5> : tensor<f32>
  %m = stablehlo.constant dense<-0.5> : tensor<f32>
  %hb = stablehlo.dynamic_broadcast_in_dim %h, %shape, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %mb = stablehlo.dynamic_broadcast_in_dim %m, %shape, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %0 = stablehlo.power %arg0, %hb : tensor<?xf32>
  %1 = stablehlo.power %arg0, %mb : tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// Integer powers are IREE's own (no exp/log).
// CHECK-LABEL: func @integer_power_unchanged
// CHECK:         stablehlo.power %arg0, %{{.*}} : tensor<?xi32>
func.func @integer_power_unchanged(%arg0: tensor<?xi32>, %arg1: tensor<?xi32>) -> tensor<?xi32> {
  %0 = stablehlo.power %arg0, %arg1 : tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

// A tensor exponent: the power of |x|, negated for a set sign bit and an odd integral exponent,
// NaN for a finite negative base and a non-integral exponent, 1 for y == 0 or x == 1.
// CHECK-LABEL: func @tensor_exponent
// CHECK:         %[[AX:.*]] = stablehlo.abs %arg0 : tensor<?xf32>
// CHECK:         %[[P:.*]] = stablehlo.power %[[AX]], %arg1 : tensor<?xf32>
// CHECK:         %[[NEG:.*]] = stablehlo.compare  LT, %arg0, %{{.*}},  FLOAT
// CHECK:         %[[RCP:.*]] = stablehlo.divide %{{.*}}, %arg0
// CHECK:         %[[NEGZ:.*]] = stablehlo.compare  LT, %[[RCP]], %{{.*}},  FLOAT
// CHECK:         %[[SIGN:.*]] = stablehlo.or %[[NEG]], %[[NEGZ]]
// CHECK:         %[[FL:.*]] = stablehlo.floor %arg1
// CHECK:         %[[INT:.*]] = stablehlo.compare  EQ, %[[FL]], %arg1,  FLOAT
// CHECK:         %[[HALF:.*]] = stablehlo.multiply %arg1,
// CHECK:         %[[FH:.*]] = stablehlo.floor %[[HALF]]
// CHECK:         %[[ODDH:.*]] = stablehlo.compare  NE, %[[FH]], %[[HALF]],  FLOAT
// CHECK:         %[[ODD:.*]] = stablehlo.and %[[INT]], %[[ODDH]]
// CHECK:         %[[FLIP:.*]] = stablehlo.and %[[SIGN]], %[[ODD]]
// CHECK:         %[[NP:.*]] = stablehlo.negate %[[P]]
// CHECK:         %[[S:.*]] = stablehlo.select %[[FLIP]], %[[NP]], %[[P]]
// CHECK:         %[[FIN:.*]] = stablehlo.is_finite %arg0
// CHECK:         %[[NF:.*]] = stablehlo.and %[[NEG]], %[[FIN]]
// CHECK:         %[[NI:.*]] = stablehlo.not %[[INT]]
// CHECK:         %[[UND:.*]] = stablehlo.and %[[NF]], %[[NI]]
// CHECK:         %[[R:.*]] = stablehlo.select %[[UND]], %{{.*}}, %[[S]]
// CHECK:         %[[Y0:.*]] = stablehlo.compare  EQ, %arg1, %{{.*}},  FLOAT
// CHECK:         %[[X1:.*]] = stablehlo.compare  EQ, %arg0, %{{.*}},  FLOAT
// CHECK:         %[[U:.*]] = stablehlo.or %[[Y0]], %[[X1]]
// CHECK:         %[[OUT:.*]] = stablehlo.select %[[U]], %{{.*}}, %[[R]]
// CHECK:         return %[[OUT]]
func.func @tensor_exponent(%arg0: tensor<?xf32>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.power %arg0, %arg1 : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// An integral constant above the unrolling limit (64) takes the |x| form.
// CHECK-LABEL: func @large_constant_exponent
// CHECK:         %[[AX:.*]] = stablehlo.abs %arg0 : tensor<2xf64>
// CHECK:         stablehlo.power %[[AX]], %{{.*}} : tensor<2xf64>
// CHECK:         stablehlo.negate
func.func @large_constant_exponent(%arg0: tensor<2xf64>) -> tensor<2xf64> {
  %c = stablehlo.constant dense<101.0> : tensor<2xf64>
  %0 = stablehlo.power %arg0, %c : tensor<2xf64>
  return %0 : tensor<2xf64>
}
