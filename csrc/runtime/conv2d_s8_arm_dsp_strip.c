/*
 * CONV_2D int8, arm-dsp: strip16, for layers of few input channels (first layers).
 */
#include "conv2d_s8_arm_dsp.h"

/* ------------------------------------------------------------------------------------------ */
/* strip16: a row of output pixels from its input rows widened to int16 once, in scratch      */
/* (layout: ap_conv2d_strip_layout_of, conv2d_s8_internal.h).                                 */

/*
 * Per pixel and block of four channels the window's k2 words meet the block's k2 groups of
 * four weight words: two slots take one LDRD of the window, two LDMs of the weights and eight
 * SMLADs (11 instructions for 16 multiply-adds of a 3-channel layer's pairs), with no gather:
 * a row of pixels shares the strip, which costs a few instructions a value to build. The
 * slots run as straight code entered at the window's length (a switch, once a block), so no
 * loop counter is spent on them.
 *
 * A block's table (scratch, built once a run) is its four folded biases, its 4 * k2 weight
 * words, then each channel's multiplier and exponent: one pointer walks it. In the fast
 * requantisation (ap_dsp_fast_layer) the weights and biases are doubled (int16 holds 2 * int8)
 * so the accumulators hold 2x, the SRDHM's operand (|x| < 2^30), and the output is
 * SSAT(QADD((2h + sign(h)) >> e, 1 + 2 * offset) >> 1): 6 instructions, the rounding divide's
 * (y >> 1) + (y & 1) taken as (y + 1) >> 1 with the offset folded in (QADD: near INT32_MAX the
 * saturated sum still clamps to 127). The exponent is e = -shift. Other layers keep the
 * weights and biases as they are, the shift as TFLite stores it, and requantise as the rows
 * kernel does.
 */
#if AP_ARM_DSP_NATIVE
#define CONV_DSP_STRIP_2()                                                                 \
    __asm__("ldrd %[x0], %[x1], [%[x]], #8\n\t"                                            \
            "ldm %[w]!, {%[w0], %[w1], %[w2], %[w3]}\n\t"                                  \
            "smlad %[a0], %[x0], %[w0], %[a0]\n\t"                                         \
            "smlad %[a1], %[x0], %[w1], %[a1]\n\t"                                         \
            "smlad %[a2], %[x0], %[w2], %[a2]\n\t"                                         \
            "smlad %[a3], %[x0], %[w3], %[a3]\n\t"                                         \
            "ldm %[w]!, {%[w0], %[w1], %[w2], %[w3]}\n\t"                                  \
            "smlad %[a0], %[x1], %[w0], %[a0]\n\t"                                         \
            "smlad %[a1], %[x1], %[w1], %[a1]\n\t"                                         \
            "smlad %[a2], %[x1], %[w2], %[a2]\n\t"                                         \
            "smlad %[a3], %[x1], %[w3], %[a3]\n\t"                                         \
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),     \
              [w] "+r"(w), [x0] "=&r"(x0), [x1] "=&r"(x1), [w0] "=&r"(w0), [w1] "=&r"(w1), \
              [w2] "=&r"(w2), [w3] "=&r"(w3)                                               \
            :                                                                              \
            : "memory")
#define CONV_DSP_STRIP_1()                                                                 \
    __asm__("ldr %[x0], [%[x]], #4\n\t"                                                    \
            "ldm %[w]!, {%[w0], %[w1], %[w2], %[w3]}\n\t"                                  \
            "smlad %[a0], %[x0], %[w0], %[a0]\n\t"                                         \
            "smlad %[a1], %[x0], %[w1], %[a1]\n\t"                                         \
            "smlad %[a2], %[x0], %[w2], %[a2]\n\t"                                         \
            "smlad %[a3], %[x0], %[w3], %[a3]\n\t"                                         \
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),     \
              [w] "+r"(w), [x0] "=&r"(x0), [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), \
              [w3] "=&r"(w3)                                                               \
            :                                                                              \
            : "memory")
