/*
 * Params structs from Python specs, by the op table's params descriptors: a spec is a dict
 * {field: value} holding exactly the fields of the op's descriptor (arenaplan/ops.h).
 * Every value is checked against its C type's range before it is stored; a pointer field's
 * sequence must hold exactly as many values as its length field gives.
 */
#include "op_params.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

static const char *const ap_py_field_type_names[] = {
    "int32", "uint32", "int64", "size_t", "float32", "dtype", "int32[]", "float64[]", "int8[]", "int16[]",
};

static const char *ap_py_field_type_name(ap_field_type type)
{
    unsigned t = (unsigned)type;
    return t < sizeof(ap_py_field_type_names) / sizeof(ap_py_field_type_names[0])
               ? ap_py_field_type_names[t] : "unknown";
}

static const char *ap_py_types_name(ap_types types)
{
    return types == AP_TYPES_S8 ? "s8" : types == AP_TYPES_S16X8 ? "s16x8" : types == AP_TYPES_F32 ? "f32"
           : types == AP_TYPES_BOOL ? "bool" : types == AP_TYPES_S32 ? "s32" : types == AP_TYPES_S64 ? "s64"
           : types == AP_TYPES_U8 ? "u8" : "unknown";
}

/* ValueError "op NAME: params field 'F'<suffix>". */
static int ap_py_field_error(const ap_op_def *def, const ap_param_field *f, const char *format,
                             PyObject *value)
{
    PyObject *detail = value != NULL ? PyUnicode_FromFormat(format, value) : PyUnicode_FromString(format);
    if (detail != NULL) {
        PyErr_Format(PyExc_ValueError, "op %s: params field '%s' %U", def->name, f->name, detail);
        Py_DECREF(detail);
    }
    return -1;
}

/* An integer in [lo, hi] (hi as unsigned for size_t/uint ranges); index >= 0: an element. */
static int ap_py_integer(const ap_op_def *def, const ap_param_field *f, Py_ssize_t index, PyObject *obj,
                         long long lo, unsigned long long hi, const char *type_name, void *out,
                         size_t out_size)
{
    char where[48] = "";
    if (index >= 0) {
        snprintf(where, sizeof(where), "[%zd]", index);
    }
    PyObject *value = PyNumber_Index(obj);
    if (value == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "op %s: params field '%s'%s = %R is not an integer (%s)",
                     def->name, f->name, where, obj, type_name);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    unsigned long long u = 0;
    int ok;
    if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(value);
        ok = !(u == (unsigned long long)-1 && PyErr_Occurred()) && u <= hi;
        PyErr_Clear();
    } else if (overflow < 0 || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        ok = 0;
    } else {
        ok = v >= lo && (v < 0 || (unsigned long long)v <= hi);
        u = (unsigned long long)v;
    }
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "op %s: params field '%s'%s = %S is outside %s [%lld, %llu]",
                     def->name, f->name, where, value, type_name, lo, hi);
        Py_DECREF(value);
        return -1;
    }
    Py_DECREF(value);
    if (out_size == sizeof(int8_t)) {
        int8_t x = (int8_t)v;
        memcpy(out, &x, sizeof(x));
    } else if (out_size == sizeof(int32_t) && lo < 0) {
        int32_t x = (int32_t)v;
        memcpy(out, &x, sizeof(x));
    } else if (out_size == sizeof(uint32_t) && lo >= 0 && hi <= UINT32_MAX) {
        uint32_t x = (uint32_t)u;
        memcpy(out, &x, sizeof(x));
    } else if (lo < 0) {
        int64_t x = (int64_t)v;
        memcpy(out, &x, sizeof(x));
    } else {
        if (out_size == sizeof(uint64_t)) {
            uint64_t x = (uint64_t)u;
            memcpy(out, &x, sizeof(x));
        } else {
            size_t x = (size_t)u;
            memcpy(out, &x, out_size);
        }
    }
    return 0;
}

static int ap_py_double(const ap_op_def *def, const ap_param_field *f, Py_ssize_t index, PyObject *obj,
                        int as_float32, void *out)
{
    char where[48] = "";
    if (index >= 0) {
        snprintf(where, sizeof(where), "[%zd]", index);
    }
    double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "op %s: params field '%s'%s = %R is not a number", def->name,
                     f->name, where, obj);
        return -1;
    }
    if (as_float32) {
        if (!isfinite(v) || fabs(v) > (double)FLT_MAX) {
            PyErr_Format(PyExc_ValueError, "op %s: params field '%s'%s = %R is not a finite float32",
                         def->name, f->name, where, obj);
            return -1;
        }
        float x = (float)v;
        memcpy(out, &x, sizeof(x));
    } else {
        memcpy(out, &v, sizeof(v));
    }
    return 0;
}

