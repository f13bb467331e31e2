/*
 * Batch driver for the arm-dsp kernels on a Cortex-M under QEMU (harness/firmware/dsp_cases.py
 * writes the cases and reads this program's lines). argv[1] names a file of cases, read through
 * semihosting one record at a time; each record is one node of any row of the op table
 * (arenaplan/ops.h): its op and tensor types, its params field by field, its inputs and state,
 * the filter and bias a weighted row prepares, the prepared blob the host packed for arm-dsp,
 * the expected output and state (the host's portable run) and the host's arm-dsp variant list.
 * The driver rebuilds the params struct from the row's field descriptors and runs the node
 * through the row's entry points, as the executor does. For each case it
 *   - lists the variants for arm-dsp here and compares them with the host's (kind, param, name,
 *     scratch requests), and packs the blob here and compares it with the host's;
 *   - runs every variant with exactly its scratch, each buffer (inputs, output, state, blob,
 *     scratch) between poisoned guard bytes: AP_OK, the expected output and state, guards
 *     intact, inputs and blob unchanged;
 *   - runs a variant that may work in place (ap_variant.in_place) again with its output on
 *     each input of the output's size: the same output;
 *   - for each scratch buffer, runs it again with that buffer one byte short:
 *     AP_ERR_SCRATCH_TOO_SMALL naming the buffer, needed and available bytes, the output and
 *     state untouched, guards intact.
 * It prints one line per case, "case <id> <variants> <passed>", a line
 * "fail <id> <variant> <what>" for each failed check, and "done" at the end.
 * Optional arguments: argv[2] bytes to add to the addresses of the buffers argv[3] names
 * (bits: 1 inputs, 2 output, 4 scratch, 8 state; default 15), each offset rounded down to a multiple of
 * the buffer's element size (the C API asks that much of an int16 or int32 operand): every
 * variant must give the same bytes with its inputs and output at any such address, and with
 * its scratch at any address must give them or refuse it with AP_ERR_INVALID_ARGUMENT
 * ("refused <id> <variant>"), never fault; each run is announced
 * ("run <id> <variant> <short index>") so that a fault names it.
 * After each case, "entry <id> <address>" gives the row's run entry (for its static stack
 * bound) and "stack <id> <bytes>..." the stack each variant's run touched (with exactly its
 * scratch), measured from the caller's stack pointer by painting.
 * argv[4]: run only the variants of that name.
 *
 * Record layout (little endian, every field 4-byte aligned; dsp_cases.py writes it):
 *   u32 'APQD', u32 body bytes; body: u32 op, u32 types, u32 id, u32 nfields, then the row's
 *   params fields in its order: a scalar field (count >= 1) as count 8-byte values, a pointer
 *   field as u32 n (0xFFFFFFFF: NULL) and n 8-byte values (integers as int64, float fields as
 *   IEEE doubles);
 *   u32 ninputs, the inputs; u32 nstates, the states before the run, then after it;
 *   the filter and bias (empty: NULL) that prepare reads, the prepared blob, the expected
 *   output, each buffer u32 bytes, u32 element size, data padded to 4;
 *   u32 nvariants, then per variant i32 kind, param, u32 scratch_count, u32 bytes[4],
 *   u32 alignment[4], char name[32].
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaplan/executor.h"
#include "arenaplan/ops.h"
#include "arenaplan/status.h"
#include "stack_paint.h"

enum { GUARD = 64, POISON = 0xA5, OUT_POISON = 0x5A, MAX_INPUTS = 16 };
#define RECORD_MAGIC 0x44515041u /* "APQD" */
#define NO_ARRAY 0xFFFFFFFFu

/* 3.5 MiB of the boards' 4 MiB RAM (build.BOARDS; dsp_cases.py checks each case fits) */
static uint8_t record[3u << 19] __attribute__((aligned(16)));
static uint8_t arena[4u << 19] __attribute__((aligned(64)));
static size_t arena_used;
/* argv[2]: bytes added to the addresses of the buffers argv[3] names (bits: 1 inputs, 2 output, 4 scratch, 8 state;
   default all), each otherwise at its alignment */