#else
#define CONV_DSP_STRIP_1()                                                                 \
    do {                                                                                   \
        x0 = x[0];                                                                         \
        a0 = ap_dsp_smlad(x0, w[0], a0);                                                   \
        a1 = ap_dsp_smlad(x0, w[1], a1);                                                   \
        a2 = ap_dsp_smlad(x0, w[2], a2);                                                   \
        a3 = ap_dsp_smlad(x0, w[3], a3);                                                   \
        x += 1;                                                                            \
        w += 4;                                                                            \
    } while (0)
#define CONV_DSP_STRIP_2()                                                                 \
    do {                                                                                   \
        CONV_DSP_STRIP_1();                                                                \
        CONV_DSP_STRIP_1();                                                                \
    } while (0)
#endif

/* The fast form of a doubled sum a2 = 2x (see above): h = SMMULR(a2, m), then
   SSAT(QADD((2h + sign) >> e, c1) >> 1) with c1 = 1 + 2 * offset. */
static inline int32_t conv_dsp_strip_fast(int32_t a2, int32_t m, int32_t e, int32_t c1)
{
#if AP_ARM_DSP_NATIVE
    int32_t h, t;
    __asm__("smmulr %[h], %[a], %[m]\n\t"
            "lsl %[t], %[h], #1\n\t"
            "add %[t], %[t], %[h], asr #31\n\t"
            "asr %[t], %[t], %[e]\n\t"
            "qadd %[t], %[t], %[c]\n\t"
            "ssat %[t], #8, %[t], asr #1\n\t"
            : [h] "=&r"(h), [t] "=&r"(t)
            : [a] "r"(a2), [m] "r"(m), [e] "r"(e), [c] "r"(c1));
    return t;
#else
    const int32_t h = ap_dsp_smmulr(a2, m);
    const int64_t y = (int64_t)(((int32_t)((uint32_t)h << 1) + (h >> 31)) >> e) + c1;
    const int32_t v = (int32_t)(y > INT32_MAX ? INT32_MAX : y < INT32_MIN ? INT32_MIN : y);
    return ap_dsp_ssat(v >> 1, 8);
#endif
}

/* A full block's four outputs in the fast form: the multipliers and exponents from *wp
   (stepped past them), stored at out[0..3]. 30 instructions on a DSP core. */
static inline __attribute__((always_inline)) void conv_dsp_strip_store4(int32_t a0, int32_t a1, int32_t a2,
                                                                        int32_t a3, const uint32_t **wp,
                                                                        int8_t *out, int32_t c1)
{
    const uint32_t *w = *wp;
#if AP_ARM_DSP_NATIVE
    register uint32_t m0 __asm__("r8");
    register uint32_t e0 __asm__("r9");
    register uint32_t m1 __asm__("r10");
    register uint32_t e1 __asm__("r11");
    int32_t t;
#define CONV_DSP_STRIP_OUT(a, m, e, at)                                                    \
    "smmulr " a ", " a ", " m "\n\t"                                                       \
    "lsl %[t], " a ", #1\n\t"                                                              \
    "add %[t], %[t], " a ", asr #31\n\t"                                                   \
    "asr %[t], %[t], " e "\n\t"                                                            \
    "qadd %[t], %[t], %[c]\n\t"                                                            \
    "ssat %[t], #8, %[t], asr #1\n\t"                                                      \
    "strb %[t], [%[o], #" at "]\n\t"
    __asm__("ldm %[w]!, {%[m0], %[e0], %[m1], %[e1]}\n\t"
            CONV_DSP_STRIP_OUT("%[a0]", "%[m0]", "%[e0]", "0")
            CONV_DSP_STRIP_OUT("%[a1]", "%[m1]", "%[e1]", "1")
            "ldm %[w]!, {%[m0], %[e0], %[m1], %[e1]}\n\t"
            CONV_DSP_STRIP_OUT("%[a2]", "%[m0]", "%[e0]", "2")
            CONV_DSP_STRIP_OUT("%[a3]", "%[m1]", "%[e1]", "3")
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [w] "+r"(w), [t] "=&r"(t),
              [m0] "=&r"(m0), [e0] "=&r"(e0), [m1] "=&r"(m1), [e1] "=&r"(e1)
            : [o] "r"(out), [c] "r"(c1)
            : "memory");
#undef CONV_DSP_STRIP_OUT
#else
    out[0] = (int8_t)conv_dsp_strip_fast(a0, (int32_t)w[0], (int32_t)w[1], c1);
    out[1] = (int8_t)conv_dsp_strip_fast(a1, (int32_t)w[2], (int32_t)w[3], c1);
    out[2] = (int8_t)conv_dsp_strip_fast(a2, (int32_t)w[4], (int32_t)w[5], c1);
    out[3] = (int8_t)conv_dsp_strip_fast(a3, (int32_t)w[6], (int32_t)w[7], c1);
    w += 8;
#endif
    *wp = w;
}

