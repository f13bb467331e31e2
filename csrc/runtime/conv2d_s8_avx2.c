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
 * without AVX2; the caller runs it for x86-avx2 variants only.
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
    AP_AVX2_KC = 256,  /* k values of the int16 row panel (3 * 256 * 2 = 1.5 KiB of stack) */
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
    if (mr == 0) {
        return;   /* no rows: nothing to write (and no last row to repeat below) */
    }
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

/* ------------------------------------------------------------------------------------------ */
/* The "lanes" kernel: one int32 lane per output channel.                                      */
/*
 * The x86-avx2 "lanes" variant, for convs whose weights are small (ap_conv2d_lanes_applies).
 * The weights are widened once a run into its scratch, laid out [k pair][channel][2] (int16),
 * not into the prepared blob: that costs one pass over the weights a run (at least 32 output
 * pixels share it), while a blob per ISA layout would make prepared_size depend on the ISA and
 * hold both copies, since every other x86-avx2 variant reads the packed int8 one. Each
 * im2col row is gathered
 * straight from the input into an int16 panel row; then one vpbroadcastd of a row's k pair
 * times one weight vector is a vpmaddwd whose 8 lanes are 8 output channels. So there is no
 * sign extension in the loop, no horizontal reduction, and the accumulators are requantised
 * where they are: the small layers (first convs with k <= 27, pointwise convs with 8..64
 * channels) were bound by exactly those overheads (vww's first conv and 8 -> 16 pointwise conv
 * ran 2-2.5x faster this way, resnet8's 16 -> 16 3x3 conv 1.8x). Tiles are 12 rows x 8
 * channels or 6 rows x 16 channels (12 accumulators + weights + broadcast + product in 16
 * ymm). Pointwise convs (1x1, stride 1, no padding) widen a block's rows in one go.
 * The requantisation constants (bias, multiplier, shifts, rounding masks) are expanded per
 * channel once per run.
 */

/* The bounds (AP_LANES_*), the layers it takes and its scratch: conv2d_s8_internal.h. */

typedef struct ap_lanes {
    const ap_conv2d_ctx *c;
    const int16_t *w16;        /* [kp2][oc8 * 8][2] */
    size_t kp2;                /* k pairs: ceil(k / 2) */
    size_t nv;                 /* 8-channel vectors: ceil(oc / 8) */
    size_t ps;                 /* panel row stride (int16) */
    /* per channel, nv * 8 entries (padding channels: zero multiplier) */
    const int32_t *bias, *mult, *mult_odd, *left, *right, *mask, *half;
    int32_t output_offset, act_min, act_max;
} ap_lanes;

AP_AVX2_INLINE __m256i ap_lanes_load(const int32_t *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* MultiplyByQuantizedMultiplier of 8 channels from `ch` (a multiple of 8), with
   the per-channel constants ap_lanes_run expands (see ap_avx2_mbqm above for why
   bits 31..62 of x * m + 2^30 are SaturatingRoundingDoublingHighMul for m >= 0).
   `left` is a compile-time flag: no channel shifts left (the usual case) saves a vpsllvd. */
AP_AVX2_INLINE __m256i ap_lanes_requant(const ap_lanes *L, __m256i x, size_t ch, const int left)
{
    const __m256i nudge = _mm256_set1_epi64x((long long)1 << 30);
    __m256i even, odd, y, q, threshold;
    if (left) {
        x = _mm256_sllv_epi32(x, ap_lanes_load(L->left + ch));
    }
    even = _mm256_mul_epi32(x, ap_lanes_load(L->mult + ch));
    odd = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), ap_lanes_load(L->mult_odd + ch));
    even = _mm256_srli_epi64(_mm256_add_epi64(even, nudge), 31);
    odd = _mm256_slli_epi64(_mm256_add_epi64(odd, nudge), 1);
    y = _mm256_blend_epi32(even, odd, 0xAA);
    /* RoundingDivideByPOT: + 1 where the remainder exceeds half (half + 1 when y < 0). */
    threshold = _mm256_sub_epi32(ap_lanes_load(L->half + ch), _mm256_srai_epi32(y, 31));
    q = _mm256_srav_epi32(y, ap_lanes_load(L->right + ch));
    return _mm256_sub_epi32(q, _mm256_cmpgt_epi32(_mm256_and_si256(y, ap_lanes_load(L->mask + ch)), threshold));
}

