"""The decompositions symhlo adds to torch-mlir's table before import (floor 2, frontend): the
table `symhlo_decompositions()`, gathered from the op-family modules of this subpackage.

basic (nearest upsampling, adaptive pooling, group norm, reflection padding, attention, remainder,
roll, tan, clamp), data (sizes from data: nonzero, masks, unique, repeat_interleave), indexing, pooling, sampling (grid_sampler, anti-aliased resize), select (sorts, scans, norms, scatters), shapes (views, copies,
windows), special (special functions), spectral (torch.fft as DFT matmuls), linalg (factorizations as
while loops), orthogonal (QR, eigh, SVD as while loops), views (as_strided), losses (torch.nn's chunked
linear cross-entropy custom ops);
complex_numbers (complex arithmetic as float parts) is applied over the whole table by the importer. Each rewrites an op into ATen ops that
torch-mlir lowers to StableHLO with every size kept symbolic.
"""

from __future__ import annotations

from typing import Callable

import torch

from .basic import (adaptive_avg_pool2d, clamp_tensor, native_group_norm, reflection_pad, remainder,
                    roll, sdpa, sdpa_flash_for_cpu, tan, upsample_nearest)
from .data import data_decompositions
from .indexing import indexing_decompositions
from .linalg import linalg_decompositions
from .losses import loss_decompositions
from .orthogonal import orthogonal_decompositions
from .pooling import pooling_decompositions
from .sampling import sampling_decompositions
from .select import select_decompositions
from .shapes import shape_decompositions
from .special import special_decompositions
from .spectral import spectral_decompositions
from .views import as_strided_copy, as_strided_scatter, as_strided_view

aten = torch.ops.aten


def symhlo_decompositions() -> dict[torch._ops.OpOverload, Callable]:
    """The decompositions symhlo applies on top of torch-mlir's table."""
    return {
        **pooling_decompositions(),
        **sampling_decompositions(),
        **shape_decompositions(),
        **indexing_decompositions(),
        **special_decompositions(),
        **select_decompositions(),
        **data_decompositions(),
        **spectral_decompositions(),
        **linalg_decompositions(),
        **loss_decompositions(),
        **orthogonal_decompositions(),
        aten.as_strided.default: as_strided_view,
        aten.as_strided_copy.default: as_strided_copy,
        aten.as_strided_scatter.default: as_strided_scatter,
        aten.upsample_nearest1d.vec: upsample_nearest,
        aten.upsample_nearest2d.vec: upsample_nearest,
        aten._adaptive_avg_pool2d.default: adaptive_avg_pool2d,
        aten.native_group_norm.default: native_group_norm,
        aten.reflection_pad1d.default: reflection_pad,
        aten.reflection_pad2d.default: reflection_pad,
        aten._scaled_dot_product_flash_attention_for_cpu.default: sdpa_flash_for_cpu,
        aten.scaled_dot_product_attention.default: sdpa,
        aten.remainder.Tensor: remainder,
        aten.remainder.Scalar: remainder,
        aten.remainder.Scalar_Tensor: remainder,
        aten.tan.default: tan,
        aten.roll.default: roll,
        aten.clamp.Tensor: clamp_tensor,
    }
