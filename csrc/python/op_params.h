/*
 * Building kernels' params structs from Python specs (internal to the bindings).
 *
 * A spec is a dict {field: value} with exactly the fields of the op's params descriptor
 * (arenaplan/ops.h, the op table): scalars as ints or floats, inline arrays and pointed-to
 * arrays as sequences, an optional pointer as None. The struct and every array it points
 * into are owned by an ap_py_op_params and freed with ap_py_op_params_release.
 */
#ifndef ARENAPLAN_PY_OP_PARAMS_H
#define ARENAPLAN_PY_OP_PARAMS_H

#include "binding.h"

enum { AP_PY_PARAMS_BYTES = 320, AP_PY_PARAMS_ARRAYS = 8 };

typedef struct ap_py_op_params {
    const ap_op_def *def;               /* the op's table row */
    union {
        unsigned char bytes[AP_PY_PARAMS_BYTES];
        int64_t align_int;
        void *align_pointer;
        double align_double;
    } storage;
    void *arrays[AP_PY_PARAMS_ARRAYS];  /* PyMem_Malloc'd arrays the struct points into */
} ap_py_op_params;

/** Fill `out` for the row (`op`, `types`) from the dict `spec`; returns 0, or -1 with a Python
    exception set (ValueError naming the op, the field and the value for a missing, unknown or
    out-of-range field, or the op and types when the table has no such row). */
int ap_py_op_params_fill(ap_op op, ap_types types, PyObject *spec, ap_py_op_params *out);

/** Free the arrays (safe to call twice). */
void ap_py_op_params_release(ap_py_op_params *params);

/** Find the variant with (kind, param); returns 0, or -1 with a Python exception set. */
int ap_py_op_find_variant(const ap_py_op_params *params, int kind, int param, int isa, ap_variant *out);

/** The op table as Python data (arenaplan._core.ops()). */
PyObject *ap_py_ops_list(void);

#endif
