/* JUMP: the control node of inlined IF and WHILE. The executor takes the jump itself
   (executor.c); the op table row gives it params, a variant and a run entry like any op. */
#include "arenaplan/ops.h"

#include "ops_s8_common.h"

static ap_status jump_check(const ap_jump_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, "jump: params must not be NULL");
    }
    if (p->when != AP_JUMP_ALWAYS && p->when != AP_JUMP_IF_FALSE) {
        return AP_OPS_INVALID(error, "jump: when %d is not an ap_jump_when (0 always, 1 if false)", (int)p->when);
    }
    return AP_OK;
}

ap_status ap_jump_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                           uint32_t *count_out, ap_error *error_out)
{
    ap_status st = jump_check((const ap_jump_params *)params, error_out);
    if (st != AP_OK) {
        return st;
    }
    ap_variant v;
    ap_ops_variant_set(&v, 0, 0, "direct", 0, NULL, NULL, 0, 0);
    return ap_ops_variants_out(&v, 1, isa, variants_out, capacity, count_out, "jump", error_out);
}

ap_status ap_jump_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    (void)isa;
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, "jump: call must not be NULL");
    }
    ap_status st = jump_check((const ap_jump_params *)call->params, error_out);
    if (st != AP_OK) {
        return st;
    }
    return ap_ops_check_variant_ptr(call->variant, "jump", error_out);
}
