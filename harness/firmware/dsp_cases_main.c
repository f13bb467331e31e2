/*
 * Batch driver for the arm-dsp kernels on a Cortex-M under QEMU (harness/firmware/dsp_cases.py
 * writes the cases and reads this program's lines). argv[1] names a file of cases, read through
 * semihosting one record at a time; each record is one CONV_2D, DEPTHWISE_CONV_2D or
 * FULLY_CONNECTED layer: its params, filter, bias, input, the prepared blob the host packed for
 * arm-dsp, the expected output (the host's portable run) and the host's arm-dsp variant list.
 * For each case the driver
 *   - lists the variants for arm-dsp here and compares them with the host's (kind, param, name,
 *     scratch requests), and packs the blob here and compares it with the host's;
 *   - runs every variant with exactly its scratch, each buffer (input, output, blob, scratch)
 *     between poisoned guard bytes: AP_OK, the expected output, guards intact, input and blob
 *     unchanged;
 *   - for each scratch buffer, runs it again with that buffer one byte short:
 *     AP_ERR_SCRATCH_TOO_SMALL naming the buffer, needed and available bytes, the output
 *     untouched, guards intact.
 * It prints one line per case, "case <id> <variants> <passed>", a line
 * "fail <id> <variant> <what>" for each failed check, and "done" at the end.
 * Optional arguments: argv[2] bytes to add to the addresses of the buffers argv[3] names
 * (bits: 1 input, 2 output, 4 scratch; default 7): every variant must give the same bytes
 * with its input and output at any address, and with its scratch at any address must give
 * them or refuse it with AP_ERR_INVALID_ARGUMENT ("refused <id> <variant>"), never fault;
 * each run is announced ("run <id> <variant> <short index>") so that a fault names it.
 * After each case, "stack <id> <bytes>..." gives the stack each variant's run touched (with
 * exactly its scratch), measured from the caller's stack pointer by painting.
 * argv[4]: run only the variants of that name.
 *
 * Record layout (little endian, every field 4-byte aligned; dsp_cases.py writes it):
 *   u32 'APQC', u32 body bytes; body: u32 op, u32 id, i32 nparams, i32 params[nparams],
 *   i32 per_channel, output_offset, activation_min, activation_max, u32 nmult,
 *   i32 multiplier[nmult], i32 shift[nmult], u32 nreal, f64 real_scale[nreal],
 *   then blobs (u32 bytes, data padded to 4): filter, bias (empty: none), input, prepared,
 *   expected output; u32 nvariants, then per variant i32 kind, param, u32 scratch_count,
 *   u32 bytes[4], u32 alignment[4], char name[32].
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaplan/conv2d.h"
#include "arenaplan/depthwise_conv2d.h"
#include "arenaplan/fully_connected.h"
#include "arenaplan/status.h"
#include "stack_paint.h"

enum { OP_CONV2D = 0, OP_DEPTHWISE = 1, OP_FULLY_CONNECTED = 2 };
enum { GUARD = 64, POISON = 0xA5, OUT_POISON = 0x5A, MAX_CHANNELS = 4096 };
#define RECORD_MAGIC 0x43515041u /* "APQC" */

/* 3.5 MiB of the boards' 4 MiB RAM (build.BOARDS; dsp_cases.py checks each case fits) */
static uint8_t record[3u << 19] __attribute__((aligned(16)));
static uint8_t arena[4u << 19] __attribute__((aligned(64)));
static size_t arena_used;
/* argv[2]: bytes added to the addresses of the buffers argv[3] names (bits: 1 input, 2 output, 4 scratch;
   default all), each otherwise at its alignment */
static size_t misalign;
static unsigned misaligned = 7u;
/* argv[4]: run only the variants of this name (default: every one) */
static const char *only;
static int32_t multipliers[MAX_CHANNELS], shifts[MAX_CHANNELS];
static double real_scales[MAX_CHANNELS];

typedef struct {
    const uint8_t *data;
    uint32_t bytes;
} blob;

