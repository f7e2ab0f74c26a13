"""symhlo-lower-dynamic-windows-for-iree: convolutions and pooling over `?` spatial dims -> linalg.

IREE 3.13 rejects `stablehlo.convolution` and `stablehlo.reduce_window` whenever a spatial
(windowed) dim is dynamic, and grouped convolutions with a dynamic batch; a dynamic batch alone
is otherwise fine and is left to IREE. This pass runs only
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
    %p = stablehlo.pad %x, %zero, low = [0, 0, 1, 1], high = [0, 0, 1, 1], interior = [0, 0, 0, 0]
    %h = tensor.dim %p, %c2 ; %oh = (%h - 3) / 2 + 1       (likewise %n, %ow)
    %e = tensor.empty(%n, %oh, %ow) : tensor<?x4x?x?xf32>
    %f = linalg.fill ins(%cst0 : f32) outs(%e : tensor<?x4x?x?xf32>)
    %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
           ins(%p, %k : tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) outs(%f : tensor<?x4x?x?xf32>)

Covered: 1-D, 2-D and 3-D convolutions in torch's layout (`[b, f, 0, ..]` input and output; any
kernel layout, transposed to `[o, i, 0, ..]`) with any stride, padding, dilation, lhs dilation
(transposed convolution, as interior padding), and feature groups in 2-D (via
`linalg.conv_2d_ngchw_gfchw`) and 1-D (the 2-D form over a unit height: wav2vec2's grouped
positional conv, depthwise 1-D); `reduce_window` whose body is one `maximum` or `add` over the
trailing 1, 2 or 3 axes (max pooling, and the sums behind avg pooling; 3-D via
`linalg.pooling_ndhwc_*` between two transposes), with padding filled with the init value as
StableHLO specifies. Any other form over a dynamic spatial dim (grouped 3-D convolution, a
variadic reduce_window such as max pooling with indices) is reported with its location instead
of being handed to IREE to fail on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torch_mlir import ir
from torch_mlir.dialects import linalg, tensor

from torch_mlir._mlir_libs import _stablehlo

from .builder import OpBuilder, apply_patterns, dot_numbers
from .ir_util import is_dynamic
from .registry import Pass, PassFailure



class UnsupportedWindow(Exception):
    """A windowed op over dynamic spatial dims that this pass has no rewrite for."""


class UnsupportedWindowFailure(PassFailure):
    """The pass's failure: ops it cannot lower (symhlo.compile raises UnsupportedOpError)."""

    unsupported_op = True


def _window_out_size(e: OpBuilder, padded: ir.Value, axis: int, window: int, stride: int,
                     dilation: int) -> ir.Value:
    """(padded - dilation * (window - 1) - 1) floordiv stride + 1, as index arithmetic."""
    span = dilation * (window - 1) + 1
    size = e.index_op("arith.subi", e.tensor_dim(padded, axis), e.const_index(span))
    if stride != 1:
        size = e.index_op("arith.divsi", size, e.const_index(stride))
    return e.index_op("arith.addi", size, e.const_index(1))


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


def conv_kernel_permutation(op: ir.Operation) -> list[int] | None:
    """For torch's `[b, f, 0, ..]` input and output layout, the permutation that brings the kernel
    to `[o, i, 0, ..]` (identity for conv, `[2, 3, 0, 1]` for the HWOI kernel of a transposed
    conv); None for any other input or output layout."""
    dn = _stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    canonical = (0, 1, list(range(2, 2 + len(dn.input_spatial_dimensions))))
    if ((dn.input_batch_dimension, dn.input_feature_dimension, list(dn.input_spatial_dimensions))
            != canonical or (dn.output_batch_dimension, dn.output_feature_dimension,
                             list(dn.output_spatial_dimensions)) != canonical):
        return None
    return [dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
            *dn.kernel_spatial_dimensions]


