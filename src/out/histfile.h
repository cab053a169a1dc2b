/*
 * The cyclictest -h histogram text format, so that existing plotting scripts
 * (OSADL's latency plots, gnuplot recipes) read jitterlab's results unchanged.
 */
#ifndef JITTERLAB_OUT_HISTFILE_H
#define JITTERLAB_OUT_HISTFILE_H

#include <stdint.h>

#include "out/report.h"

/* One thread's column: its exact 1 us histogram (rows entries) and the
 * record numbers of its overflows (min(us_overflow, rows) of them). */
struct histfile_column {
    int cpu;
    uint64_t count; /* values; 0: Min/Avg/Max print 0 */
    int64_t min_ns;
    double mean_ns;
    int64_t max_ns;
    const uint64_t *us_hist;
    uint64_t us_overflow;
    const uint64_t *overflow_at;
};

/* Writes the file atomically; 0 or -1 with errno set. pm_qos_us < 0: no
 * cpu_dma_latency line. */
int histfile_write_columns(const struct histfile_column *col, int n, uint32_t rows,
                           int64_t pm_qos_us, const char *path);
/* A run's file: one column per CPU from the engine's results. */
int histfile_write(const struct run_report *rep, const char *path);

#endif
