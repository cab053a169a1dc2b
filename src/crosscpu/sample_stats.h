/*
 * Order statistics of a batch of measured values (cycles or ns), as the
 * cross-CPU measurements report them: min, median, p99, max and mean. The
 * batches are small (one per pair or CPU and round), so they are kept whole
 * and sorted: every figure is exact.
 */
#ifndef JITTERLAB_CROSSCPU_SAMPLE_STATS_H
#define JITTERLAB_CROSSCPU_SAMPLE_STATS_H

#include <stddef.h>
#include <stdint.h>

struct sample_summary {
    size_t n;
    uint64_t min, median, p99, max; /* median and p99: nearest rank */
    double mean;
};

/* Sorts v[0..n) in place and summarises it; all zero when n == 0. */
void sample_summary_u64(uint64_t *v, size_t n, struct sample_summary *out);
/* The nearest-rank quantile q in [0, 1] of sorted v[0..n); 0 when n == 0. */
uint64_t sorted_quantile_u64(const uint64_t *v, size_t n, double q);
/* The same for doubles (sorts v in place first). */
double quantile_double(double *v, size_t n, double q);

#endif
