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

/** A kernel variant that applies to given shapes. */
typedef struct ap_variant {
    int32_t kind;             /* op-specific enum value (e.g. AP_CONV2D_IM2COL_ROWS) */
    int32_t param;            /* kind-specific parameter (e.g. output rows per block), 0 if none */
    char name[32];            /* stable name, e.g. "direct", "im2col_rows_8" */
    uint32_t scratch_count;   /* <= AP_MAX_SCRATCH */
    ap_scratch_request scratch[4];
    uint64_t macs;            /* multiply-accumulates of one run */
    int32_t in_place;         /* 1 if the output may be written over the input */
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
    AP_DTYPE_INT32 = 2
} ap_dtype;

/** CPU features the kernels may dispatch on. */
typedef enum ap_cpu_feature {
    AP_CPU_PORTABLE = 0,
    AP_CPU_AVX2 = 1
} ap_cpu_feature;

/**
 * The best SIMD level this CPU supports and the kernels were built with
 * (cached after the first call). The runtime chooses SIMD variants with it.
 */
ap_cpu_feature ap_cpu_detect(void);

/**
 * Limit SIMD dispatch to at most `feature` (AP_CPU_PORTABLE forces portable C),
 * so tests can compare paths. Returns the level now in force.
 */
ap_cpu_feature ap_cpu_limit(ap_cpu_feature feature);

#ifdef __cplusplus
}
#endif
#endif
