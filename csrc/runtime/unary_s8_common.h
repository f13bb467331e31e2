/*
 * What the int8 ops that are a function of one int8 value share (LEAKY_RELU, LOGISTIC, TANH,
 * HARD_SWISH): the variants, `direct` (the op's function on every element, no scratch) and
 * `table` (the function's 256 outputs into a 256-byte scratch table, then one lookup per
 * element), or, for an op whose params carry its 256 outputs (computed when the plan was
 * made), `lookup` alone (one lookup per element in that table, no scratch); every one may
 * write over its input. And the run() that checks the call and executes any of them. Not a
 * public header; everything is static inline.
 */
#ifndef ARENAPLAN_UNARY_S8_COMMON_H
#define ARENAPLAN_UNARY_S8_COMMON_H

#include "arenaplan/ops.h"

#include "ops_s8_common.h"

enum { AP_UNARY_S8_TABLE_BYTES = 256 };

/* The op's output for one int8 input x (params already checked). */
typedef int8_t (*ap_unary_s8_fn)(const void *params, int32_t x);

/* Whether a variant kind applies: `carried` is the op's table of 256 outputs from its params,
   or NULL when the kernel computes them. One place for variants() and run(). */
static inline int ap_unary_s8_applies(int32_t kind, const int8_t *carried)
{
    if (kind == AP_UNARY_S8_LOOKUP) {
        return carried != NULL;
    }
    return (kind == AP_UNARY_S8_DIRECT || kind == AP_UNARY_S8_TABLE) && carried == NULL;
}

/* The scratch a variant kind needs: one place for variants() and run(). */
static inline uint32_t ap_unary_s8_scratch(int32_t kind, size_t *bytes_out)
{
    if (kind == AP_UNARY_S8_TABLE) {
        bytes_out[0] = AP_UNARY_S8_TABLE_BYTES;
        return 1;
    }
    return 0;
}

/* The variants that apply (see ap_unary_s8_applies), least scratch first. */
static inline ap_status ap_unary_s8_variants(size_t count, const int8_t *carried, ap_isa isa,
                                             ap_variant *variants_out, uint32_t capacity, uint32_t *count_out,
                                             const char *op, ap_error *error)
{
    static const int32_t kinds[3] = {AP_UNARY_S8_DIRECT, AP_UNARY_S8_TABLE, AP_UNARY_S8_LOOKUP};
    static const char *const names[3] = {"direct", "table", "lookup"};
    ap_variant found[3];
    uint32_t found_count = 0;
    size_t bytes[1] = {0};
    const size_t align[1] = {1};
    for (uint32_t i = 0; i < 3; ++i) {
        if (ap_unary_s8_applies(kinds[i], carried)) {
            const uint32_t n = ap_unary_s8_scratch(kinds[i], bytes);
            ap_ops_variant_set(&found[found_count++], kinds[i], 0, names[i], n, bytes, align, (uint64_t)count, 1);
        }
    }
    return ap_ops_variants_out(found, found_count, isa, variants_out, capacity, count_out, op, error);
}

/* run() after the op has checked its params: the call, the variant and its scratch. Every
   variant reads in[i] before writing out[i], so the output may be the input. `fn` computes one
   output (DIRECT, TABLE); `carried` as for ap_unary_s8_applies (LOOKUP). */
static inline ap_status ap_unary_s8_run(const ap_op_call *call, ap_isa isa, size_t count, ap_unary_s8_fn fn,
                                        const int8_t *carried, const char *op, ap_error *error)
{
    ap_status st = ap_ops_check_variant_ptr(call->variant, op, error);
    if (st == AP_OK && call->variant->isa != (int32_t)isa) {
        st = AP_OPS_INVALID(error, "%s: variant '%s' is a %s variant; asked to run it as %s", op,
                            call->variant->name, ap_isa_name(call->variant->isa), ap_isa_name(isa));
    }
    if (st != AP_OK) {
        return st;
    }
    if (call->input_count != 1 || call->inputs == NULL || call->inputs[0] == NULL || call->output == NULL) {
        return AP_OPS_INVALID(error, "%s: one input and the output must not be NULL", op);
    }
    const int32_t kind = call->variant->kind;
    if (!ap_unary_s8_applies(kind, carried)) {
        return AP_OPS_INVALID(error, "%s: variant kind %d does not apply (%s)", op, (int)kind,
                              carried != NULL ? "the params carry the table: lookup only"
                                              : "the params carry no table: direct or table");
    }
    size_t need[1] = {0};
    const uint32_t need_count = ap_unary_s8_scratch(kind, need);
    st = ap_ops_check_scratch(op, call->variant->name, need, need_count, call->scratch, call->scratch_count,
                              error);
    if (st != AP_OK) {
        return st;
    }
    const void *p = call->params;
    const int8_t *in = call->inputs[0];
    int8_t *out = call->output;
    if (kind == AP_UNARY_S8_LOOKUP) {
        for (size_t i = 0; i < count; ++i) {
            out[i] = carried[(int32_t)in[i] + 128];
        }
        return AP_OK;
    }
    if (kind == AP_UNARY_S8_DIRECT) {
        for (size_t i = 0; i < count; ++i) {
            out[i] = fn(p, in[i]);
        }
        return AP_OK;
    }
    int8_t *table = call->scratch[0].data;   /* table[x + 128]: the output of input x */
    for (int32_t x = -128; x <= 127; ++x) {
        table[x + 128] = fn(p, x);
    }
    for (size_t i = 0; i < count; ++i) {
        out[i] = table[(int32_t)in[i] + 128];
    }
    return AP_OK;
}

#endif
