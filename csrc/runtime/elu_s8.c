/* int8 ELU (arenaplan/ops.h): a lookup in the table of the 256 outputs that the params carry,
   computed when the plan was made as TFLite builds it in Prepare (LiteRT: expm1f; TensorFlow Lite
   Micro: expf - 1). */
#include "arenaplan/ops.h"

#include "ops_s8_common.h"
#include "unary_s8_common.h"

#define ELU_OP "ELU int8"

static ap_status elu_check(const ap_elu_s8_params *p, ap_error *error)
{
    if (p == NULL) {
        return AP_OPS_INVALID(error, ELU_OP ": params must not be NULL");
    }
    if (p->table == NULL || p->table_size != AP_UNARY_S8_TABLE_BYTES) {
        return AP_OPS_INVALID(error, ELU_OP ": the params carry the 256 outputs: table must not be NULL and "
                              "table_size %d must be 256", (int)p->table_size);
    }
    return AP_OK;
}

ap_status ap_elu_s8_variants(const void *params, ap_isa isa, ap_variant *variants_out, uint32_t capacity,
                             uint32_t *count_out, ap_error *error_out)
{
    const ap_elu_s8_params *p = params;
    ap_status st = elu_check(p, error_out);
    return st != AP_OK ? st : ap_unary_s8_variants(p->count, p->table, isa, variants_out, capacity, count_out,
                                                   ELU_OP, error_out);
}

ap_status ap_elu_s8_run(const ap_op_call *call, ap_isa isa, ap_error *error_out)
{
    if (call == NULL) {
        return AP_OPS_INVALID(error_out, ELU_OP ": call must not be NULL");
    }
    const ap_elu_s8_params *p = call->params;
    ap_status st = elu_check(p, error_out);
    return st != AP_OK ? st : ap_unary_s8_run(call, isa, p->count, NULL, p->table, ELU_OP, error_out);
}
