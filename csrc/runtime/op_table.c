/*
 * The op table (arenaplan/ops.h): one row per op and tensor types, and the entry points
 * that give every kernel family the table's uniform signatures.
 *
 * A row's params descriptor lists every field of the params struct in declaration order
 * (the Python binding fills structs by it, the C export writes initialisers from it). The
 * entry points take the instruction set: variants() and prepare() pass it to the kernels (each
 * record and each blob header carries it), run() checks that the node's variant belongs to it
 * and the kernel runs that ISA's code (AP_ERR_UNSUPPORTED where this build or CPU lacks it).
 */
#include "arenaplan/ops.h"

#include "arenaplan/conv2d.h"
#include "arenaplan/depthwise_conv2d.h"
#include "arenaplan/elementwise.h"
#include "arenaplan/fully_connected.h"
#include "arenaplan/lstm.h"
#include "arenaplan/pooling.h"
#include "arenaplan/quantize.h"
#include "arenaplan/shape_ops.h"
#include "arenaplan/softmax.h"
#include "arenaplan/svdf.h"

#include "ops_s8_common.h"

/* A firmware build defines AP_RUNTIME_ONLY: the rows keep what the executor calls (run,
   state_bytes) and leave the plan-time entry points (variants, prepared_size,
   constant_counts, prepare) NULL, so the link carries no plan-time code (nor the printf
   family that names variants). */
#ifdef AP_RUNTIME_ONLY
#define AP_PLAN(fn) NULL
#else
#define AP_PLAN(fn) fn
#endif

