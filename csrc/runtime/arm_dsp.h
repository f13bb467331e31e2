/*
 * The Arm DSP-extension instructions the arm-dsp kernels are written in (Cortex-M4, M7,
 * M33), as static inline functions on uint32_t words holding two int16 or four int8 lanes.
 *
 * On a core with the DSP extension (AP_ARM_DSP_NATIVE) each is the one instruction: ACLE's
 * <arm_acle.h> where it has the intrinsic, inline assembly where it has none (SXTB16 with
 * a rotation, PKHBT, PKHTB) or where GCC would not fuse the C. Everywhere else each is its
 * definition in plain C99, so the same kernel source compiles on any host and gives the
 * same bits there: the host Interpreter runs arm-dsp plans, the hypothesis suites test the
 * kernels under the sanitizers, and the QEMU tests check that the two agree.
 * Not a public header.
 */
#ifndef ARENAPLAN_ARM_DSP_H
#define ARENAPLAN_ARM_DSP_H

#include <stdint.h>
#include <string.h>

#include "isa.h"

#if AP_HAVE_ARM_DSP
#define AP_ARM_DSP_NATIVE 1
#include <arm_acle.h>
#else
#define AP_ARM_DSP_NATIVE 0
#endif

/* Four bytes from any address as one word (an unaligned LDR on Cortex-M4/M7/M33). */
static inline uint32_t ap_dsp_load32(const void *p)
{
    uint32_t w;
    memcpy(&w, p, sizeof(w));
    return w;
}

static inline void ap_dsp_store32(void *p, uint32_t w)
{
    memcpy(p, &w, sizeof(w));
}

#if !AP_ARM_DSP_NATIVE
/* Lane helpers of the C definitions. */
static inline int32_t ap_dsp_lo16(uint32_t w) { return (int32_t)(int16_t)(uint16_t)(w & 0xffffu); }
static inline int32_t ap_dsp_hi16(uint32_t w) { return (int32_t)(int16_t)(uint16_t)(w >> 16); }
static inline int32_t ap_dsp_byte(uint32_t w, int i) { return (int32_t)(int8_t)(uint8_t)(w >> (8 * i)); }
static inline uint32_t ap_dsp_pack16(int32_t lo, int32_t hi)
{
    return ((uint32_t)lo & 0xffffu) | ((uint32_t)hi << 16);
}
static inline int32_t ap_dsp_wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
#endif

/* SXTB16: bytes 0 and 2, sign-extended to the two int16 lanes. */
static inline uint32_t ap_dsp_sxtb16(uint32_t w)
{
#if AP_ARM_DSP_NATIVE
    return (uint32_t)__sxtb16((int32_t)w);
#else
    return ap_dsp_pack16(ap_dsp_byte(w, 0), ap_dsp_byte(w, 2));
#endif
}

/* SXTB16 with ROR #8: bytes 1 and 3, sign-extended to the two int16 lanes. */
static inline uint32_t ap_dsp_sxtb16_ror8(uint32_t w)
{
#if AP_ARM_DSP_NATIVE
    uint32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
    return r;
#else
    return ap_dsp_pack16(ap_dsp_byte(w, 1), ap_dsp_byte(w, 3));
#endif
}

/* The four int8 values at src as the two words of int16 lanes the kernels multiply:
   dst[0] = SXTB16 (bytes 0 and 2), dst[1] = SXTB16 ROR 8 (bytes 1 and 3). */
static inline void ap_dsp_widen4(const void *src, uint32_t *dst)
{
    const uint32_t w = ap_dsp_load32(src);
    dst[0] = ap_dsp_sxtb16(w);
    dst[1] = ap_dsp_sxtb16_ror8(w);
}

/* SXTAB16: each int16 lane of a plus the sign-extended byte 0 / byte 2 of b (wrapping). */
static inline uint32_t ap_dsp_sxtab16(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    return (uint32_t)__sxtab16((int32_t)a, (int32_t)b);
#else
    return ap_dsp_pack16(ap_dsp_lo16(a) + ap_dsp_byte(b, 0), ap_dsp_hi16(a) + ap_dsp_byte(b, 2));
#endif
}

/* SXTAB16 with ROR #8 on b: lanes plus bytes 1 and 3 of b. */
static inline uint32_t ap_dsp_sxtab16_ror8(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    uint32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    return ap_dsp_pack16(ap_dsp_lo16(a) + ap_dsp_byte(b, 1), ap_dsp_hi16(a) + ap_dsp_byte(b, 3));
#endif
}

/* PKHBT: low half of a, high half of (b << shift), 0 <= shift <= 31 (a constant). */
#if AP_ARM_DSP_NATIVE
#define ap_dsp_pkhbt(a, b, shift)                                                        \
    __extension__({                                                                     \
        uint32_t ap_r_;                                                                 \
        __asm__("pkhbt %0, %1, %2, lsl %3" : "=r"(ap_r_) : "r"((uint32_t)(a)),          \
                "r"((uint32_t)(b)), "I"(shift));                                        \
        ap_r_;                                                                          \
    })
