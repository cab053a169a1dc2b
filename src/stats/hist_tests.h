/*
 * Statistical tests on latency histograms, for `jitterlab compare`: two
 * distributions given as log-linear histogram bins (exact counts per
 * bucket, every value in a bucket tied), no raw samples needed.
 *  - the Brunner-Munzel rank test, with bucket ties as midranks: is B
 *    stochastically larger than A (p_greater = P(B > A) + P(B = A) / 2)?
 *  - the distribution-free interval of a quantile: the order statistics
 *    whose ranks hold it with the chosen probability (binomial ranks), read
 *    as the outer edges of their buckets, so the histogram's resolution is
 *    inside the interval;
 *  - how often B beats A's maximum by luck (the top k of the pooled values
 *    all from B);
 *  - Welch's t test on per-run values, with Student's t distribution.
 * P values in log space where they can be tiny. Pure code.
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
    double log_p;     /* its ln, which does not underflow */
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

/* The interval [*lo_ns, *hi_ns] that holds the population's p-th percentile
 * with probability at least 1 - gamma (distribution-free: the values are
 * taken as independent draws). 0; 1 when the sample cannot bound it at that
 * level (*lo_ns 0 or *hi_ns infinite: too few values beyond the
 * percentile); -1 when d is empty. */
int hdist_quantile_ci(const struct hdist *d, double p, double gamma, int64_t min_ns, double *lo_ns,
                      double *hi_ns);

/* ln P(the k largest of n_a + n_b exchangeable values all come from B): the
 * chance that B beats A's maximum k times or more by luck alone. */
double beats_max_log_p(uint64_t k, uint64_t n_a, uint64_t n_b);

struct welch_result {
    double mean_a, mean_b; /* of the values given (the caller passes logs) */
    double t, df;
    double se;      /* of mean_b - mean_a */
    double p_value; /* two-sided; 1 when neither side has any spread */
    double log_p;
};

/* Welch's test on two samples of per-run values (n_a, n_b >= 2). 0, or -1. */
int welch_test(const double *a, size_t n_a, const double *b, size_t n_b, struct welch_result *out);

/* Student's t distribution: P(T <= t) with df degrees of freedom, and
 * ln P(T > t); the standard normal for df > 1e5. */
double student_t_cdf(double t, double df);
double student_t_log_sf(double t, double df);

#endif
