/*
 * Bindings for running one kernel on NumPy buffers: list an op's variants,
 * prepare a weighted op's constants, and run one variant. A run builds a
 * one-node graph and goes through the executor, so it exercises the same path
 * a planned model does; scratch is allocated here with exactly the variant's
 * requests.
 */
#include "binding.h"

#include <string.h>

#include "op_params.h"

static PyObject *ap_py_variant_tuple(const ap_variant *v)
{
    PyObject *scratch = PyTuple_New(v->scratch_count);
    if (scratch == NULL) {
        return NULL;
    }
    for (uint32_t i = 0; i < v->scratch_count && i < AP_MAX_SCRATCH; i++) {
        PyTuple_SET_ITEM(scratch, i, Py_BuildValue("(KK)", (unsigned long long)v->scratch[i].bytes,
                                                   (unsigned long long)v->scratch[i].alignment));
    }
    return Py_BuildValue("(siiNKiis)", v->name, (int)v->kind, (int)v->param, scratch,
                         (unsigned long long)v->macs, (int)v->in_place, (int)v->isa, v->family);
}

static PyObject *ap_py_kernel_variants(PyObject *self, PyObject *args)
{
    (void)self;
    int op, isa = (int)ap_isa_detect(), types = (int)AP_TYPES_S8;
    PyObject *spec;
    if (!PyArg_ParseTuple(args, "iO|ii", &op, &spec, &isa, &types)) {
        return NULL;
    }
    ap_py_op_params params;
    if (ap_py_op_params_fill((ap_op)op, (ap_types)types, spec, &params) != 0) {
        return NULL;
    }
    ap_variant variants[AP_MAX_VARIANTS];
    uint32_t count = 0;
    ap_error error;
    ap_error_clear(&error);
    ap_status status = params.def->variants(params.storage.bytes, (ap_isa)isa, variants, AP_MAX_VARIANTS,
                                            &count, &error);
    ap_py_op_params_release(&params);
    if (status != AP_OK) {
        return ap_py_raise(status, &error);
    }
    PyObject *list = PyList_New(count);
    for (uint32_t i = 0; list != NULL && i < count; i++) {
        PyObject *item = ap_py_variant_tuple(&variants[i]);
        if (item == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *ap_py_kernel_prepare(PyObject *self, PyObject *args)
{
    (void)self;
    int op, isa_code = (int)ap_isa_detect(), types = (int)AP_TYPES_S8;
    PyObject *spec, *filter_obj, *bias_obj;
    if (!PyArg_ParseTuple(args, "iOOO|ii", &op, &spec, &filter_obj, &bias_obj, &isa_code, &types)) {
        return NULL;
    }
    ap_py_op_params params;
    if (ap_py_op_params_fill((ap_op)op, (ap_types)types, spec, &params) != 0) {
        return NULL;
    }
    const ap_op_def *def = params.def;
    if (!def->has_blob) {
        ap_py_op_params_release(&params);
        PyErr_Format(PyExc_ValueError, "op %s has no constants to prepare", def->name);
        return NULL;
    }
    const ap_isa isa = (ap_isa)isa_code;
    ap_error error;
    ap_error_clear(&error);
    size_t bytes = 0;
    size_t filter_elems = 0, bias_elems = 0;
    ap_status status = def->prepared_size(params.storage.bytes, isa, &bytes, &error);
    if (status == AP_OK) {
        status = def->constant_counts(params.storage.bytes, &filter_elems, &bias_elems, &error);
    }
    if (status == AP_OK && (bytes > (size_t)PY_SSIZE_T_MAX || filter_elems > (size_t)PY_SSIZE_T_MAX ||
                            bias_elems > (size_t)PY_SSIZE_T_MAX / 8)) {
        ap_py_op_params_release(&params);
        PyErr_Format(PyExc_OverflowError, "op %s: the prepared constants do not fit this host", def->name);
        return NULL;
    }
    if (status != AP_OK) {
        ap_py_op_params_release(&params);
        return ap_py_raise(status, &error);
    }
    Py_buffer filter, bias;
    Py_ssize_t filter_count = (Py_ssize_t)filter_elems, bias_count = (Py_ssize_t)bias_elems;
    /* float32 rows take float32 weights and biases; the others int8 weights */
    const int f32 = def->types == AP_TYPES_F32;
    if (ap_py_get_vector(filter_obj, "filter", f32 ? 'f' : 'i', f32 ? 4 : 1, filter_count, &filter) != 0) {
        ap_py_op_params_release(&params);
        return NULL;
    }
    int has_bias = bias_obj != Py_None;
    /* the 16x8 rows take their biases as int64, every other row as int32 */
    const Py_ssize_t bias_item = def->types == AP_TYPES_S16X8 ? 8 : 4;
    if (has_bias && ap_py_get_vector(bias_obj, "bias", f32 ? 'f' : 'i', bias_item, bias_count, &bias) != 0) {
        PyBuffer_Release(&filter);
        ap_py_op_params_release(&params);
        return NULL;
    }
    /* bytearray storage comes from the system allocator: aligned well beyond the 4 needed. */
    PyObject *blob = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)bytes);
    if (blob != NULL) {
        memset(PyByteArray_AS_STRING(blob), 0, bytes);
        status = def->prepare(params.storage.bytes, isa, filter.buf, has_bias ? bias.buf : NULL,
                              PyByteArray_AS_STRING(blob), bytes, &error);
    }
    PyBuffer_Release(&filter);
    if (has_bias) {
        PyBuffer_Release(&bias);
    }
    ap_py_op_params_release(&params);
    if (blob == NULL) {
        return NULL;
    }
    if (status != AP_OK) {
        Py_DECREF(blob);
        return ap_py_raise(status, &error);
    }
    return blob;
}

/* kernel_run(op, spec, prepared | None, (kind, param, isa), [inputs], output[, [state]]) -> None
   state: writable buffers the op reads and updates in place (SVDF's variable tensor). */
static PyObject *ap_py_kernel_run(PyObject *self, PyObject *args)
{
    (void)self;
    int op, kind, param, isa, types = (int)AP_TYPES_S8;
    PyObject *spec, *prepared_obj, *inputs_obj, *output_obj, *state_obj = NULL;
    if (!PyArg_ParseTuple(args, "iOO(iii)OO|Oi", &op, &spec, &prepared_obj, &kind, &param, &isa, &inputs_obj,
                          &output_obj, &state_obj, &types)) {
        return NULL;
    }
    PyObject *inputs = PySequence_Fast(inputs_obj, "inputs must be a sequence of buffers");
    if (inputs == NULL) {
        return NULL;
    }
    PyObject *states = state_obj == NULL ? PyTuple_New(0)
                                         : PySequence_Fast(state_obj, "state must be a sequence of buffers");
    if (states == NULL) {
        Py_DECREF(inputs);
        return NULL;
    }
    Py_ssize_t n_in = PySequence_Fast_GET_SIZE(inputs);
    Py_ssize_t n_state = PySequence_Fast_GET_SIZE(states);
    if (n_in < 1 || n_in > AP_CONCAT_MAX_INPUTS || n_state > AP_MAX_STATE) {
        Py_DECREF(inputs);
        Py_DECREF(states);
        PyErr_Format(PyExc_ValueError, "a kernel takes 1 to %d inputs and at most %d state buffers, got %zd "
                     "and %zd", AP_CONCAT_MAX_INPUTS, AP_MAX_STATE, n_in, n_state);
        return NULL;
    }
    ap_py_op_params params;
    if (ap_py_op_params_fill((ap_op)op, (ap_types)types, spec, &params) != 0) {
        Py_DECREF(inputs);
        Py_DECREF(states);
        return NULL;
    }
    ap_node node;
    memset(&node, 0, sizeof(node));
    PyObject *result = NULL;
    Py_buffer views[AP_CONCAT_MAX_INPUTS + 2 + AP_MAX_STATE];
    Py_ssize_t held = 0;
    ap_place places[AP_CONCAT_MAX_INPUTS + 1 + AP_MAX_SCRATCH + AP_MAX_STATE];
    uint32_t operands[AP_CONCAT_MAX_INPUTS + AP_MAX_SCRATCH + AP_MAX_STATE];
    /* pools: 0 the output, 1 the scratch, 2 + i state buffer i */
    size_t pool_bytes[2 + AP_MAX_STATE];
    void *pools[2 + AP_MAX_STATE];
    unsigned char *scratch = NULL;
    if (ap_py_op_find_variant(&params, kind, param, isa, &node.variant) != 0) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_in; i++, held++) {
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(inputs, i), &views[held], PyBUF_C_CONTIGUOUS) != 0) {
            goto done;
        }
        places[i] = (ap_place){-1, 0, (size_t)views[held].len, views[held].buf};
        operands[i] = (uint32_t)i;
    }
    if (PyObject_GetBuffer(output_obj, &views[held], PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
        goto done;
    }
    Py_buffer *out = &views[held++];
    places[n_in] = (ap_place){0, 0, (size_t)out->len, NULL};
    /* Scratch: one pool, each request at an offset aligned as asked. */
    size_t scratch_total = 0;
    for (uint32_t s = 0; s < node.variant.scratch_count; s++) {
        size_t a = node.variant.scratch[s].alignment ? node.variant.scratch[s].alignment : 1;
        scratch_total = (scratch_total + a - 1) / a * a;
        places[n_in + 1 + s] = (ap_place){1, scratch_total, node.variant.scratch[s].bytes, NULL};
        operands[n_in + s] = (uint32_t)(n_in + 1 + s);
        scratch_total += node.variant.scratch[s].bytes;
    }
    scratch = PyMem_Malloc(scratch_total + 64);
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* Align the scratch pool's base to 64 bytes, as an arena's would be. */
    unsigned char *scratch_base = scratch + ((64 - ((uintptr_t)scratch & 63)) & 63);
    if (params.def->has_blob) {
        if (prepared_obj == Py_None || PyObject_GetBuffer(prepared_obj, &views[held], PyBUF_SIMPLE) != 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "this op needs its prepared constants");
            }
            goto done;
        }
        node.prepared = views[held++].buf;
    }
    uint32_t place_count = (uint32_t)(n_in + 1 + node.variant.scratch_count);
    uint32_t operand_count = (uint32_t)(n_in + node.variant.scratch_count);
    node.state_at = operand_count;
    for (Py_ssize_t i = 0; i < n_state; i++) {
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(states, i), &views[held],
                               PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
            goto done;
        }
        pool_bytes[2 + i] = (size_t)views[held].len;
        pools[2 + i] = views[held].buf;
        held++;
        places[place_count] = (ap_place){(int32_t)(2 + i), 0, pool_bytes[2 + i], NULL};
        operands[operand_count++] = place_count++;
    }
    node.op = (ap_op)op;
    node.types = (ap_types)types;
    node.params = params.storage.bytes;
    node.inputs_at = 0;
    node.input_count = (uint32_t)n_in;
    node.output = (uint32_t)n_in;
    node.scratch_at = (uint32_t)n_in;
    node.scratch_count = node.variant.scratch_count;
    node.state_count = (uint32_t)n_state;
    ap_graph graph = {&node, 1, places, place_count, operands, operand_count};
    pool_bytes[0] = (size_t)out->len;
    pool_bytes[1] = scratch_total;
    pools[0] = out->buf;
    pools[1] = scratch_base;
    uint32_t pool_count = (uint32_t)(2 + n_state);
    ap_error error;
    ap_error_clear(&error);
    ap_status status = ap_graph_check(&graph, pool_bytes, pool_count, &error);
    if (status == AP_OK) {
        Py_BEGIN_ALLOW_THREADS
        status = ap_graph_invoke(&graph, pools, pool_count, &error);
        Py_END_ALLOW_THREADS
    }
    if (status != AP_OK) {
        ap_py_raise(status, &error);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (Py_ssize_t i = 0; i < held; i++) {
        PyBuffer_Release(&views[i]);
    }
    PyMem_Free(scratch);
    ap_py_op_params_release(&params);
    Py_DECREF(inputs);
    Py_DECREF(states);
    return result;
}