static size_t misalign;
static unsigned misaligned = 15u;
/* argv[4]: run only the variants of this name (default: every one) */
static const char *only;
/* the params struct and the arrays its pointer fields point to */
static uint64_t params_store[128];
static uint64_t array_pool[10240];
static size_t array_used;

typedef struct {
    const uint8_t *data;
    uint32_t bytes, element;
} blob;

typedef struct {
    const uint8_t *at, *end;
    int bad;
} reader;

/* The next `bytes` of the record into out (zeros and r->bad past its end). */
static void rd(reader *r, void *out, size_t bytes)
{
    memset(out, 0, bytes);
    if ((size_t)(r->end - r->at) < bytes) {
        r->bad = 1;
        return;
    }
    memcpy(out, r->at, bytes);
    r->at += bytes;
}

static uint32_t rd_u32(reader *r)
{
    uint32_t v;
    rd(r, &v, sizeof(v));
    return v;
}

static uint64_t rd_u64(reader *r)
{
    uint64_t v;
    rd(r, &v, sizeof(v));
    return v;
}

static blob rd_blob(reader *r)
{
    blob b = {NULL, rd_u32(r), rd_u32(r)};
    uint32_t padded = (b.bytes + 3u) & ~3u;
    if ((uint32_t)(r->end - r->at) < padded || b.bytes > padded || b.element == 0 || b.element > 8) {
        r->bad = 1;
        b.bytes = 0;
        return b;
    }
    b.data = r->at;
    r->at += padded;
    return b;
}

/* One value of a field of type t from its 8-byte form, stored at p; its size, 0 if unknown. */
static size_t store_value(ap_field_type t, uint64_t v, void *p)
{
    union {
        int8_t i8;
        int16_t i16;
        int32_t i32;
        uint32_t u32;
        uint64_t u64;
        size_t size;
        float f32;
        double f64;
    } x;
    size_t n;
    switch (t) {
    case AP_FIELD_INT8_ARRAY: x.i8 = (int8_t)(int64_t)v, n = 1; break;
    case AP_FIELD_INT16_ARRAY: x.i16 = (int16_t)(int64_t)v, n = 2; break;
    case AP_FIELD_INT32:
    case AP_FIELD_DTYPE:
    case AP_FIELD_INT32_ARRAY: x.i32 = (int32_t)(int64_t)v, n = 4; break;
    case AP_FIELD_UINT32: x.u32 = (uint32_t)v, n = 4; break;
    case AP_FIELD_INT64:
    case AP_FIELD_FLOAT64_ARRAY: x.u64 = v, n = 8; break;   /* a double's bits as they came */
    case AP_FIELD_SIZE: x.size = (size_t)v, n = sizeof(size_t); break;
    case AP_FIELD_FLOAT32: {
        double d;
        memcpy(&d, &v, sizeof(d));
        x.f32 = (float)d, n = 4;
        break;
    }
    default: return 0;
    }
    memcpy(p, &x, n);
    return n;
}

/* The params struct of row `def` from the record's fields; 0 when they do not fit it. */
static int read_params(reader *r, const ap_op_def *def)
{
    uint8_t *base = (uint8_t *)params_store;
    if (def->params_size > sizeof(params_store) || rd_u32(r) != def->field_count) {
        return 0;
    }
    memset(params_store, 0, sizeof(params_store));
    array_used = 0;
    for (uint32_t i = 0; i < def->field_count && !r->bad; i++) {
        const ap_param_field *f = &def->fields[i];
        if (f->count > 0) {
            size_t at = f->offset;
            for (uint32_t k = 0; k < f->count; k++) {
                size_t n = store_value(f->type, rd_u64(r), base + at);
                if (n == 0 || at + n > def->params_size) {
                    return 0;
                }
                at += n;
            }
            continue;
        }
        uint32_t n = rd_u32(r);
        const void *array = NULL;
        if (n != NO_ARRAY) {
            uint8_t *p = (uint8_t *)(array_pool + array_used);
            if (n > sizeof(array_pool) / 8 - array_used) {
                return 0;
            }
            size_t at = 0;
            for (uint32_t k = 0; k < n; k++) {
                at += store_value(f->type, rd_u64(r), p + at);
            }
            array_used += (at + 7) / 8;
            array = p;
        }
        if (f->offset + sizeof(array) > def->params_size) {
            return 0;
        }
        memcpy(base + f->offset, &array, sizeof(array));
    }
    return !r->bad;
}

