/*
 * SysTick calibration of a board under QEMU -icount shift=0: times loops of exactly
 * 2 * n instructions (subs + bne per iteration) for two n, printing one line each:
 *   loop <instructions> <ticks>
 * and "done". The difference of the two cancels the timing's own instructions.
 */
#include <stdint.h>
#include <stdio.h>

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

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

static __attribute__((noinline)) void ap_spin(uint32_t n)
{
    __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

int main(void)
{
    static const uint32_t counts[2] = {1000000u, 3000000u};
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 7u;
    /* the counter reads 0 until its first reload: start timing after that */
    ap_spin(1000u);
    for (unsigned i = 0; i < 2; i++) {
        uint64_t t0 = ap_ticks();
        ap_spin(counts[i]);
        uint64_t t1 = ap_ticks();
        printf("loop %lu %llu\n", (unsigned long)(2u * counts[i]), (unsigned long long)(t1 - t0));
    }
    printf("done\n");
    return 0;
}
