"""symhlo-lower-dynamic-windows-for-iree: convolutions and pooling over `?` spatial dims -> linalg.

IREE 3.13 rejects `stablehlo.convolution` and `stablehlo.reduce_window` whenever a spatial
(windowed) dim is dynamic, and grouped convolutions with a dynamic batch; a dynamic batch alone
is otherwise fine and is left to IREE (but for wide convolutions, below). This pass runs only
on the copy handed to iree-compile (the portable artifact keeps the pure StableHLO op) and
rewrites those ops into what IREE compiles: the padding becomes a `stablehlo.pad` with the same
static amounts, the window op linalg, and the output sizes are computed from the padded input with
`tensor.dim` + `arith`. An ungrouped convolution (not transposed) becomes im2col + one 2-D matmul,
channels-last (`conv_as_im2col_matmul`): IREE 3.13's code for linalg convs over `?` spatial dims
was 9x its static code on ResNet-18 (750 ms vs 80 ms CPU at 224x224, one thread), the matmul form
1.3x. Grouped and transposed convolutions keep the linalg named ops:

    %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],
           window = {stride = [2, 2], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]}
           {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
           : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  ==>
    %kt = stablehlo.transpose %k, dims = [2, 3, 1, 0]       : 3x3x3x4   (KH x KW x C x F)
    %xt = stablehlo.transpose %x, dims = [0, 2, 3, 1]       : ?x?x?x3   (channels-last)
    %p = stablehlo.pad %xt, %zero, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0]
    %h = tensor.dim %p, %c1 ; %oh = (%h - 3) / 2 + 1       (likewise %n, %ow)
    %patches = linalg.generic (reads %p[n, oh*2 + kh, ow*2 + kw, c]) : ?x?x?x3x3x3
    %rows = tensor.collapse_shape %patches [[0, 1, 2], [3, 4, 5]] : ?x27
    %y = stablehlo.dot_general %rows, reshape(%kt) : 27x4, contracting_dims = [1] x [0] : ?x4
    %0 = stablehlo.transpose (tensor.expand_shape %y : ?x?x?x4), dims = [0, 3, 1, 2] : ?x4x?x?

Option `block-width` (default 16; the example above is `block-width=1`): im2col computes a `?`
last output axis (W) in blocks of that many positions: ceil(OW / 16) blocks, the input padded
by 15 * stride more columns, the surplus sliced off the product. The patch tensor is then
`N x OH x OB x 16 x KH x KW x C`, static inside, and IREE's pack of the matmul rows (16 to a tile
on AVX-512, 8 on AVX2 and NEON: 16 is a multiple of either) moves above the collapse and fuses
into the patch loop instead of re-reading a `? x K` matrix that needs padding. Small CNN
(8-16 channels) at (8, 3, 128, 128), batch/H/W dynamic, per dispatch (min over calls): 84.8 ->
10.1 ms (static 1.1); blocks of 8 do not fuse (115 ms), 32 is no better than 16. Only
convolutions that pad their last spatial axis anyway (so that no new pad op appears) and have
at most `block-max-channels` (128) input channels are blocked: with ResNet-18's 256 and 512
the matmul outweighs the patch copy, and the surplus of the last block (a 7-wide map computed
16 wide) made it slower (batch 8 at 224, H/W dynamic: 2640 -> 2965 ms blocking every conv as
an im2col).

A blocked 2-D convolution with at most `direct-max-filters` (128) filters is not an im2col but a
direct `linalg.conv_2d_nhwc_hwcf` over blocks of `block-rows` (8) x `direct-block-width` (8)
output positions (`conv_as_blocked_direct`), and a non-overlapping pooling of its per-channel
elementwise chain (batch norm, ReLU) runs on those blocks (`pool_over_conv_blocks`): the small
CNN's CPU per call, dyn / static, 5.36 -> 1.59 at batch 8, 3.53 -> 2.03 at batch 1. The 128 of
both options: ResNet-18 H/W dynamic at 224, process CPU per call / static
(`bench/dispatch_profile.py`, 2 alternated rounds, idle Xeon): limits 32 -> 64 -> 128 -> 256
(512: every 3x3 conv direct) gave 1.10 -> 0.97 -> 0.96 -> 1.04 (1.83) at batch 1, 1.27 -> 1.00
-> 0.96 at batch 8. Deeper layers have more channels and smaller maps: 14x14 and 7x7 computed in
8 x 16 blocks waste 1.3x and 2.6x, where the im2col matmul wastes nothing. A proxy for the map
size, which is `?` here: a network whose wide layers run on large maps would want a higher
limit. Any other single-use per-channel chain after a direct conv (batch norm and ReLU before a
residual add or an overlapping pool) also runs on the blocks (`chain_over_conv_blocks`), in the
conv's dispatch. A channels-first pooling whose input is a channels-last value transposed
(through such ops and pads) pools channels-last between transposes, which
symhlo-sink-transposes-for-iree folds with that one. Both: ResNet-18 H/W at batch 8, CPU ms per
call over all dispatches 342 -> 322 (static 376-408 in the same runs); at batch 1 process CPU /
static 0.96 -> 0.87. A direct conv whose input is another's (or its pooling's) blocks gone back
to NHWC gathers its halos from those blocks (`gather_halo_from_conv_blocks`, option
`halo-from-blocks`): the unblocking transpose, its slice's copy and the pad go (small CNN at
batch 8, process CPU / static 1.76 -> 1.60; ResNet-18 H/W at batch 8 0.94 -> 0.88). Likewise a
channels-last pooling that is the only reader of such blocks (ResNet's stem: 3 x 3 / 2 max pool
with padding) pools blocks of 8 x 16 positions over windows gathered from the conv's blocks
(`pool_over_gathered_blocks`): the stem took 34 ms CPU for the unblocking, two copies and a pool
over `?` H/W, 12 now (ResNet-18 H/W batch 8: 0.86 -> 0.80 of static, batch 1: 0.79 -> 0.76, both
options together against neither).

Such a pooling reads each window's taps from the blocks in one linalg.generic and reduces them
there (option `pool-taps-from-blocks`): the windows are no longer copied (17 x 17 per 8 x 8
pooled positions, 4.5 times the pooled data) for a pooling dispatch of its own. ResNet-18's
stem pool, H/W dynamic at batch 8 (AMD EPYC): 5.8 -> 3.5 ms CPU per call (gather and pool
against the one dispatch).

An elementwise op of such blocks gone back to the op's layout (a residual add of two direct
convs' results, or of a conv's and the stem pooling's, and the ReLU after it) runs on the blocks
when they tile equal maps alike (`elementwise_on_blocks`, option `elementwise-on-blocks`): the
unblocking of each operand, the pad copy and the halo copy of the sum were dispatches of their
own. ResNet-18 H/W dynamic at batch 8 (AMD EPYC, 3 alternated rounds, median): 98.2 -> 95.9 ms
per call, 60 -> 56 dispatches (static 82.4).

The direct blocks were 8 x 16 (`block-width`) until 8 x 8 measured better on ResNet-18 with H/W
dynamic (AMD EPYC, batch 8 at 224: 101 -> 94 ms per call, 3 alternated rounds; batch 1 13.2 ->
12.9): its 56- and 28-wide maps filled 4 and 2 blocks of 16 (1.14x the work), they fill 7 and 4
of 8 (1.0x and 1.14x); the halo copies grow (10 x 10 per 64 positions against 10 x 18 per 128).

A deep direct conv (at least `deep-filters` (128) filters) computes blocks of `deep-block-rows`
(4) rows: in a CNN that narrows its maps as it widens its channels, its map is smaller and a last
block's surplus rows a larger share (ResNet-18's 28 x 28 maps at 224 computed 32 rows in 8-row
blocks, 28 in 4-row ones; a 3 x 3 conv's block of 8 rows reads 10 input rows, one of 4 reads
6: 1.25x -> 1.5x the input rows in halos). ResNet-18 H/W dynamic (AMD EPYC,
`bench/dispatch_profile.py`): batch 8, 3 alternated rounds, all dispatches 186.95 -> 184.34 ms
(the 128-filter convs 40.4 -> 35.6); batch 1, 5 rounds, medians, 23.02 -> 22.46 ms (static
20.60). Every conv in 4-row blocks: 188.3 -> 182.8 at batch 8, the 64-filter convs and their
halos ~2 ms slower, the 128-filter ones ~3.4 faster.

A narrow direct conv (at most `narrow-max-channels` (16) input channels and filters) computes
blocks of `narrow-block` x `narrow-block` (16 x 16) positions instead: it computes little per
position, and the halo copy was its cost (10 x 10 per 8 x 8 block, 1.56 times the input; 18 x
18 per 16 x 16, 1.27). Small CNN (3 -> 8 -> 16 -> 16 channels) at batch 8, 128 x 128, H/W
dynamic, iree-benchmark-module wall per call, medians of 5 alternated rounds (Intel Xeon, 2
threads): 3.37 -> 3.02 ms (static 2.63; process CPU 5.65 -> 4.98 ms); one thread 3.98 -> 3.40
(static 3.11); batch 1 0.86 -> 0.82 (static 0.39; 32 x 32 blocks 0.85). ResNet-18 has no such
conv (its narrowest has 64 filters).

A convolution over static spatial dims is left to IREE, except an ungrouped one (no lhs
dilation) with more input channels than `block-max-channels`: IREE 3.13's own code for those
ran well below its data-tiled matmul, so it is the same im2col matmul (option
`wide-static-as-matmul`, on), its rows static where the batch is, in a static module as in a
batch-only dynamic one. ResNet-18 with only the batch dynamic at (8, 3, 224, 224), process CPU per
call (`bench/dispatch_profile.py`, 2 alternated rounds, Xeon): 475 -> 349 ms (the static module,
which takes it too, 321); at batch 1 67.7 -> 47.7 ms (static 48.6). The narrower layers stay
IREE's: as im2col matmuls too (every conv contracting at least 1152 elements: the 128-channel
layers, unblocked) 414 -> 385 ms only, every conv 1.15x the static module; lowered as the dynamic
ones are (blocked direct convs up to 128 channels, im2col above) 343 against 330 for the wide
ones alone.

An unblocked im2col over a `?` row count (`?` spatial dims or a `?` batch) with at least
`tap-slices-min-channels` (64) input channels copies its patches as one strided
`tensor.extract_slice` per window tap, concatenated along the channels
(`patches_as_tap_slices`): IREE 3.13 copies each tap as rows (a memcpy dispatch), where its code
for the one patch generic over `?` rows moved ~4 GB/s (3.3 ms per 3 x 3, 256-channel conv of
ResNet-18's 14 x 14 map at batch 8, against ~1 ms for its nine slices). ResNet-18, all dispatches
per call, EPYC, 3 alternated rounds: H/W dynamic at batch 8 185.9 -> 174.7 ms mean (process CPU
/ static 1.17 -> 1.13), batch 1 process CPU / static 1.05 -> 1.00; batch-only dynamic at batch 8
169.9 -> 161.4 (1.11 -> 1.05; static 151.4). Fewer channels keep the generic: a tap of 3 or 16
channels is a copy of 12-64 byte rows.

Covered: 1-D, 2-D and 3-D convolutions in any layout (`conv_layout`: torch's NCHW / OIHW, jax's
NHWC / HWIO, anything else through transposes; im2col reads channels-last, so an NHWC
convolution with an HWIO kernel needs no transpose at all) with any stride, padding, dilation,
lhs dilation (transposed convolution, as interior padding), and feature groups in 2-D (via
`linalg.conv_2d_ngchw_gfchw`) and 1-D (the 2-D form over a unit height: wav2vec2's grouped
positional conv), depthwise ones (one input channel per group, any channel multiplier) in 1-D
and 2-D channels-last (`depthwise_conv_channels_last`); `reduce_window` whose body is one
`maximum` or `add` over 1, 2 or 3 axes beside two others, in any layout (`pooling_layout`: NCW /
NCHW as linalg's channels-first pooling, NWC / NHWC / NDHWC as its channels-last one, other
layouts between two transposes), with padding filled with the init value as StableHLO specifies.
Any other form over a dynamic spatial dim (grouped 3-D convolution, a variadic reduce_window
such as max pooling with indices) is reported with its location instead of being handed to IREE
to fail on.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from torch_mlir import ir
from torch_mlir.dialects import linalg, tensor

from torch_mlir._mlir_libs import _stablehlo

from .builder import OpBuilder, apply_patterns, dot_numbers, reassociation_groups, scalar_attr
from .ir_util import (defining_op, inverse_perm, is_dynamic, remove_dead_ops, through_transposes,
                      transpose_chain, transpose_perm, use_owner, walk_ops)
from .registry import Pass, PassFailure



class UnsupportedWindow(Exception):
    """A windowed op over dynamic spatial dims that this pass has no rewrite for."""


class UnsupportedWindowFailure(PassFailure):
    """The pass's failure: ops it cannot lower (symhlo.compile raises UnsupportedOpError)."""

    unsupported_op = True


def _window_out_size(e: OpBuilder, padded: ir.Value, axis: int, window: int, stride: int,
                     dilation: int, extra: int = 0) -> ir.Value:
    """(padded - extra - dilation * (window - 1) - 1) floordiv stride + 1, as index arithmetic
    (`extra`: padding beyond the op's own, which adds no output)."""
    span = dilation * (window - 1) + 1 + extra
    size = e.index_op("arith.subi", e.tensor_dim(padded, axis), e.const_index(span))
    if stride != 1:
        size = e.index_op("arith.divsi", size, e.const_index(stride))
    return e.index_op("arith.addi", size, e.const_index(1))


