/* The checks of the binary ops with 4-D broadcasting (broadcast4.h). */
#include "broadcast4.h"

ap_status ap_bcast4_check(const int32_t *s1, const int32_t *s2, const int32_t *so, const char *op, ap_error *error)
{
    for (int d = 0; d < 4; ++d) {
        const int32_t a = s1[d], b = s2[d], o = so[d];
        if (a < 1 || b < 1 || o != (a > b ? a : b) || (a != 1 && a != o) || (b != 1 && b != o)) {
            return AP_OPS_INVALID(error, "%s: dimension %d does not broadcast (%d and %d -> %d)", op, d, (int)a,
                                  (int)b, (int)o);
        }
    }
    return AP_OK;
}

ap_status ap_bcast4_direct_variant(const int32_t *s1, const int32_t *s2, const int32_t *so, uint64_t macs, ap_isa isa,
                                   ap_variant *variants_out, uint32_t capacity, uint32_t *count_out, const char *op,
                                   ap_error *error)
{
    ap_variant found[1];
    ap_ops_variant_set(&found[0], 0, 0, "direct", 0, NULL, NULL, macs,
                       ap_bcast4_same(s1, so) || ap_bcast4_same(s2, so));
    return ap_ops_variants_out(found, 1, isa, variants_out, capacity, count_out, op, error);
}

ap_status ap_bcast4_check_call(const ap_op_call *call, ap_isa isa, const char *op, ap_error *error)
{
    ap_status st = ap_ops_check_variant_ptr(call->variant, op, error);
    if (st != AP_OK) {
        return st;
    }
    if (call->variant->isa != (int32_t)isa || call->variant->kind != 0) {
        return AP_OPS_INVALID(error, "%s: variant '%s' (%s, kind %d) is not this row's direct variant for %s", op,
                              call->variant->name, ap_isa_name(call->variant->isa), (int)call->variant->kind,
                              ap_isa_name(isa));
    }
    if (call->input_count != 2 || call->inputs == NULL || call->inputs[0] == NULL || call->inputs[1] == NULL ||
        call->output == NULL) {
        return AP_OPS_INVALID(error, "%s: two inputs and the output must not be NULL", op);
    }
    return AP_OK;
}
