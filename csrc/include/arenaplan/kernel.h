/*
 * Types shared by every kernel family: variant descriptors and scratch.
 *
 * A kernel declares, the planner decides, the kernel consumes:
 *   ap_<op>_s8_variants()  lists the variants that apply to an op's shapes, from
 *                          least to most scratch (the first is the minimum needed);
 *   ap_<op>_s8_run()       runs one variant with the scratch buffers the planner
 *                          placed, after checking their sizes.
 * Every variant of an op gives bit-identical output.
 */
#ifndef ARENAPLAN_KERNEL_H
#define ARENAPLAN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most scratch buffers one variant may request. */
enum { AP_MAX_SCRATCH = 4 };
/** Most variants one op may offer. */
enum { AP_MAX_VARIANTS = 16 };

/** One scratch buffer a variant asks for. */
typedef struct ap_scratch_request {
    size_t bytes;      /* > 0 */
    size_t alignment;  /* power of two */
} ap_scratch_request;

/**
 * Instruction sets: the code a kernel variant runs (stable values, append-only; arm-mve for
 * Cortex-M55/M85 and x86-vnni come next, as 3 and 4). A variant record carries its ISA, a
 * prepared blob's header records the ISA it was packed for, and run() executes that ISA's
 * code or returns AP_ERR_UNSUPPORTED when this build or this CPU lacks it.
 */
typedef enum ap_isa {
    AP_ISA_PORTABLE = 0,   /* plain C99, any target */
    AP_ISA_X86_AVX2 = 1,   /* x86-64 with AVX2 and FMA */
    AP_ISA_ARM_DSP = 2     /* Cortex-M4/M7/M33 with the DSP extension; compiled into every build,
                              natively on those cores and as the instructions' C definitions
                              elsewhere, so a Cortex-M plan runs bit for bit on any host */
} ap_isa;

/**
 * The rounding rule an op reproduces where its references differ (stable values): the params
 * field `reference` of FULLY_CONNECTED (and, when it comes, the integer LSTM's). Every ISA's
 * kernels give the same bits for either.
 */
typedef enum ap_reference {
    AP_REFERENCE_LITERT = 0,   /* LiteRT 2.3's reference kernels (FULLY_CONNECTED: double scales) */
    AP_REFERENCE_TFLM = 1      /* TensorFlow Lite Micro / CMSIS-NN: fixed point throughout */
} ap_reference;

/** A kernel variant that applies to given shapes. */
typedef struct ap_variant {
    int32_t kind;             /* op-specific enum value (e.g. AP_CONV2D_IM2COL_ROWS) */
    int32_t param;            /* kind-specific parameter (e.g. output rows per block), 0 if none */
    char name[32];            /* stable name: the family, then "_<param>" when param != 0
                                 ("direct", "im2col_rows_12") */
    uint32_t scratch_count;   /* <= AP_MAX_SCRATCH */
    ap_scratch_request scratch[4];
    uint64_t macs;            /* multiply-accumulates of one run */
    int32_t in_place;         /* 1 if the output may be written over the input */
    int32_t isa;              /* the ap_isa whose code this variant runs */
    char family[32];          /* the kind's name, without the param ("im2col_rows") */
} ap_variant;

/** A scratch buffer handed to a kernel: {base pointer, bytes available}. */
typedef struct ap_scratch {
    void *data;
    size_t bytes;
} ap_scratch;

/** Requantisation of int32 accumulators to int8, TFLite reference semantics. */
typedef struct ap_requant {
    const int32_t *multiplier;  /* per output channel (or one, see per_channel), Q31 */
    const int32_t *shift;       /* per output channel: > 0 left shift, < 0 right shift */
    int32_t per_channel;        /* 1: arrays have out_c entries; 0: one entry */
    int32_t output_offset;      /* output zero point */
    int32_t activation_min;     /* clamp, within [-128, 127] */
    int32_t activation_max;
} ap_requant;

/**
 * Integer element types of the tensors a kernel reads or writes where an op takes more than
 * one (stable values; 0 is int8, so a zero-initialised params struct means int8).
 */
typedef enum ap_dtype {
    AP_DTYPE_INT8 = 0,
    AP_DTYPE_INT16 = 1,
    AP_DTYPE_INT32 = 2,
    AP_DTYPE_INT64 = 3,    /* ARG_MAX / ARG_MIN and SHAPE outputs */
    AP_DTYPE_FLOAT32 = 4,  /* CAST outputs */
    AP_DTYPE_BOOL = 5,     /* CAST outputs (one byte, 0 or 1) */
    AP_DTYPE_UINT8 = 6     /* REQUANTIZE's int8 <-> uint8 */
} ap_dtype;

/** CPU features the kernels may dispatch on. */
typedef enum ap_cpu_feature {
    AP_CPU_PORTABLE = 0,
    AP_CPU_AVX2 = 1
} ap_cpu_feature;

/**
 * The best SIMD level this CPU supports and the kernels were built with (cached after the
 * first call), within ap_cpu_limit. Kernels do not dispatch on it: they run the ISA their
 * variant names; it only says which ISAs this CPU has (ap_isa_available).
 */
ap_cpu_feature ap_cpu_detect(void);

/**
 * Make this CPU look as if it had at most `feature` (AP_CPU_PORTABLE: no AVX2), so tests can
 * check that an x86-avx2 variant is refused where the CPU lacks AVX2. Returns the level now
 * in force.
 */
ap_cpu_feature ap_cpu_limit(ap_cpu_feature feature);

/** The stable name of an ISA ("portable", "x86-avx2", "arm-dsp"), or NULL for an unknown value. */
const char *ap_isa_name(int32_t isa);

/** 1 when this build holds code for `isa`, else 0 (unknown values: 0). */
int32_t ap_isa_compiled(int32_t isa);

/** 1 when this build holds code for `isa` and this CPU runs it, else 0. */
int32_t ap_isa_available(int32_t isa);

/**
 * The ISA whose code gives `isa`'s variants, bit for bit, on this host: `isa` itself where it
 * is available (arm-dsp always is: natively or by its instructions' C definitions); -1 when
 * this host cannot run it.
 */
int32_t ap_isa_runs_as(int32_t isa);

/** The best ISA this build and CPU run natively (x86-avx2, arm-dsp on a DSP core, else portable). */
ap_isa ap_isa_detect(void);

/**
 * AP_OK when `isa` can run here; otherwise AP_ERR_UNSUPPORTED (not compiled into this build,
 * or this CPU lacks it) or AP_ERR_INVALID_ARGUMENT (not an ISA), with a message naming `isa`
 * and the best ISA this host runs; `what` (e.g. "conv2d") starts the message.
 */
ap_status ap_isa_check(int32_t isa, const char *what, ap_error *error_out);

#ifdef __cplusplus
}
#endif
#endif
