/*
 * Reading back a samples file (`run --samples`, docs/result-schema.md
 * "Samples file"): the header `cpu,t_ns,latency_ns` (and the columns a
 * workload or counters add, read over), then one line per sample, the lines of one CPU in time
 * order. The reader keeps per CPU the latencies in file order (the exact sample sequence of the
 * tail analysis). Input is untrusted: a bad header, a bad line (which line and why), negative or
 * absurd values, a CPU the result does not have, a CPU out of time order and a row count other than
 * the result's are refused; memory grows with the rows the result announces, never beyond them.
 */
#ifndef JITTERLAB_OUT_SAMPLES_READ_H
#define JITTERLAB_OUT_SAMPLES_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Rows this reader takes (all CPUs): 512 MiB of latencies, a day at 1 ms
 * on 7 CPUs. */
#define SAMPLES_READ_MAX_ROWS (UINT64_C(64) * 1024 * 1024)
/* The longest line: eight numbers (with a workload and counters) of at
 * most 20 characters and their commas. */
#define SAMPLES_READ_MAX_LINE 176
/* expected: any count of rows (up to the cap), not checked. */
#define SAMPLES_ANY_ROWS UINT64_MAX

struct samples_cpu {
    int cpu;
    uint64_t expected; /* rows the result holds: samples - ring_drops */
    size_t n, cap;
    int64_t *latency_ns; /* in file order, which is time order */
    int64_t last_t_ns;
};

struct samples_data {
    size_t ncpus;
    struct samples_cpu *cpus;
    uint64_t rows;
};

/* The CPUs the file may hold, each with its expected row count
 * (SAMPLES_ANY_ROWS: not checked). 0, or -1 with err (out of memory, a
 * CPU id out of range or twice, more rows than max_rows announced). */
int samples_data_init(struct samples_data *d, const int *cpus, const uint64_t *expected, size_t n,
                      uint64_t max_rows, char *err, size_t errlen);

/* Reads the whole stream into d (after samples_data_init), at most
 * max_rows rows. 0, or -1 with err ("line 7: ..."); d is then freed. */
int samples_read_stream(FILE *f, struct samples_data *d, uint64_t max_rows, char *err,
                        size_t errlen);

/* The regular file path through samples_read_stream, at most
 * SAMPLES_READ_MAX_ROWS rows. */
int samples_read_file(const char *path, struct samples_data *d, char *err, size_t errlen);

void samples_data_free(struct samples_data *d);

#endif
