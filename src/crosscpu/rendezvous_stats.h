/*
 * What `jitterlab rendezvous` reports, computed from the raw records of
 * rendezvous.h without touching the machine (so that unit tests feed it
 * synthetic records): per layout and CPU the order statistics of the
 * loop-exit and total times over the rendezvous that completed in time on
 * every CPU; per layout the median over CPUs of the per-CPU medians; and each
 * layout's ratio to `packed`, per batch of interleaved rounds, summarised by
 * the median batch ratio with a bootstrap percentile interval.
 */
#ifndef JITTERLAB_CROSSCPU_RENDEZVOUS_STATS_H
#define JITTERLAB_CROSSCPU_RENDEZVOUS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crosscpu/rendezvous.h"
#include "crosscpu/sample_stats.h"

enum rv_metric { RV_LOOP_EXIT, RV_TOTAL, RV_METRICS };

/* The bootstrap behind every interval: fixed, so that the same records
 * always give the same interval. */
#define RV_BOOT_RESAMPLES 2000
#define RV_BOOT_SEED      UINT64_C(0x72656e64657a766f) /* "rendezvo" */

/* A layout's ratio to packed over the batches in which both were measured. */
struct rv_ratio {
    size_t batches;              /* batches with a ratio; 0: nothing below is set */
    double median;               /* median of the batch ratios */
    double batch_min, batch_max; /* their spread */
    bool has_ci;                 /* at least 2 batches */
    double ci_low, ci_high;      /* 95 % bootstrap percentile interval of the median */
};

struct rv_layout_stats {
    enum rv_layout layout;
    uint64_t done;              /* completed in time on every CPU: in the statistics */
    uint64_t timeouts;          /* attempted and not completed in time (incl. at start) */
    uint64_t timeouts_at_start; /* of which: a CPU missed the start barrier */
    struct sample_summary *cpu[RV_METRICS]; /* [ncpu], n == 0 when none completed */
    bool has_median;                        /* done > 0 */
    double median[RV_METRICS];              /* median over CPUs of the per-CPU medians */
    bool has_ratio;                         /* not packed, and packed was measured */
    struct rv_ratio ratio[RV_METRICS];
};

struct rv_stats {
    int ncpu;
    int nlayouts;
    int batches;
    struct rv_layout_stats layout[RV_LAYOUT_COUNT]; /* in the order measured */
};

/* Reduces res into st with `batches` interleaved batches (rv_batch_of).
 * 0, or -1 when out of memory (st then needs no rv_stats_free). */
int rv_stats_compute(const struct rv_result *res, int batches, struct rv_stats *st);
void rv_stats_free(struct rv_stats *st);

/* The median of v[0..n) (sorted in place): the middle value, the mean of
 * the two middle ones when n is even; 0 when n == 0. */
double rv_median(double *v, size_t n);

/* Summarises n batch ratios (v is sorted in place): median, min, max and,
 * from 2 batches on, the 95 % bootstrap percentile interval of the median
 * (`resamples` resamples drawn with the given seed). */
void rv_ratio_summarize(double *v, size_t n, int resamples, uint64_t seed, struct rv_ratio *out);

/* What a ratio (layout time / packed time) lets one say: only an interval
 * that excludes 1 says which is faster; an interval across 1 shows no
 * difference; without an interval (fewer than 2 batches) nothing. */
enum rv_verdict { RV_VERDICT_NONE, RV_VERDICT_FASTER, RV_VERDICT_SLOWER, RV_VERDICT_SAME };
enum rv_verdict rv_ratio_verdict(const struct rv_ratio *r);

#endif