/* Store n <= 16 bytes (fixed-size pieces: a variable memcpy would be a libc call). */
AP_AVX2_INLINE void ap_lanes_store(int8_t *out, __m128i b, size_t n)
{
    if (n >= 16) {
        _mm_storeu_si128((__m128i *)(void *)out, b);
        return;
    }
    if (n >= 8) {
        _mm_storel_epi64((__m128i *)(void *)out, b);
        b = _mm_srli_si128(b, 8);
        out += 8;
        n -= 8;
    }
    {
        int8_t rest[8];
        size_t i;
        _mm_storel_epi64((__m128i *)(void *)rest, b);
        for (i = 0; i < n; ++i) {
            out[i] = rest[i];
        }
    }
}

/* acc += madd(a, w) in place (see AP_AVX2_MAC). */
#define AP_LANES_MAC(acc, a, w) AP_AVX2_MAC(acc, a, w)

/* Requantise and store rows[0..mr) of a tile whose sums are acc[r][0..NV). */
AP_AVX2_INLINE void ap_lanes_finish(const ap_lanes *L, __m256i (*acc)[2], size_t mr, size_t v0,
                                    int8_t *out, const int NV, const int left)
{
    const size_t oc = L->c->oc;
    const size_t ch = 8 * v0;
    const size_t n = oc - ch < (size_t)(8 * NV) ? oc - ch : (size_t)(8 * NV);
    size_t r;
    const __m256i offset = _mm256_set1_epi16((int16_t)L->output_offset);
    const __m128i lo = _mm_set1_epi8((char)L->act_min), hi = _mm_set1_epi8((char)L->act_max);
    for (r = 0; r < mr; ++r) {
        __m256i q0 = ap_lanes_requant(L, acc[r][0], ch, left);
        __m256i q1 = NV > 1 ? ap_lanes_requant(L, acc[r][1], ch + 8, left) : q0;
        /* The output offset and the clamp after saturating packs: int32 -> int16
           [q0 0-3, q1 0-3 | q0 4-7, q1 4-7], + offset, -> [q0 | q1] -> int8, clamp. Values
           that saturate lie beyond [-128, 127] either way, so this equals adding in int32
           and clamping (and it does not wrap where the int32 sum would overflow). */
        __m256i h = _mm256_adds_epi16(_mm256_packs_epi32(q0, q1), offset);
        __m128i b;
        h = _mm256_permute4x64_epi64(h, 0xD8);
        b = _mm_packs_epi16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
        b = _mm_min_epi8(_mm_max_epi8(b, lo), hi);
        ap_lanes_store(out + r * oc + ch, b, n);
    }
}

/* The k-pair broadcast of panel row r. */
#define AP_LANES_ROW(r) \
    _mm256_set1_epi32(ap_lanes_pair(rows[r] + 2 * p))

static inline int32_t ap_lanes_pair(const int16_t *x)
{
    int32_t pair;
    memcpy(&pair, x, 4);
    return pair;
}

