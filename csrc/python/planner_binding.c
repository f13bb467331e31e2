/*
 * Bindings of the buffer planner (planner.h). Arrays arrive as NumPy vectors
 * with exact dtypes (the Python layer validates and converts); results go back
 * as bytes of uint64 and plain tuples.
 */
#include "binding.h"

#include <stdlib.h>
#include <string.h>

/* Views of the four vectors that describe buffers. */
typedef struct ap_py_buffer_views {
    Py_buffer sizes, alignments, first, last;
    int held;
} ap_py_buffer_views;

static void ap_py_release_views(ap_py_buffer_views *v)
{
    Py_buffer *all[4] = {&v->sizes, &v->alignments, &v->first, &v->last};
    for (int i = 0; i < v->held; i++) {
        PyBuffer_Release(all[i]);
    }
    v->held = 0;
}

/* Build an ap_buffer array (PyMem_Malloc'd; caller frees) from four vectors. */
static ap_buffer *ap_py_buffers(PyObject *sizes, PyObject *alignments, PyObject *first,
                                PyObject *last, size_t *count_out)
{
    ap_py_buffer_views v = {.held = 0};
    if (ap_py_get_vector(sizes, "sizes", 'u', 8, -1, &v.sizes) != 0) {
        return NULL;
    }
    v.held = 1;
    Py_ssize_t n = v.sizes.len / 8;
    if (ap_py_get_vector(alignments, "alignments", 'u', 8, n, &v.alignments) != 0) {
        goto fail;
    }
    v.held = 2;
    if (ap_py_get_vector(first, "first", 'i', 4, n, &v.first) != 0) {
        goto fail;
    }
    v.held = 3;
    if (ap_py_get_vector(last, "last", 'i', 4, n, &v.last) != 0) {
        goto fail;
    }
    v.held = 4;
    ap_buffer *buffers = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(ap_buffer));
    if (buffers == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    const uint64_t *s = v.sizes.buf, *a = v.alignments.buf;
    const int32_t *f = v.first.buf, *l = v.last.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s[i] > (uint64_t)SIZE_MAX || a[i] > (uint64_t)SIZE_MAX) {
            PyMem_Free(buffers);
            PyErr_Format(PyExc_OverflowError, "buffer %zd: size does not fit this host's size_t", i);
            goto fail;
        }
        buffers[i].size = (size_t)s[i];
        buffers[i].alignment = (size_t)a[i];
        buffers[i].first = f[i];
        buffers[i].last = l[i];
    }
    ap_py_release_views(&v);
    *count_out = (size_t)n;
    return buffers;
fail:
    ap_py_release_views(&v);
    return NULL;
}

/*
 * The planner runs with the GIL released; its poll hook (every ~20 ms, on the
 * calling thread) takes the GIL back for a moment to run Python's signal handlers
 * (Ctrl-C: KeyboardInterrupt) and the caller's progress callable. Either raising
 * cancels the plan; the exception stays set on this thread and is what the call
 * raises once the planner has returned AP_ERR_CANCELLED.
 */
typedef struct ap_py_poll {
    PyThreadState *saved;  /* this thread's state while the GIL is released */
    PyObject *progress;    /* NULL or a callable taking the fraction done */
} ap_py_poll;

static int ap_py_poll_hook(void *context, double fraction)
{
    ap_py_poll *poll = (ap_py_poll *)context;
    int stop = 0;
    PyEval_RestoreThread(poll->saved);
    if (PyErr_CheckSignals() != 0) {
        stop = 1;
    } else if (poll->progress != NULL) {
        PyObject *r = PyObject_CallFunction(poll->progress, "d", fraction);
        if (r == NULL) {
            stop = 1;
        }
        Py_XDECREF(r);
    }
    poll->saved = PyEval_SaveThread();
    return stop;
}

/* Run `status = call` with the GIL released and `options` polled through `poll`. */
#define AP_PY_POLLED(poll, options, status, call)                                      \
    do {                                                                                \
        (options).poll = ap_py_poll_hook;                                               \
        (options).poll_context = &(poll);                                               \
        (poll).saved = PyEval_SaveThread();                                             \
        status = call;                                                                  \
        PyEval_RestoreThread((poll).saved);                                             \
    } while (0)

/* A cancelled call raises what the hook caught (KeyboardInterrupt, or the progress
   callable's exception); otherwise the status's own exception. */
static PyObject *ap_py_raise_plan(ap_status status, const ap_error *error)
{
    if (status == AP_ERR_CANCELLED) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_KeyboardInterrupt, error->message);
        }
        return NULL;
    }
    return ap_py_raise(status, error);
}

