/*
 * The op table: the one place the op contract is written.
 *
 * One row (ap_op_def) per op and tensor types: the op's code and name, the types it takes,
 * a descriptor of its params struct (every field's name, offset, scalar type and count),
 * whether it has a prepared constant blob, its operand arities, and its kernel entry points
 * with uniform signatures. The executor dispatches through the rows; the Python binding
 * fills params structs from {field: value} dicts by the descriptors and hands the rows to
 * Python (arenaplan._core.ops()); the C export writes params initialisers from the same
 * descriptors. Adding an op is one kernel file and one row.
 *
 * Every entry point takes the instruction set (ap_isa, kernel.h): variants() lists that ISA's
 * variants (each record carries it), prepare() packs the blob for that ISA's code and records
 * it in the blob's header, run() executes that ISA's code (the executor passes each node's
 * variant ISA, never a CPU-wide default) and returns AP_ERR_UNSUPPORTED, naming the ISA and
 * the host's best, when this build or this CPU lacks it.
 */
#ifndef ARENAPLAN_OPS_H
#define ARENAPLAN_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/kernel.h"
#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The tensor types an op table row takes (stable values, append-only).
 */
typedef enum ap_types {
    AP_TYPES_S8 = 0,       /* int8 activations; int8 weights and int32 biases where the op has
                              them (QUANTIZE: float32 in; DEQUANTIZE: float32 out; REQUANTIZE
                              and SOFTMAX: the integer types their params name) */
    AP_TYPES_S16X8 = 1,    /* TFLite's "16x8" mode: int16 activations with zero point 0, int8
                              weights with zero point 0; the biases of CONV_2D,
                              DEPTHWISE_CONV_2D and FULLY_CONNECTED travel to prepare as int64
                              (the model's int64, or int32 widened, see accumulator_bits) */
    AP_TYPES_F32 = 2,      /* float32 activations, weights and biases (TFLite's float kernels) */
    AP_TYPES_BOOL = 3,     /* bool activations (one byte each, 0 or 1) */
    AP_TYPES_S32 = 4,      /* int32 activations (plain integers, no quantisation) */
    AP_TYPES_S64 = 5,      /* int64 activations (plain integers, no quantisation) */
    AP_TYPES_U8 = 6        /* uint8 activations (zero points in [0, 255]): DEQUANTIZE to float32,
                              REQUANTIZE to int8, and the byte moves BROADCAST_TO and REVERSE_V2 */
} ap_types;
/*
 * A row's types name the element type of the data the kernel reads (its first data input);
 * operands whose type the op itself fixes are part of the row's contract and are written in
 * its op code's comment: the comparisons write bool (int8, float32 or int32 in, bool out: a
 * row of AP_TYPES_S8 compares int8 and writes bool), GATHER reads int32 indices, ARG_MAX and
 * ARG_MIN write the int32 or int64 indices their params' output_type names (as SOFTMAX's
 * params name its output type). So (op, types) is one row and one kernel, the executor
 * dispatches on the pair as before, and the coverage table lists each combination once.
 */

/** Op codes of graph nodes (stable values). `params` points to the struct named. */
typedef enum ap_op {
    AP_OP_CONV2D = 0,            /* ap_conv2d_params, prepared blob required */
    AP_OP_DEPTHWISE_CONV2D = 1,  /* ap_depthwise_conv2d_params, prepared blob required */
    AP_OP_FULLY_CONNECTED = 2,   /* ap_fully_connected_params, prepared blob required */
    AP_OP_AVERAGE_POOL2D = 3,    /* ap_pool2d_params */
    AP_OP_MAX_POOL2D = 4,        /* ap_pool2d_params */
    AP_OP_ADD = 5,               /* ap_add_params, two inputs */
    AP_OP_MUL = 6,               /* ap_mul_params, two inputs */
    AP_OP_SOFTMAX = 7,           /* ap_softmax_params, int8 in, int8 or int16 out (output_type) */
    AP_OP_RESHAPE = 8,           /* ap_reshape_params; nothing to do when output aliases input */
    AP_OP_QUANTIZE = 9,          /* ap_affine_quant_params, float32 in, int8 out */
    AP_OP_DEQUANTIZE = 10,       /* ap_affine_quant_params, int8 in, float32 out */
    AP_OP_REQUANTIZE = 11,       /* ap_requantize_params, integer in and out (its types) */
    AP_OP_CONCATENATION = 12,    /* ap_concatenation_params, input_count inputs */
    AP_OP_PAD = 13,              /* ap_pad_params */
    AP_OP_MEAN = 14,             /* ap_mean_params */
    AP_OP_SVDF = 15,             /* ap_svdf_params; inputs: input, weights_feature, weights_time
                                    [, bias]; one state operand (int16 [batches, filters*memory]) */
    AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM = 16,
                                 /* ap_lstm_params, prepared blob required (weights and biases);
                                    one input; two state operands: output state (int8
                                    [batches, cell_size]) then cell state (int16, same shape) */
    AP_OP_RELU = 17,             /* ap_relu_params, int8 in and out */
    AP_OP_SUB = 18,              /* ap_add_params (input1 - input2), two inputs */
    AP_OP_STRIDED_SLICE = 19,    /* ap_strided_slice_params, int8 in and out */
    AP_OP_LEAKY_RELU = 20,       /* ap_leaky_relu_params, int8 in and out */
    AP_OP_TRANSPOSE = 21,        /* ap_transpose_params, int8 in and out */
    AP_OP_LOGISTIC = 22,         /* ap_logistic_params, int8 in and out */
    AP_OP_TANH = 23,             /* ap_logistic_params, int8 in and out */
    AP_OP_HARD_SWISH = 24,       /* ap_hard_swish_params, int8 in and out */
    AP_OP_TRANSPOSE_CONV = 25,   /* ap_transpose_conv_params, prepared blob required; one input
                                    (the data input; output_shape is resolved at plan time) */
    AP_OP_MAXIMUM = 26,          /* ap_minmax_params, two inputs of the row's type, out the same
                                    (rows: int8, int16, int64) */
    AP_OP_MINIMUM = 27,          /* as MAXIMUM */
    AP_OP_ABS = 28,              /* ap_abs_params, int8 in and out */
    AP_OP_RESIZE_NEAREST_NEIGHBOR = 29,
                                 /* ap_resize_nearest_params, int8 in and out (one input: the
                                    size is resolved at plan time) */
    AP_OP_RESIZE_BILINEAR = 30,  /* ap_resize_bilinear_params, int8 in and out (as above) */
    AP_OP_BATCH_TO_SPACE_ND = 31,
                                 /* ap_batch_space_params, int8 in and out (one input: block
                                    shape and crops are resolved at plan time) */
    AP_OP_SPACE_TO_BATCH_ND = 32,/* ap_batch_space_params, int8 in and out (as above, paddings) */
    AP_OP_MIRROR_PAD = 33,       /* ap_mirror_pad_params, int8 in and out (one input: the
                                    paddings are resolved at plan time) */
    AP_OP_PRELU = 34,            /* ap_prelu_params, two int8 inputs (input, alpha), int8 out */
    AP_OP_SQUARED_DIFFERENCE = 35,
                                 /* ap_squared_difference_params, two int8 inputs, int8 out */
    AP_OP_REDUCE_MAX = 36,       /* ap_reduce_params, int8 in and out (one input: the axes are
                                    resolved at plan time) */
    AP_OP_REDUCE_MIN = 37,       /* ap_reduce_params, int8 in and out (as above) */
    AP_OP_SUM = 38,              /* ap_sum_params, int8 in and out (as above) */
    AP_OP_BROADCAST_TO = 39,     /* ap_broadcast_to_params, int8 in and out (one input: the shape
                                    is resolved at plan time) */
    AP_OP_EQUAL = 40,            /* ap_compare_params, two inputs of the row's type, bool out
                                    (rows: int8, int16, float32, int32, int64, bool) */
    AP_OP_NOT_EQUAL = 41,        /* as EQUAL */
    AP_OP_GREATER = 42,          /* ap_compare_params, two inputs, bool out (int8, int16, float32,
                                    int32, int64) */
    AP_OP_GREATER_EQUAL = 43,    /* as GREATER */
    AP_OP_LESS = 44,             /* as GREATER */
    AP_OP_LESS_EQUAL = 45,       /* as GREATER */
    AP_OP_LOGICAL_AND = 46,      /* ap_compare_params (shapes only), two bool inputs, bool out */
    AP_OP_LOGICAL_OR = 47,       /* as LOGICAL_AND */
    AP_OP_LOGICAL_NOT = 48,      /* ap_compare_params (shapes only), one bool input, bool out */
    AP_OP_ARG_MAX = 49,          /* ap_arg_minmax_params, one input of the row's type (the axis
                                    is resolved at plan time), int32 or int64 out (rows: int8,
                                    float32, int32) */
    AP_OP_ARG_MIN = 50,          /* as ARG_MAX */
    AP_OP_GATHER = 51,           /* ap_gather_params, two inputs: params of the row's type,
                                    int32 indices; out the row's type (rows: int8, float32,
                                    int32, bool) */
    AP_OP_SELECT_V2 = 52,        /* ap_select_params, three inputs: a bool condition, then two
                                    of the row's type; out the row's type (as GATHER) */
    AP_OP_CAST = 53,             /* ap_cast_params, one input of the row's type, out the type its
                                    params name */
    AP_OP_ZEROS_LIKE = 54,       /* ap_fill_params, one input of the row's type (not read), out
                                    the same type */
    AP_OP_FILL = 55,             /* ap_fill_params, one input: the value (one element of the
                                    row's type; the dims are resolved at plan time) */
    AP_OP_SHAPE = 56,            /* ap_shape_params, one input of any type (not read); one row,
                                    AP_TYPES_S32: int32 (or int64, output_type) out */
    AP_OP_FLOOR_DIV = 57,        /* ap_floor_params, two inputs of the row's type, out the same */
    AP_OP_FLOOR_MOD = 58,        /* as FLOOR_DIV */
    AP_OP_ADD_N = 59,            /* ap_add_n_params, 2..16 inputs of the row's type, one shape */
    AP_OP_L2_NORMALIZATION = 75, /* ap_l2_norm_params, one input of the row's type (int8: output
                                    scale 1/128, zero point 0), out the same type */
    AP_OP_L2_POOL2D = 76,        /* ap_pool2d_f32_params, float32 in and out */
    AP_OP_LOG_SOFTMAX = 77,      /* ap_log_softmax_params, one input of the row's type (int8:
                                    output scale 16/256, zero point 127), out the same type */
    AP_OP_CUMSUM = 78,           /* ap_cumsum_params, one input of the row's type (the axis is
                                    resolved at plan time), out the same type and shape */
    AP_OP_REVERSE_V2 = 79,       /* ap_reverse_params, one input of the row's type (the axes are
                                    resolved at plan time), out the same type and shape (rows:
                                    int8, int16, float32, int32, int64, bool) */
    AP_OP_REDUCE_ALL = 80,       /* ap_reduce_all_params, one bool input (the axes are resolved at
                                    plan time), bool out; one row, AP_TYPES_BOOL */
    AP_OP_BATCH_MATMUL = 90,     /* ap_batch_matmul_params, two inputs (LHS, RHS) of the row's type
                                    (int8, 16x8: int16 x int16, float32), out the same type */
    AP_OP_GATHER_ND = 91,        /* ap_gather_nd_params, two inputs: params of the row's type, int32
                                    indices; out the row's type (rows: int8, float32, int32) */
    AP_OP_BROADCAST_ARGS = 92,   /* ap_broadcast_args_params, two int32 or int64 shape vectors (the
                                    params' dtype), out the same type; one row, AP_TYPES_S32 */
    AP_OP_EXP = 60,              /* ap_math_f32_params, float32 in and out */
    AP_OP_LOG = 61,              /* as EXP */
    AP_OP_SIN = 62,              /* as EXP */
    AP_OP_COS = 63,              /* as EXP */
    AP_OP_SQRT = 64,             /* as EXP */
    AP_OP_RSQRT = 65,            /* float32: as EXP; int8: ap_rsqrt_s8_params */
    AP_OP_SQUARE = 66,           /* as EXP */
    AP_OP_NEG = 67,              /* as EXP */
    AP_OP_ROUND = 68,            /* as EXP */
    AP_OP_FLOOR = 69,            /* as EXP */
    AP_OP_CEIL = 70,             /* as EXP */
    AP_OP_ELU = 71,              /* float32: as EXP; int8: ap_elu_s8_params */
    AP_OP_DIV = 72,              /* float32: ap_binary_f32_params; int8: ap_div_s8_params; int32:
                                    ap_div_s32_params; two inputs */
    AP_OP_JUMP = 120             /* ap_jump_params: control flow (IF and WHILE inlined), taken by
                                    the executor itself; no input (always) or one bool input (the
                                    condition); its output place is not read or checked */
} ap_op;

/** Scalar types of params fields (stable values, append-only). */
typedef enum ap_field_type {
    AP_FIELD_INT32 = 0,          /* int32_t */
    AP_FIELD_UINT32 = 1,         /* uint32_t */
    AP_FIELD_INT64 = 2,          /* int64_t */
    AP_FIELD_SIZE = 3,           /* size_t */
    AP_FIELD_FLOAT32 = 4,        /* float (finite) */
    AP_FIELD_DTYPE = 5,          /* an ap_dtype value held in an int32_t */
    AP_FIELD_INT32_ARRAY = 6,    /* const int32_t *: a pointer to `length` elements */
    AP_FIELD_FLOAT64_ARRAY = 7,  /* const double *: a pointer to `length` elements */
    AP_FIELD_INT8_ARRAY = 8,     /* const int8_t *: a pointer to `length` elements */
    AP_FIELD_INT16_ARRAY = 9     /* const int16_t *: a pointer to `length` elements */
} ap_field_type;

/** One field of an op's params struct. */
typedef struct ap_param_field {
    const char *name;        /* the C member designator, e.g. "stride_h", "requant.multiplier" */
    size_t offset;           /* offsetof(params struct, name) */
    ap_field_type type;
    uint32_t count;          /* inline elements: 1 a scalar, n > 1 an array type name[n];
                                0 for the pointer types */
    const char *length;      /* pointer types: the integer field that counts the elements */
    const char *per;         /* pointer types: NULL, or a field that, when 0, makes the count 1
                                (requant.per_channel) */
    int32_t optional;        /* pointer types: 1 when NULL is allowed */
} ap_param_field;