def convert_stablehlo_convolution(op: ir.Operation) -> bool:
    """stablehlo.convolution over `?` spatial dims -> stablehlo.pad + linalg.conv_{1d_ncw_fcw,
    2d_nchw_fchw, 3d_ncdhw_fcdhw, 2d_ngchw_gfchw}; also a grouped convolution whose only `?`
    dim is the batch (IREE 3.13 fails to legalize those too: depthwise convs of MobileViT,
    SegFormer, ConvNeXt V2 with a dynamic batch). Returns False for any other convolution."""
    lhs_t = ir.RankedTensorType(op.operands[0].type)
    nsp = lhs_t.rank - 2
    groups = ir.IntegerAttr(op.attributes["feature_group_count"]).value
    grouped_dynamic_batch = groups != 1 and any(is_dynamic(d) for d in lhs_t.shape)
    if not _dynamic_spatial(op, list(range(2, lhs_t.rank))) and not grouped_dynamic_batch:
        return False
    perm = conv_kernel_permutation(op)
    if perm is None:
        raise UnsupportedWindow(f"layout {op.attributes['dimension_numbers']} (only torch's "
                                "[b, f, spatial] input and output)")
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
    if perm != sorted(perm):
        src_shape = ir.RankedTensorType(k.type).shape
        k_oi = ir.RankedTensorType.get([src_shape[p] for p in perm], elt)
        k = e.value("stablehlo.transpose", [k_oi], [k],
                     {"permutation": ir.DenseI64ArrayAttr.get(perm)})
    k_t = ir.RankedTensorType(k.type)
    zero, zero_t = _scalar_const(e, elt, 0.0)
    padded = e.hlo_pad(x, zero_t, [0, 0] + low, [0, 0] + high, [0, 0] + [d - 1 for d in lhs_dil])
    window = k_t.shape[2:]
    sizes = [e.tensor_dim(x, 0), None] + [
        _window_out_size(e, padded, 2 + i, window[i], strides[i], rhs_dil[i]) for i in range(nsp)]
    # A contraction over a single element (one channel, a 1x1.. kernel) keeps the named op: as
    # a ? x 1 by 1 x F dot_general, IREE 3.13 made it a dynamic_reshape it cannot legalize.
    if groups == 1 and all(d == 1 for d in lhs_dil) and k_t.shape[1] * math.prod(window) > 1:
        new = conv_as_im2col_matmul(e, padded, k, result_t, sizes, strides, rhs_dil)
        op.results[0].replace_all_uses_with(new)
        op.erase()
        return True
    with e.loc, e.ip:
        if groups == 1:
            out = _filled(e, result_t, sizes, zero)
            named = {1: linalg.conv_1d_ncw_fcw, 2: linalg.conv_2d_nchw_fchw,
                     3: linalg.conv_3d_ncdhw_fcdhw}[nsp]
            new = named(padded, k, outs=[out], strides=strides, dilations=rhs_dil)
        elif nsp == 2:
            new = _grouped_conv_2d(e, padded, k, result_t, sizes, zero, groups, strides, rhs_dil)
        else:
            new = _grouped_conv_1d(e, padded, k, result_t, sizes, zero, groups, strides, rhs_dil)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


