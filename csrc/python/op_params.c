/*
 * Params structs from Python specs. Spec forms, by op:
 *   CONV2D, DEPTHWISE_CONV2D, FULLY_CONNECTED:
 *       (ints, (multipliers, shifts, per_channel, output_offset, act_min, act_max), real_scale)
 *       ints: the struct's leading int32 fields in order; real_scale: floats or None (FC only)
 *   AVERAGE_POOL2D, MAX_POOL2D, ADD, MUL, SOFTMAX, PAD, MEAN, SVDF,
 *   UNIDIRECTIONAL_SEQUENCE_LSTM: (ints,) all int32 fields in order
 *   RESHAPE: (bytes,)
 *   QUANTIZE, DEQUANTIZE: (count, scale, zero_point)
 *   REQUANTIZE: (count, input_zero_point, output_zero_point, multiplier, shift
 *                [, input_type, output_type])   types: ap_dtype, int8 when left out
 *   CONCATENATION: (output_shape[4], axis, axis_sizes, multipliers|None, shifts|None,
 *                   zero_points|None, output_zero_point)
 */
#include "op_params.h"

#include <stddef.h>
#include <string.h>

#include "arenaplan/conv2d.h"
#include "arenaplan/depthwise_conv2d.h"
#include "arenaplan/elementwise.h"
#include "arenaplan/fully_connected.h"
#include "arenaplan/lstm.h"
#include "arenaplan/pooling.h"
#include "arenaplan/quantize.h"
#include "arenaplan/shape_ops.h"
#include "arenaplan/softmax.h"
#include "arenaplan/svdf.h"

/* Convert one item: 0, or -1 with a Python exception set. */
typedef int (*ap_py_item_fn)(PyObject *item, void *out, const char *what, Py_ssize_t i);

static int ap_py_item_int32(PyObject *item, void *out, const char *what, Py_ssize_t i)
{
    long long v = PyLong_AsLongLong(item);
    if ((v == -1 && PyErr_Occurred()) || v < INT32_MIN || v > INT32_MAX) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_OverflowError, "%s[%zd] = %lld is out of int32 range", what, i, v);
        }
        return -1;
    }
    *(int32_t *)out = (int32_t)v;
    return 0;
}

