/* ADD and MUL int8 with 4-D broadcasting (portable C; AVX2 and arm-dsp rows dispatched), and the
   other broadcasting int8 ops: MAXIMUM, MINIMUM, PRELU, SQUARED_DIFFERENCE, BROADCAST_TO. */
#include "arenaplan/elementwise.h"
#include "arenaplan/ops.h"

#include <string.h>

#include "broadcast4.h"
#include "fixedpoint.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

/* Broadcast iteration collapsed to at most 4 dims; the last one is the contiguous row
   (strides 0 or 1 there). */
typedef struct ew_iter {
    int nd;
    size_t size[4];
    size_t s1[4];
    size_t s2[4];
    size_t total;
} ew_iter;

static ap_status ew_check_shapes(const int32_t *in1, const int32_t *in2, const int32_t *out, const char *op,
                                 ap_error *error)
{
    ap_status st = ap_bcast4_check(in1, in2, out, op, error);
    if (st != AP_OK) {
        return st;
    }
    size_t n;
    if (!ap_ops_product(in1, 4, &n) || !ap_ops_product(in2, 4, &n) || !ap_ops_product(out, 4, &n)) {
        return AP_OPS_OVERFLOW(error, "%s: a tensor size overflows", op);
    }
    return AP_OK;
}

static void ew_build_iter(const int32_t *in1, const int32_t *in2, const int32_t *out, ew_iter *it)
{
    size_t st1[4], st2[4];
    size_t a = 1, b = 1;
    for (int d = 3; d >= 0; --d) {
        st1[d] = in1[d] == 1 ? 0 : a;
        st2[d] = in2[d] == 1 ? 0 : b;
        a *= (size_t)in1[d];
        b *= (size_t)in2[d];
    }
    /* Collapse from the innermost dim outwards: adjacent dims with the same broadcast
       pattern form one contiguous run. Output dims of size 1 are dropped. */
    size_t size[4], s1[4], s2[4];
    int flag[4];
    int n = 0;
    for (int d = 3; d >= 0; --d) {
        if (out[d] == 1) {
            continue;
        }
        int f = (st1[d] == 0 ? 1 : 0) | (st2[d] == 0 ? 2 : 0);
        if (n > 0 && flag[n - 1] == f) {
            size[n - 1] *= (size_t)out[d];
        } else {
            size[n] = (size_t)out[d];
            s1[n] = st1[d];
            s2[n] = st2[d];
            flag[n] = f;
            ++n;
        }
    }
    if (n == 0) {
        size[0] = 1;
        s1[0] = s2[0] = 0;
        n = 1;
    }
    it->nd = n;
    it->total = 1;
    for (int i = 0; i < n; ++i) { /* reverse: outermost first */
        it->size[i] = size[n - 1 - i];
        it->s1[i] = s1[n - 1 - i];
        it->s2[i] = s2[n - 1 - i];
        it->total *= it->size[i];
    }
}

/* Call row(ctx, a, sa, b, sb, out, n) over every innermost run. */
typedef void (*ew_row_fn)(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out,
                          size_t n);

static void ew_for_rows(const ew_iter *it, const int8_t *a, const int8_t *b, int8_t *out, ew_row_fn row,
                        const void *ctx)
{
    const int nd = it->nd;
    const size_t inner = it->size[nd - 1];
    const int sa = (int)it->s1[nd - 1], sb = (int)it->s2[nd - 1];
    size_t idx[3] = {0, 0, 0};
    const int outer = nd - 1;
    size_t rows = it->total / inner;
    for (size_t r = 0; r < rows; ++r) {
        size_t oa = 0, ob = 0;
        for (int k = 0; k < outer; ++k) {
            oa += idx[k] * it->s1[k];
            ob += idx[k] * it->s2[k];
        }
        row(ctx, a + oa, sa, b + ob, sb, out + r * inner, inner);
        for (int k = outer - 1; k >= 0; --k) {
            if (++idx[k] < it->size[k]) {
                break;
            }
            idx[k] = 0;
        }
    }
}

static int ew_variant_applies(int32_t kind, int32_t param)
{
    return kind == AP_ELEMENTWISE_DIRECT && param == 0;
}