/* A payload of `bytes` at an address that is a multiple of `align` but not of 2 * align (so a
   kernel that assumed more alignment than it asked for would show), GUARD poisoned bytes on
   each side. */
static uint8_t *carve(size_t bytes, size_t align)
{
    if (align < 16) {
        align = 16;
    }
    uintptr_t base = (uintptr_t)arena + arena_used + GUARD;
    uintptr_t at = (base + align - 1) & ~(uintptr_t)(align - 1);
    if ((at / align) % 2 == 0) {
        at += align;
    }
    size_t end = (size_t)(at - (uintptr_t)arena) + bytes + GUARD;
    if (end > sizeof(arena)) {
        return NULL;
    }
    memset(arena + arena_used, POISON, end - arena_used);
    arena_used = end;
    return (uint8_t *)at;
}

static int guards_intact(const uint8_t *p, size_t bytes)
{
    for (size_t i = 1; i <= GUARD; i++) {
        if (p[-(ptrdiff_t)i] != POISON || p[bytes + i - 1] != POISON) {
            return 0;
        }
    }
    return 1;
}

/* The stack a run touches (stack_paint.h): STACK_PAINT bytes painted below the frame. */
enum { STACK_PAINT = 8192, STACK_GAP = 64 };

typedef struct {
    const ap_op_def *def;
    uint32_t id, ninputs, nstates;
    blob inputs[MAX_INPUTS], states[AP_MAX_STATE], states_after[AP_MAX_STATE];
    blob filter, bias, prepared, expected;
    uint32_t nvariants;
    ap_variant host[AP_MAX_VARIANTS];
} layer;

static int parse(layer *L, const uint8_t *body, uint32_t bytes)
{
    reader r = {body, body + bytes, 0};
    memset(L, 0, sizeof(*L));
    const uint32_t op = rd_u32(&r), types = rd_u32(&r);
    L->id = rd_u32(&r);
    L->def = ap_op_find((ap_op)op, (ap_types)types);
    if (L->def == NULL || !read_params(&r, L->def)) {
        return 0;
    }
    L->ninputs = rd_u32(&r);
    if (L->ninputs > MAX_INPUTS) {
        return 0;
    }
    for (uint32_t i = 0; i < L->ninputs; i++) {
        L->inputs[i] = rd_blob(&r);
    }
    L->nstates = rd_u32(&r);
    if (L->nstates > AP_MAX_STATE) {
        return 0;
    }
    for (uint32_t i = 0; i < L->nstates; i++) {
        L->states[i] = rd_blob(&r);
    }
    for (uint32_t i = 0; i < L->nstates; i++) {
        L->states_after[i] = rd_blob(&r);
    }
    L->filter = rd_blob(&r);
    L->bias = rd_blob(&r);
    L->prepared = rd_blob(&r);
    L->expected = rd_blob(&r);
    L->nvariants = rd_u32(&r);
    if (L->nvariants > AP_MAX_VARIANTS) {
        return 0;
    }
    for (uint32_t i = 0; i < L->nvariants; i++) {
        ap_variant *v = &L->host[i];
        v->kind = (int32_t)rd_u32(&r);
        v->param = (int32_t)rd_u32(&r);
        v->scratch_count = rd_u32(&r);
        for (int k = 0; k < 4; k++) {
            v->scratch[k].bytes = rd_u32(&r);
        }
        for (int k = 0; k < 4; k++) {
            v->scratch[k].alignment = rd_u32(&r);
        }
        rd(&r, v->name, sizeof(v->name));
        v->name[sizeof(v->name) - 1] = 0;
    }
    return !r.bad && r.at == r.end;
}

static unsigned failures;

static void fail(const layer *L, const char *variant, const char *what, long a, long b)
{
    printf("fail %lu %s %s %ld %ld\n", (unsigned long)L->id, variant, what, a, b);
    failures++;
}