/* One scalar of `type` at `out`. */
static int ap_py_scalar(const ap_op_def *def, const ap_param_field *f, ap_field_type type, Py_ssize_t index,
                        PyObject *obj, void *out)
{
    switch (type) {
    case AP_FIELD_INT32:
    case AP_FIELD_INT32_ARRAY:
        return ap_py_integer(def, f, index, obj, INT32_MIN, INT32_MAX, "int32", out, sizeof(int32_t));
    case AP_FIELD_UINT32:
        return ap_py_integer(def, f, index, obj, 0, UINT32_MAX, "uint32", out, sizeof(uint32_t));
    case AP_FIELD_INT64:
        return ap_py_integer(def, f, index, obj, INT64_MIN, INT64_MAX, "int64", out, sizeof(int64_t));
    case AP_FIELD_SIZE:
        return ap_py_integer(def, f, index, obj, 0, SIZE_MAX, "size_t", out, sizeof(size_t));
    case AP_FIELD_DTYPE:
        return ap_py_integer(def, f, index, obj, AP_DTYPE_INT8, AP_DTYPE_UINT8, "ap_dtype", out,
                             sizeof(int32_t));
    case AP_FIELD_FLOAT32:
        return ap_py_double(def, f, index, obj, 1, out);
    case AP_FIELD_FLOAT64_ARRAY:
        return ap_py_double(def, f, index, obj, 0, out);
    case AP_FIELD_INT8_ARRAY:
        return ap_py_integer(def, f, index, obj, INT8_MIN, INT8_MAX, "int8", out, sizeof(int8_t));
    case AP_FIELD_INT16_ARRAY:
        return ap_py_integer(def, f, index, obj, INT16_MIN, INT16_MAX, "int16", out, sizeof(int16_t));
    }
    PyErr_Format(PyExc_SystemError, "op %s: params field '%s' has an unknown type", def->name, f->name);
    return -1;
}

static size_t ap_py_item_size(ap_field_type type)
{
    switch (type) {
    case AP_FIELD_INT64: return sizeof(int64_t);
    case AP_FIELD_SIZE: return sizeof(size_t);
    case AP_FIELD_FLOAT64_ARRAY: return sizeof(double);
    case AP_FIELD_INT8_ARRAY: return sizeof(int8_t);
    case AP_FIELD_INT16_ARRAY: return sizeof(int16_t);
    default: return sizeof(int32_t);
    }
}

static const ap_param_field *ap_py_field_named(const ap_op_def *def, const char *name)
{
    for (uint32_t i = 0; name != NULL && i < def->field_count; i++) {
        if (strcmp(def->fields[i].name, name) == 0) {
            return &def->fields[i];
        }
    }
    return NULL;
}

/* The integer value of an already-filled scalar field (the length or switch of an array). */
static int ap_py_filled_integer(const ap_py_op_params *p, const ap_param_field *f, long long *out)
{
    const unsigned char *at = p->storage.bytes + f->offset;
    switch (f->type) {
    case AP_FIELD_INT32: { int32_t v; memcpy(&v, at, sizeof(v)); *out = v; return 0; }
    case AP_FIELD_UINT32: { uint32_t v; memcpy(&v, at, sizeof(v)); *out = v; return 0; }
    case AP_FIELD_INT64: { int64_t v; memcpy(&v, at, sizeof(v)); *out = v; return 0; }
    case AP_FIELD_SIZE: {
        size_t v;
        memcpy(&v, at, sizeof(v));
        *out = v > (size_t)PY_SSIZE_T_MAX ? -1 : (long long)v;
        return 0;
    }
    default:
        return -1;
    }
}