/* A scalar or inline array field, and a field that points to an array. */
#define AP_FIELD(T, member, type, count) { #member, offsetof(T, member), type, count, NULL, NULL, 0 }
#define AP_ARRAY(T, member, type, length, per, optional) \
    { #member, offsetof(T, member), type, 0, length, per, optional }
#define AP_I32(T, member) AP_FIELD(T, member, AP_FIELD_INT32, 1)
#define AP_FIELDS(list) list, (uint32_t)(sizeof(list) / sizeof(list[0]))

/* ---- params descriptors ---------------------------------------------------------------- */
#define AP_REQUANT(T, channels) \
    AP_ARRAY(T, requant.multiplier, AP_FIELD_INT32_ARRAY, channels, "requant.per_channel", 0), \
    AP_ARRAY(T, requant.shift, AP_FIELD_INT32_ARRAY, channels, "requant.per_channel", 0), \
    AP_I32(T, requant.per_channel), AP_I32(T, requant.output_offset), \
    AP_I32(T, requant.activation_min), AP_I32(T, requant.activation_max)

#define AP_CONV_GEOMETRY(T) \
    AP_I32(T, batches), AP_I32(T, input_h), AP_I32(T, input_w), AP_I32(T, input_c), \
    AP_I32(T, output_h), AP_I32(T, output_w), AP_I32(T, output_c), AP_I32(T, filter_h), \
    AP_I32(T, filter_w), AP_I32(T, stride_h), AP_I32(T, stride_w), AP_I32(T, dilation_h), \
    AP_I32(T, dilation_w), AP_I32(T, pad_h), AP_I32(T, pad_w)

static const ap_param_field ap_conv2d_fields[] = {
    AP_CONV_GEOMETRY(ap_conv2d_params), AP_I32(ap_conv2d_params, input_offset),
    AP_REQUANT(ap_conv2d_params, "output_c"),
};

static const ap_param_field ap_depthwise_conv2d_fields[] = {
    AP_CONV_GEOMETRY(ap_depthwise_conv2d_params), AP_I32(ap_depthwise_conv2d_params, depth_multiplier),
    AP_I32(ap_depthwise_conv2d_params, input_offset),
    AP_REQUANT(ap_depthwise_conv2d_params, "output_c"),
};

static const ap_param_field ap_fully_connected_fields[] = {
    AP_I32(ap_fully_connected_params, batches), AP_I32(ap_fully_connected_params, input_depth),
    AP_I32(ap_fully_connected_params, output_depth), AP_I32(ap_fully_connected_params, input_offset),
    AP_I32(ap_fully_connected_params, filter_offset),
    AP_REQUANT(ap_fully_connected_params, "output_depth"),
    AP_ARRAY(ap_fully_connected_params, real_scale, AP_FIELD_FLOAT64_ARRAY, "output_depth",
             "requant.per_channel", 1),
    AP_I32(ap_fully_connected_params, reference),
};

static const ap_param_field ap_pool2d_fields[] = {
    AP_I32(ap_pool2d_params, batches), AP_I32(ap_pool2d_params, input_h), AP_I32(ap_pool2d_params, input_w),
    AP_I32(ap_pool2d_params, channels), AP_I32(ap_pool2d_params, output_h), AP_I32(ap_pool2d_params, output_w),
    AP_I32(ap_pool2d_params, filter_h), AP_I32(ap_pool2d_params, filter_w), AP_I32(ap_pool2d_params, stride_h),
    AP_I32(ap_pool2d_params, stride_w), AP_I32(ap_pool2d_params, pad_h), AP_I32(ap_pool2d_params, pad_w),
    AP_I32(ap_pool2d_params, activation_min), AP_I32(ap_pool2d_params, activation_max),
};

#define AP_SHAPES3(T) \
    AP_FIELD(T, input1_shape, AP_FIELD_INT32, 4), AP_FIELD(T, input2_shape, AP_FIELD_INT32, 4), \
    AP_FIELD(T, output_shape, AP_FIELD_INT32, 4)

static const ap_param_field ap_add_fields[] = {
    AP_SHAPES3(ap_add_params), AP_I32(ap_add_params, input1_offset), AP_I32(ap_add_params, input2_offset),
    AP_I32(ap_add_params, output_offset), AP_I32(ap_add_params, left_shift),
    AP_I32(ap_add_params, input1_multiplier), AP_I32(ap_add_params, input1_shift),
    AP_I32(ap_add_params, input2_multiplier), AP_I32(ap_add_params, input2_shift),
    AP_I32(ap_add_params, output_multiplier), AP_I32(ap_add_params, output_shift),
    AP_I32(ap_add_params, activation_min), AP_I32(ap_add_params, activation_max),
};

static const ap_param_field ap_mul_fields[] = {
    AP_SHAPES3(ap_mul_params), AP_I32(ap_mul_params, input1_offset), AP_I32(ap_mul_params, input2_offset),
    AP_I32(ap_mul_params, output_offset), AP_I32(ap_mul_params, output_multiplier),
    AP_I32(ap_mul_params, output_shift), AP_I32(ap_mul_params, activation_min),
    AP_I32(ap_mul_params, activation_max),
};

static const ap_param_field ap_softmax_fields[] = {
    AP_I32(ap_softmax_params, outer_size), AP_I32(ap_softmax_params, depth),
    AP_I32(ap_softmax_params, input_beta_multiplier), AP_I32(ap_softmax_params, input_beta_left_shift),
    AP_I32(ap_softmax_params, diff_min), AP_FIELD(ap_softmax_params, output_type, AP_FIELD_DTYPE, 1),
};

static const ap_param_field ap_jump_fields[] = {
    AP_FIELD(ap_jump_params, target, AP_FIELD_UINT32, 1),
    AP_I32(ap_jump_params, when),
};

static const ap_param_field ap_reshape_fields[] = {
    AP_FIELD(ap_reshape_params, bytes, AP_FIELD_SIZE, 1),
};

static const ap_param_field ap_affine_quant_fields[] = {
    AP_FIELD(ap_affine_quant_params, count, AP_FIELD_SIZE, 1),
    AP_FIELD(ap_affine_quant_params, scale, AP_FIELD_FLOAT32, 1),
    AP_I32(ap_affine_quant_params, zero_point),
};

static const ap_param_field ap_requantize_fields[] = {
    AP_FIELD(ap_requantize_params, count, AP_FIELD_SIZE, 1),
    AP_I32(ap_requantize_params, input_zero_point), AP_I32(ap_requantize_params, output_zero_point),
    AP_I32(ap_requantize_params, multiplier), AP_I32(ap_requantize_params, shift),
    AP_FIELD(ap_requantize_params, input_type, AP_FIELD_DTYPE, 1),
    AP_FIELD(ap_requantize_params, output_type, AP_FIELD_DTYPE, 1),
};

static const ap_param_field ap_concatenation_fields[] = {
    AP_FIELD(ap_concatenation_params, output_shape, AP_FIELD_INT32, 4),
    AP_I32(ap_concatenation_params, axis),
    AP_FIELD(ap_concatenation_params, input_count, AP_FIELD_UINT32, 1),
    AP_ARRAY(ap_concatenation_params, input_axis_sizes, AP_FIELD_INT32_ARRAY, "input_count", NULL, 0),
    AP_ARRAY(ap_concatenation_params, input_multipliers, AP_FIELD_INT32_ARRAY, "input_count", NULL, 1),
    AP_ARRAY(ap_concatenation_params, input_shifts, AP_FIELD_INT32_ARRAY, "input_count", NULL, 1),
    AP_ARRAY(ap_concatenation_params, input_zero_points, AP_FIELD_INT32_ARRAY, "input_count", NULL, 1),
    AP_I32(ap_concatenation_params, output_zero_point),
};

static const ap_param_field ap_pad_fields[] = {
    AP_FIELD(ap_pad_params, input_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_pad_params, pad_before, AP_FIELD_INT32, 4),
    AP_FIELD(ap_pad_params, pad_after, AP_FIELD_INT32, 4),
    AP_I32(ap_pad_params, pad_value),
};

static const ap_param_field ap_mean_fields[] = {
    AP_I32(ap_mean_params, batches), AP_I32(ap_mean_params, input_h), AP_I32(ap_mean_params, input_w),
    AP_I32(ap_mean_params, channels), AP_I32(ap_mean_params, input_zero_point),
    AP_I32(ap_mean_params, output_zero_point), AP_I32(ap_mean_params, multiplier),
    AP_I32(ap_mean_params, shift),
};

static const ap_param_field ap_svdf_fields[] = {
    AP_I32(ap_svdf_params, batches), AP_I32(ap_svdf_params, input_size), AP_I32(ap_svdf_params, filters),
    AP_I32(ap_svdf_params, memory), AP_I32(ap_svdf_params, rank), AP_I32(ap_svdf_params, input_zero_point),
    AP_I32(ap_svdf_params, output_zero_point), AP_I32(ap_svdf_params, feature_multiplier),
    AP_I32(ap_svdf_params, feature_shift), AP_I32(ap_svdf_params, time_multiplier),
    AP_I32(ap_svdf_params, time_shift), AP_I32(ap_svdf_params, time_weights_int8),
    AP_I32(ap_svdf_params, state_zero_point),
};

static const ap_param_field ap_lstm_fields[] = {
    AP_I32(ap_lstm_params, batches), AP_I32(ap_lstm_params, time_steps), AP_I32(ap_lstm_params, input_size),
    AP_I32(ap_lstm_params, cell_size), AP_I32(ap_lstm_params, time_major), AP_I32(ap_lstm_params, input_offset),
    AP_I32(ap_lstm_params, output_state_offset), AP_I32(ap_lstm_params, hidden_zero_point),
    AP_FIELD(ap_lstm_params, input_multiplier, AP_FIELD_INT32, 4),
    AP_FIELD(ap_lstm_params, input_shift, AP_FIELD_INT32, 4),
    AP_FIELD(ap_lstm_params, recurrent_multiplier, AP_FIELD_INT32, 4),
    AP_FIELD(ap_lstm_params, recurrent_shift, AP_FIELD_INT32, 4),
    AP_I32(ap_lstm_params, hidden_multiplier), AP_I32(ap_lstm_params, hidden_shift),
    AP_I32(ap_lstm_params, cell_scale_log2), AP_I32(ap_lstm_params, cell_clip),
    AP_I32(ap_lstm_params, reference),
};

static const ap_param_field ap_relu_fields[] = {
    AP_FIELD(ap_relu_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_relu_params, input_zero_point),
    AP_I32(ap_relu_params, output_zero_point), AP_I32(ap_relu_params, output_multiplier),
    AP_I32(ap_relu_params, output_shift), AP_I32(ap_relu_params, activation_min),
    AP_I32(ap_relu_params, activation_max),
};

static const ap_param_field ap_strided_slice_fields[] = {
    AP_FIELD(ap_strided_slice_params, input_shape, AP_FIELD_INT32, AP_STRIDED_SLICE_MAX_AXES),
    AP_FIELD(ap_strided_slice_params, begin, AP_FIELD_INT32, AP_STRIDED_SLICE_MAX_AXES),
    AP_FIELD(ap_strided_slice_params, stride, AP_FIELD_INT32, AP_STRIDED_SLICE_MAX_AXES),
    AP_FIELD(ap_strided_slice_params, output_shape, AP_FIELD_INT32, AP_STRIDED_SLICE_MAX_AXES),
};

static const ap_param_field ap_leaky_relu_fields[] = {
    AP_FIELD(ap_leaky_relu_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_leaky_relu_params, input_zero_point),
    AP_I32(ap_leaky_relu_params, output_zero_point), AP_I32(ap_leaky_relu_params, identity_multiplier),
    AP_I32(ap_leaky_relu_params, identity_shift), AP_I32(ap_leaky_relu_params, alpha_multiplier),
    AP_I32(ap_leaky_relu_params, alpha_shift),
};

static const ap_param_field ap_transpose_fields[] = {
    AP_FIELD(ap_transpose_params, input_shape, AP_FIELD_INT32, AP_TRANSPOSE_MAX_AXES),
    AP_FIELD(ap_transpose_params, perm, AP_FIELD_INT32, AP_TRANSPOSE_MAX_AXES),
};

/* LOGISTIC and TANH: the table is NULL under reference tflm */
static const ap_param_field ap_logistic_fields[] = {
    AP_FIELD(ap_logistic_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_logistic_params, reference),
    AP_I32(ap_logistic_params, input_zero_point), AP_I32(ap_logistic_params, input_range_radius),
    AP_I32(ap_logistic_params, input_multiplier), AP_I32(ap_logistic_params, input_left_shift),
    AP_I32(ap_logistic_params, table_size),
    AP_ARRAY(ap_logistic_params, table, AP_FIELD_INT8_ARRAY, "table_size", NULL, 1),
};

static const ap_param_field ap_hard_swish_fields[] = {
    AP_FIELD(ap_hard_swish_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_hard_swish_params, input_zero_point),
    AP_I32(ap_hard_swish_params, output_zero_point), AP_I32(ap_hard_swish_params, output_multiplier),
    AP_I32(ap_hard_swish_params, output_shift), AP_I32(ap_hard_swish_params, reluish_multiplier),
    AP_I32(ap_hard_swish_params, reluish_shift),
};

static const ap_param_field ap_transpose_conv_fields[] = {
    AP_I32(ap_transpose_conv_params, batches), AP_I32(ap_transpose_conv_params, input_h),
    AP_I32(ap_transpose_conv_params, input_w), AP_I32(ap_transpose_conv_params, input_c),
    AP_I32(ap_transpose_conv_params, output_h), AP_I32(ap_transpose_conv_params, output_w),
    AP_I32(ap_transpose_conv_params, output_c), AP_I32(ap_transpose_conv_params, filter_h),
    AP_I32(ap_transpose_conv_params, filter_w), AP_I32(ap_transpose_conv_params, stride_h),
    AP_I32(ap_transpose_conv_params, stride_w), AP_I32(ap_transpose_conv_params, pad_h),
    AP_I32(ap_transpose_conv_params, pad_w), AP_I32(ap_transpose_conv_params, input_offset),
    AP_REQUANT(ap_transpose_conv_params, "output_c"), AP_I32(ap_transpose_conv_params, accumulator_bits),
};

static const ap_param_field ap_minmax_fields[] = {
    AP_FIELD(ap_minmax_params, input1_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_minmax_params, input2_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_minmax_params, output_shape, AP_FIELD_INT32, 4),
};

static const ap_param_field ap_abs_fields[] = {
    AP_FIELD(ap_abs_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_abs_params, input_zero_point),
    AP_I32(ap_abs_params, output_zero_point), AP_I32(ap_abs_params, rescale), AP_I32(ap_abs_params, multiplier),
    AP_I32(ap_abs_params, shift),
};

#define AP_RESIZE_GEOMETRY(T) \
    AP_I32(T, batches), AP_I32(T, input_h), AP_I32(T, input_w), AP_I32(T, channels), AP_I32(T, output_h), \
    AP_I32(T, output_w)

static const ap_param_field ap_resize_nearest_fields[] = {
    AP_RESIZE_GEOMETRY(ap_resize_nearest_params),
    AP_ARRAY(ap_resize_nearest_params, y_index, AP_FIELD_INT32_ARRAY, "output_h", NULL, 0),
    AP_ARRAY(ap_resize_nearest_params, x_index, AP_FIELD_INT32_ARRAY, "output_w", NULL, 0),
};

static const ap_param_field ap_resize_bilinear_fields[] = {
    AP_RESIZE_GEOMETRY(ap_resize_bilinear_params), AP_I32(ap_resize_bilinear_params, height_scale_10),
    AP_I32(ap_resize_bilinear_params, width_scale_10), AP_I32(ap_resize_bilinear_params, half_pixel_centers),
};

static const ap_param_field ap_batch_space_fields[] = {
    AP_FIELD(ap_batch_space_params, input_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_batch_space_params, output_shape, AP_FIELD_INT32, 4), AP_I32(ap_batch_space_params, block_h),
    AP_I32(ap_batch_space_params, block_w), AP_I32(ap_batch_space_params, pad_top),
    AP_I32(ap_batch_space_params, pad_left), AP_I32(ap_batch_space_params, pad_value),
};

static const ap_param_field ap_mirror_pad_fields[] = {
    AP_FIELD(ap_mirror_pad_params, input_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_mirror_pad_params, pad_before, AP_FIELD_INT32, 4),
    AP_FIELD(ap_mirror_pad_params, pad_after, AP_FIELD_INT32, 4), AP_I32(ap_mirror_pad_params, offset),
};

static const ap_param_field ap_prelu_fields[] = {
    AP_FIELD(ap_prelu_params, input_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_prelu_params, alpha_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_prelu_params, output_shape, AP_FIELD_INT32, 4), AP_I32(ap_prelu_params, input_offset),
    AP_I32(ap_prelu_params, alpha_offset), AP_I32(ap_prelu_params, output_offset),
    AP_I32(ap_prelu_params, multiplier_1), AP_I32(ap_prelu_params, shift_1), AP_I32(ap_prelu_params, multiplier_2),
    AP_I32(ap_prelu_params, shift_2),
};

static const ap_param_field ap_squared_difference_fields[] = {
    AP_FIELD(ap_squared_difference_params, input1_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_squared_difference_params, input2_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_squared_difference_params, output_shape, AP_FIELD_INT32, 4),
    AP_I32(ap_squared_difference_params, input1_offset), AP_I32(ap_squared_difference_params, input2_offset),
    AP_I32(ap_squared_difference_params, output_offset), AP_I32(ap_squared_difference_params, input1_multiplier),
    AP_I32(ap_squared_difference_params, input1_shift), AP_I32(ap_squared_difference_params, input2_multiplier),
    AP_I32(ap_squared_difference_params, input2_shift), AP_I32(ap_squared_difference_params, output_multiplier),
    AP_I32(ap_squared_difference_params, output_shift),
};

static const ap_param_field ap_reduce_fields[] = {
    AP_FIELD(ap_reduce_params, input_shape, AP_FIELD_INT32, 4), AP_FIELD(ap_reduce_params, reduce, AP_FIELD_INT32, 4),
};

static const ap_param_field ap_sum_fields[] = {
    AP_FIELD(ap_sum_params, input_shape, AP_FIELD_INT32, 4), AP_FIELD(ap_sum_params, reduce, AP_FIELD_INT32, 4),
    AP_I32(ap_sum_params, input_zero_point), AP_I32(ap_sum_params, output_zero_point),
    AP_I32(ap_sum_params, multiplier), AP_I32(ap_sum_params, shift),
};

static const ap_param_field ap_broadcast_to_fields[] = {
    AP_FIELD(ap_broadcast_to_params, input_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_broadcast_to_params, output_shape, AP_FIELD_INT32, 4),
};

/* The 16x8 weighted ops' params: the int8 ops' window or shape fields, requant and the
   accumulator width. */
static const ap_param_field ap_conv2d_s16_fields[] = {
    AP_CONV_GEOMETRY(ap_conv2d_s16_params), AP_REQUANT(ap_conv2d_s16_params, "output_c"),
    AP_I32(ap_conv2d_s16_params, accumulator_bits),
};

static const ap_param_field ap_depthwise_conv2d_s16_fields[] = {
    AP_CONV_GEOMETRY(ap_depthwise_conv2d_s16_params), AP_I32(ap_depthwise_conv2d_s16_params, depth_multiplier),
    AP_REQUANT(ap_depthwise_conv2d_s16_params, "output_c"),
    AP_I32(ap_depthwise_conv2d_s16_params, accumulator_bits),
};

static const ap_param_field ap_fully_connected_s16_fields[] = {
    AP_I32(ap_fully_connected_s16_params, batches), AP_I32(ap_fully_connected_s16_params, input_depth),
    AP_I32(ap_fully_connected_s16_params, output_depth),
    AP_REQUANT(ap_fully_connected_s16_params, "output_depth"),
    AP_I32(ap_fully_connected_s16_params, accumulator_bits),
    AP_ARRAY(ap_fully_connected_s16_params, real_scale, AP_FIELD_FLOAT64_ARRAY, "output_depth",
             "requant.per_channel", 1),
    AP_I32(ap_fully_connected_s16_params, reference),
};

/* ---- float32 (AP_TYPES_F32) params descriptors ---------------------------------------------- */
#define AP_F32(T, member) AP_FIELD(T, member, AP_FIELD_FLOAT32, 1)
#define AP_F32_ACT(T) AP_F32(T, activation_min), AP_F32(T, activation_max)

static const ap_param_field ap_fully_connected_f32_fields[] = {
    AP_I32(ap_fully_connected_f32_params, batches), AP_I32(ap_fully_connected_f32_params, input_depth),
    AP_I32(ap_fully_connected_f32_params, output_depth), AP_F32_ACT(ap_fully_connected_f32_params),
};

static const ap_param_field ap_conv2d_f32_fields[] = {
    AP_CONV_GEOMETRY(ap_conv2d_f32_params), AP_F32_ACT(ap_conv2d_f32_params),
};

static const ap_param_field ap_depthwise_conv2d_f32_fields[] = {
    AP_CONV_GEOMETRY(ap_depthwise_conv2d_f32_params), AP_I32(ap_depthwise_conv2d_f32_params, depth_multiplier),
    AP_F32_ACT(ap_depthwise_conv2d_f32_params),
};

static const ap_param_field ap_binary_f32_fields[] = {
    AP_SHAPES3(ap_binary_f32_params), AP_F32_ACT(ap_binary_f32_params),
};

static const ap_param_field ap_unary_f32_fields[] = {
    AP_FIELD(ap_unary_f32_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_unary_f32_params, fn),
    AP_F32(ap_unary_f32_params, alpha),
};

static const ap_param_field ap_softmax_f32_fields[] = {
    AP_I32(ap_softmax_f32_params, outer_size), AP_I32(ap_softmax_f32_params, depth),
    AP_F32(ap_softmax_f32_params, beta),
};

static const ap_param_field ap_pool2d_f32_fields[] = {
    AP_I32(ap_pool2d_f32_params, batches), AP_I32(ap_pool2d_f32_params, input_h),
    AP_I32(ap_pool2d_f32_params, input_w), AP_I32(ap_pool2d_f32_params, channels),
    AP_I32(ap_pool2d_f32_params, output_h), AP_I32(ap_pool2d_f32_params, output_w),
    AP_I32(ap_pool2d_f32_params, filter_h), AP_I32(ap_pool2d_f32_params, filter_w),
    AP_I32(ap_pool2d_f32_params, stride_h), AP_I32(ap_pool2d_f32_params, stride_w),
    AP_I32(ap_pool2d_f32_params, pad_h), AP_I32(ap_pool2d_f32_params, pad_w), AP_F32_ACT(ap_pool2d_f32_params),
};

static const ap_param_field ap_pad_f32_fields[] = {
    AP_FIELD(ap_pad_f32_params, input_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_pad_f32_params, pad_before, AP_FIELD_INT32, 4),
    AP_FIELD(ap_pad_f32_params, pad_after, AP_FIELD_INT32, 4), AP_F32(ap_pad_f32_params, pad_value),
};

static const ap_param_field ap_concatenation_f32_fields[] = {
    AP_FIELD(ap_concatenation_f32_params, output_shape, AP_FIELD_INT32, 4),
    AP_I32(ap_concatenation_f32_params, axis),
    AP_FIELD(ap_concatenation_f32_params, input_count, AP_FIELD_UINT32, 1),
    AP_ARRAY(ap_concatenation_f32_params, input_axis_sizes, AP_FIELD_INT32_ARRAY, "input_count", NULL, 0),
};

static const ap_param_field ap_mean_f32_fields[] = {
    AP_FIELD(ap_mean_f32_params, input_shape, AP_FIELD_INT32, 4), AP_I32(ap_mean_f32_params, reduce),
};

static const ap_param_field ap_resize_bilinear_f32_fields[] = {
    AP_I32(ap_resize_bilinear_f32_params, batches), AP_I32(ap_resize_bilinear_f32_params, input_h),
    AP_I32(ap_resize_bilinear_f32_params, input_w), AP_I32(ap_resize_bilinear_f32_params, channels),
    AP_I32(ap_resize_bilinear_f32_params, output_h), AP_I32(ap_resize_bilinear_f32_params, output_w),
    AP_FIELD(ap_resize_bilinear_f32_params, height_scale, AP_FIELD_FLOAT32, 1),
    AP_FIELD(ap_resize_bilinear_f32_params, width_scale, AP_FIELD_FLOAT32, 1),
    AP_I32(ap_resize_bilinear_f32_params, half_pixel_centers),
};

static const ap_param_field ap_add_n_s8_fields[] = {
    AP_FIELD(ap_add_n_s8_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_add_n_s8_params, input_offset),
    AP_I32(ap_add_n_s8_params, output_offset), AP_I32(ap_add_n_s8_params, input_multiplier),
    AP_I32(ap_add_n_s8_params, input_shift), AP_I32(ap_add_n_s8_params, output_multiplier),
    AP_I32(ap_add_n_s8_params, output_shift),
};

static const ap_param_field ap_reduce_f32_fields[] = {
    AP_FIELD(ap_reduce_f32_params, input_shape, AP_FIELD_INT32, 4), AP_I32(ap_reduce_f32_params, reduce),
    AP_I32(ap_reduce_f32_params, fn),
};

static const ap_param_field ap_transpose_conv_f32_fields[] = {
    AP_I32(ap_transpose_conv_f32_params, batches), AP_I32(ap_transpose_conv_f32_params, input_h),
    AP_I32(ap_transpose_conv_f32_params, input_w), AP_I32(ap_transpose_conv_f32_params, input_c),
    AP_I32(ap_transpose_conv_f32_params, output_h), AP_I32(ap_transpose_conv_f32_params, output_w),
    AP_I32(ap_transpose_conv_f32_params, output_c), AP_I32(ap_transpose_conv_f32_params, filter_h),
    AP_I32(ap_transpose_conv_f32_params, filter_w), AP_I32(ap_transpose_conv_f32_params, stride_h),
    AP_I32(ap_transpose_conv_f32_params, stride_w), AP_I32(ap_transpose_conv_f32_params, pad_h),
    AP_I32(ap_transpose_conv_f32_params, pad_w), AP_I32(ap_transpose_conv_f32_params, has_bias),
    AP_F32_ACT(ap_transpose_conv_f32_params),
};

/* ---- entry points with the table's signatures ---------------------------------------------- */
/* The plan-time entry points of a family whose functions take (params, ...); none under
   AP_RUNTIME_ONLY. */
#ifdef AP_RUNTIME_ONLY
#define AP_VARIANTS(fn, T)
#define AP_PREPARED_SIZE(fn, T)
#define AP_PREPARE(fn, T)
#else
#define AP_VARIANTS(fn, T)                                                                         \
    static ap_status fn##_entry(const void *params, ap_isa isa, ap_variant *variants_out,          \
                                uint32_t capacity, uint32_t *count_out, ap_error *error_out)       \
    {                                                                                              \
        return fn((const T *)params, isa, variants_out, capacity, count_out, error_out);          \
    }
