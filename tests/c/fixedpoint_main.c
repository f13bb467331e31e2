/* Reads (x, multiplier, shift) int32 triples from stdin and writes, per triple, the two
   requantising multiplies of fixedpoint.h: the general one and (for multiplier >= 0, else the
   general one again) the non-negative one. Built by tests/c/test_fixedpoint.py for the host
   and, where a cross compiler is installed, for Thumb-2 under qemu-arm. */
#include <stdint.h>
#include <stdio.h>

#include "fixedpoint.h"

int main(void)
{
    int32_t in[3 * 1024], out[2 * 1024];
    size_t n;
    while ((n = fread(in, sizeof(int32_t) * 3, 1024, stdin)) > 0) {
        for (size_t i = 0; i < n; ++i) {
            const int32_t x = in[3 * i], m = in[3 * i + 1], s = in[3 * i + 2];
            out[2 * i] = ap_fp_multiply_by_quantized_multiplier(x, m, s);
            out[2 * i + 1] = m >= 0 ? ap_fp_multiply_by_nonneg_multiplier(x, m, s) : out[2 * i];
        }
        if (fwrite(out, sizeof(int32_t) * 2, n, stdout) != n) {
            return 1;
        }
    }
    return 0;
}