#else
#define ap_dsp_pkhbt(a, b, shift) \
    ((((uint32_t)(a)) & 0xffffu) | ((((uint32_t)(b)) << (shift)) & 0xffff0000u))
#endif

/* PKHTB with ASR #16: high half of a, high half of b moved to the low half. */
static inline uint32_t ap_dsp_pkhtb16(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    uint32_t r;
    __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    return (a & 0xffff0000u) | (b >> 16);
#endif
}

/* SMLAD: acc + lo(a) * lo(b) + hi(a) * hi(b), wrapping in 32 bits (the Q flag is ignored). */
static inline int32_t ap_dsp_smlad(uint32_t a, uint32_t b, int32_t acc)
{
#if AP_ARM_DSP_NATIVE
    return __smlad((int32_t)a, (int32_t)b, acc);
#else
    return ap_dsp_wrap_add(ap_dsp_wrap_add(acc, ap_dsp_lo16(a) * ap_dsp_lo16(b)),
                           ap_dsp_hi16(a) * ap_dsp_hi16(b));
#endif
}

/* SMLALD: acc + lo(a) * lo(b) + hi(a) * hi(b) in 64 bits (exact for any int16 lanes while the
   sum stays within int64). */
static inline int64_t ap_dsp_smlald(uint32_t a, uint32_t b, int64_t acc)
{
#if AP_ARM_DSP_NATIVE
    return __smlald((int32_t)a, (int32_t)b, acc);
#else
    return acc + (int64_t)(ap_dsp_lo16(a) * ap_dsp_lo16(b)) + (int64_t)(ap_dsp_hi16(a) * ap_dsp_hi16(b));
#endif
}

/* SMLADX: acc + lo(a) * hi(b) + hi(a) * lo(b). */
static inline int32_t ap_dsp_smladx(uint32_t a, uint32_t b, int32_t acc)
{
#if AP_ARM_DSP_NATIVE
    return __smladx((int32_t)a, (int32_t)b, acc);
#else
    return ap_dsp_wrap_add(ap_dsp_wrap_add(acc, ap_dsp_lo16(a) * ap_dsp_hi16(b)),
                           ap_dsp_hi16(a) * ap_dsp_lo16(b));
#endif
}

/* SMUAD: lo(a) * lo(b) + hi(a) * hi(b), wrapping. */
static inline int32_t ap_dsp_smuad(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    return __smuad((int32_t)a, (int32_t)b);
#else
    return ap_dsp_wrap_add(ap_dsp_lo16(a) * ap_dsp_lo16(b), ap_dsp_hi16(a) * ap_dsp_hi16(b));
#endif
}

/* SMLABB, SMLABT, SMLATB, SMLATT: acc + one int16 half of a times one of b (B = low, T = high). */
static inline int32_t ap_dsp_smlabb(uint32_t a, uint32_t b, int32_t acc)
{
#if AP_ARM_DSP_NATIVE
    return __smlabb((int32_t)a, (int32_t)b, acc);
#else
    return ap_dsp_wrap_add(acc, ap_dsp_lo16(a) * ap_dsp_lo16(b));
#endif
}

static inline int32_t ap_dsp_smlabt(uint32_t a, uint32_t b, int32_t acc)
{
#if AP_ARM_DSP_NATIVE
    return __smlabt((int32_t)a, (int32_t)b, acc);
#else
    return ap_dsp_wrap_add(acc, ap_dsp_lo16(a) * ap_dsp_hi16(b));
#endif
}

static inline int32_t ap_dsp_smlatb(uint32_t a, uint32_t b, int32_t acc)
{
#if AP_ARM_DSP_NATIVE
    return __smlatb((int32_t)a, (int32_t)b, acc);
#else
    return ap_dsp_wrap_add(acc, ap_dsp_hi16(a) * ap_dsp_lo16(b));
#endif
}

static inline int32_t ap_dsp_smlatt(uint32_t a, uint32_t b, int32_t acc)
{
#if AP_ARM_DSP_NATIVE
    return __smlatt((int32_t)a, (int32_t)b, acc);
#else
    return ap_dsp_wrap_add(acc, ap_dsp_hi16(a) * ap_dsp_hi16(b));
#endif
}

/* SMMULR: the high word of a * b, rounded: floor((a * b + 2^31) / 2^32). */
static inline int32_t ap_dsp_smmulr(int32_t a, int32_t b)
{
#if AP_ARM_DSP_NATIVE
    int32_t r;
    __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 31)) >> 32);
#endif
}

/* CLZ: the leading zero bits of x, 32 for 0 (asm: GCC 12's <arm_acle.h> has no __clz). */
static inline int ap_dsp_clz(uint32_t x)
{
#if AP_ARM_DSP_NATIVE
    uint32_t r;
    __asm__("clz %0, %1" : "=r"(r) : "r"(x));
    return (int)r;
#else
    int n = 0;
    for (uint32_t bit = 0x80000000u; bit != 0 && (x & bit) == 0; bit >>= 1) {
        ++n;
    }
    return n;
#endif
}