/* A scalar (count 1) or an inline array of f->count. */
static int ap_py_fill_inline(ap_py_op_params *p, const ap_param_field *f, PyObject *value)
{
    const ap_op_def *def = p->def;
    unsigned char *at = p->storage.bytes + f->offset;
    if (f->count == 1) {
        return ap_py_scalar(def, f, f->type, -1, value, at);
    }
    PyObject *fast = PySequence_Check(value) ? PySequence_Fast(value, "") : NULL;
    if (fast == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "op %s: params field '%s' = %R must be a sequence of %u %s",
                     def->name, f->name, value, (unsigned)f->count, ap_py_field_type_name(f->type));
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n != (Py_ssize_t)f->count) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "op %s: params field '%s' has %zd values, the struct holds %u",
                     def->name, f->name, n, (unsigned)f->count);
        return -1;
    }
    size_t item = ap_py_item_size(f->type);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ap_py_scalar(def, f, f->type, i, PySequence_Fast_GET_ITEM(fast, i), at + (size_t)i * item) != 0) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

/* A pointer to an array of exactly the count its length field (and switch) give. */
static int ap_py_fill_pointer(ap_py_op_params *p, const ap_param_field *f, PyObject *value)
{
    const ap_op_def *def = p->def;
    void *pointer = NULL;
    if (value == Py_None) {
        if (!f->optional) {
            return ap_py_field_error(def, f, "is required (a sequence, not None)", NULL);
        }
        memcpy(p->storage.bytes + f->offset, &pointer, sizeof(pointer));
        return 0;
    }
    const ap_param_field *length = ap_py_field_named(def, f->length);
    const ap_param_field *per = ap_py_field_named(def, f->per);
    long long want = 0, switch_value = 1;
    if (length == NULL || ap_py_filled_integer(p, length, &want) != 0 ||
        (f->per != NULL && (per == NULL || ap_py_filled_integer(p, per, &switch_value) != 0))) {
        PyErr_Format(PyExc_SystemError, "op %s: params field '%s' has no usable length field", def->name,
                     f->name);
        return -1;
    }
    const long long length_value = want;
    if (switch_value == 0) {
        want = 1;
    }
    if (want < 0) {
        PyErr_Format(PyExc_ValueError, "op %s: params field '%s' = %lld gives params field '%s' no valid "
                     "length", def->name, length->name, want, f->name);
        return -1;
    }
    PyObject *fast = PySequence_Check(value) ? PySequence_Fast(value, "") : NULL;
    if (fast == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "op %s: params field '%s' = %R must be a sequence%s", def->name,
                     f->name, value, f->optional ? " or None" : "");
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if ((long long)n != want) {
        Py_DECREF(fast);
        if (f->per != NULL) {
            PyErr_Format(PyExc_ValueError, "op %s: params field '%s' has %zd values; %s = %lld and %s = %lld "
                         "need %lld", def->name, f->name, n, per->name, switch_value, length->name,
                         length_value, want);
        } else {
            PyErr_Format(PyExc_ValueError, "op %s: params field '%s' has %zd values; %s = %lld needs %lld",
                         def->name, f->name, n, length->name, want, want);
        }
        return -1;
    }
    int slot = 0;
    while (slot < AP_PY_PARAMS_ARRAYS && p->arrays[slot] != NULL) {
        slot++;
    }
    size_t item = ap_py_item_size(f->type);
    if (slot == AP_PY_PARAMS_ARRAYS || (size_t)n > SIZE_MAX / item - 1) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_SystemError, "op %s: too many or too large arrays in one params struct", def->name);
        return -1;
    }
    unsigned char *values = PyMem_Malloc((size_t)(n > 0 ? n : 1) * item);
    if (values == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    p->arrays[slot] = values;   /* freed by release, also on error */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ap_py_scalar(def, f, f->type, i, PySequence_Fast_GET_ITEM(fast, i), values + (size_t)i * item) != 0) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    pointer = values;
    memcpy(p->storage.bytes + f->offset, &pointer, sizeof(pointer));
    return 0;
}