def conv_as_im2col_matmul(e: OpBuilder, padded: ir.Value, k: ir.Value, result_t: ir.RankedTensorType,
                          sizes: list, strides, dilations) -> ir.Value:
    """An ungrouped convolution of the padded `N x C x S..` input with the `F x C x K..` kernel as
    im2col + one 2-D matmul, channels-last (IREE 3.13's code for linalg convs over `?` spatial
    dims is 10x slower than for static ones; its matmuls over a `?` row count are data-tiled):

        xt = transpose(padded) : N x S.. x C
        patches = linalg.generic : N x O.. x K.. x C,  patches[n, o.., k.., c] = xt[n, o*s + k*d.., c]
        y = collapse(patches) : (N*O..) x (K..*C)  dot  reshape(transpose(kernel)) : (K..*C) x F
            (linalg.matmul when F = 1: IREE rejects the dot_general's matrix-vector form)
        result = transpose(expand(y) : N x O.. x F) : N x F x O..
    """
    p_t, k_t = ir.RankedTensorType(padded.type), ir.RankedTensorType(k.type)
    elt = result_t.element_type
    nsp = p_t.rank - 2
    n, c = p_t.shape[0], p_t.shape[1]
    f, window = k_t.shape[0], list(k_t.shape[2:])
    dyn = ir.ShapedType.get_dynamic_size()
    to_last = [0] + list(range(2, nsp + 2)) + [1]
    xt = _transpose(e, padded, to_last)
    out_sp = [result_t.shape[2 + i] for i in range(nsp)]
    dyn_sizes = [v for v, s in zip([sizes[0]] + sizes[2:], [n] + out_sp) if is_dynamic(s)]
    kk = math.prod(window)
    # im2col as one linalg.generic: patches[n, o.., k.., c] = xt[n, o * stride + k * dilation.., c]
    patches_shape = [n] + out_sp + window + [c]
    with e.loc, e.ip:
        empty = tensor.empty([sizes[0] if is_dynamic(n) else n]
                             + [sizes[2 + i] if is_dynamic(s) else s for i, s in enumerate(out_sp)]
                             + window + [c], elt)
    rank6 = 2 + 2 * nsp
    d = [ir.AffineDimExpr.get(i) for i in range(rank6)]
    read = [d[0]] + [d[1 + i] * strides[i] + d[1 + nsp + i] * dilations[i] for i in range(nsp)] + [d[-1]]
    maps = ir.ArrayAttr.get([ir.AffineMapAttr.get(ir.AffineMap.get(rank6, 0, read)),
                             ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank6))])
    par = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    gen = linalg.GenericOp([ir.RankedTensorType.get(patches_shape, elt)], [xt], [empty], maps,
                           ir.ArrayAttr.get([par] * rank6), loc=e.loc, ip=e.ip)
    block = gen.regions[0].blocks.append(elt, elt)
    with ir.InsertionPoint(block), e.loc:
        linalg.YieldOp([block.arguments[0]])
    patches = gen.results[0]
    rows_t = ir.RankedTensorType.get([dyn, kk * c], elt)
    with e.loc, e.ip:
        rows = tensor.collapse_shape(rows_t, patches, [list(range(nsp + 1)),
                                                       list(range(nsp + 1, rank6))])
    reassoc = [list(range(nsp + 1)), [nsp + 1]]
    kt = _transpose(e, k, list(range(2, nsp + 2)) + [1, 0])
    w2 = e.value("stablehlo.reshape", [ir.RankedTensorType.get([kk * c, f], elt)], [kt])
    mm_t = ir.RankedTensorType.get([dyn, f], elt)
    if f == 1:
        # One filter (a one-class segmentation head): IREE 3.13 turns a `? x K` by `K x 1`
        # dot_general into a matrix-vector product through a `stablehlo.reshape` to `?x1`,
        # which it then rejects as not statically shaped; linalg.matmul is taken as is.
        zero = e.constant(elt, 0.0)
        with e.loc, e.ip:
            out = _filled(e, mm_t, [e.tensor_dim(rows, 0), None], zero)
            mm = linalg.matmul(rows, w2, outs=[out])
    else:
        mm = e.value("stablehlo.dot_general", [mm_t], [rows, w2],
                      {"dot_dimension_numbers": dot_numbers([1], [0])})
    out_last_t = ir.RankedTensorType.get([n] + out_sp + [f], elt)
    with e.loc, e.ip:
        out_last = tensor.expand_shape(out_last_t, mm, reassoc, dyn_sizes, [n] + out_sp + [f])
    to_first = [0, nsp + 1] + list(range(1, nsp + 1))
    out = _transpose(e, out_last, to_first)
    if out.type != result_t:
        out = e.value("tensor.cast", [result_t], [out])
    return out


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