static uint32_t ew_variant_scratch(int32_t kind, int32_t param, size_t *bytes, size_t *alignment)
{
    (void)kind, (void)param, (void)bytes, (void)alignment;
    return 0;
}

static int ew_same_shape(const int32_t *a, const int32_t *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

static ap_status ew_variants(const int32_t *in1, const int32_t *in2, const int32_t *out, ap_isa isa, ap_variant *variants_out,
                             uint32_t capacity, uint32_t *count_out, const char *op, ap_error *error)
{
    ap_variant found[1];
    uint32_t n = 0;
    size_t bytes[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH], total = 0;
    ap_ops_product(out, 4, &total);
    if (ew_variant_applies(AP_ELEMENTWISE_DIRECT, 0)) {
        uint32_t count = ew_variant_scratch(AP_ELEMENTWISE_DIRECT, 0, bytes, align);
        int in_place = ew_same_shape(in1, out) || ew_same_shape(in2, out);
        ap_ops_variant_set(&found[n++], AP_ELEMENTWISE_DIRECT, 0, "direct", count, bytes, align, (uint64_t)total,
                           in_place);
    }
    return ap_ops_variants_out(found, n, isa, variants_out, capacity, count_out, op, error);
}

/* The checks every run shares, then row() over the broadcast rows. */
static ap_status ew_run(const int32_t *in1_shape, const int32_t *in2_shape, const int32_t *out_shape,
                        const ap_variant *variant, const int8_t *input1, const int8_t *input2, int8_t *output,
                        const ap_scratch *scratch, uint32_t scratch_count, const char *op, ew_row_fn row,
                        const void *ctx, ap_error *error)
{
    ap_status st = ap_ops_check_variant_ptr(variant, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (input1 == NULL || input2 == NULL || output == NULL) {
        return AP_OPS_INVALID(error, "%s: input1, input2 and output must not be NULL", op);
    }
    if (!ew_variant_applies(variant->kind, variant->param)) {
        return AP_OPS_INVALID(error, "%s: variant kind %d param %d does not apply", op, (int)variant->kind,
                              (int)variant->param);
    }
    size_t need[AP_MAX_SCRATCH], align[AP_MAX_SCRATCH];
    uint32_t need_count = ew_variant_scratch(variant->kind, variant->param, need, align);
    st = ap_ops_check_scratch(op, variant->name, need, need_count, scratch, scratch_count, error);
    if (st != AP_OK) {
        return st;
    }
    ew_iter it;
    ew_build_iter(in1_shape, in2_shape, out_shape, &it);
    ew_for_rows(&it, input1, input2, output, row, ctx);
    return AP_OK;
}

/* The offsets and activation range both ops check alike. */
static ap_status ew_check_quant(int32_t input1_offset, int32_t input2_offset, int32_t output_offset,
                                int32_t activation_min, int32_t activation_max, const char *op, ap_error *error)
{
    if (!ap_ops_input_offset_ok(input1_offset) || !ap_ops_input_offset_ok(input2_offset) ||
        !ap_ops_int8_range(output_offset)) {
        return AP_OPS_INVALID(error, "%s: offsets (%d, %d, %d) out of range (inputs [-127, 128], output "
                              "[-128, 127])", op, (int)input1_offset, (int)input2_offset, (int)output_offset);
    }
    if (!ap_ops_int8_range(activation_min) || !ap_ops_int8_range(activation_max) ||
        activation_min > activation_max) {
        return AP_OPS_INVALID(error, "%s: activation range [%d, %d] invalid", op, (int)activation_min,
                              (int)activation_max);
    }
    return AP_OK;
}

/* ---- ADD ---- */

/* ADD's and SUB's params (one struct, TFLite's general int8 path for both). */
static ap_status add_sub_check(const ap_add_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_status st = ew_check_shapes(p->input1_shape, p->input2_shape, p->output_shape, op, error);
    if (st != AP_OK) {
        return st;
    }
    st = ew_check_quant(p->input1_offset, p->input2_offset, p->output_offset, p->activation_min,
                        p->activation_max, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (p->left_shift < 0 || p->left_shift > 22) {
        return AP_OPS_INVALID(error, "%s: left_shift %d outside [0, 22]", op, (int)p->left_shift);
    }
    const int32_t shifts[3] = {p->input1_shift, p->input2_shift, p->output_shift};
    for (int i = 0; i < 3; ++i) {
        if (shifts[i] > 0) {
            return AP_OPS_UNSUPPORTED(error, "%s: shift %d > 0 (TFLite requires multipliers below one: "
                                      "QuantizeMultiplierSmallerThanOneExp)", op, (int)shifts[i]);
        }
        if (shifts[i] < -31) {
            return AP_OPS_INVALID(error, "%s: shift %d < -31", op, (int)shifts[i]);
        }
    }
    if (p->input1_multiplier < 0 || p->input2_multiplier < 0 || p->output_multiplier < 0) {
        return AP_OPS_INVALID(error, "%s: multipliers must be >= 0", op);
    }
    return AP_OK;
}

static ap_status add_check(const ap_add_params *p, ap_error *error)
{
    return add_sub_check(p, "add", error);
}

static inline int8_t add1(const ap_add_params *p, int32_t x1, int32_t x2)
{
    const int32_t a = (x1 + p->input1_offset) * (1 << p->left_shift);
    const int32_t b = (x2 + p->input2_offset) * (1 << p->left_shift);
    const int32_t sa = ap_fp_multiply_by_quantized_multiplier(a, p->input1_multiplier, p->input1_shift);
    const int32_t sb = ap_fp_multiply_by_quantized_multiplier(b, p->input2_multiplier, p->input2_shift);
    const int32_t raw = ap_fp_multiply_by_quantized_multiplier(sa + sb, p->output_multiplier, p->output_shift) +
                        p->output_offset;
    return (int8_t)ap_ops_clamp(raw, p->activation_min, p->activation_max);
}

static void add_row(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    const ap_add_params *p = (const ap_add_params *)ctx;
    for (size_t i = 0; i < n; ++i) {
        out[i] = add1(p, a[sa ? i : 0], b[sb ? i : 0]);
    }
}

#if AP_OPS_HAVE_AVX2
/* x86-avx2: the vector loop over the rows that are not a broadcast scalar, the tail portable. */
static void add_row_simd(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    const ap_add_params *p = (const ap_add_params *)ctx;
    const size_t done = (sa | sb) ? ap_add_row_avx2(p, a, sa, b, sb, out, n) : 0;
    add_row(ctx, sa ? a + done : a, sa, sb ? b + done : b, sb, out + done, n - done);
}
#endif

/* arm-dsp: the SMMULR row where ADD's parameters are bounded as it needs, else portable. */
static void add_row_arm_dsp(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out,
                            size_t n)
{
    if (ap_add_row_arm_dsp((const ap_add_params *)ctx, a, sa, b, sb, out, n) != n) {
        add_row(ctx, a, sa, b, sb, out, n);
    }
}

static ew_row_fn add_row_for(const ap_variant *variant)
{
    if (variant != NULL && ap_ops_runs_arm_dsp(variant->isa)) {
        return add_row_arm_dsp;
    }
#if AP_OPS_HAVE_AVX2
    if (variant != NULL && ap_ops_runs_avx2(variant->isa)) {
        return add_row_simd;
    }
#endif
    (void)variant;
    return add_row;
}

ap_status ap_add_s8_variants(const ap_add_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    ap_status st = add_check(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    return ew_variants(params->input1_shape, params->input2_shape, params->output_shape, isa, variants_out, capacity,
                       count_out, "add", error_out);
}

ap_status ap_add_s8_run(const ap_add_params *params, const ap_variant *variant, const int8_t *input1,
                        const int8_t *input2, int8_t *output, const ap_scratch *scratch,
                        uint32_t scratch_count, ap_error *error_out)
{
    ap_status st = add_check(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    return ew_run(params->input1_shape, params->input2_shape, params->output_shape, variant, input1, input2,
                  output, scratch, scratch_count, "add", add_row_for(variant), params, error_out);
}

/* ---- SUB: TFLite's SubElementwise / BroadcastQuantSubSlow for int8, ADD's arithmetic with the
   second scaled input subtracted; one portable code for every ISA ---- */

static inline int8_t sub1(const ap_add_params *p, int32_t x1, int32_t x2)
{
    const int32_t a = (x1 + p->input1_offset) * (1 << p->left_shift);
    const int32_t b = (x2 + p->input2_offset) * (1 << p->left_shift);
    const int32_t sa = ap_fp_multiply_by_quantized_multiplier(a, p->input1_multiplier, p->input1_shift);
    const int32_t sb = ap_fp_multiply_by_quantized_multiplier(b, p->input2_multiplier, p->input2_shift);
    const int32_t raw = ap_fp_multiply_by_quantized_multiplier(sa - sb, p->output_multiplier, p->output_shift) +
                        p->output_offset;
    return (int8_t)ap_ops_clamp(raw, p->activation_min, p->activation_max);
}

static void sub_row(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    const ap_add_params *p = (const ap_add_params *)ctx;
    for (size_t i = 0; i < n; ++i) {
        out[i] = sub1(p, a[sa ? i : 0], b[sb ? i : 0]);
    }
}

ap_status ap_sub_s8_variants(const ap_add_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    ap_status st = add_sub_check(params, "sub", error_out);
    if (st != AP_OK) {
        return st;
    }
    return ew_variants(params->input1_shape, params->input2_shape, params->output_shape, isa, variants_out, capacity,
                       count_out, "sub", error_out);
}

ap_status ap_sub_s8_run(const ap_add_params *params, const ap_variant *variant, const int8_t *input1,
                        const int8_t *input2, int8_t *output, const ap_scratch *scratch,
                        uint32_t scratch_count, ap_error *error_out)
{
    ap_status st = add_sub_check(params, "sub", error_out);
    if (st != AP_OK) {
        return st;
    }
    return ew_run(params->input1_shape, params->input2_shape, params->output_shape, variant, input1, input2,
                  output, scratch, scratch_count, "sub", sub_row, params, error_out);
}

/* ---- MUL ---- */

static ap_status mul_check(const ap_mul_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "mul: params must not be NULL");
    }
    ap_status st = ew_check_shapes(p->input1_shape, p->input2_shape, p->output_shape, "mul", error);
    if (st != AP_OK) {
        return st;
    }
    st = ew_check_quant(p->input1_offset, p->input2_offset, p->output_offset, p->activation_min,
                        p->activation_max, "mul", error);
    if (st != AP_OK) {
        return st;
    }
    if (p->output_shift < -31 || p->output_shift > 31 || p->output_multiplier < 0) {
        return AP_OPS_INVALID(error, "mul: output_shift %d outside [-31, 31] or negative multiplier",
                              (int)p->output_shift);
    }
    return AP_OK;
}

static inline int8_t mul1(const ap_mul_params *p, int32_t x1, int32_t x2)
{
    const int32_t prod = (x1 + p->input1_offset) * (x2 + p->input2_offset);
    const int32_t raw = ap_fp_multiply_by_quantized_multiplier(prod, p->output_multiplier, p->output_shift) +
                        p->output_offset;
    return (int8_t)ap_ops_clamp(raw, p->activation_min, p->activation_max);
}

static void mul_row(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    const ap_mul_params *p = (const ap_mul_params *)ctx;
    for (size_t i = 0; i < n; ++i) {
        out[i] = mul1(p, a[sa ? i : 0], b[sb ? i : 0]);
    }
}

#if AP_OPS_HAVE_AVX2
/* x86-avx2: the vector loop over the rows that are not a broadcast scalar, the tail portable. */
static void mul_row_simd(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    const ap_mul_params *p = (const ap_mul_params *)ctx;
    const size_t done = (sa | sb) ? ap_mul_row_avx2(p, a, sa, b, sb, out, n) : 0;
    mul_row(ctx, sa ? a + done : a, sa, sb ? b + done : b, sb, out + done, n - done);
}
#endif

/* arm-dsp: SXTAB16 and SMULBB / SMULTT four elements a step, SMMULR, where MUL's shift allows. */
static void mul_row_arm_dsp(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out,
                            size_t n)
{
    if (ap_mul_row_arm_dsp((const ap_mul_params *)ctx, a, sa, b, sb, out, n) != n) {
        mul_row(ctx, a, sa, b, sb, out, n);
    }
}

static ew_row_fn mul_row_for(const ap_variant *variant)
{
    if (variant != NULL && ap_ops_runs_arm_dsp(variant->isa)) {
        return mul_row_arm_dsp;
    }
#if AP_OPS_HAVE_AVX2
    if (variant != NULL && ap_ops_runs_avx2(variant->isa)) {
        return mul_row_simd;
    }
#endif
    (void)variant;
    return mul_row;
}

ap_status ap_mul_s8_variants(const ap_mul_params *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    ap_status st = mul_check(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    return ew_variants(params->input1_shape, params->input2_shape, params->output_shape, isa, variants_out, capacity,
                       count_out, "mul", error_out);
}

ap_status ap_mul_s8_run(const ap_mul_params *params, const ap_variant *variant, const int8_t *input1,
                        const int8_t *input2, int8_t *output, const ap_scratch *scratch,
                        uint32_t scratch_count, ap_error *error_out)
{
    ap_status st = mul_check(params, error_out);
    if (st != AP_OK) {
        return st;
    }
    return ew_run(params->input1_shape, params->input2_shape, params->output_shape, variant, input1, input2,
                  output, scratch, scratch_count, "mul", mul_row_for(variant), params, error_out);
}

/* ---- MAXIMUM and MINIMUM (arenaplan/ops.h): the raw values compared, no requantisation ---- */
static void max_row(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < n; ++i) {   /* reads a and b at i before writing out[i]: in place is safe */
        const int8_t x = a[i * (size_t)sa], y = b[i * (size_t)sb];
        out[i] = x > y ? x : y;
    }
}

static void min_row(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < n; ++i) {
        const int8_t x = a[i * (size_t)sa], y = b[i * (size_t)sb];
        out[i] = x < y ? x : y;
    }
}

static ap_status minmax_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, const char *op, ap_error *error)
{
    const ap_minmax_params *p = params;
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    ap_status st = ew_check_shapes(p->input1_shape, p->input2_shape, p->output_shape, op, error);
    return st != AP_OK ? st : ew_variants(p->input1_shape, p->input2_shape, p->output_shape, isa, variants_out,
                                          capacity, count_out, op, error);
}

static ap_status minmax_run(const ap_op_call *call, ap_isa isa, const char *op, ew_row_fn row, ap_error *error)
{
    /* one code for every ISA: a compare a byte */
    if (call == NULL || call->params == NULL) {
        return AP_OPS_INVALID(error, "%s: call and params must not be NULL", op);
    }
    const ap_minmax_params *p = call->params;
    ap_status st = ew_check_shapes(p->input1_shape, p->input2_shape, p->output_shape, op, error);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, op, error);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st != AP_OK) {
        return st;
    }
    if (call->input_count != 2 || call->inputs == NULL) {
        return AP_OPS_INVALID(error, "%s: two inputs expected, got %u", op, (unsigned)call->input_count);
    }
    return ew_run(p->input1_shape, p->input2_shape, p->output_shape, call->variant, call->inputs[0], call->inputs[1],
                  call->output, call->scratch, call->scratch_count, op, row, NULL, error);
}

