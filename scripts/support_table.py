#!/usr/bin/env python3
"""Builds the README's support table from the e2e tests, and checks or rewrites the README.

Each row (an op family, a model, a rejected op class) names the pytest functions that cover it
(`file.py::test_name` under test/e2e). Its status is read from those tests, parsed with `ast`
(nothing is imported or run):

  * tested          a test runs the model on IREE and compares it with eager at 3+ sizes
                    (check_model, or the shape fuzz), and none is marked xfail;
  * rejected        the tests assert `symhlo.UnsupportedOpError` (a clear error, never a wrong answer);
  * xfail           a test (or one of its parameters) is a strict xfail: the reason is quoted;
  * no test yet     the row names no test: the issue asks for it, nothing covers it.

Every test function in test/e2e must belong to some row, and every test a row names must exist, so
the table cannot drift from the tests. `pytest test/api/test_support_table.py` fails when the
README's table differs from this script's output.

    python scripts/support_table.py            # print the table
    python scripts/support_table.py --check    # exit 1 (with a diff) if README.md differs
    python scripts/support_table.py --write    # rewrite README.md between the markers
"""

from __future__ import annotations

import argparse
import ast
import difflib
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
E2E = ROOT / "test" / "e2e"
README = ROOT / "README.md"
BEGIN, END = "<!-- support-table:begin -->", "<!-- support-table:end -->"


@dataclass(frozen=True)
class Row:
    kind: str          # "op", "model", "data-dependent", "check"
    name: str
    what: str
    tests: tuple[str, ...] = ()