_POOLING = {
    ("stablehlo.maximum", 1): "pooling_ncw_max",
    ("stablehlo.maximum", 2): "pooling_nchw_max",
    ("stablehlo.add", 1): "pooling_ncw_sum",
    ("stablehlo.add", 2): "pooling_nchw_sum",
    ("stablehlo.maximum", 3): "pooling_ndhwc_max",   # channels-last: transposed around it
    ("stablehlo.add", 3): "pooling_ndhwc_sum",
}


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


def _transpose(e: OpBuilder, x: ir.Value, perm: list[int]) -> ir.Value:
    t = ir.RankedTensorType(x.type)
    out_t = ir.RankedTensorType.get([t.shape[p] for p in perm], t.element_type)
    return e.value("stablehlo.transpose", [out_t], [x],
                    {"permutation": ir.DenseI64ArrayAttr.get(perm)})


def convert_stablehlo_reduce_window(op: ir.Operation) -> bool:
    """stablehlo.reduce_window (max/add over trailing spatial axes) with `?` windowed dims ->
    stablehlo.pad (with the init value) + linalg.pooling_{nchw,ncw}_{max,sum}. Returns False when
    no windowed dim is dynamic."""
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
    if rank not in (3, 4, 5) or any(a < 2 for a in windowed):
        raise UnsupportedWindow(f"windows over axes {windowed} of a rank-{rank} tensor "
                                "(only the trailing spatial axes of NCW / NCHW / NCDHW)")
    if any(d != 1 for d in base_dil):
        raise UnsupportedWindow("base_dilations != 1")
    body = reduce_window_body(op)
    nsp = rank - 2
    named = _POOLING.get((body, nsp))
    if named is None:
        raise UnsupportedWindow(f"a body of '{body}' (only stablehlo.maximum and stablehlo.add)")
    x, init_t = op.operands
    result_t = ir.RankedTensorType(op.results[0].type)
    e = OpBuilder(op)
    init = e.value("tensor.extract", [result_t.element_type], [init_t])
    padded = e.hlo_pad(x, init_t, [0, 0] + low[2:], [0, 0] + high[2:], [0] * rank)
    sizes = [e.tensor_dim(x, 0), e.tensor_dim(x, 1)] + [
        _window_out_size(e, padded, a, window[a], strides[a], win_dil[a]) for a in range(2, rank)]
    if rank == 5:
        # linalg has 3-D pooling only channels-last: NCDHW -> NDHWC -> pool -> NCDHW.
        to_last, to_first = [0, 2, 3, 4, 1], [0, 4, 1, 2, 3]
        padded = _transpose(e, padded, to_last)
        result_t = ir.RankedTensorType.get([result_t.shape[p] for p in to_last],
                                           result_t.element_type)
        sizes = [sizes[p] for p in to_last]
    out = _filled(e, result_t, sizes, init)
    with e.loc, e.ip:
        kernel = tensor.empty(window[2:], result_t.element_type)
        new = getattr(linalg, named)(padded, kernel, outs=[out], strides=strides[2:],
                                     dilations=win_dil[2:])
    if rank == 5:
        new = _transpose(e, new, to_first)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return True


@dataclass(frozen=True)
class LowerDynamicWindowsForIree(Pass):
    """Rewrite convolution / reduce_window over dynamic spatial dims into linalg named ops."""

    name = "symhlo-lower-dynamic-windows-for-iree"
    summary = ("stablehlo.convolution / reduce_window over `?` spatial dims -> stablehlo.pad + "
               "linalg conv and pooling ops (IREE 3.13 rejects the StableHLO forms)")

    def run(self, module: ir.Module) -> None:
        converters = {"stablehlo.convolution": convert_stablehlo_convolution,
                      "stablehlo.reduce_window": convert_stablehlo_reduce_window}
        diags = []

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
        if diags:
            raise UnsupportedWindowFailure(
                f"{len(diags)} windowed op(s) cannot be lowered for IREE", diags)
