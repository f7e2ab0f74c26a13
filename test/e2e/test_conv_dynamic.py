"""Grouped / depthwise 1-D and 2-D convolutions, transposed 1-D and conv3d over dynamic spatial
dims vs eager (symhlo-lower-dynamic-windows-for-iree emits linalg named convs: IREE 3.13 rejects
stablehlo.convolution over `?` spatial dims); grouped conv3d there is refused as
UnsupportedOpError, where a raw ValueError ("Attribute strides has length 2") used to escape."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import symhlo


class Convs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.g1 = torch.nn.Conv1d(8, 8, 5, padding=2, groups=4)            # wav2vec2-style
        self.d1 = torch.nn.Conv1d(8, 8, 3, stride=2, padding=1, groups=8)  # depthwise 1-D
        self.g1b = torch.nn.Conv1d(8, 16, 4, padding=2, groups=2, dilation=2)
        self.t1 = torch.nn.ConvTranspose1d(8, 4, 4, stride=2, padding=1)
        self.c2 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.d2 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)  # depthwise 2-D
        self.g2 = torch.nn.Conv2d(8, 16, 3, padding=1, groups=2)
        # depthwise, 2 filters per channel, dilated rows: linalg.depthwise_conv_2d_nhwc_hwcm
        self.m2 = torch.nn.Conv2d(8, 16, 3, padding=(2, 1), dilation=(2, 1), groups=8)
        self.c3 = torch.nn.Conv3d(3, 4, 3, padding=1, stride=(1, 2, 2))

    def forward(self, x1, x2, x3):
        y2 = self.c2(x2)
        return (self.g1(x1), self.d1(x1), self.g1b(x1), self.t1(x1), self.d2(y2), self.g2(y2),
                self.m2(y2), self.c3(x3))


def test_grouped_depthwise_conv3d_dynamic():
    torch.manual_seed(0)
    m = Convs().eval()
    b = Dim("b", min=1, max=8)
    spec = ({0: b, 2: Dim("L", min=4, max=64)},
            {0: b, 2: Dim("h", min=4, max=32), 3: Dim("w", min=4, max=32)},
            {0: b, 2: Dim("d", min=3, max=16), 3: 2 * Dim("hh", min=2, max=16),
             4: 2 * Dim("ww", min=2, max=16)})

    def args(n, L, h, w, d, hh, ww):
        g = torch.Generator().manual_seed(n + L + h + w + d)
        return (torch.randn(n, 8, L, generator=g), torch.randn(n, 3, h, w, generator=g),
                torch.randn(n, 3, d, hh, ww, generator=g))

    cm = symhlo.compile(m, args(2, 20, 10, 12, 5, 6, 8), dynamic_shapes=spec)
    for sizes in [(1, 4, 4, 4, 3, 4, 4), (3, 33, 7, 9, 4, 6, 10), (2, 20, 10, 12, 5, 6, 8)]:
        a = args(*sizes)
        with torch.no_grad():
            expected = m(*a)
        for k, (g, e) in enumerate(zip(cm(*a), expected)):
            torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-5,
                                       msg=lambda s: f"output {k} at {sizes}: {s}")


def test_grouped_conv3d_dynamic_refused():
    m = torch.nn.Conv3d(4, 4, 3, groups=2).eval()
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"stablehlo\.convolution.*feature_group_count = 2 on a 3-D"):
        symhlo.compile(m, (torch.randn(1, 4, 6, 5, 5),),
                       dynamic_shapes=({2: Dim("d", min=4, max=16)},))


class BatchOnlyGrouped(torch.nn.Module):
    """Depthwise and grouped 2-D / 1-D convs with only the batch dynamic (MobileViT, SegFormer,
    ConvNeXt V2 with static H/W): IREE 3.13 failed to legalize these grouped stablehlo.convolution
    ops, so they take the linalg grouped path too (the depthwise ones channels-last
    linalg.depthwise_conv_2d_*: the grouped NCHW form ran 9x IREE's static code)."""

    def __init__(self):
        super().__init__()
        self.d2 = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.g2 = torch.nn.Conv2d(8, 12, 3, stride=2, padding=1, groups=4)
        self.m2 = torch.nn.Conv2d(8, 24, 3, stride=2, groups=8)
        self.d1 = torch.nn.Conv1d(8, 8, 5, padding=2, groups=8)

    def forward(self, x, y):
        z = self.d2(x)
        return self.g2(z), self.m2(z), self.d1(y)


def test_grouped_conv_batch_only_dynamic():
    from symhlo.backend.compiler import prepare_for_iree

    torch.manual_seed(0)
    m = BatchOnlyGrouped().eval()
    b = Dim("b", min=1, max=16)
    args = (torch.randn(3, 8, 10, 10), torch.randn(3, 8, 12))
    iree_input = prepare_for_iree(symhlo.export(m, args, dynamic_shapes=({0: b}, {0: b})).text)
    assert "linalg.depthwise_conv_2d_nhwc_hwc " in iree_input
    assert "linalg.depthwise_conv_2d_nhwc_hwcm" in iree_input
    assert "linalg.depthwise_conv_1d_nwc_wc " in iree_input  # d1
    assert iree_input.count("linalg.conv_2d_ngchw_gfchw") == 1  # g2: 2 channels per group
    cm = symhlo.compile(m, args, dynamic_shapes=({0: b}, {0: b}))
    for n in (1, 5, 16):
        a = (torch.randn(n, 8, 10, 10), torch.randn(n, 8, 12))
        with torch.no_grad():
            expected = m(*a)
        for g, e in zip(cm(*a), expected):
            torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-5)


