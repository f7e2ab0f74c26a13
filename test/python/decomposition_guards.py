# A decomposition that branches in Python on a `?` size specializes the graph to the example's;
# run_decompositions keeps that guard only in ep._guards_code. symhlo must refuse such a graph
# (it would compute wrong values at other sizes) and keep the ones whose guards the ranges imply.
# RUN: %python %s 2>&1 | FileCheck %s

import torch
import torch.nn.functional as F
from torch.export import Dim

import symhlo
import symhlo.frontend.decompositions as decompositions

_table = decompositions.symhlo_decompositions
aten = torch.ops.aten


def with_decomposition(fn):
    decompositions.symhlo_decompositions = lambda: {**_table(), aten._adaptive_avg_pool2d.default: fn}


class Pool(torch.nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool2d(x, (2, 3))


dims = ({0: Dim("b", min=1, max=16), 2: Dim("h", min=4, max=256), 3: Dim("w", min=4, max=256)},)


def branch_on_width(x, output_size):
    # Guard w > 8 (true at the example, w = 11): the w <= 8 path is lost.
    if x.shape[-1] > 8:
        return x[:, :, :2, :3] * 2
    return x[:, :, -2:, -3:] * 3


with_decomposition(branch_on_width)
try:
    symhlo.export(Pool(), (torch.randn(2, 3, 7, 11),), dynamic_shapes=dims)
    print("EXPORTED")
except symhlo.UnsupportedOpError as e:
    print("REJECTED", e)
# CHECK: REJECTED a decomposition specialized dynamic sizes to the example's: the decomposed graph
# CHECK-SAME: holds only where w > 8 ({{.*}}decomposition_guards.py:{{[0-9]+}} in branch_on_width),
# CHECK-SAME: false at w = 4 [w is x.shape[3]], which the Dim ranges do not imply
# CHECK-NOT: EXPORTED


def branch_on_parity(x, output_size):
    # Guard h % 2 == 0 (the example's h = 8).
    if x.shape[-2] % 2 == 0:
        return x[:, :, :2, :3] * 2
    return x[:, :, -2:, -3:] * 3


with_decomposition(branch_on_parity)
try:
    symhlo.export(Pool(), (torch.randn(2, 3, 8, 11),), dynamic_shapes=dims)
    print("EXPORTED")
except symhlo.UnsupportedOpError as e:
    print("REJECTED", e)
# CHECK: REJECTED {{.*}} only where (h % 2) == 0 ({{.*}} in branch_on_parity), false at h = {{[0-9]+}} [h is x.shape[2]]
# CHECK-NOT: EXPORTED


def branch_implied_by_range(x, output_size):
    # h >= 3 holds for every h in [4, 256]: no specialization, the graph stays generic.
    if x.shape[-2] >= 3:
        return x[:, :, :2, :3] * 2
    return x[:, :, -2:, -3:] * 3


with_decomposition(branch_implied_by_range)
prog = symhlo.export(Pool(), (torch.randn(2, 3, 8, 11),), dynamic_shapes=dims)
print(prog.text)
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x3x?x?xf32>) -> tensor<?x3x2x3xf32>
# CHECK:         %[[R:.*]] = stablehlo.multiply
# CHECK-NEXT:    return %[[R]] : tensor<?x3x2x3xf32>