int ap_py_op_params_fill(ap_op op, ap_types types, PyObject *spec, ap_py_op_params *out)
{
    memset(out, 0, sizeof(*out));
    const ap_op_def *def = ap_op_find(op, types);
    if (def == NULL) {
        if (ap_op_find(op, AP_TYPES_S8) != NULL) {
            PyErr_Format(PyExc_ValueError, "op %s has no kernel for tensor types %s (%d)",
                         ap_op_find(op, AP_TYPES_S8)->name, ap_py_types_name(types), (int)types);
        } else {
            PyErr_Format(PyExc_ValueError, "unknown op code %d (tensor types %d)", (int)op, (int)types);
        }
        return -1;
    }
    out->def = def;
    if (!PyDict_Check(spec)) {
        PyErr_Format(PyExc_TypeError, "op %s: params must be a dict {field: value}, got %s", def->name,
                     Py_TYPE(spec)->tp_name);
        return -1;
    }
    if (def->params_size > AP_PY_PARAMS_BYTES) {
        PyErr_Format(PyExc_SystemError, "op %s: params struct of %zu bytes is larger than the binding's %d",
                     def->name, def->params_size, AP_PY_PARAMS_BYTES);
        return -1;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(spec, &pos, &key, &value)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (name == NULL || ap_py_field_named(def, name) == NULL) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "op %s: unknown params field %R (%s has %u fields)", def->name, key,
                         def->params_type, (unsigned)def->field_count);
            return -1;
        }
    }
    /* scalars and inline arrays first: pointer fields' lengths read them */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < def->field_count; i++) {
            const ap_param_field *f = &def->fields[i];
            if ((f->count == 0) != (pass == 1)) {
                continue;
            }
            PyObject *v = PyDict_GetItemString(spec, f->name);
            if (v == NULL) {
                PyErr_Format(PyExc_ValueError, "op %s: params field '%s' (%s) is missing", def->name, f->name,
                             ap_py_field_type_name(f->type));
                ap_py_op_params_release(out);
                return -1;
            }
            int rc = pass == 0 ? ap_py_fill_inline(out, f, v) : ap_py_fill_pointer(out, f, v);
            if (rc != 0) {
                ap_py_op_params_release(out);
                return -1;
            }
        }
    }
    return 0;
}

void ap_py_op_params_release(ap_py_op_params *params)
{
    for (int i = 0; i < AP_PY_PARAMS_ARRAYS; i++) {
        PyMem_Free(params->arrays[i]);
        params->arrays[i] = NULL;
    }
}

int ap_py_op_find_variant(const ap_py_op_params *params, int kind, int param, int isa, ap_variant *out)
{
    ap_variant variants[AP_MAX_VARIANTS];
    uint32_t count = 0;
    ap_error error;
    ap_error_clear(&error);
    ap_status status = params->def->variants(params->storage.bytes, (ap_isa)isa, variants,
                                             AP_MAX_VARIANTS, &count, &error);
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
    PyErr_Format(PyExc_ValueError, "variant (kind %d, param %d) does not apply to these shapes (ISA %s)",
                 kind, param, ap_isa_name(isa));
    return -1;
}

/* (name, type, count, length, per, optional) */
static PyObject *ap_py_field_tuple(const ap_param_field *f)
{
    PyObject *length = f->length ? PyUnicode_FromString(f->length) : Py_NewRef(Py_None);
    PyObject *per = f->per ? PyUnicode_FromString(f->per) : Py_NewRef(Py_None);
    if (length == NULL || per == NULL) {
        Py_XDECREF(length);
        Py_XDECREF(per);
        return NULL;
    }
    return Py_BuildValue("(ssINNO)", f->name, ap_py_field_type_name(f->type), (unsigned int)f->count, length,
                         per, f->optional ? Py_True : Py_False);
}

static PyObject *ap_py_op_dict(const ap_op_def *def)
{
    PyObject *fields = PyList_New(def->field_count);
    for (uint32_t i = 0; fields != NULL && i < def->field_count; i++) {
        PyObject *item = ap_py_field_tuple(&def->fields[i]);
        if (item == NULL) {
            Py_CLEAR(fields);
            break;
        }
        PyList_SET_ITEM(fields, i, item);
    }
    if (fields == NULL) {
        return NULL;
    }
    return Py_BuildValue("{s:i,s:s,s:s,s:s,s:i,s:s,s:n,s:N,s:O,s:{s:(II),s:I,s:I}}",
                         "code", (int)def->op, "name", def->name, "symbol", def->symbol,
                         "types", ap_py_types_name(def->types), "types_code", (int)def->types,
                         "params_type", def->params_type,
                         "params_size", (Py_ssize_t)def->params_size, "params", fields,
                         "has_blob", def->has_blob ? Py_True : Py_False,
                         "arities", "inputs", (unsigned int)def->inputs_min, (unsigned int)def->inputs_max,
                         "outputs", (unsigned int)def->outputs, "state", (unsigned int)def->state_count);
}

PyObject *ap_py_ops_list(void)
{
    uint32_t n = ap_op_def_count();
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list != NULL && i < n; i++) {
        PyObject *item = ap_py_op_dict(ap_op_def_at(i));
        if (item == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}
