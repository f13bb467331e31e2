/*
 * CONV_2D int8 GEMM micro-kernel for AVX2 (x86 without VNNI), bit-exact with the portable one.
 *
 * Exact int8 products: both operands are sign-extended to int16 and multiplied with
 * vpmaddwd into int32 (16 MACs an instruction); vpmaddubsw would saturate.
 * A row tile (3 output pixels) is sign-extended to int16 once, into a stack panel, and reused
 * for every block of 12 output channels: each k group of a row is then a plain 8-byte
 * broadcast load, and the shuffle port only sign-extends weights (3 vpmovsxbw per 9 vpmaddwd
 * instead of 6 when the rows are extended in the loop: ~30 % faster on Zen 3).
 * Packed weights hold [4 channels][4 k] per 16 bytes, so one vpmovsxbw load gives a block's
 * weights for 4 k; each vpmaddwd lane sums 2 of the 4 k (lanes 2j, 2j+1 belong to channel j,
 * added pairwise at the end).
 * Requantisation is vectorised exactly (64-bit products with vpmuldq), never through floats.
 *
 * Compiled with a per-function target attribute, so the library still builds and runs on CPUs
 * without AVX2; the caller dispatches on ap_cpu_detect().
 */
#include "conv2d_s8_internal.h"

#if AP_CONV2D_HAVE_AVX2

#include <immintrin.h>
#include <string.h>

#define AP_AVX2 __attribute__((target("avx2,fma")))
#define AP_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,fma")))

AP_AVX2_INLINE __m256i ap_avx2_weights(const int8_t *w)
{
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w));
}

AP_AVX2_INLINE __m256i ap_avx2_row(const int16_t *a)
{
    /* vbroadcastsd from memory is a plain load (no shuffle-port work). */
    return _mm256_castpd_si256(_mm256_broadcast_sd((const double *)(const void *)a));
}

/* TFLite MultiplyByQuantizedMultiplier on 8 lanes (multiplier >= 0, shift in [-31, 30]).
   SaturatingRoundingDoublingHighMul(x, m) with m >= 0 is floor((x * m + 2^30) / 2^31): for a
   negative product, TFLite's nudge 1 - 2^30 plus truncation toward zero gives the same value.
   Bits 31..62 of the 64-bit sum are the result, whatever the shift kind. */
AP_AVX2_INLINE __m256i ap_avx2_mbqm(__m256i x, __m256i multiplier, __m256i left, __m256i right)
{
    const __m256i nudge = _mm256_set1_epi64x((long long)1 << 30);
    const __m256i one = _mm256_set1_epi32(1);
    __m256i even, odd, y, mask, remainder, threshold;
    x = _mm256_sllv_epi32(x, left);
    even = _mm256_mul_epi32(x, multiplier);
    odd = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(multiplier, 32));
    even = _mm256_srli_epi64(_mm256_add_epi64(even, nudge), 31);
    odd = _mm256_slli_epi64(_mm256_add_epi64(odd, nudge), 1);
    y = _mm256_blend_epi32(even, odd, 0xAA);
    /* RoundingDivideByPOT(y, right): round half away from zero. */
    mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
    remainder = _mm256_and_si256(y, mask);
    threshold = _mm256_sub_epi32(_mm256_srli_epi32(mask, 1),
                                 _mm256_cmpgt_epi32(_mm256_setzero_si256(), y));
    return _mm256_sub_epi32(_mm256_srav_epi32(y, right), _mm256_cmpgt_epi32(remainder, threshold));
}

/* Per-channel requantisation constants of 8 channels from `first` (lanes < n valid). */
typedef struct ap_avx2_rq {
    __m256i bias, multiplier, left, right;
} ap_avx2_rq;

AP_AVX2_INLINE ap_avx2_rq ap_avx2_rq_load(const ap_conv2d_ctx *c, size_t first, size_t n)
{
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lanes);
    __m256i shift;
    ap_avx2_rq q;
    /* maskload never touches the masked-off lanes' memory. */
    q.bias = _mm256_maskload_epi32((const int *)(c->bias + first), valid);
    if (c->per_channel) {
        q.multiplier = _mm256_maskload_epi32((const int *)(c->multiplier + first), valid);
        shift = _mm256_maskload_epi32((const int *)(c->shift + first), valid);
    } else {
        q.multiplier = _mm256_set1_epi32(c->multiplier[0]);
        shift = _mm256_set1_epi32(c->shift[0]);
    }
    q.left = _mm256_max_epi32(shift, _mm256_setzero_si256());
    q.right = _mm256_max_epi32(_mm256_sub_epi32(_mm256_setzero_si256(), shift),
                               _mm256_setzero_si256());
    return q;
}

