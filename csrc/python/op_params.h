/*
 * Building kernels' params structs from Python specs (internal to the bindings).
 *
 * A spec is a tuple whose form depends on the op (see op_params.c). The struct
 * and every array it points into are owned by an ap_py_op_params and freed with
 * ap_py_op_params_release.
 */
#ifndef ARENAPLAN_PY_OP_PARAMS_H
#define ARENAPLAN_PY_OP_PARAMS_H

#include "binding.h"

#include "arenaplan/shape_ops.h"

enum { AP_PY_PARAMS_BYTES = 320, AP_PY_PARAMS_ARRAYS = 6 };

typedef struct ap_py_op_params {
    ap_op op;
    union {
        unsigned char bytes[AP_PY_PARAMS_BYTES];
        int64_t align_int;
        void *align_pointer;
        double align_double;
    } storage;
    void *arrays[AP_PY_PARAMS_ARRAYS];  /* PyMem_Malloc'd arrays the struct points into */
} ap_py_op_params;

/** Fill `out` for `op` from `spec`; returns 0, or -1 with a Python exception set. */
int ap_py_op_params_fill(ap_op op, PyObject *spec, ap_py_op_params *out);

/** Free the arrays (safe to call twice). */
void ap_py_op_params_release(ap_py_op_params *params);

/** The op's _variants function on these params. */
ap_status ap_py_op_variants(const ap_py_op_params *params, ap_variant *variants_out,
                            uint32_t capacity, uint32_t *count_out, ap_error *error_out);

/** Find the variant with (kind, param); returns 0, or -1 with a Python exception set. */
int ap_py_op_find_variant(const ap_py_op_params *params, int kind, int param, ap_variant *out);

/** 1 for ops with prepared constants (conv, depthwise, fully connected, LSTM). */
int ap_py_op_is_weighted(ap_op op);

/** Elements the params' shapes give the filter (int8) and bias (int32) a weighted op's prepare
    reads; returns 0, or -1 with a Python exception set. */
int ap_py_op_constant_counts(const ap_py_op_params *params, Py_ssize_t *filter_count,
                             Py_ssize_t *bias_count);

/** Prepared-size and prepare of a weighted op. */
ap_status ap_py_op_prepared_size(const ap_py_op_params *params, size_t *bytes_out, ap_error *error_out);
ap_status ap_py_op_prepare(const ap_py_op_params *params, const int8_t *filter, const int32_t *bias,
                           void *prepared_out, size_t prepared_bytes, ap_error *error_out);

#endif
