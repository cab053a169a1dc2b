/*
 * The cause of spikes without tracepoints: per telemetry window, what was
 * above the CPU's usual. For each CPU the baseline of every figure is what
 * a quiet window looks like: its lower quartile over all the CPU's windows
 * (the upper one for the frequency), counts as rates per second, whether
 * or not a window had samples or spikes (in `noise` every window with a
 * gap has a spike); a window with spikes is explained by the figures that
 * exceed their baseline clearly (interrupt and softirq sources, context
 * switches, steal, SMIs, a frequency drop, deep idle), largest excess
 * first, and the dominant one feeds a summary like the tracepoint
 * method's. It says what coincided with the spikes, not what caused each:
 * the method is labelled "window". Pure code; allocates only its result.
 */
#ifndef JITTERLAB_TRACE_WINDOW_EXPLAIN_H
#define JITTERLAB_TRACE_WINDOW_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "telemetry/run_telemetry.h"

#define WINDOW_CAUSES_MAX 6

struct window_cause {
    const char *kind; /* "irq", "softirq", "ipi", "timer", "thread", "steal", "smi",
                       * "frequency", "idle", "unexplained" */
    char name[48];
    double value;    /* in the window: a count, or % / MHz for steal, idle, frequency */
    double baseline; /* the CPU's quiet level (see above) */
    double excess;   /* value - baseline (baseline - value for frequency) */
};

struct window_spike {
    int64_t t_ns; /* end of the window */
    int cpu;
    uint64_t spikes;
    int64_t max_ns;
    int ncauses;
    struct window_cause cause[WINDOW_CAUSES_MAX]; /* largest relative excess first */
};

struct window_summary_row {
    const char *kind;
    char name[48];
    uint64_t windows; /* windows with spikes it dominated */
    double share;     /* of the windows with spikes */
    uint64_t spikes;  /* spikes in those windows */
    int64_t max_ns;   /* the largest latency among them */
};

#define WINDOW_SUMMARY_MAX 16

struct window_explanation {
    struct window_spike *spike; /* one per window with spikes, in time order */
    size_t nspike;
    struct window_summary_row row[WINDOW_SUMMARY_MAX + 1]; /* the last: "other" */
    size_t nrows;
};

/* Explains the windows (several CPUs, any order within a time) with
 * spikes > 0; softirq_names[k] names the figures' softirq[k]. 0, or -1
 * when out of memory. */
int window_explain(const struct telemetry_window *w, size_t n, const char *const *softirq_names,
                   int nsoftirq, struct window_explanation *out);
void window_explanation_free(struct window_explanation *e);

#endif
