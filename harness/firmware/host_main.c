/*
 * Host test program for an exported model: reads samples (every input back to back,
 * repeated) from argv[1], runs the model once per sample and writes the outputs (every
 * output back to back, repeated) to argv[2]. Exit status 0, or the first failing status.
 */
#include <stdio.h>
#include <stdlib.h>

#include "io.h"

void ap_io_report(int status, long long op, const char *message)
{
    fprintf(stderr, "invoke failed: status %d at op %lld: %s\n", status, op, message);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s INPUTS OUTPUTS\n", argv[0]);
        return 64;
    }
    size_t in_total = 0, out_total = 0;
    for (unsigned i = 0; i < ap_io_input_count; i++) {
        in_total += ap_io_input_bytes[i];
    }
    for (unsigned i = 0; i < ap_io_output_count; i++) {
        out_total += ap_io_output_bytes[i];
    }
    FILE *in = fopen(argv[1], "rb");
    FILE *out = fopen(argv[2], "wb");
    unsigned char *x = malloc(in_total + 1), *y = malloc(out_total + 1);
    const void *inputs[16];
    void *outputs[16];
    if (in == NULL || out == NULL || x == NULL || y == NULL || ap_io_input_count > 16 ||
        ap_io_output_count > 16) {
        fprintf(stderr, "cannot open files or allocate\n");
        return 65;
    }
    for (unsigned i = 0, at = 0; i < ap_io_input_count; at += ap_io_input_bytes[i], i++) {
        inputs[i] = x + at;
    }
    for (unsigned i = 0, at = 0; i < ap_io_output_count; at += ap_io_output_bytes[i], i++) {
        outputs[i] = y + at;
    }
    while (fread(x, 1, in_total, in) == in_total) {
        int status = ap_io_invoke(inputs, outputs);
        if (status != 0) {
            fprintf(stderr, "invoke failed: status %d\n", status);
            return status;
        }
        fwrite(y, 1, out_total, out);
    }
    fclose(in);
    return fclose(out) == 0 ? 0 : 66;
}