/* The block tables (scratch wt): per block of four channels 12 + 4 * k2 words: the folded
   biases (doubled in the fast form); for t = slot * filter_h + r the four channels' taps
   2 * slot and 2 * slot + 1 of filter row r (0 past the run; doubled in the fast form), word
   4 + 4 * t + j for channel j; then each channel's multiplier and exponent (-shift in the fast
   form, else the shift). Read from the packed blob (oc_pad channels, the padding ones 0). */
static void conv_dsp_strip_tables(const ap_conv2d_ctx *c, const ap_conv2d_strip_layout *l, int fast, uint32_t *wt)
{
    const size_t fh = (size_t)c->p->filter_h, block_words = 12 + 4 * l->k2;
    const int32_t scale = fast ? 2 : 1;
    for (size_t oc = 0; oc < c->oc_pad; ++oc) {
        const int8_t *block = c->weights + oc / AP_CONV2D_OB * c->w_block_stride + 4 * (oc % AP_CONV2D_OB);
        uint32_t *dst = wt + oc / AP_CONV2D_OB * block_words;
        const size_t j = oc % AP_CONV2D_OB, q = oc < c->oc ? oc * (c->per_channel ? 1u : 0u) : 0;
        dst[j] = (uint32_t)c->bias[oc] * (uint32_t)scale;   /* wraps as the sums do */
        for (size_t r = 0; r < fh; ++r) {
            for (size_t s = 0; s < l->slots; ++s) {
                const size_t k = r * l->run + 2 * s;
                const int32_t lo = block[k / AP_CONV2D_KB * 16 + k % AP_CONV2D_KB] * scale;
                const int32_t hi =
                    2 * s + 1 < l->run ? block[(k + 1) / AP_CONV2D_KB * 16 + (k + 1) % AP_CONV2D_KB] * scale : 0;
                dst[4 + 4 * (s * fh + r) + j] = ((uint32_t)lo & 0xffffu) | ((uint32_t)hi << 16);
            }
        }
        dst[4 + 4 * l->k2 + 2 * j] = (uint32_t)c->multiplier[q];
        dst[4 + 4 * l->k2 + 2 * j + 1] = (uint32_t)(fast ? -c->shift[q] : c->shift[q]);
    }
}

/* Filter row r of the strip(s): input row iy of image img, the input zero point above and
   below the image and beside it, widened into word j * filter_h + r: values (2j, 2j + 1) of
   the padded row and, in the second copy, (2j + 1, 2j + 2). Values past the padded row (they
   meet zero weights only) are the zero point too. Straight from the input: two words of each
   copy from one (unaligned) load of four values where they are all the input's. */
