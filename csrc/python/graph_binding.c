/*
 * arenaplan._core.Graph: an executor graph built from Python tables and owned
 * by a Python object. Construction checks everything once (ap_graph_check);
 * invoke() then only binds the pool buffers and runs, with the GIL released.
 *
 *   Graph(places, nodes, pool_bytes)
 *     places: [(pool, offset, bytes, data | None)]       data: a buffer for constants
 *     nodes:  [(op, params dict, prepared | None, (kind, param, isa), [inputs], output, [scratch][, [state][, types]])]
 *             (types: the ap_types of the op table row, default 0, int8)
 *             state: places the op reads and updates in place (persistent between runs)
 *     pool_bytes: [bytes of pool 0, ...]
 */
#include "binding.h"

#include <string.h>
#include <time.h>

#include "op_params.h"

typedef struct ap_py_graph {
    PyObject_HEAD
    ap_graph graph;
    ap_node *nodes;
    ap_place *places;
    uint32_t *operands;
    ap_py_op_params *params;
    Py_buffer *views;
    Py_ssize_t view_count;
    size_t *pool_bytes;
    uint32_t pool_count;
    ap_place *io;           /* set_io: model inputs, then outputs (pool, offset, bytes) */
    uint32_t input_count, output_count;
} ap_py_graph;

static void ap_py_graph_dealloc(ap_py_graph *self)
{
    for (Py_ssize_t i = 0; i < self->view_count; i++) {
        PyBuffer_Release(&self->views[i]);
    }
    if (self->params != NULL) {
        for (uint32_t k = 0; k < self->graph.node_count; k++) {
            ap_py_op_params_release(&self->params[k]);
        }
    }
    PyMem_Free(self->views);
    PyMem_Free(self->params);
    PyMem_Free(self->nodes);
    PyMem_Free(self->places);
    PyMem_Free(self->operands);
    PyMem_Free(self->pool_bytes);
    PyMem_Free(self->io);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ap_py_graph_hold(ap_py_graph *self, PyObject *obj, int writable, const void **data_out,
                            size_t *bytes_out)
{
    Py_buffer *view = &self->views[self->view_count];
    if (PyObject_GetBuffer(obj, view, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS) != 0) {
        return -1;
    }
    self->view_count++;
    *data_out = view->buf;
    if (bytes_out != NULL) {
        *bytes_out = (size_t)view->len;
    }
    return 0;
}

static int ap_py_index_list(PyObject *seq, uint32_t *out, uint32_t *count, uint32_t limit,
                            const char *what)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if ((size_t)n > limit) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: %zd entries, at most %u allowed", what, n, limit);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(fast, i));
        if (PyErr_Occurred() || v > UINT32_MAX) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_OverflowError, "%s[%zd] out of range", what, i);
            }
            return -1;
        }
        out[i] = (uint32_t)v;
    }
    *count = (uint32_t)n;
    Py_DECREF(fast);
    return 0;
}