static PyObject *ap_py_quantize_multiplier(PyObject *self, PyObject *args)
{
    (void)self;
    double real;
    if (!PyArg_ParseTuple(args, "d", &real)) {
        return NULL;
    }
    int32_t multiplier = 0, shift = 0;
    ap_status status = ap_quantize_multiplier(real, &multiplier, &shift);
    if (status != AP_OK) {
        ap_error error;
        ap_error_clear(&error);
        error.status = status;
        snprintf(error.message, sizeof(error.message),
                 "cannot quantise the multiplier %g (it must be finite, >= 0 and < 2^30)", real);
        return ap_py_raise(status, &error);
    }
    return Py_BuildValue("(ii)", (int)multiplier, (int)shift);
}

static PyObject *ap_py_ops(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return ap_py_ops_list();
}

/* isas() -> [(code, name, compiled, available)] for every ISA the C enum names. */
static PyObject *ap_py_isas(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    PyObject *list = PyList_New(0);
    for (int32_t code = 0; list != NULL && ap_isa_name(code) != NULL; code++) {
        PyObject *item = Py_BuildValue("(isOOi)", (int)code, ap_isa_name(code),
                                       ap_isa_compiled(code) ? Py_True : Py_False,
                                       ap_isa_available(code) ? Py_True : Py_False,
                                       (int)ap_isa_runs_as(code));
        if (item == NULL || PyList_Append(list, item) != 0) {
            Py_XDECREF(item);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(item);
    }
    return list;
}

static PyObject *ap_py_host_isa(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return PyLong_FromLong((long)ap_isa_detect());
}

static PyObject *ap_py_cpu_limit(PyObject *self, PyObject *args)
{
    (void)self;
    int level;
    if (!PyArg_ParseTuple(args, "i", &level)) {
        return NULL;
    }
    return PyLong_FromLong((long)ap_cpu_limit((ap_cpu_feature)level));
}

PyMethodDef ap_py_kernel_methods[] = {
    {"kernel_variants", ap_py_kernel_variants, METH_VARARGS,
     "kernel_variants(op, params dict[, isa: the host's best[, types: 0 int8]]) -> [(name, kind, param, ((bytes, align), ...), macs, in_place, isa, family)]"},
    {"kernel_prepare", ap_py_kernel_prepare, METH_VARARGS,
     "kernel_prepare(op, spec, filter i8 (f32 for float32 rows), bias i32 (i64 for 16x8 rows, f32 for float32) | None[, isa: the host's best[, types]]) -> bytearray"},
    {"kernel_run", ap_py_kernel_run, METH_VARARGS,
     "kernel_run(op, spec, prepared | None, (kind, param, isa), [inputs], output[, [state][, types]]) -> None"},
    {"isas", ap_py_isas, METH_NOARGS,
     "isas() -> [(code, name, compiled into this build, this CPU runs it, code of the ISA that runs its variants here or -1)]"},
    {"host_isa", ap_py_host_isa, METH_NOARGS, "host_isa() -> the code of the best ISA this host runs"},
    {"quantize_multiplier", ap_py_quantize_multiplier, METH_VARARGS,
     "quantize_multiplier(real) -> (multiplier, shift), TFLite QuantizeMultiplier"},
    {"ops", ap_py_ops, METH_NOARGS,
     "ops() -> the op table: [{code, name, symbol, types, params_type, params_size, params: "
     "[(field, type, count, length, per, optional)], has_blob, arities: {inputs: (min, max), outputs, "
     "state}}]"},
    {"cpu_limit", ap_py_cpu_limit, METH_VARARGS, "cpu_limit(level) -> level in force"},
    {NULL, NULL, 0, NULL},
};