ap_status ap_maximum_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out)
{
    return minmax_variants(params, isa, variants_out, capacity, count_out, "maximum", error_out);
}

ap_status ap_maximum_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return minmax_run(call, isa, "maximum", max_row, error_out);
}

ap_status ap_minimum_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                 uint32_t *count_out, ap_error *error_out)
{
    return minmax_variants(params, isa, variants_out, capacity, count_out, "minimum", error_out);
}

ap_status ap_minimum_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return minmax_run(call, isa, "minimum", min_row, error_out);
}

/* ---- PRELU and SQUARED_DIFFERENCE (arenaplan/ops.h): ADD's broadcast walk, their own rows ---- */
/* The call checks every uniform-signature row here shares: params, the variant of this ISA,
   two inputs. */
static ap_status ew_check_call(const ap_op_call *call, ap_isa isa, const char *op, ap_error *error)
{
    ap_status st = ap_ops_check_variant_ptr(call->variant, op, error);
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st == AP_OK && (call->input_count != 2 || call->inputs == NULL)) {
        st = AP_OPS_INVALID(error, "%s: two inputs expected, got %u", op, (unsigned)call->input_count);
    }
    return st;
}

static int ew_shift_ok(int32_t multiplier, int32_t shift, int32_t max_shift)
{
    return multiplier >= 0 && shift >= -31 && shift <= max_shift;
}

