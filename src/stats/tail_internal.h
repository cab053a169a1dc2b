/*
 * What the tail analysis's three files share (tail.c: the analysis and its
 * verdict; tail_data.c: the data as the fits see it and the threshold
 * ladder; tail_checks.c: the checks beside the fit). Not an interface:
 * tail.h is the module's.
 */
#ifndef JITTERLAB_STATS_TAIL_INTERNAL_H
#define JITTERLAB_STATS_TAIL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/gpd.h"
#include "stats/tail.h"

#define MIN_EXCEEDANCES 50
#define CHECK_LEVEL     0.01
#define LADDER_TOP      0.1
/* A shape at the search's upper end: the likelihood wants a heavier tail
 * than any GPD it may take, the mark of a far second mode. */
#define XI_AT_MAX       (GPD_XI_MAX - 1e-3)
#define LADDER_REF_MIN  300 /* exceedances of a rung the others are judged by */
#define DECLUSTER_BELOW 0.9
#define CLUSTER_FAIL    0.2
#define SPLIT_P         1e-4
#define SPLIT_MIN_HALF  50000
#define GEV_MIN_BLOCKS  30
/* The GEV check compares intervals at 1 - level / 2 each: two intervals
 * that both hold the level overlap, so it refuses a right fit with at most
 * its level (either interval misses with at most level / 2). */
#define GEV_CHECK_CONFIDENCE (1 - CHECK_LEVEL / 2)
#define LB_MIN_BLOCKS        20
#define MK_MIN_BLOCKS        10
/* Exact values are grouped into runs no wider than 1/1024 of their value. */
#define EXACT_GROUP_SHIFT 10

/* One distribution as the fits see it: ascending bins (the overflow
 * appended as [max_ns, max_ns]) and, with the samples, the exact values
 * at or above the ladder's lowest threshold, ascending. */
struct dataset {
    struct tail_bin *bins;
    size_t nbins;
    uint64_t n;
    int64_t *exact; /* NULL: the histogram path */
    size_t nexact;
};

struct rung_fit {
    int64_t u;
    uint64_t k;
    struct gpd_fit fit;
    double gof_p, gof_stat;
};

/* ---- the data (tail_data.c) ---- */

void tail_dataset_free(struct dataset *d);
/* The dataset of in: bins with the overflow appended; exact values at or
 * above u_min. -1 when out of memory. */
int tail_dataset_make(const struct tail_input *in, int64_t u_min, struct dataset *d);
/* The lowest threshold the ladder could pick. */
int64_t tail_lowest_rung(const struct dataset *d);
/* Sorts v ascending in linear time; -1 when out of memory. */
int tail_sort_i64(int64_t *v, size_t n);
/* Values at or above u, from the bins (u a lower edge). */
uint64_t tail_count_from(const struct dataset *d, int64_t u);
/* The lower edge of the bucket holding u. */
int64_t tail_snap_threshold(const struct dataset *d, int64_t u);
/* The observations above u into obs: exact values grouped, or buckets. */
size_t tail_build_obs(const struct dataset *d, int64_t u, const int64_t *vals, size_t nvals,
                      struct gpd_obs *obs);
/* Goodness of fit of f to obs: Anderson-Darling on exact values, else the
 * grouped chi-square; its statistic into *stat. p NAN: too few groups. */
double tail_goodness_of_fit(const struct gpd_obs *obs, size_t nobs, bool exact,
                            const struct gpd_fit *f, double *stat);
/* The ladder on d: fills rungs (ascending thresholds); returns the index
 * of the chosen rung, -1 when none is stable and accepted, -2 when the
 * lowest rung has too few exceedances. */
int tail_ladder(const struct dataset *d, double confidence, struct rung_fit *rungs, size_t *nrungs,
                struct gpd_obs *obs);
/* The empirical level exceeded with probability p, its interval from
 * order statistics. */
struct tail_value tail_empirical_level(const struct dataset *d, double p, double confidence);

/* ---- the checks (tail_checks.c) ---- */

void tail_check_set(struct tail_check *c, enum tail_check_state st, double stat, double p,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void tail_split_half(const struct tail_input *in, double confidence, struct tail_check *c,
                     struct gpd_obs *obs_buf);
/* Ljung-Box and Mann-Kendall on the window maxima (copied into bm). */
void tail_block_checks(const struct tail_input *in, struct tail_result *r, double *bm);
/* The GEV fit to the window maxima and its agreement with pot, the GPD's
 * 1e-9 level. */
void tail_gev_part(const struct tail_input *in, struct tail_result *r, const double *bm,
                   double confidence, struct tail_value pot);

#endif
