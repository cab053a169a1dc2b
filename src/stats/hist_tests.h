/*
 * Statistical tests on latency histograms, for `jitterlab compare`: two
 * distributions given as log-linear histogram bins (exact counts per
 * bucket, every value in a bucket tied), no raw samples needed.
 *  - the Brunner-Munzel rank test, with bucket ties as midranks: is B
 *    stochastically larger than A (p_greater = P(B > A) + P(B = A) / 2)?
 *  - a bootstrap of a quantile ratio q_B(p) / q_A(p): a resampled p-th
 *    order statistic of n draws is F^-1(U) with U ~ Beta(k, n + 1 - k), so
 *    each replicate costs two Beta draws instead of n samples (values on
 *    the bucket midpoints, the grid the percentiles are reported on);
 *  - the exceedance test: are values above a threshold more frequent in B
 *    (exact conditional binomial on the two counts);
 *  - Welch's t test on per-run values (the between-run spread of repeated
 *    runs), with Student's t distribution.
 * Pure code; the random numbers come from the caller's seed.
 */
#ifndef JITTERLAB_STATS_HIST_TESTS_H
#define JITTERLAB_STATS_HIST_TESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One bucket: every value in [lo, hi] (ns), count of them. */
struct hbin {
    int64_t lo, hi;
    uint64_t count;
};

/* A distribution: ascending, non-overlapping bins; overflow counts values
 * above the last bin (taken as max_ns for quantiles). */
struct hdist {
    const struct hbin *bins;
    size_t nbins;
    uint64_t overflow;
    int64_t max_ns;
    uint64_t n; /* every value: the bins' counts and the overflow */
};

struct rank_result {
    double p_greater; /* P(B > A) + P(B = A) / 2; 0.5: no tendency */
    double statistic; /* Brunner-Munzel W */
    double df;        /* its t distribution's degrees of freedom */
    double p_value;   /* two-sided */
};

/* 0, or -1 when a side is empty. */
int rank_test(const struct hdist *a, const struct hdist *b, struct rank_result *out);

/* The p-th percentile as `jitterlab run` reports it (latency_hist_percentile):
 * the nearest rank's bucket midpoint, clamped to [min_ns, max_ns]; the first
 * and the last rank are min_ns and max_ns. */
int64_t hdist_percentile(const struct hdist *d, double p, int64_t min_ns);
/* The relative width of the bucket holding the p-th quantile: (hi - lo + 1)
 * / lo (0 for a bucket of one value); the resolution of that quantile. */
double hdist_resolution(const struct hdist *d, double p);
/* Values strictly above the bucket holding threshold_ns (the whole
 * buckets above it, and the overflow). */
uint64_t hdist_above(const struct hdist *d, int64_t threshold_ns);

struct ratio_ci {
    double lo, hi;  /* the central (1 - alpha) interval of the ratio */
    double p_value; /* two-sided: 2 x the share of replicates on the other side of 1 */
};

/* Bootstrap of q_B(p) / q_A(p) with reps replicates. 0, or -1 when a side
 * is empty or a quantile is 0. */
int quantile_ratio_ci(const struct hdist *a, const struct hdist *b, double p, double alpha,
                      int reps, uint64_t seed, struct ratio_ci *out);

/* Exact two-sided p value that k_b of k_a + k_b events fall in B, when
 * each falls in B with probability n_b / (n_a + n_b): the test of equal
 * rates per trial (exceedances, missed periods, deadline misses). 1 when
 * there are no events. */
double rate_test(uint64_t k_a, uint64_t n_a, uint64_t k_b, uint64_t n_b);
/* P(the k largest of n_a + n_b exchangeable values all come from B): the
 * chance that B beats A's maximum k times or more by luck alone. */
double beats_max_p(uint64_t k, uint64_t n_a, uint64_t n_b);

struct welch_result {
    double mean_a, mean_b; /* of the values given (the caller passes logs) */
    double t, df;
    double p_value; /* two-sided; 1 when there is no spread and no difference */
};

/* Welch's test on two samples of per-run values (n_a, n_b >= 2). 0, or -1. */
int welch_test(const double *a, size_t n_a, const double *b, size_t n_b, struct welch_result *out);

/* Student's t distribution: P(T <= t) with df degrees of freedom; the
 * standard normal for df > 1e7. */
double student_t_cdf(double t, double df);

#endif
