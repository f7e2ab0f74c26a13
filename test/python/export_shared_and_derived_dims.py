# Two inputs sharing a dim, and a derived dim 2*h: one symbol each, relations kept.
# RUN: %python %s | FileCheck %s

import torch
from torch.export import Dim

import symhlo


class Shared(torch.nn.Module):
    def forward(self, x, y):
        return x + y


b = Dim("b", min=2, max=32)
prog = symhlo.export(Shared(), (torch.randn(4, 5), torch.randn(4, 5)),
                     dynamic_shapes=({0: b}, {0: b}))
print(prog.text)
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x5xf32>, %arg1: tensor<?x5xf32>) -> tensor<?x5xf32>
# CHECK-NOT:     dynamic_broadcast_in_dim
# CHECK:         %[[R:.*]] = stablehlo.add %arg0, %arg1 : tensor<?x5xf32>
# CHECK:         return %[[R]]
for d in prog.dims:
    print("SHARED", d)
# CHECK: SHARED Dim(b: [2, 32] at x[0], y[0])
# CHECK-NOT: SHARED


class Halves(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0] // 2
        return x[:n] * x[n:]


h = Dim("h", min=1, max=64)
prog = symhlo.export(Halves(), (torch.randn(8, 3),), dynamic_shapes=({0: 2 * h},))
print(prog.text)
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x3xf32>) -> tensor<?x3xf32>
# CHECK-SAME:    symhlo.arg_shapes = {{\[}}["2*h", "3"]]
# CHECK-SAME:    symhlo.relations = {{\[}}"h != 1", "3*h >= 2"]
# CHECK-SAME:    symhlo.result_shapes = {{\[}}["h", "3"]]
# CHECK-SAME:    symhlo.symbols = {h = [2, 64]}
# CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
# CHECK:         %[[N:.*]] = stablehlo.convert %[[D]]
# CHECK:         %[[HALF:.*]] = stablehlo.divide %[[N]], %{{.*}} : tensor<i64>
# CHECK:         %[[LO:.*]] = stablehlo.real_dynamic_slice %arg0, {{.*}} -> tensor<?x3xf32>
# CHECK:         %[[HI:.*]] = stablehlo.real_dynamic_slice %arg0, {{.*}} -> tensor<?x3xf32>
# CHECK:         stablehlo.multiply %[[LO]], %[[HI]] : tensor<?x3xf32>
for d in prog.dims:
    print("DERIVED", d)
# CHECK: DERIVED Dim(h: [2, 64] at x[0] = 2*h, h != 1, 3*h >= 2)