static int ap_py_item_double(PyObject *item, void *out, const char *what, Py_ssize_t i)
{
    (void)what;
    (void)i;
    double v = PyFloat_AsDouble(item);
    if (v == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    *(double *)out = v;
    return 0;
}

/* Copy a sequence into a new array owned by `p` (freed by ap_py_op_params_release);
   count_out (may be NULL) gets the length. Returns NULL with an exception set on error. */
static void *ap_py_array(ap_py_op_params *p, PyObject *seq, const char *what, size_t item_size,
                         ap_py_item_fn convert, Py_ssize_t *count_out)
{
    int slot = 0;
    while (slot < AP_PY_PARAMS_ARRAYS && p->arrays[slot] != NULL) {
        slot++;
    }
    if (slot == AP_PY_PARAMS_ARRAYS) {
        PyErr_SetString(PyExc_SystemError, "too many arrays in one params struct");
        return NULL;
    }
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    unsigned char *values = PyMem_Malloc((size_t)(n > 0 ? n : 1) * item_size);
    if (values == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (convert(PySequence_Fast_GET_ITEM(fast, i), values + (size_t)i * item_size, what, i) != 0) {
            PyMem_Free(values);
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    p->arrays[slot] = values;
    if (count_out != NULL) {
        *count_out = n;
    }
    return values;
}

static int32_t *ap_py_int32_array(ap_py_op_params *p, PyObject *seq, const char *what,
                                  Py_ssize_t *count_out)
{
    return ap_py_array(p, seq, what, sizeof(int32_t), ap_py_item_int32, count_out);
}

static double *ap_py_double_array(ap_py_op_params *p, PyObject *seq, const char *what)
{
    return ap_py_array(p, seq, what, sizeof(double), ap_py_item_double, NULL);
}

/* Copy exactly `count` ints into the struct's leading int32 fields. */
static int ap_py_fill_ints(ap_py_op_params *p, PyObject *ints, size_t count, const char *what)
{
    Py_ssize_t n = 0;
    int32_t *values = ap_py_int32_array(p, ints, what, &n);
    if (values == NULL) {
        return -1;
    }
    if ((size_t)n != count) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zu ints, got %zd", what, count, n);
        return -1;
    }
    memcpy(p->storage.bytes, values, count * sizeof(int32_t));
    return 0;
}

/* int_fields: the int32 fields before the requant member (which may follow padding). */
static int ap_py_fill_weighted(ap_py_op_params *p, PyObject *spec, size_t int_fields,
                               size_t requant_offset, ptrdiff_t real_scale_offset)
{
    PyObject *ints, *requant, *real_scale;
    if (!PyArg_ParseTuple(spec, "OOO", &ints, &requant, &real_scale)) {
        return -1;
    }
    if (ap_py_fill_ints(p, ints, int_fields, "params") != 0) {
        return -1;
    }
    if (requant == Py_None) {
        return 0;
    }
    PyObject *mult, *shift;
    int per_channel, offset, lo, hi;
    if (!PyArg_ParseTuple(requant, "OOiiii", &mult, &shift, &per_channel, &offset, &lo, &hi)) {
        return -1;
    }
    Py_ssize_t n_mult = 0, n_shift = 0;
    ap_requant *rq = (ap_requant *)(p->storage.bytes + requant_offset);
    rq->multiplier = ap_py_int32_array(p, mult, "output_multiplier", &n_mult);
    if (rq->multiplier == NULL) {
        return -1;
    }
    rq->shift = ap_py_int32_array(p, shift, "output_shift", &n_shift);
    if (rq->shift == NULL) {
        return -1;
    }
    if (n_mult != n_shift || n_mult == 0) {
        PyErr_Format(PyExc_ValueError, "%zd multipliers and %zd shifts", n_mult, n_shift);
        return -1;
    }
    rq->per_channel = per_channel;
    rq->output_offset = offset;
    rq->activation_min = lo;
    rq->activation_max = hi;
    if (real_scale != Py_None) {
        if (real_scale_offset < 0) {
            PyErr_SetString(PyExc_ValueError, "this op takes no real_scale");
            return -1;
        }
        const double *values = ap_py_double_array(p, real_scale, "real_scale");
        if (values == NULL) {
            return -1;
        }
        memcpy(p->storage.bytes + real_scale_offset, &values, sizeof(values));
    }
    return 0;
}

static int ap_py_fill_concatenation(ap_py_op_params *p, PyObject *spec)
{
    ap_concatenation_params *c = (ap_concatenation_params *)p->storage.bytes;
    PyObject *shape, *sizes, *mult, *shift, *zps;
    int axis, out_zp;
    if (!PyArg_ParseTuple(spec, "OiOOOOi", &shape, &axis, &sizes, &mult, &shift, &zps, &out_zp)) {
        return -1;
    }
    Py_ssize_t n = 0, m = 0;
    const int32_t *s = ap_py_int32_array(p, shape, "output_shape", &n);
    if (s == NULL) {
        return -1;
    }
    if (n != 4) {
        PyErr_SetString(PyExc_ValueError, "output_shape must have 4 entries");
        return -1;
    }
    memcpy(c->output_shape, s, sizeof(c->output_shape));
    c->axis = axis;
    c->output_zero_point = out_zp;
    c->input_axis_sizes = ap_py_int32_array(p, sizes, "input_axis_sizes", &n);
    if (c->input_axis_sizes == NULL) {
        return -1;
    }
    c->input_count = (uint32_t)n;
    PyObject *optional[3] = {mult, shift, zps};
    const int32_t **targets[3] = {&c->input_multipliers, &c->input_shifts, &c->input_zero_points};
    for (int i = 0; i < 3; i++) {
        if (optional[i] == Py_None) {
            continue;
        }
        *targets[i] = ap_py_int32_array(p, optional[i], "concatenation quantisation", &m);
        if (*targets[i] == NULL) {
            return -1;
        }
        if (m != n) {
            PyErr_Format(PyExc_ValueError, "%zd requantisation entries for %zd inputs", m, n);
            return -1;
        }
    }
    return 0;
}

int ap_py_op_params_fill(ap_op op, PyObject *spec, ap_py_op_params *out)
{
    memset(out, 0, sizeof(*out));
    out->op = op;
    if (!PyTuple_Check(spec)) {
        PyErr_SetString(PyExc_TypeError, "op params must be a tuple");
        return -1;
    }
    int rc = -1;
    PyObject *first = PyTuple_GET_SIZE(spec) > 0 ? PyTuple_GET_ITEM(spec, 0) : Py_None;
    switch (op) {
    case AP_OP_CONV2D:
        rc = ap_py_fill_weighted(out, spec, offsetof(ap_conv2d_params, input_offset) / 4 + 1,
                                 offsetof(ap_conv2d_params, requant), -1);
        break;
    case AP_OP_DEPTHWISE_CONV2D:
        rc = ap_py_fill_weighted(out, spec, offsetof(ap_depthwise_conv2d_params, input_offset) / 4 + 1,
                                 offsetof(ap_depthwise_conv2d_params, requant), -1);
        break;
    case AP_OP_FULLY_CONNECTED:
        rc = ap_py_fill_weighted(out, spec, offsetof(ap_fully_connected_params, filter_offset) / 4 + 1,
                                 offsetof(ap_fully_connected_params, requant),
                                 (ptrdiff_t)offsetof(ap_fully_connected_params, real_scale));
        break;
    case AP_OP_AVERAGE_POOL2D:
    case AP_OP_MAX_POOL2D:
        rc = ap_py_fill_ints(out, first, sizeof(ap_pool2d_params) / 4, "pool params");
        break;
    case AP_OP_ADD:
        rc = ap_py_fill_ints(out, first, sizeof(ap_add_params) / 4, "add params");
        break;
    case AP_OP_MUL:
        rc = ap_py_fill_ints(out, first, sizeof(ap_mul_params) / 4, "mul params");
        break;
    case AP_OP_SOFTMAX:
        rc = ap_py_fill_ints(out, first, sizeof(ap_softmax_params) / 4,
                             "softmax params");
        break;
    case AP_OP_PAD:
        rc = ap_py_fill_ints(out, first, sizeof(ap_pad_params) / 4, "pad params");
        break;
    case AP_OP_MEAN:
        rc = ap_py_fill_ints(out, first, sizeof(ap_mean_params) / 4, "mean params");
        break;
    case AP_OP_SVDF:
        rc = ap_py_fill_ints(out, first, sizeof(ap_svdf_params) / 4, "svdf params");
        break;
    case AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM:
        rc = ap_py_fill_ints(out, first, sizeof(ap_lstm_params) / 4, "lstm params");
        break;
    case AP_OP_RESHAPE: {
        ap_reshape_params *r = (ap_reshape_params *)out->storage.bytes;
        unsigned long long bytes;
        rc = PyArg_ParseTuple(spec, "K", &bytes) ? 0 : -1;
        r->bytes = (size_t)bytes;
        break;
    }
    case AP_OP_QUANTIZE:
    case AP_OP_DEQUANTIZE: {
        ap_affine_quant_params *q = (ap_affine_quant_params *)out->storage.bytes;
        unsigned long long count;
        double scale;
        int zp;
        rc = PyArg_ParseTuple(spec, "Kdi", &count, &scale, &zp) ? 0 : -1;
        q->count = (size_t)count;
        q->scale = (float)scale;
        q->zero_point = zp;
        break;
    }
    case AP_OP_REQUANTIZE: {
        ap_requantize_params *q = (ap_requantize_params *)out->storage.bytes;
        unsigned long long count;
        int in_zp, out_zp, mult, shift, in_type = AP_DTYPE_INT8, out_type = AP_DTYPE_INT8;
        rc = PyArg_ParseTuple(spec, "Kiiii|ii", &count, &in_zp, &out_zp, &mult, &shift, &in_type,
                              &out_type) ? 0 : -1;
        q->count = (size_t)count;
        q->input_zero_point = in_zp;
        q->output_zero_point = out_zp;
        q->multiplier = mult;
        q->shift = shift;
        q->input_type = in_type;
        q->output_type = out_type;
        break;
    }
    case AP_OP_CONCATENATION:
        rc = ap_py_fill_concatenation(out, spec);
        break;
    default:
        PyErr_Format(PyExc_ValueError, "unknown op code %d", (int)op);
        break;
    }
    if (rc != 0) {
        ap_py_op_params_release(out);
    }
    return rc;
}

void ap_py_op_params_release(ap_py_op_params *params)
{
    for (int i = 0; i < AP_PY_PARAMS_ARRAYS; i++) {
        PyMem_Free(params->arrays[i]);
        params->arrays[i] = NULL;
    }
}

ap_status ap_py_op_variants(const ap_py_op_params *p, ap_variant *v, uint32_t cap, uint32_t *n,
                            ap_error *e)
{
    const void *s = p->storage.bytes;
    switch (p->op) {
    case AP_OP_CONV2D: return ap_conv2d_s8_variants(s, v, cap, n, e);
    case AP_OP_DEPTHWISE_CONV2D: return ap_depthwise_conv2d_s8_variants(s, v, cap, n, e);
    case AP_OP_FULLY_CONNECTED: return ap_fully_connected_s8_variants(s, v, cap, n, e);
    case AP_OP_AVERAGE_POOL2D: return ap_average_pool2d_s8_variants(s, v, cap, n, e);
    case AP_OP_MAX_POOL2D: return ap_max_pool2d_s8_variants(s, v, cap, n, e);
    case AP_OP_ADD: return ap_add_s8_variants(s, v, cap, n, e);
    case AP_OP_MUL: return ap_mul_s8_variants(s, v, cap, n, e);
    case AP_OP_SOFTMAX: return ap_softmax_s8_variants(s, v, cap, n, e);
    case AP_OP_RESHAPE: return ap_reshape_variants(s, v, cap, n, e);
    case AP_OP_QUANTIZE: return ap_quantize_s8_variants(s, v, cap, n, e);
    case AP_OP_DEQUANTIZE: return ap_dequantize_s8_variants(s, v, cap, n, e);
    case AP_OP_REQUANTIZE: return ap_requantize_s8_variants(s, v, cap, n, e);
    case AP_OP_CONCATENATION: return ap_concatenation_s8_variants(s, v, cap, n, e);
    case AP_OP_PAD: return ap_pad_s8_variants(s, v, cap, n, e);
    case AP_OP_MEAN: return ap_mean_s8_variants(s, v, cap, n, e);
    case AP_OP_SVDF: return ap_svdf_s8_variants(s, v, cap, n, e);
    case AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM: return ap_lstm_s8_variants(s, v, cap, n, e);
    }
    return AP_ERR_UNSUPPORTED;
}

int ap_py_op_find_variant(const ap_py_op_params *params, int kind, int param, ap_variant *out)
{
    ap_variant variants[AP_MAX_VARIANTS];
    uint32_t count = 0;
    ap_error error;
    ap_error_clear(&error);
    ap_status status = ap_py_op_variants(params, variants, AP_MAX_VARIANTS, &count, &error);
    if (status != AP_OK) {
        ap_py_raise(status, &error);
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (variants[i].kind == kind && variants[i].param == param) {
            *out = variants[i];
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "variant (kind %d, param %d) does not apply to these shapes",
                 kind, param);
    return -1;
}

int ap_py_op_is_weighted(ap_op op)
{
    return op == AP_OP_CONV2D || op == AP_OP_DEPTHWISE_CONV2D || op == AP_OP_FULLY_CONNECTED ||
           op == AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM;
}

/* n = product of dims, 0 when a dim is negative or the product overflows Py_ssize_t. */
static Py_ssize_t ap_py_count(const int32_t *dims, int rank)
{
    Py_ssize_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0 || (dims[i] != 0 && n > PY_SSIZE_T_MAX / dims[i])) {
            return 0;
        }
        n *= dims[i];
    }
    return n;
}

int ap_py_op_constant_counts(const ap_py_op_params *p, Py_ssize_t *filter_count, Py_ssize_t *bias_count)
{
    const void *s = p->storage.bytes;
    switch (p->op) {
    case AP_OP_CONV2D: {
        const ap_conv2d_params *c = s;
        const int32_t dims[] = {c->output_c, c->filter_h, c->filter_w, c->input_c};
        *filter_count = ap_py_count(dims, 4);
        *bias_count = c->output_c;
        break;
    }
    case AP_OP_DEPTHWISE_CONV2D: {
        const ap_depthwise_conv2d_params *c = s;
        const int32_t dims[] = {c->filter_h, c->filter_w, c->output_c};
        *filter_count = ap_py_count(dims, 3);
        *bias_count = c->output_c;
        break;
    }
    case AP_OP_FULLY_CONNECTED: {
        const ap_fully_connected_params *c = s;
        const int32_t dims[] = {c->output_depth, c->input_depth};
        *filter_count = ap_py_count(dims, 2);
        *bias_count = c->output_depth;
        break;
    }
    case AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM: {
        /* The four input-to-gate matrices, then the four recurrent ones; four gate biases. */
        const ap_lstm_params *c = s;
        const int32_t dims[] = {4, c->cell_size, c->input_size + c->cell_size};
        const int32_t bias_dims[] = {4, c->cell_size};
        *filter_count = c->input_size > INT32_MAX - c->cell_size ? 0 : ap_py_count(dims, 3);
        *bias_count = ap_py_count(bias_dims, 2);
        break;
    }
    default:
        PyErr_Format(PyExc_ValueError, "op %d has no constants to prepare", (int)p->op);
        return -1;
    }
    if (*filter_count <= 0 || *bias_count <= 0) {
        PyErr_SetString(PyExc_ValueError, "the params' shapes give no valid constant sizes");
        return -1;
    }
    return 0;
}

ap_status ap_py_op_prepared_size(const ap_py_op_params *p, size_t *bytes_out, ap_error *e)
{
    const void *s = p->storage.bytes;
    switch (p->op) {
    case AP_OP_CONV2D: return ap_conv2d_s8_prepared_size(s, bytes_out, e);
    case AP_OP_DEPTHWISE_CONV2D: return ap_depthwise_conv2d_s8_prepared_size(s, bytes_out, e);
    case AP_OP_FULLY_CONNECTED: return ap_fully_connected_s8_prepared_size(s, bytes_out, e);
    case AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM: return ap_lstm_s8_prepared_size(s, bytes_out, e);
    default: return AP_ERR_UNSUPPORTED;
    }
}

ap_status ap_py_op_prepare(const ap_py_op_params *p, const int8_t *filter, const int32_t *bias,
                           void *prepared_out, size_t prepared_bytes, ap_error *e)
{
    const void *s = p->storage.bytes;
    switch (p->op) {
    case AP_OP_CONV2D:
        return ap_conv2d_s8_prepare(s, filter, bias, prepared_out, prepared_bytes, e);
    case AP_OP_DEPTHWISE_CONV2D:
        return ap_depthwise_conv2d_s8_prepare(s, filter, bias, prepared_out, prepared_bytes, e);
    case AP_OP_FULLY_CONNECTED:
        return ap_fully_connected_s8_prepare(s, filter, bias, prepared_out, prepared_bytes, e);
    case AP_OP_UNIDIRECTIONAL_SEQUENCE_LSTM: {
        /* filter and bias hold the matrices and biases in the order ap_py_op_constant_counts
           gives; the sizes were checked against the shapes by the caller. */
        const ap_lstm_params *c = s;
        const size_t in_matrix = (size_t)c->cell_size * (size_t)c->input_size;
        const size_t rec_matrix = (size_t)c->cell_size * (size_t)c->cell_size;
        ap_lstm_weights w;
        for (int g = 0; g < 4; g++) {
            w.input_to_gate[g] = filter + (size_t)g * in_matrix;
            w.recurrent_to_gate[g] = filter + 4 * in_matrix + (size_t)g * rec_matrix;
            w.gate_bias[g] = bias != NULL ? bias + (size_t)g * (size_t)c->cell_size : NULL;
        }
        return ap_lstm_s8_prepare(c, &w, prepared_out, prepared_bytes, e);
    }
    default:
        return AP_ERR_UNSUPPORTED;
    }
}
