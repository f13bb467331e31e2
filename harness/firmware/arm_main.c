/*
 * Firmware test program for an exported model under QEMU: runs the embedded samples,
 * printing through semihosting, one line each:
 *   out <sample> <hex of every output, back to back>
 *   ticks <sample> <SysTick ticks of the invoke>   (with -icount shift=0: the board's instructions a tick, build.BOARDS)
 *   stack <bytes>   (deepest stack the invokes touched, measured by painting)
 * and ends with "done"; the exit status is 0, or the first failing ap_status.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "stack_paint.h"

void ap_io_report(int status, long long op, const char *message)
{
    printf("error status %d at op %lld%s%s\n", status, op, message[0] ? ": " : "", message);
}

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

enum { AP_PAINT_BYTES = 64 * 1024, AP_PAINT_GAP = 256 };

extern volatile uint32_t ap_systick_wraps;

static uint64_t ap_ticks(void)
{
    uint32_t wraps, cvr;
    do {
        wraps = ap_systick_wraps;
        cvr = SYST_CVR;
    } while (wraps != ap_systick_wraps);
    return (uint64_t)wraps * 0x1000000u + (0xFFFFFFu - cvr);
}

static uint8_t ap_outputs_buffer[4096];

int main(void)
{
    const void *inputs[16];
    void *outputs[16];
    size_t in_total = 0, out_total = 0;
    for (unsigned i = 0; i < ap_io_output_count; i++) {
        outputs[i] = ap_outputs_buffer + out_total;
        out_total += ap_io_output_bytes[i];
    }
    if (ap_io_input_count > 16 || ap_io_output_count > 16 || out_total > sizeof(ap_outputs_buffer)) {
        printf("error too many inputs or outputs\n");
        return 70;
    }
    for (unsigned i = 0; i < ap_io_input_count; i++) {
        in_total += ap_io_input_bytes[i];
    }
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 7u; /* processor clock, interrupt on wrap, enable */

    size_t stack = 0;
    /* Measured from main's sp at the call: everything the invoke's call chain pushes. */
    for (unsigned s = 0; s < ap_io_samples; s++) {
        const uint8_t *x = ap_io_sample_data + (size_t)s * in_total;
        for (unsigned i = 0, at = 0; i < ap_io_input_count; at += ap_io_input_bytes[i], i++) {
            inputs[i] = x + at;
        }
        uintptr_t sp = ap_sp();
        uintptr_t top = ap_stack_paint(AP_PAINT_BYTES, AP_PAINT_GAP);
        uint64_t t0 = ap_ticks();
        int status = ap_io_invoke(inputs, outputs);
        uint64_t t1 = ap_ticks();
        size_t used = ap_stack_used(sp, top, AP_PAINT_BYTES);
        if (used > stack) {
            stack = used;
        }
        if (status != 0) {
            printf("error invoke status %d\n", status);
            return status;
        }
        printf("out %u ", s);
        for (size_t b = 0; b < out_total; b++) {
            printf("%02x", ap_outputs_buffer[b]);
        }
        printf("\nticks %u %llu\n", s, (unsigned long long)(t1 - t0));
    }
    printf("stack %u\n", (unsigned)stack);
    printf("done\n");
    return 0;
}