/* `misalign` bytes for a buffer of elements of `element` bytes when `bit` is among the
   misaligned buffers: rounded down to a whole element. */
static size_t offset_for(unsigned bit, uint32_t element)
{
    return misaligned & bit ? misalign / element * element : 0;
}

/* A copy of b between guards, offset_for(bit, ...) past its alignment; NULL when the arena is full. */
static uint8_t *place(const blob *b, unsigned bit)
{
    const size_t off = offset_for(bit, b->element);
    uint8_t *p = carve(b->bytes + off, 16);
    if (p != NULL) {
        p += off;
        memcpy(p, b->data, b->bytes);
    }
    return p;
}

/* How a run is made: with scratch buffer `short_index` one byte short (-1: none), with the
   output on input `alias` (-1: its own buffer). */
typedef struct {
    int short_index, alias;
} run_kind;

/* One run of v; returns the number of failed checks. With misaligned scratch, a run with
   exactly sized scratch may refuse it (AP_ERR_INVALID_ARGUMENT, nothing written): *refused. */
static unsigned run_once(const layer *L, const ap_variant *v, run_kind how, int *refused, size_t *stack)
{
    unsigned before = failures;
    const char *name = v->name;
    const int short_index = how.short_index;
    arena_used = 0;
    uint8_t *in[MAX_INPUTS], *state[AP_MAX_STATE];
    for (uint32_t i = 0; i < L->ninputs; i++) {
        if ((in[i] = place(&L->inputs[i], 1u)) == NULL) {
            fail(L, name, "arena_too_small_for_input", (long)i, (long)L->inputs[i].bytes);
            return 1;
        }
    }
    const size_t out_off = offset_for(2u, L->expected.element);
    uint8_t *out = how.alias >= 0 ? in[how.alias] : carve(L->expected.bytes + out_off, 16);
    uint8_t *prep = carve(L->prepared.bytes, 16);
    if (out == NULL || prep == NULL) {
        fail(L, name, "arena_too_small", (long)L->expected.bytes, (long)L->prepared.bytes);
        return 1;
    }
    if (how.alias < 0) {
        out += out_off;
        memset(out, OUT_POISON, L->expected.bytes);
    }
    for (uint32_t i = 0; i < L->nstates; i++) {
        if ((state[i] = place(&L->states[i], 8u)) == NULL) {
            fail(L, name, "arena_too_small_for_state", (long)i, (long)L->states[i].bytes);
            return 1;
        }
    }
    const size_t scratch_off = misaligned & 4u ? misalign : 0;
    ap_scratch scratch[AP_MAX_SCRATCH];
    uint8_t *bufs[AP_MAX_SCRATCH];
    size_t sizes[AP_MAX_SCRATCH];
    if (misalign) {
        printf("run %lu %s %d\n", (unsigned long)L->id, name, short_index);
    }
    for (uint32_t i = 0; i < v->scratch_count; i++) {
        sizes[i] = v->scratch[i].bytes - ((int)i == short_index ? 1u : 0u);
        bufs[i] = carve(sizes[i] + scratch_off, v->scratch[i].alignment);
        if (!bufs[i]) {
            fail(L, name, "arena_too_small_for_scratch", (long)i, (long)sizes[i]);
            return 1;
        }
        bufs[i] += scratch_off;
        scratch[i].data = bufs[i];
        scratch[i].bytes = sizes[i];
    }
    memcpy(prep, L->prepared.data, L->prepared.bytes);
    const void *inputs[MAX_INPUTS];
    void *states[AP_MAX_STATE];
    for (uint32_t i = 0; i < L->ninputs; i++) {
        inputs[i] = in[i];
    }
    for (uint32_t i = 0; i < L->nstates; i++) {
        states[i] = state[i];
    }
    ap_op_call call = {params_store, v, L->def->has_blob ? prep : NULL, inputs, L->ninputs, out,
                       states, L->nstates, v->scratch_count ? scratch : NULL, v->scratch_count};
    ap_error err;
    ap_error_clear(&err);
    uintptr_t sp = ap_sp(), top = ap_stack_paint(STACK_PAINT, STACK_GAP);
    ap_status st = L->def->run(&call, (ap_isa)v->isa, &err);
    *stack = ap_stack_used(sp, top, STACK_PAINT);
    *refused = short_index < 0 && scratch_off != 0 && st == AP_ERR_INVALID_ARGUMENT;
    const int wrote = short_index >= 0 || *refused;   /* a refusal must leave output and state as they were */
    if (*refused) {
        printf("refused %lu %s\n", (unsigned long)L->id, name);
    } else if (short_index < 0) {
        if (st != AP_OK) {
            fail(L, name, "status", (long)st, (long)err.index);
        } else {
            for (uint32_t b = 0; b < L->expected.bytes; b++) {
                if (out[b] != L->expected.data[b]) {
                    printf("fail %lu %s output_differs_at %lu %d %d\n", (unsigned long)L->id, name,
                           (unsigned long)b, (int)(int8_t)out[b], (int)(int8_t)L->expected.data[b]);
                    failures++;
                    break;
                }
            }
            for (uint32_t i = 0; i < L->nstates; i++) {
                if (memcmp(state[i], L->states_after[i].data, L->states[i].bytes) != 0) {
                    fail(L, name, "state_differs", (long)i, 0);
                }
            }
        }
    } else {
        size_t want = v->scratch[short_index].bytes;
        if (st != AP_ERR_SCRATCH_TOO_SMALL) {
            fail(L, name, "short_status", (long)st, (long)short_index);
        } else if (err.index != short_index || err.needed != want || err.available != want - 1) {
            fail(L, name, "short_error_record", (long)err.index, (long)err.needed);
        }
    }
    if (wrote) {
        for (uint32_t b = 0; b < L->expected.bytes; b++) {
            const uint8_t was = how.alias >= 0 ? L->inputs[how.alias].data[b] : OUT_POISON;
            if (out[b] != was) {
                fail(L, name, "refused_run_wrote_output_at", (long)b, (long)short_index);
                break;
            }
        }
        for (uint32_t i = 0; i < L->nstates; i++) {
            if (memcmp(state[i], L->states[i].data, L->states[i].bytes) != 0) {
                fail(L, name, "refused_run_wrote_state", (long)i, (long)short_index);
            }
        }
    }
    for (uint32_t i = 0; i < L->ninputs; i++) {
        if (!guards_intact(in[i], L->inputs[i].bytes) ||
            ((int)i != how.alias && memcmp(in[i], L->inputs[i].data, L->inputs[i].bytes) != 0)) {
            fail(L, name, "input_or_its_guards_written", (long)i, short_index);
        }
    }
    if (how.alias < 0 && !guards_intact(out, L->expected.bytes)) {
        fail(L, name, "output_guards_written", short_index, 0);
    }
    for (uint32_t i = 0; i < L->nstates; i++) {
        if (!guards_intact(state[i], L->states[i].bytes)) {
            fail(L, name, "state_guards_written", (long)i, short_index);
        }
    }
    if (!guards_intact(prep, L->prepared.bytes) || memcmp(prep, L->prepared.data, L->prepared.bytes) != 0) {
        fail(L, name, "prepared_or_its_guards_written", short_index, 0);
    }
    for (uint32_t i = 0; i < v->scratch_count; i++) {
        if (!guards_intact(bufs[i], sizes[i])) {
            fail(L, name, "scratch_guards_written", (long)i, short_index);
        }
    }
    return failures - before;
}

