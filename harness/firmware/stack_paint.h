/*
 * The stack a run touches, measured by painting (the firmware mains arm_main.c and
 * dsp_cases_main.c): paint `bytes` below the caller's frame less `gap`, run, then find the
 * lowest painted word overwritten.
 */
#ifndef AP_FIRMWARE_STACK_PAINT_H
#define AP_FIRMWARE_STACK_PAINT_H

#include <stddef.h>
#include <stdint.h>

static const uint32_t ap_paint_word = 0xA5C3E1F0u;

/* Paint the stack below this function's frame; return the painted range's top. */
static __attribute__((noinline)) uintptr_t ap_stack_paint(size_t bytes, size_t gap)
{
    volatile uint32_t here = 0;
    uintptr_t top = ((uintptr_t)&here - gap) & ~(uintptr_t)3;
    for (uintptr_t a = top - bytes; a < top; a += 4) {
        *(volatile uint32_t *)a = ap_paint_word;
    }
    return top;
}

/* Bytes of stack used below `sp`: down to the lowest painted word overwritten since (sp - top
   when the run stayed above the painted range: an upper bound then). */
static size_t ap_stack_used(uintptr_t sp, uintptr_t top, size_t bytes)
{
    uintptr_t a = top - bytes;
    while (a < top && *(volatile uint32_t *)a == ap_paint_word) {
        a += 4;
    }
    return (size_t)(sp - a);
}

static inline uintptr_t ap_sp(void)
{
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

#endif