ROWS: tuple[Row, ...] = (
    # --- op families -----------------------------------------------------------------------
    Row("op", "elementwise, broadcasting",
        "two independent `?` dims broadcast against each other, static 1s; where, masked_fill, "
        "comparisons, casts, clamp, relu, gelu (exact, tanh), silu, sigmoid, tanh, erf",
        ("test_core_models.py::test_broadcast_elementwise",
         "test_transformer_ops.py::test_elementwise_activations_where_casts")),
    Row("op", "view-like",
        "view / reshape / flatten / unflatten with `b*s`, `-1`, `h//2`; squeeze / unsqueeze; "
        "permute / transpose; expand / broadcast_to / repeat; contiguous",
        ("test_core_models.py::test_view_computed_sizes",
         "test_transformer_ops.py::test_view_like_ops")),
    Row("op", "slicing, split, cat",
        "slice with symbolic start / end / step, narrow, select, chunk / split / split_with_sizes "
        "/ unbind, cat and stack along `?` dims, slice then expand (also of a wider constant "
        "buffer, as BERT's `token_type_ids[:, :seq]`)",
        ("test_core_models.py::test_slicing_symbolic_bounds",
         "test_buffer_slice.py::test_slice_of_a_wider_buffer",
         "test_core_models.py::test_cat_split_by_input_sizes",
         "test_transformer_ops.py::test_slicing_split_cat_stack",
         "test_transformer_ops.py::test_stacked_caches_are_built_in_place_for_iree",
         "test_transformer_ops.py::test_former_iree_gaps")),
    Row("op", "slicing, split, chunk (`Dim.AUTO`)",
        "`x[:, 1:-2]`, `x[:, 1:-2:3]`, hsplit at indices, chunk along `?` axes with the guards "
        "torch.export adds for `Dim.AUTO` (a decomposition's guard they imply is accepted)",
        ("test_shapes_views.py::test_slices_splits_chunks_auto_dims",
         "test_shapes_views.py::test_split_on_a_pinned_axis")),
    Row("op", "resize_as_ to its own shape",
        "`torch.resize_as_(t, y)` with y of t's shape: t's values (torch's retrace of the "
        "in-place op failed); torch.export specializes its sizes, so the program is static",
        ("test_shapes_views.py::test_resize_as_to_its_own_shape",)),
    Row("op", "block_diag, new_zeros / new_full, empty_strided",
        "block_diag of `?`-sized blocks, new_zeros / new_full with symbolic and zero sizes, "
        "masked var (empty_strided with symbolic or zero-size strides)",
        ("test_shapes_views.py::test_block_diag_new_zeros_masked_var",)),
    Row("op", "diagonals, windows, isin",
        "diagonal (both offsets, any dims), trace, diag of a vector / matrix, diag_embed, "
        "Tensor.unfold, nn.functional.unfold (im2col), isin over `?` dims",
        ("test_shapes_views.py::test_diagonals_windows_isin",)),
    Row("op", "scatters, circular pad, *_copy",
        "select_scatter / slice_scatter (step) / diagonal_scatter, circular padding, narrow_copy, "
        "view_copy, permute_copy, unbind_copy; a scatter source of the wrong size raises "
        "ShapeError; index_select from `?x1` slices",
        ("test_shapes_views.py::test_scatters_copies",
         "test_shapes_views.py::test_scatter_source_shape_is_checked_at_call_time",
         "test_shapes_views.py::test_gather_of_unit_slice")),
    Row("op", "matmul with unit axes, bilinear",
        "linear on a 1-D input (a 1-row mm), mm / bmm with a unit contracting axis, nn.Bilinear, "
        "with `?` dims",
        ("test_shapes_views.py::test_matmul_unit_axes_bilinear",)),
    Row("op", "cumsum along unbounded axes",
        "cumsum along each of three unbounded `?` axes, cumulative_trapezoid; int32 / bool / uint8 "
        "-> int64 cumsum over axes of max 10000 and unbounded (sizes 1, 4097, 10000)",
        ("test_shapes_views.py::test_cumsum_along_unbounded_axes",
         "test_shapes_views.py::test_widening_integer_cumsum_over_long_axes")),
    Row("op", "bool and uint8 arithmetic",
        "bool + bool (logical or), bool * float masks and `x * mask[:m]`, any / all, bool "
        "outputs; uint8 inputs and outputs, uint8 amax / amin on both sides of 128; uint8 flip / "
        "cat / roll / sort / slices over a `?` axis, wrapping `u8 + 250`, compare, `//`, `%`, "
        "max / min, clamp, casts to and from float and int32",
        ("test_bools.py::test_bool_arithmetic_matches_eager",
         "test_bools.py::test_float_times_bool_mask_slice",
         "test_bools.py::test_uint8_inputs_and_outputs",
         "test_bools.py::test_uint8_max_min_match_eager",
         "test_bools.py::test_uint8_wrapping_and_sign_dependent_ops_match_eager")),
    Row("op", "comparisons of constants",
        "constant float tensors compared with int scalars (`full((), 2.0) == 2`), which "
        "torch-mlir folded wrongly",
        ("test_shapes_views.py::test_constant_compares_with_int_scalars",)),
    Row("op", "index lists, repeat by zero",
        "`x[[1, 2]]`, `x[:, [0, -1]]`, a rank-2 index tensor on a `?` axis, repeat(0, ...)",
        ("test_shapes_views.py::test_list_index_and_zero_repeat",)),
    Row("op", "cat of copies, repeat",
        "`torch.cat((x, x), -1)` (rotary embeddings' tables), `cat((x, x, x), 0)` along a `?` "
        "axis, `x.repeat(1, 2, 1)`; a broadcast collapsed into the axis for IREE",
        ("test_shapes_views.py::test_cat_of_copies",)),
    Row("op", "pad (constant)", "constant padding by symbolic amounts, e.g. `(8 - s % 8) % 8`",
        ("test_core_models.py::test_pad_to_multiple",)),
    Row("op", "pad (reflect)",
        "reflect padding (1-D, 2-D, conv `padding_mode=\"reflect\"`) by symbolic amounts "
        "`(4 - n % 4) % 4` and by constants along `?` dims",
        ("test_gaps_pad_interp.py::test_reflect_pad_symbolic_amounts",)),
    Row("op", "special functions",
        "erfc, erfcx, log_ndtr, erfinv, ndtri; lgamma, digamma, polygamma, mvlgamma, zeta; "
        "igamma, igammac over 0-d / 1-d operands (series and continued fraction as while_loops "
        "to convergence; over matrices refused: IREE 3.13 computed wrong values); Bessel "
        "I0/I1/K0/K1 (scaled), J0/J1/Y0/Y1, spherical j0, airy_ai; Chebyshev T/U/V/W (shifted), "
        "Hermite H/He, Laguerre/Legendre with a Python or a tensor degree (a while_loop to "
        "max(n), 0-d / 1-d operands): float32 (float16/bfloat16 through float32) on `?` dims; the oscillating ones "
        "NaN past |x| = 1.5e7",
        ("test_special_functions.py::test_error_function_family",
         "test_special_functions.py::test_inverse_error_functions",
         "test_special_functions.py::test_gamma_family",
         "test_special_functions.py::test_polygamma_via_zeta",
         "test_special_functions.py::test_mvlgamma_and_zeta",
         "test_special_functions.py::test_bessel_family",
         "test_special_functions.py::test_oscillating_functions_past_the_sincos_range_are_nan",
         "test_special_functions.py::test_orthogonal_polynomials",
         "test_special_functions.py::test_polynomials_with_a_tensor_degree",
         "test_special_functions.py::test_incomplete_gamma",
         "test_special_functions.py::test_polynomials_with_a_python_degree",
         "test_special_functions.py::test_dtypes_follow_eager")),
    Row("op", "sign and bit ops, fftshift",
        "copysign, signbit, frexp, nextafter bit-exact through float32 bits (negative NaNs, "
        "subnormals); hypot, angle; fftshift / ifftshift over `?` axes",
        ("test_special_functions.py::test_sign_and_bit_ops_are_exact",
         "test_special_functions.py::test_fftshift_over_dynamic_axes")),
    Row("op", "complex64",
        "view_as_complex / view_as_real / complex / polar, add / sub / mul / div / abs / angle / "
        "conj / exp / sum, complex matmul, complex constants (Llama's rotary `freqs_cis` buffer sliced "
        "to a `?` sequence); complex64 inputs and outputs stay `complex<f32>`",
        ("test_complex_numbers.py::test_rotary_complex_over_dynamic_sequence",
         "test_complex_numbers.py::test_rotary_keeps_the_sequence_dynamic",
         "test_complex_numbers.py::test_complex_ops_match_eager")),
    Row("op", "torch.fft, torch.stft",
        "fft / ifft / rfft / irfft / hfft / fft2 (every norm, `n` / `s`) over `?` lengths as DFT "
        "matmuls against in-graph twiddle matrices; rfft magnitude at n = 5, 64, 301 from one "
        "compile; stft (centered, a window shorter than n_fft, normalized) with its frames "
        "gathered at computed positions",
        ("test_spectral.py::test_rfft_magnitude_over_dynamic_length",
         "test_spectral.py::test_fft_family_round_trips",
         "test_spectral.py::test_rfft_length_stays_dynamic",
         "test_spectral.py::test_stft_over_dynamic_length")),
    Row("op", "linear algebra",
        "linalg.solve (Gauss-Jordan with partial pivoting), linalg.cholesky (lower, upper; of an "
        "input or of a matrix computed in the program), det / slogdet / lu_factor (getrf loop, "
        "pivots exact), lu_factor + lu_solve (left, right, adjoint), solve_triangular as "
        "stablehlo.while loops over a `?` size, with `?` batch; matrix_exp (scaling and squaring) "
        "over a `?` n; inv_ex (getrf's info) and tensorinv; ldl_factor / ldl_factor_ex (sytf2, "
        "Bunch-Kaufman: pivots exact) and ldl_solve (sytrs), 1x1 and 2x2 pivots",
        ("test_linalg.py::test_solve_with_dynamic_batch",
         "test_linalg.py::test_cholesky_with_dynamic_batch_and_size",
         "test_linalg.py::test_cholesky_of_a_computed_matrix",
         "test_linalg.py::test_factorization_is_a_loop_over_the_dynamic_size",
         "test_linalg.py::test_lu_family_with_dynamic_batch_and_size",
         "test_linalg.py::test_lu_solve_with_dynamic_batch_and_size",
         "test_linalg.py::test_solve_triangular_with_dynamic_batch_and_size",
         "test_linalg.py::test_matrix_exp_with_dynamic_size",
         "test_linalg.py::test_inverse_beside_the_lu_of_one_unbatched_matrix",
         "test_linalg.py::test_loops_beside_constant_outputs_of_one_unbatched_matrix",
         "test_linalg.py::test_inv_ex_and_tensorinv_with_dynamic_size",
         "test_linalg.py::test_ldl_solve_with_dynamic_batch_and_size",
         "test_linalg.py::test_ldl_factor_with_dynamic_batch_and_size")),
    Row("op", "orthogonal factorizations",
        "linalg.qr (reduced, r) equal to eager's Q and R, ormqr and householder_product, as "
        "Householder stablehlo.while loops over `?` batch and matrix sizes (tall, square, wide; "
        "one matrix with unbounded m and n); "
        "linalg.eigh over a `?` batch of `?`-sized matrices (Jacobi loop), with pinv / "
        "matrix_rank(hermitian=True); svdvals and nuclear norm "
        "over a `?` batch of tall, wide, square and rank-deficient matrices "
        "(one-sided Jacobi loop); svd's U / Vh refused by name",
        ("test_orthogonal.py::test_qr_with_dynamic_batch_and_sizes",
         "test_orthogonal.py::test_qr_of_one_matrix_with_unbounded_sizes",
         "test_orthogonal.py::test_ormqr_and_householder_product_with_dynamic_batch",
         "test_orthogonal.py::test_eigh_with_dynamic_size",
         "test_orthogonal.py::test_eigh_over_a_dynamic_batch",
         "test_orthogonal.py::test_singular_values_with_dynamic_batch_and_sizes",
         "test_orthogonal.py::test_svd_vectors_are_refused_by_name")),
    Row("op", "creation",
        "arange / full / zeros / ones / new_zeros / empty with symbolic sizes; tril / triu; cumsum "
        "(also over unbounded axes)",
        ("test_core_models.py::test_arange_positions",
         "test_transformer_ops.py::test_creation_tril_cumsum",
         "test_transformer_ops.py::test_cumsum_unbounded_axes",
         "test_shapes_views.py::test_widening_integer_cumsum_over_long_axes")),
    Row("op", "reductions",
        "sum, mean, max, amax, argmax, var, std over `?` dims; softmax / log_softmax",
        ("test_core_models.py::test_softmax", "test_transformer_ops.py::test_reductions_softmax")),
    Row("op", "matmul family",
        "matmul / bmm / linear / addmm / baddbmm with `?` batch and sequence; bmm over a contracting size of 1",
        ("test_core_models.py::test_mlp", "test_transformer_ops.py::test_matmul_family",
         "test_transformer_ops.py::test_matmul_unit_contraction")),
    Row("op", "chunked linear cross-entropy",
        "F.linear_cross_entropy with LinearCrossEntropyOptions (torch.nn's chunked custom ops) "
        "over `?` features and classes: mean (class weight, ignore_index), sum and per-row "
        "losses as the unchunked formula; the gradients the scalar op precomputes equal the op's",
        ("test_transformer_ops.py::test_chunked_linear_cross_entropy",
         "test_transformer_ops.py::test_chunked_linear_cross_entropy_precomputed_gradients")),
    Row("op", "attention",
        "scaled_dot_product_attention (causal, with a mask; a float (L, S) mask with every axis "
        "`Dim.AUTO`, k and v sequence sizes checked equal at call time; the default scale over "
        "a `?` head size), hand-written attention; computed in 16 x 16 blocks of queries and keys "
        "for IREE at lengths that are not multiples of 16 (whole rows masked, -1e30 additive masks); "
        "torch's safe softmax (`aten._safe_softmax`, sdpa with a mask) over all -inf, NaN and +inf rows",
        ("test_core_models.py::test_attention_dynamic_batch_seq",
         "test_transformer_ops.py::test_scaled_dot_product_attention",
         "test_transformer_ops.py::test_attention_default_scale_over_a_dynamic_head_size",
         "test_shapes_views.py::test_attention_mask_over_auto_dims",
         "test_blocked_attention.py::test_blocked_attention_equals_eager_at_any_length",
         "test_blocked_attention.py::test_attention_is_blocked_for_iree_only",
         "test_blocked_attention.py::test_safe_softmax_row_test_folds_into_the_softmax")),
    Row("op", "layer_norm, rms-norm", "over the last axis of (b, s, d)",
        ("test_transformer_ops.py::test_norms_embedding_gather_scatter",)),
    Row("op", "batch_norm (inference)", "NCHW with `?` batch and H/W",
        ("test_cnn_ops.py::test_batch_norm_inference",)),
    Row("op", "group_norm", "NCHW and NCL with `?` batch and H/W, affine and not",
        ("test_gaps_cnn.py::test_group_norm",)),
    Row("op", "indexing",
        "embedding, gather, index_select, advanced indexing, scatter, index_put with a dynamic "
        "number of indices, on weights and on operands with `?` dims; gathers with batch, H and W "
        "all `?` by index tensors of computed sizes broadcast against each other",
        ("test_transformer_ops.py::test_norms_embedding_gather_scatter",
         "test_gaps_indexing.py::test_dynamic_indexing_on_dynamic_operands",
         "test_gaps_gather.py::test_gather_with_batch_h_w_dynamic")),
    Row("op", "negative and multi-axis indices",
        "`x[:, i, j]`, `x[i, :, j]`, broadcast index tensors, constant `[-2]`, take, index_fill, "
        "index_put (also accumulate) with indices in [-n, n), every axis `?`",
        ("test_negative_indices.py::test_negative_and_multi_axis_indices",)),
    Row("op", "convolution",
        "conv1d / conv2d (stride, padding, dilation, groups, depthwise, transposed) with `?` batch "
        "and spatial dims; over static spatial dims with > 128 input channels or a 1x1 kernel an "
        "im2col matmul; patches of >= 64 channels over a `?` row count as one strided slice per "
        "window tap",
        ("test_core_models.py::test_conv_dynamic_batch", "test_cnn_ops.py::test_conv2d",
         "test_cnn_ops.py::test_conv_transpose2d", "test_cnn_ops.py::test_conv1d_stride_padding",
         "test_cnn_ops.py::test_iree_input_lowers_dynamic_windows_to_linalg",
         "test_cnn_ops.py::test_conv_bn_relu_pool_over_blocks",
         "test_conv_dynamic.py::test_wide_static_spatial_convs_as_matmuls",
         "test_cnn_models.py::test_wide_convs_patches_as_tap_slices_equal_eager")),
    Row("op", "convolution (grouped, depthwise, 3-D)",
        "grouped / depthwise conv1d (wav2vec2) and conv2d (also with only the batch `?`; depthwise "
        "ones channels-last, any channel multiplier), transposed conv1d, conv3d over `?` batch "
        "and spatial dims; 1x1.. kernels over one input channel",
        ("test_conv_dynamic.py::test_grouped_depthwise_conv3d_dynamic",
         "test_conv_dynamic.py::test_grouped_conv_batch_only_dynamic",
         "test_conv_dynamic.py::test_single_element_contraction_convs")),
    Row("op", "convolution with a `?` kernel size",
        "conv / grouped conv_transpose whose weight is an input with `?` kernel axes (1-D to "
        "3-D): a gather of the taps per axis (reads past the edge hit one appended zero) and a "
        "contraction with the weight, im2col-sized",
        ("test_conv_dynamic.py::test_dynamic_kernel_conv_and_conv_transpose",)),
    Row("op", "pooling",
        "max / avg pooling (stride, padding, count_include_pad), adaptive avg pooling to 1x1",
        ("test_cnn_ops.py::test_pooling", "test_cnn_ops.py::test_max_pool2d_dynamic_batch_only")),
    Row("op", "pooling options",
        "max / avg pool 1-D, 2-D, 3-D crossed over ceil_mode, dilation, padding, count_include_pad, "
        "divisor_override, return_indices (also over `?` spatial dims, with NaN, and the "
        "backward op), at sizes where ceil_mode changes the output",
        ("test_pooling_options.py::test_max_pool2d", "test_pooling_options.py::test_avg_pool2d",
         "test_pooling_options.py::test_max_pool1d_batch", "test_pooling_options.py::test_avg_pool1d",
         "test_pooling_options.py::test_pool3d",
         "test_pooling_options.py::test_max_pool_indices_dynamic_spatial")),
    Row("op", "as_strided",
        "as_strided with symbolic sizes that is a reshape / permute of a contiguous tensor "
        "(Swin's pooler); any other strides over a contiguous source (overlapping windows, part "
        "of it, an offset) and as_strided_copy as a gather at the flat positions, "
        "as_strided_scatter as a scatter there; a position past the source's end is a call-time "
        "ShapeError (eager raises there)",
        ("test_as_strided.py::test_as_strided_permuted_view",
         "test_as_strided.py::test_as_strided_gather_scatter")),
    Row("op", "adaptive avg pooling (other sizes)",
        "adaptive_avg_pool2d to (2, 3), 7, (1, 4) over `?` batch and H/W, incl. H/W not divisible "
        "by the output and smaller than it",
        ("test_gaps_cnn.py::test_adaptive_avg_pool2d_other_sizes",)),
    Row("op", "adaptive pooling (max, avg; 1-D, 2-D, 3-D)",
        "adaptive max pooling with indices and adaptive avg pooling to sizes that do not divide "
        "the input, over `?` dims, with NaN and inf inputs",
        ("test_shapes_views.py::test_adaptive_pools_with_nan_and_inf",)),
    Row("op", "interpolate (scale 2)", "nearest and bilinear, scale_factor=2, with skip concats",
        ("test_cnn_ops.py::test_interpolate_scale2", "test_cnn_ops.py::test_upsample_concat_skip")),
    Row("op", "interpolate (size=, fractional scale)",
        "nearest with `size=` from the input's sizes (`2*h`, `h+3`, `3*w`) or another tensor's "
        "shape, 1-D and 2-D; scale factors that are short binary fractions (1.5, 2.5)",
        ("test_gaps_pad_interp.py::test_nearest_interpolate_to_symbolic_size",)),
    Row("op", "interpolate (linear, bilinear, bicubic, trilinear, nearest-exact)",
        "to sizes derived from `?` dims, constant sizes with align_corners, scales whose "
        "products round exactly (1.5, 1.7, 0.9; also with recompute_scale_factor); other "
        "fractional scales (0.7) on `?` axes are refused naming the op",
        ("test_shapes_views.py::test_interpolations_to_symbolic_sizes",
         "test_shapes_views.py::test_interpolation_by_non_binary_scale_is_refused_by_name")),
    Row("op", "grid_sample, anti-aliased interpolate",
        "grid_sample 2-D (bilinear, nearest, bicubic) and 3-D (bilinear, nearest), zeros / "
        "border / reflection padding, both align_corners, over `?` batch, image and grid sizes; "
        "interpolate(antialias=True) bilinear and bicubic to `?` sizes and by scales",
        ("test_sampling.py::test_grid_sample_every_mode",
         "test_sampling.py::test_antialiased_resize")),
    Row("op", "size arithmetic",
        "`+ - * // %`, max / min, ceil-div, sizes shared across inputs, derived dims `2*h`, `h+1`",
        ("test_transformer_ops.py::test_size_arithmetic_shared_derived_dims",)),
    Row("op", "sorting and selection",
        "sort (stable, descending), argsort, msort, topk, kthvalue, median / nanmedian (with and "
        "without dim), mode over `?` dims: NaN sorts largest, ties in input order; where eager's "
        "pick among equal elements is unspecified, indices naming equal values",
        ("test_sort_select.py::test_sort_argsort_msort_topk_kthvalue",
         "test_sort_select.py::test_median_nanmedian_mode",
         "test_sort_select.py::test_ties_pick_equal_values")),
    Row("op", "scans",
        "cumprod, logcumsumexp, cummax / cummin (values, last-occurrence indices, NaN), "
        "linalg.vander along bounded (triangle) and unbounded (log-step loop) `?` axes, the last "
        "or an inner one",
        ("test_scans.py::test_cumprod_logcumsumexp_cummax_cummin_vander",
         "test_scans.py::test_scans_over_an_inner_unbounded_axis")),
    Row("op", "control flow: torch.cond",
        "`torch.cond` on data (`x.sum() > 0`) and on a size (`x.shape[0] > 8`), nested, several "
        "operands and results -> `stablehlo.if` whose branches keep the `?` dims",
        ("test_control_flow.py::test_cond_on_data_both_branches",
         "test_control_flow.py::test_cond_on_size_nested_every_branch")),
    Row("op", "control flow: while_loop",
        "`torch._higher_order_ops.while_loop` with a trip count from a `?` size (`i < x.shape[0] // 2`) "
        "and a data-dependent stop, a `?`-sized loop state -> `stablehlo.while`; states started "
        "from torch.eye / torch.zeros beside constant outputs; every loop keeps its condition on "
        "the device in IREE (counting on the host gave a wrong linalg.qr with IREE 3.13)",
        ("test_control_flow.py::test_while_loop_trip_count_from_a_dynamic_size",
         "test_control_flow.py::test_loops_from_constant_states_beside_constant_outputs",
         "test_control_flow.py::test_counted_loops_stay_device_loops_for_iree")),
    Row("op", "control flow: ?x? states packed by IREE",
        "while_loops over `?x?` states from zeros / ones / torch.full (two swapped, three rotating, "
        "a swap without torch.where) and a cond returning two `?x?` tensors: IREE 3.13 folded a "
        "packed state's buffer offset to another's (silently wrong) until symhlo compiled modules "
        "with control flow with offsets aligned to 1 byte",
        ("test_control_flow.py::test_loops_and_cond_over_two_dynamic_dims_from_splat_states",)),
    Row("op", "control flow: scan, map",
        "`torch._higher_order_ops.scan` (several carries, `dim=1`, `reverse=True`) and `map` over "
        "`?` rows -> a `stablehlo.while` reading each row with a gather and writing it with a "
        "one-row scatter",
        ("test_control_flow.py::test_scan_over_dynamic_lengths_both_ways",
         "test_control_flow.py::test_map_over_dynamic_rows")),
    Row("op", "control flow: nested",
        "cond inside a scan step (a stacked output `2*d` wide) and inside a while body over a "
        "`?x?` state",
        ("test_control_flow.py::test_nested_control_flow_over_two_dynamic_dims",)),
    Row("op", "control flow in a model, torch.compile",
        "(batch, seq) both `?`: attention or MLP picked by `seq > 8`, then `seq // 4` GRU steps in a "
        "while_loop; cond + while_loop through `torch.compile(backend=\"symhlo\", dynamic=True)`, "
        "one compile for every size",
        ("test_control_flow.py::test_routed_block_attention_or_mlp_then_gru_steps",
         "test_control_flow.py::test_torch_compile_backend_takes_control_flow")),
    Row("op", "scatter reductions",
        "scatter_reduce sum / prod / mean / amax / amin with and without self, integer mean, "
        "index_reduce, scatter(reduce=), put (accumulate, negative indices), masked_scatter, "
        "two scatters into equal zeros",
        ("test_scatter_reduce.py::test_scatter_reduce_index_reduce_put_masked_scatter",)),
    Row("op", "embedding bags and segments",
        "embedding with max_norm, embedding_bag sum / mean / max (padding_idx, per-sample weights, "
        "include_last_offset, empty bags), segment_reduce with lengths (initial, empty segments), "
        "nonzero_static",
        ("test_scatter_reduce.py::test_embedding_bag_segment_reduce_nonzero_static",)),
    Row("op", "norms and distances",
        "vector_norm (2, 1, inf, -inf, 0, 3.5), norm / fro, dist, cdist (p = 2, 1, inf, 0), pdist, "
        "rms_norm, addmv over `?` dims",
        ("test_norms_search.py::test_norms_distances_addmv",)),
    Row("op", "powers",
        "pow / float_power with constant (integral, 0.5, large, fractional) and tensor exponents "
        "on negative bases, -0.0, +-inf, NaN; vector_norm with even ord (6, 4) on negative values; "
        "40 tensor-exponent powers in one dispatch within Vulkan's 64 push constants",
        ("test_power.py::test_vector_norm_even_ord_at_the_opinfo_sample",
         "test_power.py::test_forty_tensor_powers_fit_the_push_constant_limit",
         "test_power.py::test_constant_integral_exponents_on_negative_bases",
         "test_power.py::test_tensor_exponents_on_negative_bases",
         "test_power.py::test_opinfo_vector_norm_samples_pass")),
    Row("op", "closeness, search, histograms",
        "isclose (NaN, inf, equal_nan, rtol / atol), fmax / fmin (NaN, broadcast), searchsorted "
        "(left / right, 1-d sequence, NaN in the sequence), histc, histogram (range, weight, "
        "density)",
        ("test_norms_search.py::test_isclose_fmax_searchsorted_histograms",)),
    Row("op", "recurrent layers over a `?` sequence length",
        "nn.LSTM (2 layers, bidirectional, batch_first, proj_size), nn.GRU "
        "(time-major, given h0), nn.RNN (relu, unbatched): scans while symhlo exports (plain "
        "torch.export specializes the length); plain torch.export and eager unchanged",
        ("test_recurrent.py::test_recurrent_layers_over_a_dynamic_sequence_length",
         "test_recurrent.py::test_unbatched_relu_rnn_over_a_dynamic_length",
         "test_recurrent.py::test_plain_torch_export_still_specializes_and_eager_is_untouched")),
    # --- data-dependent sizes and unsupported ops ---------------------------------------------
    Row("op", "sizes from data: nonzero, masks",
        "nonzero (also as_tuple), `x[mask]` (1-d and row masks), masked_select (broadcast mask), "
        "argwhere, one-argument where: a `?` result of the mask's popcount; empty and full results; "
        "masks whose every axis is `?` (coordinates divided by symbolic sizes)",
        ("test_data_dependent_sizes.py::test_nonzero_masks_masked_select_argwhere_where",
         "test_data_dependent_sizes.py::test_nonzero_over_three_dynamic_axes")),
    Row("op", "grouped matmul (MoE experts)",
        "`torch.nn.functional.grouped_mm` / `aten._grouped_mm` (bfloat16) and transformers' "
        "`grouped_mm_fallback` custom op: each group's rows sliced at the running counts read "
        "from the data, one matmul per group (a `?` row count each, empty groups included)",
        ("test_data_dependent_sizes.py::test_grouped_mm_over_rows_counted_by_the_data",)),
    Row("op", "assignment through a mask",
        "`x[mask] = v` (scalar, a broadcast row: a `where`), `x[mask] += v` and `x[mask] = "
        "values` of the selection's data-dependent length (scattered at the mask's nonzero "
        "positions); empty and full masks",
        ("test_data_dependent_sizes.py::test_mask_assignment",)),
    Row("op", "sizes from data: unique",
        "unique (sorted, return_inverse, return_counts) and unique_consecutive of integer "
        "tensors, unique of bool: a `?` result of the number of runs; one value, all distinct",
        ("test_data_dependent_sizes.py::test_unique_and_unique_consecutive",)),
    Row("op", "sizes from data: repeat_interleave",
        "repeat_interleave(x, counts, dim=0) and repeat_interleave(counts): a `?` result of "
        "counts.sum(); zero counts (empty) and ones; a negative count raises "
        "symhlo.RuntimeCheckError at call time",
        ("test_data_dependent_sizes.py::test_repeat_interleave_by_counts",
         "test_data_dependent_sizes.py::test_repeat_interleave_negative_count_raises")),
    Row("op", "sizes from data: item, torch._check, x[:n]",
        "`n = k.item()` with torch._check bounds feeding x[:n] and x[n:] (n = 0 and n = size); "
        "a broken check raises symhlo.RuntimeCheckError at call time; without checks, x[:n] / "
        "x[n:] clamp like eager (n negative, past the end, 0)",
        ("test_data_dependent_sizes.py::test_item_check_slice",
         "test_data_dependent_sizes.py::test_item_check_broken_at_call_time_raises",
         "test_data_dependent_sizes.py::test_item_slice_without_checks_clamps_like_eager")),
    Row("op", "sizes from data: tensor_split by a tensor, combinations",
        "tensor_split at indices read from an int64 tensor (rows and columns; negative, past "
        "the end, decreasing), combinations (r = 1, with and without replacement: the forms "
        "torch.export traces)",
        ("test_data_dependent_sizes.py::test_tensor_split_by_a_tensor_and_combinations",)),
    Row("data-dependent", "other data-dependent sizes: unique(dim=), unique of floats, "
        "bincount",
        "output size depends on tensor values in a way symhlo does not compute: rejected up "
        "front, the error names the aten op, the FX node and the source line",
        ("test_unsupported.py::test_data_dependent_sizes_are_rejected_by_name",
         "test_data_dependent_sizes.py::test_unique_of_floats_is_refused_by_name")),
    Row("data-dependent", "nearest interpolate by other fractional scales on `?` axes (1.15)",
        "torch sizes the output floor(n * 1.15) in double arithmetic (114 at n = 100, not "
        "115): the error names "
        "upsample_nearest2d.vec and its source line",
        ("test_gaps_pad_interp.py::test_nearest_interpolate_non_binary_fraction_is_rejected_by_name",)),
    Row("data-dependent", "ops without a StableHLO lowering (e.g. linalg.eig, a user's custom op)",
        "the error names the op and its source location, never a half-converted module",
        ("test_unsupported.py::test_op_without_stablehlo_lowering_is_named_with_location",
         "test_unsupported.py::test_custom_op_without_decomposition_is_named_with_location")),
    Row("data-dependent", "side effects, complex128 / uint64",
        "torch.export's with_effects (a print, aten._print; linalg error checks left by a "
        "composite that is not decomposed whole), element types torch-mlir's importer cannot "
        "import: the error names the op and its source line",
        ("test_unsupported.py::test_what_the_importer_cannot_take_is_refused_by_name",)),
    Row("data-dependent", "float64 special functions; their while_loops over matrices",
        "the special functions on float64 (float32 algorithms only); igamma / igammac and "
        "Laguerre / Legendre with a tensor degree over operands of 2+ axes (IREE 3.13 computed "
        "wrong values for their loops there)",
        ("test_special_functions.py::test_float64_special_functions_refused",)),
    Row("data-dependent", "grouped conv3d over `?` spatial dims",
        "no lowering IREE 3.13 compiles (grouped 3-D linalg conv): the error names the op",
        ("test_conv_dynamic.py::test_grouped_conv3d_dynamic_refused",)),
    Row("data-dependent", "complex32 (chalf)",
        "StableHLO has no complex<f16>: the error names the op and its source line",
        ("test_shapes_views.py::test_complex32_is_refused_by_name",)),
    Row("data-dependent", "resize to another shape",
        "resize_as_ / resize_ to a shape other than the tensor's own (part of the storage, or "
        "uninitialized memory): the error names the op and its source line",
        ("test_shapes_views.py::test_resize_to_another_shape_is_refused_by_name",)),
    Row("data-dependent", "other higher-order ops (flex_attention, ...)",
        "a higher-order op other than cond / while_loop / scan / map: the error names "
        "`torch.ops.higher_order.<op>` and its source line",
        ("test_control_flow.py::test_other_higher_order_ops_are_refused_by_name",)),
    Row("data-dependent", "Python-number outputs (Tensor.item())",
        "a non-tensor output: the error names the op and its source line",
        ("test_shapes_views.py::test_python_number_output_is_refused_by_name",)),
    Row("data-dependent", "as_strided of a non-contiguous source, overlapping scatter",
        "a symbolic as_strided of a source not known contiguous (eager reads its storage), an "
        "as_strided_scatter whose strides may name one position twice: the error names the op "
        "and its source line",
        ("test_as_strided.py::test_as_strided_refused",)),
    # --- models --------------------------------------------------------------------------------
    Row("model", "GPT-2-style decoder",
        "tied LM head (read at the last position: only those rows multiplied), learned positions "
        "from arange(seq), causal SDPA; `?` batch and sequence",
        ("test_transformer_models.py::test_gpt2_decoder",
         "test_transformer_models.py::test_iree_input_splits_qkv_and_slices_positions",
         "test_transformer_models.py::test_sliced_projections_match_eager",
         "test_transformer_models.py::test_head_read_at_positions_matches_eager",
         "test_fuzz_shapes.py::test_fuzz_gpt2_sizes")),
    Row("model", "decode-step-like head over a bounded batch",
        "embedding of `batch` ids, linear layers and an LM head with batch in [1, 8]: the matmuls "
        "run on 8 padded rows in IREE (symhlo-pad-bounded-matmul-rows-for-iree); a prefill's head "
        "at the last position on 8 gathered rows; up to 64 rows they are left to data tiling",
        ("test_bounded_rows.py::test_bounded_rows_equal_eager",
         "test_bounded_rows.py::test_bounded_rows_are_padded_for_iree_only",
         "test_bounded_rows.py::test_rows_over_one_tile_are_not_padded",
         "test_bounded_rows.py::test_rows_of_a_dynamic_slice_are_gathered_and_equal_eager")),
    Row("model", "BERT-style encoder", "attention-mask input, pooler; `?` batch and sequence",
        ("test_transformer_models.py::test_bert_encoder_with_attention_mask",)),
    Row("model", "ResNet-style CNN",
        "conv, batch_norm, residual, max pool, adaptive avg pool; `?` batch and H/W (or W "
        "alone); run channels-last for IREE with only the input's NCHW transpose left, a conv "
        "after another gathering its halos from that one's blocks, residual adds on the blocks; "
        "convs of 128+ filters in 4-row blocks, the others in 8",
        ("test_cnn_models.py::test_resnet_dynamic_batch_and_hw",
         "test_cnn_models.py::test_deep_convs_in_four_row_blocks_equal_eager",
         "test_conv_layouts.py::test_layout_net_matches_eager",
         "test_conv_layouts.py::test_only_needed_transposes_are_left",
         "test_conv_layouts.py::test_halos_from_column_blocks_over_a_dynamic_width",
         "test_conv_layouts.py::test_overlapping_pool_over_windows_gathered_from_conv_blocks",
         "test_conv_layouts.py::test_residual_add_over_column_blocks")),
    Row("model", "U-Net-style CNN",
        "pooling, nearest / bilinear upsampling, skip concats; H/W as derived dims `4*h`; "
        "a one-class (single-filter) head",
        ("test_cnn_models.py::test_unet_derived_hw", "test_cnn_models.py::test_unet_one_class_head",
         "test_fuzz_shapes.py::test_fuzz_unet_sizes")),
    # --- checks ----------------------------------------------------------------------------------
    Row("check", "no silent specialization",
        "exports at two example sizes give identical StableHLO; symbolic output axes are `?`; "
        "a decomposition that branches on a `?` size (torch's adaptive_avg_pool2d) is rejected, "
        "not compiled for the example's sizes only",
        ("test_fuzz_shapes.py::test_specialization_check_catches_a_pinned_size",
         "test_fuzz_shapes.py::test_specialization_check_needs_differing_examples",
         "test_gaps_gather.py::test_specializing_decomposition_is_rejected")),
    Row("check", "export guards checked at call time",
        "relations torch.export records only as guards (`n <= m` from `y[:x.shape[0]]`) raise "
        "ShapeError when a call breaks them",
        ("test_gaps_gather.py::test_export_guards_are_checked_at_call_time",)),
)