AP_AVX2_INLINE __m256i ap_avx2_requant(const ap_conv2d_ctx *c, __m256i acc, const ap_avx2_rq *q)
{
    __m256i v = ap_avx2_mbqm(_mm256_add_epi32(acc, q->bias), q->multiplier, q->left, q->right);
    v = _mm256_add_epi32(v, _mm256_set1_epi32(c->output_offset));
    v = _mm256_max_epi32(v, _mm256_set1_epi32(c->act_min));
    return _mm256_min_epi32(v, _mm256_set1_epi32(c->act_max));
}

/* Channel sums of one row: blocks 0 and 1 -> channels 0..7 (lo), block 2 -> 8..11 (hi). */
AP_AVX2_INLINE void ap_avx2_reduce(__m256i b0, __m256i b1, __m256i b2, __m256i *lo, __m256i *hi)
{
    /* hadd within 128-bit halves gives [b0 c0 c1, b1 c0 c1 | b0 c2 c3, b1 c2 c3]. */
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    *lo = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(b0, b1), order);
    *hi = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(b2, b2), order);
}

AP_AVX2_INLINE void ap_avx2_store_row(int8_t *out, __m256i lo, __m256i hi, size_t nc)
{
    /* int32 -> int16: [lo0..3 hi0..3 | lo4..7 hi4..7]; reorder 64-bit quarters to
       [lo0..7 | hi0..7]; then int16 -> int8 (values are already clamped). */
    __m256i h = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
    __m128i b = _mm_packs_epi16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    /* Fixed-size pieces (8, 4, 2, 1 bytes): a variable-length memcpy would be a libc call. */
    if (nc >= 8) {
        _mm_storel_epi64((__m128i *)(void *)out, b);
        b = _mm_srli_si128(b, 8);
        out += 8;
        nc -= 8;
    }
    {
        uint32_t rest = (uint32_t)_mm_cvtsi128_si32(b);
        if (nc >= 4) {
            memcpy(out, &rest, 4);
            rest = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(b, 4));
            out += 4;
            nc -= 4;
        }
        if (nc >= 2) {
            uint16_t two = (uint16_t)rest;
            memcpy(out, &two, 2);
            rest >>= 16;
            out += 2;
            nc -= 2;
        }
        if (nc == 1) {
            *out = (int8_t)(uint8_t)rest;
        }
    }
}

enum {
    AP_AVX2_KC = 2048, /* k values of the int16 row panel (3 * 2048 * 2 = 12 KiB of stack) */
    AP_AVX2_LOAD = 1,  /* start from acc instead of zero */
    AP_AVX2_STORE = 2  /* write the raw sums to acc instead of requantising */
};

/* One micro-kernel call: 3 panel rows x up to 12 channels from oc0, over k4 groups. */
typedef struct ap_avx2_tile_args {
    const int16_t *a[AP_CONV2D_MR]; /* panel rows at the first k */
    size_t mr;                      /* rows stored */
    size_t k4;
    const int8_t *w;                /* packed block of oc0 at the first k group */
    size_t oc0, nc;
    int32_t *acc;                   /* [MR][NR] partial sums (k split in chunks) */
    int flags;
    int8_t *out;                    /* row 0 at channel oc0; rows ctx->oc apart */
} ap_avx2_tile_args;

/* acc += madd(a, w), with the add forced to update acc's register in place: written as
   plain intrinsics, GCC 12 puts each sum in a fresh register and adds a move per
   accumulator per iteration (read in the disassembly), which costs ~10 % here. */
#define AP_AVX2_MAC(acc, a, w)                                                \
    do {                                                                       \
        __m256i product_ = _mm256_madd_epi16((a), (w));                        \
        __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(product_));              \
    } while (0)

/* The tile for `blocks` (1..3, a compile-time constant after inlining) blocks of 4 channels:
   9 accumulators + 3 weight registers + 1 row register + 1 product temporary <= 16 ymm
   (a 4-row tile would need 17 and spill, since vpmaddwd cannot accumulate in place). */
