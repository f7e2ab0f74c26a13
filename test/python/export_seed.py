# The seed model through symhlo.export: the size arithmetic stays symbolic and pure StableHLO.
# RUN: %python %s | FileCheck %s

import torch
from torch.export import Dim

import symhlo


class Seed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Parameter(torch.randn(1, 1, 8))

    def forward(self, x):
        return self.emb.expand(x.shape[0] * 2, -1, -1)


prog = symhlo.export(Seed(), (torch.randn(4, 3),), dynamic_shapes=({0: Dim("batch", min=2, max=64)},))
print(prog.text)
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x3xf32>) -> tensor<?x1x8xf32>
# CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
# CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
# CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
# CHECK:         %[[M:.*]] = stablehlo.multiply
# CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
# CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim {{.*}} -> tensor<?x1x8xf32>
# CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo)\.}}
# CHECK:         return %[[B]]

for d in prog.dims:
    print("DIM", d)
# CHECK: DIM Dim(batch: [2, 64] at x[0])
