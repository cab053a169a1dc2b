/*
 * The checks the tail analysis trusts its fit by (stats/tail.c decides
 * when each runs and what its outcome means): serial correlation and trend
 * of the window maxima, clustering of exceedances and declustering by
 * runs, Anderson-Darling for the GPD with estimated parameters, an exact
 * two-sided binomial test and the exact binomial interval. Pure code on
 * GSL.
 */
#ifndef JITTERLAB_STATS_EVT_CHECKS_H
#define JITTERLAB_STATS_EVT_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ljung-Box Q over lags 1..h of x; *p from chi-square(h). */
double ljung_box(const double *x, size_t n, size_t h, double *p);

/* Mann-Kendall trend test: returns the normal score z (tie-corrected
 * variance, continuity correction; > 0: upward), *p two-sided. */
double mann_kendall(const double *x, size_t n, double *p);

/* The Ferro-Segers intervals estimator of the extremal index from the
 * positions (ascending) of n >= 2 exceedances; NAN with fewer. */
double extremal_index(const size_t *pos, size_t n);
/* The run length that splits the exceedances into ceil(theta n) clusters
 * (Ferro & Segers 2003): the ceil(theta n)-th largest gap between
 * neighbouring exceedances. */
int64_t decluster_run_length(const size_t *pos, size_t n, double theta);
/* The maxima of the clusters: exceedances whose gap to the previous one is
 * at most run_length belong to its cluster. values[i] is the value at
 * pos[i]; maxima written to out (n at most). Returns the cluster count. */
size_t decluster_maxima(const size_t *pos, const int64_t *values, size_t n, int64_t run_length,
                        int64_t *out);

/* A^2 of the probability-transformed sample z (ascending, in (0, 1)). */
double anderson_darling(const double *z, size_t n);
/* The p value of A^2 for the GPD with both parameters estimated, from the
 * table of Choulakian & Stephens (2001), interpolated in xi and in ln p.
 * *bound: -1 when p is only known to be at most the value returned (beyond
 * the table's smallest level), 1 at least, 0 interpolated. */
double ad_gpd_p(double a2, double xi, int *bound);

/* Exact two-sided binomial test of k successes in n trials at rate p:
 * twice the smaller tail, at most 1. */
double binomial_two_sided_p(uint64_t k, uint64_t n, double p);

/* The exact (Clopper-Pearson) interval at confidence of the rate of k
 * successes in n > 0 trials: each side misses with at most (1 -
 * confidence) / 2. lo is 0 when k = 0, hi 1 when k = n. Holds for any n
 * (GSL's inverse beta fails beyond a few hundred thousand trials). */
void binomial_interval(uint64_t k, uint64_t n, double confidence, double *lo, double *hi);

#endif