/* gemmlowp's rounding doubling high multiply, floor((a * b + 2^30) / 2^31) (fixedpoint.h's
   ap_fp_rounding_doubling_high_mul: every (a, b) but (INT32_MIN, INT32_MIN)) as one SMLAL
   onto a 2^30 accumulator and two shifts: the C form's int64 product of two variables can
   compile to a 64 x 64 multiply. */
static inline int32_t ap_dsp_srdhm(int32_t a, int32_t b)
{
#if AP_ARM_DSP_NATIVE
    uint32_t lo = (uint32_t)1 << 30;
    uint32_t hi = 0;
    __asm__("smlal %0, %1, %2, %3" : "+r"(lo), "+r"(hi) : "r"(a), "r"(b));
    return (int32_t)((lo >> 31) | (hi << 1));
#else
    return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) >> 31);
#endif
}

/* SADD16 / SSUB16: lane-wise int16 add / subtract, wrapping. */
static inline uint32_t ap_dsp_sadd16(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    return (uint32_t)__sadd16((int32_t)a, (int32_t)b);
#else
    return ap_dsp_pack16(ap_dsp_lo16(a) + ap_dsp_lo16(b), ap_dsp_hi16(a) + ap_dsp_hi16(b));
#endif
}

static inline uint32_t ap_dsp_ssub16(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    return (uint32_t)__ssub16((int32_t)a, (int32_t)b);
#else
    return ap_dsp_pack16(ap_dsp_lo16(a) - ap_dsp_lo16(b), ap_dsp_hi16(a) - ap_dsp_hi16(b));
#endif
}

#if !AP_ARM_DSP_NATIVE
static inline int32_t ap_dsp_clamp(int32_t x, int32_t lo, int32_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}
#endif

/* QADD16 / QSUB16: lane-wise int16 add / subtract, saturating. */
static inline uint32_t ap_dsp_qadd16(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    return (uint32_t)__qadd16((int32_t)a, (int32_t)b);
#else
    return ap_dsp_pack16(ap_dsp_clamp(ap_dsp_lo16(a) + ap_dsp_lo16(b), -32768, 32767),
                         ap_dsp_clamp(ap_dsp_hi16(a) + ap_dsp_hi16(b), -32768, 32767));
#endif
}

static inline uint32_t ap_dsp_qsub16(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    return (uint32_t)__qsub16((int32_t)a, (int32_t)b);
#else
    return ap_dsp_pack16(ap_dsp_clamp(ap_dsp_lo16(a) - ap_dsp_lo16(b), -32768, 32767),
                         ap_dsp_clamp(ap_dsp_hi16(a) - ap_dsp_hi16(b), -32768, 32767));
#endif
}

/* QADD8: lane-wise int8 add, saturating. */
static inline uint32_t ap_dsp_qadd8(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    return (uint32_t)__qadd8((int32_t)a, (int32_t)b);
#else
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
        r |= ((uint32_t)(ap_dsp_clamp(ap_dsp_byte(a, i) + ap_dsp_byte(b, i), -128, 127) & 0xff)) << (8 * i);
    }
    return r;
#endif
}

/* SSAT #bits (1..32, a constant): x clamped to the signed range of `bits` bits. */
#if AP_ARM_DSP_NATIVE
#define ap_dsp_ssat(x, bits) ((int32_t)__ssat((int32_t)(x), (bits)))
#else
#define ap_dsp_ssat(x, bits)                                                               \
    ((bits) >= 32 ? (int32_t)(x)                                                           \
                  : ap_dsp_clamp((int32_t)(x), -(int32_t)(1u << ((bits) - 1)),             \
                                 (int32_t)((1u << ((bits) - 1)) - 1u)))
#endif

/* SSUB8 then SEL: the lane-wise maximum of four int8 lanes (SSUB8 sets each lane's GE flag
   where a >= b, SEL takes that lane from a, else from b); one asm block, so nothing runs
   between the two. */
static inline uint32_t ap_dsp_max8(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    uint32_t r;
    __asm__("ssub8 %0, %1, %2\n\t"
            "sel %0, %1, %2"
            : "=&r"(r) : "r"(a), "r"(b) : "cc");
    return r;
#else
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
        const int32_t x = ap_dsp_byte(a, i), y = ap_dsp_byte(b, i);
        r |= ((uint32_t)(x >= y ? x : y) & 0xffu) << (8 * i);
    }
    return r;
#endif
}

/* The lane-wise minimum, as ap_dsp_max8 with SEL's operands swapped. */
static inline uint32_t ap_dsp_min8(uint32_t a, uint32_t b)
{
#if AP_ARM_DSP_NATIVE
    uint32_t r;
    __asm__("ssub8 %0, %1, %2\n\t"
            "sel %0, %2, %1"
            : "=&r"(r) : "r"(a), "r"(b) : "cc");
    return r;
#else
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
        const int32_t x = ap_dsp_byte(a, i), y = ap_dsp_byte(b, i);
        r |= ((uint32_t)(x >= y ? y : x) & 0xffu) << (8 * i);
    }
    return r;
#endif
}

#endif
