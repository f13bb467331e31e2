/*
 * AVERAGE_POOL_2D int8, arm-dsp: a window's sums in int16 lanes with SXTAB16.
 *
 * Four channels of a tap are one word: SXTAB16 adds its bytes 0 and 2 to one word of two
 * int16 sums, SXTAB16 ROR 8 its bytes 1 and 3 to another, so a tap of eight channels is two
 * loads and four extend-and-adds held in registers across the window (channels outer, taps
 * inner), against a load, an add and the accumulator's load and store a channel for the
 * portable loop. A window of at most 256 taps keeps every sum within int16 (|sum| <= 128 *
 * 256), so the lanes never wrap; a larger window takes the int32 loop below. The divide is
 * TFLite's (half away from zero, over the valid taps) and the clamp the activation range,
 * as in pooling_s8.c, so the bits are the portable kernel's.
 */
#include <stdint.h>

#include "arm_dsp.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

static inline int8_t pool_dsp_average(int32_t sum, int32_t count, int32_t lo, int32_t hi)
{
    const int32_t half = count / 2;
    const int32_t a = sum > 0 ? (sum + half) / count : (sum - half) / count;
    return (int8_t)ap_ops_clamp(a, lo, hi);
}

/* The four int16 sums of two SXTAB16 words: lanes of even (bytes 0, 2) and odd (1, 3) channels. */
static inline void pool_dsp_store4(int8_t *out, uint32_t even, uint32_t odd, int32_t count, int32_t lo, int32_t hi)
{
    out[0] = pool_dsp_average((int16_t)(even & 0xffffu), count, lo, hi);
    out[1] = pool_dsp_average((int16_t)(odd & 0xffffu), count, lo, hi);
    out[2] = pool_dsp_average((int16_t)(even >> 16), count, lo, hi);
    out[3] = pool_dsp_average((int16_t)(odd >> 16), count, lo, hi);
}

void ap_avgpool_s8_arm_dsp(const int8_t *in, size_t row, size_t col, int32_t rows, int32_t cols, int8_t *out,
                           size_t n, int32_t lo, int32_t hi)
{
    const int32_t count = rows * cols;
    size_t j = 0;
    if (count <= 256) {
        for (; j + 8 <= n; j += 8) {
            uint32_t e0 = 0, o0 = 0, e1 = 0, o1 = 0;
            const int8_t *r = in + j;
            for (int32_t fy = 0; fy < rows; ++fy, r += row) {
                const int8_t *x = r;
                for (int32_t fx = 0; fx < cols; ++fx, x += col) {
                    const uint32_t w0 = ap_dsp_load32(x), w1 = ap_dsp_load32(x + 4);
                    e0 = ap_dsp_sxtab16(e0, w0);
                    o0 = ap_dsp_sxtab16_ror8(o0, w0);
                    e1 = ap_dsp_sxtab16(e1, w1);
                    o1 = ap_dsp_sxtab16_ror8(o1, w1);
                }
            }
            pool_dsp_store4(out + j, e0, o0, count, lo, hi);
            pool_dsp_store4(out + j + 4, e1, o1, count, lo, hi);
        }
        if (j + 4 <= n) {
            uint32_t e0 = 0, o0 = 0;
            const int8_t *r = in + j;
            for (int32_t fy = 0; fy < rows; ++fy, r += row) {
                const int8_t *x = r;
                for (int32_t fx = 0; fx < cols; ++fx, x += col) {
                    const uint32_t w0 = ap_dsp_load32(x);
                    e0 = ap_dsp_sxtab16(e0, w0);
                    o0 = ap_dsp_sxtab16_ror8(o0, w0);
                }
            }
            pool_dsp_store4(out + j, e0, o0, count, lo, hi);
            j += 4;
        }
    }
    for (; j < n; ++j) {
        int32_t sum = 0;
        const int8_t *r = in + j;
        for (int32_t fy = 0; fy < rows; ++fy, r += row) {
            for (int32_t fx = 0; fx < cols; ++fx) {
                sum += r[(size_t)fx * col];
            }
        }
        out[j] = pool_dsp_average(sum, count, lo, hi);
    }
}

/*
 * MAX_POOL_2D int8, arm-dsp: four channels a word, SSUB8 + SEL (ap_dsp_max8) a tap, eight
 * channels a step held in registers across the window; the activation range clamps the
 * four lanes with the same pair of instructions (ap_dsp_min8). The maximum and the clamp are
 * exact, so the bits are the portable kernel's.
 */
static inline uint32_t pool_dsp_splat(int32_t v)
{
    return ((uint32_t)v & 0xffu) * 0x01010101u;
}

void ap_maxpool_s8_arm_dsp(const int8_t *in, size_t row, size_t col, int32_t rows, int32_t cols, int8_t *out,
                           size_t n, int32_t lo, int32_t hi)
{
    const uint32_t lo4 = pool_dsp_splat(lo), hi4 = pool_dsp_splat(hi);
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        uint32_t b0 = lo4, b1 = lo4;   /* the clamp's floor: max(lo, taps) */
        const int8_t *r = in + j;
        for (int32_t fy = 0; fy < rows; ++fy, r += row) {
            const int8_t *x = r;
            for (int32_t fx = 0; fx < cols; ++fx, x += col) {
                b0 = ap_dsp_max8(ap_dsp_load32(x), b0);
                b1 = ap_dsp_max8(ap_dsp_load32(x + 4), b1);
            }
        }
        ap_dsp_store32(out + j, ap_dsp_min8(b0, hi4));
        ap_dsp_store32(out + j + 4, ap_dsp_min8(b1, hi4));
    }
    if (j + 4 <= n) {
        uint32_t b0 = lo4;
        const int8_t *r = in + j;
        for (int32_t fy = 0; fy < rows; ++fy, r += row) {
            const int8_t *x = r;
            for (int32_t fx = 0; fx < cols; ++fx, x += col) {
                b0 = ap_dsp_max8(ap_dsp_load32(x), b0);
            }
        }
        ap_dsp_store32(out + j, ap_dsp_min8(b0, hi4));
        j += 4;
    }
    for (; j < n; ++j) {
        int32_t best = lo;
        const int8_t *r = in + j;
        for (int32_t fy = 0; fy < rows; ++fy, r += row) {
            for (int32_t fx = 0; fx < cols; ++fx) {
                const int32_t v = r[(size_t)fx * col];
                best = v > best ? v : best;
            }
        }
        out[j] = (int8_t)(best < hi ? best : hi);
    }
}