/** One node's operands as an entry point receives them (resolved pointers). */
typedef struct ap_op_call {
    const void *params;
    const ap_variant *variant;
    const void *prepared;            /* the prepared blob of a row with has_blob, else NULL */
    const void *const *inputs;       /* input_count pointers */
    uint32_t input_count;
    void *output;
    void *const *state;              /* state_count pointers, read and updated in place */
    uint32_t state_count;
    const ap_scratch *scratch;       /* scratch_count buffers, NULL when there are none */
    uint32_t scratch_count;
} ap_op_call;

/** The variants that apply to `params`, least scratch first (AP_MAX_VARIANTS at most). */
typedef ap_status (*ap_op_variants_fn)(const void *params, ap_isa isa, ap_variant *variants_out,
                                       uint32_t capacity, uint32_t *count_out, ap_error *error_out);
/** Bytes of the prepared constant blob. */
typedef ap_status (*ap_op_prepared_size_fn)(const void *params, ap_isa isa, size_t *bytes_out,
                                            ap_error *error_out);
/** Elements of the filter (int8) and bias (int32) that prepare reads. */
typedef ap_status (*ap_op_constant_counts_fn)(const void *params, size_t *filter_count_out,
                                              size_t *bias_count_out, ap_error *error_out);
/** Fill the prepared blob from the filter and bias (bias may be NULL). */
typedef ap_status (*ap_op_prepare_fn)(const void *params, ap_isa isa, const void *filter,
                                      const void *bias, void *prepared_out, size_t prepared_bytes,
                                      ap_error *error_out);
/** Bytes each of the row's state_count state operands must hold (bytes_out[state_count]). */
typedef ap_status (*ap_op_state_bytes_fn)(const void *params, size_t *bytes_out, ap_error *error_out);
/** Run one node. */
typedef ap_status (*ap_op_run_fn)(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** A row of the op table. */
typedef struct ap_op_def {
    ap_op op;                        /* the builtin op code */
    const char *name;                /* TFLite builtin name ("CONV_2D"), REQUANTIZE for QUANTIZE
                                        between integer types */
    const char *symbol;              /* the ap_op constant's C name ("AP_OP_CONV2D") */
    ap_types types;                  /* the tensor types the row takes */
    const char *params_type;         /* the params struct's C name ("ap_conv2d_params") */
    size_t params_size;              /* sizeof that struct */
    const ap_param_field *fields;    /* every field, in declaration order */
    uint32_t field_count;
    int32_t has_blob;                /* 1: a prepared constant blob is required (weighted op) */
    uint32_t inputs_min, inputs_max; /* input operands */
    uint32_t outputs;                /* output operands (1) */
    uint32_t state_count;            /* state operands */
    ap_op_variants_fn variants;
    ap_op_prepared_size_fn prepared_size;        /* NULL unless has_blob */
    ap_op_constant_counts_fn constant_counts;    /* NULL unless has_blob */
    ap_op_prepare_fn prepare;                    /* NULL unless has_blob */
    ap_op_state_bytes_fn state_bytes;            /* NULL when state_count is 0 */
    ap_op_run_fn run;
} ap_op_def;

/** Rows in the table. */
uint32_t ap_op_def_count(void);

/** Row `index` (< ap_op_def_count()), else NULL. */
const ap_op_def *ap_op_def_at(uint32_t index);

/** The row of (op, types), or NULL when the table has none. */
const ap_op_def *ap_op_find(ap_op op, ap_types types);

/* ---- ops whose kernels are written to the table's signatures -------------------------------- */

/** When an AP_OP_JUMP node jumps (stable values). */
typedef enum ap_jump_when {
    AP_JUMP_ALWAYS = 0,     /* no input: always (the end of an IF's THEN branch, a loop's back edge) */
    AP_JUMP_IF_FALSE = 1    /* one input, a bool of one element: when its byte is 0 (an IF's
                               condition, a WHILE's condition subgraph's result) */
} ap_jump_when;

/**
 * A control node: the executor continues at node `target` instead of the next one when the
 * node jumps (ap_jump_when). A graph with such nodes is the model's subgraph 0 with the
 * subgraphs its IF and WHILE ops run inlined in one flat node list; copies (the RESHAPE
 * row) move a branch's results and a loop's carried values. ap_graph_check requires
 * target <= node_count (node_count ends the run). The node's run entry does nothing: only
 * the executor reads these params.
 */
typedef struct ap_jump_params {
    uint32_t target;      /* node index to continue at, <= the graph's node_count */
    int32_t when;         /* ap_jump_when */
} ap_jump_params;

/** The one variant of JUMP ("direct", no scratch, no MACs); AP_ERR_INVALID_ARGUMENT for a
    `when` outside ap_jump_when. */
ap_status ap_jump_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                           uint32_t *count_out, ap_error *error_out);
/** Nothing to do (the executor takes the jump); checks the params and the variant. */
ap_status ap_jump_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Variant kinds of RELU. */
typedef enum ap_relu_kind {
    AP_RELU_DIRECT = 0,   /* requantise each element; no scratch */
    AP_RELU_TABLE = 1     /* the 256 outputs of every int8 input into a scratch table, then look up */
} ap_relu_kind;

/**
 * int8 RELU, TFLite's QuantizedReluX: out = clamp(output_zero_point +
 * MultiplyByQuantizedMultiplier(in - input_zero_point, output_multiplier, output_shift),
 * activation_min, activation_max), with output_multiplier / output_shift from
 * QuantizeMultiplier(input_scale / output_scale), activation_min = max(-128, output zero
 * point) and activation_max = 127. Every variant may run in place (output over input).
 */
typedef struct ap_relu_params {
    size_t count;                /* elements */
    int32_t input_zero_point;    /* [-128, 127] */
    int32_t output_zero_point;   /* [-128, 127] */
    int32_t output_multiplier;   /* >= 0 */
    int32_t output_shift;        /* [-31, 30] */
    int32_t activation_min;      /* -128 <= activation_min <= activation_max <= 127 */
    int32_t activation_max;
} ap_relu_params;

ap_status ap_relu_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_relu_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Axes of STRIDED_SLICE (TFLite's reference kernel pads every slice to five). */
enum { AP_STRIDED_SLICE_MAX_AXES = 5 };

/** Variant kinds of STRIDED_SLICE. */
typedef enum ap_strided_slice_kind {
    AP_STRIDED_SLICE_COPY = 0   /* gather the slice into the output; no scratch, never in place */
} ap_strided_slice_kind;

/**
 * int8 STRIDED_SLICE, TFLite's reference StridedSlice: output element (i0, .., i4) is input
 * element (begin[a] + i_a * stride[a]) on every axis a. The begin / end masks, negative
 * indices, clamping and shrink_axis_mask are resolved at plan time (the lowering does
 * TFLite's StartForAxis / StopForAxis): begin is the first index read, output_shape the count
 * per axis. A model's rank below five is padded with leading axes of size 1.
 */
typedef struct ap_strided_slice_params {
    int32_t input_shape[AP_STRIDED_SLICE_MAX_AXES];    /* each >= 1 */
    int32_t begin[AP_STRIDED_SLICE_MAX_AXES];          /* first index read, [0, input_shape) */
    int32_t stride[AP_STRIDED_SLICE_MAX_AXES];         /* non-zero; negative walks backwards */
    int32_t output_shape[AP_STRIDED_SLICE_MAX_AXES];   /* >= 1; the last index read,
                                                          begin + (output_shape - 1) * stride,
                                                          also lies in [0, input_shape) */
} ap_strided_slice_params;

ap_status ap_strided_slice_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                       uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_strided_slice_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Variant kinds of the int8 ops that are a function of one int8 value (LEAKY_RELU, LOGISTIC,
    TANH, ...). Every one may run in place (output over input). An op computes its outputs
    either in the kernel (DIRECT and TABLE apply) or, when its params carry the 256 outputs
    computed when the plan was made, by looking them up (LOOKUP alone applies). */
typedef enum ap_unary_s8_kind {
    AP_UNARY_S8_DIRECT = 0,   /* the op's function on every element; no scratch */
    AP_UNARY_S8_TABLE = 1,    /* the 256 outputs of every int8 input into a 256-byte scratch table,
                                 then one lookup per element */
    AP_UNARY_S8_LOOKUP = 2    /* one lookup per element in the table the params carry; no scratch */
} ap_unary_s8_kind;

/**
 * int8 LEAKY_RELU, TFLite's reference QuantizeLeakyRelu: with v = in - input_zero_point,
 * out = clamp(output_zero_point + MultiplyByQuantizedMultiplier(v, identity_multiplier,
 * identity_shift), -128, 127) for v >= 0, and with the alpha multiplier and shift for v < 0.
 * The multipliers are QuantizeMultiplier(input_scale / output_scale) and
 * QuantizeMultiplier(input_scale * alpha / output_scale), the quotients in float32 as
 * LeakyReluPrepare computes them. Variant kinds: ap_unary_s8_kind.
 */
typedef struct ap_leaky_relu_params {
    size_t count;                  /* elements */
    int32_t input_zero_point;      /* [-128, 127] */
    int32_t output_zero_point;     /* [-128, 127] */
    int32_t identity_multiplier;   /* >= 0 */
    int32_t identity_shift;        /* [-31, 30] */
    int32_t alpha_multiplier;      /* >= 0 (alpha >= 0) */
    int32_t alpha_shift;           /* [-31, 30] */
} ap_leaky_relu_params;

ap_status ap_leaky_relu_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out);
ap_status ap_leaky_relu_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 LOGISTIC and TANH under a rounding rule (`reference`, an ap_reference):
 * - AP_REFERENCE_LITERT: LiteRT's reference kernels build a table of the 256 outputs when the
 *   op is prepared, in float32 (dequantise, the function, multiply by 1 / output_scale, round
 *   half away from zero, add the output zero point, clamp); the lowering computes that table
 *   and the params carry it: `table[x + 128]` is the output of input x, table_size 256. The
 *   fixed-point fields below are unused (0). Variant: LOOKUP.
 * - AP_REFERENCE_TFLM: TensorFlow Lite Micro's reference_integer_ops::Logistic / Tanh: with
 *   v = in - input_zero_point, v <= -input_range_radius gives -128 and v >= input_range_radius
 *   127, else the gemmlowp logistic (tanh) of MultiplyByQuantizedMultiplier(v, input_multiplier,
 *   input_left_shift) read as Q4.27, rounded to Q0.8 less 128 (to Q0.7), clamped. That is an
 *   output of scale 1/256 and zero point -128 (1/128 and 0 for TANH). input_multiplier and
 *   input_left_shift are frexp(input_scale * 2^27) (the mantissa times 2^31, exactly: a float32
 *   scale has 24 bits), input_range_radius floor(15 * 2^27 / 2^input_left_shift). table NULL,
 *   table_size 0. Variants: DIRECT and TABLE.
 */
typedef struct ap_logistic_params {
    size_t count;                  /* elements */
    int32_t reference;             /* ap_reference */
    int32_t input_zero_point;      /* [-128, 127] */
    int32_t input_range_radius;    /* tflm: >= 0 */
    int32_t input_multiplier;      /* tflm: [2^30, 2^31 - 1] */
    int32_t input_left_shift;      /* tflm: [0, 31] (at 31 the radius is 0: every input saturates) */
    int32_t table_size;            /* litert: 256; tflm: 0 */
    const int8_t *table;           /* litert: table_size outputs; tflm: NULL */
} ap_logistic_params;

ap_status ap_logistic_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_logistic_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_tanh_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_tanh_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 HARD_SWISH, TFLite's reference_ops::HardSwish (LiteRT's and TensorFlow Lite Micro's
 * alike): with v = in - input_zero_point on the "hires" scale (v * 2^7, int16), x * relu6(x +
 * 3) / 6 in int16 fixed point: the input on the pre-shift output scale (the rounding doubling
 * high multiply by output_multiplier), the "reluish" factor in [0, 1] (the input rescaled by
 * reluish_multiplier and reluish_shift with saturating left shifts, from [-1, 1] to [0, 1]),
 * their product (doubling high multiply rounded toward zero), the rounding right shift by
 * -output_shift, plus output_zero_point, clamped to int8. The multipliers are
 * QuantizeMultiplier of the float32 quotients input_scale / 128 / output_scale and
 * input_scale / 128 / (3 / 32768), each rounded to 16 bits (DownScaleInt32ToInt16Multiplier).
 * Variant kinds: ap_unary_s8_kind (DIRECT and TABLE).
 */
typedef struct ap_hard_swish_params {
    size_t count;                  /* elements */
    int32_t input_zero_point;      /* [-128, 127] */
    int32_t output_zero_point;     /* [-128, 127] */
    int32_t output_multiplier;     /* [0, 32767]: int16 fixed point */
    int32_t output_shift;          /* [-31, 0] */
    int32_t reluish_multiplier;    /* [0, 32767]: int16 fixed point */
    int32_t reluish_shift;         /* [-31, 30] */
} ap_hard_swish_params;

ap_status ap_hard_swish_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out);
ap_status ap_hard_swish_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Axes of TRANSPOSE (a model's rank below five is padded with leading axes of size 1). */
enum { AP_TRANSPOSE_MAX_AXES = 5 };

/** Variant kinds of TRANSPOSE. */
typedef enum ap_transpose_kind {
    AP_TRANSPOSE_COPY = 0   /* gather into the output in its order; no scratch, never in place */
} ap_transpose_kind;

/**
 * int8 TRANSPOSE, TFLite's reference Transpose: output axis a is input axis perm[a], so the
 * output's shape is input_shape[perm[a]] and its element (i0, .., i4) is the input's element
 * with index i_a on axis perm[a]. The bytes are copied (the output takes the input's
 * quantisation, as TFLite's kernel does).
 */
typedef struct ap_transpose_params {
    int32_t input_shape[AP_TRANSPOSE_MAX_AXES];   /* each >= 1 */
    int32_t perm[AP_TRANSPOSE_MAX_AXES];          /* a permutation of 0 .. 4 */
} ap_transpose_params;

ap_status ap_transpose_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, ap_error *error_out);
ap_status ap_transpose_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Variant kinds of TRANSPOSE_CONV (int8 and 16x8). Both give identical outputs. */
typedef enum ap_transpose_conv_kind {
    AP_TRANSPOSE_CONV_GATHER = 0,   /* each output from the inputs that reach it; no scratch */
    AP_TRANSPOSE_CONV_SCATTER = 1   /* TFLite's form: every input pixel adds its products into an
                                       accumulator per output element, one scratch of
                                       batches * output_h * output_w * output_c int32 (int64 where
                                       accumulator_bits is 64), 8-byte aligned */
} ap_transpose_conv_kind;