AP_AVX2_INLINE void ap_avx2_tile(const ap_conv2d_ctx *c, const ap_avx2_tile_args *t,
                                 const int blocks)
{
    const int16_t *a0 = t->a[0], *a1 = t->a[1], *a2 = t->a[2];
    const int8_t *w0 = t->w;
    const int8_t *w1 = w0 + (blocks > 1 ? c->w_block_stride : 0);
    const int8_t *w2 = w0 + (blocks > 2 ? 2 * c->w_block_stride : 0);
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c02 = c00;
    __m256i c10 = c00, c11 = c00, c12 = c00;
    __m256i c20 = c00, c21 = c00, c22 = c00;
    __m256i lo[AP_CONV2D_MR], hi[AP_CONV2D_MR];
    size_t g, r;
    for (g = 0; g < t->k4; ++g) {
        const __m256i wv0 = ap_avx2_weights(w0 + 16 * g);
        const __m256i wv1 = blocks > 1 ? ap_avx2_weights(w1 + 16 * g) : wv0;
        const __m256i wv2 = blocks > 2 ? ap_avx2_weights(w2 + 16 * g) : wv0;
        __m256i av;
        av = ap_avx2_row(a0 + 4 * g);
        AP_AVX2_MAC(c00, av, wv0);
        if (blocks > 1) AP_AVX2_MAC(c01, av, wv1);
        if (blocks > 2) AP_AVX2_MAC(c02, av, wv2);
        av = ap_avx2_row(a1 + 4 * g);
        AP_AVX2_MAC(c10, av, wv0);
        if (blocks > 1) AP_AVX2_MAC(c11, av, wv1);
        if (blocks > 2) AP_AVX2_MAC(c12, av, wv2);
        av = ap_avx2_row(a2 + 4 * g);
        AP_AVX2_MAC(c20, av, wv0);
        if (blocks > 1) AP_AVX2_MAC(c21, av, wv1);
        if (blocks > 2) AP_AVX2_MAC(c22, av, wv2);
    }
    ap_avx2_reduce(c00, c01, c02, &lo[0], &hi[0]);
    ap_avx2_reduce(c10, c11, c12, &lo[1], &hi[1]);
    ap_avx2_reduce(c20, c21, c22, &lo[2], &hi[2]);
    if (t->flags & AP_AVX2_LOAD) {
        for (r = 0; r < t->mr; ++r) {
            const int32_t *acc = t->acc + r * AP_CONV2D_NR;
            lo[r] = _mm256_add_epi32(lo[r], _mm256_loadu_si256((const __m256i *)(const void *)acc));
            hi[r] = _mm256_add_epi32(
                hi[r], _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(acc + 8))));
        }
    }
    if (t->flags & AP_AVX2_STORE) {
        for (r = 0; r < t->mr; ++r) {
            int32_t *acc = t->acc + r * AP_CONV2D_NR;
            _mm256_storeu_si256((__m256i *)(void *)acc, lo[r]);
            _mm_storeu_si128((__m128i *)(void *)(acc + 8), _mm256_castsi256_si128(hi[r]));
        }
        return;
    }
    {
        const size_t n_lo = t->nc < 8 ? t->nc : 8;
        const size_t n_hi = t->nc > 8 ? t->nc - 8 : 0;
        const ap_avx2_rq q_lo = ap_avx2_rq_load(c, t->oc0, n_lo);
        if (blocks > 2) {
            const ap_avx2_rq q_hi = ap_avx2_rq_load(c, t->oc0 + 8, n_hi);
            for (r = 0; r < t->mr; ++r) {
                ap_avx2_store_row(t->out + r * c->oc, ap_avx2_requant(c, lo[r], &q_lo),
                                  ap_avx2_requant(c, hi[r], &q_hi), t->nc);
            }
        } else {
            for (r = 0; r < t->mr; ++r) {
                ap_avx2_store_row(t->out + r * c->oc, ap_avx2_requant(c, lo[r], &q_lo),
                                  _mm256_setzero_si256(), t->nc);
            }
        }
    }
}

AP_AVX2 static void ap_avx2_tile_1(const ap_conv2d_ctx *c, const ap_avx2_tile_args *t)
{
    ap_avx2_tile(c, t, 1);
}

AP_AVX2 static void ap_avx2_tile_2(const ap_conv2d_ctx *c, const ap_avx2_tile_args *t)
{
    ap_avx2_tile(c, t, 2);
}

AP_AVX2 static void ap_avx2_tile_3(const ap_conv2d_ctx *c, const ap_avx2_tile_args *t)
{
    ap_avx2_tile(c, t, 3);
}

