/*
 * What `jitterlab noise` hands its writers (out/json_noise.c,
 * out/text_noise.c): the configuration, each CPU's own figures, windows,
 * causes and largest gaps, and how the causes were found. Filled by
 * cmd/noise.c; the writers only read it.
 */
#ifndef JITTERLAB_OUT_NOISE_REPORT_H
#define JITTERLAB_OUT_NOISE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crosscpu/timebase.h"
#include "noise/noise.h"
#include "noise/noise_causes.h"
#include "stats/histogram.h"
#include "stats/running_stats.h"
#include "sys/system_info.h"
#include "trace/window_explain.h"

struct noise_report_cpu {
    const struct noise_slot *slot;
    const struct noise_window *win;
    size_t nwin;
    uint64_t win_dropped;
    struct noise_cause_row causes[NOISE_CAUSE_ROWS + 1]; /* by time, largest first */
    size_t ncauses;
    int64_t causes_ns;   /* their sum */
    uint64_t attributed; /* gaps attributed by tracepoints */
    /* what ran while the loop slept between slices (tracepoints) */
    struct noise_cause_row off_causes[NOISE_CAUSE_ROWS + 1];
    size_t noff_causes;
    int64_t off_causes_ns;
    const struct spike *largest; /* longest first */
    size_t nlargest;
    uint64_t ring_drops;
    double steal_pct; /* over the run; NAN unknown */
    int64_t smi;      /* over the run; -1 unknown */
};

struct noise_report {
    const char *version;
    int argc;
    char **argv;
    const char *started_at;
    const struct system_info *system;
    const struct noise_config *cfg;
    const struct timebase *tb;
    bool realtime;
    bool interrupted;
    bool memory_locked;
    int64_t start_ns;   /* CLOCK_MONOTONIC of the start */
    int64_t elapsed_ns; /* measured span */
    int64_t largest_per_cpu;
    int n;
    struct noise_report_cpu *cpu;
    /* every CPU together */
    struct latency_hist *all_hist;
    struct running_stats all_stats;
    int64_t all_noise_ns, all_measured_ns, all_floor_ns;
    uint64_t all_gaps;
    /* causes: "tracepoints", "window" (telemetry windows), or "none" */
    const char *method;
    const char *method_reason; /* why not tracepoints; NULL */
    uint64_t events, events_lost;
    const struct window_explanation *windows; /* method "window" */
    bool per_cpu; /* --per-cpu: every CPU's row, however many (text only) */
};

#endif