/* The variants listed here against the host's; the blob packed here against the host's (it
   does not depend on the CPU). */
static void compare_with_host(const layer *L, const ap_variant *vs, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        const ap_variant *h = &L->host[i], *t = &vs[i];
        int same = t->kind == h->kind && t->param == h->param && t->scratch_count == h->scratch_count &&
                   strncmp(t->name, h->name, sizeof(t->name)) == 0 && t->isa == AP_ISA_ARM_DSP;
        for (uint32_t k = 0; same && k < t->scratch_count; k++) {
            same = t->scratch[k].bytes == h->scratch[k].bytes && t->scratch[k].alignment == h->scratch[k].alignment;
        }
        if (!same) {
            fail(L, h->name, "variant_differs_from_host", (long)i, (long)t->kind);
        }
    }
    if (!L->def->has_blob) {
        return;
    }
    arena_used = 0;
    uint8_t *mine = carve(L->prepared.bytes, 16);
    ap_error err;
    ap_error_clear(&err);
    if (mine == NULL) {
        fail(L, "-", "arena_too_small", (long)L->prepared.bytes, 0);
        return;
    }
    ap_status st = L->def->prepare(params_store, AP_ISA_ARM_DSP, L->filter.data, L->bias.bytes ? L->bias.data : NULL,
                                   mine, L->prepared.bytes, &err);
    if (st != AP_OK || memcmp(mine, L->prepared.data, L->prepared.bytes) != 0) {
        fail(L, "-", "prepared_differs_from_host", (long)st, (long)L->prepared.bytes);
    }
}