static int ap_py_graph_init(ap_py_graph *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    PyObject *places_obj, *nodes_obj, *pools_obj;
    if (!PyArg_ParseTuple(args, "OOO", &places_obj, &nodes_obj, &pools_obj)) {
        return -1;
    }
    if (self->nodes != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Graph is already initialised");
        return -1;
    }
    PyObject *places = PySequence_Fast(places_obj, "places must be a sequence");
    PyObject *nodes = places ? PySequence_Fast(nodes_obj, "nodes must be a sequence") : NULL;
    PyObject *pools = nodes ? PySequence_Fast(pools_obj, "pool_bytes must be a sequence") : NULL;
    int rc = -1;
    if (pools == NULL) {
        goto done;
    }
    Py_ssize_t n_places = PySequence_Fast_GET_SIZE(places);
    Py_ssize_t n_nodes = PySequence_Fast_GET_SIZE(nodes);
    Py_ssize_t n_pools = PySequence_Fast_GET_SIZE(pools);
    if (n_places > UINT32_MAX / 2 || n_nodes > UINT32_MAX / 2 || n_pools > 64) {
        PyErr_SetString(PyExc_ValueError, "graph too large");
        goto done;
    }
    size_t max_operands = (size_t)n_nodes * (AP_CONCAT_MAX_INPUTS + AP_MAX_SCRATCH + AP_MAX_STATE);
    self->places = PyMem_Calloc((size_t)n_places + 1, sizeof(ap_place));
    self->nodes = PyMem_Calloc((size_t)n_nodes + 1, sizeof(ap_node));
    self->params = PyMem_Calloc((size_t)n_nodes + 1, sizeof(ap_py_op_params));
    self->operands = PyMem_Calloc(max_operands + 1, sizeof(uint32_t));
    self->views = PyMem_Calloc((size_t)(n_places + n_nodes) + 1, sizeof(Py_buffer));
    self->pool_bytes = PyMem_Calloc((size_t)n_pools + 1, sizeof(size_t));
    if (!self->places || !self->nodes || !self->params || !self->operands || !self->views ||
        !self->pool_bytes) {
        PyErr_NoMemory();
        goto done;
    }
    self->pool_count = (uint32_t)n_pools;
    for (Py_ssize_t i = 0; i < n_pools; i++) {
        self->pool_bytes[i] = (size_t)PyLong_AsSize_t(PySequence_Fast_GET_ITEM(pools, i));
        if (PyErr_Occurred()) {
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < n_places; i++) {
        int pool;
        unsigned long long offset, bytes;
        PyObject *data;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(places, i), "iKKO", &pool, &offset, &bytes,
                              &data)) {
            goto done;
        }
        ap_place *pl = &self->places[i];
        pl->pool = pool;
        pl->offset = (size_t)offset;
        pl->bytes = (size_t)bytes;
        if (data != Py_None) {
            size_t have = 0;
            if (ap_py_graph_hold(self, data, 0, &pl->data, &have) != 0) {
                goto done;
            }
            if (have < pl->bytes) {
                PyErr_Format(PyExc_ValueError, "place %zd: constant has %zu bytes, %zu declared", i,
                             have, pl->bytes);
                goto done;
            }
        }
    }
    self->graph.places = self->places;
    self->graph.place_count = (uint32_t)n_places;
    uint32_t used = 0;
    for (Py_ssize_t k = 0; k < n_nodes; k++) {
        int op, kind, param, isa, types = (int)AP_TYPES_S8;
        unsigned long output;
        PyObject *spec, *prepared, *ins, *scratch, *state = NULL;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(nodes, k), "iOO(iii)OkO|Oi", &op, &spec, &prepared,
                              &kind, &param, &isa, &ins, &output, &scratch, &state, &types)) {
            goto done;
        }
        ap_node *n = &self->nodes[k];
        if (ap_py_op_params_fill((ap_op)op, (ap_types)types, spec, &self->params[k]) != 0) {
            goto done;
        }
        self->graph.node_count = (uint32_t)(k + 1);  /* params[0..k] need releasing now */
        n->op = (ap_op)op;
        n->types = (ap_types)types;
        n->params = self->params[k].storage.bytes;
        if (ap_py_op_find_variant(&self->params[k], kind, param, isa, &n->variant) != 0) {
            goto done;
        }
        if (prepared != Py_None && ap_py_graph_hold(self, prepared, 0, &n->prepared, NULL) != 0) {
            goto done;
        }
        n->inputs_at = used;
        if (ap_py_index_list(ins, self->operands + used, &n->input_count, AP_CONCAT_MAX_INPUTS,
                             "inputs") != 0) {
            goto done;
        }
        used += n->input_count;
        n->scratch_at = used;
        if (ap_py_index_list(scratch, self->operands + used, &n->scratch_count, AP_MAX_SCRATCH,
                             "scratch") != 0) {
            goto done;
        }
        used += n->scratch_count;
        n->state_at = used;
        if (state != NULL && ap_py_index_list(state, self->operands + used, &n->state_count, AP_MAX_STATE,
                                              "state") != 0) {
            goto done;
        }
        used += n->state_count;
        n->output = (uint32_t)output;
    }
    self->graph.nodes = self->nodes;
    self->graph.node_count = (uint32_t)n_nodes;
    self->graph.operands = self->operands;
    self->graph.operand_count = used;
    ap_error error;
    ap_error_clear(&error);
    ap_status status = ap_graph_check(&self->graph, self->pool_bytes, self->pool_count, &error);
    if (status != AP_OK) {
        ap_py_raise(status, &error);
        goto done;
    }
    rc = 0;