/**
 * TRANSPOSE_CONV, TFLite's reference_integer_ops::TransposeConv: input pixel (b, iy, ix) adds
 * (input + input_offset) * filter[oc][fy][fx][ic] to output (b, iy * stride_h - pad_h + fy,
 * ix * stride_w - pad_w + fx, oc) where that lies in the output; each output then adds
 * bias[oc] and is requantised:
 * - int8 row (AP_TYPES_S8): the sum wraps as int32, out = clamp(MultiplyByQuantizedMultiplier(
 *   sum, multiplier[oc], shift[oc]) + output_offset, activation_min, activation_max);
 *   accumulator_bits 32; bias int32 (to prepare).
 * - 16x8 row (AP_TYPES_S16X8): input_offset 0, output_offset 0, the sum and multiply as the 16x8
 *   CONV_2D's by accumulator_bits (64: int64 bias, TFLite's int64 multiply; 32: int32 bias,
 *   the int32 sum wraps); bias int64 (to prepare).
 * The output shape is the op's output_shape tensor (a constant); pad_h and pad_w are TFLite's
 * ComputePaddingHeightWidth of the output size. Layouts NHWC in and out, filter OHWI int8
 * (zero point 0). The prepared blob holds the biases (int64) and the filter.
 */
typedef struct ap_transpose_conv_params {
    int32_t batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w;
    int32_t stride_h, stride_w;   /* >= 1 */
    int32_t pad_h, pad_w;         /* [0, filter_h), [0, filter_w) */
    int32_t input_offset;         /* int8: -input zero point, [-127, 128]; 16x8: 0 */
    ap_requant requant;           /* int8: as ap_conv2d_params; 16x8: as ap_conv2d_s16_params */
    int32_t accumulator_bits;     /* int8: 32; 16x8: 64 or 32 */
} ap_transpose_conv_params;

ap_status ap_transpose_conv_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_transpose_conv_s8_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,
                                             ap_error *error_out);
ap_status ap_transpose_conv_s8_constant_counts(const void *params, size_t *filter_count_out,
                                               size_t *bias_count_out, ap_error *error_out);
ap_status ap_transpose_conv_s8_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                       void *prepared_out, size_t prepared_bytes, ap_error *error_out);
ap_status ap_transpose_conv_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_transpose_conv_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                         uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_transpose_conv_s16_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,
                                              ap_error *error_out);
ap_status ap_transpose_conv_s16_constant_counts(const void *params, size_t *filter_count_out,
                                                size_t *bias_count_out, ap_error *error_out);
ap_status ap_transpose_conv_s16_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                        void *prepared_out, size_t prepared_bytes, ap_error *error_out);
ap_status ap_transpose_conv_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Variant kinds of MAXIMUM and MINIMUM. */
typedef enum ap_minmax_kind {
    AP_MINMAX_DIRECT = 0   /* one pass over the broadcast rows; no scratch; in place over an input of
                              the output's shape */
} ap_minmax_kind;

/**
 * int8 MAXIMUM and MINIMUM, TFLite's reference MaximumMinimumBroadcastSlow (LiteRT's and
 * TensorFlow Lite Micro's alike): each output element is the larger (smaller) of its two
 * inputs' raw int8 values, broadcast as ADD broadcasts (shapes right-aligned to four axes,
 * each input axis 1 or the output's). No requantisation: TFLite compares the stored values
 * whatever the tensors' quantisation.
 */
typedef struct ap_minmax_params {
    int32_t input1_shape[4];   /* each >= 1 */
    int32_t input2_shape[4];
    int32_t output_shape[4];   /* the larger of the inputs' on each axis */
} ap_minmax_params;

ap_status ap_maximum_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out);
ap_status ap_maximum_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_minimum_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out);
ap_status ap_minimum_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 ABS, TFLite's AbsEvalQuantized (LiteRT's and TensorFlow Lite Micro's alike): with
 * v = |in - input_zero_point|, out = clamp(output_zero_point + MultiplyByQuantizedMultiplier(v,
 * multiplier, shift), -128, 127), or clamp(output_zero_point + v, -128, 127) without the multiply
 * where `rescale` is 0 (AbsPrepare rescales only where the scales differ; the zero points may
 * differ either way). The multiplier is QuantizeMultiplier of the float32 quotient
 * input_scale / output_scale. Variant kinds: ap_unary_s8_kind (DIRECT and TABLE).
 */
typedef struct ap_abs_params {
    size_t count;                /* elements */
    int32_t input_zero_point;    /* [-128, 127] */
    int32_t output_zero_point;   /* [-128, 127] */
    int32_t rescale;             /* 0 or 1 */
    int32_t multiplier;          /* rescale: >= 0; else 0 */
    int32_t shift;               /* rescale: [-31, 30]; else 0 */
} ap_abs_params;

ap_status ap_abs_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);
ap_status ap_abs_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Variant kinds of RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR. */
typedef enum ap_resize_kind {
    AP_RESIZE_DIRECT = 0,        /* each output pixel from the input; no scratch, never in place */
    AP_RESIZE_COLUMN_TABLE = 1,  /* RESIZE_BILINEAR (int8, float32): each output column's two input
                                    columns (times channels) and weights computed once into one
                                    scratch table of output_w * 16 bytes (int32 x0 * c, x1 * c and
                                    the int8 row's Q10 weights wx0, wx1, or the float32 row's dx
                                    and 1 - dx); the int8 blend in int32 as
                                    wx0 * (a * wy0 + b * wy1) + wx1 * (d * wy0 + e * wy1), which
                                    never overflows (|wy0| + |wy1| <= 2048, likewise x), so it
                                    equals the reference's int64 sum. Offered when input_w *
                                    channels fits int32. Never in place */
    AP_RESIZE_ROW_CACHE = 2      /* int8 RESIZE_BILINEAR: column_table's table, and a second scratch
                                    buffer of two rows of output_w * channels int32 (8 bytes a
                                    value): input rows interpolated across (wx0 * a + wx1 * d),
                                    each computed once while consecutive output rows share it,
                                    then wy0 * h0 + wy1 * h1 an output value (the same int32
                                    sum, in another order). Pays when upscaling. Never in place */
} ap_resize_kind;

/**
 * int8 RESIZE_NEAREST_NEIGHBOR, TFLite's reference ResizeNearestNeighbor (LiteRT's and
 * TensorFlow Lite Micro's alike): output pixel (b, y, x) is input pixel (b, y_index[y],
 * x_index[x]), all channels copied. The indices are GetNearestNeighbor's, computed in float32
 * when the plan is made (align_corners, half_pixel_centers); NHWC in and out.
 */
typedef struct ap_resize_nearest_params {
    int32_t batches, input_h, input_w, channels, output_h, output_w;   /* each >= 1 */
    const int32_t *y_index;   /* output_h values in [0, input_h) */
    const int32_t *x_index;   /* output_w values in [0, input_w) */
} ap_resize_nearest_params;

ap_status ap_resize_nearest_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_resize_nearest_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 RESIZE_BILINEAR, TFLite's reference ResizeBilinearInteger (LiteRT's BUILTIN_REF and
 * TensorFlow Lite Micro's int8 kernel): in Q10 fixed point, output row y reads input rows
 * y0 = max(v / 1024, 0) and y1 = min((v + 1023) / 1024, input_h - 1) with v = y * height_scale_10
 * (+ height_scale_10 / 2 - 512 with half_pixel_centers), columns likewise; the four products of
 * the stored values and their Q10 weights sum in int64, rounded half away from zero by 2^20.
 * The scales are TFLite's ((1024 * in + out / 2) / out, or with align_corners and out > 1
 * (1024 * (in - 1) + (out - 1) / 2) / (out - 1)); every y0 and x0 must lie in the input.
 * Variants "direct" (no scratch), "column_table" and "row_cache" (ap_resize_kind): the same bits.
 */
typedef struct ap_resize_bilinear_params {
    int32_t batches, input_h, input_w, channels, output_h, output_w;   /* each >= 1 */
    int32_t height_scale_10, width_scale_10;                             /* >= 0 */
    int32_t half_pixel_centers;                                          /* 0 or 1 */
} ap_resize_bilinear_params;

ap_status ap_resize_bilinear_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                         uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_resize_bilinear_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * float32 RESIZE_BILINEAR (TFLite's reference ResizeBilinear, NHWC): with s the axis' float32
 * scale, output row y reads v = (y + 0.5f) * s - 0.5f with half_pixel_centers, else y * s,
 * y0 = max((int)floorf(v), 0) and y1 = min((int)ceilf(v), input_h - 1) (y0 at most input_h - 1
 * too, which the scales TFLite forms never pass), columns likewise; the output is
 * in(y0,x0) * (1 - dy) * (1 - dx) + in(y1,x0) * dy * (1 - dx) + in(y0,x1) * (1 - dy) * dx
 * + in(y1,x1) * dy * dx + 0.0f (the reference's rounding offset: -0 sums to +0), dy = v - y0,
 * in float32 in that order. Variants "direct" (no scratch) and "column_table" (ap_resize_kind).
 */
typedef struct ap_resize_bilinear_f32_params {
    int32_t batches, input_h, input_w, channels, output_h, output_w;   /* each >= 1 */
    float height_scale, width_scale;   /* finite, >= 0, each at most 2^24 / its output size */
    int32_t half_pixel_centers;        /* 0 or 1 */
} ap_resize_bilinear_f32_params;

ap_status ap_resize_bilinear_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                          uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_resize_bilinear_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Variant kinds of BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND. */
typedef enum ap_batch_space_kind {
    AP_BATCH_SPACE_COPY = 0   /* gather each output pixel's channels; no scratch, never in place */
} ap_batch_space_kind;

/**
 * int8 BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND over NHWC, TFLite's reference kernels (LiteRT's
 * and TensorFlow Lite Micro's alike), with B = block_h * block_w:
 * - BATCH_TO_SPACE_ND: output pixel (n, h, w) is input pixel ((i * block_w + j) * N + n,
 *   (h + pad_top) / block_h, (w + pad_left) / block_w) with i = (h + pad_top) % block_h and
 *   j = (w + pad_left) % block_w, N the output's batch; pad_top and pad_left are the crops.
 *   input batch = N * B, and every position read lies in the input.
 * - SPACE_TO_BATCH_ND: output pixel (b, h, w) with s = b / input batch reads input pixel
 *   (b % input batch, h * block_h + s / block_w - pad_top, w * block_w + s % block_w - pad_left),
 *   or is pad_value (LiteRT's: the output zero point) where that lies outside the input;
 *   output batch = input batch * B.
 * The bytes are copied (TFLite requires the input and output quantised alike).
 */
typedef struct ap_batch_space_params {
    int32_t input_shape[4];          /* NHWC, each >= 1 */
    int32_t output_shape[4];         /* NHWC, each >= 1; the channels equal the input's */
    int32_t block_h, block_w;        /* >= 1 */
    int32_t pad_top, pad_left;       /* >= 0: the crops (BATCH_TO_SPACE_ND) or paddings before */
    int32_t pad_value;               /* SPACE_TO_BATCH_ND: [-128, 127]; else 0 */
} ap_batch_space_params;

ap_status ap_batch_to_space_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_batch_to_space_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_batch_to_space_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_space_to_batch_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_space_to_batch_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_space_to_batch_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Variant kinds of MIRROR_PAD. */
typedef enum ap_mirror_pad_kind {
    AP_MIRROR_PAD_COPY = 0   /* gather each output element; no scratch, never in place */
} ap_mirror_pad_kind;

/**
 * int8 MIRROR_PAD, TFLite's reference kernel (LiteRT's and TensorFlow Lite Micro's alike): on
 * each axis of n input elements, output index p reads input index p - before inside, and the
 * mirror image outside: before + offset - 1 - p before it, n - 1 - offset - (p - before - n)
 * after it; offset 1 is REFLECT (the edge not repeated), 0 SYMMETRIC (repeated). Paddings lie
 * in [0, n - offset] so every index read lies in the input (TFLite reads outside it beyond
 * that). A model's rank below four is padded with leading axes of size 1.
 */
typedef struct ap_mirror_pad_params {
    int32_t input_shape[4];   /* each >= 1 */
    int32_t pad_before[4];    /* [0, input_shape - offset] */
    int32_t pad_after[4];     /* [0, input_shape - offset] */
    int32_t offset;           /* 1 REFLECT, 0 SYMMETRIC */
} ap_mirror_pad_params;

ap_status ap_mirror_pad_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out);
ap_status ap_mirror_pad_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_mirror_pad_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 PRELU, TFLite's reference BroadcastPrelu4DSlow (LiteRT's and TensorFlow Lite Micro's):
 * alpha broadcast over the input as ADD broadcasts (the output has the input's shape); with
 * v = in + input_offset, out = clamp(output_offset + MultiplyByQuantizedMultiplier(v,
 * multiplier_1, shift_1), -128, 127) for v >= 0, and of v * (alpha + alpha_offset) with
 * multiplier_2 and shift_2 for v < 0. The multipliers are QuantizeMultiplier of
 * input_scale / output_scale and input_scale * alpha_scale / output_scale (LiteRT: in
 * float32; TFLite Micro: in double). Variants: AP_MINMAX_DIRECT's kind ("direct", no scratch,
 * in place over the input).
 */
typedef struct ap_prelu_params {
    int32_t input_shape[4];    /* each >= 1 */
    int32_t alpha_shape[4];    /* each 1 or the input's */
    int32_t output_shape[4];   /* the input's */
    int32_t input_offset;      /* -input zero point, [-127, 128] */
    int32_t alpha_offset;      /* -alpha zero point, [-127, 128] */
    int32_t output_offset;     /* output zero point, [-128, 127] */
    int32_t multiplier_1, shift_1, multiplier_2, shift_2;   /* >= 0; [-31, 30] */
} ap_prelu_params;

ap_status ap_prelu_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out);
ap_status ap_prelu_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 SQUARED_DIFFERENCE, TFLite's reference kernel (LiteRT's and TensorFlow Lite Micro's),
 * broadcast as ADD broadcasts: each input (x + offset) << 7 is rescaled by its multiplier
 * (QuantizeMultiplierSmallerThanOneExp of scale / (2 * the larger input scale), in double),
 * their difference squared in int32 and rescaled by the output multiplier ((2 * the larger
 * scale)^2 / (2^14 * output scale), below one), plus output_offset, clamped to int8. All
 * shifts <= 0. Variants: AP_MINMAX_DIRECT's kind ("direct", no scratch, in place over an input
 * of the output's shape).
 */
