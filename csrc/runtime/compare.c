/* The comparisons (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL) on int8, int16,
   float32, int32, int64 and bool, and LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT on bool (arenaplan/ops.h): a 4-D
   broadcast walk writing one bool byte (0 or 1) per output element. */
#include "float32_common.h"

#include "broadcast4.h"
#include "fixedpoint.h"

typedef enum cmp_fn { CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE, CMP_AND, CMP_OR, CMP_NOT } cmp_fn;
typedef enum cmp_elem { ELEM_S8, ELEM_F32, ELEM_S32, ELEM_BOOL, ELEM_S16, ELEM_S64 } cmp_elem;

static const char *const cmp_names[] = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
                                        "logical_and", "logical_or", "logical_not"};

/* Shapes that broadcast (every axis of an input 1 or the output's; the output each axis's
   larger), sizes without overflow, and the int8 rescaling's fields in TFLite's ranges. */
static ap_status compare_check(const ap_compare_params *p, cmp_elem elem, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_status st = ap_bcast4_check(p->input1_shape, p->input2_shape, p->output_shape, op, error);
    if (st != AP_OK) {
        return st;
    }
    size_t n;
    if (!ap_ops_product(p->input1_shape, 4, &n) || !ap_ops_product(p->input2_shape, 4, &n) ||
        !ap_ops_product(p->output_shape, 4, &n)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows", op);
    }
    /* the int16 row rescales as the int8 one where left_shift says so (LiteRT's EQUAL and
       NOT_EQUAL), its offsets int16's: |(v + offset) << 8| < 2^24 */
    const int quantized = elem == ELEM_S8 || (elem == ELEM_S16 && p->left_shift != 0);
    const int32_t lo = elem == ELEM_S16 ? -32767 : -127, hi = elem == ELEM_S16 ? 32768 : 128;
    if (quantized) {
        if (p->left_shift < 0 || p->left_shift > 8 || p->input1_offset < lo || p->input1_offset > hi ||
            p->input2_offset < lo || p->input2_offset > hi || p->input1_multiplier < 0 ||
            p->input2_multiplier < 0 || p->input1_shift < -31 || p->input1_shift > 0 || p->input2_shift < -31 ||
            p->input2_shift > 0) {
            return AP_OPS_INVALID(error, "%s: left_shift %d (0..8), offsets %d, %d ([%d, %d]), multipliers %d, "
                                  "%d (>= 0) or shifts %d, %d ([-31, 0]) out of range", op, (int)p->left_shift,
                                  (int)p->input1_offset, (int)p->input2_offset, (int)lo, (int)hi,
                                  (int)p->input1_multiplier,
                                  (int)p->input2_multiplier, (int)p->input1_shift, (int)p->input2_shift);
        }
    } else if (p->left_shift != 0 || p->input1_offset != 0 || p->input2_offset != 0 || p->input1_multiplier != 0 ||
               p->input2_multiplier != 0 || p->input1_shift != 0 || p->input2_shift != 0) {
        return AP_OPS_INVALID(error, "%s: the rescaling fields must be 0 on a row that compares values as stored",
                              op);
    }
    return AP_OK;
}

static int same_shape(const int32_t *a, const int32_t *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

static ap_status variants_of(const void *params, int one_byte, ap_isa isa, ap_variant *variants_out,
                             uint32_t capacity, uint32_t *count_out, ap_error *error)
{
    const ap_compare_params *p = params;
    /* the quantisation fields are checked by run (a row's rule); here the shapes */
    ap_status st = p == NULL ? AP_OPS_INVALID(error, "compare: params must not be NULL") : AP_OK;
    if (st == AP_OK) {
        ap_compare_params shapes = *p;
        shapes.left_shift = shapes.input1_offset = shapes.input2_offset = 0;
        shapes.input1_multiplier = shapes.input2_multiplier = shapes.input1_shift = shapes.input2_shift = 0;
        st = compare_check(&shapes, ELEM_F32, "compare", error);
    }
    if (st != AP_OK) {
        return st;
    }
    size_t total = 0;
    ap_ops_product(p->output_shape, 4, &total);
    /* output[i] is written after the walk has read element i of an input of the output's shape */
    const int in_place = one_byte && (same_shape(p->input1_shape, p->output_shape) ||
                                      same_shape(p->input2_shape, p->output_shape));
    return ap_f32_direct((uint64_t)total, in_place, isa, variants_out, capacity, count_out, "compare", error);
}

ap_status ap_compare_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                              uint32_t *count_out, ap_error *error_out)
{
    return variants_of(params, 1, isa, variants_out, capacity, count_out, error_out);
}