def _pad_channels_last(e: OpBuilder, x_cl: ir.Value, zero_t: ir.Value, padding: tuple, window,
                       strides, dilations) -> tuple[ir.Value, list]:
    """The channels-last `N x S.. x C` input padded by (low, high + extra) on its spatial axes
    (`extra`: columns / rows a blocked form reads past the op's own padding), and the output
    sizes N, O.. as index values (`extra` adds no output positions)."""
    low, high, extra = padding
    nsp = len(window)
    padded = e.hlo_pad(x_cl, zero_t, [0] + low + [0],
                       [0] + [h + x for h, x in zip(high, extra)] + [0], [0] * (nsp + 2))
    sizes = [e.tensor_dim(x_cl, 0)] + [
        _window_out_size(e, padded, 1 + i, window[i], strides[i], dilations[i], extra[i])
        for i in range(nsp)]
    return padded, sizes


def _scalar_const(e: OpBuilder, elt: ir.Type, value: float) -> tuple[ir.Value, ir.Value]:
    """(arith scalar, stablehlo 0-d tensor) holding `value`."""
    return e.constant(elt, value), e.hlo_scalar(value, elt)


def _filled(e: OpBuilder, result_t: ir.RankedTensorType, sizes: list[ir.Value],
            init: ir.Value) -> ir.Value:
    """tensor.empty of `result_t` (dynamic extents from `sizes`) filled with `init`."""
    mixed = [sizes[i] if is_dynamic(s) else s for i, s in enumerate(result_t.shape)]
    with e.loc, e.ip:
        empty = tensor.empty(mixed, result_t.element_type)
        return linalg.fill(init, outs=[empty])


def _i64s(op: ir.Operation, name: str, rank: int, default: int) -> list[int]:
    if name not in op.attributes:
        return [default] * rank
    return [int(v) for v in ir.DenseI64ArrayAttr(op.attributes[name])]


def _padding(op: ir.Operation, rank: int) -> tuple[list[int], list[int]]:
    if "padding" not in op.attributes:
        return [0] * rank, [0] * rank
    flat = [int(v) for v in ir.DenseIntElementsAttr(op.attributes["padding"])]
    return flat[0::2], flat[1::2]


def _dynamic_spatial(op: ir.Operation, spatial_axes: list[int]) -> bool:
    shape = ir.RankedTensorType(op.operands[0].type).shape
    return any(is_dynamic(shape[a]) for a in spatial_axes)


# ---------------------------------------------------------------------------------------------
# stablehlo.convolution


def conv_layout(op: ir.Operation) -> tuple[list[int], list[int], list[int]]:
    """The convolution's axes in canonical order: input `[b, f, 0, ..]`, kernel `[o, i, 0, ..]`,
    output `[b, f, 0, ..]` (torch's NCHW / OIHW gives identities; jax's NHWC / HWIO gives
    `[0, 3, 1, 2]`, `[3, 2, 0, 1]`, `[0, 3, 1, 2]`)."""
    dn = _stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    return ([dn.input_batch_dimension, dn.input_feature_dimension, *dn.input_spatial_dimensions],
            [dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
             *dn.kernel_spatial_dimensions],
            [dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions])


def _channels_last(perm: list[int]) -> list[int]:
    """`[b, f, 0, ..]` axis order -> `[b, 0, .., f]`."""
    return [perm[0], *perm[2:], perm[1]]


def _static_as_matmul(op: ir.Operation, k_perm: list[int], nsp: int, max_channels: int,
                      pointwise: bool) -> bool:
    """An ungrouped 1-3-D convolution with a static kernel and nothing else (no lhs dilation,
    batch groups or window reversal) that has more than `max_channels` input channels or, with
    `pointwise`, a 1 x 1.. window over more than one channel."""
    k_t = ir.RankedTensorType(op.operands[1].type)
    reversal = ("window_reversal" in op.attributes
                and any(ir.DenseBoolArrayAttr(op.attributes["window_reversal"])))
    if nsp not in (1, 2, 3) or not k_t.has_static_shape:
        return False
    channels = k_t.shape[k_perm[1]]
    unit_window = all(k_t.shape[a] == 1 for a in k_perm[2:])
    return ((channels > max_channels or (pointwise and unit_window and channels > 1))
            and ir.IntegerAttr(op.attributes["feature_group_count"]).value == 1
            and ir.IntegerAttr(op.attributes["batch_group_count"]).value == 1
            and all(d == 1 for d in _i64s(op, "lhs_dilation", nsp, 1)) and not reversal)


def convert_stablehlo_convolution(op: ir.Operation, options: "LowerDynamicWindowsForIree",
                                  blocked_outputs: list | None = None) -> bool:
    """stablehlo.convolution over `?` spatial dims, in any layout -> stablehlo.pad + im2col matmul
    or linalg.conv_{1d_ncw_fcw, 2d_nchw_fchw, 3d_ncdhw_fcdhw, 2d_ngchw_gfchw} between transposes
    to and from the canonical layout; also a grouped convolution whose only `?` dim is the batch
    (IREE 3.13 fails to legalize those too: depthwise convs of MobileViT, SegFormer, ConvNeXt V2
    with a dynamic batch). `options` (the pass's): the im2col form computes a `?` last output
    axis in blocks of `block_width` positions when there are at most `block_max_channels` input
    channels and the op pads its last spatial axis (see conv_as_im2col_matmul); a blocked 2-D
    convolution with at most `direct_max_filters` filters is a direct convolution over the
    blocks instead (`conv_as_blocked_direct`; its result and blocks are appended to
    `blocked_outputs`), blocks of `direct_block_width` columns (0: `block_width`). With
    `depthwise_channels_last`, a 1-D or 2-D convolution with one input channel per group is
    `depthwise_conv_channels_last`. With `wide_static_as_matmul`, an ungrouped convolution over
    static spatial dims with more than `block_max_channels` input channels is an (unblocked)
    im2col matmul too, and with `pointwise_static_as_matmul` one with a 1 x 1.. window (a
    strided one reads every stride-th position: the im2col is a strided copy, the patch matrix
    no larger than the input). An unblocked im2col with a static result groups its patch rows
    by `im2col_row_group` (conv_as_row_group_im2col). Returns False for any other
    convolution."""
    block_width, block_max_channels = options.block_width, options.block_max_channels
    block_rows, direct_block_width = options.block_rows, options.direct_block_width
    x_perm, k_perm, y_perm = conv_layout(op)
    lhs_t = ir.RankedTensorType(op.operands[0].type)
    nsp = lhs_t.rank - 2
    groups = ir.IntegerAttr(op.attributes["feature_group_count"]).value
    grouped_dynamic_batch = groups != 1 and any(is_dynamic(d) for d in lhs_t.shape)
    dynamic_spatial = _dynamic_spatial(op, x_perm[2:])
    static_matmul = (not dynamic_spatial and _static_as_matmul(
        op, k_perm, nsp, block_max_channels if options.wide_static_as_matmul else math.inf,
        options.pointwise_static_as_matmul))
    if not dynamic_spatial and not grouped_dynamic_batch and not static_matmul:
        return False
    if ir.IntegerAttr(op.attributes["batch_group_count"]).value != 1:
        raise UnsupportedWindow("batch_group_count != 1")
    if "window_reversal" in op.attributes and any(
            ir.DenseBoolArrayAttr(op.attributes["window_reversal"])):
        raise UnsupportedWindow("window_reversal")
    x, k = op.operands
    if not ir.RankedTensorType(k.type).has_static_shape:
        raise UnsupportedWindow("a kernel with dynamic shape")
    result_t = ir.RankedTensorType(op.results[0].type)
    if nsp not in (1, 2, 3):
        raise UnsupportedWindow(f"{nsp} spatial dims (only 1, 2 or 3)")
    if groups != 1 and nsp == 3:
        raise UnsupportedWindow(f"feature_group_count = {groups} on a 3-D convolution")
    strides = _i64s(op, "window_strides", nsp, 1)
    lhs_dil = _i64s(op, "lhs_dilation", nsp, 1)
    rhs_dil = _i64s(op, "rhs_dilation", nsp, 1)
    low, high = _padding(op, nsp)
    elt = result_t.element_type

    e = OpBuilder(op)
    k_shape = ir.RankedTensorType(k.type).shape
    window = [k_shape[a] for a in k_perm[2:]]
    zero, zero_t = _scalar_const(e, elt, 0.0)
    # A contraction over a single element (one channel, a 1x1.. kernel) keeps the named op: as
    # a ? x 1 by 1 x F dot_general, IREE 3.13 made it a dynamic_reshape it cannot legalize.
    if (options.depthwise_channels_last and groups != 1 and nsp in (1, 2)
            and k_shape[k_perm[1]] == 1 and all(d == 1 for d in lhs_dil)):
        new = depthwise_conv_channels_last(e, x, k, (x_perm, k_perm, y_perm), result_t, groups,
                                           (low, high), strides, rhs_dil, zero, zero_t)
    elif (groups == 1 and all(d == 1 for d in lhs_dil)
          and k_shape[k_perm[1]] * math.prod(window) > 1):
        # im2col reads channels-last and multiplies by a `K.. x C x F` kernel: jax's NHWC input
        # and output with an HWIO kernel need no transpose at all.
        k = e.hlo_transpose(k, [*k_perm[2:], k_perm[1], k_perm[0]])
        x_cl = e.hlo_transpose(x, _channels_last(x_perm))
        y_cl = _channels_last(y_perm)
        y_cl_t = ir.RankedTensorType.get([result_t.shape[a] for a in y_cl], elt)
        # Only where the op pads its last axis anyway: the blocks' extra columns then enlarge a
        # pad that is there already. A new pad of an input whose size IREE reads from a shape
        # tensor (a reflect padding's gather) failed in IREE 3.13 ("failed to resolve
        # workgroup count hint in terms of workload ordinals").
        blocked = (block_width > 1 and is_dynamic(y_cl_t.shape[nsp])
                   and k_shape[k_perm[1]] <= block_max_channels and (low[-1] or high[-1]))
        direct = blocked and nsp == 2 and k_shape[k_perm[0]] <= options.direct_max_filters
        # A narrow direct conv (few input channels and filters) copies more than it computes:
        # larger square blocks copy less halo per position.
        narrow = (direct and options.narrow_block > 1
                  and max(k_shape[k_perm[0]], k_shape[k_perm[1]]) <= options.narrow_max_channels)
        block = ((options.narrow_block if narrow else direct_block_width or block_width)
                 if direct else block_width if blocked else 1)
        # The direct form also computes a `?` height in blocks of `block_rows` (where it pads
        # the height anyway, as for the columns).
        # A deep conv (at least `deep_filters` filters: a smaller map, in a CNN that narrows its
        # maps as it widens its channels) computes blocks of `deep_block_rows` rows: a last block
        # wastes fewer of them.
        deep = options.deep_block_rows > 0 and k_shape[k_perm[0]] >= options.deep_filters
        rows = ((options.narrow_block if narrow else options.deep_block_rows if deep else block_rows)
                if direct and block_rows > 1 and is_dynamic(y_cl_t.shape[1])
                and (low[0] or high[0]) else 0)
        # Blocks of the last output axis read up to (block - 1) * stride columns past it
        # (blocks of rows likewise).
        extra = [0] * (nsp - 1) + [(block - 1) * strides[-1]]
        if rows:
            extra[0] = (rows - 1) * strides[0]
        padded, sizes = _pad_channels_last(e, x_cl, zero_t, (low, high, extra), window, strides,
                                           rhs_dil)
        if direct:
            new, blocks = conv_as_blocked_direct(e, padded, k, result_t, y_cl, sizes, strides,
                                                 rhs_dil, block, rows)
            if blocked_outputs is not None:
                blocked_outputs.append((new, blocks))
        else:
            group = options.im2col_row_group
            if group > 1 and block == 1 and k_shape[k_perm[0]] > 1 and _few_surplus_rows(
                    y_cl_t, group):
                new = conv_as_row_group_im2col(e, padded, k, y_cl_t, strides, rhs_dil, group)
            else:
                # A `?` row count (IREE's generic copy over `?` rows is slow) of patches whose
                # channels are long rows to copy.
                slices = (block == 1 and options.tap_slices_min_channels > 0
                          and not y_cl_t.has_static_shape
                          and k_shape[k_perm[1]] >= options.tap_slices_min_channels)
                new = conv_as_im2col_matmul(e, padded, k, y_cl_t, sizes, strides, rhs_dil, block,
                                            slices)
            new = e.hlo_transpose(new, inverse_perm(y_cl))
    else:
        k = e.hlo_transpose(k, k_perm)
        xn = e.hlo_transpose(x, x_perm)
        padded = e.hlo_pad(xn, zero_t, [0, 0] + low, [0, 0] + high, [0, 0] + [d - 1 for d in lhs_dil])
        sizes = [e.tensor_dim(xn, 0), None] + [
            _window_out_size(e, padded, 2 + i, window[i], strides[i], rhs_dil[i]) for i in range(nsp)]
        y_t = ir.RankedTensorType.get([result_t.shape[a] for a in y_perm], elt)
        with e.loc, e.ip:
            if groups == 1:
                out = _filled(e, y_t, sizes, zero)
                named = {1: linalg.conv_1d_ncw_fcw, 2: linalg.conv_2d_nchw_fchw,
                         3: linalg.conv_3d_ncdhw_fcdhw}[nsp]
                new = named(padded, k, outs=[out], strides=strides, dilations=rhs_dil)
            elif nsp == 2:
                new = _grouped_conv_2d(e, padded, k, y_t, sizes, zero, groups, strides, rhs_dil)
            else:
                new = _grouped_conv_1d(e, padded, k, y_t, sizes, zero, groups, strides, rhs_dil)
        new = e.hlo_transpose(new, inverse_perm(y_perm))
    if new.type != result_t:
        new = e.value("tensor.cast", [result_t], [new])
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