typedef struct ap_squared_difference_params {
    int32_t input1_shape[4];
    int32_t input2_shape[4];
    int32_t output_shape[4];
    int32_t input1_offset, input2_offset;   /* -zero points, [-127, 128] */
    int32_t output_offset;                  /* [-128, 127] */
    int32_t input1_multiplier, input1_shift, input2_multiplier, input2_shift;
    int32_t output_multiplier, output_shift;   /* multipliers >= 0, shifts [-31, 0] */
} ap_squared_difference_params;

ap_status ap_squared_difference_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                            uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_squared_difference_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Variant kinds of REDUCE_MAX and REDUCE_MIN. */
typedef enum ap_reduce_kind {
    AP_REDUCE_DIRECT = 0   /* one pass over the input into the output; no scratch, never in place */
} ap_reduce_kind;

/**
 * int8 REDUCE_MAX and REDUCE_MIN, TFLite's reference ReduceGeneric (LiteRT's and TensorFlow Lite
 * Micro's alike): each output element is the largest (smallest) stored value over the input's
 * axes with reduce[a] = 1, the others kept in order (keep_dims changes the output's shape, not
 * its bytes). TFLite requires the input and output quantised alike. A model's rank below four is
 * padded with leading axes of size 1.
 */
typedef struct ap_reduce_params {
    int32_t input_shape[4];   /* each >= 1 */
    int32_t reduce[4];        /* 0 or 1 */
} ap_reduce_params;

ap_status ap_reduce_max_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out);
ap_status ap_reduce_max_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_reduce_min_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out);
ap_status ap_reduce_min_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 SUM, TensorFlow Lite Micro's (QuantizedMeanOrSum with compute_sum): each output element
 * is clamp(output_zero_point + MultiplyByQuantizedMultiplier(s - n * input_zero_point,
 * multiplier, shift), -128, 127), s the sum of the n stored values over the axes with
 * reduce[a] = 1 and multiplier / shift QuantizeMultiplier(input_scale / output_scale) in
 * double. Every such sum fits int32 (the element count an output times 255 is below 2^31).
 * Variant: AP_REDUCE_DIRECT (each output from its input elements, no scratch, never in place).
 */
typedef struct ap_sum_params {
    int32_t input_shape[4];       /* each >= 1 */
    int32_t reduce[4];            /* 0 or 1 */
    int32_t input_zero_point;     /* [-128, 127] */
    int32_t output_zero_point;    /* [-128, 127] */
    int32_t multiplier;           /* >= 0 */
    int32_t shift;                /* [-31, 30] */
} ap_sum_params;

ap_status ap_sum_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);
ap_status ap_sum_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 BROADCAST_TO, TFLite's reference BroadcastTo (LiteRT's and TensorFlow Lite Micro's
 * alike): the input's bytes repeated along every axis where its size is 1 and the output's is
 * not, broadcast as ADD broadcasts (shapes right-aligned to four axes). Variant:
 * AP_MINMAX_DIRECT's kind ("direct", no scratch; in place where the shapes are equal).
 */
typedef struct ap_broadcast_to_params {
    int32_t input_shape[4];    /* each >= 1: 1 or the output's */
    int32_t output_shape[4];   /* each >= 1 */
} ap_broadcast_to_params;

ap_status ap_broadcast_to_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                      uint32_t *count_out, ap_error *error_out);
ap_status ap_broadcast_to_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/* ---- the 16x8 mode (AP_TYPES_S16X8): int16 activations, int8 weights ------------------------ */

/** Variant kinds of the 16x8 CONV_2D (ap_variant.kind). */
typedef enum ap_conv2d_s16_kind {
    AP_CONV2D_S16_DIRECT = 0,   /* no scratch: each output from the input in place */
    AP_CONV2D_S16_IM2COL = 1    /* one scratch of output_w * filter_h * filter_w * input_c int16:
                                   the im2col columns of one output row, gathered once and read
                                   by every output channel */
} ap_conv2d_s16_kind;

/**
 * 16x8 CONV_2D, TFLite's reference_integer_ops::ConvPerChannel for int16 input: every
 * output channel accumulates filter * input (the input zero point is 0) plus its bias, then
 * out = clamp(MultiplyByQuantizedMultiplier(acc, multiplier[oc], shift[oc]), activation_min,
 * activation_max). With accumulator_bits 64 (an int64 bias) acc is int64 and the multiply is
 * TFLite's int64 overload (the multiplier rounded to 16 bits, one rounding shift); with 32 (an
 * int32 bias, or none, as TFLite Micro and LiteRT take it) acc wraps as int32 and the multiply
 * is the int32 one (gemmlowp's two roundings).
 * Shapes as ap_conv2d_params (arenaplan/conv2d.h); layouts NHWC int16 in and out, filter
 * OHWI int8. The prepared blob holds the bias (int64) and the filter.
 */
typedef struct ap_conv2d_s16_params {
    int32_t batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w;
    int32_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
    ap_requant requant;          /* per_channel 0 or 1; output_offset 0; shift in [-31, 7] for
                                    64-bit accumulators, [-31, 30] for 32; activation range
                                    within [-32768, 32767] */
    int32_t accumulator_bits;    /* 64 or 32 */
} ap_conv2d_s16_params;

/** 16x8 DEPTHWISE_CONV_2D (reference_integer_ops::DepthwiseConvPerChannel, int16 input):
    as ap_conv2d_s16_params with depth_multiplier; filter 1HW(C*M) int8; "direct" only. */
typedef struct ap_depthwise_conv2d_s16_params {
    int32_t batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w;
    int32_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
    int32_t depth_multiplier;    /* output_c = input_c * depth_multiplier */
    ap_requant requant;
    int32_t accumulator_bits;
} ap_depthwise_conv2d_s16_params;

/** 16x8 FULLY_CONNECTED (reference_integer_ops::FullyConnected, int16 input): [batches,
    input_depth] int16 times [output_depth, input_depth] int8 (zero point 0) plus the bias, as
    an int64 sum. Requantised by `reference` as the int8 FULLY_CONNECTED is
    (arenaplan/fully_connected.h): AP_REFERENCE_TFLM in fixed point as ap_conv2d_s16_params
    (requant.per_channel: one multiplier or one per output); AP_REFERENCE_LITERT, with
    real_scale, as LiteRT's reference kernel: round half away from zero of (double)acc *
    real_scale[c], saturated, then the clamp. "direct" only. */
typedef struct ap_fully_connected_s16_params {
    int32_t batches, input_depth, output_depth;
    ap_requant requant;
    int32_t accumulator_bits;
    const double *real_scale;    /* NULL, or (per_channel ? output_depth : 1) finite values >= 0 */
    int32_t reference;           /* ap_reference; real_scale must be given for LiteRT, NULL for TFLM */
} ap_fully_connected_s16_params;

ap_status ap_conv2d_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out);
ap_status ap_conv2d_s16_prepared_size(const void *params, ap_isa isa, size_t *bytes_out, ap_error *error_out);
ap_status ap_conv2d_s16_constant_counts(const void *params, size_t *filter_count_out, size_t *bias_count_out,
                                        ap_error *error_out);
ap_status ap_conv2d_s16_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                void *prepared_out, size_t prepared_bytes, ap_error *error_out);
ap_status ap_conv2d_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_depthwise_conv2d_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                           uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_depthwise_conv2d_s16_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,
                                                ap_error *error_out);
ap_status ap_depthwise_conv2d_s16_constant_counts(const void *params, size_t *filter_count_out,
                                                  size_t *bias_count_out, ap_error *error_out);
ap_status ap_depthwise_conv2d_s16_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                          void *prepared_out, size_t prepared_bytes, ap_error *error_out);
ap_status ap_depthwise_conv2d_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_fully_connected_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                          uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_fully_connected_s16_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,
                                               ap_error *error_out);
ap_status ap_fully_connected_s16_constant_counts(const void *params, size_t *filter_count_out,
                                                 size_t *bias_count_out, ap_error *error_out);
ap_status ap_fully_connected_s16_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                         void *prepared_out, size_t prepared_bytes, ap_error *error_out);
ap_status ap_fully_connected_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * 16x8 ADD and SUB (ap_add_params, arenaplan/elementwise.h), TFLite's general int16 path
 * (AddOptions / SubOptions pot_scale_int16 false): offsets 0, left_shift 15, each input
 * scaled by its multiplier below one, summed (or input1 - input2), rescaled, clamped to the
 * activation range within [-32768, 32767]. 4-D broadcasting; "direct", in place where an
 * input has the output's shape.
 */
ap_status ap_add_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_add_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_sub_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_sub_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 PAD (ap_pad_params, arenaplan/shape_ops.h; pad_value within [-32768, 32767]). */
ap_status ap_pad_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_pad_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_pad_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_pad_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** QUANTIZE float32 -> int16 and DEQUANTIZE int16 -> float32 (ap_affine_quant_params,
    arenaplan/quantize.h, with zero_point within [-32768, 32767]): TFLite's AffineQuantize
    (the float32 quotient rounded half away from zero, plus the zero point, clamped) and
    Dequantize; "direct". */
ap_status ap_quantize_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, ap_error *error_out);
ap_status ap_quantize_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_dequantize_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                     uint32_t *count_out, ap_error *error_out);
ap_status ap_dequantize_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** The uint8 rows (AP_TYPES_U8). DEQUANTIZE uint8 -> float32 (ap_affine_quant_params with
    zero_point within [0, 255]): TFLite's Dequantize, scale * (q - zero_point) in double, as the
    int8 row; "direct". REQUANTIZE uint8 -> int8 (ap_requantize_params, input_type
    AP_DTYPE_UINT8): ap_requantize_run's TFLite Requantize; the int8 row's params name int8,
    int16 or int32 input (int8 -> uint8 is the int8 row's, output_type AP_DTYPE_UINT8), each row
    refusing the other's input type. BROADCAST_TO and REVERSE_V2 uint8 run the int8 rows' byte
    kernels. */
ap_status ap_dequantize_u8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out);
ap_status ap_dequantize_u8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_requantize_u8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                    uint32_t *count_out, ap_error *error_out);
ap_status ap_requantize_s8_row_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/** int16 STRIDED_SLICE (ap_strided_slice_params; variants as ap_strided_slice_s8_variants, the
    int8 row's, whose copy moves int16 values here), also SPLIT and SPLIT_V as one slice per
    output. The copy takes no quantisation (TFLite's kernels move the values as they are). */
ap_status ap_strided_slice_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_strided_slice_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 TRANSPOSE (ap_transpose_params; variants as ap_transpose_s8_variants). */
ap_status ap_transpose_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 CONCATENATION (ap_concatenation_params, arenaplan/shape_ops.h): a copy, as TFLite's
    int16 kernels are (their Prepare requires zero points 0 and reads no scale); the
    requantisation arrays must be NULL and output_zero_point 0. "direct", never in place. */
ap_status ap_concatenation_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                        uint32_t *count_out, ap_error *error_out);
ap_status ap_concatenation_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_concatenation_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                        uint32_t *count_out, ap_error *error_out);
ap_status ap_concatenation_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_concatenation_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 LEAKY_RELU (ap_leaky_relu_params with zero points in [-32768, 32767]): the int8 row's
    QuantizeLeakyRelu clamped to int16, as TFLite's int16 kernels run it (LiteRT requires zero
    points 0; TensorFlow Lite Micro takes any). "direct" only (ap_unary_s8_kind DIRECT), no
    scratch, may run in place. */
ap_status ap_leaky_relu_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                     uint32_t *count_out, ap_error *error_out);
ap_status ap_leaky_relu_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 AVERAGE_POOL_2D and MAX_POOL_2D (ap_pool2d_params, arenaplan/pooling.h, with the
    activation range within [-32768, 32767] and at most 65,535 taps a window: TFLite's int32
    sum): reference_integer_ops::AveragePool / MaxPool for int16, input and output sharing one
    quantisation. "direct", no scratch, never in place. */
ap_status ap_average_pool2d_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                         uint32_t *count_out, ap_error *error_out);
ap_status ap_average_pool2d_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_max_pool2d_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                     uint32_t *count_out, ap_error *error_out);
ap_status ap_max_pool2d_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** 16x8 MUL (ap_mul_params, arenaplan/elementwise.h), reference_integer_ops::MulElementwise for
    int16: offsets 0 (TFLite requires int16 zero points 0), the int32 product of the inputs
    times output_multiplier (QuantizeMultiplier of scale1 * scale2 / scale_out; shift within
    [-31, 30]), clamped to the activation range within [-32768, 32767]. 4-D broadcasting;
    "direct", in place where an input has the output's shape. */
ap_status ap_mul_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_mul_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 RELU and RELU6 (ap_relu_params with zero points and the activation range within
    [-32768, 32767]): the int8 row's ReluX clamped to [activation_min, activation_max]
    (QuantizedReluX's: max(-32768, output zero point) and 32767, or RELU6's quantised 6).
    "direct" only (AP_RELU_DIRECT), no scratch, may run in place. */
ap_status ap_relu_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out);
ap_status ap_relu_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 MEAN over H and W (ap_mean_params, arenaplan/shape_ops.h, zero points within
    [-32768, 32767], at most 65,535 elements a channel: an int32 sum): the int8 row's
    QuantizedMeanOrSum with the int16 clamp, as LiteRT's and TensorFlow Lite Micro's int16 MEAN
    compute it. Variants as the int8 row's: "direct" and "row_sums" (channels * 4 bytes of
    scratch). */
ap_status ap_mean_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out);
ap_status ap_mean_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
/** int16 MAXIMUM and MINIMUM (ap_minmax_params): the int8 rows' MaximumMinimumBroadcastSlow on the
    stored int16 values (LiteRT's and TensorFlow Lite Micro's alike; no requantisation).
    "direct", in place where an input has the output's shape. */
ap_status ap_maximum_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_maximum_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_minimum_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_minimum_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 ABS (ap_abs_params with zero points 0, as both runtimes' int16 ABS requires): the int8
    row's AbsEvalQuantized clamped to int16. "direct" (ap_unary_s8_kind DIRECT), no scratch, in
    place. */
ap_status ap_abs_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_abs_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 RESIZE_NEAREST_NEIGHBOR (ap_resize_nearest_params; variants as
    ap_resize_nearest_s8_variants) and BROADCAST_TO (ap_broadcast_to_params; variants as
    ap_broadcast_to_s8_variants): the int8 rows' copies moving int16 values (TFLite's kernels copy
    them whatever the quantisation). */
