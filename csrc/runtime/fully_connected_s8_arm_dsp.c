/*
 * FULLY_CONNECTED int8, arm-dsp: one batch row against the packed filter with SMLAD.
 *
 * The blob is the portable one ([block of 8 rows][group of 4 depths][8 rows][4 bytes]), so
 * a group of four consecutive weights of one row is one word, and the four rows of half a
 * block lie in one 16-byte run. Four depths of the input become two words of int16 lanes,
 * SXTB16 (bytes 0 and 2) and SXTB16 ROR 8 (bytes 1 and 3); each weight word is split the
 * same way, so two SMLADs take its four products. Four rows share each input word: per 16
 * multiply-adds, 4 + 1 loads, 10 extensions and 8 SMLADs. The "smlad_x16" variant does the
 * input's extension once per row into scratch (two words per group), which saves the input
 * load and two extensions per group of four rows.
 *
 * The sums wrap in 32 bits exactly as the portable kernel's do; the input offset is folded
 * into the blob's bias and the filter offset into row_term, so the output is the portable
 * kernel's bit for bit, under either rounding reference (requantisation as there: a Q31
 * multiply in integers for "tflm", LiteRT's double scales for "litert"). Under "tflm" a row
 * whose sums are bounded below 2^30 takes requant_arm_dsp.h's SMMULR form instead, the same
 * bits in fewer instructions, and one with larger biases the wide form (fc_dsp_requant_mode).
 */
#include <stdint.h>

#include "arm_dsp.h"
#include "fixedpoint.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"
#include "requant_arm_dsp.h"

#define FC_ROWS 8  /* rows per packed block (fully_connected_s8.c) */
#define FC_DEPTH 4 /* depths per packed group */
#define FC_TILE 4  /* rows this kernel accumulates at once */

/* Requantise one accumulator of output row o (the general form). */
static int8_t fc_dsp_requant(const ap_fc_row *r, int32_t o, int32_t acc)
{
    const ap_requant *rq = r->requant;
    const int32_t i = rq->per_channel ? o : 0;
    acc = ap_ops_wrap_add(ap_ops_wrap_add(acc, r->row_term), r->bias[o]);
    if (r->real_scale != NULL) {
        return ap_ops_requant_double(acc, r->real_scale[i], rq->output_offset, rq->activation_min,
                                     rq->activation_max);
    }
    int32_t v = ap_fp_multiply_by_nonneg_multiplier(acc, rq->multiplier[i], rq->shift[i]) + rq->output_offset;
    return (int8_t)ap_ops_clamp(v, rq->activation_min, rq->activation_max);
}

/* How the row's outputs are requantised (AP_DSP_REQUANT_*): in fixed point with no filter
   offset (TFLite's int8 weights are symmetric), the fast form where every sum -- the folded
   bias plus input_depth products of an int8 input and an int8 weight, each at most 128 * 128
   in magnitude -- is below 2^30, else the wide one where its shifts allow
   (ap_dsp_requant_mode); the general form otherwise. */
static int fc_dsp_requant_mode(const ap_fc_row *r)
{
    const ap_requant *rq = r->requant;
    if (r->real_scale != NULL || r->row_term != 0) {
        return AP_DSP_REQUANT_GENERAL;
    }
    return ap_dsp_requant_mode(r->bias, rq->multiplier, rq->shift, rq->per_channel ? 1 : 0,
                               (size_t)r->output_depth, (uint64_t)r->input_depth, 128u * 128u,
                               rq->activation_min, rq->activation_max);
}

/* The tile's outputs o .. o + n - 1 from its sums. Not inlined: it runs once a tile of a
   per-channel layer, and inlined into the row loop its three forms crowd the accumulators'
   registers. */
