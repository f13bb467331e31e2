/*
 * Minimal Cortex-M startup for QEMU's MPS2/MPS3 boards (mps2-an386: Cortex-M4,
 * mps2-an500: Cortex-M7, mps2-an505: Cortex-M33 and mps3-an547: Cortex-M55, both booting
 * secure with the table at 0x10000000): a 16-entry vector table, a reset handler that
 * enables the FPU and calls newlib's _start (rdimon crt0: zeroes .bss, sets up
 * semihosting, calls main, exit), a SysTick handler that counts wraps of the 24-bit
 * counter, and fault handlers that end the emulation through semihosting instead of
 * hanging.
 */
#include <stdint.h>

extern void _start(void);
extern uint32_t __stack_top;

volatile uint32_t ap_systick_wraps;

static void ap_semihost_exit_fault(void)
{
    /* SYS_EXIT with ADP_Stopped_RunTimeErrorUnknown: QEMU exits with status 1. */
    register uint32_t r0 __asm__("r0") = 0x18;
    register uint32_t r1 __asm__("r1") = 0x20023;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    for (;;) {
    }
}

void ap_reset_handler(void)
{
    /* CPACR: full access to CP10 and CP11 (the FPU) before any floating-point code. */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    _start();
    ap_semihost_exit_fault();
}

void ap_fault_handler(void)
{
    ap_semihost_exit_fault();
}

void ap_systick_handler(void)
{
    ap_systick_wraps++;
}

__attribute__((section(".vectors"), used)) void *const ap_vectors[16] = {
    &__stack_top,          /* 0: initial stack pointer */
    ap_reset_handler,      /* 1: reset */
    ap_fault_handler,      /* 2: NMI */
    ap_fault_handler,      /* 3: HardFault */
    ap_fault_handler,      /* 4: MemManage */
    ap_fault_handler,      /* 5: BusFault */
    ap_fault_handler,      /* 6: UsageFault */
    0, 0, 0, 0,            /* 7-10: reserved */
    ap_fault_handler,      /* 11: SVCall */
    ap_fault_handler,      /* 12: DebugMonitor */
    0,                     /* 13: reserved */
    ap_fault_handler,      /* 14: PendSV */
    ap_systick_handler,    /* 15: SysTick */
};