static void run_case(const layer *L)
{
    unsigned passed = 0;
    ap_variant vs[AP_MAX_VARIANTS];
    size_t stacks[AP_MAX_VARIANTS] = {0};
    uint32_t count = 0;
    ap_error err;
    ap_error_clear(&err);
    ap_status st = L->def->variants(params_store, AP_ISA_ARM_DSP, vs, AP_MAX_VARIANTS, &count, &err);
    if (st != AP_OK || count != L->nvariants) {
        fail(L, "-", "variant_count", (long)count, (long)L->nvariants);
        printf("case %lu %lu 0\n", (unsigned long)L->id, (unsigned long)L->nvariants);
        return;
    }
    compare_with_host(L, vs, count);
    for (uint32_t i = 0; i < count; i++) {
        if (only != NULL && strcmp(vs[i].name, only) != 0) {
            passed++;
            continue;
        }
        int refused = 0, ignored = 0;
        size_t other_stack = 0;
        unsigned bad = run_once(L, &vs[i], (run_kind){-1, -1}, &refused, &stacks[i]);
        for (uint32_t k = 0; !refused && k < vs[i].scratch_count; k++) {
            bad += run_once(L, &vs[i], (run_kind){(int)k, -1}, &ignored, &other_stack);
        }
        for (uint32_t k = 0; !refused && vs[i].in_place && k < L->ninputs; k++) {
            if (L->inputs[k].bytes == L->expected.bytes && L->inputs[k].element == L->expected.element) {
                bad += run_once(L, &vs[i], (run_kind){-1, (int)k}, &ignored, &other_stack);
            }
        }
        passed += bad == 0;
    }
    printf("case %lu %lu %u\n", (unsigned long)L->id, (unsigned long)count, passed);
    printf("entry %lu %lx\n", (unsigned long)L->id, (unsigned long)(uintptr_t)L->def->run);
    printf("stack %lu", (unsigned long)L->id);
    for (uint32_t i = 0; i < count; i++) {
        printf(" %u", (unsigned)stacks[i]);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("error usage: driver <cases file>\n");
        return 64;
    }
    if (argc > 2) {
        misalign = (size_t)atoi(argv[2]);
    }
    if (argc > 3) {
        misaligned = (unsigned)atoi(argv[3]);
    }
    if (argc > 4) {
        only = argv[4];
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        printf("error cannot open %s\n", argv[1]);
        return 66;
    }
    unsigned cases = 0;
    for (;;) {
        uint32_t head[2];
        size_t got = fread(head, 1, sizeof(head), f);
        if (got == 0) {
            break;
        }
        if (got != sizeof(head) || head[0] != RECORD_MAGIC || head[1] > sizeof(record) ||
            fread(record, 1, head[1], f) != head[1]) {
            printf("error bad record after %u cases (%u bytes)\n", cases, got == sizeof(head) ? (unsigned)head[1] : 0u);
            fclose(f);
            return 65;
        }
        static layer L;
        if (!parse(&L, record, head[1])) {
            printf("error cannot parse case %u\n", cases);
            fclose(f);
            return 65;
        }
        run_case(&L);
        cases++;
    }
    fclose(f);
    printf("cases %u failures %u\n", cases, failures);
    printf("done\n");
    return 0;
}