def depthwise_conv_channels_last(e: OpBuilder, x: ir.Value, k: ir.Value, layouts: tuple,
                                 result_t: ir.RankedTensorType, groups: int, padding: tuple,
                                 strides, dilations, zero: ir.Value, zero_t: ir.Value) -> ir.Value:
    """A depthwise 1-D or 2-D convolution (one input channel per group, M = F / G filters per
    group) in any layout -> channels-last `linalg.depthwise_conv_{1d_nwc_wc, 2d_nhwc_hwc}` (M =
    1) or `_wcm` / `_hwcm` between transposes (symhlo-sink-transposes-for-iree folds them with
    their neighbours'):

        %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],
               window = {pad = [[1, 1], [1, 1]]} {feature_group_count = 192 : i64}
               : (tensor<?x192x56x56xf32>, tensor<192x1x3x3xf32>) -> tensor<?x192x56x56xf32>
      ==>
        %kt = stablehlo.reshape (stablehlo.transpose %k, dims = [2, 3, 1, 0]) : 3x3x192
        %p = stablehlo.pad (stablehlo.transpose %x, dims = [0, 2, 3, 1]),
               low = [0, 1, 1, 0], high = [0, 1, 1, 0]
        %y = linalg.depthwise_conv_2d_nhwc_hwc ins(%p, %kt) : ?x56x56x192
        %0 = stablehlo.transpose %y, dims = [0, 3, 1, 2]

    The grouped NCHW form (`linalg.conv_2d_ngchw_gfchw`) ran 9x IREE 3.13's static depthwise
    code: an inverted-residual net (MobileNetV2's blocks, 192 channels at 56 x 56, batch 8) with
    the batch dynamic took 93 ms CPU per call against 37 static, its depthwise convs 43 ms
    against 4.7; a Conformer convolution module (1 x 1, GLU, depthwise 31-tap 1-D conv over 256
    channels, 1 x 1) at (8, 256, 400) with batch and time dynamic 10.7 -> 7.9 ms per call
    (static 4.9). Output channel g * M + m is group g's m-th filter, as in StableHLO."""
    x_perm, k_perm, y_perm = layouts
    low, high = padding
    elt = result_t.element_type
    k_shape = ir.RankedTensorType(k.type).shape
    window = [k_shape[a] for a in k_perm[2:]]
    m = k_shape[k_perm[0]] // groups
    kt = e.hlo_transpose(k, [*k_perm[2:], k_perm[1], k_perm[0]])  # KH x KW x 1 x F
    kt = e.hlo_reshape(kt, window + ([groups] if m == 1 else [groups, m]))
    x_cl = e.hlo_transpose(x, _channels_last(x_perm))
    nsp = len(window)
    padded, sizes = _pad_channels_last(e, x_cl, zero_t, (low, high, [0] * nsp), window, strides,
                                       dilations)
    y_cl = _channels_last(y_perm)
    y_shape = [result_t.shape[a] for a in y_cl]  # N x O.. x F
    out_t = ir.RankedTensorType.get(y_shape if m == 1 else y_shape[:-1] + [groups, m], elt)
    out = _filled(e, out_t, sizes + [None, None], zero)
    named = {(1, False): linalg.depthwise_conv_1d_nwc_wc,
             (1, True): linalg.depthwise_conv_1d_nwc_wcm,
             (2, False): linalg.depthwise_conv_2d_nhwc_hwc,
             (2, True): linalg.depthwise_conv_2d_nhwc_hwcm}
    with e.loc, e.ip:
        y = named[nsp, m > 1](padded, kt, outs=[out], strides=strides, dilations=dilations)
        if m > 1:
            y = tensor.collapse_shape(ir.RankedTensorType.get(y_shape, elt), y,
                                      [[a] for a in range(nsp + 1)] + [[nsp + 1, nsp + 2]])
    return e.hlo_transpose(y, inverse_perm(y_cl))


def _rows_times_kernel(e: OpBuilder, rows: ir.Value, k: ir.Value) -> ir.Value:
    """The `M x (K..*C)` patch rows times the `K.. x C x F` kernel: `M x F`."""
    rows_t, k_t = ir.RankedTensorType(rows.type), ir.RankedTensorType(k.type)
    elt, f = rows_t.element_type, k_t.shape[-1]
    w2 = e.value("stablehlo.reshape", [ir.RankedTensorType.get([rows_t.shape[1], f], elt)], [k])
    mm_t = ir.RankedTensorType.get([rows_t.shape[0], f], elt)
    if f == 1:
        # One filter (a one-class segmentation head): IREE 3.13 turns a `? x K` by `K x 1`
        # dot_general into a matrix-vector product through a `stablehlo.reshape` to `?x1`,
        # which it then rejects as not statically shaped; linalg.matmul is taken as is.
        zero = e.constant(elt, 0.0)
        with e.loc, e.ip:
            out = _filled(e, mm_t, [e.tensor_dim(rows, 0), None], zero)
            return linalg.matmul(rows, w2, outs=[out])
    return e.value("stablehlo.dot_general", [mm_t], [rows, w2],
                   {"dot_dimension_numbers": dot_numbers([1], [0])})


def patches_as_tap_slices(e: OpBuilder, padded: ir.Value, out_shape: list, sizes: list,
                          window: list, strides, dilations) -> ir.Value:
    """The im2col patch matrix of the padded channels-last `N x S.. x C` input, unflattened, as
    one strided slice per window tap concatenated along the channels (`out_shape`: N and the
    O.., `?` where dynamic; `sizes` holds them as index values):

        patches = linalg.generic : N x O.. x K.. x C,  patches[n, o.., k.., c] = x[n, o*s + k*d.., c]
      ==>
        tap(k..) = tensor.extract_slice %x[0, k*d.., 0] [N, O.., C] [1, s.., 1] : N x O.. x C
        patches = tensor.concat dim(1 + #O) tap(0..0), ..., tap(K-1..) : N x O.. x (K..*C)

    The same bytes in the same order (tap-major, then channel) as the generic's collapsed
    `K.. x C` axes. IREE 3.13 copies each slice as a row memcpy; its code for the generic over
    `?` rows ran at a third of that (ResNet-18's 3 x 3, 256-channel patches of a 14 x 14 map at
    batch 8: 3.3 ms per conv as the generic)."""
    p_t = ir.RankedTensorType(padded.type)
    elt, c, nsp = p_t.element_type, p_t.shape[-1], p_t.rank - 2
    shape = list(out_shape) + [c]
    dyn_sizes = [v for v, d in zip(sizes, out_shape) if is_dynamic(d)]
    tap_t = ir.RankedTensorType.get(shape, elt)
    taps = []
    with e.loc, e.ip:
        for tap in itertools.product(*[range(w) for w in window]):
            offsets = [0] + [t * d for t, d in zip(tap, dilations)] + [0]
            taps.append(tensor.extract_slice(tap_t, padded, [], dyn_sizes, [], offsets, shape,
                                             [1] + list(strides) + [1]))
        if len(taps) == 1:
            return taps[0]
        return tensor.concat(ir.RankedTensorType.get(shape[:-1] + [len(taps) * c], elt),
                             nsp + 1, taps)


def conv_as_im2col_matmul(e: OpBuilder, padded: ir.Value, k: ir.Value, result_t: ir.RankedTensorType,
                          sizes: list, strides, dilations, block: int = 1,
                          tap_slices: bool = False) -> ir.Value:
    """An ungrouped convolution of the padded channels-last `N x S.. x C` input with the
    `K.. x C x F` kernel as im2col + one 2-D matmul, giving `N x O.. x F` (`result_t`; `sizes`
    holds N and the O.. as index values). IREE 3.13's code for linalg convs over `?` spatial dims
    is 10x slower than for static ones; its matmuls over a `?` row count are data-tiled:

        patches = linalg.generic : N x O.. x K.. x C,  patches[n, o.., k.., c] = x[n, o*s + k*d.., c]
        y = collapse(patches) : (N*O..) x (K..*C)  dot  reshape(kernel) : (K..*C) x F
            (linalg.matmul when F = 1: IREE rejects the dot_general's matrix-vector form)
        result = expand(y) : N x O.. x F

    With `block` > 1 the last output axis O is computed in blocks of `block` (static) positions,
    ceil(O / block) of them, the last one partly past the end (`padded` holds the columns those
    read) and sliced off: the patches are `N x O.. x OB x block x K.. x C`, static inside.
    With `tap_slices` (unblocked only) the patches are `patches_as_tap_slices`.
    """
    p_t, k_t = ir.RankedTensorType(padded.type), ir.RankedTensorType(k.type)
    elt = result_t.element_type
    nsp = p_t.rank - 2
    n, c = p_t.shape[0], p_t.shape[-1]
    f, window = k_t.shape[-1], list(k_t.shape[:-2])
    dyn = ir.ShapedType.get_dynamic_size()
    out_sp = list(result_t.shape[1:1 + nsp])
    kk = math.prod(window)
    orig_sizes = sizes = list(sizes)
    out_sizes = list(sizes)
    if block > 1:
        # o = ob * block + t over ceil(O / block) blocks
        nblocks = e.index_op("arith.divsi", e.index_op("arith.addi", sizes[-1], e.const_index(block - 1)),
                             e.const_index(block))
        sizes = sizes[:-1] + [nblocks]
        out_sizes = sizes[:-1] + [e.index_op("arith.muli", nblocks, e.const_index(block))]
        blocked_sp = out_sp[:-1] + [dyn, block]
    else:
        blocked_sp = list(out_sp)
    nout = len(blocked_sp)
    # im2col as one linalg.generic: patches[n, o.., k.., c] = x[n, o * stride + k * dilation.., c]
    patches_shape = [n] + blocked_sp + window + [c]
    rank = 2 + nout + nsp
    outer = patches_shape[:nout + 1]
    nrows = dyn if any(is_dynamic(x) for x in outer) else math.prod(outer)
    rows_t = ir.RankedTensorType.get([nrows, kk * c], elt)
    if tap_slices and block == 1:
        patches = patches_as_tap_slices(e, padded, [n] + out_sp, orig_sizes, window, strides,
                                        dilations)
        with e.loc, e.ip:
            rows = tensor.collapse_shape(rows_t, patches, [list(range(nsp + 1)), [nsp + 1]])
    else:
        mixed = [sizes[0] if is_dynamic(n) else n] + [
            sizes[1 + i] if is_dynamic(s) else s for i, s in enumerate(blocked_sp[:len(sizes) - 1])]
        with e.loc, e.ip:
            empty = tensor.empty(mixed + blocked_sp[len(sizes) - 1:] + window + [c], elt)
        d = [ir.AffineDimExpr.get(i) for i in range(rank)]
        o = [d[1 + i] for i in range(nout)]
        if block > 1:
            o = o[:-2] + [o[-2] * block + o[-1]]
        read = [d[0]] + [o[i] * strides[i] + d[1 + nout + i] * dilations[i]
                         for i in range(nsp)] + [d[-1]]
        patches = _copy_generic(e, padded, empty, ir.AffineMap.get(rank, 0, read))
        with e.loc, e.ip:
            rows = tensor.collapse_shape(rows_t, patches, [list(range(nout + 1)),
                                                           list(range(nout + 1, rank))])
    mm = _rows_times_kernel(e, rows, k)
    full_sp = out_sp[:-1] + [dyn] if block > 1 else out_sp
    full_shape = [n] + full_sp + [f]
    with e.loc, e.ip:
        out = tensor.expand_shape(ir.RankedTensorType.get(full_shape, elt), mm,
                                  [list(range(nsp + 1)), [nsp + 1]],
                                  [v for v, s in zip(out_sizes, [n] + full_sp) if is_dynamic(s)],
                                  full_shape)
        if block > 1:
            # drop the last block's positions past O
            shape = [n] + out_sp + [f]
            out = tensor.extract_slice(
                ir.RankedTensorType.get(shape, elt), out, [],
                [v for v, d in zip(orig_sizes, shape) if is_dynamic(d)], [],
                [0] * len(shape), shape, [1] * len(shape))
    return out