static inline __attribute__((always_inline)) void conv_dsp_strip_row_n(const ap_conv2d_ctx *c,
                                                                       const ap_conv2d_strip_layout *l,
                                                                       const int8_t *img, int32_t iy, size_t r,
                                                                       uint32_t *strip, const int two)
{
    const ap_conv2d_params *p = c->p;
    const size_t ic = (size_t)p->input_c, fh = (size_t)p->filter_h, n = l->row_words;
    const int32_t pad = c->pad_value;
    uint32_t *d0 = strip + r, *d1 = strip + fh * n + r;
    size_t j = 0;
    if (iy < 0 || iy >= p->input_h) {
        const uint32_t both = ((uint32_t)pad & 0xffffu) | ((uint32_t)pad << 16);
        for (; j < n; ++j, d0 += fh, d1 += fh) {
            d0[0] = both;
            if (two) {
                d1[0] = both;
            }
        }
        return;
    }
    /* the padded row's values [lo, hi) are the input row's [0, hi - lo) */
    const size_t width = l->values / ic, in_w = (size_t)p->input_w, pad_w = (size_t)p->pad_w;
    const size_t lo = (pad_w < width ? pad_w : width) * ic;
    const size_t hi = (width - lo / ic < in_w ? width : lo / ic + in_w) * ic;
    const int8_t *row = img + (size_t)iy * in_w * ic;   /* value q at row[q - lo] for q in [lo, hi) */
#define CONV_DSP_STRIP_VALUE(q) ((q) >= lo && (q) < hi ? (int32_t)row[(q) - lo] : pad)
    for (;;) {
        /* one word of each copy at a time where a value is padding ... */
        for (; j < n && (2 * j < lo || 2 * j + 8 > hi || j + 2 > n); ++j, d0 += fh, d1 += fh) {
            const int32_t v0 = CONV_DSP_STRIP_VALUE(2 * j), v1 = CONV_DSP_STRIP_VALUE(2 * j + 1);
            d0[0] = ((uint32_t)v0 & 0xffffu) | ((uint32_t)v1 << 16);
            if (two) {
                d1[0] = ((uint32_t)v1 & 0xffffu) | ((uint32_t)CONV_DSP_STRIP_VALUE(2 * j + 2) << 16);
            }
        }
        if (j >= n) {
            break;
        }
        /* ... two where values 2j .. 2j + 7 are all the input's */
        for (; j + 2 <= n && 2 * j + 8 <= hi; j += 2, d0 += 2 * fh, d1 += 2 * fh) {
            const uint32_t word = ap_dsp_load32(row + (2 * j - lo));
            const uint32_t ev = ap_dsp_sxtb16(word);                                  /* 0, 2 */
            const uint32_t od = ap_dsp_sxtb16_ror8(word);                             /* 1, 3 */
            d0[0] = ap_dsp_pkhbt(ev, od, 16);                                         /* 0, 1 */
            d0[fh] = ap_dsp_pkhtb16(od, ev);                                          /* 2, 3 */
            if (two) {
                const uint32_t next = ap_dsp_sxtb16(ap_dsp_load32(row + (2 * j - lo) + 4));   /* 4, 6 */
                d1[0] = ap_dsp_pkhbt(od, ev, 0);                                      /* 1, 2 */
                d1[fh] = ap_dsp_pkhbt(od >> 16, next, 16);                            /* 3, 4 */
            }
        }
    }
#undef CONV_DSP_STRIP_VALUE
}

static void conv_dsp_strip_row(const ap_conv2d_ctx *c, const ap_conv2d_strip_layout *l, const int8_t *img,
                               int32_t iy, size_t r, uint32_t *strip)
{
    if (l->copies == 2) {
        conv_dsp_strip_row_n(c, l, img, iy, r, strip, 1);
    } else {
        conv_dsp_strip_row_n(c, l, img, iy, r, strip, 0);
    }
}

/* d[i] = d[i + by] for i < n, in ascending order (the strips move down by >= 1 words). */
static void conv_dsp_strip_shift(uint32_t *d, size_t n, size_t by)
{
#if AP_ARM_DSP_NATIVE
    const uint32_t *src = d + by;
    register uint32_t v0 __asm__("r8");
    register uint32_t v1 __asm__("r9");
    register uint32_t v2 __asm__("r10");
    register uint32_t v3 __asm__("r11");
    for (; n >= 4; n -= 4) {
        /* the four words are read before any is written (d + 3 < src + 3) */
        __asm__("ldm %[s]!, {%[v0], %[v1], %[v2], %[v3]}\n\t"
                "stm %[d]!, {%[v0], %[v1], %[v2], %[v3]}\n\t"
                : [s] "+r"(src), [d] "+r"(d), [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2), [v3] "=&r"(v3)
                :
                : "memory");
    }
    for (; n > 0; --n, ++d, ++src) {
        d[0] = src[0];
    }
#else
    for (size_t i = 0; i < n; ++i) {
        d[i] = d[i + by];
    }
#endif
}

