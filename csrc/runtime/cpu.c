/* Run-time CPU feature detection for SIMD kernel dispatch. */
#include "arenaplan/kernel.h"

/* The detected level is a pure function of the CPU, so caching it is not
   "state" in the sense that matters: every call returns the same value. The
   limit exists only for tests that compare the portable and SIMD paths. */
static int ap_cpu_detected = -1;
static int ap_cpu_ceiling = AP_CPU_AVX2;

static int ap_cpu_probe(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        return AP_CPU_AVX2;
    }
#endif
    return AP_CPU_PORTABLE;
}

ap_cpu_feature ap_cpu_detect(void)
{
    if (ap_cpu_detected < 0) {
        ap_cpu_detected = ap_cpu_probe();
    }
    return (ap_cpu_feature)(ap_cpu_detected < ap_cpu_ceiling ? ap_cpu_detected : ap_cpu_ceiling);
}

ap_cpu_feature ap_cpu_limit(ap_cpu_feature feature)
{
    ap_cpu_ceiling = (int)feature;
    return ap_cpu_detect();
}
