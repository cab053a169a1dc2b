/*
 * Exact tests and intervals that compare decides by, with p values kept in
 * log space so that a tiny p is a number, not 0:
 *  - counts: Fisher's exact test of two per-trial rates (missed periods per
 *    cycle, values above a threshold per sample) and the conditional
 *    binomial test of two Poisson rates (events per time measured); both
 *    exact for any counts, zero included, with the normal approximation
 *    only where the distribution is wide (variance above 2000);
 *  - the smallest p value a count test could give with these margins (what
 *    Tarone's procedure needs);
 *  - the ranks of a distribution-free interval for a quantile (order
 *    statistics, binomial ranks);
 *  - the exact permutation test of the difference of two means (all the
 *    splits when there are few, else a seeded random share), with the
 *    smallest p value its arrangements allow;
 *  - Tarone's family: the number of tests a level is divided by, counting
 *    only the tests that could reach it.
 * Pure code.
 */
#ifndef JITTERLAB_STATS_EXACT_TESTS_H
#define JITTERLAB_STATS_EXACT_TESTS_H

#include <stddef.h>
#include <stdint.h>

/* A two-sided p value: log_p = ln(p) (0 for p = 1, -inf for p = 0);
 * min_log_p: the smallest ln(p) the test could give with these margins. */
struct exact_p {
    double log_p;
    double min_log_p;
};

/* ln P(Z > z) of the standard normal, accurate far into the tail. */
double normal_log_sf(double z);
/* The z with P(Z > z) = p (0 < p < 1). */
double normal_isf(double p);

/* Fisher: k_a of n_a trials against k_b of n_b. */
struct exact_p fisher_test(uint64_t k_a, uint64_t n_a, uint64_t k_b, uint64_t n_b);
/* Two Poisson rates: k_a events in exposure t_a against k_b in t_b (any
 * unit), conditional on k_a + k_b. */
struct exact_p poisson_rate_test(uint64_t k_a, double t_a, uint64_t k_b, double t_b);

/* The order-statistic ranks (1-based) of the interval [X(lo), X(hi)] that
 * holds the q-quantile (0 < q < 1) of n values with probability at least
 * 1 - gamma: each side misses with at most gamma / 2. lo < 1 or hi > n
 * when the sample cannot bound it at that level. */
void quantile_ci_ranks(uint64_t n, double q, double gamma, int64_t *lo, int64_t *hi);

struct perm_result {
    double mean_a, mean_b; /* the test's statistic is their difference */
    double log_p;          /* two-sided: splits with |diff| as large, share */
    double min_log_p;      /* the smallest p these values allow */
    int exact;             /* 1: every split, 0: reps random ones */
};

/* The permutation test of mean(b) - mean(a) (n_a, n_b >= 1, at most 64 in
 * all). Every split when there are at most 200000, else reps random splits
 * from seed (p counted as (k + 1) / (reps + 1)). 0, or -1. */
int perm_test(const double *a, size_t n_a, const double *b, size_t n_b, int reps, uint64_t seed,
              struct perm_result *out);

/* Tarone's procedure: the smallest K >= 1 such that at most K of the n
 * tests have min_log_p <= ln(alpha / K). Those tests are then judged at
 * alpha / K; the others cannot reach it and are not counted. */
int tarone_family(const double *min_log_p, size_t n, double alpha);

#endif