static __attribute__((noinline)) void fc_dsp_store(const ap_fc_row *r, int mode, int32_t o, int32_t n,
                                                   const int32_t *acc)
{
    if (mode != AP_DSP_REQUANT_GENERAL) {
        const ap_requant *rq = r->requant;
        const int32_t step = rq->per_channel ? 1 : 0, offset = rq->output_offset;
        const int32_t *m = rq->multiplier + o * step, *sh = rq->shift + o * step, *bias = r->bias + o;
        int8_t *out = r->out + o;
        if (mode == AP_DSP_REQUANT_FAST) {
            for (int32_t j = 0; j < n; ++j) {
                out[j] = (int8_t)ap_dsp_requant_fast(acc[j] + bias[j], m[j * step], sh[j * step], offset);
            }
        } else {
            for (int32_t j = 0; j < n; ++j) {
                out[j] = (int8_t)ap_dsp_requant_wide(acc[j] + bias[j], m[j * step], sh[j * step], offset);
            }
        }
        return;
    }
    for (int32_t j = 0; j < n; ++j) {
        r->out[o + j] = fc_dsp_requant(r, o + j, acc[j]);
    }
}

/* One group of 4 depths x the 4 rows (weight words at w, w + 4, w + 8, w + 12; the next group
   32 bytes on), against the input's int16 lanes xe, xo: on a DSP core one asm block of 18
   instructions (two LDRDs, the pointer stepped by the first), so that the compiler cannot
   spread the group's loads and spill the accumulators. */
#if AP_ARM_DSP_NATIVE
#define FC_DSP_GROUP(lanes_e, lanes_o)                                                     \
    __asm__("ldrd %[v], %[u], [%[w]], #32\n\t"                                              \
            "sxtb16 %[t], %[v]\n\t"                                                         \
            "sxtb16 %[v], %[v], ror #8\n\t"                                                 \
            "smlad %[a0], %[t], %[xe], %[a0]\n\t"                                           \
            "smlad %[a0], %[v], %[xo], %[a0]\n\t"                                           \
            "sxtb16 %[t], %[u]\n\t"                                                         \
            "sxtb16 %[u], %[u], ror #8\n\t"                                                 \
            "smlad %[a1], %[t], %[xe], %[a1]\n\t"                                           \
            "smlad %[a1], %[u], %[xo], %[a1]\n\t"                                           \
            "ldrd %[v], %[u], [%[w], #-24]\n\t"                                             \
            "sxtb16 %[t], %[v]\n\t"                                                         \
            "sxtb16 %[v], %[v], ror #8\n\t"                                                 \
            "smlad %[a2], %[t], %[xe], %[a2]\n\t"                                           \
            "smlad %[a2], %[v], %[xo], %[a2]\n\t"                                           \
            "sxtb16 %[t], %[u]\n\t"                                                         \
            "sxtb16 %[u], %[u], ror #8\n\t"                                                 \
            "smlad %[a3], %[t], %[xe], %[a3]\n\t"                                           \
            "smlad %[a3], %[u], %[xo], %[a3]\n\t"                                           \
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [w] "+r"(w),       \
              [v] "=&r"(v), [u] "=&r"(u), [t] "=&r"(t)                                     \
            : [xe] "r"(lanes_e), [xo] "r"(lanes_o)                                         \
            : "memory")
#else
#define FC_DSP_GROUP(lanes_e, lanes_o)                                                     \
    do {                                                                                   \
        v = ap_dsp_load32(w);                                                              \
        a0 = ap_dsp_smlad(ap_dsp_sxtb16_ror8(v), (lanes_o), ap_dsp_smlad(ap_dsp_sxtb16(v), (lanes_e), a0)); \
        v = ap_dsp_load32(w + 4);                                                          \
        a1 = ap_dsp_smlad(ap_dsp_sxtb16_ror8(v), (lanes_o), ap_dsp_smlad(ap_dsp_sxtb16(v), (lanes_e), a1)); \
        v = ap_dsp_load32(w + 8);                                                          \
        a2 = ap_dsp_smlad(ap_dsp_sxtb16_ror8(v), (lanes_o), ap_dsp_smlad(ap_dsp_sxtb16(v), (lanes_e), a2)); \
        v = ap_dsp_load32(w + 12);                                                         \
        a3 = ap_dsp_smlad(ap_dsp_sxtb16_ror8(v), (lanes_o), ap_dsp_smlad(ap_dsp_sxtb16(v), (lanes_e), a3)); \
        w += FC_ROWS * FC_DEPTH;                                                           \
        (void)u;                                                                           \
        (void)t;                                                                           \
    } while (0)
