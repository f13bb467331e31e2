/* Reads (x, multiplier, shift) int32 triples from stdin and writes, per triple, the two
   requantising multiplies of fixedpoint.h: the general one and (for multiplier >= 0, else the
   general one again) the non-negative one; then the int8 output of the arm-dsp kernels' fast
   requantisation (requant_arm_dsp.h) with offset (int8_t)x, where its layers' conditions hold
   (multiplier >= 0, shift <= 0, |x| < 2^30), else the general one's, offset and clamped the
   same; then the wide form's output (ap_dsp_requant_wide) where its layers' conditions hold
   (multiplier >= 0, shift in [-31, 0]: any x), else again the general one's. Built by tests/c/test_fixedpoint.py for the host and, where a cross compiler is
   installed, for Thumb-2 under qemu-arm (whose DSP instructions the fast one then uses). */
#include <stdint.h>
#include <stdio.h>

#include "fixedpoint.h"
#include "requant_arm_dsp.h"

int main(void)
{
    int32_t in[3 * 1024], out[4 * 1024];
    size_t n;
    while ((n = fread(in, sizeof(int32_t) * 3, 1024, stdin)) > 0) {
        for (size_t i = 0; i < n; ++i) {
            const int32_t x = in[3 * i], m = in[3 * i + 1], s = in[3 * i + 2];
            const int32_t off = (int32_t)(int8_t)(uint8_t)((uint32_t)x & 0xffu);
            const int64_t general = (int64_t)ap_fp_multiply_by_quantized_multiplier(x, m, s) + off;
            const int32_t general_int8 = (int32_t)(general < -128 ? -128 : general > 127 ? 127 : general);
            out[4 * i] = ap_fp_multiply_by_quantized_multiplier(x, m, s);
            out[4 * i + 1] = m >= 0 ? ap_fp_multiply_by_nonneg_multiplier(x, m, s) : out[4 * i];
            if (m >= 0 && s <= 0 && x > -(1 << 30) && x < (1 << 30)) {
                out[4 * i + 2] = ap_dsp_requant_fast(x, m, s, off);
            } else {
                out[4 * i + 2] = general_int8;
            }
            if (m >= 0 && s <= 0 && s >= -31) {
                out[4 * i + 3] = ap_dsp_requant_wide(x, m, s, off);
            } else {
                out[4 * i + 3] = general_int8;
            }
        }
        if (fwrite(out, sizeof(int32_t) * 4, n, stdout) != n) {
            return 1;
        }
    }
    return 0;
}