ap_status ap_compare_wide_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, ap_error *error_out)
{
    return variants_of(params, 0, isa, variants_out, capacity, count_out, error_out);
}

/* int8 (and the rescaling int16 row): MultiplyByQuantizedMultiplierSmallerThanOneExp(
   (v + offset) << left_shift). */
static inline int32_t rescale(int32_t v, int32_t offset, int32_t left_shift, int32_t multiplier, int32_t shift)
{
    const int32_t shifted = (int32_t)((uint32_t)((int32_t)v + offset) << left_shift);
    const int32_t h = ap_fp_saturating_rounding_doubling_high_mul(shifted, multiplier);
    return shift == 0 ? h : ap_fp_rounding_divide_by_pot(h, -shift);
}

#define CMP_APPLY(fn, a, b)                                                                            \
    ((fn) == CMP_EQ ? (a) == (b) : (fn) == CMP_NE ? (a) != (b) : (fn) == CMP_GT ? (a) > (b)            \
     : (fn) == CMP_GE ? (a) >= (b) : (fn) == CMP_LT ? (a) < (b) : (fn) == CMP_LE ? (a) <= (b)          \
     : (fn) == CMP_AND ? ((a) != 0 && (b) != 0) : (fn) == CMP_OR ? ((a) != 0 || (b) != 0) : (a) == 0)