typedef struct {
    const uint8_t *at, *end;
    int bad;
} reader;

static uint32_t rd_u32(reader *r)
{
    uint32_t v = 0;
    if (r->end - r->at < 4) {
        r->bad = 1;
        return 0;
    }
    memcpy(&v, r->at, 4);
    r->at += 4;
    return v;
}

static blob rd_blob(reader *r)
{
    blob b = {NULL, rd_u32(r)};
    uint32_t padded = (b.bytes + 3u) & ~3u;
    if ((uint32_t)(r->end - r->at) < padded) {
        r->bad = 1;
        b.bytes = 0;
        return b;
    }
    b.data = r->at;
    r->at += padded;
    return b;
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
    uint32_t op, id;
    ap_conv2d_params conv;
    ap_depthwise_conv2d_params dw;
    ap_fully_connected_params fc;
    blob filter, bias, input, prepared, expected;
    uint32_t nvariants;
    ap_variant host[AP_MAX_VARIANTS];
} layer;

static ap_status op_variants(const layer *L, ap_variant *out, uint32_t *count, ap_error *err)
{
    switch (L->op) {
    case OP_CONV2D: return ap_conv2d_s8_variants(&L->conv, AP_ISA_ARM_DSP, out, AP_MAX_VARIANTS, count, err);
    case OP_DEPTHWISE: return ap_depthwise_conv2d_s8_variants(&L->dw, AP_ISA_ARM_DSP, out, AP_MAX_VARIANTS, count, err);
    default: return ap_fully_connected_s8_variants(&L->fc, AP_ISA_ARM_DSP, out, AP_MAX_VARIANTS, count, err);
    }
}

static ap_status op_prepare(const layer *L, void *out, size_t bytes, ap_error *err)
{
    const int8_t *w = (const int8_t *)L->filter.data;
    const int32_t *b = L->bias.bytes ? (const int32_t *)L->bias.data : NULL;
    switch (L->op) {
    case OP_CONV2D: return ap_conv2d_s8_prepare(&L->conv, AP_ISA_ARM_DSP, w, b, out, bytes, err);
    case OP_DEPTHWISE: return ap_depthwise_conv2d_s8_prepare(&L->dw, AP_ISA_ARM_DSP, w, b, out, bytes, err);
    default: return ap_fully_connected_s8_prepare(&L->fc, AP_ISA_ARM_DSP, w, b, out, bytes, err);
    }
}

static inline __attribute__((always_inline)) ap_status op_run(const layer *L, const ap_variant *v, const void *prepared, const int8_t *in,
                        int8_t *out, const ap_scratch *scratch, ap_error *err)
{
    switch (L->op) {
    case OP_CONV2D: return ap_conv2d_s8_run(&L->conv, v, prepared, in, out, scratch, v->scratch_count, err);
    case OP_DEPTHWISE: return ap_depthwise_conv2d_s8_run(&L->dw, v, prepared, in, out, scratch, v->scratch_count, err);
    default: return ap_fully_connected_s8_run(&L->fc, v, prepared, in, out, scratch, v->scratch_count, err);
    }
}

