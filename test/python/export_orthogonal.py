# linalg.qr through symhlo.export: pure StableHLO, the Householder loops as `stablehlo.while`
# over the `?` sizes (no LAPACK custom_call).
# RUN: %python %s | FileCheck %s

import torch
from torch.export import Dim

import symhlo


class QR(torch.nn.Module):
    def forward(self, a):
        return torch.linalg.qr(a)


ds = ({0: Dim("b", max=64), 1: Dim("m", min=2, max=64), 2: Dim("n", min=2, max=64)},)
print(symhlo.export(QR(), (torch.randn(2, 6, 5),), dynamic_shapes=ds).text)
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
# CHECK-NOT:     custom_call
# CHECK:         stablehlo.while
# CHECK:           stablehlo.sqrt
# CHECK:         stablehlo.while
# CHECK-NOT:     custom_call
# CHECK:         return