/* 12 rows x 8 channels from 8 v0: 12 accumulators, named so that they stay in registers. */
AP_AVX2_INLINE void ap_lanes_tile_12x1(const ap_lanes *L, const int16_t *const *rows, size_t mr,
                                       size_t v0, int8_t *out, const int left)
{
    const size_t wstep = L->nv * 16;
    const int16_t *w = L->w16 + v0 * 16;
    const __m256i init = ap_lanes_load(L->bias + 8 * v0);
    __m256i a0 = init, a1 = init, a2 = init, a3 = init, a4 = init, a5 = init;
    __m256i a6 = init, a7 = init, a8 = init, a9 = init, a10 = init, a11 = init;
    __m256i acc[AP_LANES_MR][2];
    size_t p;
    for (p = 0; p < L->kp2; ++p, w += wstep) {
        const __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)w);
        AP_LANES_MAC(a0, AP_LANES_ROW(0), wv);
        AP_LANES_MAC(a1, AP_LANES_ROW(1), wv);
        AP_LANES_MAC(a2, AP_LANES_ROW(2), wv);
        AP_LANES_MAC(a3, AP_LANES_ROW(3), wv);
        AP_LANES_MAC(a4, AP_LANES_ROW(4), wv);
        AP_LANES_MAC(a5, AP_LANES_ROW(5), wv);
        AP_LANES_MAC(a6, AP_LANES_ROW(6), wv);
        AP_LANES_MAC(a7, AP_LANES_ROW(7), wv);
        AP_LANES_MAC(a8, AP_LANES_ROW(8), wv);
        AP_LANES_MAC(a9, AP_LANES_ROW(9), wv);
        AP_LANES_MAC(a10, AP_LANES_ROW(10), wv);
        AP_LANES_MAC(a11, AP_LANES_ROW(11), wv);
    }
    acc[0][0] = a0, acc[1][0] = a1, acc[2][0] = a2, acc[3][0] = a3, acc[4][0] = a4;
    acc[5][0] = a5, acc[6][0] = a6, acc[7][0] = a7, acc[8][0] = a8, acc[9][0] = a9;
    acc[10][0] = a10, acc[11][0] = a11;
    ap_lanes_finish(L, acc, mr, v0, out, 1, left);
}

/* 6 rows x 16 channels from 8 v0. */
AP_AVX2_INLINE void ap_lanes_tile_6x2(const ap_lanes *L, const int16_t *const *rows, size_t mr,
                                      size_t v0, int8_t *out, const int left)
{
    const size_t wstep = L->nv * 16;
    const int16_t *w = L->w16 + v0 * 16;
    const __m256i i0 = ap_lanes_load(L->bias + 8 * v0), i1 = ap_lanes_load(L->bias + 8 * v0 + 8);
    __m256i a0 = i0, a1 = i0, a2 = i0, a3 = i0, a4 = i0, a5 = i0;
    __m256i b0 = i1, b1 = i1, b2 = i1, b3 = i1, b4 = i1, b5 = i1;
    __m256i acc[AP_LANES_MR][2];
    size_t p;
    for (p = 0; p < L->kp2; ++p, w += wstep) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i *)(const void *)w);
        const __m256i w1 = _mm256_loadu_si256((const __m256i *)(const void *)(w + 16));
        __m256i x;
        x = AP_LANES_ROW(0);
        AP_LANES_MAC(a0, x, w0);
        AP_LANES_MAC(b0, x, w1);
        x = AP_LANES_ROW(1);
        AP_LANES_MAC(a1, x, w0);
        AP_LANES_MAC(b1, x, w1);
        x = AP_LANES_ROW(2);
        AP_LANES_MAC(a2, x, w0);
        AP_LANES_MAC(b2, x, w1);
        x = AP_LANES_ROW(3);
        AP_LANES_MAC(a3, x, w0);
        AP_LANES_MAC(b3, x, w1);
        x = AP_LANES_ROW(4);
        AP_LANES_MAC(a4, x, w0);
        AP_LANES_MAC(b4, x, w1);
        x = AP_LANES_ROW(5);
        AP_LANES_MAC(a5, x, w0);
        AP_LANES_MAC(b5, x, w1);
    }
    acc[0][0] = a0, acc[1][0] = a1, acc[2][0] = a2, acc[3][0] = a3, acc[4][0] = a4, acc[5][0] = a5;
    acc[0][1] = b0, acc[1][1] = b1, acc[2][1] = b2, acc[3][1] = b3, acc[4][1] = b4, acc[5][1] = b5;
    ap_lanes_finish(L, acc, mr, v0, out, 2, left);
}

AP_AVX2 static void ap_lanes_tile_12x1_plain(const ap_lanes *L, const int16_t *const *rows,
                                             size_t mr, size_t v0, int8_t *out)
{
    ap_lanes_tile_12x1(L, rows, mr, v0, out, 0);
}

AP_AVX2 static void ap_lanes_tile_6x2_plain(const ap_lanes *L, const int16_t *const *rows,
                                            size_t mr, size_t v0, int8_t *out)
{
    ap_lanes_tile_6x2(L, rows, mr, v0, out, 0);
}