_KIND_TITLE = {"op": "op family", "model": "model", "data-dependent": "rejected",
               "check": "check"}


@dataclass(frozen=True)
class TestInfo:
    file: str
    name: str
    xfail: str | None        # the reason, when the test or one of its params is xfail
    rejects: bool            # asserts symhlo.UnsupportedOpError
    runs_model: bool         # calls check_model or a Fuzzed model (IREE vs eager)


def _xfail_reason(decorators: list[ast.expr]) -> str | None:
    for dec in decorators:
        for node in ast.walk(dec):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "xfail":
                for kw in node.keywords:
                    if kw.arg == "reason" and isinstance(kw.value, ast.Constant):
                        return str(kw.value.value)
                return "xfail"
    return None


def collect_tests(root: Path = E2E) -> dict[str, TestInfo]:
    """Every `test_*` function in test/e2e/test_*.py, keyed `file.py::name`."""
    tests = {}
    for path in sorted(root.glob("test_*.py")):
        tree = ast.parse(path.read_text(), str(path))
        # helpers of the file that run a model against eager (a test may call one in a child
        # process, by name)
        runners = [fn.name for fn in tree.body if isinstance(fn, ast.FunctionDef)
                   and not fn.name.startswith("test_") and _runs_model(ast.unparse(fn))]
        for fn in tree.body:
            if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith("test_"):
                continue
            src = ast.unparse(fn)
            tests[f"{path.name}::{fn.name}"] = TestInfo(
                path.name, fn.name, _xfail_reason(fn.decorator_list),
                rejects="UnsupportedOpError" in src,
                runs_model=_runs_model(src) or any(f"{r}(" in src or f".{r}" in src
                                                   for r in runners))
    return tests