/* The loop constants of a run, in locals: the int8 stores may alias anything, so through the
   context the compiler would reload them after every store. */
typedef struct conv_dsp_strip_run {
    conv_dsp_quant q;
    size_t full, blocks;   /* blocks of 4 channels: whole ones, all */
    size_t tail;           /* channels of the last block when it is not whole */
    int32_t c1;            /* 1 + 2 * output_offset (the fast form's) */
} conv_dsp_strip_run;

/* One pixel (window x, k2 words) x every channel (the tables from wt) into out. */
static inline __attribute__((always_inline)) void conv_dsp_strip_pixel(const conv_dsp_strip_run *run,
                                                                       const uint32_t *win, const uint32_t *wt,
                                                                       size_t k2, int8_t *out, const int mode)
{
    const size_t full = run->full, blocks = run->blocks;
    const int32_t c1 = run->c1;
    const uint32_t *w = wt;
    for (size_t b = 0; b < blocks; ++b, out += AP_CONV2D_OB) {
        const uint32_t *x = win;
#if AP_ARM_DSP_NATIVE
        /* LDM loads its list in register order: the biases and the weights go to fixed,
           ascending registers */
        register int32_t a0 __asm__("r2");
        register int32_t a1 __asm__("r3");
        register int32_t a2 __asm__("r4");
        register int32_t a3 __asm__("r5");
        register uint32_t w0 __asm__("r8");
        register uint32_t w1 __asm__("r9");
        register uint32_t w2 __asm__("r10");
        register uint32_t w3 __asm__("r11");
        uint32_t x0, x1;
        __asm__("ldm %[w]!, {%[a0], %[a1], %[a2], %[a3]}\n\t"
                : [a0] "=r"(a0), [a1] "=r"(a1), [a2] "=r"(a2), [a3] "=r"(a3), [w] "+r"(w)
                :
                : "memory");
#else
        uint32_t x0;
        int32_t a0 = (int32_t)w[0], a1 = (int32_t)w[1], a2 = (int32_t)w[2], a3 = (int32_t)w[3];
        w += 4;
#endif
        switch (k2 / 2) {   /* k2 <= AP_CONV2D_STRIP_MAX_K2 = 32 */
        default: CONV_DSP_STRIP_2(); /* fall through */
        case 15: CONV_DSP_STRIP_2(); /* fall through */
        case 14: CONV_DSP_STRIP_2(); /* fall through */
        case 13: CONV_DSP_STRIP_2(); /* fall through */
        case 12: CONV_DSP_STRIP_2(); /* fall through */
        case 11: CONV_DSP_STRIP_2(); /* fall through */
        case 10: CONV_DSP_STRIP_2(); /* fall through */
        case 9: CONV_DSP_STRIP_2(); /* fall through */
        case 8: CONV_DSP_STRIP_2(); /* fall through */
        case 7: CONV_DSP_STRIP_2(); /* fall through */
        case 6: CONV_DSP_STRIP_2(); /* fall through */
        case 5: CONV_DSP_STRIP_2(); /* fall through */
        case 4: CONV_DSP_STRIP_2(); /* fall through */
        case 3: CONV_DSP_STRIP_2(); /* fall through */
        case 2: CONV_DSP_STRIP_2(); /* fall through */
        case 1: CONV_DSP_STRIP_2(); /* fall through */
        case 0: break;
        }
        if (k2 % 2 != 0) {
            CONV_DSP_STRIP_1();
        }
        if (mode == AP_DSP_REQUANT_FAST && b < full) {
            conv_dsp_strip_store4(a0, a1, a2, a3, &w, out, c1);
            continue;
        }
        {
            const int32_t s[4] = {a0, a1, a2, a3};
            const size_t nc = b < full ? AP_CONV2D_OB : run->tail;
            for (size_t j = 0; j < nc; ++j) {
                const int32_t m = (int32_t)w[2 * j], sh = (int32_t)w[2 * j + 1];
                out[j] = mode == AP_DSP_REQUANT_FAST ? (int8_t)conv_dsp_strip_fast(s[j], m, sh, c1)
                                                     : conv_dsp_requant(&run->q, s[j], m, sh);
            }
        }
        w += 8;
    }
}