AP_AVX2 static void ap_lanes_tile_12x1_left(const ap_lanes *L, const int16_t *const *rows,
                                            size_t mr, size_t v0, int8_t *out)
{
    ap_lanes_tile_12x1(L, rows, mr, v0, out, 1);
}

AP_AVX2 static void ap_lanes_tile_6x2_left(const ap_lanes *L, const int16_t *const *rows,
                                           size_t mr, size_t v0, int8_t *out)
{
    ap_lanes_tile_6x2(L, rows, mr, v0, out, 1);
}

/* dst[0..n) = src[0..n) widened; may write up to 15 int16 past n; reads src[0..n) only
   unless `end` (one past the last readable input byte) leaves 16 bytes to read. */
AP_AVX2_INLINE void ap_lanes_widen(int16_t *dst, const int8_t *src, size_t n, const int8_t *end)
{
    size_t i = 0;
    for (; i < n; i += 16) {
        __m128i bytes;
        if ((size_t)(end - (src + i)) >= 16) {
            bytes = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        } else {
            int8_t tmp[16] = {0};
            memcpy(tmp, src + i, n - i < 16 ? n - i : 16);
            bytes = _mm_loadu_si128((const __m128i *)(const void *)tmp);
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_cvtepi8_epi16(bytes));
    }
}

AP_AVX2_INLINE void ap_lanes_fill(int16_t *dst, int16_t value, size_t n)
{
    const __m256i v = _mm256_set1_epi16(value);
    size_t i;
    for (i = 0; i < n; i += 16) {
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), v);
    }
}

/* The im2col row of output pixel (image, oy, ox) as int16, into dst (ps elements; values at
   k and beyond are left as anything: their weights are zero). Pieces are written in order of
   increasing k, each possibly spilling up to 15 elements that the next piece overwrites. */
AP_AVX2_INLINE void ap_lanes_gather(const ap_conv2d_ctx *c, const int8_t *img, const int8_t *end,
                                    int32_t oy, int32_t ox, int16_t *dst)
{
    const ap_conv2d_params *p = c->p;
    const size_t ic = (size_t)p->input_c;
    const size_t seg = (size_t)p->filter_w * ic;
    const size_t in_row = (size_t)p->input_w * ic;
    const int32_t iy0 = oy * p->stride_h - p->pad_h;
    const int32_t ix0 = ox * p->stride_w - p->pad_w;
    const int32_t ix_last = ix0 + (p->filter_w - 1) * p->dilation_w;
    const int32_t iy_last = iy0 + (p->filter_h - 1) * p->dilation_h;
    const int inside_x = ix0 >= 0 && ix_last < p->input_w;
    int32_t fy, fx;
    if (inside_x && iy0 >= 0 && iy_last < p->input_h && p->dilation_w == 1) {
        /* Interior pixel: filter_h contiguous runs of seg bytes. Reading whole 16-byte
           pieces is safe unless the last run ends within 16 bytes of the input's end. */
        const int8_t *src = img + (size_t)iy0 * in_row + (size_t)ix0 * ic;
        const size_t dy = (size_t)p->dilation_h * in_row;
        const size_t pieces = (seg + 15) / 16;
        if ((size_t)(end - (src + (size_t)(p->filter_h - 1) * dy)) >= pieces * 16) {
            for (fy = 0; fy < p->filter_h; ++fy, dst += seg, src += dy) {
                size_t i;
                for (i = 0; i < pieces; ++i) {
                    _mm256_storeu_si256((__m256i *)(void *)(dst + 16 * i),
                                        _mm256_cvtepi8_epi16(_mm_loadu_si128(
                                            (const __m128i *)(const void *)(src + 16 * i))));
                }
            }
            return;
        }
    }
    for (fy = 0; fy < p->filter_h; ++fy, dst += seg) {
        const int32_t iy = iy0 + fy * p->dilation_h;
        const int8_t *row;
        if (iy < 0 || iy >= p->input_h) {
            ap_lanes_fill(dst, (int16_t)c->pad_value, seg);
            continue;
        }
        row = img + (size_t)iy * in_row;
        if (inside_x && p->dilation_w == 1) {
            ap_lanes_widen(dst, row + (size_t)ix0 * ic, seg, end);
            continue;
        }
        for (fx = 0; fx < p->filter_w; ++fx) {
            const int32_t ix = ix0 + fx * p->dilation_w;
            if (ix < 0 || ix >= p->input_w) {
                ap_lanes_fill(dst + (size_t)fx * ic, (int16_t)c->pad_value, ic);
            } else {
                ap_lanes_widen(dst + (size_t)fx * ic, row + (size_t)ix * ic, ic, end);
            }
        }
    }
}