static int parse(layer *L, const uint8_t *body, uint32_t bytes)
{
    reader r = {body, body + bytes, 0};
    int32_t p[24];
    memset(L, 0, sizeof(*L));
    L->op = rd_u32(&r);
    L->id = rd_u32(&r);
    uint32_t np = rd_u32(&r);
    if (np > 24) {
        return 0;
    }
    for (uint32_t i = 0; i < np; i++) {
        p[i] = (int32_t)rd_u32(&r);
    }
    ap_requant q;
    q.per_channel = (int32_t)rd_u32(&r);
    q.output_offset = (int32_t)rd_u32(&r);
    q.activation_min = (int32_t)rd_u32(&r);
    q.activation_max = (int32_t)rd_u32(&r);
    uint32_t nmult = rd_u32(&r);
    if (nmult > MAX_CHANNELS) {
        return 0;
    }
    for (uint32_t i = 0; i < nmult; i++) {
        multipliers[i] = (int32_t)rd_u32(&r);
    }
    for (uint32_t i = 0; i < nmult; i++) {
        shifts[i] = (int32_t)rd_u32(&r);
    }
    q.multiplier = nmult ? multipliers : NULL;
    q.shift = nmult ? shifts : NULL;
    uint32_t nreal = rd_u32(&r);
    if (nreal > MAX_CHANNELS || (uint32_t)(r.end - r.at) < 8u * nreal) {
        return 0;
    }
    memcpy(real_scales, r.at, 8u * nreal);
    r.at += 8u * nreal;
    L->filter = rd_blob(&r);
    L->bias = rd_blob(&r);
    L->input = rd_blob(&r);
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
        if ((uint32_t)(r.end - r.at) < sizeof(v->name)) {
            return 0;
        }
        memcpy(v->name, r.at, sizeof(v->name));
        v->name[sizeof(v->name) - 1] = 0;
        r.at += sizeof(v->name);
    }
    if (r.bad) {
        return 0;
    }
    if (L->op == OP_CONV2D && np == 16) {
        ap_conv2d_params *c = &L->conv;
        c->batches = p[0], c->input_h = p[1], c->input_w = p[2], c->input_c = p[3];
        c->output_h = p[4], c->output_w = p[5], c->output_c = p[6], c->filter_h = p[7], c->filter_w = p[8];
        c->stride_h = p[9], c->stride_w = p[10], c->dilation_h = p[11], c->dilation_w = p[12];
        c->pad_h = p[13], c->pad_w = p[14], c->input_offset = p[15];
        c->requant = q;
        return 1;
    }
    if (L->op == OP_DEPTHWISE && np == 17) {
        ap_depthwise_conv2d_params *d = &L->dw;
        d->batches = p[0], d->input_h = p[1], d->input_w = p[2], d->input_c = p[3];
        d->output_h = p[4], d->output_w = p[5], d->output_c = p[6], d->filter_h = p[7], d->filter_w = p[8];
        d->stride_h = p[9], d->stride_w = p[10], d->dilation_h = p[11], d->dilation_w = p[12];
        d->pad_h = p[13], d->pad_w = p[14], d->depth_multiplier = p[15], d->input_offset = p[16];
        d->requant = q;
        return 1;
    }
    if (L->op == OP_FULLY_CONNECTED && np == 6) {
        ap_fully_connected_params *f = &L->fc;
        f->batches = p[0], f->input_depth = p[1], f->output_depth = p[2];
        f->input_offset = p[3], f->filter_offset = p[4], f->reference = p[5];
        f->requant = q;
        f->real_scale = nreal ? real_scales : NULL;
        return 1;
    }
    return 0;
}

static unsigned failures;

static void fail(const layer *L, const char *variant, const char *what, long a, long b)
{
    printf("fail %lu %s %s %ld %ld\n", (unsigned long)L->id, variant, what, a, b);
    failures++;
}

/* One run of v with its scratch exactly sized, or buffer `short_index` one byte short
   (-1: none); returns the number of failed checks. With misaligned scratch, a run with
   exactly sized scratch may refuse it (AP_ERR_INVALID_ARGUMENT, nothing written): *refused. */
