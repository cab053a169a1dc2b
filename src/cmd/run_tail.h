/*
 * `run --tail`: the tail analysis of a run (stats/tail.h) from the run's
 * own data, at its end: each CPU's exact latency histogram as buckets,
 * the maxima of its report windows (else its telemetry windows) in time
 * order, the interval and the budget, and with --samples each CPU's exact
 * sequence read back from the committed file; the same for all CPUs
 * together (on the histograms).
 * The result's `tail` and the summary's last lines come from it
 * (docs/tail.md, "In a run"). The checks of --until-confident while the
 * run goes on are in run_tail_watch.h.
 */
#ifndef JITTERLAB_CMD_RUN_TAIL_H
#define JITTERLAB_CMD_RUN_TAIL_H

#include <stddef.h>

#include "cmd/run_cli.h"
#include "out/report.h"
#include "out/samples_read.h"
#include "stats/histogram.h"
#include "stats/tail.h"

/* What the analysis of a run holds (freed by run_tail_free). */
struct run_tail {
    struct run_report_tail report; /* what rep->tail points at */
    double probabilities[TAIL_MAX_PROBABILITIES];
    size_t n; /* CPU entries, then all at index n when more than one */
    int *cpu_ids;
    struct tail_input *in;
    struct tail_result *out;
    struct tail_bin **bins; /* per entry */
    int64_t **block_max;    /* per entry */
    char (*err)[TAIL_ERR_LEN];
    struct samples_data seq; /* --samples read back, when have_seq */
    bool have_seq;
};

/* The probabilities of a run's analysis: the defaults, and P of
 * --until-confident when it is not one of them. Returns how many. */
size_t run_tail_probabilities(const struct run_params *p, double *out);

/* Analyses the run in rep and points rep->tail at t->report (confidence:
 * --until-confident's outcome, or NULL). 0, or -1 with err (out of
 * memory). */
int run_tail_analyse(const struct run_params *p, struct run_report *rep,
                     const struct run_tail_confidence *confidence, struct run_tail *t, char *err,
                     size_t errlen);
void run_tail_free(struct run_tail *t);

#endif
