/*
 * What a test program needs to know about one exported model, written per model by
 * harness/firmware/build.py (io.c): byte counts of the inputs and outputs, the entry
 * point, and (firmware only) the test inputs embedded in the image.
 */
#ifndef ARENAPLAN_TEST_IO_H
#define ARENAPLAN_TEST_IO_H

#include <stddef.h>
#include <stdint.h>

extern const unsigned ap_io_input_count;
extern const unsigned ap_io_output_count;
extern const size_t ap_io_input_bytes[];
extern const size_t ap_io_output_bytes[];
/* Runs the exported model: <name>_invoke. */
int ap_io_invoke(const void *const *inputs, void *const *outputs);

/* Prints a failed invoke's status, op and message (each main defines it). */
void ap_io_report(int status, long long op, const char *message);

/* Embedded test inputs (firmware): ap_io_samples runs, each all inputs back to back. */
extern const unsigned ap_io_samples;
extern const uint8_t ap_io_sample_data[];

#endif