#define AP_PREPARED_SIZE(fn, T)                                                                    \
    static ap_status fn##_entry(const void *params, ap_isa isa, size_t *bytes_out,                 \
                                ap_error *error_out)                                               \
    {                                                                                              \
        (void)isa; /* every ISA reads one blob layout today: the size does not depend on it */     \
        return fn((const T *)params, bytes_out, error_out);                                       \
    }
#define AP_PREPARE(fn, T)                                                                          \
    static ap_status fn##_entry(const void *params, ap_isa isa, const void *filter,                \
                                const void *bias, void *prepared_out, size_t prepared_bytes,       \
                                ap_error *error_out)                                               \
    {                                                                                              \
        return fn((const T *)params, isa, (const int8_t *)filter, (const int32_t *)bias,           \
                  prepared_out, prepared_bytes, error_out);                                        \
    }
#endif
/* A node runs the code of its variant's ISA: the executor passes that ISA, and a caller that
   passes another gets told so, naming both. */
static ap_status ap_op_check_isa(const ap_op_call *c, ap_isa isa, ap_error *error_out)
{
    if (c == NULL || c->variant == NULL) {
        return AP_OPS_INVALID(error_out, "run: the call and its variant must not be NULL");
    }
    if (c->variant->isa != (int32_t)isa) {
        const char *have = ap_isa_name(c->variant->isa), *want = ap_isa_name(isa);
        return AP_OPS_INVALID(error_out, "run: variant '%s' is a %s variant; asked to run it as %s",
                              c->variant->name, have != NULL ? have : "(unknown ISA)",
                              want != NULL ? want : "(unknown ISA)");
    }
    return AP_OK;
}
#define AP_CHECK_ISA(c, isa, error_out)                                                            \
    do {                                                                                           \
        ap_status isa_st_ = ap_op_check_isa((c), (isa), (error_out));                             \
        if (isa_st_ != AP_OK) {                                                                    \
            return isa_st_;                                                                        \
        }                                                                                          \
    } while (0)

/* One input, one output, no prepared blob, no state. */
#define AP_RUN_UNARY(fn, T, IN, OUT)                                                               \
    static ap_status fn##_entry(const ap_op_call *c, ap_isa isa, ap_error *error_out)              \
    {                                                                                              \
        AP_CHECK_ISA(c, isa, error_out);                                                           \
        return fn((const T *)c->params, c->variant, (const IN *)c->inputs[0], (OUT *)c->output,   \
                  c->scratch, c->scratch_count, error_out);                                        \
    }
/* One input, one output and the prepared blob. */
#define AP_RUN_WEIGHTED(fn, T)                                                                     \
    static ap_status fn##_entry(const ap_op_call *c, ap_isa isa, ap_error *error_out)              \
    {                                                                                              \
        AP_CHECK_ISA(c, isa, error_out);                                                           \
        return fn((const T *)c->params, c->variant, c->prepared, (const int8_t *)c->inputs[0],    \
                  (int8_t *)c->output, c->scratch, c->scratch_count, error_out);                   \
    }
/* Two inputs, one output. */
#define AP_RUN_BINARY(fn, T)                                                                       \
    static ap_status fn##_entry(const ap_op_call *c, ap_isa isa, ap_error *error_out)              \
    {                                                                                              \
        AP_CHECK_ISA(c, isa, error_out);                                                           \
        return fn((const T *)c->params, c->variant, (const int8_t *)c->inputs[0],                 \
                  (const int8_t *)c->inputs[1], (int8_t *)c->output, c->scratch, c->scratch_count, \
                  error_out);                                                                      \
    }

#ifndef AP_RUNTIME_ONLY
/* product of n non-negative int32 dims into *out; AP_OK, or invalid / overflow */
static ap_status ap_op_count_of(const int32_t *dims, int n, size_t *out, const char *op, ap_error *error)
{
    size_t total = 1;
    for (int i = 0; i < n; i++) {
        if (dims[i] < 1) {
            return AP_OPS_INVALID(error, "%s: the params' shapes give no valid constant sizes (%d)", op,
                                  (int)dims[i]);
        }
        if (!ap_ops_mul(total, (size_t)dims[i], &total)) {
            return AP_OPS_OVERFLOW(error, "%s: the constants' element count overflows size_t", op);
        }
    }
    *out = total;
    return AP_OK;
}
#endif

AP_VARIANTS(ap_conv2d_s8_variants, ap_conv2d_params)
AP_PREPARED_SIZE(ap_conv2d_s8_prepared_size, ap_conv2d_params)
AP_PREPARE(ap_conv2d_s8_prepare, ap_conv2d_params)
AP_RUN_WEIGHTED(ap_conv2d_s8_run, ap_conv2d_params)

#ifndef AP_RUNTIME_ONLY
static ap_status ap_conv2d_constant_counts(const void *params, size_t *filter_count, size_t *bias_count,
                                           ap_error *error)
{
    const ap_conv2d_params *c = params;
    const int32_t dims[] = {c->output_c, c->filter_h, c->filter_w, c->input_c};
    ap_status st = ap_op_count_of(dims, 4, filter_count, "CONV_2D", error);
    return st != AP_OK ? st : ap_op_count_of(&c->output_c, 1, bias_count, "CONV_2D", error);
}
#endif

AP_VARIANTS(ap_depthwise_conv2d_s8_variants, ap_depthwise_conv2d_params)
AP_PREPARED_SIZE(ap_depthwise_conv2d_s8_prepared_size, ap_depthwise_conv2d_params)
AP_PREPARE(ap_depthwise_conv2d_s8_prepare, ap_depthwise_conv2d_params)
AP_RUN_WEIGHTED(ap_depthwise_conv2d_s8_run, ap_depthwise_conv2d_params)

#ifndef AP_RUNTIME_ONLY
static ap_status ap_depthwise_conv2d_constant_counts(const void *params, size_t *filter_count,
                                                     size_t *bias_count, ap_error *error)
{
    const ap_depthwise_conv2d_params *c = params;
    const int32_t dims[] = {c->filter_h, c->filter_w, c->output_c};
    ap_status st = ap_op_count_of(dims, 3, filter_count, "DEPTHWISE_CONV_2D", error);
    return st != AP_OK ? st : ap_op_count_of(&c->output_c, 1, bias_count, "DEPTHWISE_CONV_2D", error);
}
#endif

AP_VARIANTS(ap_fully_connected_s8_variants, ap_fully_connected_params)
AP_PREPARED_SIZE(ap_fully_connected_s8_prepared_size, ap_fully_connected_params)
AP_PREPARE(ap_fully_connected_s8_prepare, ap_fully_connected_params)
AP_RUN_WEIGHTED(ap_fully_connected_s8_run, ap_fully_connected_params)

#ifndef AP_RUNTIME_ONLY
static ap_status ap_fully_connected_constant_counts(const void *params, size_t *filter_count,
                                                    size_t *bias_count, ap_error *error)
{
    const ap_fully_connected_params *c = params;
    const int32_t dims[] = {c->output_depth, c->input_depth};
    ap_status st = ap_op_count_of(dims, 2, filter_count, "FULLY_CONNECTED", error);
    return st != AP_OK ? st : ap_op_count_of(&c->output_depth, 1, bias_count, "FULLY_CONNECTED", error);
}
#endif

AP_VARIANTS(ap_average_pool2d_s8_variants, ap_pool2d_params)
AP_RUN_UNARY(ap_average_pool2d_s8_run, ap_pool2d_params, int8_t, int8_t)
AP_VARIANTS(ap_max_pool2d_s8_variants, ap_pool2d_params)
AP_RUN_UNARY(ap_max_pool2d_s8_run, ap_pool2d_params, int8_t, int8_t)
AP_VARIANTS(ap_add_s8_variants, ap_add_params)
AP_RUN_BINARY(ap_add_s8_run, ap_add_params)
AP_VARIANTS(ap_sub_s8_variants, ap_add_params)
AP_RUN_BINARY(ap_sub_s8_run, ap_add_params)
AP_VARIANTS(ap_mul_s8_variants, ap_mul_params)
AP_RUN_BINARY(ap_mul_s8_run, ap_mul_params)
AP_VARIANTS(ap_softmax_s8_variants, ap_softmax_params)

static ap_status ap_softmax_run_entry(const ap_op_call *c, ap_isa isa, ap_error *error_out)
{
    AP_CHECK_ISA(c, isa, error_out);
    const ap_softmax_params *p = c->params;
    if (p->output_type == AP_DTYPE_INT16) {
        return ap_softmax_s8_s16_run(p, c->variant, c->inputs[0], c->output, c->scratch, c->scratch_count,
                                     error_out);
    }
    return ap_softmax_s8_run(p, c->variant, c->inputs[0], c->output, c->scratch, c->scratch_count, error_out);
}

AP_VARIANTS(ap_reshape_variants, ap_reshape_params)

static ap_status ap_reshape_run_entry(const ap_op_call *c, ap_isa isa, ap_error *error_out)
{
    AP_CHECK_ISA(c, isa, error_out);
    /* An aliased reshape shares its input's bytes: nothing to move. */
    if (c->inputs[0] == c->output) {
        return AP_OK;
    }
    return ap_reshape_run(c->params, c->variant, c->inputs[0], c->output, c->scratch, c->scratch_count,
                          error_out);
}

AP_VARIANTS(ap_quantize_s8_variants, ap_affine_quant_params)
AP_RUN_UNARY(ap_quantize_s8_run, ap_affine_quant_params, float, int8_t)
AP_VARIANTS(ap_dequantize_s8_variants, ap_affine_quant_params)
AP_RUN_UNARY(ap_dequantize_s8_run, ap_affine_quant_params, int8_t, float)
AP_RUN_UNARY(ap_requantize_run, ap_requantize_params, void, void)
AP_VARIANTS(ap_concatenation_s8_variants, ap_concatenation_params)

static ap_status ap_concatenation_run_entry(const ap_op_call *c, ap_isa isa, ap_error *error_out)
{
    AP_CHECK_ISA(c, isa, error_out);
    return ap_concatenation_s8_run(c->params, c->variant, (const int8_t *const *)c->inputs, c->output,
                                   c->scratch, c->scratch_count, error_out);
}

AP_VARIANTS(ap_pad_s8_variants, ap_pad_params)
AP_RUN_UNARY(ap_pad_s8_run, ap_pad_params, int8_t, int8_t)
AP_VARIANTS(ap_mean_s8_variants, ap_mean_params)
AP_RUN_UNARY(ap_mean_s8_run, ap_mean_params, int8_t, int8_t)
AP_VARIANTS(ap_svdf_s8_variants, ap_svdf_params)

static ap_status ap_svdf_state_bytes_entry(const void *params, size_t *bytes_out, ap_error *error_out)
{
    return ap_svdf_s8_state_bytes(params, &bytes_out[0], error_out);
}

static ap_status ap_svdf_run_entry(const ap_op_call *c, ap_isa isa, ap_error *error_out)
{
    AP_CHECK_ISA(c, isa, error_out);
    const ap_svdf_params *p = c->params;
    if (p != NULL && p->time_weights_int8) {
        return ap_svdf_s8_time8_run(p, c->variant, c->inputs[0], c->inputs[1], c->inputs[2],
                                    c->input_count > 3 ? c->inputs[3] : NULL, c->state[0], c->output, c->scratch,
                                    c->scratch_count, error_out);
    }
    return ap_svdf_s8_run(c->params, c->variant, c->inputs[0], c->inputs[1], c->inputs[2],
                          c->input_count > 3 ? c->inputs[3] : NULL, c->state[0], c->output, c->scratch,
                          c->scratch_count, error_out);
}

AP_VARIANTS(ap_lstm_s8_variants, ap_lstm_params)
AP_PREPARED_SIZE(ap_lstm_s8_prepared_size, ap_lstm_params)

#ifndef AP_RUNTIME_ONLY
static ap_status ap_lstm_constant_counts(const void *params, size_t *filter_count, size_t *bias_count,
                                         ap_error *error)
{
    /* The four input-to-gate matrices, then the four recurrent ones; four gate biases. */
    const ap_lstm_params *c = params;
    const int32_t dims[] = {4, c->cell_size, c->input_size, c->cell_size};
    size_t in_part = 0, rec_part = 0;
    ap_status st = ap_op_count_of(dims, 3, &in_part, "UNIDIRECTIONAL_SEQUENCE_LSTM", error);
    if (st == AP_OK) {
        const int32_t rec[] = {4, c->cell_size, c->cell_size};
        st = ap_op_count_of(rec, 3, &rec_part, "UNIDIRECTIONAL_SEQUENCE_LSTM", error);
    }
    if (st == AP_OK && !ap_ops_add(in_part, rec_part, filter_count)) {
        return AP_OPS_OVERFLOW(error, "UNIDIRECTIONAL_SEQUENCE_LSTM: the weights' element count overflows");
    }
    return st != AP_OK ? st : ap_op_count_of(dims, 2, bias_count, "UNIDIRECTIONAL_SEQUENCE_LSTM", error);
}
#endif

