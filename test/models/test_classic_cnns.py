"""torchvision's classic architectures, written here as plain nn.Modules (torchvision itself must
not be installed), small channel counts, vs eager. Batch and H/W dynamic.

SqueezeNet and GoogLeNet/Inception use `MaxPool2d(3, 2, ceil_mode=True)`, which came out
silently wrong before symhlo/pooling.py; DenseNet's transition is an avg pool. Each model is
compiled once and run at the range minimum, the example, and a size differing in every axis.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.export import Dim

from models_harness import check_model, randn
from models_harness import check_magnitude, reinit


class Fire(nn.Module):
    def __init__(self, cin, squeeze, e1, e3):
        super().__init__()
        self.squeeze = nn.Sequential(nn.Conv2d(cin, squeeze, 1), nn.ReLU())
        self.e1 = nn.Sequential(nn.Conv2d(squeeze, e1, 1), nn.ReLU())
        self.e3 = nn.Sequential(nn.Conv2d(squeeze, e3, 3, padding=1), nn.ReLU())

    def forward(self, x):
        x = self.squeeze(x)
        return torch.cat([self.e1(x), self.e3(x)], 1)


class SqueezeNet(nn.Module):
    """torchvision's squeezenet1_1 layout at 1/8 width."""

    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(8, 4, 8, 8), Fire(16, 4, 8, 8), nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(16, 8, 16, 16), nn.MaxPool2d(3, 2, ceil_mode=True), Fire(32, 8, 16, 16))
        self.classifier = nn.Sequential(nn.Conv2d(32, classes, 1), nn.ReLU(),
                                        nn.AdaptiveAvgPool2d(1))

    def forward(self, x):
        f = self.features(x)
        return f, torch.flatten(self.classifier(f), 1)


def _conv_bn(cin, cout, k, **kw):
    return nn.Sequential(nn.Conv2d(cin, cout, k, bias=False, **kw), nn.BatchNorm2d(cout), nn.ReLU())


class Inception(nn.Module):
    """GoogLeNet's Inception block: 1x1 / 1x1-3x3 / 1x1-3x3 / maxpool(3, 1, 1, ceil)-1x1."""

    def __init__(self, cin, c1, c3r, c3, c5r, c5, pp):
        super().__init__()
        self.b1 = _conv_bn(cin, c1, 1)
        self.b2 = nn.Sequential(_conv_bn(cin, c3r, 1), _conv_bn(c3r, c3, 3, padding=1))
        self.b3 = nn.Sequential(_conv_bn(cin, c5r, 1), _conv_bn(c5r, c5, 3, padding=1))
        self.b4 = nn.Sequential(nn.MaxPool2d(3, 1, 1, ceil_mode=True), _conv_bn(cin, pp, 1))

    def forward(self, x):
        return torch.cat([self.b1(x), self.b2(x), self.b3(x), self.b4(x)], 1)


class GoogLeNetStem(nn.Module):
    """GoogLeNet's stem and first two Inception blocks, torchvision's pools (ceil_mode=True)."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            _conv_bn(3, 8, 7, stride=2, padding=3), nn.MaxPool2d(3, 2, ceil_mode=True),
            _conv_bn(8, 8, 1), _conv_bn(8, 16, 3, padding=1), nn.MaxPool2d(3, 2, ceil_mode=True),
            Inception(16, 8, 8, 8, 4, 4, 4), Inception(24, 8, 8, 12, 4, 8, 4),
            nn.MaxPool2d(3, 2, ceil_mode=True), nn.MaxPool2d(2, 2, ceil_mode=True))

    def forward(self, x):
        return self.net(x)


class DenseLayer(nn.Module):
    def __init__(self, cin, growth):
        super().__init__()
        self.f = nn.Sequential(nn.BatchNorm2d(cin), nn.ReLU(), nn.Conv2d(cin, 2 * growth, 1),
                               nn.BatchNorm2d(2 * growth), nn.ReLU(),
                               nn.Conv2d(2 * growth, growth, 3, padding=1))

    def forward(self, x):
        return torch.cat([x, self.f(x)], 1)


class DenseNetBlock(nn.Module):
    """A dense block of 3 layers + torchvision's transition (BN, ReLU, 1x1 conv, AvgPool2d(2, 2))
    + a second transition-style pool with ceil_mode and count_include_pad=False."""

    def __init__(self, cin=8, growth=4):
        super().__init__()
        layers = [DenseLayer(cin + i * growth, growth) for i in range(3)]
        c = cin + 3 * growth
        self.stem = nn.Conv2d(3, cin, 3, padding=1)
        self.block = nn.Sequential(*layers)
        self.transition = nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c // 2, 1),
                                        nn.AvgPool2d(2, 2))
        self.pool = nn.AvgPool2d(3, 2, padding=1, ceil_mode=True, count_include_pad=False)

    def forward(self, x):
        return self.pool(self.transition(self.block(self.stem(x))))


def _run(model, name, stride, hw, odd=0, lo=2):
    """Batch 1..8, H = stride*h + odd, W = stride*w (h, w >= lo): an odd H exercises ceil mode's
    other parity."""
    model = reinit(model.eval())
    spec = ({0: Dim("batch", min=1, max=8), 2: stride * Dim("h", min=lo, max=8) + odd,
             3: stride * Dim("w", min=lo, max=8)},)
    imgs = [(randn(b, 3, stride * h + odd, stride * w, seed=b + h + w),) for b, h, w in hw]
    check_magnitude(model, imgs[1])
    check_model(model, imgs[0], spec, imgs[1:], name=name, family="classic-cnn",
                rtol=1e-4, atol=1e-4)


def test_squeezenet():
    # w >= 3: at W = 32 the last feature map is 1 wide, which torch.export specializes
    _run(SqueezeNet(), "squeezenet", 16, [(2, 4, 5), (1, 3, 3), (2, 4, 5), (3, 3, 4)], odd=1, lo=3)


def test_googlenet_inception():
    _run(GoogLeNetStem(), "googlenet-inception", 32, [(2, 2, 3), (1, 2, 2), (2, 2, 3), (3, 3, 2)])


def test_densenet_block():
    _run(DenseNetBlock(), "densenet-block", 4, [(2, 3, 4), (1, 2, 2), (2, 3, 4), (3, 5, 3)], odd=1)