done:
    Py_XDECREF(places);
    Py_XDECREF(nodes);
    Py_XDECREF(pools);
    return rc;
}

/* Bind pool buffers; each must be writable and at least as large as its pool. */
static int ap_py_graph_bind(ap_py_graph *self, PyObject *pools_obj, Py_buffer *views, void **bases)
{
    PyObject *pools = PySequence_Fast(pools_obj, "pools must be a sequence of writable buffers");
    if (pools == NULL) {
        return -1;
    }
    if ((uint32_t)PySequence_Fast_GET_SIZE(pools) != self->pool_count) {
        PyErr_Format(PyExc_ValueError, "the graph has %u pools, %zd buffers given", self->pool_count,
                     PySequence_Fast_GET_SIZE(pools));
        Py_DECREF(pools);
        return -1;
    }
    for (uint32_t i = 0; i < self->pool_count; i++) {
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(pools, i), &views[i],
                               PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
            for (uint32_t j = 0; j < i; j++) {
                PyBuffer_Release(&views[j]);
            }
            Py_DECREF(pools);
            return -1;
        }
        if ((size_t)views[i].len < self->pool_bytes[i]) {
            PyErr_Format(PyExc_ValueError, "pool %u buffer has %zd bytes, the plan needs %zu", i,
                         views[i].len, self->pool_bytes[i]);
            for (uint32_t j = 0; j <= i; j++) {
                PyBuffer_Release(&views[j]);
            }
            Py_DECREF(pools);
            return -1;
        }
        bases[i] = views[i].buf;
    }
    Py_DECREF(pools);
    return 0;
}

/* Backward jumps (a WHILE's iterations) a run takes between two checks for a signal. */
enum { AP_PY_JUMPS_PER_CHECK = 4096 };

/* The whole graph, called with the GIL released: in chunks of AP_PY_JUMPS_PER_CHECK loop
   iterations, checking for a signal (Ctrl-C) between them, so that a WHILE that never ends
   can be interrupted. On a signal: *interrupted = 1, the exception set, AP_OK. */
static ap_status ap_py_graph_run_all(const ap_graph *graph, void *const *bases, uint32_t pool_count,
                                     ap_error *error, int *interrupted)
{
    uint32_t at = 0;
    *interrupted = 0;
    for (;;) {
        ap_status status = ap_graph_invoke_steps(graph, &at, AP_PY_JUMPS_PER_CHECK, bases, pool_count, error);
        if (status != AP_OK || at >= graph->node_count) {
            return status;
        }
        PyGILState_STATE gil = PyGILState_Ensure();
        int signalled = PyErr_CheckSignals();
        PyGILState_Release(gil);
        if (signalled != 0) {
            *interrupted = 1;
            return AP_OK;
        }
    }
}

static PyObject *ap_py_graph_invoke(ap_py_graph *self, PyObject *args)
{
    PyObject *pools_obj;
    unsigned int first = 0, end = self->graph.node_count;
    if (!PyArg_ParseTuple(args, "O|II", &pools_obj, &first, &end)) {
        return NULL;
    }
    if (first > end || end > self->graph.node_count) {
        PyErr_Format(PyExc_ValueError, "node range [%u, %u) is outside [0, %u)", first, end,
                     self->graph.node_count);
        return NULL;
    }
    Py_buffer views[64];
    void *bases[64];
    if (ap_py_graph_bind(self, pools_obj, views, bases) != 0) {
        return NULL;
    }
    ap_error error;
    ap_error_clear(&error);
    ap_status status;
    int interrupted = 0;
    Py_BEGIN_ALLOW_THREADS
    if (first == 0 && end == self->graph.node_count) {
        status = ap_py_graph_run_all(&self->graph, bases, self->pool_count, &error, &interrupted);
    } else {
        status = ap_graph_invoke_range(&self->graph, first, end, bases, self->pool_count, &error);
    }
    Py_END_ALLOW_THREADS
    for (uint32_t i = 0; i < self->pool_count; i++) {
        PyBuffer_Release(&views[i]);
    }
    if (interrupted) {
        return NULL;
    }
    if (status != AP_OK) {
        return ap_py_raise(status, &error);
    }
    Py_RETURN_NONE;
}