def _runs_model(src: str) -> bool:
    return "check_model(" in src or ".check(" in src


def status(row: Row, tests: dict[str, TestInfo]) -> str:
    infos = [tests[t] for t in row.tests]
    if not infos:
        return "no test yet"
    xfails = [i for i in infos if i.xfail]
    if xfails:
        return "xfail: " + "; ".join(sorted({i.xfail for i in xfails}))
    if all(i.rejects for i in infos):
        return "rejected (`UnsupportedOpError`)"
    if row.kind == "check" or any(i.runs_model for i in infos):
        return "tested"
    return "partial"


def check_rows(rows=ROWS, tests: dict[str, TestInfo] | None = None) -> list[str]:
    """Problems: rows naming missing tests, e2e tests in no row, duplicate row names."""
    tests = collect_tests() if tests is None else tests
    problems = []
    named = set()
    for row in rows:
        for t in row.tests:
            named.add(t)
            if t not in tests:
                problems.append(f"row '{row.name}' names {t}, which does not exist")
    for t in sorted(set(tests) - named):
        problems.append(f"{t} is in no row of scripts/support_table.py")
    names = [r.name for r in rows]
    for n in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"row name '{n}' appears twice")
    return problems


def table(rows=ROWS, tests: dict[str, TestInfo] | None = None) -> str:
    """The markdown between the README markers (without the markers)."""
    tests = collect_tests() if tests is None else tests
    lines = [
        "## Support",
        "",
        "Generated by `scripts/support_table.py` from the tests in `test/e2e` "
        "(`test/api/test_support_table.py` fails when this table is stale). *tested*: compiled "
        "once, run on IREE (CPU) at 3 or more sizes and compared with eager PyTorch; the "
        "StableHLO is pure, serializes as a portable artifact, and every output axis "
        "torch.export marks symbolic is `?`.",
        "",
        "| kind | family / model | covers | status | tests |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        refs = ", ".join(f"`{t.replace('.py::', '::')}`" for t in row.tests) or "-"
        lines.append(f"| {_KIND_TITLE[row.kind]} | {row.name} | {row.what} | "
                     f"{status(row, tests)} | {refs} |")
    lines += [
        "",
        "Data-dependent ops. *Lowered*: ops whose output sizes come from input sizes while the "
        "values are data (index_select / gather / embedding / scatter / index_put with runtime "
        "indices, where / masked_fill with runtime masks, argmax), and ops whose output size comes "
        "from the data itself (nonzero, `x[mask]`, masked_select, argwhere, one-argument where, "
        "unique, unique_consecutive, repeat_interleave by counts, tensor_split by a tensor, "
        "combinations, `.item()` feeding a slice; see "
        "[Sizes from data](#sizes-from-data)). *Rejected*: other ops whose output size depends on "
        "tensor values (`unique(dim=)`, unique of floats, `bincount`): "
        "`symhlo.export` raises `symhlo.UnsupportedOpError` naming the aten op, the FX node and "
        "the source line before any lowering runs.",
    ]
    return "\n".join(lines)


def readme_section(text: str) -> str | None:
    if BEGIN not in text or END not in text:
        return None
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def write_readme(path: Path = README) -> None:
    text = path.read_text()
    body = f"{BEGIN}\n{table()}\n{END}"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + body + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + body + "\n"
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if README.md's table is stale")
    mode.add_argument("--write", action="store_true", help="rewrite README.md between the markers")
    args = ap.parse_args(argv)
    problems = check_rows()
    if problems:
        print("scripts/support_table.py: rows and tests disagree:\n  " + "\n  ".join(problems),
              file=sys.stderr)
        return 1
    if args.write:
        write_readme()
        return 0
    if args.check:
        current = readme_section(README.read_text())
        if current is None:
            print(f"README.md has no {BEGIN} ... {END} section; run with --write", file=sys.stderr)
            return 1
        if current != table():
            sys.stderr.writelines(difflib.unified_diff(
                current.splitlines(True), table().splitlines(True), "README.md", "generated"))
            print("\nREADME.md's support table is stale: python scripts/support_table.py --write",
                  file=sys.stderr)
            return 1
        return 0
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
