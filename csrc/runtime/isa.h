/*
 * Which instruction sets this build compiles code for: the one place that decides it
 * (cpu.c, the kernels' internal headers and every *_avx2.c file read these macros).
 * Not a public header.
 */
#ifndef ARENAPLAN_ISA_H
#define ARENAPLAN_ISA_H

/* x86-avx2 code is compiled (with a per-function target attribute, never a global -mavx2)
   wherever GCC-style x86 intrinsics exist; it runs only where the CPU has AVX2 and FMA. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define AP_HAVE_X86_AVX2 1
#else
#define AP_HAVE_X86_AVX2 0
#endif

/* arm-dsp natively: a Cortex-M build for a core with the DSP extension (-mcpu=cortex-m4/m7/
   m33), where the compiler itself says so. The arm-dsp kernels compile everywhere (arm_dsp.h
   defines their instructions in C off such a core); this says whether they are native. */
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#define AP_HAVE_ARM_DSP 1
#else
#define AP_HAVE_ARM_DSP 0
#endif

#endif
