/*
 * How sure is the worst case: the tail of one latency distribution by
 * extreme value theory (docs/tail.md).
 *
 * Peaks over a threshold: a generalized Pareto distribution (shape xi,
 * scale sigma) fitted by maximum likelihood to the excesses over a
 * threshold u, every observation an interval [lo, hi] of whole
 * nanoseconds (a histogram bucket; an exact sample is the interval of
 * width 1), so the 1 % buckets of the histogram are neither widened nor
 * taken for points. The threshold comes from a ladder of high quantiles
 * (the lowest whose shape lies inside the intervals of the shapes fitted
 * above it and whose goodness of fit is not rejected), or is given.
 * Intervals are profile likelihood intervals. Block maxima (the report
 * windows' maxima, at least 30) get a generalized extreme value fit as a
 * cross-check. Checks: goodness of fit (Anderson-Darling on exact
 * samples, a chi-square over the buckets otherwise), independence of the
 * window maxima (Ljung-Box), no trend across windows (Mann-Kendall),
 * clustering of exceedances (the extremal index of the sample sequence;
 * declustered by runs when below 1), and a split-half check (fitted on the
 * first half of the sequence, the exceedances of its 1e-4 level counted in
 * the second half, exact binomial test). A check that fails makes the
 * verdict "cannot estimate" with the reason and what to do: never a number
 * the checks reject.
 *
 * Pure code on GSL (minimisation, root finding, special functions): no
 * I/O, no global state; tail_analyse may run on several threads at once,
 * one input each.
 */
#ifndef JITTERLAB_STATS_TAIL_H
#define JITTERLAB_STATS_TAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One bucket of the distribution: count values in [lo, hi] ns, inclusive
 * (hi = lo for one exact nanosecond). Ascending, not overlapping. */
struct tail_bin {
    int64_t lo, hi;
    uint64_t count;
};

#define TAIL_MAX_PROBABILITIES 8
/* The fitted tail for a plot: probabilities from the threshold's
 * exceedance rate down to 1e-12, a few per decade. */
#define TAIL_MAX_CURVE 64

/* Default probabilities per cycle (also what --probability adds to). */
#define TAIL_DEFAULT_P1 1e-6
#define TAIL_DEFAULT_P2 1e-9
#define TAIL_DEFAULT_P3 1e-12

struct tail_input {
    /* The histogram of every sample (required): ascending bins, the values
     * beyond the histogram's range in overflow (taken as [max_ns, max_ns]
     * when max_ns is known, else refused). */
    const struct tail_bin *bins;
    size_t nbins;
    uint64_t overflow;
    int64_t max_ns; /* the exact maximum; -1 when unknown */
    /* The exact samples in time order (the samples file), or NULL: then
     * the fit uses them instead of the buckets, and the extremal index and
     * the split-half check can run. */
    const int64_t *seq;
    size_t nseq;
    /* The maxima of the report (or telemetry) windows in time order, or
     * NULL: Ljung-Box and Mann-Kendall on them; a GEV fit when at least
     * 30. block_cycles: the mean samples per window (> 0 when nblock > 0). */
    const int64_t *block_max;
    size_t nblock;
    double block_cycles;
    int64_t interval_ns;  /* the cycle's period (> 0): per hour, per year */
    int64_t budget_ns;    /* -1: none */
    int64_t threshold_ns; /* -1: chosen from the ladder */
    /* Per-cycle probabilities for the estimates, each in (0, 1); 0 of them:
     * the defaults 1e-6, 1e-9, 1e-12. */
    const double *probabilities;
    size_t nprobabilities;
    double confidence; /* of every interval; 0: 0.95 */
    double duration_s; /* how long the run measured (for "more hours") */
};

/* A value with its interval at tail_input.confidence; lo and hi are NAN
 * when the interval could not be computed (then say so), hi is INFINITY
 * when the likelihood does not bound it. */
struct tail_value {
    double value, lo, hi;
};

enum tail_check_state {
    TAIL_CHECK_NOT_RUN = 0, /* why says why (lack of data, ...) */
    TAIL_CHECK_PASSED,
    TAIL_CHECK_FAILED,
};

struct tail_check {
    const char *name;   /* "goodness-of-fit", "ljung-box", "mann-kendall",
                           "extremal-index", "split-half", "gev-agreement" */
    const char *method; /* "anderson-darling", "chi-square-buckets", ... */
    enum tail_check_state state;
    double statistic; /* NAN when not run */
    double p_value;   /* NAN when the check has none (extremal index) */
    double level;     /* the level it rejects at */
    char why[160];    /* what it found or why it did not run, in words */
};