static ap_status prelu_check(const ap_prelu_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "prelu: params must not be NULL");
    }
    ap_status st = ew_check_shapes(p->input_shape, p->alpha_shape, p->output_shape, "prelu", error);
    if (st != AP_OK) {
        return st;
    }
    if (!ew_same_shape(p->input_shape, p->output_shape)) {
        return AP_OPS_INVALID(error, "prelu: the output must have the input's shape (alpha broadcasts into it)");
    }
    if (!ap_ops_input_offset_ok(p->input_offset) || !ap_ops_input_offset_ok(p->alpha_offset) ||
        !ap_ops_int8_range(p->output_offset)) {
        return AP_OPS_INVALID(error, "prelu: offsets %d, %d and %d out of range", (int)p->input_offset,
                              (int)p->alpha_offset, (int)p->output_offset);
    }
    if (!ew_shift_ok(p->multiplier_1, p->shift_1, 30) || !ew_shift_ok(p->multiplier_2, p->shift_2, 30)) {
        return AP_OPS_INVALID(error, "prelu: multipliers %d, %d must be >= 0 and shifts %d, %d in [-31, 30]",
                              (int)p->multiplier_1, (int)p->multiplier_2, (int)p->shift_1, (int)p->shift_2);
    }
    return AP_OK;
}

