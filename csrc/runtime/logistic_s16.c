/* int16 LOGISTIC and TANH (arenaplan/ops.h, ap_logistic_s16_params): TFLite's
   reference_integer_ops::Logistic / Tanh for int16, an interpolated table of the sigmoid. */
#include "arenaplan/ops.h"

#include "ops_s8_common.h"

#define LOGISTIC16_OP "logistic_s16"
#define TANH16_OP "tanh_s16"

/* sigmoid(i / 24) in Q0.16 for i in [0, 255], the values of TFLite's sigmoid_table_uint16 (both
   runtimes' int16 LOGISTIC and TANH read it). They are TFLite's own roundings, not
   round(65536 * sigmoid(i / 24)) (44 entries are one above that), so they are data here, not
   computed: being bit-exact with TFLite needs these very numbers. */
static const uint16_t logistic16_sigmoid[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
    40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
    47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
    53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
    60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
    62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
    63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
    64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
    65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
    65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
    65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
    65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
    65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
    65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65534, 65535,
};

static ap_status logistic16_check(const ap_logistic_s16_params *p, const char *op, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "%s: params must not be NULL", op);
    }
    if (p->input_left_shift < 0 || p->input_left_shift > 31 || p->input_multiplier < 1 ||
        p->input_multiplier > (p->input_left_shift > 0 ? 32767 : 65535)) {
        return AP_OPS_INVALID(error, "%s: input_multiplier %d must lie in [1, 65535] (in [1, 32767] where "
                              "input_left_shift > 0) and input_left_shift %d in [0, 31]", op,
                              (int)p->input_multiplier, (int)p->input_left_shift);
    }
    return AP_OK;
}

static ap_status logistic16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                     uint32_t *count_out, const char *op, ap_error *error_out)
{
    const ap_logistic_s16_params *p = params;
    ap_status st = logistic16_check(p, op, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant found[1];
    ap_ops_variant_set(&found[0], AP_UNARY_S8_DIRECT, 0, "direct", 0, NULL, NULL, (uint64_t)p->count, 1);
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, op, error_out);
}

ap_status ap_logistic_s16_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                                   uint32_t *count_out, ap_error *error_out)
{
    /* TANH's row shares these: the variants do not depend on the function */
    return logistic16_variants(params, isa, variants_out, capacity, count_out, LOGISTIC16_OP, error_out);
}

/* The input on the scale 1 / (3 * 4096): the checked params keep x * multiplier + r in int32. */
static inline int32_t logistic16_scaled(int32_t x, const ap_logistic_s16_params *p)
{
    const int32_t shift = p->input_left_shift;
    const int32_t round = shift > 0 ? (int32_t)((uint32_t)1 << (shift - 1)) : 0;
    return (x * p->input_multiplier + round) >> shift;
}

static int16_t logistic16_one(int32_t x, const ap_logistic_s16_params *p)
{
    const int32_t v = logistic16_scaled(x, p);
    const uint32_t a = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
    const uint32_t segment = a >> 9;
    uint32_t r;
    if (segment >= 255) {
        r = (uint32_t)0x7FFF << 10;
    } else {
        const uint32_t lo = logistic16_sigmoid[segment], hi = logistic16_sigmoid[segment + 1];
        r = (lo << 9) + (a & 0x1FFu) * (hi - lo);   /* Q0.25: hi >= lo */
    }
    /* 1 - sigmoid(|v|) below zero; to Q0.15 rounding half up */
    r = v >= 0 ? r + (1u << 9) : ((uint32_t)1 << 25) - r + (1u << 9) - 1u;
    return (int16_t)(r >> 10);
}

static int16_t tanh16_one(int32_t x, const ap_logistic_s16_params *p)
{
    const int32_t v = logistic16_scaled(x, p);
    const uint32_t a = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
    const uint32_t segment = a >> 8;
    int32_t r;
    if (segment >= 255) {
        r = 0xFFFF << 8;
    } else {
        const uint32_t lo = logistic16_sigmoid[segment], hi = logistic16_sigmoid[segment + 1];
        r = (int32_t)((lo << 8) + (a & 0xFFu) * (hi - lo));   /* sigmoid(2|x|) in Q0.24 */
    }
    /* 2 * sigmoid - 1 with the sign of v, to Q0.15 (an arithmetic shift, as TFLite's) */
    r = v >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
    return (int16_t)(r >> 8);
}

/* The same for one value, for kernels that apply the gates inside a larger op (the 16x8 LSTM). */
int16_t ap_logistic16_value(int32_t x, const ap_logistic_s16_params *p)
{
    return logistic16_one(x, p);
}

int16_t ap_tanh16_value(int32_t x, const ap_logistic_s16_params *p)
{
    return tanh16_one(x, p);
}

static ap_status logistic16_run(const ap_op_call *call, ap_isa isa, int tanh, ap_error *error_out)
{
    const char *op = tanh ? TANH16_OP : LOGISTIC16_OP;
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, "%s: call must not be NULL", op);
    }
    const ap_logistic_s16_params *p = call->params;
    ap_status st = logistic16_check(p, op, error_out);
    if (st == AP_OK) {
        st = ap_ops_check_variant_ptr(call->variant, op, error_out);
    }
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error_out, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->kind != AP_UNARY_S8_DIRECT) {
        return AP_OPS_INVALID(error_out, "%s: variant kind %d does not apply (direct only)", op,
                              (int)call->variant->kind);
    }
    st = ap_ops_check_scratch(op, call->variant->name, NULL, 0, call->scratch, call->scratch_count, error_out);
    if (st != AP_OK) {
        return st;
    }
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error_out, "%s: one input and the output must not be NULL", op);
    }
    if (((uintptr_t)call->inputs[0] & 1u) != 0 || ((uintptr_t)call->output & 1u) != 0) {
        return AP_OPS_INVALID(error_out, "%s: the input and output must be 2-byte aligned", op);
    }
    /* in[i] is read before out[i] is written: the output may be the input */
    const int16_t *in = call->inputs[0];
    int16_t *out = call->output;
    if (tanh) {
        for (size_t i = 0; i < p->count; ++i) {
            out[i] = tanh16_one(in[i], p);
        }
    } else {
        for (size_t i = 0; i < p->count; ++i) {
            out[i] = logistic16_one(in[i], p);
        }
    }
    return AP_OK;
}

ap_status ap_logistic_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return logistic16_run(call, isa, 0, error_out);
}

ap_status ap_tanh_s16_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    return logistic16_run(call, isa, 1, error_out);
}
