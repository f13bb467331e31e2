/* Stable names of statuses. */
#include "arenaplan/status.h"

#include <string.h>

const char *ap_status_str(ap_status status)
{
    switch (status) {
    case AP_OK: return "ok";
    case AP_ERR_INVALID_ARGUMENT: return "invalid_argument";
    case AP_ERR_OVERFLOW: return "overflow";
    case AP_ERR_DOES_NOT_FIT: return "does_not_fit";
    case AP_ERR_OUT_OF_MEMORY: return "out_of_memory";
    case AP_ERR_SCRATCH_TOO_SMALL: return "scratch_too_small";
    case AP_ERR_UNSUPPORTED: return "unsupported";
    case AP_ERR_INVALID_PLAN: return "invalid_plan";
    case AP_ERR_TIMEOUT: return "timeout";
    case AP_ERR_CANCELLED: return "cancelled";
    }
    return "unknown";
}

void ap_error_clear(ap_error *error)
{
    if (error == NULL) {
        return;
    }
    memset(error, 0, sizeof(*error));
    error->status = AP_OK;
    error->subject = AP_SUBJECT_NONE;
    error->index = -1;
    error->other = -1;
    error->op = -1;
}