static PyObject *ap_py_plan_buffers(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *sizes, *alignments, *first, *last, *progress = Py_None, *fixed_obj = Py_None;
    int strategy;
    double time_limit_s;
    unsigned long long seed, capacity, step_limit = 0, memory_limit = 0;
    if (!PyArg_ParseTuple(args, "OOOOidKK|KKOO", &sizes, &alignments, &first, &last, &strategy,
                          &time_limit_s, &seed, &capacity, &step_limit, &memory_limit,
                          &progress, &fixed_obj)) {
        return NULL;
    }
    if (memory_limit > (unsigned long long)SIZE_MAX) {
        memory_limit = (unsigned long long)SIZE_MAX;
    }
    size_t n = 0;
    ap_buffer *buffers = ap_py_buffers(sizes, alignments, first, last, &n);
    if (buffers == NULL) {
        return NULL;
    }
    /* pre-placed offsets: u64, 2**64 - 1 for a buffer the planner places */
    size_t *fixed = NULL;
    if (fixed_obj != Py_None) {
        Py_buffer view;
        if (ap_py_get_vector(fixed_obj, "fixed", 'u', 8, (Py_ssize_t)n, &view) != 0) {
            PyMem_Free(buffers);
            return NULL;
        }
        fixed = PyMem_Calloc(n > 0 ? n : 1, sizeof(size_t));
        if (fixed == NULL) {
            PyBuffer_Release(&view);
            PyMem_Free(buffers);
            return PyErr_NoMemory();
        }
        const uint64_t *f = view.buf;
        for (size_t i = 0; i < n; i++) {
            if (f[i] != UINT64_MAX && f[i] >= (uint64_t)SIZE_MAX) {
                PyBuffer_Release(&view);
                PyMem_Free(buffers);
                PyMem_Free(fixed);
                PyErr_Format(PyExc_OverflowError, "buffer %zu: fixed offset does not fit this host's size_t", i);
                return NULL;
            }
            fixed[i] = f[i] == UINT64_MAX ? SIZE_MAX : (size_t)f[i];
        }
        PyBuffer_Release(&view);
    }
    PyObject *offsets_bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * sizeof(uint64_t)));
    /* where size_t is uint64_t the planner writes the offsets straight into the result
       (a new bytes object no one else sees yet): no second array, no copy */
    int direct = sizeof(size_t) == sizeof(uint64_t) && n > 0;
    size_t *offsets = offsets_bytes == NULL ? NULL
                      : direct ? (size_t *)(void *)PyBytes_AS_STRING(offsets_bytes)
                               : PyMem_Calloc(n > 0 ? n : 1, sizeof(size_t));
    if (offsets_bytes == NULL || offsets == NULL) {
        PyMem_Free(buffers);
        PyMem_Free(fixed);
        Py_XDECREF(offsets_bytes);
        return PyErr_NoMemory();
    }
    ap_plan_options options = {(ap_strategy)strategy, time_limit_s, (uint64_t)seed, (size_t)capacity,
                               (uint64_t)step_limit, (size_t)memory_limit, NULL, NULL, fixed};
    ap_plan_stats stats = {0};
    ap_py_poll poll = {NULL, progress == Py_None ? NULL : progress};
    ap_error error;
    ap_error_clear(&error);
    ap_status status;
    AP_PY_POLLED(poll, options, status,
                 ap_plan_buffers(&options, buffers, n, offsets, &stats, &error));
    PyMem_Free(buffers);
    PyMem_Free(fixed);
    if (status != AP_OK) {
        if (!direct) {
            PyMem_Free(offsets);
        }
        Py_DECREF(offsets_bytes);
        return ap_py_raise_plan(status, &error);
    }
    if (!direct) {
        uint64_t *out = (uint64_t *)PyBytes_AS_STRING(offsets_bytes);
        for (size_t i = 0; i < n; i++) {
            out[i] = (uint64_t)offsets[i];
        }
        PyMem_Free(offsets);
    }
    const char *name = ap_strategy_str(stats.strategy);
    return Py_BuildValue("(N(KKisdKk))", offsets_bytes, (unsigned long long)stats.arena_bytes,
                         (unsigned long long)stats.lower_bound_bytes, (int)stats.optimal,
                         name ? name : "unknown", stats.elapsed_s,
                         (unsigned long long)stats.search_steps, (unsigned long)stats.skipped);
}

