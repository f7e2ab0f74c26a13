# symhlo.frontend.decompositions: reflect padding by a symbolic amount, and nearest interpolation to
# a symbolic size, stay `?` and gather by computed indices (no size pinned to the example's). RUN:
# %python %s | FileCheck %s

import torch
import torch.nn.functional as F
from torch.export import Dim

import symhlo


class ReflectToMultiple(torch.nn.Module):
    def forward(self, x):
        n = x.shape[-1]
        return F.pad(x, (0, (4 - n % 4) % 4), mode="reflect")


prog = symhlo.export(ReflectToMultiple(), (torch.randn(2, 3, 10),),
                     dynamic_shapes=({0: Dim("b", min=1, max=8), 2: Dim("n", min=4, max=512)},))
print(prog.text)
# One gather along the padded axis by indices m - |m - |i||, i = iota(n + p), m = n - 1.
# CHECK-LABEL: func.func @main
# CHECK-SAME:    (%arg0: tensor<?x3x?xf32>) -> tensor<?x3x?xf32>
# CHECK:         %[[I:.*]] = stablehlo.dynamic_iota %{{.*}}, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
# CHECK:         stablehlo.abs
# CHECK:         stablehlo.abs
# CHECK:         %[[G:.*]] = "stablehlo.dynamic_gather"(%arg0, %{{.*}}, %{{.*}}) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [2], start_index_map = [2], index_vector_dim = 1>
# CHECK-SAME:    -> tensor<?x3x?xf32>
# CHECK-NOT:     stablehlo.concatenate {{.*}}xf32>
# CHECK:         return


class NearestToSize(torch.nn.Module):
    def forward(self, x, skip):
        h, w = x.shape[-2:]
        return (F.interpolate(x, size=(2 * h, 2 * w), mode="nearest"),
                F.interpolate(x, size=skip.shape[-2:], mode="nearest"))


b = Dim("b", min=1, max=8)
prog = symhlo.export(NearestToSize(), (torch.randn(2, 3, 5, 6), torch.randn(2, 3, 9, 7)),
                     dynamic_shapes=({0: b, 2: Dim("h", min=2, max=64), 3: Dim("w", min=2, max=64)},
                                     {0: b, 2: Dim("h2", min=2, max=64), 3: Dim("w2", min=2, max=64)}))
print(prog.text)
# size=(2h, 2w): each element repeated (broadcast, then reshape to 2h x 2w), no gather.
# size=skip's (h2, w2): per axis, index floor(i * f32(n) / f32(out)) as torch's kernel, clamped
# to n - 1, then one gather per axis.
# CHECK-LABEL: func.func @main
# CHECK-SAME:    -> (tensor<?x3x?x?xf32>, tensor<?x3x?x?xf32>)
# CHECK-NOT:     {{"stablehlo.(dynamic_)?gather"}}
# CHECK:         %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim {{.*}} -> tensor<?x3x?x2x?x2xf32>
# CHECK:         stablehlo.dynamic_reshape %[[B]], {{.*}} -> tensor<?x3x?x?xf32>
# CHECK:         stablehlo.divide %{{.*}} : tensor<f32>
# CHECK:         stablehlo.floor
# CHECK:         stablehlo.minimum
# CHECK:         "stablehlo.dynamic_gather"(%arg0
# CHECK:         stablehlo.floor
# CHECK:         stablehlo.minimum
# CHECK:         "stablehlo.dynamic_gather"
# CHECK-NOT:     {{"stablehlo.(dynamic_)?gather"}}
# CHECK:         return
