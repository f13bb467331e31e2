/* Reads layers from stdin and writes, per layer, ap_dsp_requant_mode's decision (requant_arm_dsp.h:
   AP_DSP_REQUANT_FAST when every output takes the fast requantisation, AP_DSP_REQUANT_WIDE
   when every output takes the wide one, else AP_DSP_REQUANT_GENERAL). A
   layer is 8 int64 words: n, step, products, per_product, act_min, act_max and two unused; then
   n biases, n multipliers and n shifts as int32.
   Built by tests/c/test_fixedpoint.py. */
#include <stdint.h>
#include <stdio.h>

#include "requant_arm_dsp.h"

#define MAX_CHANNELS 64

int main(void)
{
    int64_t head[8];
    int32_t bias[MAX_CHANNELS], multiplier[MAX_CHANNELS], shift[MAX_CHANNELS];
    while (fread(head, sizeof(head), 1, stdin) == 1) {
        const size_t n = (size_t)head[0];
        if (n < 1 || n > MAX_CHANNELS || fread(bias, sizeof(int32_t), n, stdin) != n ||
            fread(multiplier, sizeof(int32_t), n, stdin) != n || fread(shift, sizeof(int32_t), n, stdin) != n) {
            return 2;
        }
        const int32_t mode = ap_dsp_requant_mode(bias, multiplier, shift, (size_t)head[1], n, (uint64_t)head[2],
                                                 (uint64_t)head[3], (int32_t)head[4], (int32_t)head[5]);
        if (fwrite(&mode, sizeof(mode), 1, stdout) != 1) {
            return 1;
        }
    }
    return 0;
}