static PyObject *ap_py_lower_bound(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *sizes, *alignments, *first, *last;
    if (!PyArg_ParseTuple(args, "OOOO", &sizes, &alignments, &first, &last)) {
        return NULL;
    }
    size_t n = 0;
    ap_buffer *buffers = ap_py_buffers(sizes, alignments, first, last, &n);
    if (buffers == NULL) {
        return NULL;
    }
    size_t bytes = 0;
    ap_error error;
    ap_error_clear(&error);
    ap_status status = ap_buffers_lower_bound(buffers, n, &bytes, &error);
    PyMem_Free(buffers);
    if (status != AP_OK) {
        return ap_py_raise(status, &error);
    }
    return PyLong_FromUnsignedLongLong((unsigned long long)bytes);
}

/* live_bytes(sizes, alignments, first, last, op_count) -> bytes of uint64: aligned bytes
   live at each op. */
static PyObject *ap_py_live_bytes(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *sizes, *alignments, *first, *last;
    Py_ssize_t op_count;
    if (!PyArg_ParseTuple(args, "OOOOn", &sizes, &alignments, &first, &last, &op_count)) {
        return NULL;
    }
    if (op_count < 0) {
        PyErr_Format(PyExc_ValueError, "op_count must be >= 0, got %zd", op_count);
        return NULL;
    }
    size_t n = 0;
    ap_buffer *buffers = ap_py_buffers(sizes, alignments, first, last, &n);
    if (buffers == NULL) {
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, op_count * (Py_ssize_t)sizeof(uint64_t));
    size_t *live = PyMem_Calloc(op_count > 0 ? (size_t)op_count : 1, sizeof(size_t));
    if (out == NULL || live == NULL) {
        PyMem_Free(buffers);
        PyMem_Free(live);
        Py_XDECREF(out);
        return PyErr_NoMemory();
    }
    ap_error error;
    ap_error_clear(&error);
    ap_status status = ap_buffers_live_bytes(buffers, n, (size_t)op_count, live, &error);
    PyMem_Free(buffers);
    if (status != AP_OK) {
        PyMem_Free(live);
        Py_DECREF(out);
        return ap_py_raise(status, &error);
    }
    uint64_t *dst = (uint64_t *)PyBytes_AS_STRING(out);
    for (Py_ssize_t k = 0; k < op_count; ++k) {
        dst[k] = (uint64_t)live[k];
    }
    PyMem_Free(live);
    return out;
}

/* overlaps: a sequence of (input, output, kind, min_lead) tuples. */
static ap_overlap *ap_py_overlaps(PyObject *seq, size_t *count_out)
{
    PyObject *fast = PySequence_Fast(seq, "overlaps must be a sequence of tuples");
    if (fast == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    ap_overlap *overlaps = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(ap_overlap));
    if (overlaps == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned int input, output;
        int kind;
        unsigned long long lead;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "IIiK", &input, &output, &kind,
                              &lead)) {
            PyMem_Free(overlaps);
            Py_DECREF(fast);
            return NULL;
        }
        overlaps[i].input = input;
        overlaps[i].output = output;
        overlaps[i].kind = (ap_overlap_kind)kind;
        overlaps[i].min_lead = (size_t)lead;
    }
    Py_DECREF(fast);
    *count_out = (size_t)n;
    return overlaps;
}

static PyObject *ap_py_verify(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *sizes, *alignments, *first, *last, *offsets_obj, *overlaps_obj;
    unsigned long long capacity;
    if (!PyArg_ParseTuple(args, "OOOOOOK", &sizes, &alignments, &first, &last, &offsets_obj,
                          &overlaps_obj, &capacity)) {
        return NULL;
    }
    size_t n = 0, n_overlaps = 0;
    ap_buffer *buffers = ap_py_buffers(sizes, alignments, first, last, &n);
    if (buffers == NULL) {
        return NULL;
    }
    Py_buffer view;
    if (ap_py_get_vector(offsets_obj, "offsets", 'u', 8, (Py_ssize_t)n, &view) != 0) {
        PyMem_Free(buffers);
        return NULL;
    }
    size_t *offsets = PyMem_Calloc(n > 0 ? n : 1, sizeof(size_t));
    ap_overlap *overlaps = ap_py_overlaps(overlaps_obj, &n_overlaps);
    if (offsets == NULL || overlaps == NULL) {
        PyBuffer_Release(&view);
        PyMem_Free(buffers);
        PyMem_Free(offsets);
        PyMem_Free(overlaps);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    const uint64_t *in = view.buf;
    for (size_t i = 0; i < n; i++) {
        offsets[i] = in[i] > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)in[i];
    }
    PyBuffer_Release(&view);
    size_t arena = 0;
    ap_error error;
    ap_error_clear(&error);
    ap_status status = ap_plan_verify(buffers, n, offsets, overlaps, n_overlaps, (size_t)capacity,
                                      &arena, &error);
    PyMem_Free(buffers);
    PyMem_Free(offsets);
    PyMem_Free(overlaps);
    if (status != AP_OK) {
        return ap_py_raise(status, &error);
    }
    return PyLong_FromUnsignedLongLong((unsigned long long)arena);
}