class SingleTapConvs(torch.nn.Module):
    """Convolutions contracting over one element (one input channel, a 1x1.. kernel): as im2col
    they were a ? x 1 by 1 x F matmul, which IREE 3.13 turned into a dynamic_reshape it could not
    legalize."""

    def __init__(self):
        super().__init__()
        self.c2 = torch.nn.Conv2d(1, 4, 1)
        self.c3 = torch.nn.Conv3d(1, 1, 1, padding="same")

    def forward(self, x2, x3):
        return self.c2(x2), self.c3(x3)


def test_single_element_contraction_convs():
    torch.manual_seed(0)
    model = SingleTapConvs().eval()
    hw = {0: Dim("b", min=1, max=8), 2: Dim("h", min=2, max=64), 3: Dim("w", min=2, max=64)}
    dhw = {2: Dim("d", min=2, max=16), 3: Dim("h3", min=2, max=16), 4: Dim("w3", min=2, max=16)}
    cm = symhlo.compile(model, (torch.randn(2, 1, 5, 6), torch.randn(1, 1, 4, 4, 4)),
                        dynamic_shapes=(hw, dhw))
    for x2, x3 in [(torch.randn(1, 1, 2, 9), torch.randn(1, 1, 2, 3, 5)),
                   (torch.randn(3, 1, 17, 4), torch.randn(1, 1, 9, 7, 6))]:
        for got, want in zip(cm(x2, x3), model(x2, x3)):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


class DynamicKernelConvs(torch.nn.Module):
    """conv2d and grouped conv_transpose2d whose weights are inputs with `?` kernel sizes (as
    OpInfo exports them): a gather of the taps and a contraction, no stablehlo.convolution."""

    def forward(self, x, w, wt):
        return (torch.nn.functional.conv2d(x, w, stride=2, padding=1, dilation=(1, 2)),
                torch.nn.functional.conv_transpose2d(x, wt, stride=2, padding=1,
                                                     output_padding=1, groups=2))


def test_dynamic_kernel_conv_and_conv_transpose():
    torch.manual_seed(0)
    b, h, w = Dim("b", min=1, max=8), Dim("h", min=8, max=64), Dim("w", min=8, max=64)
    kh, kw = Dim("kh", min=2, max=5), Dim("kw", min=2, max=5)
    spec = ({0: b, 2: h, 3: w}, {2: kh, 3: kw}, {2: kh, 3: kw})

    def args(n, hh, ww, k1, k2):
        return (torch.randn(n, 4, hh, ww), torch.randn(3, 4, k1, k2), torch.randn(4, 3, k1, k2))

    cm = symhlo.compile(DynamicKernelConvs(), args(2, 9, 10, 3, 3), dynamic_shapes=spec)
    for sizes in [(1, 8, 8, 2, 3), (3, 13, 11, 5, 2), (2, 20, 9, 4, 5)]:
        a = args(*sizes)
        for k, (g, e) in enumerate(zip(cm(*a), DynamicKernelConvs()(*a))):
            torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-5,
                                       msg=lambda s: f"output {k} at {sizes}: {s}")


class WideConvs(torch.nn.Module):
    """Convolutions with more input channels than symhlo-lower-dynamic-windows-for-iree's
    block-max-channels (128) over static spatial dims: im2col matmuls there too (IREE 3.13's
    own code for them ran below its matmul's), whether the batch is dynamic or not; likewise a
    1 x 1 convolution with few channels (ResNet's strided downsampling: IREE's own code for it
    ran at a tenth of its matmul's)."""

    def __init__(self):
        super().__init__()
        self.c2 = torch.nn.Conv2d(160, 24, 3, stride=2, padding=1)
        self.p2 = torch.nn.Conv2d(136, 5, 1)
        self.c1 = torch.nn.Conv1d(144, 8, 3, dilation=2, padding=1)
        self.down = torch.nn.Conv2d(24, 12, 1, stride=2, bias=False)

    def forward(self, x, y, z, w):
        return self.c2(x), self.p2(y), self.c1(z), self.down(w)


def _wide_inputs(n: int) -> tuple:
    return (torch.randn(n, 160, 9, 11), torch.randn(n, 136, 6, 5), torch.randn(n, 144, 20),
            torch.randn(n, 24, 9, 7))


@pytest.mark.parametrize("dynamic_batch", [True, False], ids=["batch-dynamic", "static"])
def test_wide_static_spatial_convs_as_matmuls(dynamic_batch):
    from symhlo.backend.compiler import prepare_for_iree

    torch.manual_seed(0)
    m = WideConvs().eval()
    b = Dim("b", min=1, max=16)
    dims = ({0: b}, {0: b}, {0: b}, {0: b}) if dynamic_batch else None
    args = _wide_inputs(3)
    prog = symhlo.export(m, args, dynamic_shapes=dims)
    iree_input = prepare_for_iree(prog.text)
    assert "stablehlo.convolution" not in iree_input
    assert iree_input.count("stablehlo.dot_general") == 4
    assert "stablehlo.convolution" in prog.text  # the portable artifact keeps the op
    # static: the patch rows in groups of 16 (90 and 60 positions, the last group clamped),
    # for IREE's row pack to fuse into the patch loop; not over a `?` batch, nor the 1-D conv's
    # 54 rows (64 would be more than an eighth more)
    grouped = ["6x16x3x3x160xf32", "6x16x1x1x136xf32", "4x16x1x1x24xf32", "4x16x3x144xf32"]
    assert [f"tensor<{t}>" in iree_input for t in grouped] == [not dynamic_batch] * 3 + [False]
    cm = symhlo.compile(m, args, dynamic_shapes=dims)
    for n in ((1, 3, 16) if dynamic_batch else (3,)):
        a = _wide_inputs(n)
        with torch.no_grad():
            expected = m(*a)
        for g, e in zip(cm(*a), expected):
            assert g.shape == e.shape
            torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-4)