enum tail_check_index {
    TAIL_CHECK_GOF = 0,
    TAIL_CHECK_LJUNG_BOX,
    TAIL_CHECK_MANN_KENDALL,
    TAIL_CHECK_EXTREMAL_INDEX,
    TAIL_CHECK_SPLIT_HALF,
    TAIL_CHECK_GEV_AGREEMENT,
    TAIL_NCHECKS
};

struct tail_estimate {
    double probability;   /* per cycle */
    struct tail_value ns; /* the latency exceeded with that probability */
};

/* One rung of the threshold ladder, as fitted (for the docs and report). */
#define TAIL_MAX_LADDER 32
struct tail_rung {
    int64_t threshold_ns;
    uint64_t exceedances;
    bool fitted;
    struct tail_value shape; /* Wald interval */
    double gof_p;            /* NAN when not computed */
};

enum tail_verdict {
    TAIL_ESTIMATE = 0,
    TAIL_CANNOT_ESTIMATE,
};

struct tail_result {
    enum tail_verdict verdict;
    char reason[256];       /* cannot estimate: why; estimate: "" */
    char advice[256];       /* what to do (run longer, fix the trend, ...) */
    bool exact_samples;     /* fitted on the samples file, not the buckets */
    bool threshold_given;   /* else chosen by the ladder rule */
    int64_t threshold_ns;   /* u; -1 when none could be chosen */
    uint64_t samples;       /* values in the histogram */
    uint64_t exceedances;   /* values above u (all, before declustering) */
    uint64_t fitted;        /* excesses the fit used (cluster maxima when declustered) */
    double exceedance_rate; /* exceedances / samples */
    struct tail_value shape, scale;
    const char *ci_method;     /* "profile-likelihood" */
    const char *shape_meaning; /* xi > 0: heavy, no finite worst case; ... */
    double upper_endpoint_ns;  /* xi < 0: u - sigma/xi; INFINITY otherwise */
    size_t nestimates;
    struct tail_estimate estimates[TAIL_MAX_PROBABILITIES];
    /* P(latency > budget): per cycle with its interval, and the same per
     * hour and per year at this interval (1 - (1 - p)^cycles). */
    bool has_budget;
    int64_t budget_ns;
    struct tail_value budget_per_cycle, budget_per_hour, budget_per_year;
    /* Hours more at this interval until the run has seen 1/1e-9 cycles,
     * when the empirical maximum would on average reach the 1e-9 level. */
    double more_hours_1e9;
    double empirical_max_ns;
    /* Block maxima: a GEV fit as a cross-check. */
    bool gev_fitted;
    size_t gev_blocks;
    struct tail_value gev_shape, gev_location, gev_scale;
    struct tail_value gev_1e9; /* the per-cycle 1e-9 level from the block fit */
    /* Clustering: the extremal index (NAN without the samples), and the
     * clusters the fit used when it declustered. */
    double extremal_index;
    bool declustered;
    uint64_t clusters;
    int64_t run_length; /* cycles that separate clusters */
    struct tail_check checks[TAIL_NCHECKS];
    size_t nrungs;
    struct tail_rung rungs[TAIL_MAX_LADDER];
    size_t ncurve;
    struct tail_estimate curve[TAIL_MAX_CURVE];
};

/* The analysis of one distribution. 0 with out filled (an estimate or a
 * reasoned refusal), or -1 with err saying why the input itself is unusable
 * (no bins, no samples, bins out of order, a probability outside (0, 1),
 * interval_ns <= 0). */
int tail_analyse(const struct tail_input *in, struct tail_result *out, char *err, size_t errlen);

/* The latency exceeded with probability p per cycle by the result's fit
 * (u when p equals its exceedance rate), with its interval; NAN values
 * when the verdict is not an estimate or p >= the exceedance rate. */
struct tail_value tail_level(const struct tail_input *in, const struct tail_result *r, double p);

/* tail_analyse on n inputs (one per CPU entry) on up to threads threads
 * (0: the online CPUs, at most 16), so that the end of a run on many CPUs
 * waits for the slowest share, not for the sum. err[i] holds input i's
 * reason when it is unusable (then out[i].verdict is TAIL_CANNOT_ESTIMATE
 * with the same reason). Returns the number of unusable inputs. */
#define TAIL_ERR_LEN 160
size_t tail_analyse_many(const struct tail_input *in, struct tail_result *out, size_t n,
                         unsigned threads, char (*err)[TAIL_ERR_LEN]);

/* Exceedances of a shared threshold in two distributions (bins as above):
 * how many values of each lie above threshold_ns. */
uint64_t tail_count_above(const struct tail_bin *bins, size_t nbins, uint64_t overflow,
                          int64_t threshold_ns);

struct latency_hist;
/* The non-empty buckets of h, ascending, into out (room for
 * LATENCY_HIST_BUCKETS); returns how many. The overflow and the exact
 * maximum stay h's. */
size_t tail_bins_of_hist(const struct latency_hist *h, struct tail_bin *out);

#endif