static void prelu_row(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    const ap_prelu_params *p = (const ap_prelu_params *)ctx;
    for (size_t i = 0; i < n; ++i) {
        const int32_t v = p->input_offset + a[i * (size_t)sa];
        const int32_t scaled = v >= 0 ? ap_fp_multiply_by_quantized_multiplier(v, p->multiplier_1, p->shift_1)
                                      : ap_fp_multiply_by_quantized_multiplier(
                                            v * (p->alpha_offset + b[i * (size_t)sb]), p->multiplier_2, p->shift_2);
        out[i] = (int8_t)ap_ops_clamp(p->output_offset + scaled, -128, 127);
    }
}

ap_status ap_prelu_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                               uint32_t *count_out, ap_error *error_out)
{
    const ap_prelu_params *p = params;
    ap_status st = prelu_check(p, error_out);
    return st != AP_OK ? st : ew_variants(p->input_shape, p->alpha_shape, p->output_shape, isa, variants_out,
                                          capacity, count_out, "prelu", error_out);
}

ap_status ap_prelu_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, "prelu: call must not be NULL");
    }
    const ap_prelu_params *p = call->params;
    ap_status st = prelu_check(p, error_out);
    if (st == AP_OK) {
        st = ew_check_call(call, isa, "prelu", error_out);
    }
    return st != AP_OK ? st : ew_run(p->input_shape, p->alpha_shape, p->output_shape, call->variant, call->inputs[0],
                                     call->inputs[1], call->output, call->scratch, call->scratch_count, "prelu",
                                     prelu_row, p, error_out);
}

