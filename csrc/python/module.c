/*
 * arenaplan._core: the CPython extension module. This file holds the module
 * definition and the one place that turns an ap_status into an exception.
 */
#include "binding.h"

#include <string.h>

PyObject *ap_py_raise(ap_status status, const ap_error *error)
{
    PyObject *errors = PyImport_ImportModule("arenaplan.errors");
    if (errors == NULL) {
        return NULL;
    }
    ap_error empty;
    if (error == NULL) {
        ap_error_clear(&empty);
        error = &empty;
    }
    const char *message = error->message[0] ? error->message : ap_status_str(status);
    PyObject *exc = PyObject_CallMethod(
        errors, "from_status", "ssLLLKKs", ap_status_str(status),
        error->subject == AP_SUBJECT_POOL ? "pool"
        : error->subject == AP_SUBJECT_OP ? "op"
        : error->subject == AP_SUBJECT_BUFFER ? "buffer"
        : error->subject == AP_SUBJECT_ARGUMENT ? "argument" : "none",
        (long long)error->index, (long long)error->other, (long long)error->op,
        (unsigned long long)error->needed, (unsigned long long)error->available, message);
    Py_DECREF(errors);
    if (exc == NULL) {
        return NULL;
    }
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

int ap_py_get_vector(PyObject *obj, const char *what, char kind, Py_ssize_t itemsize,
                     Py_ssize_t count, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a contiguous array", what);
        return -1;
    }
    const char *fmt = view->format ? view->format : "B";
    if (*fmt == '<' || *fmt == '=' || *fmt == '@') {
        fmt++;
    }
    char got = 0;
    if (strchr("bhilq", *fmt) && *fmt) {
        got = 'i';
    } else if (strchr("BHILQ", *fmt) && *fmt) {
        got = 'u';
    } else if (strchr("fd", *fmt) && *fmt) {
        got = 'f';
    }
    if (view->ndim > 1 || got != kind || view->itemsize != itemsize ||
        (count >= 0 && view->len / view->itemsize != count)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: expected a 1-D array of %zd-byte '%c' items%s, got format '%s' "
                     "itemsize %zd and %zd bytes",
                     what, itemsize, kind, count >= 0 ? " of the right length" : "",
                     view->format ? view->format : "B", view->itemsize, view->len);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyMethodDef ap_py_no_methods[] = {{NULL, NULL, 0, NULL}};

static struct PyModuleDef ap_py_module = {
    PyModuleDef_HEAD_INIT, "arenaplan._core",
    "C core of arenaplan: planner, kernels and executor.", -1, ap_py_no_methods,
    NULL, NULL, NULL, NULL,
};

static int ap_py_add_methods(PyObject *module, PyMethodDef *methods)
{
    PyObject *name = PyModule_GetNameObject(module);
    if (name == NULL) {
        return -1;
    }
    for (PyMethodDef *m = methods; m->ml_name != NULL; m++) {
        PyObject *fn = PyCFunction_NewEx(m, NULL, name);
        if (fn == NULL || PyModule_AddObject(module, m->ml_name, fn) != 0) {
            Py_XDECREF(fn);
            Py_DECREF(name);
            return -1;
        }
    }
    Py_DECREF(name);
    return 0;
}

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *module = PyModule_Create(&ap_py_module);
    if (module == NULL) {
        return NULL;
    }
    if (ap_py_add_methods(module, ap_py_planner_methods) != 0 ||
        ap_py_add_methods(module, ap_py_kernel_methods) != 0) {
        Py_DECREF(module);
        return NULL;
    }
    if (PyType_Ready(&ap_py_graph_type) != 0) {
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&ap_py_graph_type);
    if (PyModule_AddObject(module, "Graph", (PyObject *)&ap_py_graph_type) != 0) {
        Py_DECREF(&ap_py_graph_type);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
