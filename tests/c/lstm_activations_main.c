/*
 * Every int16 input through the LSTM gate activations (csrc/runtime/fixedpoint_int16.h and, when
 * the CPU has it, the AVX2 versions in lstm_s8_avx2.c), written to stdout as raw int16 so
 * tests/c/test_lstm.py can compare them, all 65536 of each, with the NumPy reference.
 * Output: a 4-byte count of AVX2 tables that follow the portable ones (0 or 1), then the
 * portable tables (sigmoid Q3.12, then tanh with 0..6 integer bits), then the same from AVX2.
 */
#include <stdint.h>
#include <stdio.h>

#include "arenaplan/kernel.h"
#include "fixedpoint_int16.h"
#include "ops_s8_common.h"
#include "ops_s8_dispatch.h"

enum { COUNT = 65536, TABLES = 8 };

static int16_t table[TABLES][COUNT];

static void write_tables(void)
{
    fwrite(table, sizeof(int16_t), (size_t)TABLES * COUNT, stdout);
}

int main(void)
{
    const int32_t avx2 = AP_OPS_HAVE_AVX2 && ap_cpu_detect() >= AP_CPU_AVX2;
    fwrite(&avx2, sizeof(avx2), 1, stdout);
    for (int32_t i = 0; i < COUNT; ++i) {
        table[0][i] = ap_fp16_sigmoid_q3(i - 32768);
        for (int ib = 0; ib <= 6; ++ib) {
            table[1 + ib][i] = ap_fp16_tanh(i - 32768, ib);
        }
    }
    write_tables();
#if AP_OPS_HAVE_AVX2
    if (avx2) {
        for (int32_t i = 0; i < COUNT; i += 16) {
            for (int t = 0; t < TABLES; ++t) {
                for (int32_t j = 0; j < 16; ++j) {
                    table[t][i + j] = (int16_t)(i + j - 32768);
                }
            }
            ap_lstm_sigmoid16_avx2(&table[0][i]);
            for (int ib = 0; ib <= 6; ++ib) {
                ap_lstm_tanh16_avx2(&table[1 + ib][i], ib);
            }
        }
        write_tables();
    }
#endif
    return 0;
}
