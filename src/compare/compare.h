/*
 * Comparing measurements: a baseline arm against another, each arm one or
 * more run documents (repeated runs). Per CPU present in every run, and for
 * all CPUs merged, each metric gets the baseline's and the other arm's
 * value, their ratio, a test and a verdict: better, worse or no-difference
 * (n/a for figures shown without a test). With one run a side, the pooled
 * histograms decide (stats/hist_tests.h: a bootstrap of quantile ratios,
 * the rank test, exceedance counts); with repeated runs on both sides the
 * spread between runs decides (Welch on per-run values), since on a VM one
 * run's p99 moves by tens of percent and pooling hides that. A quantile
 * moved by less than its histogram bucket is never worse. The verdicts of
 * one CPU entry are taken at alpha / (the number of tested metrics), so
 * that comparing a distribution with itself rarely says anything.
 * Noise documents (kind "noise") compare with noise documents only: the
 * share of the measured time lost to noise, gaps per second and the gap
 * length's p50, p99, p99.99 and maximum, by the same tests.
 * Pure code: documents in, results out.
 */
#ifndef JITTERLAB_COMPARE_COMPARE_H
#define JITTERLAB_COMPARE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "out/result_read.h"
#include "stats/hist_tests.h"

enum verdict { VERDICT_NA, VERDICT_SAME, VERDICT_BETTER, VERDICT_WORSE };

/* "n/a", "no-difference", "better", "worse" */
const char *verdict_name(enum verdict v);

enum compare_metric {
    METRIC_SAMPLES,
    METRIC_MISSED,
    METRIC_DEADLINE_MISSES,
    METRIC_MIN,
    METRIC_P50,
    METRIC_P90,
    METRIC_P99,
    METRIC_P999,
    METRIC_P9999,
    METRIC_MAX,
    METRIC_EXEC_P50,
    METRIC_EXEC_P99,
    METRIC_EXEC_MAX,
    METRIC_RESPONSE_P50,
    METRIC_RESPONSE_P99,
    METRIC_RESPONSE_MAX,
    METRIC_EXCEED_P999,
    METRIC_EXCEED_BUDGET,
    METRIC_NOISE_SHARE, /* noise: noise_ns / measured_ns */
    METRIC_GAP_RATE,    /* noise: gaps per second measured */
    COMPARE_METRICS
};

/* The metric's key in documents ("p999") and its unit ("ns", "rate", "count",
 * "per_s"). */
const char *compare_metric_key(enum compare_metric m);
const char *compare_metric_unit(enum compare_metric m);
/* A percentile (of latency, exec or response time): what --fail-if-worse looks at. */
bool compare_metric_is_percentile(enum compare_metric m);

struct metric_result {
    bool present; /* both sides have the figure */
    double baseline, value;
    bool has_ratio;
    double ratio; /* value / baseline */
    bool has_ci;
    double ci_lo, ci_hi; /* of the ratio */
    bool has_p;
    double p_value;
    const char *test; /* "bootstrap", "between-runs", "exceedance", "binomial", "windows",
                         "none" */
    enum verdict verdict;
};

struct cpu_comparison {
    int cpu; /* -1: all CPUs merged */
    struct metric_result m[COMPARE_METRICS];
    int tested;    /* metrics with a test: alpha is split among them */
    double alpha;  /* each metric's: the intervals are at 1 - alpha */
    bool has_rank; /* the rank test of the pooled latency */
    struct rank_result rank;
    enum verdict verdict; /* worse when any metric is, better when some are and none worse */
};

struct compare_arm {
    const char *label;
    int nruns;
    const struct result_doc *runs;
};

struct compare_config {
    double alpha;      /* family-wise per CPU entry (default 0.05) */
    int64_t budget_ns; /* < 0: the baseline's own --budget, else none */
    int reps;          /* bootstrap replicates */
    uint64_t seed;
};

struct arm_comparison {
    int ncpus;
    struct cpu_comparison *cpu; /* the CPUs every run has, ascending, then "all" */
    enum verdict verdict;       /* the "all" entry's */
    bool between_runs;          /* both arms have repeated runs */
    int64_t budget_ns;          /* the budget used for exceed_budget; -1 none */
    bool noise;                 /* the arms are noise documents */
};

/* 0, or -1 with err (runs of different kinds, out of memory). With no CPU
 * in common, 0 with err saying so and only "all" compared. */
int compare_arms(const struct compare_arm *base, const struct compare_arm *other,
                 const struct compare_config *cfg, struct arm_comparison *out, char *err,
                 size_t errlen);
void arm_comparison_free(struct arm_comparison *c);

#endif