static unsigned run_once(const layer *L, const ap_variant *v, int short_index, int *refused, size_t *stack)
{
    unsigned before = failures;
    const char *name = v->name;
    arena_used = 0;
    const size_t in_off = misaligned & 1u ? misalign : 0, out_off = misaligned & 2u ? misalign : 0;
    const size_t scratch_off = misaligned & 4u ? misalign : 0;
    uint8_t *in = carve(L->input.bytes + in_off, 16);
    uint8_t *out = carve(L->expected.bytes + out_off, 16);
    uint8_t *prep = carve(L->prepared.bytes, 16);
    ap_scratch scratch[AP_MAX_SCRATCH];
    uint8_t *bufs[AP_MAX_SCRATCH];
    size_t sizes[AP_MAX_SCRATCH];
    if (!in || !out || !prep) {
        fail(L, name, "arena_too_small", (long)L->input.bytes, (long)L->prepared.bytes);
        return 1;
    }
    in += in_off;
    out += out_off;
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
    memcpy(in, L->input.data, L->input.bytes);
    memcpy(prep, L->prepared.data, L->prepared.bytes);
    memset(out, OUT_POISON, L->expected.bytes);
    ap_error err;
    ap_error_clear(&err);
    uintptr_t sp = ap_sp(), top = ap_stack_paint(STACK_PAINT, STACK_GAP);
    ap_status st = op_run(L, v, prep, (const int8_t *)in, (int8_t *)out, scratch, &err);
    *stack = ap_stack_used(sp, top, STACK_PAINT);
    *refused = short_index < 0 && scratch_off != 0 && st == AP_ERR_INVALID_ARGUMENT;
    if (*refused) {
        printf("refused %lu %s\n", (unsigned long)L->id, name);
        for (uint32_t b = 0; b < L->expected.bytes; b++) {
            if (out[b] != OUT_POISON) {
                fail(L, name, "refusal_wrote_output_at", (long)b, 0);
                break;
            }
        }
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
        }
    } else {
        size_t want = v->scratch[short_index].bytes;
        if (st != AP_ERR_SCRATCH_TOO_SMALL) {
            fail(L, name, "short_status", (long)st, (long)short_index);
        } else if (err.index != short_index || err.needed != want || err.available != want - 1) {
            fail(L, name, "short_error_record", (long)err.index, (long)err.needed);
        }
        for (uint32_t b = 0; b < L->expected.bytes; b++) {
            if (out[b] != OUT_POISON) {
                fail(L, name, "short_wrote_output_at", (long)b, (long)short_index);
                break;
            }
        }
    }
    if (!guards_intact(in, L->input.bytes) || memcmp(in, L->input.data, L->input.bytes) != 0) {
        fail(L, name, "input_or_its_guards_written", short_index, 0);
    }
    if (!guards_intact(out, L->expected.bytes)) {
        fail(L, name, "output_guards_written", short_index, 0);
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

static void run_case(const layer *L)
{
    unsigned before = failures, passed = 0;
    ap_variant vs[AP_MAX_VARIANTS];
    size_t stacks[AP_MAX_VARIANTS] = {0};
    uint32_t count = 0;
    ap_error err;
    ap_error_clear(&err);
    ap_status st = op_variants(L, vs, &count, &err);
    if (st != AP_OK || count != L->nvariants) {
        fail(L, "-", "variant_count", (long)count, (long)L->nvariants);
        printf("case %lu %lu 0\n", (unsigned long)L->id, (unsigned long)L->nvariants);
        return;
    }
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
    /* the blob packed here equals the host's (it does not depend on the CPU) */
    arena_used = 0;
    uint8_t *mine = carve(L->prepared.bytes, 16);
    if (mine == NULL) {
        fail(L, "-", "arena_too_small", (long)L->prepared.bytes, 0);
    } else {
        st = op_prepare(L, mine, L->prepared.bytes, &err);
        if (st != AP_OK || memcmp(mine, L->prepared.data, L->prepared.bytes) != 0) {
            fail(L, "-", "prepared_differs_from_host", (long)st, (long)L->prepared.bytes);
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        if (only != NULL && strcmp(vs[i].name, only) != 0) {
            passed++;
            continue;
        }
        int refused = 0, ignored = 0;
        size_t short_stack = 0;
        unsigned bad = run_once(L, &vs[i], -1, &refused, &stacks[i]);
        for (uint32_t k = 0; !refused && k < vs[i].scratch_count; k++) {
            bad += run_once(L, &vs[i], (int)k, &ignored, &short_stack);
        }
        passed += bad == 0;
    }
    (void)before;
    printf("case %lu %lu %u\n", (unsigned long)L->id, (unsigned long)count, passed);
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
