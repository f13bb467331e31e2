/*
 * Shared helpers of the arenaplan._core bindings (internal).
 */
#ifndef ARENAPLAN_PY_BINDING_H
#define ARENAPLAN_PY_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "arenaplan/arenaplan.h"

/** Raise the arenaplan exception for `status`, with the details of `error`.
    Always returns NULL so callers can `return ap_py_raise(...)`. */
PyObject *ap_py_raise(ap_status status, const ap_error *error);

/** Get a C-contiguous 1-D buffer of `count` items of `itemsize` bytes with struct
    format kind `kind` ('i' signed, 'u' unsigned, 'f' float). Sets a TypeError /
    ValueError naming `what` and returns -1 on mismatch. count < 0: any length. */
int ap_py_get_vector(PyObject *obj, const char *what, char kind, Py_ssize_t itemsize,
                     Py_ssize_t count, Py_buffer *view);

/* Method tables of each binding file, joined in module.c. */
extern PyMethodDef ap_py_planner_methods[];
extern PyMethodDef ap_py_kernel_methods[];

/* The Graph type (graph_binding.c). */
extern PyTypeObject ap_py_graph_type;

#endif