/* Pools from three vectors of one length (PyMem_Malloc'd; caller frees). */
static ap_pool *ap_py_pools(PyObject *capacities, PyObject *alignments, PyObject *kinds,
                            size_t *count_out)
{
    Py_buffer cap, align, kind;
    if (ap_py_get_vector(capacities, "pool_capacities", 'u', 8, -1, &cap) != 0) {
        return NULL;
    }
    Py_ssize_t n = cap.len / 8;
    if (ap_py_get_vector(alignments, "pool_alignments", 'u', 8, n, &align) != 0) {
        PyBuffer_Release(&cap);
        return NULL;
    }
    if (ap_py_get_vector(kinds, "pool_kinds", 'i', 4, n, &kind) != 0) {
        PyBuffer_Release(&cap);
        PyBuffer_Release(&align);
        return NULL;
    }
    ap_pool *pools = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(ap_pool));
    if (pools == NULL) {
        PyErr_NoMemory();
    } else {
        const uint64_t *c = cap.buf, *a = align.buf;
        const int32_t *k = kind.buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (c[i] > (uint64_t)SIZE_MAX || a[i] > (uint64_t)SIZE_MAX) {
                PyErr_Format(PyExc_OverflowError,
                             "pool %zd: capacity or alignment does not fit this host's size_t", i);
                PyMem_Free(pools);
                pools = NULL;
                break;
            }
            pools[i].capacity = (size_t)c[i];
            pools[i].alignment = (size_t)a[i];
            pools[i].kind = (ap_pool_kind)k[i];
        }
    }
    PyBuffer_Release(&cap);
    PyBuffer_Release(&align);
    PyBuffer_Release(&kind);
    *count_out = (size_t)n;
    return pools;
}

static PyObject *ap_py_plan_pools(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *sizes, *alignments, *first, *last, *allowed_obj, *capacities, *pool_alignments,
        *kinds, *progress = Py_None;
    int strategy;
    double time_limit_s;
    unsigned long long seed, memory_limit = 0;
    if (!PyArg_ParseTuple(args, "OOOOOOOOidK|KO", &sizes, &alignments, &first, &last,
                          &allowed_obj, &capacities, &pool_alignments, &kinds, &strategy,
                          &time_limit_s, &seed, &memory_limit, &progress)) {
        return NULL;
    }
    if (memory_limit > (unsigned long long)SIZE_MAX) {
        memory_limit = (unsigned long long)SIZE_MAX;
    }
    size_t n = 0, pool_count = 0;
    ap_buffer *buffers = ap_py_buffers(sizes, alignments, first, last, &n);
    if (buffers == NULL) {
        return NULL;
    }
    ap_pool *pools = ap_py_pools(capacities, pool_alignments, kinds, &pool_count);
    if (pools == NULL) {
        PyMem_Free(buffers);
        return NULL;
    }
    uint32_t *allowed = NULL;
    if (allowed_obj != Py_None) {
        Py_buffer view;
        if (ap_py_get_vector(allowed_obj, "allowed", 'u', 4, (Py_ssize_t)n, &view) != 0) {
            PyMem_Free(buffers);
            PyMem_Free(pools);
            return NULL;
        }
        allowed = PyMem_Calloc(n > 0 ? n : 1, sizeof(uint32_t));
        if (allowed != NULL && n > 0) {
            memcpy(allowed, view.buf, n * sizeof(uint32_t));
        }
        PyBuffer_Release(&view);
        if (allowed == NULL) {
            PyMem_Free(buffers);
            PyMem_Free(pools);
            return PyErr_NoMemory();
        }
    }
    PyObject *pool_index = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * sizeof(uint32_t)));
    PyObject *offsets_bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * sizeof(uint64_t)));
    size_t *offsets = PyMem_Calloc(n > 0 ? n : 1, sizeof(size_t));
    size_t *pool_bytes = PyMem_Calloc(pool_count > 0 ? pool_count : 1, sizeof(size_t));
    if (pool_index == NULL || offsets_bytes == NULL || offsets == NULL || pool_bytes == NULL) {
        PyMem_Free(buffers);
        PyMem_Free(pools);
        PyMem_Free(allowed);
        PyMem_Free(offsets);
        PyMem_Free(pool_bytes);
        Py_XDECREF(pool_index);
        Py_XDECREF(offsets_bytes);
        return PyErr_NoMemory();
    }
    ap_plan_options options = {(ap_strategy)strategy, time_limit_s, (uint64_t)seed, 0, 0,
                               (size_t)memory_limit, NULL, NULL};
    ap_py_poll poll = {NULL, progress == Py_None ? NULL : progress};
    /* more than AP_MAX_POOLS (however many) is refused by ap_plan_pools */
    uint32_t pools_arg = pool_count > UINT32_MAX ? UINT32_MAX : (uint32_t)pool_count;
    ap_error error;
    ap_error_clear(&error);
    ap_status status;
    AP_PY_POLLED(poll, options, status,
                 ap_plan_pools(&options, buffers, allowed, n, pools, pools_arg,
                               (uint32_t *)PyBytes_AS_STRING(pool_index), offsets, pool_bytes,
                               &error));
    PyMem_Free(buffers);
    PyMem_Free(pools);
    PyMem_Free(allowed);
    PyObject *per_pool = NULL;
    if (status == AP_OK) {
        uint64_t *out = (uint64_t *)PyBytes_AS_STRING(offsets_bytes);
        for (size_t i = 0; i < n; i++) {
            out[i] = (uint64_t)offsets[i];
        }
        per_pool = PyTuple_New((Py_ssize_t)pool_count);
        for (size_t p = 0; per_pool != NULL && p < pool_count; p++) {
            PyObject *v = PyLong_FromUnsignedLongLong((unsigned long long)pool_bytes[p]);
            if (v == NULL) {
                Py_CLEAR(per_pool);
                break;
            }
            PyTuple_SET_ITEM(per_pool, (Py_ssize_t)p, v);
        }
    }
    PyMem_Free(offsets);
    PyMem_Free(pool_bytes);
    if (status != AP_OK || per_pool == NULL) {
        Py_DECREF(pool_index);
        Py_DECREF(offsets_bytes);
        return status != AP_OK ? ap_py_raise_plan(status, &error) : NULL;
    }
    return Py_BuildValue("(NNN)", pool_index, offsets_bytes, per_pool);
}