AP_AVX2 static void ap_avx2_tile_any(const ap_conv2d_ctx *c, const ap_avx2_tile_args *t)
{
    if (t->nc > 8) {
        ap_avx2_tile_3(c, t);
    } else if (t->nc > 4) {
        ap_avx2_tile_2(c, t);
    } else {
        ap_avx2_tile_1(c, t);
    }
}

/* Channels of the tile starting at oc0: the blocks of 4 left are spread evenly over
   ceil(blocks / 3) tiles (16 channels: 8 + 8, not 12 + 4), so no tile requantises a
   mostly empty vector, which matters when k is small. */
AP_AVX2_INLINE size_t ap_avx2_group(const ap_conv2d_ctx *c, size_t oc0)
{
    const size_t left = c->oc - oc0;
    const size_t blocks = (left + AP_CONV2D_OB - 1) / AP_CONV2D_OB;
    const size_t tiles = (blocks + 2) / 3;
    const size_t take = (blocks + tiles - 1) / tiles * AP_CONV2D_OB;
    return take < left ? take : left;
}

/* panel[0..n) = sign-extended src[0..n); n is a multiple of 4; reads exactly n bytes. */
AP_AVX2_INLINE void ap_avx2_widen(int16_t *panel, const int8_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm256_storeu_si256((__m256i *)(void *)(panel + i),
                            _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(src + i))));
    }
    for (; i < n; i += 4) {
        int32_t four;
        memcpy(&four, src + i, 4);
        _mm_storel_epi64((__m128i *)(void *)(panel + i), _mm_cvtepi8_epi16(_mm_cvtsi32_si128(four)));
    }
}

AP_AVX2 void ap_conv2d_s8_rows_avx2(const ap_conv2d_ctx *c, const int8_t *const *a, size_t mr,
                                    int8_t *out)
{
    int16_t panel[AP_CONV2D_MR][AP_AVX2_KC];
    int32_t acc[AP_CONV2D_MR * AP_CONV2D_NR];
    const size_t chunk = c->k_pad < AP_AVX2_KC ? c->k_pad : AP_AVX2_KC;
    ap_avx2_tile_args t;
    size_t r, oc0, k0;
    memset(&t, 0, sizeof(t));
    t.mr = mr;
    t.acc = acc;
    for (r = 0; r < AP_CONV2D_MR; ++r) {
        t.a[r] = panel[r < mr ? r : mr - 1];
    }
    if (chunk == c->k_pad) {
        /* The common case: widen the rows once, reuse them for every channel block. */
        for (r = 0; r < mr; ++r) {
            ap_avx2_widen(panel[r], a[r], c->k_pad);
        }
        t.k4 = c->k_pad / AP_CONV2D_KB;
        for (oc0 = 0; oc0 < c->oc; oc0 += t.nc) {
            t.oc0 = oc0;
            t.nc = ap_avx2_group(c, oc0);
            t.w = c->weights + (oc0 / AP_CONV2D_OB) * c->w_block_stride;
            t.out = out + oc0;
            ap_avx2_tile_any(c, &t);
        }
        return;
    }
    /* Long rows: k in chunks, partial sums through acc (rows widened again per block). */
    for (oc0 = 0; oc0 < c->oc; oc0 += t.nc) {
        t.oc0 = oc0;
        t.nc = ap_avx2_group(c, oc0);
        t.out = out + oc0;
        for (k0 = 0; k0 < c->k_pad; k0 += chunk) {
            const size_t k1 = c->k_pad - k0 < chunk ? c->k_pad : k0 + chunk;
            for (r = 0; r < mr; ++r) {
                ap_avx2_widen(panel[r], a[r] + k0, k1 - k0);
            }
            t.k4 = (k1 - k0) / AP_CONV2D_KB;
            t.w = c->weights + (oc0 / AP_CONV2D_OB) * c->w_block_stride +
                  (k0 / AP_CONV2D_KB) * (AP_CONV2D_OB * AP_CONV2D_KB);
            t.flags = (k0 > 0 ? AP_AVX2_LOAD : 0) | (k1 < c->k_pad ? AP_AVX2_STORE : 0);
            ap_avx2_tile_any(c, &t);
        }
    }
}

#else
/* ISO C forbids an empty translation unit. */
typedef int ap_conv2d_s8_avx2_unused;
#endif
