# torch.cond on data and on a size, and while_loop, through symhlo.export: pure StableHLO
# `stablehlo.if` / `stablehlo.while` whose regions keep the `?` batch dim and compute its size
# from their own operands.
# RUN: %python %s | FileCheck %s

import torch
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop
from torch.export import Dim

import symhlo


class CondOnData(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x.sin() * 2, lambda x: x.cos() + 1, (x,))


class CondOnSize(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.shape[0] > 8, lambda x: x.sin() * 2, lambda x: x.cos() + 1, (x,))


ds = ({0: Dim("batch", max=64)},)
print(symhlo.export(CondOnData(), (torch.randn(4, 3),), dynamic_shapes=ds).text)
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x3xf32>) -> tensor<?x3xf32>
# CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo|scf)\.}}
# CHECK:         %[[S:.*]] = stablehlo.reduce(%arg0
# CHECK:         %[[P:.*]] = stablehlo.compare GT, %[[S]], %{{.*}}, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
# CHECK:         %[[IF:.*]] = "stablehlo.if"(%[[P]]) ({
# CHECK:           stablehlo.sine %arg0 : tensor<?x3xf32>
# CHECK:           stablehlo.get_dimension_size %arg0, dim = 0
# CHECK:           stablehlo.return %{{.*}} : tensor<?x3xf32>
# CHECK:         }, {
# CHECK:           stablehlo.cosine %arg0 : tensor<?x3xf32>
# CHECK:           stablehlo.return %{{.*}} : tensor<?x3xf32>
# CHECK:         }) : (tensor<i1>) -> tensor<?x3xf32>
# CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo|scf)\.}}
# CHECK:         return %[[IF]]

print(symhlo.export(CondOnSize(), (torch.randn(4, 3),), dynamic_shapes=ds).text)
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x3xf32>) -> tensor<?x3xf32>
# CHECK:         %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
# CHECK:         %[[P:.*]] = stablehlo.compare GT, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i1>
# CHECK:         %[[IF:.*]] = "stablehlo.if"(%[[P]]) ({
# CHECK:           stablehlo.return %{{.*}} : tensor<?x3xf32>
# CHECK:         }) : (tensor<i1>) -> tensor<?x3xf32>
# CHECK:         return %[[IF]]


class WhileOverRows(torch.nn.Module):
    def forward(self, x):
        def cond(i, h):
            return i < x.shape[0] // 2

        def body(i, h):
            return i + 1, torch.tanh(h) + x

        return while_loop(cond, body, (torch.zeros((), dtype=torch.int64), x.clone()))


print(symhlo.export(WhileOverRows(), (torch.randn(4, 3),), dynamic_shapes=ds).text)
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x3xf32>) -> (tensor<i64>, tensor<?x3xf32>)
# CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo|scf)\.}}
# CHECK:         %[[W:.*]]:2 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[H:.*]] = %arg0) : tensor<i64>, tensor<?x3xf32>
# CHECK:         cond {
# CHECK:           %[[D:.*]] = stablehlo.get_dimension_size %[[H]], dim = 0
# CHECK:           %[[P:.*]] = stablehlo.compare LT, %[[I]], %{{.*}}, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
# CHECK:           stablehlo.return %[[P]] : tensor<i1>
# CHECK:         } do {
# CHECK:           %[[I1:.*]] = stablehlo.add %[[I]]
# CHECK:           %[[T:.*]] = stablehlo.tanh %[[H]] : tensor<?x3xf32>
# CHECK:           %[[H1:.*]] = stablehlo.add %[[T]], %arg0 : tensor<?x3xf32>
# CHECK-NOT:       stablehlo.compare
# CHECK:           stablehlo.return %[[I1]], %[[H1]] : tensor<i64>, tensor<?x3xf32>
# CHECK:         }
# CHECK-NOT:     {{(arith|tensor|shape|torch|torch_c|chlo|scf)\.}}
# CHECK:         return %[[W]]#0, %[[W]]#1


class RunningSum(torch.nn.Module):
    def forward(self, x):
        return scan(lambda c, xi: (c + xi, c * 2), x.new_zeros(x.shape[1]), x)


# scan: a while loop over the `?` rows, each read with a gather and written with a one-row
# scatter into a `?x3` buffer sized before the loop.
scan_prog = symhlo.export(RunningSum(), (torch.randn(4, 3),), dynamic_shapes=ds)
print(scan_prog.text)
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>)
# CHECK:         %[[BUF:.*]] = stablehlo.dynamic_broadcast_in_dim %{{.*}} -> tensor<?x3xf32>
# CHECK:         %[[W:.*]]:3 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %[[B:.*]] = %[[BUF]]) : tensor<i64>, tensor<3xf32>, tensor<?x3xf32>
# CHECK:         cond {
# CHECK:           stablehlo.compare LT, %[[I]]
# CHECK:         } do {
# CHECK:           %[[ROW:.*]] = stablehlo.reshape %[[I]] : (tensor<i64>) -> tensor<1xi64>
# CHECK:           "stablehlo.{{(dynamic_)?}}gather"(%arg0, %[[ROW]]
# CHECK:           "stablehlo.scatter"(%[[B]],
# CHECK:           }) : (tensor<?x3xf32>, tensor<1x1xi64>, tensor<1x3xf32>) -> tensor<?x3xf32>
# CHECK:         return %[[W]]#1, %[[W]]#2

# Eager refuses to scan zero rows: so does the program's call-time check.
print("RELATIONS", scan_prog.symbols.relations)
# CHECK: RELATIONS ['batch >= 1']