ap_status ap_resize_nearest_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_resize_nearest_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_broadcast_to_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_broadcast_to_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 SQUARED_DIFFERENCE (ap_squared_difference_params with offsets 0), TensorFlow Lite
    Micro's int16 path (LiteRT has none): left shift 0, each input rescaled by its multiplier
    below one (twice the larger input scale), their difference squared in int32, rescaled by the
    output multiplier ((2 * the larger scale)^2 / output scale, which may shift left; the
    product wraps as TFLite's int32 does), clamped to int16. 4-D broadcasting; "direct", in place
    where an input has the output's shape. */
ap_status ap_squared_difference_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                             uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_squared_difference_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int16 SUM (ap_sum_params with zero points in [-32768, 32767] and at most 32,768 elements an
    output, so every int32 sum fits), TensorFlow Lite Micro's QuantizedMeanOrSum with compute_sum
    on int16 values: the int8 row's formula with the int16 clamp. "direct" (AP_REDUCE_DIRECT). */
ap_status ap_sum_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_sum_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** SELECT_V2 of int16 x and y (ap_select_params, variants ap_select_variants; the values copied as
    stored) and CAST from int16 (ap_cast_params, variants ap_cast_variants: to int8 wrapping, int16,
    int32, float32 exactly, bool as != 0), the int8 rows' kernels on two-byte elements. */
ap_status ap_select_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_cast_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Entries of each of the int16 SOFTMAX's two tables (TFLite's LUTSize<int16_t>()). */
enum { AP_SOFTMAX_S16_LUT_SIZE = 513 };

/**
 * int16 SOFTMAX (int16 in and out, the 16x8 row), TFLite's reference_ops::SoftmaxInt16 (LiteRT's
 * and TensorFlow Lite Micro's alike) over the last axis: per row, each difference from the row's
 * maximum is rescaled by MultiplyByQuantizedMultiplier(d, input_multiplier, input_left_shift)
 * (QuantizeMultiplier of input_scale * beta / (10 / 65535), so -65535 stands for -10), moved up by
 * 32767, saturated to int16 and looked up with interpolation in exp_lut (exp on [-10, 0] in
 * Q0.15); the sum of those Q0.15 values is normalised by its leading zeros to [1, 2), looked up in
 * one_over_one_plus_x_lut (1 / (1 + x) on [0, 1]) and each exp times that reciprocal is shifted
 * back, rounded, and clamped to [0, 32767] (an output of scale 1/32768, zero point 0).
 * The lookup of v: index 256 + (v >> 7), then base + ((int16)(next - base) * (v & 127) + 64) >> 7.
 * The tables are TFLite's, computed when the plan is made by the rounding rule: LiteRT's Prepare
 * forms them in double and the multiplier from the float32 product input_scale * beta,
 * TensorFlow Lite Micro's both in float (its product in double); they differ in a few entries.
 * A row whose exps sum to less than 1 (no table TFLite makes gives one) is written as zeros.
 * Variants (ap_softmax_kind): "direct" (each exp looked up twice, no scratch) and "exp_cache"
 * (depth int16 of scratch); neither in place.
 */
typedef struct ap_softmax_s16_params {
    int32_t outer_size;              /* >= 1 */
    int32_t depth;                   /* [1, 65536]: the int32 sum of the row's exps cannot overflow */
    int32_t input_multiplier;        /* >= 0 */
    int32_t input_left_shift;        /* [-31, 15]: 65535 << 15 still fits int32 */
    int32_t lut_size;                /* AP_SOFTMAX_S16_LUT_SIZE */
    const int16_t *exp_lut;          /* lut_size entries */
    const int16_t *one_over_one_plus_x_lut;   /* lut_size entries */
} ap_softmax_s16_params;

ap_status ap_softmax_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_softmax_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int16 LOGISTIC and TANH (int16 in and out, the 16x8 row), TFLite's reference_integer_ops::
 * Logistic / Tanh for int16 (LiteRT's and TensorFlow Lite Micro's alike): v = (x *
 * input_multiplier + r) >> input_left_shift, r half of 2^input_left_shift (0 at shift 0), puts the
 * input on the scale 1 / (3 * 4096); |v| indexes TFLite's 256-entry table of sigmoid(i / 24) in
 * Q0.16, interpolated linearly (LOGISTIC: |v| / 512, the fraction in 9 bits; TANH, as
 * 2 * sigmoid(2x) - 1: |v| / 256, the fraction in 8 bits), saturating past the table, mirrored for
 * v < 0 and shifted back to Q0.15 (an output of scale 1/32768, zero point 0). The params are
 * the kernel's effective ones: where TFLite's Prepare finds a power-of-two input scale of 2^-12
 * (TANH: also 2^-11) it leaves input_multiplier 0 and the kernel takes 3 << shift with no shift;
 * the lowering passes that product. Variant: "direct" (ap_unary_s8_kind DIRECT), no scratch,
 * in place.
 */
typedef struct ap_logistic_s16_params {
    size_t count;                    /* elements */
    int32_t input_multiplier;        /* [1, 65535], at most 32767 where input_left_shift > 0: the
                                        int32 x * multiplier + r of TFLite's kernel never overflows */
    int32_t input_left_shift;        /* [0, 31] */
} ap_logistic_s16_params;

ap_status ap_logistic_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, ap_error *error_out);
ap_status ap_logistic_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_tanh_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
/**
 * 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (lstm_s16.c): int16 input, output and output state (zero
 * points 0), int8 weights (symmetric, one scale each), int64 gate biases, an int16 cell state:
 * TensorFlow Lite Micro's integer LSTM (lstm_eval.h EvalLstm<int16_t, int8_t, int16_t,
 * int64_t>: no peephole, projection, layer norm or CIFG; LiteRT has no int16 LSTM). Per time
 * step and batch row, previous output state h and cell state c, for each gate G (input,
 * forget, cell, output) and cell k:
 *   in  = clamp16(MBQM64(bias[G][k] + sum_i x[i] * Wx[G][k][i], input_multiplier[G], input_shift[G]))
 *   rec = clamp16(MBQM64(sum_j h[j] * Wh[G][k][j], recurrent_multiplier[G], recurrent_shift[G]))
 *   pre = sat16(in + rec)                       (Q3.12: the two FullyConnected, AddElementWise)
 *   i, f, o = LOGISTIC16(pre), g = TANH16(pre)  (reference_integer_ops::Logistic / Tanh, int16,
 *                                                at the power-of-two scale 2^-12: x * 3)
 *   c = sat16(clamp16(MBQM(f * c, forget_multiplier, forget_shift))
 *             + clamp16(MBQM(i * g, input_gate_multiplier, input_gate_shift)))
 *   c = clamp(c, -cell_clip, cell_clip) when cell_clip >= 0 (TensorFlow Lite Micro clips whenever
 *       the float option is > 0, also when its quantised value is 0)
 *   h = clamp16(MBQM(TANH16(c; cell_tanh_multiplier, cell_tanh_shift) * o, hidden_multiplier,
 *                    hidden_shift))
 * MBQM64 is TFLite's int64 MultiplyByQuantizedMultiplier (the multiplier rounded to 16 bits),
 * MBQM its int32 one (two roundings); h is the step's output row and the next step's output
 * state. Inputs: input [batches, time_steps, input_size] (time_major 0) or [time_steps,
 * batches, input_size]; the 4 input weights [cell_size, input_size] int8; the 4 recurrent
 * weights [cell_size, cell_size] int8; the 4 gate biases [cell_size] int64 (read byte-wise: any
 * alignment). States: the output state and the cell state, int16 [batches, cell_size] each, 0
 * before the first run. "direct", no scratch: each cell's gates are made and used at once and
 * the new outputs wait in the step's output row (TensorFlow Lite Micro's four gate buffers of
 * batches x cell_size int16 are not needed). On arm-dsp the dot products take four products at
 * a time in two SMLALD (the weights widened by SXTB16, the inputs paired by PKHBT / PKHTB);
 * the int64 sums are exact, so every ISA gives the same bits.
 */
typedef struct ap_lstm_s16_params {
    int32_t batches, time_steps, input_size, cell_size;   /* each >= 1; sizes <= 65536 */
    int32_t time_major;                                    /* 0 or 1 */
    int32_t input_multiplier[4], input_shift[4];           /* MBQM64: >= 0, shift [-31, 7] */
    int32_t recurrent_multiplier[4], recurrent_shift[4];   /* MBQM64: >= 0, shift [-31, 7] */
    int32_t forget_multiplier, forget_shift;               /* MBQM: >= 0, shift [-31, 30] */
    int32_t input_gate_multiplier, input_gate_shift;
    int32_t hidden_multiplier, hidden_shift;
    int32_t cell_tanh_multiplier, cell_tanh_shift;         /* as ap_logistic_s16_params' input */
    int32_t cell_clip;                                     /* -1: none; else [0, 32767] */
} ap_lstm_s16_params;

ap_status ap_lstm_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out);
/** Bytes of the two states: batches * cell_size * 2 each. */
ap_status ap_lstm_s16_state_bytes(const void *params, size_t *bytes_out, ap_error *error_out);
ap_status ap_lstm_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/* ---- float32 (AP_TYPES_F32): TFLite's float reference kernels ------------------------------ */
/*
 * Portable C, one code for every ISA (each row offers "direct" only, listed for every ISA), and
 * summed in the order of TFLite's reference kernels with no fused multiply-add (the kernel files
 * turn floating-point contraction off), so the products and sums round as LiteRT's do and the
 * outputs equal LiteRT's bit for bit. LOGISTIC, TANH and SOFTMAX call the C library's expf and
 * tanhf as TFLite's std::exp and std::tanh do: equal to LiteRT where both use the same C library;
 * another C library (newlib on a Cortex-M) may round those functions differently in the last
 * bit (docs/coverage.md gives the bounds measured).
 *
 * A fused activation is TFLite's ActivationFunctionWithMinMax: min(max(x, activation_min),
 * activation_max) with std::max / std::min's comparisons (a NaN passes; with no activation the
 * range is [-FLT_MAX, FLT_MAX], so an infinite result becomes +-FLT_MAX as in TFLite).
 */

/** float32 FULLY_CONNECTED (reference_ops::FullyConnected): for each batch b and output o,
    total = sum over d in order of input[b][d] * weights[o][d] (from 0.0f), output =
    activation(total + bias[o]) (bias 0.0f where the model has none, added all the same).
    Prepared blob: a 16-byte header, the weights [output_depth][input_depth] then the biases
    [output_depth], all float32. "direct" only, no scratch. */
typedef struct ap_fully_connected_f32_params {
    int32_t batches, input_depth, output_depth;   /* each >= 1 */
    float activation_min, activation_max;         /* finite, min <= max */
} ap_fully_connected_f32_params;

/** float32 CONV_2D (reference_ops::Conv): per output pixel and channel, the taps summed filter
    row by row, column by column, input channel innermost, skipping taps outside the image; then
    total + bias and the activation. Geometry as ap_conv2d_params (NHWC in and out, filter
    OHWI); prepared blob: header, filter, biases (float32). "direct" only. */
typedef struct ap_conv2d_f32_params {
    int32_t batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w;
    int32_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
    float activation_min, activation_max;
} ap_conv2d_f32_params;

/** float32 DEPTHWISE_CONV_2D (reference_ops::DepthwiseConv): per output pixel, input channel
    and multiplier, the taps summed filter row by row, column by column; filter 1HW(C*M).
    "direct" only. */
typedef struct ap_depthwise_conv2d_f32_params {
    int32_t batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w;
    int32_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
    int32_t depth_multiplier;    /* output_c = input_c * depth_multiplier */
    float activation_min, activation_max;
} ap_depthwise_conv2d_f32_params;

/** float32 TRANSPOSE_CONV (reference_ops::TransposeConv): the output starts at 0.0f; each input
    pixel (row by row, column by column, input channel innermost) adds input * filter to every
    output its taps reach (filter row, column, then output channel); then, per output, the bias
    where the model has one and the activation. Filter OHWI; prepared blob: header, filter,
    biases. "direct", the output being the accumulator (no scratch, not in place). */
typedef struct ap_transpose_conv_f32_params {
    int32_t batches, input_h, input_w, input_c, output_h, output_w, output_c, filter_h, filter_w;
    int32_t stride_h, stride_w, pad_h, pad_w;
    int32_t has_bias;            /* 1: add the blob's biases; 0: none (TFLite adds nothing) */
    float activation_min, activation_max;
} ap_transpose_conv_f32_params;

/** float32 ADD, SUB, MUL and DIV (reference_ops::Add / Sub / Mul / Div and their broadcasting forms):
    output = activation(input1 op input2) with 4-D broadcasting (a dimension of 1 repeats).
    "direct", in place over an input of the output's shape. */
typedef struct ap_binary_f32_params {
    int32_t input1_shape[4];
    int32_t input2_shape[4];
    int32_t output_shape[4];
    float activation_min, activation_max;
} ap_binary_f32_params;

/** The float32 functions of one element (the row's op code says which). */
typedef enum ap_unary_f32_fn {
    AP_UNARY_F32_LOGISTIC = 0,   /* reference_ops::Logistic: 1 above 16.619047, expf(x) below -9,
                                    else 1 / (1 + expf(-x)) */
    AP_UNARY_F32_TANH = 1,       /* reference_ops::Tanh: tanhf(x) */
    AP_UNARY_F32_RELU = 2,       /* reference_ops::Relu: x < 0 ? 0 : x */
    AP_UNARY_F32_RELU6 = 3,      /* reference_ops::Relu6: x > 6 ? 6 : x < 0 ? 0 : x */
    AP_UNARY_F32_RELU_N1_TO_1 = 4, /* reference_ops::Relu1: x > 1 ? 1 : x < -1 ? -1 : x */
    AP_UNARY_F32_LEAKY_RELU = 5,   /* reference_ops::LeakyRelu: x > 0 ? x : x * alpha */
    AP_UNARY_F32_HARD_SWISH = 6    /* reference_ops::HardSwish: x * min(6, max(0, x + 3)) / 6 */
} ap_unary_f32_fn;

/** float32 LOGISTIC, TANH, RELU (RELU, RELU6, RELU_N1_TO_1 by `fn`), LEAKY_RELU and HARD_SWISH:
    "direct", in place. */
typedef struct ap_unary_f32_params {
    size_t count;                /* elements */
    int32_t fn;                  /* ap_unary_f32_fn, of the row's op */
    float alpha;                 /* LEAKY_RELU's slope (finite); 0 for the others */
} ap_unary_f32_params;

/** float32 SOFTMAX (reference_ops::Softmax): per row of `depth`, the maximum, then
    e[c] = expf((x[c] - max) * beta) summed in order, then e[c] / sum. "direct", in place. */