#define SQDIFF_OP "squared_difference"

static ap_status sqdiff_check(const ap_squared_difference_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, SQDIFF_OP ": params must not be NULL");
    }
    ap_status st = ew_check_shapes(p->input1_shape, p->input2_shape, p->output_shape, SQDIFF_OP, error);
    if (st != AP_OK) {
        return st;
    }
    if (!ap_ops_input_offset_ok(p->input1_offset) || !ap_ops_input_offset_ok(p->input2_offset) ||
        !ap_ops_int8_range(p->output_offset)) {
        return AP_OPS_INVALID(error, SQDIFF_OP ": offsets %d, %d and %d out of range", (int)p->input1_offset,
                              (int)p->input2_offset, (int)p->output_offset);
    }
    /* shifts <= 0 (TFLite's SmallerThanOneExp): the scaled inputs stay below 2^15 in magnitude,
       so their difference squared fits int32 */
    if (!ew_shift_ok(p->input1_multiplier, p->input1_shift, 0) || !ew_shift_ok(p->input2_multiplier, p->input2_shift, 0)
        || !ew_shift_ok(p->output_multiplier, p->output_shift, 0)) {
        return AP_OPS_INVALID(error, SQDIFF_OP ": multipliers must be >= 0 and shifts in [-31, 0]");
    }
    return AP_OK;
}