#endif

/* widened: NULL, or 2 * (input_depth / 4) words: the input's groups as (SXTB16, SXTB16 ROR 8). */
void ap_fc_row_arm_dsp(const ap_fc_row *r, uint32_t *widened)
{
    const size_t dp = (size_t)r->depth_padded;
    const int32_t groups = r->input_depth / FC_DEPTH;
    const int32_t tail = groups * FC_DEPTH;
    const int mode = fc_dsp_requant_mode(r);
    /* a per-tensor layer on the fast path: its constants once, four outputs unrolled */
    const int per_tensor = mode == AP_DSP_REQUANT_FAST && !r->requant->per_channel;
    const int32_t m0 = per_tensor ? r->requant->multiplier[0] : 0;
    const int32_t e0 = per_tensor ? -r->requant->shift[0] : 0;
    const int32_t offset = r->requant->output_offset;
    if (widened != NULL) {
        for (int32_t g = 0; g < groups; ++g) {
            ap_dsp_widen4(r->input + FC_DEPTH * g, widened + 2 * g);
        }
    }
    for (int32_t o = 0; o < r->output_depth; o += FC_TILE) {
        /* rows o .. o + 3 exist in the blob (rows are padded to 8 with zero weights) */
        const int8_t *w = r->packed + (size_t)(o / FC_ROWS) * FC_ROWS * dp + (size_t)(o % FC_ROWS) * FC_DEPTH;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        uint32_t v, u, t;
        if (widened != NULL) {
            const uint32_t *x = widened;
            for (int32_t g = 0; g < groups; ++g, x += 2) {
                FC_DSP_GROUP(x[0], x[1]);
            }
        } else {
            const int8_t *in = r->input;
            for (int32_t g = 0; g < groups; ++g, in += FC_DEPTH) {
                const uint32_t xw = ap_dsp_load32(in);
                FC_DSP_GROUP(ap_dsp_sxtb16(xw), ap_dsp_sxtb16_ror8(xw));
            }
        }
        /* the last input_depth % 4 depths: the input is not read past its end */
        for (int32_t d = tail; d < r->input_depth; ++d) {
            const int32_t x = r->input[d];
            const int8_t *wd = w + (d - tail);
            a0 = ap_ops_wrap_add(a0, x * wd[0]);
            a1 = ap_ops_wrap_add(a1, x * wd[4]);
            a2 = ap_ops_wrap_add(a2, x * wd[8]);
            a3 = ap_ops_wrap_add(a3, x * wd[12]);
        }
        if (per_tensor && o + FC_TILE <= r->output_depth) {
            const int32_t *bias = r->bias + o;
            int8_t *y = r->out + o;
            y[0] = (int8_t)ap_dsp_requant_fast_e(a0 + bias[0], m0, e0, offset);
            y[1] = (int8_t)ap_dsp_requant_fast_e(a1 + bias[1], m0, e0, offset);
            y[2] = (int8_t)ap_dsp_requant_fast_e(a2 + bias[2], m0, e0, offset);
            y[3] = (int8_t)ap_dsp_requant_fast_e(a3 + bias[3], m0, e0, offset);
            continue;
        }
        const int32_t acc[FC_TILE] = {a0, a1, a2, a3};
        fc_dsp_store(r, mode, o, r->output_depth - o < FC_TILE ? r->output_depth - o : FC_TILE, acc);
    }
}
