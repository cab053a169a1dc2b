/*
 * Comparing measurements: a baseline arm against another, each arm one or
 * more run documents (repeated runs). Per CPU present in every run, and for
 * all CPUs merged, each metric gets the baseline's and the other arm's
 * value, their ratio, a test and a verdict: better, worse, no-difference,
 * insufficient-data (the data cannot judge it: a percentile with fewer than
 * ten values beyond it, runs too few for the test to ever reach its level)
 * or n/a (shown without a test). With one run a side, the pooled histograms
 * decide (exact tests: Fisher on counts, the quantile test with a
 * distribution-free interval, the exceedance of the maximum); with repeated
 * runs on both sides the spread between runs decides (an exact permutation
 * test on the per-run values), since on a VM one run's p99 moves by tens of
 * percent and pooling hides that. A quantile moved by less than its
 * histogram bucket is never worse. Every verdict of a comparison (every
 * metric of every CPU entry of every arm) is taken at one level, alpha / K,
 * with K counted by Tarone's procedure over the tests that could reach it,
 * so that comparing a distribution with itself says "worse" anywhere at
 * most alpha of the time, however many CPUs and arms.
 * Beside the metrics, never one of them, a tail verdict per entry
 * (struct tail_comparison, compare_tail.c).
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

/* The repeated runs one arm (a --group, an experiment's step) may hold: the
 * permutation test enumerates or samples splits of them; an experiment
 * checks its repeat against this when it reads its file. */
#define COMPARE_MAX_RUNS_PER_ARM 32

enum verdict { VERDICT_NA, VERDICT_SAME, VERDICT_BETTER, VERDICT_WORSE, VERDICT_INSUFFICIENT };

/* "n/a", "no-difference", "better", "worse", "insufficient-data" */
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
    double ratio; /* value / baseline; INFINITY when only the baseline is 0 */
    bool has_ci;
    double ci_lo, ci_hi; /* of the ratio; ci_hi may be INFINITY */
    bool has_p;
    double p_value;
    double log_p;     /* ln p_value: finite where p_value underflows */
    double min_log_p; /* the smallest ln p the test could give here */
    const char *test; /* "quantile", "permutation", "exceedance", "fisher", "poisson",
                         "windows", "none" */
    enum verdict verdict;
    char why[96]; /* with VERDICT_INSUFFICIENT: why the data cannot judge it */
};

/* The tail verdict of one CPU entry (compare_tail.c): beside the metrics,
 * never one of them, so neither the family nor --fail-if-worse counts it.
 * The shared threshold is the lower edge of the bucket after the one that
 * holds the baseline's pooled p99.9: chosen from the baseline alone, so
 * that the test is not tuned on the data it judges, and on a bucket edge,
 * so that both arms' counts above it are exact. Fisher's exact test on the
 * counts at or above it decides, at the comparison's level; the ratio of
 * the two arms' 1e-9 levels (the tail fit of each pooled histogram) is
 * shown beside it, its interval conservative: [lo_b / hi_a, hi_b / lo_a]
 * from each level's interval at 1 - level / 2. */
#define COMPARE_TAIL_P 1e-9
struct tail_comparison {
    bool present;         /* computed (compare_config.tail, run documents) */
    int64_t threshold_ns; /* -1: none could be set (why says so) */
    uint64_t exceed_a, n_a, exceed_b, n_b;
    bool has_p;
    double p_value, log_p, min_log_p;
    enum verdict verdict;                   /* VERDICT_SAME, _WORSE, _BETTER or _INSUFFICIENT */
    bool has_levels;                        /* both arms estimated: a, b and ratio hold values */
    double level_a, level_a_lo, level_a_hi; /* ns; lo/hi NAN: not computed, hi may be INFINITY */
    double level_b, level_b_lo, level_b_hi;
    double ratio, ratio_lo, ratio_hi; /* ratio_lo/hi NAN: unbounded or not computed */
    char why[320]; /* why the verdict is insufficient-data and why the levels are absent */
};

struct cpu_comparison {
    int cpu; /* -1: all CPUs merged */
    struct metric_result m[COMPARE_METRICS];
    int tested;     /* metrics with a test that could reach the level */
    double alpha;   /* the level each verdict was taken at: the intervals are at 1 - alpha */
    bool duplicate; /* the one CPU of one-CPU runs: the "all" entry's copy, not tested twice */
    bool has_rank;  /* the rank test of the pooled latency (descriptive) */
    struct rank_result rank;
    enum verdict verdict;        /* worse when any metric is, better when some are and none worse */
    struct tail_comparison tail; /* not part of verdict */
};

struct compare_arm {
    const char *label;
    int nruns;
    const struct result_doc *runs;
};

struct compare_config {
    double alpha;      /* family-wise over the whole comparison (default 0.05) */
    int64_t budget_ns; /* < 0: the baseline's own --budget, else none */
    int reps;          /* random splits of a permutation test too large to enumerate */
    uint64_t seed;
    double level; /* set by compare_all: each verdict's level, alpha / family */
    /* Also the tail verdict of every entry (two tail fits an entry, the
     * costliest part of a comparison). Off by default: doctor keeps or
     * reverts changes by the metrics alone and has no use for it. */
    bool tail;
};

struct arm_comparison {
    int ncpus;
    struct cpu_comparison *cpu; /* the CPUs every run has, ascending, then "all" */
    enum verdict verdict;       /* the "all" entry's */
    bool between_runs;          /* both arms have repeated runs */
    int64_t budget_ns;          /* the budget used for exceed_budget; -1 none */
    bool noise;                 /* the arms are noise documents */
};

/* How the level was set: every test computed (candidates), those that could
 * reach a level (Tarone's K: the family), the level alpha / K, and how many
 * of them are percentiles (what --fail-if-worse looks at). */
struct compare_family {
    int candidates;  /* tests computed */
    int family;      /* Tarone's K: the level is alpha / K */
    int reachable;   /* tests whose smallest p is within the level (at most K) */
    int percentiles; /* of those, percentiles: what --fail-if-worse covers */
    double alpha, level;
};

/* arms[0] is the baseline; out[] gets narms - 1 comparisons. 0, or -1 with
 * err (runs of different kinds, out of memory). With no CPU in common, 0
 * with err saying so and only "all" compared. */
int compare_all(const struct compare_arm *arms, int narms, const struct compare_config *cfg,
                struct arm_comparison *out, struct compare_family *fam, char *err, size_t errlen);
/* One arm against the baseline at cfg->level (alpha when 0): what
 * compare_all does twice, first to count the family, then to decide. */
int compare_arms(const struct compare_arm *base, const struct compare_arm *other,
                 const struct compare_config *cfg, struct arm_comparison *out, char *err,
                 size_t errlen);
void arm_comparison_free(struct arm_comparison *c);

/* --fail-if-worse PCT: the percentiles significantly worse by more than
 * pct (exit 3 when any), each CPU entry once. The tail verdict is no part
 * of it. */
int compare_gate_worse(const struct arm_comparison *cmp, int n, double pct);

#endif
