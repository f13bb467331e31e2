/*
 * arenaplan status codes and error records.
 *
 * Every fallible function returns an ap_status (AP_OK == 0) and, when the
 * caller passes a non-NULL ap_error *, fills it with what went wrong: which
 * op / tensor / buffer / pool, and the bytes needed versus available.
 * Values are explicit and append-only: never renumber them.
 */
#ifndef ARENAPLAN_STATUS_H
#define ARENAPLAN_STATUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ap_status {
    /** Success. */
    AP_OK = 0,
    /** An argument is out of its documented range (negative size, first > last, ...). */
    AP_ERR_INVALID_ARGUMENT = 1,
    /** A size or offset computation would overflow size_t. */
    AP_ERR_OVERFLOW = 2,
    /** The buffers do not fit the given capacity (needed > available). */
    AP_ERR_DOES_NOT_FIT = 3,
    /** A host-side allocation failed. */
    AP_ERR_OUT_OF_MEMORY = 4,
    /** A scratch buffer passed to a kernel is smaller than the variant requested. */
    AP_ERR_SCRATCH_TOO_SMALL = 5,
    /** The op, variant or parameter combination is not implemented. */
    AP_ERR_UNSUPPORTED = 6,
    /** A plan failed verification (misaligned, overlapping live buffers, out of capacity). */
    AP_ERR_INVALID_PLAN = 7,
    /** A search hit its time limit before it could answer the question asked. */
    AP_ERR_TIMEOUT = 8,
    /** The caller cancelled the call (its poll hook returned nonzero, e.g. on Ctrl-C). */
    AP_ERR_CANCELLED = 9
} ap_status;

/** Which kind of object an ap_error refers to. */
typedef enum ap_subject {
    AP_SUBJECT_NONE = 0,
    AP_SUBJECT_BUFFER = 1,
    AP_SUBJECT_OP = 2,
    AP_SUBJECT_POOL = 3,
    AP_SUBJECT_ARGUMENT = 4
} ap_subject;

/**
 * Details of a failure. Fields that do not apply are -1 (indices) or 0 (bytes).
 * `message` is a NUL-terminated English sentence without a trailing newline.
 */
typedef struct ap_error {
    ap_status status;
    ap_subject subject;
    int64_t index;       /* buffer / pool / argument index the error is about, or -1 */
    int64_t other;       /* a second buffer index (e.g. the one overlapping), or -1 */
    int64_t op;          /* op (time step) where it happens, or -1 */
    uint64_t needed;     /* bytes needed, 0 if not applicable */
    uint64_t available;  /* bytes available, 0 if not applicable */
    char message[160];
} ap_error;

/** Stable lowercase name of a status ("ok", "invalid_argument", ...); "unknown" for others. */
const char *ap_status_str(ap_status status);

/** Reset an error record to "no error" (safe on NULL). */
void ap_error_clear(ap_error *error);

#ifdef __cplusplus
}
#endif
#endif