typedef struct ap_softmax_f32_params {
    int32_t outer_size, depth;   /* each >= 1 */
    float beta;
} ap_softmax_f32_params;

/** float32 AVERAGE_POOL_2D and MAX_POOL_2D (reference_ops::AveragePool / MaxPool): the window
    clipped to the image, summed (or its maximum from -FLT_MAX) row by row, the sum divided by
    the count of taps, then the activation. Geometry as ap_pool2d_params. "direct". */
typedef struct ap_pool2d_f32_params {
    int32_t batches, input_h, input_w, channels, output_h, output_w, filter_h, filter_w, stride_h, stride_w,
        pad_h, pad_w;
    float activation_min, activation_max;
} ap_pool2d_f32_params;

/** float32 PAD and PADV2 (reference_ops::Pad): output dimension d = input_shape[d] +
    pad_before[d] + pad_after[d] (every pad >= 0), the padding filled with pad_value (PAD: 0.0f;
    PADV2: its constant). "direct", the output overlapping no input. */
typedef struct ap_pad_f32_params {
    int32_t input_shape[4];
    int32_t pad_before[4];
    int32_t pad_after[4];
    float pad_value;             /* finite */
} ap_pad_f32_params;

/** float32 CONCATENATION (reference_ops::Concatenation): the inputs' slices along `axis` one
    after another; every input has the output's shape but on the axis. "direct", the output
    overlapping no input. */
typedef struct ap_concatenation_f32_params {
    int32_t output_shape[4];
    int32_t axis;                      /* [0, 4) */
    uint32_t input_count;              /* [1, AP_CONCAT_MAX_INPUTS] */
    const int32_t *input_axis_sizes;   /* input_count sizes >= 1 summing to output_shape[axis] */
} ap_concatenation_f32_params;

/** float32 MEAN (reference_ops::Mean): each output the float sum of its inputs, taken in the
    input's order, divided by their count (as float). The input has rank 4 (padded in front);
    `reduce` marks the axes averaged (bit a for axis a); the output holds the other axes in
    order. "direct". */
typedef struct ap_mean_f32_params {
    int32_t input_shape[4];
    int32_t reduce;                    /* a non-empty subset of bits 0-3 */
} ap_mean_f32_params;

/** What the float32 SUM, REDUCE_MAX and REDUCE_MIN row computes (ap_reduce_f32_params.fn). */
typedef enum ap_reduce_f32_fn {
    AP_REDUCE_F32_SUM = 0,   /* from 0.0f, out += in in the input's order */
    AP_REDUCE_F32_MAX = 1,   /* from -FLT_MAX (lowest), out = in > out ? in : out (a NaN is passed over) */
    AP_REDUCE_F32_MIN = 2    /* from FLT_MAX, out = in < out ? in : out */
} ap_reduce_f32_fn;

/** float32 SUM, REDUCE_MAX and REDUCE_MIN (reference_ops::ReduceGeneric, LiteRT's and TensorFlow
    Lite Micro's alike): each output from its start value, the inputs folded in in the input's
    order. MEAN's shapes; "direct". */
typedef struct ap_reduce_f32_params {
    int32_t input_shape[4];
    int32_t reduce;                    /* a non-empty subset of bits 0-3 */
    int32_t fn;                        /* ap_reduce_f32_fn */
} ap_reduce_f32_params;

/** The fused activations of the float32 recurrent rows (TFLite's ActivationFunctionType codes). */
typedef enum ap_rnn_f32_act {
    AP_RNN_F32_ACT_NONE = 0,
    AP_RNN_F32_ACT_RELU = 1,
    AP_RNN_F32_ACT_RELU_N1_TO_1 = 2,   /* TensorFlow Lite Micro's SVDF only (LiteRT's has none) */
    AP_RNN_F32_ACT_RELU6 = 3,
    AP_RNN_F32_ACT_TANH = 4            /* tanhf */
} ap_rnn_f32_act;

/** float32 SVDF (LiteRT's reference_ops::EvalFloatSVDF, TensorFlow Lite Micro's
    EvalFloatSvdfReference). One run: the state [batches, filters * memory] moves left by one
    element; each filter's dot with the input (weights_feature [filters, input_size], summed from
    0.0f in order) goes to its newest state column; each filter's time dot (weights_time
    [filters, memory] with its state row, from 0.0f in order); per unit (units = filters / rank)
    its rank time dots summed in order, from 0.0f then + bias (reference 0, LiteRT) or from the
    bias (reference 1, TensorFlow Lite Micro; no bias: from 0.0f); then the fused activation as
    that runtime applies it. Inputs: input, weights_feature, weights_time, the optional bias
    [units]; one state (the variable tensor, float32, zero before the first run). "direct", no
    scratch (the per-filter time dot of the references' scratch is summed as it is made). */
typedef struct ap_svdf_f32_params {
    int32_t batches, input_size, filters, memory, rank;   /* each >= 1; rank divides filters */
    int32_t activation;   /* ap_rnn_f32_act (RELU_N1_TO_1: reference 1 only) */
    int32_t reference;    /* 0: LiteRT's order and activations; 1: TensorFlow Lite Micro's */
} ap_svdf_f32_params;

ap_status ap_svdf_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out);
/** Bytes of the state: batches * filters * memory * 4. */
ap_status ap_svdf_f32_state_bytes(const void *params, size_t *bytes_out, ap_error *error_out);
ap_status ap_svdf_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** float32 UNIDIRECTIONAL_SEQUENCE_LSTM without peephole, projection, layer norm or CIFG (as
    TensorFlow Lite Micro's float LSTM): per time step and batch row, the four gates (input,
    forget, cell, output) = bias + weights_x . x + weights_h . h, in the rule's order
    (reference 1, TensorFlow Lite Micro: each dot from 0.0f in order, the input's plus the bias
    and the recurrent one each clamped to the finite floats, then added; reference 0, LiteRT:
    from the bias, four-lane dots as its tensor_utils sum them); input, forget and output gates
    LOGISTIC (reference_ops::Logistic), the cell gate tanhf; c = f * c + i * g (reference 1:
    each product clamped to the finite floats), clipped to [-cell_clip, cell_clip] when
    cell_clip > 0; h = o * tanhf(c), written to the output row and the output state. Inputs:
    input, the 4 input weights [cell_size, input_size], the 4 recurrent weights [cell_size,
    cell_size], the 4 biases [cell_size]; states: the output state and the cell state, float32
    [batches, cell_size] each, zero before the first run. "direct", no scratch (each unit's
    gates are made and used at once; the new outputs wait in the output row). */
typedef struct ap_lstm_f32_params {
    int32_t batches, time_steps, input_size, cell_size;   /* each >= 1 */
    int32_t time_major;   /* 1: input [time_steps, batches, input_size]; 0: [batches, time_steps, ...] */
    float cell_clip;      /* >= 0, finite; 0: no clipping */
    int32_t reference;    /* 0: LiteRT's order; 1: TensorFlow Lite Micro's */
} ap_lstm_f32_params;

ap_status ap_lstm_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out);
/** Bytes of the two states: batches * cell_size * 4 each. */
ap_status ap_lstm_f32_state_bytes(const void *params, size_t *bytes_out, ap_error *error_out);
ap_status ap_lstm_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_fully_connected_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                          uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_fully_connected_f32_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,
                                               ap_error *error_out);
ap_status ap_fully_connected_f32_constant_counts(const void *params, size_t *filter_count_out,
                                                 size_t *bias_count_out, ap_error *error_out);
ap_status ap_fully_connected_f32_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                         void *prepared_out, size_t prepared_bytes, ap_error *error_out);
ap_status ap_fully_connected_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_conv2d_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out);
ap_status ap_conv2d_f32_prepared_size(const void *params, ap_isa isa, size_t *bytes_out, ap_error *error_out);
ap_status ap_conv2d_f32_constant_counts(const void *params, size_t *filter_count_out, size_t *bias_count_out,
                                        ap_error *error_out);
ap_status ap_conv2d_f32_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                void *prepared_out, size_t prepared_bytes, ap_error *error_out);
ap_status ap_conv2d_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_depthwise_conv2d_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                           uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_depthwise_conv2d_f32_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,
                                                ap_error *error_out);
ap_status ap_depthwise_conv2d_f32_constant_counts(const void *params, size_t *filter_count_out,
                                                  size_t *bias_count_out, ap_error *error_out);
ap_status ap_depthwise_conv2d_f32_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                          void *prepared_out, size_t prepared_bytes, ap_error *error_out);
ap_status ap_depthwise_conv2d_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_transpose_conv_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                         uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_transpose_conv_f32_prepared_size(const void *params, ap_isa isa, size_t *bytes_out,
                                              ap_error *error_out);
ap_status ap_transpose_conv_f32_constant_counts(const void *params, size_t *filter_count_out,
                                                size_t *bias_count_out, ap_error *error_out);
ap_status ap_transpose_conv_f32_prepare(const void *params, ap_isa isa, const void *filter, const void *bias,
                                        void *prepared_out, size_t prepared_bytes, ap_error *error_out);
ap_status ap_transpose_conv_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_binary_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out);
ap_status ap_add_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_sub_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_mul_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_unary_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                uint32_t *count_out, ap_error *error_out);
ap_status ap_unary_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_softmax_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_softmax_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

ap_status ap_pool2d_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out);
ap_status ap_pad_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);
ap_status ap_pad_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_concatenation_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_concatenation_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_mean_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_mean_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_reduce_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out);
ap_status ap_reduce_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
/** float32 STRIDED_SLICE on ap_strided_slice_params (as the int8 row: begin and counts resolved
    at plan time); "copy", the output overlapping no input. */
ap_status ap_strided_slice_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_strided_slice_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
/** float32 TRANSPOSE on ap_transpose_params (as the int8 row); "direct", not in place. */
ap_status ap_transpose_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, ap_error *error_out);
ap_status ap_transpose_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_average_pool2d_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_max_pool2d_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/* ---- bool and int32 tensors: comparisons, logical ops, ARG_MAX / ARG_MIN, GATHER, SELECT_V2 ---- */

/** Variant kinds of the comparisons, logical ops, ARG_MAX / ARG_MIN, GATHER and SELECT_V2. */
typedef enum ap_index_kind {
    AP_INDEX_DIRECT = 0   /* each output element from its inputs; no scratch */
} ap_index_kind;

/**
 * EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, TFLite's reference comparisons
 * (LiteRT's and TensorFlow Lite Micro's alike), and LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT, with
 * 4-D broadcasting (shapes right-aligned to four axes). The output is bool: one byte, 0 or 1.
 * - int8 row: each value v becomes MultiplyByQuantizedMultiplierSmallerThanOneExp(
 *   (v + offset) << left_shift, multiplier, shift) with its input's offset (minus its zero
 *   point), multiplier and shift (QuantizeMultiplierSmallerThanOneExp of its scale), and the
 *   two results are compared.
 * - int16 row (AP_TYPES_S16X8; LiteRT's kernels, which TensorFlow Lite Micro's differ from): as
 *   the int8 row when left_shift is 8 (LiteRT's EQUAL and NOT_EQUAL: offsets in
 *   [-32767, 32768]), else the values compared as stored (its GREATER, GREATER_EQUAL, LESS and
 *   LESS_EQUAL: every quantisation field 0).
 * - float32, int32, int64 and bool rows: the values compared as stored (the quantisation
 *   fields 0).
 * - LOGICAL_*: bool inputs, a byte is true when it is not 0; LOGICAL_NOT's input2_shape is
 *   its input's.
 * Variant: "direct", no scratch; in place over an input of one byte per element and the
 * output's shape (int8 and bool rows).
 */
typedef struct ap_compare_params {
    int32_t input1_shape[4];     /* each >= 1: 1 or the output's */
    int32_t input2_shape[4];
    int32_t output_shape[4];
    int32_t left_shift;          /* int8: 8; int16: 8 or 0; else 0 */
    int32_t input1_offset;       /* int8: -zero point, [-127, 128] (int16 rescaled: [-32767,
                                    32768]); else 0 */
    int32_t input1_multiplier;   /* int8: >= 0; else 0 */
    int32_t input1_shift;        /* int8: [-31, 0]; else 0 */
    int32_t input2_offset;
    int32_t input2_multiplier;
    int32_t input2_shift;
} ap_compare_params;

ap_status ap_compare_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
/** The variants of a row whose inputs are wider than a byte (int16, float32, int32, int64): never
    in place. */
ap_status ap_compare_wide_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                      uint32_t *count_out, ap_error *error_out);
ap_status ap_equal_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_not_equal_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_equal_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_equal_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_equal_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_not_equal_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_equal_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_equal_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_equal_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_not_equal_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_equal_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_equal_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_equal_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_not_equal_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_equal_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_equal_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_equal_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_not_equal_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_greater_equal_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_less_equal_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_equal_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_not_equal_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_logical_and_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_logical_or_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_logical_not_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * ARG_MAX and ARG_MIN, TFLite's reference ArgMinMax: the input viewed as [outer, axis_size,
 * inner]; each output element [outer, inner] is the index of the first greatest (least) value
 * along the axis (strict comparisons, so ties keep the first; a float32 NaN never replaces
 * the running value), written as int32 or int64 (output_type). int8 values are compared as
 * stored. Variant: "direct", no scratch, not in place.
 */
typedef struct ap_arg_minmax_params {
    int32_t outer;          /* >= 1 */
    int32_t axis_size;      /* >= 1 */
    int32_t inner;          /* >= 1 */
    int32_t output_type;    /* ap_dtype: AP_DTYPE_INT32 or AP_DTYPE_INT64 */
} ap_arg_minmax_params;

ap_status ap_arg_minmax_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out);
ap_status ap_arg_max_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_arg_min_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_arg_max_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_arg_min_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_arg_max_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_arg_min_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * GATHER, TFLite's reference Gather: params viewed as [batches, outer, axis_size, inner],
 * indices (int32) as [batches, coords] (batch_dims > 0: the leading dimensions params and
 * indices share; batches 1 otherwise); the output [batches, outer, coords, inner] copies, for
 * each index of its batch, its `inner` elements. An index outside [0, axis_size) is an error
 * status from the run (TFLite's kernel fails the same way), nothing written. Variant:
 * "direct", no scratch, not in place.
 */
typedef struct ap_gather_params {
    int32_t outer;       /* >= 1: params' dimensions between the batch dimensions and the axis */
    int32_t axis_size;   /* >= 1 */
    int32_t inner;       /* >= 1 */
    int32_t coords;      /* >= 1: the indices' elements in one batch */
    int32_t batches;     /* >= 1: the product of the batch_dims leading dimensions (1 without) */
} ap_gather_params;

ap_status ap_gather_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);
ap_status ap_gather_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_gather_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_gather_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_gather_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * SELECT_V2, TFLite's reference Select with 4-D broadcasting of its three inputs: out =
 * condition ? x : y, the values copied as stored (int8: TFLite copies them whatever the
 * quantisations). Variant: "direct", no scratch; in place over x or y where it has the
 * output's shape.
 */