#ifndef AP_RUNTIME_ONLY
static ap_status ap_lstm_prepare_entry(const void *params, ap_isa isa, const void *filter, const void *bias,
                                       void *prepared_out, size_t prepared_bytes, ap_error *error_out)
{
    /* filter and bias hold the matrices and biases in the order ap_lstm_constant_counts gives. */
    const ap_lstm_params *c = params;
    size_t filter_count = 0, bias_count = 0;
    ap_status st = ap_lstm_constant_counts(c, &filter_count, &bias_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    const size_t in_matrix = (size_t)c->cell_size * (size_t)c->input_size;
    const size_t rec_matrix = (size_t)c->cell_size * (size_t)c->cell_size;
    const int8_t *f = filter;
    const int32_t *b = bias;
    ap_lstm_weights w;
    for (int g = 0; g < 4; g++) {
        w.input_to_gate[g] = f + (size_t)g * in_matrix;
        w.recurrent_to_gate[g] = f + 4 * in_matrix + (size_t)g * rec_matrix;
        w.gate_bias[g] = b != NULL ? b + (size_t)g * (size_t)c->cell_size : NULL;
    }
    return ap_lstm_s8_prepare(c, isa, &w, prepared_out, prepared_bytes, error_out);
}
#endif

static ap_status ap_lstm_state_bytes_entry(const void *params, size_t *bytes_out, ap_error *error_out)
{
    return ap_lstm_s8_state_bytes(params, &bytes_out[0], &bytes_out[1], error_out);
}

static ap_status ap_lstm_run_entry(const ap_op_call *c, ap_isa isa, ap_error *error_out)
{
    AP_CHECK_ISA(c, isa, error_out);
    return ap_lstm_s8_run(c->params, c->variant, c->prepared, c->inputs[0], c->output, c->state[0],
                          c->state[1], c->scratch, c->scratch_count, error_out);
}

/* ---- the table ------------------------------------------------------------------------------- */
/* ---- bool and int32 tensors: comparisons, logical ops, ARG_MAX / ARG_MIN, GATHER, SELECT_V2 ---- */
static const ap_param_field ap_compare_fields[] = {
    AP_FIELD(ap_compare_params, input1_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_compare_params, input2_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_compare_params, output_shape, AP_FIELD_INT32, 4),
    AP_I32(ap_compare_params, left_shift), AP_I32(ap_compare_params, input1_offset),
    AP_I32(ap_compare_params, input1_multiplier), AP_I32(ap_compare_params, input1_shift),
    AP_I32(ap_compare_params, input2_offset), AP_I32(ap_compare_params, input2_multiplier),
    AP_I32(ap_compare_params, input2_shift),
};

static const ap_param_field ap_arg_minmax_fields[] = {
    AP_I32(ap_arg_minmax_params, outer), AP_I32(ap_arg_minmax_params, axis_size),
    AP_I32(ap_arg_minmax_params, inner), AP_FIELD(ap_arg_minmax_params, output_type, AP_FIELD_DTYPE, 1),
};

static const ap_param_field ap_gather_fields[] = {
    AP_I32(ap_gather_params, outer), AP_I32(ap_gather_params, axis_size), AP_I32(ap_gather_params, inner),
    AP_I32(ap_gather_params, coords), AP_I32(ap_gather_params, batches),
};

static const ap_param_field ap_reverse_fields[] = {
    AP_I32(ap_reverse_params, outer), AP_I32(ap_reverse_params, middle), AP_I32(ap_reverse_params, inner),
};

static const ap_param_field ap_reduce_all_fields[] = {
    AP_I32(ap_reduce_all_params, rank), AP_FIELD(ap_reduce_all_params, dims, AP_FIELD_INT32, AP_REDUCE_ALL_MAX_DIMS),
    AP_FIELD(ap_reduce_all_params, reduce, AP_FIELD_INT32, AP_REDUCE_ALL_MAX_DIMS),
};

static const ap_param_field ap_select_fields[] = {
    AP_FIELD(ap_select_params, condition_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_select_params, x_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_select_params, y_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_select_params, output_shape, AP_FIELD_INT32, 4),
};


static const ap_param_field ap_cast_fields[] = {
    AP_FIELD(ap_cast_params, count, AP_FIELD_SIZE, 1), AP_FIELD(ap_cast_params, output_type, AP_FIELD_DTYPE, 1),
    AP_I32(ap_cast_params, nan_saturates),
};

static const ap_param_field ap_fill_fields[] = {
    AP_FIELD(ap_fill_params, count, AP_FIELD_SIZE, 1),
};

static const ap_param_field ap_shape_fields[] = {
    AP_I32(ap_shape_params, rank), AP_FIELD(ap_shape_params, output_type, AP_FIELD_DTYPE, 1),
    AP_FIELD(ap_shape_params, dims, AP_FIELD_INT32, 8),
};

static const ap_param_field ap_floor_fields[] = {
    AP_FIELD(ap_floor_params, input1_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_floor_params, input2_shape, AP_FIELD_INT32, 4),
    AP_FIELD(ap_floor_params, output_shape, AP_FIELD_INT32, 4),
};

static const ap_param_field ap_add_n_fields[] = {
    AP_FIELD(ap_add_n_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_add_n_params, tflm_loop),
};

static const ap_param_field ap_l2_norm_fields[] = {
    AP_I32(ap_l2_norm_params, outer_size), AP_I32(ap_l2_norm_params, depth),
    AP_I32(ap_l2_norm_params, input_zero_point),
};

static const ap_param_field ap_log_softmax_fields[] = {
    AP_I32(ap_log_softmax_params, outer_size), AP_I32(ap_log_softmax_params, depth),
    AP_I32(ap_log_softmax_params, input_multiplier), AP_I32(ap_log_softmax_params, input_left_shift),
    AP_I32(ap_log_softmax_params, reverse_scaling_divisor), AP_I32(ap_log_softmax_params, reverse_scaling_shift),
    AP_I32(ap_log_softmax_params, diff_min),
};

static const ap_param_field ap_cumsum_fields[] = {
    AP_I32(ap_cumsum_params, outer), AP_I32(ap_cumsum_params, axis_size), AP_I32(ap_cumsum_params, inner),
    AP_I32(ap_cumsum_params, exclusive), AP_I32(ap_cumsum_params, reverse), AP_I32(ap_cumsum_params, input_offset),
    AP_I32(ap_cumsum_params, output_offset), AP_I32(ap_cumsum_params, left_shift),
    AP_I32(ap_cumsum_params, input_multiplier), AP_I32(ap_cumsum_params, input_shift),
    AP_I32(ap_cumsum_params, output_multiplier), AP_I32(ap_cumsum_params, output_shift),
};

static const ap_param_field ap_batch_matmul_fields[] = {
    AP_FIELD(ap_batch_matmul_params, lhs_batch, AP_FIELD_INT32, 3),
    AP_FIELD(ap_batch_matmul_params, rhs_batch, AP_FIELD_INT32, 3), AP_I32(ap_batch_matmul_params, rows),
    AP_I32(ap_batch_matmul_params, depth), AP_I32(ap_batch_matmul_params, cols), AP_I32(ap_batch_matmul_params, adj_x),
    AP_I32(ap_batch_matmul_params, adj_y), AP_I32(ap_batch_matmul_params, lhs_offset),
    AP_I32(ap_batch_matmul_params, rhs_offset), AP_I32(ap_batch_matmul_params, output_offset),
    AP_I32(ap_batch_matmul_params, output_multiplier), AP_I32(ap_batch_matmul_params, output_shift),
    AP_I32(ap_batch_matmul_params, activation_min), AP_I32(ap_batch_matmul_params, activation_max),
};

static const ap_param_field ap_gather_nd_fields[] = {
    AP_I32(ap_gather_nd_params, index_depth), AP_FIELD(ap_gather_nd_params, dims, AP_FIELD_INT32, AP_GATHER_ND_MAX_DEPTH),
    AP_I32(ap_gather_nd_params, slice_size), AP_I32(ap_gather_nd_params, slices), AP_I32(ap_gather_nd_params, bounds),
};

static const ap_param_field ap_broadcast_args_fields[] = {
    AP_I32(ap_broadcast_args_params, length1), AP_I32(ap_broadcast_args_params, length2),
    AP_FIELD(ap_broadcast_args_params, dtype, AP_FIELD_DTYPE, 1),
};

static const ap_param_field ap_math_f32_fields[] = {
    AP_FIELD(ap_math_f32_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_math_f32_params, fn),
};

static const ap_param_field ap_div_s8_fields[] = {
    AP_SHAPES3(ap_div_s8_params), AP_I32(ap_div_s8_params, input1_zero_point),
    AP_I32(ap_div_s8_params, input2_zero_point), AP_I32(ap_div_s8_params, output_zero_point),
    AP_I32(ap_div_s8_params, output_multiplier), AP_I32(ap_div_s8_params, output_shift),
    AP_I32(ap_div_s8_params, activation_min), AP_I32(ap_div_s8_params, activation_max),
};

static const ap_param_field ap_div_s32_fields[] = {
    AP_SHAPES3(ap_div_s32_params), AP_I32(ap_div_s32_params, activation_min),
    AP_I32(ap_div_s32_params, activation_max),
};

static const ap_param_field ap_rsqrt_s8_fields[] = {
    AP_FIELD(ap_rsqrt_s8_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_rsqrt_s8_params, input_zero_point),
    AP_I32(ap_rsqrt_s8_params, output_zero_point), AP_I32(ap_rsqrt_s8_params, multiplier),
    AP_I32(ap_rsqrt_s8_params, shift),
};

static const ap_param_field ap_elu_s8_fields[] = {
    AP_FIELD(ap_elu_s8_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_elu_s8_params, table_size),
    AP_ARRAY(ap_elu_s8_params, table, AP_FIELD_INT8_ARRAY, "table_size", NULL, 0),
};

/* ---- int16 SOFTMAX, LOGISTIC and TANH ---- */
static const ap_param_field ap_softmax_s16_fields[] = {
    AP_I32(ap_softmax_s16_params, outer_size), AP_I32(ap_softmax_s16_params, depth),
    AP_I32(ap_softmax_s16_params, input_multiplier), AP_I32(ap_softmax_s16_params, input_left_shift),
    AP_I32(ap_softmax_s16_params, lut_size),
    AP_ARRAY(ap_softmax_s16_params, exp_lut, AP_FIELD_INT16_ARRAY, "lut_size", NULL, 0),
    AP_ARRAY(ap_softmax_s16_params, one_over_one_plus_x_lut, AP_FIELD_INT16_ARRAY, "lut_size", NULL, 0),
};

static const ap_param_field ap_logistic_s16_fields[] = {
    AP_FIELD(ap_logistic_s16_params, count, AP_FIELD_SIZE, 1), AP_I32(ap_logistic_s16_params, input_multiplier),
    AP_I32(ap_logistic_s16_params, input_left_shift),
};

static const ap_param_field ap_svdf_f32_fields[] = {
    AP_I32(ap_svdf_f32_params, batches), AP_I32(ap_svdf_f32_params, input_size), AP_I32(ap_svdf_f32_params, filters),
    AP_I32(ap_svdf_f32_params, memory), AP_I32(ap_svdf_f32_params, rank), AP_I32(ap_svdf_f32_params, activation),
    AP_I32(ap_svdf_f32_params, reference),
};

static const ap_param_field ap_lstm_f32_fields[] = {
    AP_I32(ap_lstm_f32_params, batches), AP_I32(ap_lstm_f32_params, time_steps),
    AP_I32(ap_lstm_f32_params, input_size), AP_I32(ap_lstm_f32_params, cell_size),
    AP_I32(ap_lstm_f32_params, time_major), AP_F32(ap_lstm_f32_params, cell_clip),
    AP_I32(ap_lstm_f32_params, reference),
};

static const ap_param_field ap_lstm_s16_fields[] = {
    AP_I32(ap_lstm_s16_params, batches), AP_I32(ap_lstm_s16_params, time_steps),
    AP_I32(ap_lstm_s16_params, input_size), AP_I32(ap_lstm_s16_params, cell_size),
    AP_I32(ap_lstm_s16_params, time_major),
    AP_FIELD(ap_lstm_s16_params, input_multiplier, AP_FIELD_INT32, 4),
    AP_FIELD(ap_lstm_s16_params, input_shift, AP_FIELD_INT32, 4),
    AP_FIELD(ap_lstm_s16_params, recurrent_multiplier, AP_FIELD_INT32, 4),
    AP_FIELD(ap_lstm_s16_params, recurrent_shift, AP_FIELD_INT32, 4),
    AP_I32(ap_lstm_s16_params, forget_multiplier), AP_I32(ap_lstm_s16_params, forget_shift),
    AP_I32(ap_lstm_s16_params, input_gate_multiplier), AP_I32(ap_lstm_s16_params, input_gate_shift),
    AP_I32(ap_lstm_s16_params, hidden_multiplier), AP_I32(ap_lstm_s16_params, hidden_shift),
    AP_I32(ap_lstm_s16_params, cell_tanh_multiplier), AP_I32(ap_lstm_s16_params, cell_tanh_shift),
    AP_I32(ap_lstm_s16_params, cell_clip),
};

#define AP_ROW_OF(code, name, types, T, fields) code, name, #code, types, #T, sizeof(T), AP_FIELDS(fields)
#define AP_ROW(code, name, T, fields) AP_ROW_OF(code, name, AP_TYPES_S8, T, fields)
#define AP_ROW_S16X8(code, name, T, fields) AP_ROW_OF(code, name, AP_TYPES_S16X8, T, fields)
#define AP_ROW_F32(code, name, T, fields) AP_ROW_OF(code, name, AP_TYPES_F32, T, fields)
#define AP_ROW_BOOL(code, name, T, fields) AP_ROW_OF(code, name, AP_TYPES_BOOL, T, fields)
#define AP_ROW_S32(code, name, T, fields) AP_ROW_OF(code, name, AP_TYPES_S32, T, fields)
#define AP_ROW_S64(code, name, T, fields) AP_ROW_OF(code, name, AP_TYPES_S64, T, fields)
#define AP_ROW_U8(code, name, T, fields) AP_ROW_OF(code, name, AP_TYPES_U8, T, fields)

static const ap_op_def ap_op_table[] = {
    {AP_ROW(AP_OP_CONV2D, "CONV_2D", ap_conv2d_params, ap_conv2d_fields), 1, 1, 1, 1, 0,
     AP_PLAN(ap_conv2d_s8_variants_entry), AP_PLAN(ap_conv2d_s8_prepared_size_entry), AP_PLAN(ap_conv2d_constant_counts),
     AP_PLAN(ap_conv2d_s8_prepare_entry), NULL, ap_conv2d_s8_run_entry},
    {AP_ROW(AP_OP_DEPTHWISE_CONV2D, "DEPTHWISE_CONV_2D", ap_depthwise_conv2d_params,
            ap_depthwise_conv2d_fields), 1, 1, 1, 1, 0,
     AP_PLAN(ap_depthwise_conv2d_s8_variants_entry), AP_PLAN(ap_depthwise_conv2d_s8_prepared_size_entry),
     AP_PLAN(ap_depthwise_conv2d_constant_counts), AP_PLAN(ap_depthwise_conv2d_s8_prepare_entry), NULL,
     ap_depthwise_conv2d_s8_run_entry},
    {AP_ROW(AP_OP_FULLY_CONNECTED, "FULLY_CONNECTED", ap_fully_connected_params, ap_fully_connected_fields),
     1, 1, 1, 1, 0,
     AP_PLAN(ap_fully_connected_s8_variants_entry), AP_PLAN(ap_fully_connected_s8_prepared_size_entry),
     AP_PLAN(ap_fully_connected_constant_counts), AP_PLAN(ap_fully_connected_s8_prepare_entry), NULL,
     ap_fully_connected_s8_run_entry},
    {AP_ROW(AP_OP_AVERAGE_POOL2D, "AVERAGE_POOL_2D", ap_pool2d_params, ap_pool2d_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_average_pool2d_s8_variants_entry), NULL, NULL, NULL, NULL, ap_average_pool2d_s8_run_entry},
    {AP_ROW(AP_OP_MAX_POOL2D, "MAX_POOL_2D", ap_pool2d_params, ap_pool2d_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_max_pool2d_s8_variants_entry), NULL, NULL, NULL, NULL, ap_max_pool2d_s8_run_entry},
    {AP_ROW(AP_OP_ADD, "ADD", ap_add_params, ap_add_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_add_s8_variants_entry), NULL, NULL, NULL, NULL, ap_add_s8_run_entry},
    {AP_ROW(AP_OP_MUL, "MUL", ap_mul_params, ap_mul_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_mul_s8_variants_entry), NULL, NULL, NULL, NULL, ap_mul_s8_run_entry},
    {AP_ROW(AP_OP_SOFTMAX, "SOFTMAX", ap_softmax_params, ap_softmax_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_softmax_s8_variants_entry), NULL, NULL, NULL, NULL, ap_softmax_run_entry},
    {AP_ROW(AP_OP_RESHAPE, "RESHAPE", ap_reshape_params, ap_reshape_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reshape_variants_entry), NULL, NULL, NULL, NULL, ap_reshape_run_entry},
    {AP_ROW(AP_OP_QUANTIZE, "QUANTIZE", ap_affine_quant_params, ap_affine_quant_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_quantize_s8_variants_entry), NULL, NULL, NULL, NULL, ap_quantize_s8_run_entry},
    {AP_ROW(AP_OP_DEQUANTIZE, "DEQUANTIZE", ap_affine_quant_params, ap_affine_quant_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_dequantize_s8_variants_entry), NULL, NULL, NULL, NULL, ap_dequantize_s8_run_entry},
    {AP_ROW(AP_OP_REQUANTIZE, "REQUANTIZE", ap_requantize_params, ap_requantize_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_requantize_s8_row_variants), NULL, NULL, NULL, NULL, ap_requantize_run_entry},
    {AP_ROW(AP_OP_CONCATENATION, "CONCATENATION", ap_concatenation_params, ap_concatenation_fields),
     0, 1, AP_CONCAT_MAX_INPUTS, 1, 0,
     AP_PLAN(ap_concatenation_s8_variants_entry), NULL, NULL, NULL, NULL, ap_concatenation_run_entry},
    {AP_ROW(AP_OP_PAD, "PAD", ap_pad_params, ap_pad_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_pad_s8_variants_entry), NULL, NULL, NULL, NULL, ap_pad_s8_run_entry},
    {AP_ROW(AP_OP_MEAN, "MEAN", ap_mean_params, ap_mean_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_mean_s8_variants_entry), NULL, NULL, NULL, NULL, ap_mean_s8_run_entry},
    /* inputs: input, weights_feature, weights_time and the optional bias */
    {AP_ROW(AP_OP_SVDF, "SVDF", ap_svdf_params, ap_svdf_fields), 0, 3, 4, 1, 1,
     AP_PLAN(ap_svdf_s8_variants_entry), NULL, NULL, NULL, ap_svdf_state_bytes_entry, ap_svdf_run_entry},
    {AP_ROW(AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, "UNIDIRECTIONAL_SEQUENCE_LSTM", ap_lstm_params,
            ap_lstm_fields), 1, 1, 1, 1, 2,
     AP_PLAN(ap_lstm_s8_variants_entry), AP_PLAN(ap_lstm_s8_prepared_size_entry), AP_PLAN(ap_lstm_constant_counts),
     AP_PLAN(ap_lstm_prepare_entry), ap_lstm_state_bytes_entry, ap_lstm_run_entry},
    {AP_ROW(AP_OP_RELU, "RELU", ap_relu_params, ap_relu_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_relu_s8_variants), NULL, NULL, NULL, NULL, ap_relu_s8_run},
    {AP_ROW(AP_OP_STRIDED_SLICE, "STRIDED_SLICE", ap_strided_slice_params, ap_strided_slice_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_strided_slice_s8_variants), NULL, NULL, NULL, NULL, ap_strided_slice_s8_run},
    {AP_ROW(AP_OP_SUB, "SUB", ap_add_params, ap_add_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_sub_s8_variants_entry), NULL, NULL, NULL, NULL, ap_sub_s8_run_entry},
    {AP_ROW(AP_OP_LEAKY_RELU, "LEAKY_RELU", ap_leaky_relu_params, ap_leaky_relu_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_leaky_relu_s8_variants), NULL, NULL, NULL, NULL, ap_leaky_relu_s8_run},
    {AP_ROW(AP_OP_TRANSPOSE, "TRANSPOSE", ap_transpose_params, ap_transpose_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_transpose_s8_variants), NULL, NULL, NULL, NULL, ap_transpose_s8_run},
    {AP_ROW(AP_OP_LOGISTIC, "LOGISTIC", ap_logistic_params, ap_logistic_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_logistic_s8_variants), NULL, NULL, NULL, NULL, ap_logistic_s8_run},
    {AP_ROW(AP_OP_TANH, "TANH", ap_logistic_params, ap_logistic_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_tanh_s8_variants), NULL, NULL, NULL, NULL, ap_tanh_s8_run},
    {AP_ROW(AP_OP_HARD_SWISH, "HARD_SWISH", ap_hard_swish_params, ap_hard_swish_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_hard_swish_s8_variants), NULL, NULL, NULL, NULL, ap_hard_swish_s8_run},
    {AP_ROW(AP_OP_TRANSPOSE_CONV, "TRANSPOSE_CONV", ap_transpose_conv_params, ap_transpose_conv_fields), 1, 1, 1, 1,
     0, AP_PLAN(ap_transpose_conv_s8_variants), AP_PLAN(ap_transpose_conv_s8_prepared_size),
     AP_PLAN(ap_transpose_conv_s8_constant_counts), AP_PLAN(ap_transpose_conv_s8_prepare), NULL,
     ap_transpose_conv_s8_run},
    {AP_ROW(AP_OP_MAXIMUM, "MAXIMUM", ap_minmax_params, ap_minmax_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_maximum_s8_variants), NULL, NULL, NULL, NULL, ap_maximum_s8_run},
    {AP_ROW(AP_OP_MINIMUM, "MINIMUM", ap_minmax_params, ap_minmax_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_minimum_s8_variants), NULL, NULL, NULL, NULL, ap_minimum_s8_run},
    {AP_ROW(AP_OP_ABS, "ABS", ap_abs_params, ap_abs_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_abs_s8_variants), NULL, NULL, NULL, NULL, ap_abs_s8_run},
    {AP_ROW(AP_OP_RESIZE_NEAREST_NEIGHBOR, "RESIZE_NEAREST_NEIGHBOR", ap_resize_nearest_params,
            ap_resize_nearest_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_resize_nearest_s8_variants), NULL, NULL, NULL, NULL, ap_resize_nearest_s8_run},
    {AP_ROW(AP_OP_RESIZE_BILINEAR, "RESIZE_BILINEAR", ap_resize_bilinear_params, ap_resize_bilinear_fields), 0, 1, 1,
     1, 0, AP_PLAN(ap_resize_bilinear_s8_variants), NULL, NULL, NULL, NULL, ap_resize_bilinear_s8_run},
    {AP_ROW(AP_OP_BATCH_TO_SPACE_ND, "BATCH_TO_SPACE_ND", ap_batch_space_params, ap_batch_space_fields), 0, 1,
     1, 1, 0, AP_PLAN(ap_batch_to_space_s8_variants), NULL, NULL, NULL, NULL, ap_batch_to_space_s8_run},
    {AP_ROW(AP_OP_SPACE_TO_BATCH_ND, "SPACE_TO_BATCH_ND", ap_batch_space_params, ap_batch_space_fields), 0, 1,
     1, 1, 0, AP_PLAN(ap_space_to_batch_s8_variants), NULL, NULL, NULL, NULL, ap_space_to_batch_s8_run},
    {AP_ROW(AP_OP_MIRROR_PAD, "MIRROR_PAD", ap_mirror_pad_params, ap_mirror_pad_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_mirror_pad_s8_variants), NULL, NULL, NULL, NULL, ap_mirror_pad_s8_run},
    {AP_ROW(AP_OP_PRELU, "PRELU", ap_prelu_params, ap_prelu_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_prelu_s8_variants), NULL, NULL, NULL, NULL, ap_prelu_s8_run},
    {AP_ROW(AP_OP_SQUARED_DIFFERENCE, "SQUARED_DIFFERENCE", ap_squared_difference_params,
            ap_squared_difference_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_squared_difference_s8_variants), NULL, NULL, NULL, NULL, ap_squared_difference_s8_run},
    {AP_ROW(AP_OP_REDUCE_MAX, "REDUCE_MAX", ap_reduce_params, ap_reduce_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reduce_max_s8_variants), NULL, NULL, NULL, NULL, ap_reduce_max_s8_run},
    {AP_ROW(AP_OP_REDUCE_MIN, "REDUCE_MIN", ap_reduce_params, ap_reduce_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reduce_min_s8_variants), NULL, NULL, NULL, NULL, ap_reduce_min_s8_run},
    {AP_ROW(AP_OP_SUM, "SUM", ap_sum_params, ap_sum_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_sum_s8_variants), NULL, NULL, NULL, NULL, ap_sum_s8_run},
    {AP_ROW(AP_OP_BROADCAST_TO, "BROADCAST_TO", ap_broadcast_to_params, ap_broadcast_to_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_broadcast_to_s8_variants), NULL, NULL, NULL, NULL, ap_broadcast_to_s8_run},
    /* the 16x8 mode: int16 activations, int8 weights (ops.h) */
    {AP_ROW_S16X8(AP_OP_CONV2D, "CONV_2D", ap_conv2d_s16_params, ap_conv2d_s16_fields), 1, 1, 1, 1, 0,
     AP_PLAN(ap_conv2d_s16_variants), AP_PLAN(ap_conv2d_s16_prepared_size), AP_PLAN(ap_conv2d_s16_constant_counts),
     AP_PLAN(ap_conv2d_s16_prepare), NULL, ap_conv2d_s16_run},
    {AP_ROW_S16X8(AP_OP_DEPTHWISE_CONV2D, "DEPTHWISE_CONV_2D", ap_depthwise_conv2d_s16_params,
                  ap_depthwise_conv2d_s16_fields), 1, 1, 1, 1, 0,
     AP_PLAN(ap_depthwise_conv2d_s16_variants), AP_PLAN(ap_depthwise_conv2d_s16_prepared_size),
     AP_PLAN(ap_depthwise_conv2d_s16_constant_counts), AP_PLAN(ap_depthwise_conv2d_s16_prepare), NULL,
     ap_depthwise_conv2d_s16_run},
    {AP_ROW_S16X8(AP_OP_FULLY_CONNECTED, "FULLY_CONNECTED", ap_fully_connected_s16_params,
                  ap_fully_connected_s16_fields), 1, 1, 1, 1, 0,
     AP_PLAN(ap_fully_connected_s16_variants), AP_PLAN(ap_fully_connected_s16_prepared_size),
     AP_PLAN(ap_fully_connected_s16_constant_counts), AP_PLAN(ap_fully_connected_s16_prepare), NULL,
     ap_fully_connected_s16_run},
    {AP_ROW_S16X8(AP_OP_ADD, "ADD", ap_add_params, ap_add_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_add_s16_variants), NULL, NULL, NULL, NULL, ap_add_s16_run},
    {AP_ROW_S16X8(AP_OP_SUB, "SUB", ap_add_params, ap_add_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_sub_s16_variants), NULL, NULL, NULL, NULL, ap_sub_s16_run},
    {AP_ROW_S16X8(AP_OP_PAD, "PAD", ap_pad_params, ap_pad_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_pad_s16_variants), NULL, NULL, NULL, NULL, ap_pad_s16_run},
    {AP_ROW_S16X8(AP_OP_QUANTIZE, "QUANTIZE", ap_affine_quant_params, ap_affine_quant_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_quantize_s16_variants), NULL, NULL, NULL, NULL, ap_quantize_s16_run},
    {AP_ROW_S16X8(AP_OP_DEQUANTIZE, "DEQUANTIZE", ap_affine_quant_params, ap_affine_quant_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_dequantize_s16_variants), NULL, NULL, NULL, NULL, ap_dequantize_s16_run},
    {AP_ROW_S16X8(AP_OP_TRANSPOSE_CONV, "TRANSPOSE_CONV", ap_transpose_conv_params, ap_transpose_conv_fields), 1,
     1, 1, 1, 0, AP_PLAN(ap_transpose_conv_s16_variants), AP_PLAN(ap_transpose_conv_s16_prepared_size),
     AP_PLAN(ap_transpose_conv_s16_constant_counts), AP_PLAN(ap_transpose_conv_s16_prepare), NULL,
     ap_transpose_conv_s16_run},
    /* int16 data movement: the int8 rows' params and variants, int16 copies */
    {AP_ROW_S16X8(AP_OP_RESHAPE, "RESHAPE", ap_reshape_params, ap_reshape_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reshape_variants_entry), NULL, NULL, NULL, NULL, ap_reshape_run_entry},
    {AP_ROW_S16X8(AP_OP_STRIDED_SLICE, "STRIDED_SLICE", ap_strided_slice_params, ap_strided_slice_fields), 0, 1,
     1, 1, 0, AP_PLAN(ap_strided_slice_s8_variants), NULL, NULL, NULL, NULL, ap_strided_slice_s16_run},
    {AP_ROW_S16X8(AP_OP_TRANSPOSE, "TRANSPOSE", ap_transpose_params, ap_transpose_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_transpose_s8_variants), NULL, NULL, NULL, NULL, ap_transpose_s16_run},
    {AP_ROW_S16X8(AP_OP_CONCATENATION, "CONCATENATION", ap_concatenation_params, ap_concatenation_fields), 0, 1,
     AP_CONCAT_MAX_INPUTS, 1, 0, AP_PLAN(ap_concatenation_s16_variants), NULL, NULL, NULL, NULL,
     ap_concatenation_s16_run},
    {AP_ROW_S16X8(AP_OP_LEAKY_RELU, "LEAKY_RELU", ap_leaky_relu_params, ap_leaky_relu_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_leaky_relu_s16_variants), NULL, NULL, NULL, NULL, ap_leaky_relu_s16_run},
    {AP_ROW_S16X8(AP_OP_AVERAGE_POOL2D, "AVERAGE_POOL_2D", ap_pool2d_params, ap_pool2d_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_average_pool2d_s16_variants), NULL, NULL, NULL, NULL, ap_average_pool2d_s16_run},
    {AP_ROW_S16X8(AP_OP_MAX_POOL2D, "MAX_POOL_2D", ap_pool2d_params, ap_pool2d_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_max_pool2d_s16_variants), NULL, NULL, NULL, NULL, ap_max_pool2d_s16_run},
    {AP_ROW_S16X8(AP_OP_MUL, "MUL", ap_mul_params, ap_mul_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_mul_s16_variants), NULL, NULL, NULL, NULL, ap_mul_s16_run},
    {AP_ROW_S16X8(AP_OP_RELU, "RELU", ap_relu_params, ap_relu_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_relu_s16_variants), NULL, NULL, NULL, NULL, ap_relu_s16_run},
    {AP_ROW_S16X8(AP_OP_MEAN, "MEAN", ap_mean_params, ap_mean_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_mean_s16_variants), NULL, NULL, NULL, NULL, ap_mean_s16_run},
    {AP_ROW_S16X8(AP_OP_MAXIMUM, "MAXIMUM", ap_minmax_params, ap_minmax_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_maximum_s16_variants), NULL, NULL, NULL, NULL, ap_maximum_s16_run},
    {AP_ROW_S16X8(AP_OP_MINIMUM, "MINIMUM", ap_minmax_params, ap_minmax_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_minimum_s16_variants), NULL, NULL, NULL, NULL, ap_minimum_s16_run},
    {AP_ROW_S16X8(AP_OP_ABS, "ABS", ap_abs_params, ap_abs_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_abs_s16_variants), NULL, NULL, NULL, NULL, ap_abs_s16_run},
    {AP_ROW_S16X8(AP_OP_RESIZE_NEAREST_NEIGHBOR, "RESIZE_NEAREST_NEIGHBOR", ap_resize_nearest_params,
                  ap_resize_nearest_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_resize_nearest_s8_variants), NULL, NULL, NULL, NULL, ap_resize_nearest_s16_run},
    {AP_ROW_S16X8(AP_OP_BROADCAST_TO, "BROADCAST_TO", ap_broadcast_to_params, ap_broadcast_to_fields), 0, 1, 1,
     1, 0, AP_PLAN(ap_broadcast_to_s8_variants), NULL, NULL, NULL, NULL, ap_broadcast_to_s16_run},
    {AP_ROW_S16X8(AP_OP_SQUARED_DIFFERENCE, "SQUARED_DIFFERENCE", ap_squared_difference_params,
                  ap_squared_difference_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_squared_difference_s16_variants), NULL, NULL, NULL, NULL, ap_squared_difference_s16_run},
    {AP_ROW_S16X8(AP_OP_SUM, "SUM", ap_sum_params, ap_sum_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_sum_s16_variants), NULL, NULL, NULL, NULL, ap_sum_s16_run},
    {AP_ROW_S16X8(AP_OP_SELECT_V2, "SELECT_V2", ap_select_params, ap_select_fields), 0, 3, 3, 1, 0,
     AP_PLAN(ap_select_variants), NULL, NULL, NULL, NULL, ap_select_s16_run},
    {AP_ROW_S16X8(AP_OP_CAST, "CAST", ap_cast_params, ap_cast_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_cast_variants), NULL, NULL, NULL, NULL, ap_cast_s16_run},
    {AP_ROW_S16X8(AP_OP_SOFTMAX, "SOFTMAX", ap_softmax_s16_params, ap_softmax_s16_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_softmax_s16_variants), NULL, NULL, NULL, NULL, ap_softmax_s16_run},
    {AP_ROW_S16X8(AP_OP_LOGISTIC, "LOGISTIC", ap_logistic_s16_params, ap_logistic_s16_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_logistic_s16_variants), NULL, NULL, NULL, NULL, ap_logistic_s16_run},
    {AP_ROW_S16X8(AP_OP_TANH, "TANH", ap_logistic_s16_params, ap_logistic_s16_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_logistic_s16_variants), NULL, NULL, NULL, NULL, ap_tanh_s16_run},
    /* float32: TFLite's float reference kernels (ops.h, float32_weighted.c, float32_ops.c) */
    {AP_ROW_F32(AP_OP_FULLY_CONNECTED, "FULLY_CONNECTED", ap_fully_connected_f32_params,
                ap_fully_connected_f32_fields), 1, 1, 1, 1, 0,
     AP_PLAN(ap_fully_connected_f32_variants), AP_PLAN(ap_fully_connected_f32_prepared_size),
     AP_PLAN(ap_fully_connected_f32_constant_counts), AP_PLAN(ap_fully_connected_f32_prepare), NULL,
     ap_fully_connected_f32_run},
    {AP_ROW_F32(AP_OP_CONV2D, "CONV_2D", ap_conv2d_f32_params, ap_conv2d_f32_fields), 1, 1, 1, 1, 0,
     AP_PLAN(ap_conv2d_f32_variants), AP_PLAN(ap_conv2d_f32_prepared_size), AP_PLAN(ap_conv2d_f32_constant_counts),
     AP_PLAN(ap_conv2d_f32_prepare), NULL, ap_conv2d_f32_run},
    {AP_ROW_F32(AP_OP_DEPTHWISE_CONV2D, "DEPTHWISE_CONV_2D", ap_depthwise_conv2d_f32_params,
                ap_depthwise_conv2d_f32_fields), 1, 1, 1, 1, 0,
     AP_PLAN(ap_depthwise_conv2d_f32_variants), AP_PLAN(ap_depthwise_conv2d_f32_prepared_size),
     AP_PLAN(ap_depthwise_conv2d_f32_constant_counts), AP_PLAN(ap_depthwise_conv2d_f32_prepare), NULL,
     ap_depthwise_conv2d_f32_run},
    {AP_ROW_F32(AP_OP_ADD, "ADD", ap_binary_f32_params, ap_binary_f32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_binary_f32_variants), NULL, NULL, NULL, NULL, ap_add_f32_run},
    {AP_ROW_F32(AP_OP_SUB, "SUB", ap_binary_f32_params, ap_binary_f32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_binary_f32_variants), NULL, NULL, NULL, NULL, ap_sub_f32_run},
    {AP_ROW_F32(AP_OP_MUL, "MUL", ap_binary_f32_params, ap_binary_f32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_binary_f32_variants), NULL, NULL, NULL, NULL, ap_mul_f32_run},
    {AP_ROW_F32(AP_OP_RESHAPE, "RESHAPE", ap_reshape_params, ap_reshape_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reshape_variants_entry), NULL, NULL, NULL, NULL, ap_reshape_run_entry},
    {AP_ROW_F32(AP_OP_LOGISTIC, "LOGISTIC", ap_unary_f32_params, ap_unary_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_unary_f32_variants), NULL, NULL, NULL, NULL, ap_unary_f32_run},
    {AP_ROW_F32(AP_OP_TANH, "TANH", ap_unary_f32_params, ap_unary_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_unary_f32_variants), NULL, NULL, NULL, NULL, ap_unary_f32_run},
    {AP_ROW_F32(AP_OP_RELU, "RELU", ap_unary_f32_params, ap_unary_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_unary_f32_variants), NULL, NULL, NULL, NULL, ap_unary_f32_run},
    {AP_ROW_F32(AP_OP_SOFTMAX, "SOFTMAX", ap_softmax_f32_params, ap_softmax_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_softmax_f32_variants), NULL, NULL, NULL, NULL, ap_softmax_f32_run},
    {AP_ROW_F32(AP_OP_AVERAGE_POOL2D, "AVERAGE_POOL_2D", ap_pool2d_f32_params, ap_pool2d_f32_fields), 0, 1, 1, 1,
     0, AP_PLAN(ap_pool2d_f32_variants), NULL, NULL, NULL, NULL, ap_average_pool2d_f32_run},
    {AP_ROW_F32(AP_OP_MAX_POOL2D, "MAX_POOL_2D", ap_pool2d_f32_params, ap_pool2d_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_pool2d_f32_variants), NULL, NULL, NULL, NULL, ap_max_pool2d_f32_run},
    {AP_ROW_F32(AP_OP_PAD, "PAD", ap_pad_f32_params, ap_pad_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_pad_f32_variants), NULL, NULL, NULL, NULL, ap_pad_f32_run},
    {AP_ROW_F32(AP_OP_CONCATENATION, "CONCATENATION", ap_concatenation_f32_params, ap_concatenation_f32_fields), 0,
     1, AP_CONCAT_MAX_INPUTS, 1, 0,
     AP_PLAN(ap_concatenation_f32_variants), NULL, NULL, NULL, NULL, ap_concatenation_f32_run},
    {AP_ROW_F32(AP_OP_MEAN, "MEAN", ap_mean_f32_params, ap_mean_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_mean_f32_variants), NULL, NULL, NULL, NULL, ap_mean_f32_run},
    {AP_ROW_F32(AP_OP_STRIDED_SLICE, "STRIDED_SLICE", ap_strided_slice_params, ap_strided_slice_fields), 0, 1, 1,
     1, 0, AP_PLAN(ap_strided_slice_f32_variants), NULL, NULL, NULL, NULL, ap_strided_slice_f32_run},
    {AP_ROW_F32(AP_OP_LEAKY_RELU, "LEAKY_RELU", ap_unary_f32_params, ap_unary_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_unary_f32_variants), NULL, NULL, NULL, NULL, ap_unary_f32_run},
    {AP_ROW_F32(AP_OP_HARD_SWISH, "HARD_SWISH", ap_unary_f32_params, ap_unary_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_unary_f32_variants), NULL, NULL, NULL, NULL, ap_unary_f32_run},
    {AP_ROW_F32(AP_OP_TRANSPOSE, "TRANSPOSE", ap_transpose_params, ap_transpose_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_transpose_f32_variants), NULL, NULL, NULL, NULL, ap_transpose_f32_run},
    {AP_ROW_F32(AP_OP_TRANSPOSE_CONV, "TRANSPOSE_CONV", ap_transpose_conv_f32_params, ap_transpose_conv_f32_fields),
     1, 1, 1, 1, 0, AP_PLAN(ap_transpose_conv_f32_variants), AP_PLAN(ap_transpose_conv_f32_prepared_size),
     AP_PLAN(ap_transpose_conv_f32_constant_counts), AP_PLAN(ap_transpose_conv_f32_prepare), NULL,
     ap_transpose_conv_f32_run},
    /* bool and int32 tensors (ops.h): the comparisons write bool whatever the row's types */
    {AP_ROW(AP_OP_EQUAL, "EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_equal_s8_run},
    {AP_ROW(AP_OP_NOT_EQUAL, "NOT_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_not_equal_s8_run},
    {AP_ROW(AP_OP_GREATER, "GREATER", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_greater_s8_run},
    {AP_ROW(AP_OP_GREATER_EQUAL, "GREATER_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_greater_equal_s8_run},
    {AP_ROW(AP_OP_LESS, "LESS", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_less_s8_run},
    {AP_ROW(AP_OP_LESS_EQUAL, "LESS_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_less_equal_s8_run},
    {AP_ROW_F32(AP_OP_EQUAL, "EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_equal_f32_run},
    {AP_ROW_F32(AP_OP_NOT_EQUAL, "NOT_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_not_equal_f32_run},
    {AP_ROW_F32(AP_OP_GREATER, "GREATER", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_greater_f32_run},
    {AP_ROW_F32(AP_OP_GREATER_EQUAL, "GREATER_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_greater_equal_f32_run},
    {AP_ROW_F32(AP_OP_LESS, "LESS", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_less_f32_run},
    {AP_ROW_F32(AP_OP_LESS_EQUAL, "LESS_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_less_equal_f32_run},
    {AP_ROW_S32(AP_OP_EQUAL, "EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_equal_s32_run},
    {AP_ROW_S32(AP_OP_NOT_EQUAL, "NOT_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_not_equal_s32_run},
    {AP_ROW_S32(AP_OP_GREATER, "GREATER", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_greater_s32_run},
    {AP_ROW_S32(AP_OP_GREATER_EQUAL, "GREATER_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_greater_equal_s32_run},
    {AP_ROW_S32(AP_OP_LESS, "LESS", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_less_s32_run},
    {AP_ROW_S32(AP_OP_LESS_EQUAL, "LESS_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_less_equal_s32_run},
    {AP_ROW_BOOL(AP_OP_EQUAL, "EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_equal_bool_run},
    {AP_ROW_BOOL(AP_OP_NOT_EQUAL, "NOT_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_not_equal_bool_run},
    {AP_ROW_BOOL(AP_OP_LOGICAL_AND, "LOGICAL_AND", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_logical_and_run},
    {AP_ROW_BOOL(AP_OP_LOGICAL_OR, "LOGICAL_OR", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_logical_or_run},
    {AP_ROW_BOOL(AP_OP_LOGICAL_NOT, "LOGICAL_NOT", ap_compare_params, ap_compare_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_compare_variants), NULL, NULL, NULL, NULL, ap_logical_not_run},
    {AP_ROW(AP_OP_ARG_MAX, "ARG_MAX", ap_arg_minmax_params, ap_arg_minmax_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_arg_minmax_variants), NULL, NULL, NULL, NULL, ap_arg_max_s8_run},
    {AP_ROW(AP_OP_ARG_MIN, "ARG_MIN", ap_arg_minmax_params, ap_arg_minmax_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_arg_minmax_variants), NULL, NULL, NULL, NULL, ap_arg_min_s8_run},
    {AP_ROW(AP_OP_GATHER, "GATHER", ap_gather_params, ap_gather_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_gather_variants), NULL, NULL, NULL, NULL, ap_gather_s8_run},
    {AP_ROW(AP_OP_SELECT_V2, "SELECT_V2", ap_select_params, ap_select_fields), 0, 3, 3, 1, 0,
     AP_PLAN(ap_select_variants), NULL, NULL, NULL, NULL, ap_select_s8_run},
    {AP_ROW_F32(AP_OP_ARG_MAX, "ARG_MAX", ap_arg_minmax_params, ap_arg_minmax_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_arg_minmax_variants), NULL, NULL, NULL, NULL, ap_arg_max_f32_run},
    {AP_ROW_F32(AP_OP_ARG_MIN, "ARG_MIN", ap_arg_minmax_params, ap_arg_minmax_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_arg_minmax_variants), NULL, NULL, NULL, NULL, ap_arg_min_f32_run},
    {AP_ROW_F32(AP_OP_GATHER, "GATHER", ap_gather_params, ap_gather_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_gather_variants), NULL, NULL, NULL, NULL, ap_gather_f32_run},
    {AP_ROW_F32(AP_OP_SELECT_V2, "SELECT_V2", ap_select_params, ap_select_fields), 0, 3, 3, 1, 0,
     AP_PLAN(ap_select_variants), NULL, NULL, NULL, NULL, ap_select_f32_run},
    {AP_ROW(AP_OP_CAST, "CAST", ap_cast_params, ap_cast_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_cast_variants), NULL, NULL, NULL, NULL, ap_cast_s8_run},
    {AP_ROW_F32(AP_OP_CAST, "CAST", ap_cast_params, ap_cast_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_cast_variants), NULL, NULL, NULL, NULL, ap_cast_f32_run},
    {AP_ROW_S32(AP_OP_CAST, "CAST", ap_cast_params, ap_cast_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_cast_variants), NULL, NULL, NULL, NULL, ap_cast_s32_run},
    {AP_ROW_BOOL(AP_OP_CAST, "CAST", ap_cast_params, ap_cast_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_cast_variants), NULL, NULL, NULL, NULL, ap_cast_bool_run},
    {AP_ROW_F32(AP_OP_ZEROS_LIKE, "ZEROS_LIKE", ap_fill_params, ap_fill_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_fill_variants), NULL, NULL, NULL, NULL, ap_zeros_like_f32_run},
    {AP_ROW_S32(AP_OP_ZEROS_LIKE, "ZEROS_LIKE", ap_fill_params, ap_fill_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_fill_variants), NULL, NULL, NULL, NULL, ap_zeros_like_s32_run},
    {AP_ROW(AP_OP_FILL, "FILL", ap_fill_params, ap_fill_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_fill_variants), NULL, NULL, NULL, NULL, ap_fill_s8_run},
    {AP_ROW_F32(AP_OP_FILL, "FILL", ap_fill_params, ap_fill_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_fill_variants), NULL, NULL, NULL, NULL, ap_fill_f32_run},
    {AP_ROW_S32(AP_OP_FILL, "FILL", ap_fill_params, ap_fill_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_fill_variants), NULL, NULL, NULL, NULL, ap_fill_s32_run},
    {AP_ROW_BOOL(AP_OP_FILL, "FILL", ap_fill_params, ap_fill_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_fill_variants), NULL, NULL, NULL, NULL, ap_fill_bool_run},
    {AP_ROW_S32(AP_OP_SHAPE, "SHAPE", ap_shape_params, ap_shape_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_shape_variants), NULL, NULL, NULL, NULL, ap_shape_run},
    {AP_ROW_F32(AP_OP_FLOOR_DIV, "FLOOR_DIV", ap_floor_params, ap_floor_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_floor_variants), NULL, NULL, NULL, NULL, ap_floor_div_f32_run},
    {AP_ROW_F32(AP_OP_FLOOR_MOD, "FLOOR_MOD", ap_floor_params, ap_floor_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_floor_variants), NULL, NULL, NULL, NULL, ap_floor_mod_f32_run},
    {AP_ROW_F32(AP_OP_ADD_N, "ADD_N", ap_add_n_params, ap_add_n_fields), 0, 2, 16, 1, 0,
     AP_PLAN(ap_add_n_variants), NULL, NULL, NULL, NULL, ap_add_n_f32_run},
    {AP_ROW_S32(AP_OP_FLOOR_DIV, "FLOOR_DIV", ap_floor_params, ap_floor_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_floor_variants), NULL, NULL, NULL, NULL, ap_floor_div_s32_run},
    {AP_ROW_S32(AP_OP_FLOOR_MOD, "FLOOR_MOD", ap_floor_params, ap_floor_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_floor_variants), NULL, NULL, NULL, NULL, ap_floor_mod_s32_run},
    {AP_ROW_S32(AP_OP_ADD_N, "ADD_N", ap_add_n_params, ap_add_n_fields), 0, 2, 16, 1, 0,
     AP_PLAN(ap_add_n_variants), NULL, NULL, NULL, NULL, ap_add_n_s32_run},
    {AP_ROW_F32(AP_OP_EXP, "EXP", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_LOG, "LOG", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_SIN, "SIN", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_COS, "COS", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_SQRT, "SQRT", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_RSQRT, "RSQRT", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_SQUARE, "SQUARE", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_NEG, "NEG", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_ROUND, "ROUND", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_FLOOR, "FLOOR", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_CEIL, "CEIL", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_ELU, "ELU", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_DIV, "DIV", ap_binary_f32_params, ap_binary_f32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_binary_f32_variants), NULL, NULL, NULL, NULL, ap_div_f32_run},
    {AP_ROW(AP_OP_RSQRT, "RSQRT", ap_rsqrt_s8_params, ap_rsqrt_s8_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_rsqrt_s8_variants), NULL, NULL, NULL, NULL, ap_rsqrt_s8_run},
    {AP_ROW(AP_OP_ELU, "ELU", ap_elu_s8_params, ap_elu_s8_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_elu_s8_variants), NULL, NULL, NULL, NULL, ap_elu_s8_run},
    {AP_ROW(AP_OP_DIV, "DIV", ap_div_s8_params, ap_div_s8_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_div_s8_variants), NULL, NULL, NULL, NULL, ap_div_s8_run},
    {AP_ROW_S32(AP_OP_DIV, "DIV", ap_div_s32_params, ap_div_s32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_div_s32_variants), NULL, NULL, NULL, NULL, ap_div_s32_run},
    {AP_ROW_S32(AP_OP_GATHER, "GATHER", ap_gather_params, ap_gather_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_gather_variants), NULL, NULL, NULL, NULL, ap_gather_s32_run},
    {AP_ROW_S32(AP_OP_SELECT_V2, "SELECT_V2", ap_select_params, ap_select_fields), 0, 3, 3, 1, 0,
     AP_PLAN(ap_select_variants), NULL, NULL, NULL, NULL, ap_select_s32_run},
    {AP_ROW_BOOL(AP_OP_GATHER, "GATHER", ap_gather_params, ap_gather_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_gather_variants), NULL, NULL, NULL, NULL, ap_gather_bool_run},
    {AP_ROW_BOOL(AP_OP_SELECT_V2, "SELECT_V2", ap_select_params, ap_select_fields), 0, 3, 3, 1, 0,
     AP_PLAN(ap_select_variants), NULL, NULL, NULL, NULL, ap_select_bool_run},
    {AP_ROW_S32(AP_OP_ARG_MAX, "ARG_MAX", ap_arg_minmax_params, ap_arg_minmax_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_arg_minmax_variants), NULL, NULL, NULL, NULL, ap_arg_max_s32_run},
    {AP_ROW_S32(AP_OP_ARG_MIN, "ARG_MIN", ap_arg_minmax_params, ap_arg_minmax_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_arg_minmax_variants), NULL, NULL, NULL, NULL, ap_arg_min_s32_run},
    {AP_ROW(AP_OP_L2_NORMALIZATION, "L2_NORMALIZATION", ap_l2_norm_params, ap_l2_norm_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_l2_norm_variants), NULL, NULL, NULL, NULL, ap_l2_norm_s8_run},
    {AP_ROW_F32(AP_OP_L2_NORMALIZATION, "L2_NORMALIZATION", ap_l2_norm_params, ap_l2_norm_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_l2_norm_variants), NULL, NULL, NULL, NULL, ap_l2_norm_f32_run},
    {AP_ROW_F32(AP_OP_L2_POOL2D, "L2_POOL_2D", ap_pool2d_f32_params, ap_pool2d_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_l2_pool2d_f32_variants), NULL, NULL, NULL, NULL, ap_l2_pool2d_f32_run},
    {AP_ROW(AP_OP_LOG_SOFTMAX, "LOG_SOFTMAX", ap_log_softmax_params, ap_log_softmax_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_log_softmax_s8_variants), NULL, NULL, NULL, NULL, ap_log_softmax_s8_run},
    {AP_ROW_F32(AP_OP_LOG_SOFTMAX, "LOG_SOFTMAX", ap_log_softmax_params, ap_log_softmax_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_log_softmax_variants), NULL, NULL, NULL, NULL, ap_log_softmax_f32_run},
    {AP_ROW(AP_OP_CUMSUM, "CUMSUM", ap_cumsum_params, ap_cumsum_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_cumsum_s8_variants), NULL, NULL, NULL, NULL, ap_cumsum_s8_run},
    {AP_ROW_F32(AP_OP_CUMSUM, "CUMSUM", ap_cumsum_params, ap_cumsum_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_cumsum_variants), NULL, NULL, NULL, NULL, ap_cumsum_f32_run},
    /* BATCH_MATMUL (batch_matmul.c), GATHER_ND (gather_nd.c), BROADCAST_ARGS (broadcast_args.c) */
    {AP_ROW(AP_OP_BATCH_MATMUL, "BATCH_MATMUL", ap_batch_matmul_params, ap_batch_matmul_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_batch_matmul_s8_variants), NULL, NULL, NULL, NULL, ap_batch_matmul_s8_run},
    {AP_ROW_S16X8(AP_OP_BATCH_MATMUL, "BATCH_MATMUL", ap_batch_matmul_params, ap_batch_matmul_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_batch_matmul_s16_variants), NULL, NULL, NULL, NULL, ap_batch_matmul_s16_run},
    /* float32 SVDF (svdf_f32.c); inputs: input, weights_feature, weights_time and the optional bias */
    {AP_ROW_F32(AP_OP_SVDF, "SVDF", ap_svdf_f32_params, ap_svdf_f32_fields), 0, 3, 4, 1, 1,
     AP_PLAN(ap_svdf_f32_variants), NULL, NULL, NULL, ap_svdf_f32_state_bytes, ap_svdf_f32_run},
    /* float32 LSTM (lstm_f32.c); inputs: input, 4 input weights, 4 recurrent weights, 4 biases */
    {AP_ROW_F32(AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, "UNIDIRECTIONAL_SEQUENCE_LSTM", ap_lstm_f32_params,
                ap_lstm_f32_fields), 0, 13, 13, 1, 2,
     AP_PLAN(ap_lstm_f32_variants), NULL, NULL, NULL, ap_lstm_f32_state_bytes, ap_lstm_f32_run},
    /* 16x8 LSTM (lstm_s16.c); inputs: input, 4 input weights, 4 recurrent weights, 4 int64 biases */
    {AP_ROW_S16X8(AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, "UNIDIRECTIONAL_SEQUENCE_LSTM", ap_lstm_s16_params,
                  ap_lstm_s16_fields), 0, 13, 13, 1, 2,
     AP_PLAN(ap_lstm_s16_variants), NULL, NULL, NULL, ap_lstm_s16_state_bytes, ap_lstm_s16_run},
    {AP_ROW_F32(AP_OP_BATCH_MATMUL, "BATCH_MATMUL", ap_batch_matmul_params, ap_batch_matmul_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_batch_matmul_f32_variants), NULL, NULL, NULL, NULL, ap_batch_matmul_f32_run},
    {AP_ROW(AP_OP_GATHER_ND, "GATHER_ND", ap_gather_nd_params, ap_gather_nd_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_gather_nd_variants), NULL, NULL, NULL, NULL, ap_gather_nd_s8_run},
    {AP_ROW_F32(AP_OP_GATHER_ND, "GATHER_ND", ap_gather_nd_params, ap_gather_nd_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_gather_nd_variants), NULL, NULL, NULL, NULL, ap_gather_nd_f32_run},
    {AP_ROW_S32(AP_OP_GATHER_ND, "GATHER_ND", ap_gather_nd_params, ap_gather_nd_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_gather_nd_variants), NULL, NULL, NULL, NULL, ap_gather_nd_s32_run},
    {AP_ROW_S32(AP_OP_BROADCAST_ARGS, "BROADCAST_ARGS", ap_broadcast_args_params, ap_broadcast_args_fields), 0, 2, 2,
     1, 0, AP_PLAN(ap_broadcast_args_variants), NULL, NULL, NULL, NULL, ap_broadcast_args_run},
    /* REVERSE_V2 (reverse.c): one byte-width-generic kernel, a row per element type */
    {AP_ROW(AP_OP_REVERSE_V2, "REVERSE_V2", ap_reverse_params, ap_reverse_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reverse_variants), NULL, NULL, NULL, NULL, ap_reverse_s8_run},
    {AP_ROW_S16X8(AP_OP_REVERSE_V2, "REVERSE_V2", ap_reverse_params, ap_reverse_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reverse_variants), NULL, NULL, NULL, NULL, ap_reverse_s16_run},
    {AP_ROW_F32(AP_OP_REVERSE_V2, "REVERSE_V2", ap_reverse_params, ap_reverse_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reverse_variants), NULL, NULL, NULL, NULL, ap_reverse_f32_run},
    {AP_ROW_S32(AP_OP_REVERSE_V2, "REVERSE_V2", ap_reverse_params, ap_reverse_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reverse_variants), NULL, NULL, NULL, NULL, ap_reverse_s32_run},
    {AP_ROW_BOOL(AP_OP_REVERSE_V2, "REVERSE_V2", ap_reverse_params, ap_reverse_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reverse_variants), NULL, NULL, NULL, NULL, ap_reverse_bool_run},
    /* REDUCE_ALL (reduce_all.c) */
    {AP_ROW_BOOL(AP_OP_REDUCE_ALL, "REDUCE_ALL", ap_reduce_all_params, ap_reduce_all_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reduce_all_variants), NULL, NULL, NULL, NULL, ap_reduce_all_run},
    /* control flow: the executor jumps; 0 inputs (always) or 1 (the bool condition), no output */
    {AP_ROW(AP_OP_JUMP, "JUMP", ap_jump_params, ap_jump_fields), 0, 0, 1, 0, 0,
     AP_PLAN(ap_jump_variants), NULL, NULL, NULL, NULL, ap_jump_run},
    /* int32 ADD, SUB and MUL (binary_s32.c): DIV int32's params */
    {AP_ROW_S32(AP_OP_ADD, "ADD", ap_binary_s32_params, ap_div_s32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_add_s32_variants), NULL, NULL, NULL, NULL, ap_add_s32_run},
    {AP_ROW_S32(AP_OP_SUB, "SUB", ap_binary_s32_params, ap_div_s32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_sub_s32_variants), NULL, NULL, NULL, NULL, ap_sub_s32_run},
    {AP_ROW_S32(AP_OP_MUL, "MUL", ap_binary_s32_params, ap_div_s32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_mul_s32_variants), NULL, NULL, NULL, NULL, ap_mul_s32_run},
    /* int64 comparisons (compare.c): the values as stored */
    {AP_ROW_S64(AP_OP_EQUAL, "EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_equal_s64_run},
    {AP_ROW_S64(AP_OP_NOT_EQUAL, "NOT_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_not_equal_s64_run},
    {AP_ROW_S64(AP_OP_GREATER, "GREATER", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_greater_s64_run},
    {AP_ROW_S64(AP_OP_GREATER_EQUAL, "GREATER_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_greater_equal_s64_run},
    {AP_ROW_S64(AP_OP_LESS, "LESS", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_less_s64_run},
    {AP_ROW_S64(AP_OP_LESS_EQUAL, "LESS_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_less_equal_s64_run},
    /* int16 comparisons (compare.c): LiteRT's (EQUAL and NOT_EQUAL rescaled, the others as stored) */
    {AP_ROW_S16X8(AP_OP_EQUAL, "EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_equal_s16_run},
    {AP_ROW_S16X8(AP_OP_NOT_EQUAL, "NOT_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_not_equal_s16_run},
    {AP_ROW_S16X8(AP_OP_GREATER, "GREATER", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_greater_s16_run},
    {AP_ROW_S16X8(AP_OP_GREATER_EQUAL, "GREATER_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_greater_equal_s16_run},
    {AP_ROW_S16X8(AP_OP_LESS, "LESS", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_less_s16_run},
    {AP_ROW_S16X8(AP_OP_LESS_EQUAL, "LESS_EQUAL", ap_compare_params, ap_compare_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_compare_wide_variants), NULL, NULL, NULL, NULL, ap_less_equal_s16_run},
    /* the other int64 rows: MAXIMUM and MINIMUM (minmax_s64.c), ZEROS_LIKE (cast_fill.c),
       BROADCAST_TO (elementwise_s8.c), CONCATENATION (float32_shape.c), REVERSE_V2 (reverse.c) */
    {AP_ROW_S64(AP_OP_MAXIMUM, "MAXIMUM", ap_minmax_params, ap_minmax_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_maximum_s64_variants), NULL, NULL, NULL, NULL, ap_maximum_s64_run},
    {AP_ROW_S64(AP_OP_MINIMUM, "MINIMUM", ap_minmax_params, ap_minmax_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_minimum_s64_variants), NULL, NULL, NULL, NULL, ap_minimum_s64_run},
    {AP_ROW_S64(AP_OP_ZEROS_LIKE, "ZEROS_LIKE", ap_fill_params, ap_fill_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_fill_variants), NULL, NULL, NULL, NULL, ap_zeros_like_s64_run},
    {AP_ROW_S64(AP_OP_BROADCAST_TO, "BROADCAST_TO", ap_broadcast_to_params, ap_broadcast_to_fields), 0, 1, 1, 1,
     0, AP_PLAN(ap_broadcast_to_s8_variants), NULL, NULL, NULL, NULL, ap_broadcast_to_s64_run},
    {AP_ROW_S64(AP_OP_CONCATENATION, "CONCATENATION", ap_concatenation_f32_params, ap_concatenation_f32_fields),
     0, 1, AP_CONCAT_MAX_INPUTS, 1, 0, AP_PLAN(ap_concatenation_s64_variants), NULL, NULL, NULL, NULL,
     ap_concatenation_s64_run},
    {AP_ROW_S64(AP_OP_REVERSE_V2, "REVERSE_V2", ap_reverse_params, ap_reverse_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reverse_variants), NULL, NULL, NULL, NULL, ap_reverse_s64_run},
    /* the type audit's rows (arenaplan.ops.tflm_types): byte-moving kernels of other rows, for the
       types TensorFlow Lite Micro's kernels take */
    {AP_ROW_S32(AP_OP_STRIDED_SLICE, "STRIDED_SLICE", ap_strided_slice_params, ap_strided_slice_fields), 0, 1, 1,
     1, 0, AP_PLAN(ap_strided_slice_s8_variants), NULL, NULL, NULL, NULL, ap_strided_slice_s32_run},
    {AP_ROW_BOOL(AP_OP_STRIDED_SLICE, "STRIDED_SLICE", ap_strided_slice_params, ap_strided_slice_fields), 0, 1, 1,
     1, 0, AP_PLAN(ap_strided_slice_s8_variants), NULL, NULL, NULL, NULL, ap_strided_slice_s8_run},
    {AP_ROW_S32(AP_OP_CONCATENATION, "CONCATENATION", ap_concatenation_params, ap_concatenation_fields), 0, 1,
     AP_CONCAT_MAX_INPUTS, 1, 0, AP_PLAN(ap_concatenation_s32_variants), NULL, NULL, NULL, NULL,
     ap_concatenation_s32_run},
    {AP_ROW_BOOL(AP_OP_CONCATENATION, "CONCATENATION", ap_concatenation_params, ap_concatenation_fields), 0, 1,
     AP_CONCAT_MAX_INPUTS, 1, 0, AP_PLAN(ap_concatenation_s16_variants), NULL, NULL, NULL, NULL,
     ap_concatenation_bool_run},
    {AP_ROW_F32(AP_OP_BROADCAST_TO, "BROADCAST_TO", ap_broadcast_to_params, ap_broadcast_to_fields), 0, 1, 1, 1,
     0, AP_PLAN(ap_broadcast_to_s8_variants), NULL, NULL, NULL, NULL, ap_broadcast_to_s32_run},
    {AP_ROW_S32(AP_OP_BROADCAST_TO, "BROADCAST_TO", ap_broadcast_to_params, ap_broadcast_to_fields), 0, 1, 1, 1,
     0, AP_PLAN(ap_broadcast_to_s8_variants), NULL, NULL, NULL, NULL, ap_broadcast_to_s32_run},
    {AP_ROW_BOOL(AP_OP_BROADCAST_TO, "BROADCAST_TO", ap_broadcast_to_params, ap_broadcast_to_fields), 0, 1, 1, 1,
     0, AP_PLAN(ap_broadcast_to_s8_variants), NULL, NULL, NULL, NULL, ap_broadcast_to_s8_run},
    {AP_ROW(AP_OP_ZEROS_LIKE, "ZEROS_LIKE", ap_fill_params, ap_fill_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_fill_variants), NULL, NULL, NULL, NULL, ap_zeros_like_s8_run},
    /* float32 rows of the type audit: ADD's broadcasting binary kernel, EXP's one-element one,
       MEAN's walk */
    {AP_ROW_F32(AP_OP_MAXIMUM, "MAXIMUM", ap_binary_f32_params, ap_binary_f32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_binary_f32_variants), NULL, NULL, NULL, NULL, ap_maximum_f32_run},
    {AP_ROW_F32(AP_OP_MINIMUM, "MINIMUM", ap_binary_f32_params, ap_binary_f32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_binary_f32_variants), NULL, NULL, NULL, NULL, ap_minimum_f32_run},
    {AP_ROW_F32(AP_OP_SQUARED_DIFFERENCE, "SQUARED_DIFFERENCE", ap_binary_f32_params, ap_binary_f32_fields), 0, 2,
     2, 1, 0, AP_PLAN(ap_binary_f32_variants), NULL, NULL, NULL, NULL, ap_squared_difference_f32_run},
    {AP_ROW_F32(AP_OP_PRELU, "PRELU", ap_binary_f32_params, ap_binary_f32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_binary_f32_variants), NULL, NULL, NULL, NULL, ap_prelu_f32_run},
    {AP_ROW_F32(AP_OP_ABS, "ABS", ap_math_f32_params, ap_math_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_math_f32_variants), NULL, NULL, NULL, NULL, ap_math_f32_run},
    {AP_ROW_F32(AP_OP_SUM, "SUM", ap_reduce_f32_params, ap_reduce_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reduce_f32_variants), NULL, NULL, NULL, NULL, ap_reduce_f32_run},
    {AP_ROW_F32(AP_OP_REDUCE_MAX, "REDUCE_MAX", ap_reduce_f32_params, ap_reduce_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reduce_f32_variants), NULL, NULL, NULL, NULL, ap_reduce_f32_run},
    {AP_ROW_F32(AP_OP_REDUCE_MIN, "REDUCE_MIN", ap_reduce_f32_params, ap_reduce_f32_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reduce_f32_variants), NULL, NULL, NULL, NULL, ap_reduce_f32_run},
    /* float32 rows of the int8 rows' copying kernels (four-byte elements) */
    {AP_ROW_F32(AP_OP_BATCH_TO_SPACE_ND, "BATCH_TO_SPACE_ND", ap_batch_space_params, ap_batch_space_fields), 0, 1,
     1, 1, 0, AP_PLAN(ap_batch_to_space_s8_variants), NULL, NULL, NULL, NULL, ap_batch_to_space_f32_run},
    {AP_ROW_F32(AP_OP_SPACE_TO_BATCH_ND, "SPACE_TO_BATCH_ND", ap_batch_space_params, ap_batch_space_fields), 0, 1,
     1, 1, 0, AP_PLAN(ap_space_to_batch_s8_variants), NULL, NULL, NULL, NULL, ap_space_to_batch_f32_run},
    {AP_ROW_F32(AP_OP_MIRROR_PAD, "MIRROR_PAD", ap_mirror_pad_params, ap_mirror_pad_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_mirror_pad_s8_variants), NULL, NULL, NULL, NULL, ap_mirror_pad_f32_run},
    {AP_ROW_F32(AP_OP_RESIZE_NEAREST_NEIGHBOR, "RESIZE_NEAREST_NEIGHBOR", ap_resize_nearest_params,
                ap_resize_nearest_fields), 0, 1, 1, 1, 0, AP_PLAN(ap_resize_nearest_s8_variants), NULL, NULL, NULL,
     NULL, ap_resize_nearest_f32_run},
    /* int32 rows: the int16 PAD's walk, the int32 ADD's broadcasting binary kernel */
    {AP_ROW_S32(AP_OP_PAD, "PAD", ap_pad_params, ap_pad_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_pad_s32_variants), NULL, NULL, NULL, NULL, ap_pad_s32_run},
    {AP_ROW_S32(AP_OP_MAXIMUM, "MAXIMUM", ap_binary_s32_params, ap_div_s32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_maximum_s32_variants), NULL, NULL, NULL, NULL, ap_maximum_s32_run},
    {AP_ROW_S32(AP_OP_MINIMUM, "MINIMUM", ap_binary_s32_params, ap_div_s32_fields), 0, 2, 2, 1, 0,
     AP_PLAN(ap_minimum_s32_variants), NULL, NULL, NULL, NULL, ap_minimum_s32_run},
    {AP_ROW_S32(AP_OP_SQUARED_DIFFERENCE, "SQUARED_DIFFERENCE", ap_binary_s32_params, ap_div_s32_fields), 0, 2, 2,
     1, 0, AP_PLAN(ap_squared_difference_s32_variants), NULL, NULL, NULL, NULL, ap_squared_difference_s32_run},
    /* float32 RESIZE_BILINEAR (resize_s8.c) */
    {AP_ROW_F32(AP_OP_RESIZE_BILINEAR, "RESIZE_BILINEAR", ap_resize_bilinear_f32_params, ap_resize_bilinear_f32_fields),
     0, 1, 1, 1, 0, AP_PLAN(ap_resize_bilinear_f32_variants), NULL, NULL, NULL, NULL, ap_resize_bilinear_f32_run},
    /* int8 ADD_N (arith.c): TensorFlow Lite Micro's, under "tflm" only */
    {AP_ROW(AP_OP_ADD_N, "ADD_N", ap_add_n_s8_params, ap_add_n_s8_fields), 0, 2, 16, 1, 0,
     AP_PLAN(ap_add_n_s8_variants), NULL, NULL, NULL, NULL, ap_add_n_s8_run},
    /* uint8 rows (quantize_u8.c, quantize.c; the int8 rows' byte kernels): TensorFlow Lite
       Micro's uint8 pairs; QUANTIZE int8 -> uint8 is the int8 REQUANTIZE row's */
    {AP_ROW_U8(AP_OP_DEQUANTIZE, "DEQUANTIZE", ap_affine_quant_params, ap_affine_quant_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_dequantize_u8_variants), NULL, NULL, NULL, NULL, ap_dequantize_u8_run},
    {AP_ROW_U8(AP_OP_REQUANTIZE, "REQUANTIZE", ap_requantize_params, ap_requantize_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_requantize_u8_variants), NULL, NULL, NULL, NULL, ap_requantize_run_entry},
    {AP_ROW_U8(AP_OP_BROADCAST_TO, "BROADCAST_TO", ap_broadcast_to_params, ap_broadcast_to_fields), 0, 1, 1, 1,
     0, AP_PLAN(ap_broadcast_to_s8_variants), NULL, NULL, NULL, NULL, ap_broadcast_to_s8_run},
    {AP_ROW_U8(AP_OP_REVERSE_V2, "REVERSE_V2", ap_reverse_params, ap_reverse_fields), 0, 1, 1, 1, 0,
     AP_PLAN(ap_reverse_variants), NULL, NULL, NULL, NULL, ap_reverse_s8_run},
};

enum { AP_OP_TABLE_ROWS = (int)(sizeof(ap_op_table) / sizeof(ap_op_table[0])) };

uint32_t ap_op_def_count(void)
{
    return (uint32_t)AP_OP_TABLE_ROWS;
}

const ap_op_def *ap_op_def_at(uint32_t index)
{
    return index < (uint32_t)AP_OP_TABLE_ROWS ? &ap_op_table[index] : NULL;
}

const ap_op_def *ap_op_find(ap_op op, ap_types types)
{
    /* rows are in code order today: the row at index op first, then a scan */
    if ((unsigned)op < (unsigned)AP_OP_TABLE_ROWS && ap_op_table[op].op == op &&
        ap_op_table[op].types == types) {
        return &ap_op_table[op];
    }
    for (uint32_t i = 0; i < (uint32_t)AP_OP_TABLE_ROWS; i++) {
        if (ap_op_table[i].op == op && ap_op_table[i].types == types) {
            return &ap_op_table[i];
        }
    }
    return NULL;
}