def _few_surplus_rows(y_t: ir.RankedTensorType, group: int) -> bool:
    """The channels-last conv result `y_t` is static and its rows (all but the channels) fill
    groups of `group` with at most an eighth more rows (ResNet's 14 x 14 map at batch 1: 208
    for 196; not its 7 x 7 one: 64 for 49)."""
    if not y_t.has_static_shape:
        return False
    m = math.prod(y_t.shape[:-1])
    return -(-m // group) * group * 8 <= m * 9


def conv_as_row_group_im2col(e: OpBuilder, padded: ir.Value, k: ir.Value,
                             result_t: ir.RankedTensorType, strides, dilations,
                             group: int) -> ir.Value:
    """im2col + matmul (as conv_as_im2col_matmul) with a static result and the patch rows in
    groups of `group`: the patches are `G x group x K.. x C` (G = ceil(M / group) for the
    M = N * prod(O..) output positions), one linalg.generic reading row m = g * group + t (the
    last group's surplus clamped to M - 1) at (m / prod(O..), (m / ..) % O.., ..) * stride +
    k * dilation; the matmul's rows past M are sliced off:

        patches = linalg.generic : G x 16 x KH x KW x C      (tensor.extract of %padded)
        y = collapse(patches) : (G*16) x (KH*KW*C)  dot  reshape(kernel) : (KH*KW*C) x F
        result = expand(slice(y) : M x F) : N x O.. x F

    With the row axis split where IREE's data tiling packs the matmul's rows (16 to a tile on
    AVX-512, 8 on AVX2 and NEON), the pack moves above the collapse and fuses into the patch
    loop, as in the `block`ed form of conv_as_im2col_matmul but without its surplus columns: a
    14 x 14 or 7 x 7 map is not a whole number of tiles wide, so the flat patch matrix was
    copied again by a pack dispatch of its own (ResNet-18's 256- and 512-channel layers, static,
    batch 8, AMD EPYC: 11.9 -> 4.6 and 4.8 -> 2.4 ms CPU per call). Not over a `?` batch: IREE
    3.13's code for the fused patch loop over a `?` row count was 2-8x the unfused one
    (ResNet-18 batch-only at batch 8: 11.0 and 17.0 ms CPU against 9.7 and 3.9)."""
    p_t, k_t = ir.RankedTensorType(padded.type), ir.RankedTensorType(k.type)
    elt = result_t.element_type
    nsp = p_t.rank - 2
    c = p_t.shape[-1]
    f, window = k_t.shape[-1], list(k_t.shape[:-2])
    kk = math.prod(window)
    out_sp = list(result_t.shape[1:-1])
    m = math.prod(result_t.shape[:-1])
    groups = -(-m // group)
    patches_t = ir.RankedTensorType.get([groups, group] + window + [c], elt)
    rank = patches_t.rank
    patches, b, ix = _index_generic(e, e.tensor_empty(patches_t, []))
    pos = b.index_op("arith.addi", b.index_op("arith.muli", ix[0], b.const_index(group)), ix[1])
    pos = b.index_op("arith.minsi", pos, b.const_index(m - 1))
    read = [None] * nsp
    for i in reversed(range(nsp)):
        o = b.index_op("arith.remui", pos, b.const_index(out_sp[i]))
        pos = b.index_op("arith.divui", pos, b.const_index(out_sp[i]))
        read[i] = b.index_op("arith.addi", b.index_op("arith.muli", o, b.const_index(strides[i])),
                             b.index_op("arith.muli", ix[2 + i], b.const_index(dilations[i])))
    with b.loc, b.ip:
        linalg.YieldOp([b.tensor_extract(padded, [pos] + read + [ix[-1]])])
    rows = e.collapse_shape(patches, [[0, 1], list(range(2, rank))],
                            ir.RankedTensorType.get([groups * group, kk * c], elt))
    mm = _rows_times_kernel(e, rows, k)
    with e.loc, e.ip:
        return tensor.expand_shape(result_t, e.extract_slice(mm, [0, 0], [m, f]),
                                   [list(range(nsp + 1)), [nsp + 1]], [], list(result_t.shape))


def conv_as_blocked_direct(e: OpBuilder, padded: ir.Value, k: ir.Value, result_t: ir.RankedTensorType,
                           y_cl: list[int], sizes: list, strides, dilations, block: int,
                           rows: int = 0) -> tuple[ir.Value, "ConvBlocks"]:
    """An ungrouped 2-D convolution of the padded channels-last `N x HP x WP x C` input with the
    `KH x KW x C x F` kernel as a direct convolution over blocks of `block` output columns (and,
    with `rows` > 0, of `rows` output rows), giving the op's `result_t` (its axes are the
    channels-last ones permuted by `y_cl`; `sizes` holds N, OH, OW as index values). A block of
    `block` columns reads `BW = (block - 1) * stride + (KW - 1) * dilation + 1` input columns
    (its halo overlaps the next block's), likewise for rows. The blocks become the batch of a
    `linalg.conv_2d_nhwc_hwcf` whose spatial dims are static, which IREE tiles and vectorizes as
    it does a static convolution (over output columns and filters), where a conv over `?` W or
    the im2col matmul of a few-channel input is 3-10x slower:

        halo = linalg.generic : N x OB x HP x BW x C,  halo[n, ob, h, j, c] = x[n, h, ob * block * stride + j, c]
        y = conv_2d_nhwc_hwcf(collapse(halo) : (N*OB) x HP x BW x C, kernel) : (N*OB) x OH x block x F
        out = slice(collapse(transpose(expand(y) : N x OB x OH x block x F)))  in the result's layout

    With `rows`: halo `N x RB x OB x BH x BW x C` (RB = ceil(OH / rows)), y `(N*RB*OB) x rows x
    block x F`. Why rows: IREE 3.13 sizes its workgroups from the static dims only (a `?` dim
    counts as one tile) and splits those until it has 8 workgroups; 16 columns x F filters
    alone were split into 2-column tiles, and its vector tile follows (2 columns where the
    static conv gets 8). Static rows give it the workgroups without splitting the columns.

    OB = ceil(OW / block); the input holds the (block - 1) * stride columns (and (rows - 1) *
    stride rows) past the end that the last blocks read, and the positions past OH and OW are
    sliced off after the one transpose that also puts the result in the op's layout (for torch's
    NCHW: N x F x RB x rows x OB x block).
    """
    p_t, k_t = ir.RankedTensorType(padded.type), ir.RankedTensorType(k.type)
    elt = result_t.element_type
    n, hp, _, c = p_t.shape
    kh, kw, f = k_t.shape[0], k_t.shape[1], k_t.shape[3]
    oh = ir.RankedTensorType(result_t).shape[y_cl[1]]
    dyn = ir.ShapedType.get_dynamic_size()

    bw = (block - 1) * strides[1] + (kw - 1) * dilations[1] + 1
    ob = e.ceil_div(sizes[2], block)
    if rows:
        bh = (rows - 1) * strides[0] + (kh - 1) * dilations[0] + 1
        rb = e.ceil_div(sizes[1], rows)
        # halo[n, rb, ob, i, j, c] = padded[n, rb * rows * stride + i, ob * block * stride + j, c]
        outer, outer_sizes, inner_h, out_h = [n, dyn, dyn], [sizes[0], rb, ob], bh, rows
    else:
        # halo[n, ob, h, j, c] = padded[n, h, ob * block * stride + j, c]
        outer, outer_sizes, inner_h, out_h = [n, dyn], [sizes[0], ob], hp, oh
    halo_t = ir.RankedTensorType.get(outer + [inner_h, bw, c], elt)
    halo_sizes = outer_sizes + ([] if rows else [e.tensor_dim(padded, 1)])
    empty = e.tensor_empty(halo_t, [v for v, s in zip(halo_sizes, halo_t.shape) if is_dynamic(s)])
    rank = halo_t.rank
    d = [ir.AffineDimExpr.get(i) for i in range(rank)]
    no = len(outer)
    h_read = d[1] * (rows * strides[0]) + d[no] if rows else d[no]
    read = [d[0], h_read, d[no - 1] * (block * strides[1]) + d[no + 1], d[no + 2]]
    halo = _copy_generic(e, padded, empty, ir.AffineMap.get(rank, 0, read))
    x4 = e.collapse_shape(halo, [list(range(no)), [no], [no + 1], [no + 2]],
                          ir.RankedTensorType.get([dyn, inner_h, bw, c], elt))
    nbatch = outer_sizes[0]
    for v in outer_sizes[1:]:
        nbatch = e.index_op("arith.muli", nbatch, v)
    y4_t = ir.RankedTensorType.get([dyn, out_h, block, f], elt)
    out = _filled(e, y4_t, [nbatch, None if rows else sizes[1], None, None], e.constant(elt, 0.0))
    with e.loc, e.ip:
        y4 = linalg.conv_2d_nhwc_hwcf(x4, k, outs=[out], strides=strides, dilations=dilations)
    blocks = ConvBlocks(y4, n, outer_sizes, rows, y_cl, defining_op(halo))
    # drop the last blocks' positions past OH and OW
    final = [sizes[y_cl.index(a)] if is_dynamic(result_t.shape[a]) else result_t.shape[a]
             for a in range(4)]
    return _unblock(e, y4, blocks, result_t, final, None if rows else sizes[1]), blocks


@dataclass(frozen=True)
class ConvBlocks:
    """How a direct conv over blocks laid out its `y4 = (N*RB*OB | N*OB) x R x T x F` result:
    the outer sizes (N, RB, OB or N, OB), `rows` (0: the rows were not blocked), the
    channels-last axes of the op's result (`y_cl`) and, for a conv's own blocks, the
    linalg.generic that gathered its input blocks (`halo`; see gather_halo_from_conv_blocks)."""

    y4: ir.Value
    n: int
    outer_sizes: list
    rows: int
    y_cl: list
    halo: ir.Operation | None = None


def _unblock(e: OpBuilder, y4: ir.Value, blocks: ConvBlocks, result_t: ir.RankedTensorType,
             final: list, r_size: ir.Value | None) -> ir.Value:
    """`(N*RB*OB | N*OB) x R x T x F` blocks -> the op's layout (`result_t`, axes permuted by
    `blocks.y_cl`), sliced to `final` sizes: expand, one transpose to channels-last, collapse,
    slice, one transpose to the op's layout.
    `r_size`: R as an index value where R is `?` (rows not blocked over a `?` height)."""
    y4_t = ir.RankedTensorType(y4.type)
    r, t, f = y4_t.shape[1:]
    elt = y4_t.element_type
    dyn = ir.ShapedType.get_dynamic_size()
    n, y_cl, no = blocks.n, blocks.y_cl, len(blocks.outer_sizes)
    # channels-last axis -> axes of the expanded y, in the result's order
    if blocks.rows:
        y_t = ir.RankedTensorType.get([n, dyn, dyn, r, t, f], elt)
        y_sizes = blocks.outer_sizes
        parts = {0: [0], 1: [1, 3], 2: [2, 4], 3: [5]}
    else:
        y_t = ir.RankedTensorType.get([n, dyn, r, t, f], elt)
        y_sizes = blocks.outer_sizes + [r_size]
        parts = {0: [0], 1: [2], 2: [1, 3], 3: [4]}
    y = e.expand_shape(y4, [list(range(no)), [no], [no + 1], [no + 2]], y_t,
                       [v for v, s in zip(y_sizes, y_t.shape) if is_dynamic(s)])
    # channels-last first (the slice there), then one transpose to the op's layout: after NCHW
    # batch norm and ReLU, symhlo-sink-transposes-for-iree meets it with the next conv's own.
    # (One linalg.generic reading the blocks by h / R, h % R into the sliced channels-last
    # result measured slower: small CNN at batch 8, 2.1 against 1.75 process CPU / static.)
    order = [parts[j] for j in range(4)]
    yt = e.hlo_transpose(y, [ax for grp in order for ax in grp])
    groups, i = [], 0
    for grp in order:
        groups.append(list(range(i, i + len(grp))))
        i += len(grp)
    wide = [dyn if len(grp) > 1 else result_t.shape[y_cl[j]] for j, grp in enumerate(order)]
    yc = e.collapse_shape(yt, groups, ir.RankedTensorType.get(wide, elt))
    ys = e.extract_slice(yc, [0] * 4, [final[y_cl[j]] for j in range(4)])
    return e.hlo_transpose(ys, inverse_perm(y_cl))


def _grouped_conv_2d(e: OpBuilder, padded: ir.Value, k: ir.Value, result_t: ir.RankedTensorType,
                     sizes: list, zero: ir.Value, groups: int, strides, dilations) -> ir.Value:
    """N x (G*C) x H x W  conv  (G*F) x C x KH x KW  via linalg.conv_2d_ngchw_gfchw."""
    p_t, k_t = ir.RankedTensorType(padded.type), ir.RankedTensorType(k.type)
    n, c, h, w = p_t.shape
    f_total, c_per, kh, kw = k_t.shape
    elt = result_t.element_type
    x5_shape = [n, groups, c // groups, h, w]
    x5_t = ir.RankedTensorType.get(x5_shape, elt)
    dyn_sizes = [e.tensor_dim(padded, a) for a in (0, 2, 3) if is_dynamic(p_t.shape[a])]
    x5 = tensor.expand_shape(x5_t, padded, [[0], [1, 2], [3], [4]], dyn_sizes, x5_shape)
    k5_t = ir.RankedTensorType.get([groups, f_total // groups, c_per, kh, kw], elt)
    k5 = e.value("stablehlo.reshape", [k5_t], [k])
    o5_shape = [result_t.shape[0], groups, f_total // groups, result_t.shape[2], result_t.shape[3]]
    o5_t = ir.RankedTensorType.get(o5_shape, elt)
    o5_sizes = [sizes[0], None, None, sizes[2], sizes[3]]
    out = _filled(e, o5_t, o5_sizes, zero)
    conv = linalg.conv_2d_ngchw_gfchw(x5, k5, outs=[out], strides=strides, dilations=dilations)
    return tensor.collapse_shape(result_t, conv, [[0], [1, 2], [3], [4]])


def _grouped_conv_1d(e: OpBuilder, padded: ir.Value, k: ir.Value, result_t: ir.RankedTensorType,
                     sizes: list, zero: ir.Value, groups: int, strides, dilations) -> ir.Value:
    """A grouped 1-D convolution as the 2-D one over a unit height (linalg has no grouped 1-D
    named op): N x C x L -> N x C x 1 x L, kernel F x C/G x K -> F x C/G x 1 x K, and back."""
    p_t, k_t = ir.RankedTensorType(padded.type), ir.RankedTensorType(k.type)
    elt = result_t.element_type
    n, c, length = p_t.shape
    x4_t = ir.RankedTensorType.get([n, c, 1, length], elt)
    dyn = [e.tensor_dim(padded, a) for a in (0, 2) if is_dynamic(p_t.shape[a])]
    x4 = tensor.expand_shape(x4_t, padded, [[0], [1], [2, 3]], dyn, [n, c, 1, length])
    f, c_per, kw = k_t.shape
    k4 = e.value("stablehlo.reshape", [ir.RankedTensorType.get([f, c_per, 1, kw], elt)], [k])
    r = result_t.shape
    r4_t = ir.RankedTensorType.get([r[0], r[1], 1, r[2]], elt)
    one = e.const_index(1)
    conv = _grouped_conv_2d(e, x4, k4, r4_t, [sizes[0], None, one, sizes[2]], zero, groups,
                            [1] + list(strides), [1] + list(dilations))
    return tensor.collapse_shape(result_t, conv, [[0], [1], [2, 3]])


# ---------------------------------------------------------------------------------------------
# stablehlo.reduce_window

# (body, spatial axes, channels last) -> linalg pooling op
_POOLING = {
    ("stablehlo.maximum", 1, False): "pooling_ncw_max",
    ("stablehlo.maximum", 2, False): "pooling_nchw_max",
    ("stablehlo.add", 1, False): "pooling_ncw_sum",
    ("stablehlo.add", 2, False): "pooling_nchw_sum",
    ("stablehlo.maximum", 1, True): "pooling_nwc_max",
    ("stablehlo.maximum", 2, True): "pooling_nhwc_max",
    ("stablehlo.maximum", 3, True): "pooling_ndhwc_max",
    ("stablehlo.add", 1, True): "pooling_nwc_sum",
    ("stablehlo.add", 2, True): "pooling_nhwc_sum",
    ("stablehlo.add", 3, True): "pooling_ndhwc_sum",
}


def pooling_layout(rank: int, windowed: list[int], body: str,
                   channels_last: bool | None = None) -> tuple[list[int], bool] | None:
    """The permutation that brings a reduce_window's axes into a linalg pooling op's layout, and
    whether that layout is channels-last: two plain axes (N, C) and 1-3 spatial ones, the spatial
    ones being the windowed axes plus, where needed, plain axes (a window of 1 over them is the
    identity). An identity permutation is preferred (NCHW from torch, NHWC from jax: no
    transposes), then channels-first; `channels_last` picks among those of that kind only.
    None when no pooling op fits."""
    plain = [a for a in range(rank) if a not in windowed]
    extra = rank - 2 - len(windowed)
    if extra < 0 or rank - 2 > 3:
        return None
    candidates = []
    for more in itertools.combinations(plain, extra):
        spatial = sorted(windowed + list(more))
        n, c = [a for a in range(rank) if a not in spatial]
        for last in (False, True):
            if (body, len(spatial), last) in _POOLING and channels_last in (None, last):
                candidates.append(([n, *spatial, c] if last else [n, c, *spatial], last))
    if not candidates:
        return None
    return min(candidates, key=lambda pl: (pl[0] != sorted(pl[0]), pl[1]))


def _transposed_from(v: ir.Value, perm: list[int], depth: int = 12) -> bool:
    """`v` is, through per-channel elementwise ops and pads, a transpose that `perm` undoes
    (`transpose(transpose(y, p), perm)` is `y`)."""
    op = defining_op(v)
    if op is None or depth == 0:
        return False
    if op.name == "stablehlo.transpose":
        p = transpose_perm(op)
        return [p[i] for i in perm] == list(range(len(perm)))
    if op.name not in _CHANNELWISE and op.name not in ("stablehlo.pad", "stablehlo.clamp"):
        return False
    rank = len(perm)
    return any(_transposed_from(o, perm, depth - 1) for o in op.operands
               if ir.RankedTensorType(o.type).rank == rank and
               (defining_op(o) is None or defining_op(o).name not in _BROADCASTS))


def reduce_window_body(op: ir.Operation) -> str | None:
    """The name of the single binary op combining the two block arguments, or None."""
    block = op.regions[0].blocks[0]
    ops = [o.operation for o in block.operations]
    if len(ops) != 2 or ops[1].name != "stablehlo.return":
        return None
    body = ops[0]
    if len(body.operands) != 2 or not all(isinstance(v.owner, ir.Block) for v in body.operands):
        return None
    if len(body.results) != 1 or ops[1].operands[0] != body.results[0]:
        return None
    return body.name


_BROADCASTS = ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim")

# the float reduction of a pooling's taps (_pool_taps), as linalg's pooling ops compute it
_TAP_COMBINE = {"linalg.pooling_nhwc_max": "arith.maximumf",
                "linalg.pooling_nhwc_sum": "arith.addf"}

# elementwise ops a pooling is moved above (onto a conv's blocks), with per-channel operands
_CHANNELWISE = {
    "stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide",
    "stablehlo.maximum", "stablehlo.minimum", "stablehlo.negate", "stablehlo.exponential",
    "stablehlo.logistic", "stablehlo.tanh", "stablehlo.sqrt", "stablehlo.rsqrt", "stablehlo.abs",
}


_SIZE_READS = ("stablehlo.get_dimension_size", "tensor.dim")


def _single_use(v: ir.Value) -> bool:
    return len(list(v.uses)) == 1


def _per_channel(v: ir.Value, channel: int) -> tuple[ir.Value, int | None] | None:
    """(c, k) when `v` is a splat constant or a broadcast of a static `c` that varies along the
    result's `channel` axis at most (c's axis k; None: a scalar broadcast); else None."""
    op = defining_op(v)
    if op is None:
        return None
    if op.name == "stablehlo.constant":
        attr = op.attributes["value"]
        if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
            return v, None
        return None
    if op.name not in _BROADCASTS:
        return None
    c = op.operands[0]
    c_t = ir.RankedTensorType(c.type)
    if not c_t.has_static_shape:
        return None
    dims = [int(d) for d in ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])]
    kc = None
    for k, d in enumerate(dims):
        if d == channel and c_t.shape[k] != 1:
            kc = k
        elif c_t.shape[k] != 1:
            return None
    return c, kc


def _channel_broadcast(e: OpBuilder, c: ir.Value, kc: int | None, like: ir.Value) -> ir.Value:
    """`c` (a splat constant, or varying along its axis `kc`) broadcast over `like`'s
    `B x R x T x F` blocks along F."""
    c_t = ir.RankedTensorType(c.type)
    op = defining_op(c)
    if kc is None:
        if op is not None and op.name == "stablehlo.constant" and c_t.rank:
            attr = ir.DenseElementsAttr(op.attributes["value"])
            c = e.value("stablehlo.constant", [ir.RankedTensorType.get([], c_t.element_type)], [],
                        {"value": ir.DenseElementsAttr.get_splat(
                            ir.RankedTensorType.get([], c_t.element_type), attr.get_splat_value())})
        else:
            c = e.hlo_reshape(c, [])
        dims = []
    else:
        c = e.hlo_reshape(c, [c_t.shape[kc]])
        dims = [3]
    like_t = ir.RankedTensorType(like.type)
    shape = e.value("stablehlo.concatenate",
                    [ir.RankedTensorType.get([4], ir.IntegerType.get_signless(64))],
                    [e.hlo_dim(like, a) for a in range(4)],
                    {"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})
    out_t = ir.RankedTensorType.get(like_t.shape, ir.RankedTensorType(c.type).element_type)
    attrs = {"broadcast_dimensions": ir.DenseI64ArrayAttr.get(dims)}
    if dims:
        attrs["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get([0])
    return e.value("stablehlo.dynamic_broadcast_in_dim", [out_t], [c, shape], attrs)


def _chain_on_blocks(e: OpBuilder, chain: list, slots: list, y4: ir.Value) -> ir.Value:
    """`chain` (per-channel elementwise ops, first to last) cloned onto the `B x R x T x F`
    blocks `y4`: in each op the chain's value becomes the blocks (the slot None) and each other
    operand (per-channel `(c, k)` from `_per_channel`) a broadcast of `c` along F."""
    cur = y4
    for d, ops_ in zip(chain, slots):
        new_ops = [cur if pc is None else _channel_broadcast(e, pc[0], pc[1], cur) for pc in ops_]
        new = d.clone(ip=e.ip)
        for i, nv in enumerate(new_ops):
            new.operands[i] = nv
        elt = ir.RankedTensorType(d.results[0].type).element_type
        new.results[0].set_type(ir.RankedTensorType.get(ir.RankedTensorType(cur.type).shape, elt))
        cur = new.results[0]
    return cur


def pool_over_conv_blocks(op: ir.Operation, blocked: list) -> bool:
    """Non-overlapping pooling (window = stride, dividing the blocks; no padding or dilation)
    of per-channel elementwise ops (batch norm, ReLU) of a direct conv's blocked result
    (`conv_as_blocked_direct`): the elementwise ops and a `linalg.pooling_nhwc_*` run on the
    conv's `B x R x T x F` blocks (static R, T: IREE tiles them like a static pooling, and the
    elementwise ops fuse into the conv's dispatch), and only the pooled blocks go back to the
    op's layout:

        %s = slice(collapse(transpose(expand(%y4))))     (the conv, N x F x OH x OW)
        %b = stablehlo.maximum (stablehlo.multiply %s, %scale), %zero
        %p = "stablehlo.reduce_window"(%b, %ninf) {window_dimensions = [1, 1, 2, 2], window_strides = [1, 1, 2, 2]}
      ==>
        %b4 = stablehlo.maximum (stablehlo.multiply %y4, %scale4), %zero4   : B x 8 x 16 x F
        %p4 = linalg.pooling_nhwc_max %b4 (2 x 2, stride 2)                 : B x 4 x 8 x F
        %p = slice(collapse(transpose(expand(%p4))))                        : N x F x PH x PW

    A pooled position whose window lies inside OH x OW reads the same values as before; the
    blocks' positions past OH / OW only feed pooled positions that are sliced off. Returns False
    (and changes nothing) for any other reduce_window."""
    if not blocked or len(op.operands) != 2:
        return False
    body = reduce_window_body(op)
    if body not in ("stablehlo.maximum", "stablehlo.add"):
        return False
    x_t = ir.RankedTensorType(op.operands[0].type)
    if x_t.rank != 4:
        return False
    window = _i64s(op, "window_dimensions", 4, 1)
    strides = _i64s(op, "window_strides", 4, 1)
    low, high = _padding(op, 4)
    if any(_i64s(op, a, 4, 1) != [1] * 4 for a in ("base_dilations", "window_dilations")) \
            or any(low) or any(high) or window != strides:
        return False
    # walk up the single-use per-channel elementwise chain to a direct conv's sliced result
    chain, v, info = [], op.operands[0], None
    while True:
        info = next((b for r, b in blocked if r == v), None)
        if info is not None:
            break
        d = defining_op(v)
        if d is None or d.name not in _CHANNELWISE or not _single_use(v):
            return False
        mains = [o for o in d.operands if defining_op(o) is None or defining_op(o).name not in
                 ("stablehlo.constant", *_BROADCASTS)]
        if len(mains) != 1:
            return False
        chain.append(d)
        v = mains[0]
    y_cl = info.y_cl
    bax, hax, wax, fax = y_cl
    y4_t = ir.RankedTensorType(info.y4.type)
    r, t = y4_t.shape[1], y4_t.shape[2]
    kh, kw = window[hax], window[wax]
    if window[bax] != 1 or window[fax] != 1 or t % kw or (not is_dynamic(r) and info.rows and r % kh):
        return False
    if is_dynamic(r):
        return False  # a `?` height not in blocks: the plain lowering
    per_channel = []
    for d in chain:
        ops_ = []
        for o in d.operands:
            if o == v or any(o == c.results[0] for c in chain):
                ops_.append(None)
                continue
            pc = _per_channel(o, fax)
            if pc is None:
                return False
            ops_.append(pc)
        per_channel.append(ops_)
    e = OpBuilder(op)
    cur = _chain_on_blocks(e, list(reversed(chain)), list(reversed(per_channel)), info.y4)
    elt = ir.RankedTensorType(cur.type).element_type
    x, init_t = op.operands
    init = e.value("tensor.extract", [elt], [init_t])
    pooled_t = ir.RankedTensorType.get([y4_t.shape[0], r // kh, t // kw, y4_t.shape[3]], elt)
    out = _filled(e, pooled_t, [e.tensor_dim(cur, 0)], init)
    named = _POOLING[(body, 2, True)]
    with e.loc, e.ip:
        kernel = tensor.empty([kh, kw], elt)
        p4 = getattr(linalg, named)(cur, kernel, outs=[out], strides=[kh, kw], dilations=[1, 1])
    result_t = ir.RankedTensorType(op.results[0].type)
    # sizes from the conv's sliced result (the elementwise ops keep them), so that the old
    # chain dies
    final = [(_window_out_size(e, v, a, window[a], strides[a], 1) if a in (hax, wax)
              else e.tensor_dim(v, a)) if is_dynamic(result_t.shape[a]) else result_t.shape[a]
             for a in range(4)]
    pooled_blocks = ConvBlocks(p4, info.n, info.outer_sizes, info.rows // kh if info.rows else 0, y_cl)
    new = _unblock(e, p4, pooled_blocks, result_t, final, None)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


def chain_over_conv_blocks(result: ir.Value, info: "ConvBlocks") -> ir.Value | None:
    """The single-use chain of per-channel elementwise ops (batch norm, ReLU) that reads a direct
    conv's sliced result runs on the conv's `B x R x T x F` blocks instead (it fuses into the
    conv's dispatch, as in a static module), and the chain's end is what goes back to the op's
    layout:

        %s = transpose(slice(collapse(transpose(expand(%y4)))))     (the conv, N x F x OH x OW)
        %b = stablehlo.maximum (stablehlo.multiply %s, %scale), %zero
      ==>
        %b4 = stablehlo.maximum (stablehlo.multiply %y4, %scale4), %zero4   : B x R x T x F
        %b = transpose(slice(collapse(transpose(expand(%b4)))))

    The blocks' positions past OH / OW are computed too and sliced off. Size reads of the chain's
    values (the broadcasts' shapes) read `result`'s. Returns the chain's blocks (`%b4`); None
    (nothing changed) when no such op reads `result` (a pooling over the blocks took the chain
    already, or a residual add reads it)."""
    y_cl = info.y_cl
    fax = y_cl[3]
    chain, ops_per, v = [], [], result
    size_reads = []
    while True:
        users = [use_owner(u) for u in v.uses]
        reads = [u for u in users if u.name in _SIZE_READS]
        if len(users) - len(reads) != 1:
            break
        d = next(u for u in users if u.name not in _SIZE_READS)
        if d.name not in _CHANNELWISE or len(d.results) != 1:
            break
        slots = []
        for o in d.operands:
            if o == v:
                slots.append(None)
                continue
            pc = _per_channel(o, fax)
            if pc is None:
                break
            slots.append(pc)
        if len(slots) != len(d.operands) or slots.count(None) != 1:
            break
        chain.append(d)
        ops_per.append(slots)
        size_reads += reads
        v = d.results[0]
    if not chain or not any(use_owner(u).name not in _SIZE_READS for u in v.uses):
        return None  # none, or a dead chain (a pooling over the blocks rebuilt it there)
    for r in size_reads:  # the chain keeps the shape: read it off the conv's result
        r.operands[0] = result
    last = chain[-1]
    e = OpBuilder(last)
    cur = _chain_on_blocks(e, chain, ops_per, info.y4)
    result_t = ir.RankedTensorType(last.results[0].type)
    final = [e.tensor_dim(result, a) if is_dynamic(result_t.shape[a]) else result_t.shape[a]
             for a in range(4)]
    r_size = None if info.rows else e.tensor_dim(info.y4, 1)
    blocks = ConvBlocks(cur, info.n, info.outer_sizes, info.rows, y_cl)
    last.results[0].replace_all_uses_with(_unblock(e, cur, blocks, result_t, final, r_size))
    for d in reversed(chain):
        d.erase()
    return cur


_UNBLOCKING_OPS = ("stablehlo.pad", "stablehlo.transpose", "tensor.extract_slice", "tensor.collapse_shape",
                   "tensor.expand_shape", "tensor.dim", "stablehlo.constant", "arith.constant")

# _unblock's view of `B x R x T x F` blocks as `N x H x W x F`, per form (rows blocked or not):
# the expand_shape's groups, the transpose, the collapse_shape's groups
_UNBLOCKED_FORMS = {
    True: ([[0, 1, 2], [3], [4], [5]], [0, 1, 3, 2, 4, 5], [[0], [1, 2], [3, 4], [5]]),
    False: ([[0, 1], [2], [3], [4]], [0, 2, 1, 3, 4], [[0], [1], [2, 3], [4]]),
}


def _mixed_size(op: ir.Operation, attr: str, first: int, axis: int, e: OpBuilder) -> ir.Value:
    """Entry `axis` of an op's static/dynamic size list (`attr`, its `?` entries the operands
    from `first` on) as an index value."""
    static = list(ir.DenseI64ArrayAttr(op.attributes[attr]))
    if not is_dynamic(static[axis]):
        return e.const_index(static[axis])
    return op.operands[first + sum(is_dynamic(s) for s in static[:axis])]


def _unblocked_source(v: ir.Value):
    """(blocks, slice op, expand op, rows blocked) when `v` is `_unblock`'s channels-last view of
    a direct conv's (or its pooling's) `B x R x T x F` blocks, sliced at the origin:
    `slice(collapse(transpose(expand(blocks))))`, through transposes that compose to the
    identity (the op's layout and back); else None."""
    v, q = through_transposes(v)
    s = defining_op(v) if q == sorted(q) else None
    if s is None or s.name != "tensor.extract_slice" or len(s.operands) != 1 + sum(
            is_dynamic(x) for x in ir.DenseI64ArrayAttr(s.attributes["static_sizes"])):
        return None  # a dynamic offset or stride
    if any(ir.DenseI64ArrayAttr(s.attributes["static_offsets"])) or any(
            x != 1 for x in ir.DenseI64ArrayAttr(s.attributes["static_strides"])):
        return None
    c = defining_op(s.operands[0])
    t = defining_op(c.operands[0]) if c is not None and c.name == "tensor.collapse_shape" else None
    x = defining_op(t.operands[0]) if t is not None and t.name == "stablehlo.transpose" else None
    if x is None or x.name != "tensor.expand_shape":
        return None
    blocks = x.operands[0]
    b_t = ir.RankedTensorType(blocks.type)
    if b_t.rank != 4 or not all(not is_dynamic(d) for d in b_t.shape[2:]):
        return None
    perm = transpose_perm(t)
    for rows, (expand, transpose, collapse) in _UNBLOCKED_FORMS.items():
        if (reassociation_groups(x), perm, reassociation_groups(c)) == (expand, transpose, collapse):
            if rows and is_dynamic(b_t.shape[1]):
                return None
            if ir.RankedTensorType(s.results[0].type).shape[3] != b_t.shape[3]:
                return None  # channels sliced
            return blocks, s, x, rows
    return None


def gather_halo_from_conv_blocks(halo: ir.Operation) -> bool:
    """A direct conv's halo gather (`conv_as_blocked_direct`) whose padded input is another direct
    conv's (or its pooling's) blocks gone back to `N x H x W x C` (`_unblock`) reads those blocks
    instead: one linalg.generic finds each halo element's block by division, and the padding by
    a bounds check, where the unblocking transpose, the copy of its slice and the pad were
    dispatches of their own (IREE materializes a slice with `?` sizes):

        %u = slice(collapse(transpose(expand(%p4 : B x 4 x 8 x C))))    : N x H x W x C
        %p = stablehlo.pad %u, %zero, low = [0, 1, 1, 0], high = [0, 8, 16, 0]
        %h = linalg.generic ins(%p) {map (n, rb, ob, i, j, c) -> (n, rb*8 + i, ob*16 + j, c)}
      ==>
        %h = linalg.generic outs(..) {
          y = rb*8 + i - 1, x = ob*16 + j - 1, in = 0 <= y < H && 0 <= x < W
          e = tensor.extract %p4[(n * RB + y / 4) * OB + x / 8, y % 4, x % 8, c]   (y, x clamped)
          yield select(in, e, 0) }

    Small CNN (8-16 channels) at (8, 3, 128, 128), process CPU per call: 4.91 -> 4.46 ms (static
    2.79); the gather costs what the plain halo copy did. Only positions inside H x W are read,
    so the blocks' surplus past them (and their values there) does not matter. False (nothing
    changed) for any other input."""
    pad = _zero_interior_pad(halo.operands[0])
    e = OpBuilder(halo)
    reader = _blocks_reader(pad.operands[0], e, pad) if pad is not None else None
    if reader is None:
        return False
    at_map = ir.AffineMapAttr(ir.ArrayAttr(halo.attributes["indexing_maps"])[0]).value
    halo.results[0].replace_all_uses_with(_gather(e, halo.operands[1], at_map, *_pad_amounts(pad),
                                                  *reader))
    halo.erase()
    return True


def read_halo_in_input_layout(halo: ir.Operation, max_channels: int) -> bool:
    """A direct conv's halo gather (`conv_as_blocked_direct`) whose padded input is a transpose
    to channels-last of an input with at most `max_channels` channels (torch's NCHW image) reads
    that input in its own layout: the input is padded where it is (a copy of a few channels)
    and the gather reads it through its own map permuted, so the transpose over `?` dims (3x
    the static module's) is gone:

        %t = stablehlo.transpose %x, dims = [0, 2, 3, 1]   : N x C x H x W -> N x H x W x C
        %p = stablehlo.pad %t, %zero, low = [0, 3, 3, 0], high = [0, 10, 17, 0]
        %h = linalg.generic ins(%p) {map (n, rb, ob, i, j, c) -> (n, rb*16 + i, ob*16 + j, c)}
      ==>
        %p = stablehlo.pad %x, %zero, low = [0, 0, 3, 3], high = [0, 0, 10, 17]
        %h = linalg.generic ins(%p) {map (n, rb, ob, i, j, c) -> (n, c, rb*16 + i, ob*16 + j)}

    Per call at batch 8, transpose + pad + halo copy against this (`bench/dispatch_profile.py`,
    alternated rounds, medians): ResNet-18's stem (224², 7 x 7 / 2) 1.24 + 0.69 -> 0.24 + 0.85
    ms on an AMD EPYC, 0.88 + 2.09 -> 0.45 + 2.37 on an Intel Xeon; the small CNN's (128²)
    0.18 + 0.42 -> 0.12 + 0.49 on the Xeon. Reading each element of the unpadded input by
    tensor.extract with a bounds check instead (`_gather`) was faster on the EPYC (0.79 ms on
    ResNet-18) and 2-3x slower on the Xeon (4.95 and 1.22 ms: the per-element index arithmetic
    became 64-bit vector multiplies). Its innermost axis strides across H x W per channel, not
    measured for wide inputs: the transpose stays for more than `max_channels`. Only where the
    transpose and the pad have no other reader than the halo (size reads are folded onto `%x`'s
    sizes). False (nothing changed) for any other input."""
    pad = _zero_interior_pad(halo.operands[0])
    t = defining_op(pad.operands[0]) if pad is not None else None
    channels = ir.RankedTensorType(halo.operands[0].type).shape[-1]
    if t is None or t.name != "stablehlo.transpose" or not 0 < channels <= max_channels or not (
            _one_reader(pad.results[0]) and _one_reader(t.results[0])):
        return False
    x, perm = t.operands[0], transpose_perm(t)  # axis i of %t is axis perm[i] of %x
    inv = inverse_perm(perm)
    low, high = (list(ir.DenseI64ArrayAttr(pad.attributes[f"edge_padding_{side}"]))
                 for side in ("low", "high"))
    e = OpBuilder(pad)
    sizes = [e.tensor_dim(x, a) for a in perm]  # channels-last
    _fold_size_reads(pad.results[0], [(sizes[a], low[a] + high[a]) for a in range(len(perm))])
    _fold_size_reads(t.results[0], [(sizes[a], 0) for a in range(len(perm))])
    b = OpBuilder(halo)
    padded = b.hlo_pad(x, pad.operands[1], [low[i] for i in inv], [high[i] for i in inv],
                       [0] * len(perm))
    at = list(ir.AffineMapAttr(ir.ArrayAttr(halo.attributes["indexing_maps"])[0]).value.results)
    read = ir.AffineMap.get(len(ir.RankedTensorType(halo.results[0].type).shape), 0,
                            [at[i] for i in inv])
    halo.results[0].replace_all_uses_with(_copy_generic(b, padded, halo.operands[1], read))
    halo.erase()
    return True


def _blocks_reader(v: ir.Value, e: OpBuilder, pad: ir.Operation | None = None):
    """(H and W of `v`, `read(b, n, y, x, c)`) when `v` is a direct conv's (or its pooling's)
    blocks gone back to `N x H x W x C` (`_unblocked_source`): `read` builds, inside a
    linalg.generic, the read of position (n, y, x, c) from the blocks. The size reads of `pad`
    (which pads `v`) are folded onto `v`'s sizes (so the unblocking dies with its last reader).
    None for any other value."""
    src = _unblocked_source(v)
    if src is None:
        return None
    blocks, s, x, rows = src
    b_t = ir.RankedTensorType(blocks.type)
    sizes = [_mixed_size(s, "static_sizes", 1, a, e) for a in range(4)]
    outer = [_mixed_size(x, "static_output_shape", 1, a, e) for a in (1, 2)]
    _fold_unblocked_size_reads(v, sizes, pad)

    def read(b: OpBuilder, n: ir.Value, y: ir.Value, xx: ir.Value, c: ir.Value) -> ir.Value:
        r, t = b.const_index(b_t.shape[1]), b.const_index(b_t.shape[2])
        col = b.index_op("arith.divui", xx, t)
        if rows:  # (n * RB + y / R) * OB + x / T
            blk = b.index_op("arith.addi", b.index_op("arith.muli", b.index_op(
                "arith.addi", b.index_op("arith.muli", n, outer[0]), b.index_op("arith.divui", y, r)),
                outer[1]), col)
            row = b.index_op("arith.remui", y, r)
        else:  # n * OB + x / T, all rows in one block
            blk = b.index_op("arith.addi", b.index_op("arith.muli", n, outer[0]), col)
            row = y
        return b.tensor_extract(blocks, [blk, row, b.index_op("arith.remui", xx, t), c])

    return sizes[1:3], read


def _fold_unblocked_size_reads(v: ir.Value, sizes: list, pad: ir.Operation | None) -> None:
    """`tensor.dim`s of `pad`'s result (the halo's and output sizes) and of `v` and the
    transposes between it and the unblocked slice (of sizes `sizes`, channels-last) -> those
    sizes (plus the padding), so that the pad and the unblocking before it die once the gather
    no longer reads them."""
    if pad is not None:
        low = list(ir.DenseI64ArrayAttr(pad.attributes["edge_padding_low"]))
        high = list(ir.DenseI64ArrayAttr(pad.attributes["edge_padding_high"]))
        _fold_size_reads(pad.results[0], [(s, low[a] + high[a]) for a, s in enumerate(sizes)])
    # `v` and the transposes between it and the slice (composing to the identity)
    for w, q in transpose_chain(v):
        _fold_size_reads(w, [(sizes[q[a]], 0) for a in range(4)])


def _fold_size_reads(v: ir.Value, sizes: list) -> None:
    """Each `tensor.dim %v, a` -> `sizes[a]` = (index value, constant added)."""
    for use in list(v.uses):
        d = use_owner(use)
        axis = defining_op(d.operands[1]) if d.name == "tensor.dim" else None
        if axis is None or axis.name != "arith.constant":
            continue
        size, plus = sizes[ir.IntegerAttr(axis.attributes["value"]).value]
        b = OpBuilder(d)
        d.results[0].replace_all_uses_with(
            b.index_op("arith.addi", size, b.const_index(plus)) if plus else size)
        d.erase()


def _zero_interior_pad(v: ir.Value) -> ir.Operation | None:
    """The stablehlo.pad defining `v`, without interior padding and with a constant value."""
    pad = defining_op(v)
    if pad is None or pad.name != "stablehlo.pad" or any(
            ir.DenseI64ArrayAttr(pad.attributes["interior_padding"])):
        return None
    value = defining_op(pad.operands[1])
    return pad if value is not None and value.name == "stablehlo.constant" else None


def _one_reader(v: ir.Value) -> bool:
    """`v` has one reader besides size reads."""
    return sum(use_owner(u).name not in _SIZE_READS for u in v.uses) == 1


def _read_only_here(v: ir.Value) -> bool:
    """`v` and the values it is a transpose of, back to one that is not a transpose, each have
    one reader besides size reads."""
    while True:
        if not _one_reader(v):
            return False
        d = defining_op(v)
        if d is None or d.name != "stablehlo.transpose":
            return True
        v = d.operands[0]


def _pad_amounts(pad: ir.Operation) -> tuple[list[int], ir.Attribute]:
    """A stablehlo.pad's low amounts and its (constant) value."""
    return (list(ir.DenseI64ArrayAttr(pad.attributes["edge_padding_low"])),
            ir.DenseElementsAttr(defining_op(pad.operands[1]).attributes["value"]).get_splat_value())


def _copy_generic(e: OpBuilder, src: ir.Value, out: ir.Value, read: ir.AffineMap) -> ir.Value:
    """An all-parallel linalg.generic filling `out` with `src` read at `read`:
    out[i..] = src[read(i..)] (an im2col's patches, a conv's halo blocks)."""
    result, b, args = e.parallel_generic(out, [src], [read])
    b.create("linalg.yield", [], [args[0]])
    return result


def _index_generic(e: OpBuilder, out: ir.Value) -> tuple[ir.Value, OpBuilder, list]:
    """An all-parallel linalg.generic writing `out` from no inputs (its body reads by position):
    (its result, a builder in its body, the body's linalg.index values)."""
    result, b, _ = e.parallel_generic(out)
    return result, b, [b.linalg_index(d) for d in range(ir.RankedTensorType(out.type).rank)]


def _read_inside(b: OpBuilder, read, n: ir.Value, y: ir.Value, x: ir.Value, c: ir.Value,
                 sizes: list, outside: ir.Value) -> ir.Value:
    """`read(b, n, y, x, c)` where (y, x) lies inside the H x W `sizes`, `outside` elsewhere
    (y and x clamped to 0 there, so that `read` may index with them)."""
    i1, zero = ir.IntegerType.get_signless(1), b.const_index(0)
    inside = b.cmpi("sge", y, zero)
    for cond in (b.cmpi("slt", y, sizes[0]), b.cmpi("sge", x, zero), b.cmpi("slt", x, sizes[1])):
        inside = b.value("arith.andi", [i1], [inside, cond])
    elem = read(b, n, b.arith_select(inside, y, zero), b.arith_select(inside, x, zero), c)
    return b.arith_select(inside, elem, outside)


def _gather(e: OpBuilder, out: ir.Value, at_map: ir.AffineMap, low: list[int], fill: ir.Attribute,
            sizes: list, read) -> ir.Value:
    """A linalg.generic filling `out` (`N x .. x C` blocks) with a channels-last input padded
    by `low` (and past its end) with `fill`, read at `at_map` (its four results: n, the padded
    row and column, c), without materializing the padded input: each element's position (y, x)
    in the input (of `sizes` H, W) yields `read(b, n, y, x, c)` inside it, `fill` outside (y, x
    clamped to 0 there, so `read` may index with them)."""
    result, b, index = _index_generic(e, out)
    rank = len(index)
    n, ph, pw, c = [b.value("affine.apply", [ir.IndexType.get()], index,
                            {"map": ir.AffineMapAttr.get(ir.AffineMap.get(rank, 0, [r]))})
                    for r in at_map.results]
    y = b.index_op("arith.subi", ph, b.const_index(low[1]))
    x = b.index_op("arith.subi", pw, b.const_index(low[2]))
    outside = b.value("arith.constant", [ir.RankedTensorType(out.type).element_type], [],
                      {"value": fill})
    with b.loc, b.ip:
        linalg.YieldOp([_read_inside(b, read, n, y, x, c, sizes, outside)])
    return result


def _pool_taps(e: OpBuilder, out: ir.Value, rows: int, block: int, window: list, strides: list,
               dilations: list, combine: str, init: ir.Value, low: list[int], fill: ir.Attribute,
               sizes: list, read) -> ir.Value:
    """A linalg.generic computing `N x RB x OB x rows x block x C` pooled blocks (`out`) straight
    from a channels-last input padded by `low` (and past its end) with `fill`, without
    materializing the windows: each pooled position reduces (`combine`, from `init`) its
    window's taps, `read(b, n, y, x, c)` at each (y, x) inside the input (of `sizes` H, W),
    `fill` outside (y, x clamped to 0 there, as in `_gather`)."""
    result, b, (n, rb, ob, i, j, c) = _index_generic(e, out)
    elt = ir.RankedTensorType(out.type).element_type
    # the window's first row and column in the padded input
    y0 = b.index_op("arith.addi", b.index_op("arith.muli", rb, b.const_index(rows * strides[0])),
                    b.index_op("arith.muli", i, b.const_index(strides[0])))
    x0 = b.index_op("arith.addi", b.index_op("arith.muli", ob, b.const_index(block * strides[1])),
                    b.index_op("arith.muli", j, b.const_index(strides[1])))
    outside = b.value("arith.constant", [elt], [], {"value": fill})
    acc = init
    for ky in range(window[0]):
        y = b.index_op("arith.addi", y0, b.const_index(ky * dilations[0] - low[1]))
        for kx in range(window[1]):
            x = b.index_op("arith.addi", x0, b.const_index(kx * dilations[1] - low[2]))
            acc = b.value(combine, [elt], [acc, _read_inside(b, read, n, y, x, c, sizes, outside)])
    with b.loc, b.ip:
        linalg.YieldOp([acc])
    return result


def pool_over_gathered_blocks(pool: ir.Operation, rows: int, block: int,
                              grids: list | None = None, taps: bool = False) -> bool:
    """A channels-last pooling (overlapping windows: a 3 x 3, stride-2 max pool after ResNet's
    stem) of a direct conv's blocks gone back to NHWC and padded runs on blocks of `rows` x
    `block` pooled positions, whose input windows (halos) one linalg.generic gathers from the
    conv's blocks, the padding's value outside the input (`_gather`): the unblocking transpose,
    the copy of its slice and the pad were a dispatch each, and IREE pools static blocks as it
    does a static map:

        %u = slice(collapse(transpose(expand(%y4 : B x 8 x 16 x 64))))   : N x H x W x 64
        %p = stablehlo.pad %u, %ninf, low = [0, 1, 1, 0], high = [0, 1, 1, 0]
        %m = linalg.pooling_nhwc_max (3 x 3, stride 2) %p : N x OH x OW x 64
      ==>
        %h = linalg.generic (y = rb*16 + i - 1, x = ob*32 + j - 1: a read of %y4 inside H x W,
               -inf outside)                                             : N x RB x OB x 17 x 33 x 64
        %m4 = linalg.pooling_nhwc_max (3 x 3, stride 2) collapse(%h)      : (N*RB*OB) x 8 x 16 x 64
        %m = slice(collapse(transpose(expand(%m4))))                     : N x OH x OW x 64

    With `taps` (a float max or sum pooling), one linalg.generic reads each window's taps from the
    conv's blocks and reduces them (`_pool_taps`) where the windows were copied (17 x 33 per
    8 x 16 pooled positions: 4.4 times the pooled data) and pooled in a dispatch of their own.

    Pooled positions past OH x OW (the last blocks' surplus) are sliced off; the pooled blocks
    (`%m4`, ceil(OH / rows) x ceil(OW / block) of them per image) are appended to `grids`. False
    (nothing changed) for any other pooling."""
    if pool.name not in ("linalg.pooling_nhwc_max", "linalg.pooling_nhwc_sum"):
        return False
    pad = _zero_interior_pad(pool.operands[0])
    out = pool.operands[2]
    fill = defining_op(out)
    if fill is None or fill.name != "linalg.fill":
        return False
    src = pad.operands[0] if pad is not None else pool.operands[0]
    if not _read_only_here(src):
        return False  # the NHWC value stays for another reader: gathering would copy it again
    if _unblocked_source(src) is None:
        return False
    e = OpBuilder(pool)
    out_t = ir.RankedTensorType(out.type)
    final = [e.tensor_dim(out, a) if is_dynamic(out_t.shape[a]) else out_t.shape[a] for a in range(4)]
    reader = _blocks_reader(src, e, pad)
    # without padding, what lies past H x W feeds only the blocks' sliced-off surplus
    low, value = _pad_amounts(pad) if pad is not None else ([0] * 4, scalar_attr(out_t.element_type, 0))
    kh, kw = ir.RankedTensorType(pool.operands[1].type).shape
    sh, sw = [int(v) for v in ir.DenseIntElementsAttr(pool.attributes["strides"])]
    dh, dw = [int(v) for v in ir.DenseIntElementsAttr(pool.attributes["dilations"])]
    bh, bw = (rows - 1) * sh + (kh - 1) * dh + 1, (block - 1) * sw + (kw - 1) * dw + 1

    n, oh, ow = [v if not isinstance(v, int) else e.const_index(v) for v in final[:3]]
    rb, ob = e.ceil_div(oh, rows), e.ceil_div(ow, block)
    elt, c = out_t.element_type, out_t.shape[3]
    dyn = ir.ShapedType.get_dynamic_size()
    if taps and isinstance(elt, (ir.F32Type, ir.F16Type, ir.BF16Type)):
        pooled_t = ir.RankedTensorType.get([out_t.shape[0], dyn, dyn, rows, block, c], elt)
        empty = e.tensor_empty(pooled_t, ([n] if is_dynamic(out_t.shape[0]) else []) + [rb, ob])
        p6 = _pool_taps(e, empty, rows, block, [kh, kw], [sh, sw], [dh, dw],
                        _TAP_COMBINE[pool.name], fill.operands[0], low, value, *reader)
        p4 = e.collapse_shape(p6, [[0, 1, 2], [3], [4], [5]],
                              ir.RankedTensorType.get([dyn, rows, block, c], elt))
        return _replace_pooling(e, pool, p4, out_t, final, [n, rb, ob], rows, grids)
    halo_t = ir.RankedTensorType.get([out_t.shape[0], dyn, dyn, bh, bw, c], elt)
    empty = e.tensor_empty(halo_t, ([n] if is_dynamic(out_t.shape[0]) else []) + [rb, ob])
    d = [ir.AffineDimExpr.get(i) for i in range(6)]
    at_map = ir.AffineMap.get(6, 0, [d[0], d[1] * (rows * sh) + d[3], d[2] * (block * sw) + d[4], d[5]])
    halo = _gather(e, empty, at_map, low, value, *reader)
    x4 = e.collapse_shape(halo, [[0, 1, 2], [3], [4], [5]], ir.RankedTensorType.get([dyn, bh, bw, c], elt))
    nblocks = e.index_op("arith.muli", e.index_op("arith.muli", n, rb), ob)
    y4 = _filled(e, ir.RankedTensorType.get([dyn, rows, block, c], elt), [nblocks, None, None, None],
                 fill.operands[0])
    with e.loc, e.ip:
        p4 = getattr(linalg, pool.name.split(".")[1])(x4, pool.operands[1], outs=[y4], strides=[sh, sw],
                                                       dilations=[dh, dw])
    return _replace_pooling(e, pool, p4, out_t, final, [n, rb, ob], rows, grids)


def _replace_pooling(e: OpBuilder, pool: ir.Operation, p4: ir.Value, out_t: ir.RankedTensorType,
                     final: list, outer: list, rows: int, grids: list | None) -> bool:
    """`pool`'s result -> the pooled blocks `p4` gone back to NHWC; `p4` joins `grids`."""
    blocks = ConvBlocks(p4, out_t.shape[0], outer, rows, [0, 1, 2, 3])
    pool.results[0].replace_all_uses_with(_unblock(e, p4, blocks, out_t, final, None))
    pool.erase()
    if grids is not None:
        grids.append(p4)
    return True


def elementwise_on_blocks(op: ir.Operation, grids: list) -> bool:
    """An elementwise op (`_CHANNELWISE`) whose operands are blocks gone back to the op's layout
    (`_unblock`, the same transposes after each) or per-channel values, at least one of them
    blocks, runs on the blocks, and only its result goes back: a residual add of two direct
    convs' (or a conv's and its input pooling's) results and the ReLU after it, which were a
    dispatch unblocking one operand, and a pad copy and a halo gather before the next conv,
    fuse into the conv's dispatch, and the next conv gathers its halos from the sum's blocks
    (gather_halo_from_conv_blocks):

        %a = transpose(slice(collapse(transpose(expand(%a4 : B x 8 x 8 x 64)))))   : N x 64 x H x W
        %b = transpose(slice(collapse(transpose(expand(%b4 : B x 8 x 8 x 64)))))
        %s = stablehlo.add %a, %b
      ==>
        %s4 = stablehlo.add %a4, %b4                                                : B x 8 x 8 x 64
        %s = transpose(slice(collapse(transpose(expand(%s4)))))

    Only blocks listed in `grids` take part: those tiling each image's H x W map as ceil(H / R)
    x ceil(W / T) blocks of R x T positions in row-major order (a direct conv's, its chain's,
    a pooling's over gathered windows, and this rewrite's own results; not a non-overlapping
    pooling's over a conv's blocks, whose grid is the conv's). Blocks of the same type and form
    over maps of the same size (the elementwise op's operands have one shape) are then laid
    out alike, position by position. What the blocks hold past H x W (a conv over padding, or
    -inf and NaN after a max pooling's) stays there: every reader slices it off or bounds-checks
    it (`_gather`). The result is appended to `grids`. False (nothing changed) otherwise."""
    if op.name not in _CHANNELWISE or len(op.results) != 1:
        return False
    views, q0, ref = [], None, None
    for o in op.operands:
        v, q = through_transposes(o)
        src = _unblocked_source(v)
        if src is not None and any(src[0] == g for g in grids):
            if ref is not None and (q != q0 or src[0].type != ref[0].type or src[3] != ref[3]):
                return False
            q0, ref = q, ref or src
        else:
            src = None
        views.append(src)
    if ref is None:
        return False
    fax = q0.index(3)  # the channel axis in the op's layout
    slots = []
    for o, src in zip(op.operands, views):
        slot = src[0] if src is not None else _per_channel(o, fax)
        if slot is None:
            return False
        slots.append(slot)
    blocks, s, expand, rows = ref
    b_t = ir.RankedTensorType(blocks.type)
    e = OpBuilder(op)
    operands = [slot if isinstance(slot, ir.Value) else _channel_broadcast(e, *slot, blocks)
                for slot in slots]
    new = op.clone(ip=e.ip)
    for i, v in enumerate(operands):
        new.operands[i] = v
    result_t = ir.RankedTensorType(op.results[0].type)
    new.results[0].set_type(ir.RankedTensorType.get(b_t.shape, result_t.element_type))
    outer = [_mixed_size(expand, "static_output_shape", 1, a, e) for a in range(3 if rows else 2)]
    final = [_mixed_size(s, "static_sizes", 1, q0[a], e) if is_dynamic(result_t.shape[a])
             else result_t.shape[a] for a in range(4)]
    info = ConvBlocks(new.results[0], ir.RankedTensorType(expand.results[0].type).shape[0], outer,
                      b_t.shape[1] if rows else 0, inverse_perm(q0))
    r_size = None if rows else e.tensor_dim(blocks, 1)
    op.results[0].replace_all_uses_with(_unblock(e, new.results[0], info, result_t, final, r_size))
    op.erase()
    grids.append(new.results[0])
    return True


def convert_stablehlo_reduce_window(op: ir.Operation) -> bool:
    """stablehlo.reduce_window (max/add) with `?` windowed dims, in any layout -> stablehlo.pad
    (with the init value) + linalg.pooling_{ncw,nchw,nwc,nhwc,ndhwc}_{max,sum}, between
    transposes where the layout is neither (`pooling_layout`). Returns False when no windowed
    dim is dynamic."""
    x_t = ir.RankedTensorType(op.operands[0].type)
    rank = x_t.rank
    window = _i64s(op, "window_dimensions", rank, 1)
    strides = _i64s(op, "window_strides", rank, 1)
    base_dil = _i64s(op, "base_dilations", rank, 1)
    win_dil = _i64s(op, "window_dilations", rank, 1)
    low, high = _padding(op, rank)
    windowed = [a for a in range(rank) if window[a] != 1 or strides[a] != 1 or low[a] or high[a]]
    # Unlike convolution, IREE 3.13 rejects NCHW pooling over a `?` batch alone too: lower those
    # as well; other forms whose windowed axes are all static are left to IREE as before.
    if not _dynamic_spatial(op, windowed):
        pooling_form = rank in (3, 4, 5) and all(a >= 2 for a in windowed) and len(op.operands) == 2
        if not (pooling_form and _dynamic_spatial(op, list(range(rank)))):
            return False
    if len(op.operands) != 2:
        raise UnsupportedWindow("a variadic reduce_window")
    if any(d != 1 for d in base_dil):
        raise UnsupportedWindow("base_dilations != 1")
    body = reduce_window_body(op)
    if body not in ("stablehlo.maximum", "stablehlo.add"):
        raise UnsupportedWindow(f"a body of '{body}' (only stablehlo.maximum and stablehlo.add)")
    layout = pooling_layout(rank, windowed, body)
    if layout is None:
        raise UnsupportedWindow(f"windows over axes {windowed} of a rank-{rank} tensor "
                                "(only 1 to 3 windowed axes beside two others)")
    x, init_t = op.operands
    if not layout[1]:
        # channels-first, but the input is a channels-last value transposed (a convolution over
        # `?` H/W lowered channels-last, then batch norm / ReLU / padding): pool channels-last
        # between transposes, which symhlo-sink-transposes-for-iree then folds with that one
        alt = pooling_layout(rank, windowed, body, channels_last=True)
        if alt is not None and _transposed_from(x, alt[0]):
            layout = alt
    perm, last = layout
    spatial = perm[1:-1] if last else perm[2:]
    named = _POOLING[(body, len(spatial), last)]
    result_t = ir.RankedTensorType(op.results[0].type)
    elt = result_t.element_type
    e = OpBuilder(op)
    init = e.value("tensor.extract", [elt], [init_t])
    xp = e.hlo_transpose(x, perm)
    padded = e.hlo_pad(xp, init_t, [low[a] for a in perm], [high[a] for a in perm], [0] * rank)
    sizes = [_window_out_size(e, padded, i, window[a], strides[a], win_dil[a]) if a in spatial
             else e.tensor_dim(xp, i) for i, a in enumerate(perm)]
    out = _filled(e, ir.RankedTensorType.get([result_t.shape[a] for a in perm], elt), sizes, init)
    with e.loc, e.ip:
        kernel = tensor.empty([window[a] for a in spatial], elt)
        new = getattr(linalg, named)(padded, kernel, outs=[out], strides=[strides[a] for a in spatial],
                                     dilations=[win_dil[a] for a in spatial])
    new = e.hlo_transpose(new, inverse_perm(perm))
    if new.type != result_t:
        new = e.value("tensor.cast", [result_t], [new])
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


@dataclass(frozen=True)
class LowerDynamicWindowsForIree(Pass):
    """Rewrite convolution / reduce_window over dynamic spatial dims into linalg named ops."""

    name = "symhlo-lower-dynamic-windows-for-iree"
    summary = ("stablehlo.convolution / reduce_window over `?` spatial dims -> stablehlo.pad + "
               "linalg conv and pooling ops (IREE 3.13 rejects the StableHLO forms)")

    # im2col computes a `?` last output axis in blocks of this many positions (1: no blocks) ...
    block_width: int = 16
    # ... in convolutions with at most this many input channels
    block_max_channels: int = 128
    # blocked 2-D convolutions with at most this many filters are direct convolutions over the
    # blocks (conv_as_blocked_direct), the others im2col matmuls
    direct_max_filters: int = 128
    # ... which compute a `?` height in blocks of this many rows (0: not blocked) and the
    # width in blocks of this many columns (0: block_width), as do the poolings reading them
    block_rows: int = 8
    direct_block_width: int = 8
    # ... but a direct conv with at least deep_filters filters computes blocks of deep_block_rows
    # rows (0: block_rows)
    deep_filters: int = 128
    deep_block_rows: int = 4
    # ... but a direct conv with at most narrow_max_channels input channels and filters computes
    # blocks of narrow_block x narrow_block positions (1: as the others)
    narrow_block: int = 16
    narrow_max_channels: int = 16
    # a direct conv or an overlapping pooling reading another direct conv's (pooled) blocks
    # gathers its input windows from them (gather_halo_from_conv_blocks, pool_over_gathered_blocks)
    halo_from_blocks: bool = True
    # ... and an elementwise op of such blocks gone back to the op's layout (a residual add and
    # its ReLU) runs on the blocks (elementwise_on_blocks)
    elementwise_on_blocks: bool = True
    # ... and such an overlapping float pooling reads its windows' taps from the blocks in one
    # linalg.generic (no copy of the windows; pool_over_gathered_blocks)
    pool_taps_from_blocks: bool = True
    # a direct conv's halo gather of a transposed input with at most this many channels
    # (torch's NCHW image made channels-last) reads the input in its own layout, padded there
    # (read_halo_in_input_layout; 0: never)
    halo_in_input_layout_channels: int = 4
    # an ungrouped convolution over static spatial dims with more than block_max_channels
    # input channels is an im2col matmul too (convert_stablehlo_convolution)
    wide_static_as_matmul: bool = True
    # ... and so is one with a 1 x 1.. window (ResNet's strided downsampling convs)
    pointwise_static_as_matmul: bool = True
    # a depthwise 1-D / 2-D convolution (over `?` dims) is channels-last linalg.depthwise_conv_*
    # (depthwise_conv_channels_last), not the grouped NCHW linalg.conv_2d_ngchw_gfchw
    depthwise_channels_last: bool = True
    # an unblocked im2col with a static result (a static module's wide and 1 x 1 convs) has its
    # patch rows in groups of this many (0: not), so that IREE's pack of the matmul rows fuses
    # into the patch loop (conv_as_row_group_im2col)
    im2col_row_group: int = 16
    # an unblocked im2col over a `?` row count with at least this many input channels copies
    # its patches as one strided slice per window tap (patches_as_tap_slices; 0: never)
    tap_slices_min_channels: int = 64

    def run(self, module: ir.Module) -> None:
        converters = {"stablehlo.convolution":
                      lambda op: convert_stablehlo_convolution(op, self, blocked),
                      "stablehlo.reduce_window":
                      lambda op: (pool_over_conv_blocks(op, blocked)
                                  or convert_stablehlo_reduce_window(op))}
        diags = []
        blocked = []  # (sliced result, ConvBlocks) of the direct convs lowered so far

        def reporting(convert):
            def pattern(op: ir.Operation) -> bool:
                loc = str(op.location)
                try:
                    return convert(op)
                except UnsupportedWindow as e:
                    diags.append((loc, f"'{op.name}' over dynamic spatial dims with {e} has no "
                                       f"IREE lowering ({self.name})"))
                    return False
            return pattern

        with module.context, ir.Location.unknown():
            apply_patterns(module.operation, {name: reporting(convert)
                                              for name, convert in converters.items()})
            grids = [info.y4 for _, info in blocked]  # see elementwise_on_blocks
            for result, info in blocked:
                chain = chain_over_conv_blocks(result, info)
                if chain is not None:
                    grids.append(chain)
            gathered = []
            if self.halo_from_blocks:
                if self.elementwise_on_blocks:
                    remove_dead_ops(module.operation, _CHANNELWISE)  # chains a pooling rebuilt
                # in program order: a pooling over blocks feeds a residual add, a sum of blocks a
                # pooling
                for op in walk_ops(module.operation):
                    if op.name.startswith("linalg.pooling_nhwc"):
                        gathered.append(pool_over_gathered_blocks(
                            op, self.block_rows or 1, self.direct_block_width or self.block_width,
                            grids, self.pool_taps_from_blocks))
                    elif self.elementwise_on_blocks and op.name in _CHANNELWISE:
                        gathered.append(elementwise_on_blocks(op, grids))
            for _, info in blocked:
                if info.halo is None:
                    continue
                if self.halo_from_blocks and gather_halo_from_conv_blocks(info.halo):
                    gathered.append(True)
                elif read_halo_in_input_layout(info.halo, self.halo_in_input_layout_channels):
                    gathered.append(True)
            if any(gathered):
                remove_dead_ops(module.operation, _UNBLOCKING_OPS)
        if diags:
            raise UnsupportedWindowFailure(
                f"{len(diags)} windowed op(s) cannot be lowered for IREE", diags)