/* set_io([(pool, offset, bytes)] inputs, [...] outputs): where run() copies to and from. */
static PyObject *ap_py_graph_set_io(ap_py_graph *self, PyObject *args)
{
    PyObject *lists[2];
    if (!PyArg_ParseTuple(args, "OO", &lists[0], &lists[1])) {
        return NULL;
    }
    PyObject *fast[2] = {NULL, NULL};
    ap_place *io = NULL;
    Py_ssize_t counts[2] = {0, 0};
    for (int l = 0; l < 2; l++) {
        fast[l] = PySequence_Fast(lists[l], "set_io takes two sequences of (pool, offset, bytes)");
        if (fast[l] == NULL) {
            goto fail;
        }
        counts[l] = PySequence_Fast_GET_SIZE(fast[l]);
    }
    if (counts[0] > 64 || counts[1] > 64) {
        PyErr_SetString(PyExc_ValueError, "at most 64 inputs and 64 outputs");
        goto fail;
    }
    io = PyMem_Calloc((size_t)(counts[0] + counts[1]) + 1, sizeof(ap_place));
    if (io == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (int l = 0, at = 0; l < 2; l++) {
        for (Py_ssize_t i = 0; i < counts[l]; i++, at++) {
            unsigned int pool;
            unsigned long long offset, bytes;
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast[l], i), "IKK", &pool, &offset, &bytes)) {
                goto fail;
            }
            if (pool >= self->pool_count || offset > self->pool_bytes[pool] ||
                bytes > self->pool_bytes[pool] - offset) {
                PyErr_Format(PyExc_ValueError, "%s %zd: [%llu, +%llu) is outside pool %u",
                             l ? "output" : "input", i, offset, bytes, pool);
                goto fail;
            }
            io[at] = (ap_place){(int32_t)pool, (size_t)offset, (size_t)bytes, NULL};
        }
    }
    PyMem_Free(self->io);
    self->io = io;
    self->input_count = (uint32_t)counts[0];
    self->output_count = (uint32_t)counts[1];
    Py_DECREF(fast[0]);
    Py_DECREF(fast[1]);
    Py_RETURN_NONE;
fail:
    PyMem_Free(io);
    Py_XDECREF(fast[0]);
    Py_XDECREF(fast[1]);
    return NULL;
}

/* run(pools, [inputs], [outputs]): copy the inputs in, run every node, copy the outputs
   out; one crossing from Python, the GIL released for all of it. */