static PyObject *ap_py_strategy_names(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *names = PyTuple_New(AP_STRATEGY_COUNT);
    if (names == NULL) {
        return NULL;
    }
    for (int i = 0; i < AP_STRATEGY_COUNT; i++) {
        const char *name = ap_strategy_str((ap_strategy)i);
        PyTuple_SET_ITEM(names, i, PyUnicode_FromString(name ? name : "unknown"));
    }
    return names;
}

PyMethodDef ap_py_planner_methods[] = {
    {"plan_buffers", ap_py_plan_buffers, METH_VARARGS,
     "plan_buffers(sizes u64, alignments u64, first i32, last i32, strategy, time_limit_s, seed, "
     "capacity[, step_limit, memory_limit, progress, fixed]) -> (offsets bytes of u64, (arena, "
     "lower_bound, optimal, strategy, elapsed_s, steps, skipped mask)). Ctrl-C (or progress "
     "raising) cancels within ~20 ms of planning; progress(fraction) is called every ~20 ms. "
     "fixed: None or u64 pre-placed offsets (2**64 - 1: placed by the planner; greedy "
     "strategies only)."},
    {"live_bytes", ap_py_live_bytes, METH_VARARGS,
     "live_bytes(sizes, alignments, first, last, op_count) -> bytes of u64: aligned bytes live at each op"},
    {"lower_bound", ap_py_lower_bound, METH_VARARGS,
     "lower_bound(sizes, alignments, first, last) -> bytes live at the busiest op"},
    {"verify", ap_py_verify, METH_VARARGS,
     "verify(sizes, alignments, first, last, offsets u64, overlaps, capacity) -> arena bytes"},
    {"plan_pools", ap_py_plan_pools, METH_VARARGS,
     "plan_pools(sizes u64, alignments u64, first i32, last i32, allowed u32 | None, "
     "pool_capacities u64, pool_alignments u64, pool_kinds i32, strategy, time_limit_s, seed"
     "[, memory_limit, progress]) "
     "-> (pool_index bytes of u32, offsets bytes of u64 from each buffer's pool base, "
     "pool_bytes tuple). allowed[i] bit p: buffer i may live in pool p; None: every non-const "
     "pool. Pools fastest first; kinds 0 workspace, 1 stack, 2 const; capacity 0 = unusable. "
     "Raises PlanDoesNotFit (.pool = index as str, .needed, .available, .op)."},
    {"strategy_names", ap_py_strategy_names, METH_NOARGS, "names of strategies by value"},
    {NULL, NULL, 0, NULL},
};