typedef void (*ap_lanes_tile_fn)(const ap_lanes *L, const int16_t *const *rows, size_t mr,
                                 size_t v0, int8_t *out);

/* Expand per-channel constants and widen the weights, then run every output pixel. */
AP_AVX2 static void ap_lanes_run(const ap_conv2d_ctx *c, int16_t *w16, int32_t *consts,
                                 int16_t *panel, size_t total)
{
    const ap_conv2d_params *p = c->p;
    ap_lanes L;
    const size_t nv = (c->oc + 7) / 8, chans = nv * 8;
    const size_t kp2 = (c->k + 1) / 2;
    const int8_t *end = c->input + (size_t)p->batches * c->in_image;
    int32_t *bias = consts, *mult = consts + chans, *mult_odd = consts + 2 * chans;
    int32_t *left = consts + 3 * chans, *right = consts + 4 * chans;
    int32_t *mask = consts + 5 * chans, *half = consts + 6 * chans;
    int any_left = 0;
    size_t ch, first, r, v;
    const int16_t *rows[AP_LANES_MR];
    ap_lanes_tile_fn tile1, tile2;
    int32_t oy = 0, ox = 0;
    size_t image = 0;
    const int pointwise = ap_conv2d_gemm_1x1_applies(p);

    /* Per-channel constants, 8 channels at a time (a scalar loop here costs as much as a
       small layer's multiply-adds). Padding channels get zeros. */
    for (ch = 0; ch < chans; ch += 8) {
        const size_t n = c->oc - ch < 8 ? c->oc - ch : 8;
        const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n),
                                                  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
        __m256i m, sh, e, mk;
        if (c->per_channel) {
            m = _mm256_maskload_epi32((const int *)(c->multiplier + ch), valid);
            sh = _mm256_maskload_epi32((const int *)(c->shift + ch), valid);
        } else {
            m = _mm256_and_si256(_mm256_set1_epi32(c->multiplier[0]), valid);
            sh = _mm256_and_si256(_mm256_set1_epi32(c->shift[0]), valid);
        }
        e = _mm256_max_epi32(_mm256_sub_epi32(zero, sh), zero);
        mk = _mm256_sub_epi32(_mm256_sllv_epi32(one, e), one);
        _mm256_storeu_si256((__m256i *)(void *)(bias + ch),
                            _mm256_maskload_epi32((const int *)(c->bias + ch), valid));
        _mm256_storeu_si256((__m256i *)(void *)(mult + ch), m);
        _mm256_storeu_si256((__m256i *)(void *)(mult_odd + ch), _mm256_srli_epi64(m, 32));
        _mm256_storeu_si256((__m256i *)(void *)(left + ch), _mm256_max_epi32(sh, zero));
        _mm256_storeu_si256((__m256i *)(void *)(right + ch), e);
        _mm256_storeu_si256((__m256i *)(void *)(mask + ch), mk);
        _mm256_storeu_si256((__m256i *)(void *)(half + ch), _mm256_srli_epi32(mk, 1));
        any_left |= _mm256_movemask_epi8(_mm256_cmpgt_epi32(sh, zero)) != 0;
    }
    /* Weights: packed [oc/4][k/4][4 oc][4 k] int8 -> [k pair][channel][2] int16. One packed
       group (4 channels x 4 k) widens to 16 int16 whose 32-bit pairs 0,2,4,6 are k pair 2g of
       the 4 channels and 1,3,5,7 k pair 2g + 1. Channels past oc_pad stay zero. */
    {
        const __m256i order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        const size_t groups = c->k_pad / AP_CONV2D_KB;
        size_t b, g;
        memset(w16, 0, kp2 * chans * 2 * sizeof(int16_t));
        for (b = 0; b < c->oc_pad / AP_CONV2D_OB; ++b) {
            const int8_t *src = c->weights + b * c->w_block_stride;
            for (g = 0; g < groups; ++g, src += 16) {
                const __m256i v = _mm256_permutevar8x32_epi32(
                    _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)src)), order);
                int16_t *dst = w16 + (2 * g * chans + b * AP_CONV2D_OB) * 2;
                _mm_storeu_si128((__m128i *)(void *)dst, _mm256_castsi256_si128(v));
                if (2 * g + 1 < kp2) {
                    _mm_storeu_si128((__m128i *)(void *)(dst + 2 * chans), _mm256_extracti128_si256(v, 1));
                }
            }
        }
    }
    L.c = c;
    L.w16 = w16;
    L.kp2 = kp2;
    L.nv = nv;
    L.ps = ap_conv2d_lanes_row(c->k);
    L.bias = bias;
    L.mult = mult;
    L.mult_odd = mult_odd;
    L.left = left;
    L.right = right;
    L.mask = mask;
    L.half = half;
    L.output_offset = c->output_offset;
    L.act_min = c->act_min;
    L.act_max = c->act_max;
    tile1 = any_left ? ap_lanes_tile_12x1_left : ap_lanes_tile_12x1_plain;
    tile2 = any_left ? ap_lanes_tile_6x2_left : ap_lanes_tile_6x2_plain;
    /* Stale panel values past k meet zero weights, but must not be uninitialised. */
    memset(panel, 0, AP_LANES_MR * L.ps * sizeof(int16_t));

    for (first = 0; first < total; first += AP_LANES_MR) {
        const size_t mr = total - first < AP_LANES_MR ? total - first : AP_LANES_MR;
        int8_t *out = c->output + first * c->oc;
        if (pointwise) {
            /* 1x1, stride 1, no padding: the block's rows are mr * k contiguous input bytes,
               widened in one go; row r starts k elements after row r - 1 (a pair that
               straddles two rows meets a zero weight in its second half). */
            ap_lanes_widen(panel, c->input + first * c->k, mr * c->k, end);
            for (r = 0; r < AP_LANES_MR; ++r) {
                rows[r] = panel + (r < mr ? r : mr - 1) * c->k;
            }
        } else {
            for (r = 0; r < mr; ++r) {
                ap_lanes_gather(c, c->input + image * c->in_image, end, oy, ox, panel + r * L.ps);
                if (++ox == p->output_w) {
                    ox = 0;
                    if (++oy == p->output_h) {
                        oy = 0;
                        ++image;
                    }
                }
            }
            for (r = 0; r < AP_LANES_MR; ++r) {
                rows[r] = panel + (r < mr ? r : mr - 1) * L.ps;
            }
        }
        for (v = 0; v + 2 <= nv; v += 2) {
            tile2(&L, rows, mr < 6 ? mr : 6, v, out);
            if (mr > 6) {
                tile2(&L, rows + 6, mr - 6, v, out + 6 * c->oc);
            }
        }
        if (v < nv) {
            tile1(&L, rows, mr, v, out);
        }
    }
}

AP_AVX2 void ap_conv2d_s8_lanes_avx2(const ap_conv2d_ctx *c, void *scratch, size_t total)
{
    /* The scratch's three parts (ap_conv2d_lanes_scratch), each a multiple of 32 bytes. */
    const size_t chans = (c->oc + 7) / 8 * 8;
    unsigned char *base = (unsigned char *)scratch;
    int16_t *w16 = (int16_t *)(void *)base;
    int32_t *consts = (int32_t *)(void *)(base + 4 * ((c->k + 1) / 2) * chans);
    int16_t *panel = (int16_t *)(void *)((unsigned char *)consts + 28 * chans);
    ap_lanes_run(c, w16, consts, panel, total);
}

#else
/* ISO C forbids an empty translation unit. */
typedef int ap_conv2d_s8_avx2_unused;
#endif