static PyObject *ap_py_graph_run(ap_py_graph *self, PyObject *args)
{
    PyObject *pools_obj, *ins_obj, *outs_obj;
    if (!PyArg_ParseTuple(args, "OOO", &pools_obj, &ins_obj, &outs_obj)) {
        return NULL;
    }
    if (self->io == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "run() needs set_io() first");
        return NULL;
    }
    PyObject *ins = PySequence_Fast(ins_obj, "inputs must be a sequence of buffers");
    PyObject *outs = ins ? PySequence_Fast(outs_obj, "outputs must be a sequence of buffers") : NULL;
    if (outs == NULL) {
        Py_XDECREF(ins);
        return NULL;
    }
    Py_buffer pool_views[64], io_views[128];
    void *bases[64];
    Py_ssize_t held = 0;
    PyObject *result = NULL;
    if ((uint32_t)PySequence_Fast_GET_SIZE(ins) != self->input_count ||
        (uint32_t)PySequence_Fast_GET_SIZE(outs) != self->output_count) {
        PyErr_Format(PyExc_ValueError, "run takes %u inputs and %u outputs", self->input_count,
                     self->output_count);
        goto done;
    }
    if (ap_py_graph_bind(self, pools_obj, pool_views, bases) != 0) {
        goto done;
    }
    for (uint32_t i = 0; i < self->input_count + self->output_count; i++, held++) {
        int is_out = i >= self->input_count;
        PyObject *obj = is_out ? PySequence_Fast_GET_ITEM(outs, i - self->input_count)
                               : PySequence_Fast_GET_ITEM(ins, i);
        if (PyObject_GetBuffer(obj, &io_views[i], PyBUF_C_CONTIGUOUS | (is_out ? PyBUF_WRITABLE : 0)) != 0) {
            goto release;
        }
        if ((size_t)io_views[i].len != self->io[i].bytes) {
            PyErr_Format(PyExc_ValueError, "%s %u has %zd bytes, the model's has %zu",
                         is_out ? "output" : "input", is_out ? i - self->input_count : i,
                         io_views[i].len, self->io[i].bytes);
            held++;
            goto release;
        }
    }
    ap_error error;
    ap_error_clear(&error);
    ap_status status;
    int interrupted = 0;
    Py_BEGIN_ALLOW_THREADS
    for (uint32_t i = 0; i < self->input_count; i++) {
        memcpy((unsigned char *)bases[self->io[i].pool] + self->io[i].offset, io_views[i].buf,
               self->io[i].bytes);
    }
    status = ap_py_graph_run_all(&self->graph, bases, self->pool_count, &error, &interrupted);
    for (uint32_t i = self->input_count; status == AP_OK && !interrupted && i < self->input_count + self->output_count; i++) {
        memcpy(io_views[i].buf, (unsigned char *)bases[self->io[i].pool] + self->io[i].offset,
               self->io[i].bytes);
    }
    Py_END_ALLOW_THREADS
    if (interrupted) {
        result = NULL;
    } else if (status != AP_OK) {
        ap_py_raise(status, &error);
    } else {
        result = Py_None;
        Py_INCREF(result);
    }
release:
    for (Py_ssize_t i = 0; i < held; i++) {
        PyBuffer_Release(&io_views[i]);
    }
    for (uint32_t i = 0; i < self->pool_count; i++) {
        PyBuffer_Release(&pool_views[i]);
    }
done:
    Py_DECREF(ins);
    Py_DECREF(outs);
    return result;
}

static double ap_py_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { AP_PY_EMPTY_CALLS = 8 };

/* One profiled repeat: every node timed on its own, then the whole graph timed once, then
   an empty timed call (nodes [0, 0); the fastest of AP_PY_EMPTY_CALLS), all under the same
   load. Each node's sample also holds
   what the empty call measures (two clock reads and one call into the executor), so that is
   what a node's own time is net of; the whole run holds it once. Writes n + 2 seconds.
   warm: run the graph once, untimed, first, so that the timed runs find the caches as the
   graph's previous run leaves them (as back-to-back runs do), not as another graph did. */
static ap_status ap_py_graph_profile_once(const ap_graph *graph, void *const *bases,
                                          uint32_t pool_count, int warm, double *row,
                                          ap_error *error)
{
    uint32_t n = graph->node_count;
    ap_status status = AP_OK;
    if (warm) {
        status = ap_graph_invoke_range(graph, 0, n, bases, pool_count, error);
    }
    for (uint32_t k = 0; k < n && status == AP_OK; k++) {
        double t0 = ap_py_now();
        status = ap_graph_invoke_range(graph, k, k + 1, bases, pool_count, error);
        row[k] = ap_py_now() - t0;
    }
    if (status == AP_OK) {
        double t0 = ap_py_now();
        status = ap_graph_invoke_range(graph, 0, n, bases, pool_count, error);
        row[n] = ap_py_now() - t0;
    }
    /* the fastest of a few empty calls: one of them may be the one the scheduler
       interrupts, and this figure is subtracted from every other */
    row[n + 1] = 1e300;
    for (int i = 0; i < AP_PY_EMPTY_CALLS && status == AP_OK; i++) {
        double t0 = ap_py_now();
        status = ap_graph_invoke_range(graph, 0, 0, bases, pool_count, error);
        double t = ap_py_now() - t0;
        row[n + 1] = t < row[n + 1] ? t : row[n + 1];
    }
    return status;
}

/* 0 when repeats lies in [1, 100000]; else -1 with ValueError set. */
static int ap_py_check_repeats(int repeats)
{
    if (repeats < 1 || repeats > 100000) {
        PyErr_Format(PyExc_ValueError, "repeats must be in [1, 100000], got %d", repeats);
        return -1;
    }
    return 0;
}