typedef struct ap_select_params {
    int32_t condition_shape[4];   /* each >= 1: 1 or the output's */
    int32_t x_shape[4];
    int32_t y_shape[4];
    int32_t output_shape[4];
} ap_select_params;

ap_status ap_select_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);
ap_status ap_select_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_select_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_select_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_select_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * CAST, TFLite's Cast (LiteRT's and TensorFlow Lite Micro's alike but for a NaN): each of `count`
 * values of the row's type converted to output_type (int8, int16, int32, float32 or bool):
 * integers wrap to a narrower integer type, integers and bool convert to float32 with round to
 * nearest, float32 to an integer type truncates toward zero and saturates at the type's ends
 * (infinities too), a float32 NaN becomes the type's maximum (nan_saturates 1: LiteRT) or 0
 * (nan_saturates 0: TensorFlow Lite Micro); any value converts to bool as != 0 (a NaN is true),
 * bool to 0 or 1. Quantisation is not read. Variant: "direct", no scratch, not in place.
 */
typedef struct ap_cast_params {
    size_t count;            /* elements */
    int32_t output_type;     /* ap_dtype: INT8, INT16, INT32, FLOAT32 or BOOL */
    int32_t nan_saturates;   /* float32 NaN to an integer: 1 the type's maximum, 0 zero */
} ap_cast_params;

ap_status ap_cast_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                           uint32_t *count_out, ap_error *error_out);
ap_status ap_cast_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_cast_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_cast_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_cast_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * ZEROS_LIKE (`count` zeros of the row's type; the input is not read) and FILL (`count` copies of
 * its one-element value input, the bytes as stored), TFLite's reference kernels. Variant:
 * "direct", no scratch, not in place.
 */
typedef struct ap_fill_params {
    size_t count;            /* output elements, >= 1 */
} ap_fill_params;

ap_status ap_fill_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                           uint32_t *count_out, ap_error *error_out);
ap_status ap_zeros_like_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_zeros_like_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_zeros_like_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_fill_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_fill_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_fill_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_fill_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * SHAPE: the input's dimensions (known when the plan is made, held in the params) written as
 * int32 or int64 (output_type); the input is not read. Variant: "direct", no scratch.
 */
typedef struct ap_shape_params {
    int32_t rank;            /* 0..8: elements of the output */
    int32_t output_type;     /* ap_dtype: AP_DTYPE_INT32 or AP_DTYPE_INT64 */
    int32_t dims[8];         /* the first `rank` are the input's dimensions, each >= 0 */
} ap_shape_params;

ap_status ap_shape_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                            uint32_t *count_out, ap_error *error_out);
ap_status ap_shape_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * FLOOR_DIV and FLOOR_MOD, TFLite's reference FloorDiv / FloorMod with 4-D broadcasting:
 * FLOOR_DIV is floor(double(x) / double(y)) converted back (float32: to float; int32: truncated,
 * INT32_MIN where the quotient leaves int32); FLOOR_MOD is the truncated remainder (float32:
 * fmodf) moved to the divisor's sign. A divisor of 0 (or -0.0) fails the run, as TFLite's kernels
 * fail, but for a float32 FLOOR_MOD, whose fmodf gives NaN; float32 follows IEEE 754 otherwise
 * (inf, NaN). Variant: "direct", no scratch, in place
 * over an input of the output's shape.
 */
typedef struct ap_floor_params {
    int32_t input1_shape[4];     /* each >= 1: 1 or the output's */
    int32_t input2_shape[4];
    int32_t output_shape[4];
} ap_floor_params;

ap_status ap_floor_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                            uint32_t *count_out, ap_error *error_out);
ap_status ap_floor_div_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_floor_div_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_floor_mod_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_floor_mod_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * ADD_N: out[i] = in_0[i] + in_1[i] + ... in input order. float32, by the rounding rule:
 * tflm_loop 1, TensorFlow Lite Micro's loop (0.0 + in_0[i], then each input added); 0, LiteRT's
 * kernel (in_0[i], then each sum clamped to [-FLT_MAX, FLT_MAX] as its Add with no activation
 * clamps: an infinite sum is FLT_MAX there, and a sum of -0.0 terms -0.0). int32: wrapping.
 * Variant: "direct", no scratch, in place over an input.
 */
typedef struct ap_add_n_params {
    size_t count;            /* elements of each input and of the output, >= 1 */
    int32_t tflm_loop;       /* 0 or 1 (float32; int32 rows ignore it) */
} ap_add_n_params;

ap_status ap_add_n_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                            uint32_t *count_out, ap_error *error_out);
ap_status ap_add_n_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_add_n_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 ADD_N (TensorFlow Lite Micro's reference_ops::AddN of int8; LiteRT has none): every input
 * quantised alike; each element's sum starts from the scaled input offset itself (its kernel's
 * x = input_offset) and adds each input's (input_offset + value) << 20 scaled by
 * MultiplyByQuantizedMultiplierSmallerThanOneExp(input_multiplier, input_shift), wrapping in
 * int32; then the output multiplier and shift, output_offset, clamped to int8. "direct", in place.
 */
typedef struct ap_add_n_s8_params {
    size_t count;                 /* elements of each input and of the output, >= 1 */
    int32_t input_offset;         /* -input zero point, in [-127, 128] */
    int32_t output_offset;        /* the output zero point, in [-128, 127] */
    int32_t input_multiplier;     /* >= 0; shifts in [-31, 0] */
    int32_t input_shift;
    int32_t output_multiplier;
    int32_t output_shift;
} ap_add_n_s8_params;

ap_status ap_add_n_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out);
ap_status ap_add_n_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * L2_NORMALIZATION over the last axis (rows: float32, int8). float32: TFLite's reference
 * L2Normalization, each row's squares summed in order, sqrtf, the norm at least 1e-6f, each
 * value divided by it. int8: reference_integer_ops::L2Normalization, the int32 sum of the squared
 * differences from the input zero point, GetInvSqrtQuantizedMultiplierExp's multiplier and
 * shift, the output in 1/128 steps with zero point 0 (the output's quantisation must be that,
 * checked at plan time). Variant: "direct", no scratch, in place (a row is read whole before it
 * is written).
 */
typedef struct ap_l2_norm_params {
    int32_t outer_size;          /* rows, >= 1 */
    int32_t depth;               /* values a row (the last axis), >= 1; int8: at most 33025, so
                                    the sum of squares stays in int32 */
    int32_t input_zero_point;    /* int8: [-128, 127]; float32: 0 */
} ap_l2_norm_params;

ap_status ap_l2_norm_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_l2_norm_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_l2_norm_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * L2_POOL_2D float32 (TFLite's reference L2Pool): per window and channel the squares of the
 * taps inside the input summed in window order, divided by their count, sqrtf, then the fused
 * activation's clamp. Params: ap_pool2d_f32_params (every window must hold a tap). Variant:
 * "direct", no scratch, the output overlapping no input.
 */
ap_status ap_l2_pool2d_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                    uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_l2_pool2d_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * LOG_SOFTMAX over the last axis (rows: float32, int8). float32: TFLite's reference LogSoftmax,
 * x - max - logf(sum of expf(x - max)). int8: TFLite's quantised LogSoftmax (gemmlowp fixed
 * point: exp of the Q5.26 differences summed in Q12.19, its log in Q5.26, the output in 1/16
 * steps with zero point 127). The int8 fields come from PreprocessLogSoftmaxScalingExp (beta 1)
 * and CalculateInputRadius; float32 rows ignore them. Variants: "direct", no scratch, in place
 * (a row is read whole before it is written); int8 also "exp_table" where the tensor holds more
 * than 256 values (1 KiB of scratch, 4-byte aligned: the Q12.19 exp of each of the 256 possible
 * differences from the row maximum, made once a call, so each value costs a lookup instead of an
 * exp; same bits).
 */
typedef struct ap_log_softmax_params {
    int32_t outer_size;               /* rows, >= 1 */
    int32_t depth;                    /* values a row (the last axis), >= 1 */
    int32_t input_multiplier;         /* int8: >= 0 */
    int32_t input_left_shift;         /* int8: [0, 31] */
    int32_t reverse_scaling_divisor;  /* int8: >= 0 */
    int32_t reverse_scaling_shift;    /* int8: the shift applied to the log-sum bound, [-31, 0] */
    int32_t diff_min;                 /* int8: <= 0 */
} ap_log_softmax_params;

ap_status ap_log_softmax_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_log_softmax_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                     uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_log_softmax_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_log_softmax_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * CUMSUM along one axis, the tensor viewed as [outer, axis_size, inner] (rows: float32, int8).
 * exclusive: each output sums the values before it (the first is 0); reverse: summed from the
 * axis' end. float32: TFLite's reference CumSum (a float accumulator from 0.0f, in order). int8:
 * TensorFlow Lite Micro's (LiteRT has no int8 kernel): ADD's rescaling with one input, each
 * value's (x - zero point) << left_shift scaled by the input multiplier, the int32 accumulator
 * starting at the scaled input offset as TFLite Micro's does and wrapping as it does, each sum
 * rescaled to the output. Variant: "direct", no scratch, in place (each value is read before its
 * output is written and never again).
 */
typedef struct ap_cumsum_params {
    int32_t outer;                   /* product of the dimensions before the axis, >= 1 */
    int32_t axis_size;               /* >= 1 */
    int32_t inner;                   /* product of the dimensions after the axis, >= 1 */
    int32_t exclusive;               /* 0 or 1 */
    int32_t reverse;                 /* 0 or 1 */
    int32_t input_offset;            /* int8: -input zero point, [-127, 128] */
    int32_t output_offset;           /* int8: output zero point, [-128, 127] */
    int32_t left_shift;              /* int8: [0, 20] (TFLite: 20) */
    int32_t input_multiplier;        /* int8: >= 0 */
    int32_t input_shift;             /* int8: [-31, 0] */
    int32_t output_multiplier;       /* int8: >= 0 */
    int32_t output_shift;            /* int8: [-31, 0] */
} ap_cumsum_params;

ap_status ap_cumsum_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);
ap_status ap_cumsum_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                uint32_t *count_out, ap_error *error_out);
ap_status ap_cumsum_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_cumsum_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * BATCH_MATMUL, TFLite's reference BatchMatMul (LiteRT's and TensorFlow Lite Micro's kernels
 * alike): out[b][i][j] = sum over k of LHS[b][i][k] * RHS[b][k][j], the batch dimensions (at
 * most three, right-aligned) broadcast where one side has 1. adj_x reads the LHS as stored
 * [k, m], adj_y the RHS as stored [n, k]. Each output sums k = 0, 1, ... in order:
 * - int8 row: (lhs + lhs_offset) * (rhs + rhs_offset) in int32 (wrapping), then
 *   MultiplyByQuantizedMultiplier(sum, output_multiplier, output_shift) + output_offset,
 *   clamped to [activation_min, activation_max];
 * - 16x8 row (int16 LHS, RHS and output, zero points 0): the products in int64, requantised
 *   by TFLite's int64 MultiplyByQuantizedMultiplier (the multiplier rounded to 16 bits);
 * - float32 row: float products added to 0.0f in order (the quantisation fields 0).
 * Variants (every one gives the same bits):
 *   "direct"  no scratch: each dot product reads the operands where they lie (strided);
 *   "packed"  two scratch buffers: each distinct RHS matrix as n contiguous columns of k, and
 *             one LHS row of k (int8: widened to int16 with the offsets added, so the dot
 *             product is of int16 pairs: on arm-dsp SMLAD, two multiply-adds an instruction;
 *             int16: SMLALD into int64). Integer columns are padded to an even k.
 */
typedef enum ap_batch_matmul_kind {
    AP_BATCH_MATMUL_DIRECT = 0,
    AP_BATCH_MATMUL_PACKED = 1
} ap_batch_matmul_kind;

typedef struct ap_batch_matmul_params {
    int32_t lhs_batch[3];       /* the LHS's batch dimensions right-aligned to three (1 where absent) */
    int32_t rhs_batch[3];       /* the RHS's; each pair equal or one of them 1 */
    int32_t rows;               /* m >= 1: output rows (LHS rows) */
    int32_t depth;              /* k >= 1: the summed axis */
    int32_t cols;               /* n >= 1: output columns (RHS columns) */
    int32_t adj_x;              /* 0: LHS stored [m, k]; 1: stored [k, m] */
    int32_t adj_y;              /* 0: RHS stored [k, n]; 1: stored [n, k] */
    int32_t lhs_offset;         /* int8: -LHS zero point, [-127, 128]; else 0 */
    int32_t rhs_offset;         /* int8: -RHS zero point, [-127, 128]; else 0 */
    int32_t output_offset;      /* int8: output zero point; else 0 */
    int32_t output_multiplier;  /* integer rows: QuantizeMultiplier of lhs * rhs / output scale, >= 0 */
    int32_t output_shift;       /* integer rows: [-31, 30] (16x8: [-31, 7]) */
    int32_t activation_min;     /* integer rows: the output type's range */
    int32_t activation_max;
} ap_batch_matmul_params;

ap_status ap_batch_matmul_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                      uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_batch_matmul_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                       uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_batch_matmul_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                       uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_batch_matmul_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_batch_matmul_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_batch_matmul_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * REVERSE_V2, TFLite's reference Reverse (LiteRT's and TensorFlow Lite Micro's alike): the
 * reversed axes are contiguous (both kernels refuse others), so the input is viewed as
 * [outer, middle, inner] with `middle` the product of the reversed axes' dimensions, and
 * output block [o, m] is input block [o, middle - 1 - m] of `inner` elements (reversing the
 * merged axes reverses each of them). A pure data move: one kernel for every element width,
 * each row passing its own. Variant: "direct", no scratch, not in place (an in-place
 * reversal, swapping blocks m and middle - 1 - m, would need no scratch but is not declared).
 */
typedef struct ap_reverse_params {
    int32_t outer;    /* >= 1: the product of the dimensions before the first reversed axis */
    int32_t middle;   /* >= 1: the product of the reversed axes' dimensions */
    int32_t inner;    /* >= 1: the product of the dimensions after the last reversed axis */
} ap_reverse_params;