static inline int8_t sqdiff1(const ap_squared_difference_params *p, int32_t x1, int32_t x2)
{
    const int32_t a = ap_fp_multiply_by_quantized_multiplier((x1 + p->input1_offset) * (1 << 7), p->input1_multiplier,
                                                             p->input1_shift);
    const int32_t b = ap_fp_multiply_by_quantized_multiplier((x2 + p->input2_offset) * (1 << 7), p->input2_multiplier,
                                                             p->input2_shift);
    const int32_t d = a - b;
    /* below 2^30 for TFLite's multipliers (each input rescaled by at most 1/2); wrapped, not
       overflowed, for any other params the check lets through */
    const int32_t square = (int32_t)((uint32_t)d * (uint32_t)d);
    const int32_t raw = ap_fp_multiply_by_quantized_multiplier(square, p->output_multiplier, p->output_shift) +
                        p->output_offset;
    return (int8_t)ap_ops_clamp(raw, -128, 127);
}

static void sqdiff_row(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    const ap_squared_difference_params *p = (const ap_squared_difference_params *)ctx;
    for (size_t i = 0; i < n; ++i) {
        out[i] = sqdiff1(p, a[i * (size_t)sa], b[i * (size_t)sb]);
    }
}

ap_status ap_squared_difference_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out,
                                            uint32_t capacity, uint32_t *count_out, ap_error *error_out)
{
    const ap_squared_difference_params *p = params;
    ap_status st = sqdiff_check(p, error_out);
    return st != AP_OK ? st : ew_variants(p->input1_shape, p->input2_shape, p->output_shape, isa, variants_out,
                                          capacity, count_out, SQDIFF_OP, error_out);
}

ap_status ap_squared_difference_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, SQDIFF_OP ": call must not be NULL");
    }
    const ap_squared_difference_params *p = call->params;
    ap_status st = sqdiff_check(p, error_out);
    if (st == AP_OK) {
        st = ew_check_call(call, isa, SQDIFF_OP, error_out);
    }
    return st != AP_OK ? st : ew_run(p->input1_shape, p->input2_shape, p->output_shape, call->variant,
                                     call->inputs[0], call->inputs[1], call->output, call->scratch,
                                     call->scratch_count, SQDIFF_OP, sqdiff_row, p, error_out);
}

/* ---- BROADCAST_TO (arenaplan/ops.h): the walk with the input as both operands, copied ---- */
static void copy_row(const void *ctx, const int8_t *a, int sa, const int8_t *b, int sb, int8_t *out, size_t n)
{
    (void)ctx, (void)b, (void)sb;
    for (size_t i = 0; i < n; ++i) {
        out[i] = a[i * (size_t)sa];
    }
}

/* Every axis 1 or the output's (the walk's two operands are the input: ew_check_shapes would ask
   the output to be no larger). */
static ap_status broadcast_to_check(const ap_broadcast_to_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "broadcast_to: params must not be NULL");
    }
    for (int d = 0; d < 4; ++d) {
        if (p->input_shape[d] < 1 || p->output_shape[d] < 1 ||
            (p->input_shape[d] != 1 && p->input_shape[d] != p->output_shape[d])) {
            return AP_OPS_INVALID(error, "broadcast_to: dimension %d does not broadcast (%d -> %d)", d,
                                  (int)p->input_shape[d], (int)p->output_shape[d]);
        }
    }
    size_t n;
    if (!ap_ops_product(p->input_shape, 4, &n) || !ap_ops_product(p->output_shape, 4, &n)) {
        return AP_OPS_OVERFLOW(error, "broadcast_to: a tensor size overflows");
    }
    return AP_OK;
}