/* times[r * width + k] as a list of `repeats` lists of `width` floats (NULL on error). */
static PyObject *ap_py_timing_rows(const double *times, int repeats, size_t width)
{
    PyObject *rows = PyList_New(repeats);
    for (int r = 0; rows != NULL && r < repeats; r++) {
        PyObject *row = PyList_New((Py_ssize_t)width);
        if (row == NULL) {
            Py_CLEAR(rows);
            break;
        }
        PyList_SET_ITEM(rows, r, row);
        for (size_t k = 0; k < width; k++) {
            PyObject *value = PyFloat_FromDouble(times[(size_t)r * width + k]);
            if (value == NULL) {
                Py_CLEAR(rows);
                break;
            }
            PyList_SET_ITEM(row, (Py_ssize_t)k, value);
        }
    }
    return rows;
}

/* profile(pools, repeats) -> one row per repeat:
   [seconds of node 0, ..., node n-1, seconds of the whole graph, seconds of an empty call] */
static PyObject *ap_py_graph_profile(ap_py_graph *self, PyObject *args)
{
    PyObject *pools_obj;
    int repeats;
    if (!PyArg_ParseTuple(args, "Oi", &pools_obj, &repeats) || ap_py_check_repeats(repeats) != 0) {
        return NULL;
    }
    uint32_t width = self->graph.node_count + 2;
    double *times = PyMem_Calloc((size_t)repeats * width, sizeof(double));
    if (times == NULL) {
        return PyErr_NoMemory();
    }
    Py_buffer views[64];
    void *bases[64];
    if (ap_py_graph_bind(self, pools_obj, views, bases) != 0) {
        PyMem_Free(times);
        return NULL;
    }
    ap_error error;
    ap_error_clear(&error);
    ap_status status = AP_OK;
    Py_BEGIN_ALLOW_THREADS
    for (int r = 0; r < repeats && status == AP_OK; r++) {
        status = ap_py_graph_profile_once(&self->graph, bases, self->pool_count, 0,
                                          times + (size_t)r * width, &error);
    }
    Py_END_ALLOW_THREADS
    for (uint32_t i = 0; i < self->pool_count; i++) {
        PyBuffer_Release(&views[i]);
    }
    if (status != AP_OK) {
        PyMem_Free(times);
        return ap_py_raise(status, &error);
    }
    PyObject *result = ap_py_timing_rows(times, repeats, width);
    PyMem_Free(times);
    return result;
}

/* profile_together([(graph, pools), ...], repeats) -> [rows of each graph, as profile gives]
   Each repeat profiles every graph once, in turn, after an untimed warm-up run of it (see
   ap_py_graph_profile_once), so all of them sample the same moments of the machine, a
   repeat apart, not a call apart. */