static ap_status compare_run(const ap_op_call *call, ap_isa isa, cmp_fn fn, cmp_elem elem, ap_error *error)
{
    const char *op = cmp_names[fn];
    const uint32_t inputs = fn == CMP_NOT ? 1u : 2u;
    ap_status st = ap_f32_check_call(call, isa, inputs, op, error);
    const ap_compare_params *p = st == AP_OK ? call->params : NULL;
    st = st != AP_OK ? st : compare_check(p, elem, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (fn == CMP_NOT && !same_shape(p->input1_shape, p->output_shape)) {
        return AP_OPS_INVALID(error, "%s: the input's shape must be the output's", op);
    }
    const int32_t *s1 = p->input1_shape, *s2 = fn == CMP_NOT ? p->input1_shape : p->input2_shape;
    const int32_t *so = p->output_shape;
    /* element strides of each input along each output axis (0 where it broadcasts) */
    size_t st1[4], st2[4], a1 = 1, a2 = 1;
    for (int d = 3; d >= 0; --d) {
        st1[d] = s1[d] == 1 ? 0 : a1;
        st2[d] = s2[d] == 1 ? 0 : a2;
        a1 *= (size_t)s1[d];
        a2 *= (size_t)s2[d];
    }
    const void *x1 = call->inputs[0], *x2 = call->inputs[inputs - 1];
    uint8_t *out = call->output;
    size_t k = 0;
    for (int32_t i0 = 0; i0 < so[0]; ++i0) {
        for (int32_t i1 = 0; i1 < so[1]; ++i1) {
            for (int32_t i2 = 0; i2 < so[2]; ++i2) {
                size_t o1 = (size_t)i0 * st1[0] + (size_t)i1 * st1[1] + (size_t)i2 * st1[2];
                size_t o2 = (size_t)i0 * st2[0] + (size_t)i1 * st2[1] + (size_t)i2 * st2[2];
                for (int32_t i3 = 0; i3 < so[3]; ++i3, ++k, o1 += st1[3], o2 += st2[3]) {
                    int r;
                    switch (elem) {
                    case ELEM_S8: {
                        const int32_t a = rescale(((const int8_t *)x1)[o1], p->input1_offset, p->left_shift,
                                                  p->input1_multiplier, p->input1_shift);
                        const int32_t b = rescale(((const int8_t *)x2)[o2], p->input2_offset, p->left_shift,
                                                  p->input2_multiplier, p->input2_shift);
                        r = CMP_APPLY(fn, a, b);
                        break;
                    }
                    case ELEM_S16: {
                        int32_t a = ((const int16_t *)x1)[o1], b = ((const int16_t *)x2)[o2];
                        if (p->left_shift != 0) {
                            a = rescale(a, p->input1_offset, p->left_shift, p->input1_multiplier, p->input1_shift);
                            b = rescale(b, p->input2_offset, p->left_shift, p->input2_multiplier, p->input2_shift);
                        }
                        r = CMP_APPLY(fn, a, b);
                        break;
                    }
                    case ELEM_S64: {
                        /* two words a value on a 32-bit core: the compiler's signed 64-bit compare */
                        const int64_t a = ((const int64_t *)x1)[o1], b = ((const int64_t *)x2)[o2];
                        r = CMP_APPLY(fn, a, b);
                        break;
                    }
                    case ELEM_F32: {
                        const float a = ((const float *)x1)[o1], b = ((const float *)x2)[o2];
                        r = CMP_APPLY(fn, a, b);
                        break;
                    }
                    case ELEM_S32: {
                        const int32_t a = ((const int32_t *)x1)[o1], b = ((const int32_t *)x2)[o2];
                        r = CMP_APPLY(fn, a, b);
                        break;
                    }
                    default: {   /* bool: a byte, true when not 0 */
                        const int a = ((const uint8_t *)x1)[o1] != 0, b = ((const uint8_t *)x2)[o2] != 0;
                        r = CMP_APPLY(fn, a, b);
                        break;
                    }
                    }
                    out[k] = (uint8_t)(r != 0);
                }
            }
        }
    }
    return AP_OK;
}

#define AP_COMPARE_RUN(name, fn, elem)                                                 \
    ap_status name(const ap_op_call *call, ap_isa isa, ap_error *error_out)            \
    {                                                                                  \
        return compare_run(call, isa, fn, elem, error_out);                            \
    }

AP_COMPARE_RUN(ap_equal_s8_run, CMP_EQ, ELEM_S8)
AP_COMPARE_RUN(ap_not_equal_s8_run, CMP_NE, ELEM_S8)
AP_COMPARE_RUN(ap_greater_s8_run, CMP_GT, ELEM_S8)
AP_COMPARE_RUN(ap_greater_equal_s8_run, CMP_GE, ELEM_S8)
AP_COMPARE_RUN(ap_less_s8_run, CMP_LT, ELEM_S8)
AP_COMPARE_RUN(ap_less_equal_s8_run, CMP_LE, ELEM_S8)
AP_COMPARE_RUN(ap_equal_f32_run, CMP_EQ, ELEM_F32)
AP_COMPARE_RUN(ap_not_equal_f32_run, CMP_NE, ELEM_F32)
AP_COMPARE_RUN(ap_greater_f32_run, CMP_GT, ELEM_F32)
AP_COMPARE_RUN(ap_greater_equal_f32_run, CMP_GE, ELEM_F32)
AP_COMPARE_RUN(ap_less_f32_run, CMP_LT, ELEM_F32)
AP_COMPARE_RUN(ap_less_equal_f32_run, CMP_LE, ELEM_F32)
AP_COMPARE_RUN(ap_equal_s32_run, CMP_EQ, ELEM_S32)
AP_COMPARE_RUN(ap_not_equal_s32_run, CMP_NE, ELEM_S32)
AP_COMPARE_RUN(ap_greater_s32_run, CMP_GT, ELEM_S32)
AP_COMPARE_RUN(ap_greater_equal_s32_run, CMP_GE, ELEM_S32)
AP_COMPARE_RUN(ap_less_s32_run, CMP_LT, ELEM_S32)
AP_COMPARE_RUN(ap_less_equal_s32_run, CMP_LE, ELEM_S32)
AP_COMPARE_RUN(ap_equal_s16_run, CMP_EQ, ELEM_S16)
AP_COMPARE_RUN(ap_not_equal_s16_run, CMP_NE, ELEM_S16)
AP_COMPARE_RUN(ap_greater_s16_run, CMP_GT, ELEM_S16)
AP_COMPARE_RUN(ap_greater_equal_s16_run, CMP_GE, ELEM_S16)
AP_COMPARE_RUN(ap_less_s16_run, CMP_LT, ELEM_S16)
AP_COMPARE_RUN(ap_less_equal_s16_run, CMP_LE, ELEM_S16)
AP_COMPARE_RUN(ap_equal_s64_run, CMP_EQ, ELEM_S64)
AP_COMPARE_RUN(ap_not_equal_s64_run, CMP_NE, ELEM_S64)
AP_COMPARE_RUN(ap_greater_s64_run, CMP_GT, ELEM_S64)
AP_COMPARE_RUN(ap_greater_equal_s64_run, CMP_GE, ELEM_S64)
AP_COMPARE_RUN(ap_less_s64_run, CMP_LT, ELEM_S64)
AP_COMPARE_RUN(ap_less_equal_s64_run, CMP_LE, ELEM_S64)
AP_COMPARE_RUN(ap_equal_bool_run, CMP_EQ, ELEM_BOOL)
AP_COMPARE_RUN(ap_not_equal_bool_run, CMP_NE, ELEM_BOOL)
AP_COMPARE_RUN(ap_logical_and_run, CMP_AND, ELEM_BOOL)
AP_COMPARE_RUN(ap_logical_or_run, CMP_OR, ELEM_BOOL)
AP_COMPARE_RUN(ap_logical_not_run, CMP_NOT, ELEM_BOOL)
