/*
 * Synthetic latency data for the tail tests and the tail bench: a base
 * latency plus a generalized Pareto tail, drawn with the tests' PRNG and
 * put through the product's histogram (stats/histogram.h), so the fit
 * sees the same 1 % buckets a run writes.
 */
#ifndef JITTERLAB_TEST_TAIL_GEN_H
#define JITTERLAB_TEST_TAIL_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats/histogram.h"
#include "stats/tail.h"
#include "test_rng.h"

/* base + GPD(xi, sigma), rounded to whole ns. */
static inline int64_t gen_gpd_value(uint64_t *rng, int64_t base_ns, double xi, double sigma_ns)
{
    double u = rng_unit(rng);
    double x = fabs(xi) < 1e-12 ? -sigma_ns * log(u) : sigma_ns * expm1(-xi * log(u)) / xi;
    return base_ns + (int64_t)floor(x);
}

/* The histogram of values as bins (the non-empty buckets); returns the
 * count of bins written to bins (room for LATENCY_HIST_BUCKETS). */
static inline size_t gen_bins(const struct latency_hist *h, struct tail_bin *bins)
{
    return tail_bins_of_hist(h, bins);
}

#endif