static inline __attribute__((always_inline)) void conv_dsp_strip(const ap_conv2d_ctx *c, void *scratch,
                                                                 const int mode)
{
    const ap_conv2d_params *p = c->p;
    ap_conv2d_strip_layout l;
    if (!ap_conv2d_strip_layout_of(p, c->oc_pad, &l)) {
        return;   /* not reached: run() checked that the variant applies */
    }
    uint32_t *const wt = (uint32_t *)scratch;
    uint32_t *const strip0 = wt + l.weight_bytes / 4;
    uint32_t *const strip1 = strip0 + (size_t)p->filter_h * l.row_words;
    const size_t fh = (size_t)p->filter_h, oc_n = c->oc, ow = (size_t)p->output_w, k2 = l.k2;
    const size_t step = (size_t)p->stride_w * (size_t)p->input_c;
    const conv_dsp_strip_run run = {{c->bias, c->multiplier, c->shift, 0, c->output_offset, c->act_min, c->act_max,
                                     mode},
                                    oc_n / AP_CONV2D_OB, (oc_n + AP_CONV2D_OB - 1) / AP_CONV2D_OB, oc_n % AP_CONV2D_OB,
                                    1 + 2 * c->output_offset};
    int8_t *out = c->output;
    conv_dsp_strip_tables(c, &l, mode == AP_DSP_REQUANT_FAST, wt);
    for (size_t img = 0; img < (size_t)p->batches; ++img) {
        const int8_t *in = c->input + img * c->in_image;
        for (int32_t oy = 0; oy < p->output_h; ++oy) {
            const int32_t iy0 = oy * p->stride_h - p->pad_h;
            size_t r = 0;
            if (oy > 0 && p->stride_h % p->dilation_h == 0 && (size_t)(p->stride_h / p->dilation_h) < fh) {
                /* this output row's filter rows are the last one's, `by` rows on: every strip
                   word moves down by words (word j * fh + r + by to j * fh + r), then the last
                   `by` rows are new */
                const size_t by = (size_t)(p->stride_h / p->dilation_h);
                conv_dsp_strip_shift(strip0, l.copies * fh * l.row_words - by, by);
                r = fh - by;
            }
            for (; r < fh; ++r) {
                conv_dsp_strip_row(c, &l, in, iy0 + (int32_t)r * p->dilation_h, r, strip0);
            }
            if (k2 == 15) {   /* 3x3 filters over 3 channels (RGB first layers): straight code */
                for (size_t x = 0, e = 0; x < ow; ++x, e += step, out += oc_n) {
                    conv_dsp_strip_pixel(&run, ((e & 1) != 0 ? strip1 : strip0) + (e >> 1) * fh, wt, 15, out, mode);
                }
            } else {
                for (size_t x = 0, e = 0; x < ow; ++x, e += step, out += oc_n) {
                    conv_dsp_strip_pixel(&run, ((e & 1) != 0 ? strip1 : strip0) + (e >> 1) * fh, wt, k2, out, mode);
                }
            }
        }
    }
}

void ap_conv2d_s8_strip16_arm_dsp(const ap_conv2d_ctx *c, void *scratch)
{
    if (c->requant_mode == AP_DSP_REQUANT_FAST) {
        conv_dsp_strip(c, scratch, AP_DSP_REQUANT_FAST);
    } else {
        conv_dsp_strip(c, scratch, AP_DSP_REQUANT_GENERAL);
    }
}
