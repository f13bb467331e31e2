/* The instruction sets: names, what this build compiles, what this CPU runs. */
#include "arenaplan/kernel.h"

#include "isa.h"
#include "ops_s8_common.h"

/* The detected level is a pure function of the CPU, so caching it is not
   "state" in the sense that matters: every call returns the same value. The
   limit exists only for tests that check that a missing ISA is refused. */
static int ap_cpu_detected = -1;
static int ap_cpu_ceiling = AP_CPU_AVX2;

static int ap_cpu_probe(void)
{
#if AP_HAVE_X86_AVX2
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

const char *ap_isa_name(int32_t isa)
{
    switch (isa) {
    case AP_ISA_PORTABLE: return "portable";
    case AP_ISA_X86_AVX2: return "x86-avx2";
    case AP_ISA_ARM_DSP: return "arm-dsp";
    default: return NULL;
    }
}

int32_t ap_isa_compiled(int32_t isa)
{
    switch (isa) {
    case AP_ISA_PORTABLE: return 1;
    case AP_ISA_X86_AVX2: return AP_HAVE_X86_AVX2;
    case AP_ISA_ARM_DSP: return 1;  /* natively on a DSP core, else its C definitions (arm_dsp.h) */
    default: return 0;
    }
}

int32_t ap_isa_available(int32_t isa)
{
    if (!ap_isa_compiled(isa)) {
        return 0;
    }
    return isa == AP_ISA_X86_AVX2 ? ap_cpu_detect() >= AP_CPU_AVX2 : 1;
}

int32_t ap_isa_runs_as(int32_t isa)
{
    return ap_isa_available(isa) ? isa : -1;
}

ap_isa ap_isa_detect(void)
{
    if (ap_isa_available(AP_ISA_X86_AVX2)) {
        return AP_ISA_X86_AVX2;
    }
    /* arm-dsp off a DSP core is its instructions' C definitions: correct, never the fastest */
    return AP_HAVE_ARM_DSP ? AP_ISA_ARM_DSP : AP_ISA_PORTABLE;
}

ap_status ap_isa_check(int32_t isa, const char *what, ap_error *error_out)
{
    const char *name = ap_isa_name(isa);
    if (name == NULL) {
        return AP_OPS_INVALID(error_out, "%s: %d is not an instruction set (ap_isa)", what, (int)isa);
    }
    if (ap_isa_available(isa)) {
        return AP_OK;
    }
    return AP_OPS_UNSUPPORTED(error_out, "%s: the variant's instruction set %s %s; this host runs %s", what,
                              name, ap_isa_compiled(isa) ? "is not supported by this CPU"
                                                         : "is not compiled into this build",
                              ap_isa_name(ap_isa_detect()));
}
