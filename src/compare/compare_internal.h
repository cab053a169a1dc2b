/*
 * What the files of src/compare/ share: one side of one CPU entry (the
 * runs' entries and their pooled histograms), the context a metric is
 * decided in, and the metrics both kinds of document use
 * (compare_metrics.c); the noise documents' entry is compare_noise.c.
 */
#ifndef JITTERLAB_COMPARE_COMPARE_INTERNAL_H
#define JITTERLAB_COMPARE_COMPARE_INTERNAL_H

#include "compare/compare.h"
#include "stats/tail.h"

enum dist_id { DIST_LATENCY, DIST_EXEC, DIST_RESPONSE, DISTS };

struct pooled {
    bool present; /* every run has it with samples */
    struct hbin *bins;
    struct hdist d;
    int64_t min_ns;
};

struct side {
    int n;
    const struct result_cpu **run; /* n entries */
    uint64_t samples, missed, deadline_misses;
    bool has_deadline_misses;
    int64_t noise_ns, measured_ns; /* noise documents */
    struct pooled dist[DISTS];
};

struct ctx {
    const struct compare_config *cfg;
    const struct side *a, *b;
    const struct compare_arm *arm_a, *arm_b; /* for the noise windows */
    int cpu;
    bool between; /* both sides have repeated runs */
    int64_t budget_ns;
    double alpha; /* the level each verdict is taken at (compare_config.level) */
    bool noise;   /* noise documents */
};

/* One run's buckets of one distribution, their overflow and statistics
 * (NULL and 0 where the run lacks it). */
const struct result_bin *compare_dist_bins(const struct result_cpu *c, enum dist_id id, int *nbins,
                                           uint64_t *overflow, const struct result_latency **st);
/* Every metric of one CPU entry, then the verdicts (compare_metrics.c). */
void compare_cpu(struct ctx *x, struct cpu_comparison *c);
void compare_set_values(struct metric_result *m, double base, double value);
/* The test's name and p value (ln), and the smallest ln p it could give. */
void compare_set_p(struct metric_result *m, const char *test, double log_p, double min_log_p);
void compare_insufficient(struct metric_result *m, const char *why);
/* A rate ka / na against kb / nb: Fisher's exact test (per trial), or the
 * test of two Poisson rates (per_time: na and nb are exposures); the
 * permutation test on per_run's values of each run when both sides have
 * repeated runs. */
void compare_rate_metric(const struct ctx *x, uint64_t ka, uint64_t na, uint64_t kb, uint64_t nb,
                         bool per_time, double (*per_run)(const struct result_cpu *, int64_t),
                         int64_t arg, struct metric_result *m);
/* A percentile or maximum metric (METRIC_P50, METRIC_MAX, ...), by its
 * distribution and percentile. */
void compare_quantile_metric(const struct ctx *x, enum compare_metric k, struct metric_result *m);
void compare_percentile_metric(const struct ctx *x, enum dist_id id, double pct, double band,
                               struct metric_result *m);
void compare_max_metric(const struct ctx *x, enum dist_id id, double band, struct metric_result *m);
/* Each tested metric's verdict at the level, and the entry's. */
void compare_decide_all(const struct ctx *x, struct cpu_comparison *c);
/* One entry's pooled latency of both sides, kept for the tail fits that
 * run on every entry at once after the metrics (compare_tail.c). */
struct tail_pending {
    struct tail_bin *bins[2];
    size_t nbins[2];
    uint64_t overflow[2];
    int64_t max_ns[2];
};
/* The entry's exceedance test (c->tail), and its histograms kept in keep. */
void compare_tail_test(const struct ctx *x, struct tail_comparison *t, struct tail_pending *keep);
/* The baseline's tail fits, kept across the arms compared with it: its
 * pooled histogram of an entry (a CPU, or -1 for all) depends on the
 * baseline alone, so it is fitted once however many arms there are. */
struct tail_fit_cache {
    double level; /* the level the fits' confidence derives from */
    int n, cap;
    int *cpu;
    struct tail_result *res;
    char (*err)[TAIL_ERR_LEN];
};
void tail_fit_cache_free(struct tail_fit_cache *c);
/* The 1e-9 levels of n entries' sides and their ratios, the fits on
 * threads; the baseline's from cache when it holds them (and kept there),
 * cache NULL: none. 0, or -1 when out of memory. */
int compare_tail_levels(const struct compare_arm *base, const struct compare_arm *other,
                        double level, struct tail_pending *keep, struct cpu_comparison *cpu, int n,
                        struct tail_fit_cache *cache);
void compare_tail_pending_free(struct tail_pending *keep, int n);
/* The metrics of a noise documents' CPU entry (compare_noise.c). */
void compare_noise_cpu(struct ctx *x, struct cpu_comparison *c);

#endif