static PyObject *ap_py_graph_profile_together(PyObject *cls, PyObject *args)
{
    (void)cls;
    PyObject *items_obj;
    int repeats;
    if (!PyArg_ParseTuple(args, "Oi", &items_obj, &repeats) || ap_py_check_repeats(repeats) != 0) {
        return NULL;
    }
    PyObject *items = PySequence_Fast(items_obj, "profile_together takes a sequence of (graph, pools)");
    if (items == NULL) {
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(items);
    if (count < 1 || count > 256) {
        Py_DECREF(items);
        PyErr_Format(PyExc_ValueError, "profile_together takes 1 to 256 graphs, got %zd", count);
        return NULL;
    }
    ap_py_graph **graphs = PyMem_Calloc((size_t)count, sizeof(ap_py_graph *));
    size_t *row_at = PyMem_Calloc((size_t)count + 1, sizeof(size_t));
    Py_buffer *views = PyMem_Calloc((size_t)count * 64, sizeof(Py_buffer));
    void **bases = PyMem_Calloc((size_t)count * 64, sizeof(void *));
    double *times = NULL;
    PyObject *result = NULL;
    Py_ssize_t bound = 0;
    if (graphs == NULL || row_at == NULL || views == NULL || bases == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t g = 0; g < count; g++) {
        PyObject *graph, *pools;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(items, g), "O!O;each item is (graph, pools)",
                              &ap_py_graph_type, &graph, &pools)) {
            goto done;
        }
        if (ap_py_graph_bind((ap_py_graph *)graph, pools, views + g * 64, bases + g * 64) != 0) {
            goto done;
        }
        /* held for the call: the list may change while the GIL is released */
        Py_INCREF(graph);
        graphs[g] = (ap_py_graph *)graph;
        bound = g + 1;
        /* every repeat of graph g: its node count + 2 seconds */
        size_t width = (size_t)graphs[g]->graph.node_count + 2;
        if (width > (SIZE_MAX / sizeof(double) - row_at[g]) / (size_t)repeats) {
            PyErr_SetString(PyExc_OverflowError, "profile_together: too many timings");
            goto done;
        }
        row_at[g + 1] = row_at[g] + width * (size_t)repeats;
    }
    times = PyMem_Calloc(row_at[count] + 1, sizeof(double));
    if (times == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    ap_error error;
    ap_error_clear(&error);
    ap_status status = AP_OK;
    Py_BEGIN_ALLOW_THREADS
    for (int r = 0; r < repeats && status == AP_OK; r++) {
        for (Py_ssize_t g = 0; g < count && status == AP_OK; g++) {
            size_t width = (size_t)graphs[g]->graph.node_count + 2;
            status = ap_py_graph_profile_once(&graphs[g]->graph, bases + g * 64, graphs[g]->pool_count,
                                              1, times + row_at[g] + (size_t)r * width, &error);
        }
    }
    Py_END_ALLOW_THREADS
    if (status != AP_OK) {
        ap_py_raise(status, &error);
        goto done;
    }
    result = PyList_New(count);
    for (Py_ssize_t g = 0; result != NULL && g < count; g++) {
        PyObject *rows = ap_py_timing_rows(times + row_at[g], repeats, (size_t)graphs[g]->graph.node_count + 2);
        if (rows == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, g, rows);
    }
done:
    for (Py_ssize_t g = 0; g < bound; g++) {
        for (uint32_t i = 0; i < graphs[g]->pool_count; i++) {
            PyBuffer_Release(&views[g * 64 + i]);
        }
        Py_DECREF(graphs[g]);
    }
    PyMem_Free(times);
    PyMem_Free(bases);
    PyMem_Free(views);
    PyMem_Free(row_at);
    PyMem_Free(graphs);
    Py_DECREF(items);
    return result;
}

static PyObject *ap_py_graph_node_count(ap_py_graph *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLong(self->graph.node_count);
}

static PyMethodDef ap_py_graph_methods[] = {
    {"invoke", (PyCFunction)ap_py_graph_invoke, METH_VARARGS,
     "invoke(pools[, first, end]) -> None: run nodes [first, end) (default all); pools are "
     "writable buffers, one per pool"},
    {"set_io", (PyCFunction)ap_py_graph_set_io, METH_VARARGS,
     "set_io([(pool, offset, bytes)] inputs, [...] outputs): where run() copies"},
    {"run", (PyCFunction)ap_py_graph_run, METH_VARARGS,
     "run(pools, [inputs], [outputs]) -> None: copy in, invoke, copy out, in one call"},
    {"profile", (PyCFunction)ap_py_graph_profile, METH_VARARGS,
     "profile(pools, repeats) -> per repeat [seconds per node..., whole graph, empty call]"},
    {"profile_together", (PyCFunction)ap_py_graph_profile_together, METH_VARARGS | METH_STATIC,
     "profile_together([(graph, pools), ...], repeats) -> per graph its profile rows; each "
     "repeat profiles every graph in turn"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ap_py_graph_getset[] = {
    {"node_count", (getter)ap_py_graph_node_count, NULL, "number of nodes", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ap_py_graph_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "arenaplan._core.Graph",
    .tp_basicsize = sizeof(ap_py_graph),
    .tp_dealloc = (destructor)ap_py_graph_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Graph(places, nodes, pool_bytes): an executor graph (see graph_binding.c)",
    .tp_methods = ap_py_graph_methods,
    .tp_getset = ap_py_graph_getset,
    .tp_init = (initproc)ap_py_graph_init,
    .tp_new = PyType_GenericNew,
};