ap_status ap_reverse_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_reverse_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_reverse_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_reverse_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_reverse_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_reverse_bool_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Most dimensions REDUCE_ALL's params hold (after merging, see ap_reduce_all_params). */
enum { AP_REDUCE_ALL_MAX_DIMS = 8 };

/**
 * REDUCE_ALL, TFLite's reference ReduceGeneric with logical AND (LiteRT's and TensorFlow Lite
 * Micro's alike): each output element is 1 when every input element over the axes with
 * reduce[d] = 1 is nonzero, else 0; the other axes kept in order (keep_dims changes the output's
 * shape, not its bytes; no reduced axis copies the input). Bool values are bytes 0 or 1; the
 * output is 0 or 1 whatever nonzero byte the input holds. The lowering merges neighbouring axes
 * alike (both reduced or both kept) and drops axes of size 1, so a model's rank may exceed
 * AP_REDUCE_ALL_MAX_DIMS. Variant: "direct", no scratch, never in place (the output is set to 1
 * and then cleared while the input is read in order).
 */
typedef struct ap_reduce_all_params {
    int32_t rank;                              /* 1..AP_REDUCE_ALL_MAX_DIMS */
    int32_t dims[AP_REDUCE_ALL_MAX_DIMS];      /* the first `rank` >= 1; the rest ignored */
    int32_t reduce[AP_REDUCE_ALL_MAX_DIMS];    /* the first `rank` 0 or 1 */
} ap_reduce_all_params;

ap_status ap_reduce_all_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out);
ap_status ap_reduce_all_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** Most index components GATHER_ND takes (TensorFlow Lite Micro's MAX_INDICES_ND). */
enum { AP_GATHER_ND_MAX_DEPTH = 5 };

/**
 * GATHER_ND, TFLite's reference GatherNd: the indices (int32) viewed as `slices` tuples of
 * `index_depth` components; slice s copies the `slice_size` elements of params at
 * sum_d index[s][d] * stride_d (stride_d the product of dims after d, times slice_size). An
 * index out of range fails the run before anything is written, by the rule bounds names:
 * 0 LiteRT's (every component in [0, dims[d])), 1 TensorFlow Lite Micro's (the flat position
 * in [0, params size - slice_size]: a component beyond its dimension reads on into the next).
 * Variant: "direct", no scratch, not in place.
 */
typedef struct ap_gather_nd_params {
    int32_t index_depth;                      /* 1..AP_GATHER_ND_MAX_DEPTH */
    int32_t dims[AP_GATHER_ND_MAX_DEPTH];     /* params' first index_depth dimensions, >= 1 */
    int32_t slice_size;                       /* >= 1: elements per slice (params' other dims) */
    int32_t slices;                           /* >= 1: index tuples (the indices' outer dims) */
    int32_t bounds;                           /* 0 LiteRT's rule, 1 TensorFlow Lite Micro's */
} ap_gather_nd_params;

ap_status ap_gather_nd_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                uint32_t *count_out, ap_error *error_out);
ap_status ap_gather_nd_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_gather_nd_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_gather_nd_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * BROADCAST_ARGS, TFLite's reference BroadcastArgs: two shape vectors (int32 or int64, dtype)
 * right-aligned, a missing element 1; each output element is the other's where one is 1, else
 * both must be equal (TFLite's kernels abort there; this one fails the run, nothing written).
 * As TFLite's loop, each value is taken as an int (int64 values truncated to their low 32
 * bits) and written back widened. Variant: "direct", no scratch, not in place.
 */
typedef struct ap_broadcast_args_params {
    int32_t length1;       /* >= 1: elements of the first shape vector */
    int32_t length2;       /* >= 1: of the second */
    int32_t dtype;         /* ap_dtype: AP_DTYPE_INT32 or AP_DTYPE_INT64 (inputs and output) */
} ap_broadcast_args_params;

ap_status ap_broadcast_args_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                     uint32_t *count_out, ap_error *error_out);
ap_status ap_broadcast_args_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** The float32 functions of one element that EXP ... ELU name (ap_math_f32_params.fn), each as
    TFLite's float kernel computes it (LiteRT's and TensorFlow Lite Micro's alike). */
typedef enum ap_math_f32_fn {
    AP_MATH_F32_EXP = 0,      /* expf(x) */
    AP_MATH_F32_LOG = 1,      /* logf(x): NaN below 0, -inf at +-0 */
    AP_MATH_F32_SIN = 2,      /* sinf(x) */
    AP_MATH_F32_COS = 3,      /* cosf(x) */
    AP_MATH_F32_SQRT = 4,     /* sqrtf(x) (correctly rounded: exact on every machine) */
    AP_MATH_F32_RSQRT = 5,    /* 1.0f / sqrtf(x) */
    AP_MATH_F32_SQUARE = 6,   /* x * x */
    AP_MATH_F32_NEG = 7,      /* -x */
    AP_MATH_F32_ROUND = 8,    /* TFLite's RoundToNearest: f = floorf(x), d = x - f; f where d < 0.5
                                 or d == 0.5 with f even, else f + 1 (half to even; -0.3 gives +0) */
    AP_MATH_F32_FLOOR = 9,    /* floorf(x) */
    AP_MATH_F32_CEIL = 10,    /* ceilf(x) */
    AP_MATH_F32_ELU = 11,     /* x < 0 ? expm1f(x) : x */
    AP_MATH_F32_ABS = 12      /* fabsf(x) (the sign bit cleared, a NaN's too) */
} ap_math_f32_fn;

/**
 * float32 EXP, LOG, SIN, COS, SQRT, RSQRT, SQUARE, NEG, ROUND, FLOOR, CEIL and ELU: `fn` of each
 * element. SQRT, RSQRT, SQUARE, NEG, ROUND, FLOOR and CEIL give the same bits on every machine;
 * EXP, LOG, SIN, COS and ELU call the C library (expf, logf, sinf, cosf, expm1f) as TFLite's
 * std:: functions do, so they equal LiteRT where both use the same C library (see
 * docs/coverage.md for the bounds measured elsewhere). Variant: "direct", no scratch, in place.
 */
typedef struct ap_math_f32_params {
    size_t count;                /* elements */
    int32_t fn;                  /* ap_math_f32_fn, of the row's op */
} ap_math_f32_params;

ap_status ap_math_f32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out);
ap_status ap_math_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * float32 DIV (reference_ops::Div / BroadcastDivSlow): output = activation(input1 / input2) with
 * 4-D broadcasting, ap_binary_f32_params as ADD's; IEEE 754 division (x / 0 is +-inf, 0 / 0 NaN),
 * as TFLite's float kernel does. Variant: "direct" (ap_binary_f32_variants), in place over an
 * input of the output's shape.
 */
ap_status ap_div_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
/* float32 MAXIMUM, MINIMUM, SQUARED_DIFFERENCE and PRELU: ap_binary_f32_params (the activation
   range unused: these ops have none), ADD's broadcasting and variants. MAXIMUM: a > b ? a : b,
   MINIMUM: a < b ? a : b (TFLite's MaximumOp / MinimumOp: a NaN first input gives the second,
   a NaN second input itself), SQUARED_DIFFERENCE: (a - b) * (a - b), PRELU (b the alpha):
   a >= 0 ? a : a * b. */
ap_status ap_maximum_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_minimum_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_squared_difference_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_prelu_f32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 DIV, TFLite's reference DivElementwise as LiteRT computes it (the tflite-micro package's
 * interpreter differs where the real multiplier is exact in float32, e.g. 0.5) with 4-D
 * broadcasting: with a = in1 - input1_zero_point and b = in2 - input2_zero_point (b < 0: both
 * negated), b's reciprocal by GetReciprocal(b, 31) (recip_shift its exponent), h = CLS(a) (leading
 * sign bits), q = SaturatingRoundingDoublingHighMul(a * 2^h, reciprocal), out = clamp(
 * output_zero_point + RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(q, output_multiplier),
 * h + recip_shift - output_shift), activation_min, activation_max). A shift of 32 or more, which
 * C++ leaves undefined, is taken as TFLite's x86 builds take it (LiteRT and TensorFlow Lite Micro on
 * the host agree): the rounding mask (1 << e) - 1 formed in 64 bits, the shift of the value mod 32
 * (a numerator at its zero point then gives output_zero_point + 1). output_multiplier and shift are
 * QuantizeMultiplier(float(input1_scale / (input2_scale * output_scale))). A divisor element equal
 * to input2_zero_point fails the run before anything is written (LiteRT's CheckNonZero). Variant
 * kinds: "direct" only, no scratch, in place over an input of the output's shape.
 */
typedef struct ap_div_s8_params {
    int32_t input1_shape[4];     /* each >= 1: 1 or the output's */
    int32_t input2_shape[4];
    int32_t output_shape[4];
    int32_t input1_zero_point;   /* [-128, 127] */
    int32_t input2_zero_point;   /* [-128, 127] */
    int32_t output_zero_point;   /* [-128, 127] */
    int32_t output_multiplier;   /* [2^30, 2^31 - 1] */
    int32_t output_shift;        /* [-31, 23]: QuantizeMultiplier's exponent */
    int32_t activation_min;      /* [-128, activation_max] */
    int32_t activation_max;      /* [activation_min, 127] */
} ap_div_s8_params;

ap_status ap_div_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);
ap_status ap_div_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int32 DIV (reference_ops::Div / BroadcastDivSlow of int32_t): output = clamp(input1 / input2,
 * activation_min, activation_max), C's division truncating toward zero, with 4-D broadcasting.
 * A zero divisor element fails the run before anything is written (LiteRT's CheckNonZero);
 * INT32_MIN / -1, which traps in TFLite's kernel, wraps to INT32_MIN. Variant: "direct", no
 * scratch, in place over an input of the output's shape.
 */
typedef struct ap_div_s32_params {
    int32_t input1_shape[4];     /* each >= 1: 1 or the output's */
    int32_t input2_shape[4];
    int32_t output_shape[4];
    int32_t activation_min;      /* CalculateActivationRange<int32_t>: NONE [INT32_MIN, INT32_MAX], */
    int32_t activation_max;      /* RELU [0, INT32_MAX], RELU_N1_TO_1 [-1, 1], RELU6 [0, 6] */
} ap_div_s32_params;

ap_status ap_div_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_div_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int32 ADD, SUB and MUL (TFLite's Add, Sub and Mul of int32_t; binary_s32.c): output =
 * clamp(input1 op input2, activation_min, activation_max) with 4-D broadcasting, the result
 * wrapping in two's complement where it overflows. The params are DIV's. Variant: "direct", no
 * scratch, in place over an input of the output's shape.
 */
typedef ap_div_s32_params ap_binary_s32_params;

ap_status ap_add_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_add_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_sub_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_sub_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_mul_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out);
ap_status ap_mul_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_maximum_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_maximum_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_minimum_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_minimum_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_squared_difference_s32_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                             uint32_t *count_out, ap_error *error_out);
ap_status ap_squared_difference_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 RSQRT, TFLite's RsqrtEvalQuantized (LiteRT's and TensorFlow Lite Micro's alike): with
 * v = in - input_zero_point, v == 0 gives 127; else GetInvSqrtQuantizedMultiplierExp(v) (a
 * Newton-Raphson 1/sqrt in gemmlowp fixed point: multiplier m, shift s), d =
 * MultiplyByQuantizedMultiplier(1, m, s + 20), out = clamp(output_zero_point +
 * MultiplyByQuantizedMultiplier(d, multiplier, shift - 20), -128, 127). multiplier and shift are
 * QuantizeMultiplier(1 / (sqrt(input_scale) * output_scale)) by the rounding rule (LiteRT: the
 * square root and the product in float32; TensorFlow Lite Micro: in double). An input below
 * input_zero_point fails the run before anything is written (TFLite: "Rsqrt is only defined for
 * positive values"). Variant kinds: ap_unary_s8_kind (DIRECT and TABLE).
 */
typedef struct ap_rsqrt_s8_params {
    size_t count;                /* elements */
    int32_t input_zero_point;    /* [-128, 127] */
    int32_t output_zero_point;   /* [-128, 127] */
    int32_t multiplier;          /* [2^30, 2^31 - 1] */
    int32_t shift;               /* [-11, 30]: shift - 20 within [-31, 10] */
} ap_rsqrt_s8_params;

ap_status ap_rsqrt_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out);
ap_status ap_rsqrt_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/**
 * int8 ELU: TFLite builds a table of the 256 outputs when the op is prepared (dequantise, the
 * function, multiply by 1 / output_scale, round half away from zero, add the output zero point,
 * clamp), LiteRT with expm1f(x) for x < 0, TensorFlow Lite Micro with expf(x) - 1.0f; the
 * lowering computes the table by the rounding rule and the params carry it: `table[x + 128]` is
 * the output of input x. Variant kinds: ap_unary_s8_kind (LOOKUP only).
 */
typedef struct ap_elu_s8_params {
    size_t count;                /* elements */
    int32_t table_size;          /* 256 */
    const int8_t *table;         /* table_size outputs */
} ap_elu_s8_params;

ap_status ap_elu_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out);
ap_status ap_elu_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/* ---- int64 (AP_TYPES_S64): the ops TensorFlow Lite Micro's kernels take int64 in ------------- */
/* (the comparisons are with the others, ap_compare_params; RESHAPE, SQUEEZE and EXPAND_DIMS alias
   their input and SHAPE reads none, whatever the type) */

/** int64 MAXIMUM and MINIMUM (ap_minmax_params): MaximumMinimumBroadcastSlow on the stored values
    (LiteRT's and TensorFlow Lite Micro's alike). "direct", in place where an input has the
    output's shape. */
ap_status ap_maximum_s64_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_maximum_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);
ap_status ap_minimum_s64_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                  uint32_t *count_out, ap_error *error_out);
ap_status ap_minimum_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int64 ZEROS_LIKE (ap_fill_params, variants ap_fill_variants): count zeros. */
ap_status ap_zeros_like_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int64 BROADCAST_TO (ap_broadcast_to_params, variants ap_broadcast_to_s8_variants): the int8
    row's copy moving int64 values; the input and output 8-byte aligned. */
ap_status ap_broadcast_to_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int64 CONCATENATION (ap_concatenation_f32_params: the float32 row's copy of eight-byte values;
    PACK runs on it). "direct", the output overlapping no input. */
ap_status ap_concatenation_s64_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                        uint32_t capacity, uint32_t *count_out, ap_error *error_out);
ap_status ap_concatenation_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

/** int64 REVERSE_V2 (ap_reverse_params, variants ap_reverse_variants): the byte-width-generic
    move of eight-byte values. */
ap_status ap_reverse_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