ap_status ap_broadcast_to_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                      uint32_t *count_out, ap_error *error_out)
{
    const ap_broadcast_to_params *p = params;
    ap_status st = broadcast_to_check(p, error_out);
    return st != AP_OK ? st : ew_variants(p->input_shape, p->input_shape, p->output_shape, isa, variants_out,
                                          capacity, count_out, "broadcast_to", error_out);
}

ap_status ap_broadcast_to_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, "broadcast_to: call must not be NULL");
    }
    const ap_broadcast_to_params *p = call->params;
    ap_status st = broadcast_to_check(p, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, "broadcast_to", error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, "broadcast_to: variant '%s' is a %s variant; asked to run it as %s",
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st == AP_OK && (call->input_count != 1 || call->inputs == NULL)) {
        st = AP_OPS_INVALID(error_out, "broadcast_to: one input expected, got %u", (unsigned)call->input_count);
    }
    return st != AP_OK ? st : ew_run(p->input_shape, p->input_shape, p->output_shape, call->variant, call->inputs[0],
                                     call->inputs[0], call->output, call->scratch, call->scratch_count,
                                     "broadcast_to", copy_row, NULL, error_out);
}

/* The copy of the wider rows: output element `at` reads input element r (<= at, the same where the
   shapes are equal), so in place over an input of the output's shape is safe. `elem` is a
   constant where this is inlined; memmove, so no alignment is assumed. */
static inline void broadcast_to_copy(const ap_broadcast_to_params *p, const unsigned char *in, unsigned char *out,
                                     size_t elem)
{
    size_t si[4];
    ap_ops_broadcast_strides(p->input_shape, si);
    const int32_t *o = p->output_shape;
    for (int32_t i0 = 0; i0 < o[0]; ++i0) {
        for (int32_t i1 = 0; i1 < o[1]; ++i1) {
            for (int32_t i2 = 0; i2 < o[2]; ++i2) {
                const size_t r = (size_t)i0 * si[0] + (size_t)i1 * si[1] + (size_t)i2 * si[2];
                for (int32_t i3 = 0; i3 < o[3]; ++i3, out += elem) {
                    memmove(out, in + (r + (size_t)i3 * si[3]) * elem, elem);
                }
            }
        }
    }
}

/* int16 BROADCAST_TO, the 4-byte rows (int32, float32) and int64: the int8 row's params and
   variants, values of `elem` bytes copied as they are. */
static ap_status broadcast_to_wide_run(const ap_op_call *call, ap_isa isa, size_t elem, const char *op,
                                       ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, "%s: call must not be NULL", op);
    }
    const ap_broadcast_to_params *p = call->params;
    ap_status st = broadcast_to_check(p, error_out);
    size_t n = 0, bytes = 0;
    if (st == AP_OK && (!ap_ops_product(p->output_shape, 4, &n) || !ap_ops_mul(n, elem, &bytes))) {
        st = AP_OPS_OVERFLOW(error_out, "%s: the output's bytes overflow", op);
    }
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, op, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st == AP_OK && (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL ||
                        call->output == NULL)) {
        st = AP_OPS_INVALID(error_out, "%s: one input and the output must not be NULL", op);
    }
    if (st != AP_OK) {
        return st;
    }
    if (elem == 2) {
        broadcast_to_copy(p, call->inputs[0], call->output, 2);
    } else if (elem == 4) {
        broadcast_to_copy(p, call->inputs[0], call->output, 4);
    } else {
        broadcast_to_copy(p, call->inputs[0], call->output, 8);
    }
    return AP_OK;
}

ap_status ap_broadcast_to_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return broadcast_to_wide_run(call, isa, 2, "broadcast_to_s16", error_out);
}

ap_status ap_broadcast_to_s32_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return broadcast_to_wide_run(call, isa, 4, "broadcast_to", error_out);
}

ap_status ap_broadcast_to_s64_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return broadcast_to_wide_run(call, isa, 8, "broadcast_to_s64", error_out);
}
