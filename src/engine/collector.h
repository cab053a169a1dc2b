/*
 * The collector: on a housekeeping CPU it drains the per-CPU rings, keeps
 * the live figures and cuts --report-every windows (stats/window.h). What a
 * person or a file sees is not done here: each sample, each closed window
 * and each live frame goes to a sink the caller gives (cmd/run.c wires them
 * to out/). Only the newest keep_windows windows stay in memory for the
 * result document, in storage allocated before the first cycle: a long run
 * never grows. Besides, it keeps a running copy of each CPU's result, so
 * that a result can be written while the run goes on (SIGUSR1, the
 * exporter).
 */
#ifndef JITTERLAB_ENGINE_COLLECTOR_H
#define JITTERLAB_ENGINE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "stats/histogram.h"
#include "stats/keep_ring.h"
#include "stats/running_stats.h"
#include "stats/window.h"

/* The longest the collector sleeps between two drains (what a trace buffer
 * must hold); engine_drain_period_ns may make it shorter. */
#define COLLECTOR_PERIOD_NS (100 * 1000 * 1000)

/* The collector's view of one CPU for the live display: its running
 * result and the newest latency. */
struct live_cpu {
    int cpu;
    int64_t current_ns;
    const struct cpu_result *r;
};

struct live_frame {
    double elapsed_s;
    double total_s; /* 0 when the run is bounded by loops only */
    uint64_t loops; /* 0 when bounded by time */
    const struct live_cpu *cpus;
    int ncpu;
    bool control_task; /* show execution time */
    bool deadline;     /* and deadline misses (the run has a deadline) */
};

/* Where the collector's products go; any may be NULL. */
struct collector_sinks {
    void *ctx;
    void (*sample)(void *ctx, int cpu, const struct cycle_sample *s);
    void (*window)(void *ctx, const struct interval_stats *w);
    /* With window_hist set, each closed window also comes with the
     * histogram of its latencies (for the window's percentiles). */
    void (*window_hist)(void *ctx, const struct interval_stats *w, const struct latency_hist *h);
    /* Called after every drain pass (and the last one in collector_finish):
     * what follows the samples (the trace reader of --explain) runs here. */
    void (*drained)(void *ctx);
    /* Called every live_period_ns while the run goes on. */
    void (*live)(void *ctx, const struct live_frame *f);
    int64_t live_period_ns;
    /* Called every tick_period_ns of the run (0: never), before the drain
     * that follows, with the time relative to the run start: the
     * telemetry's snapshots. The collector wakes for it on time. */
    void (*tick)(void *ctx, int64_t t_ns);
    int64_t tick_period_ns;
};

/* What the collector adds to the engine's configuration (interval,
 * duration, loops, deadline and tolerance come from the engine). */
struct collector_config {
    int64_t report_every_ns;
    uint64_t report_every_samples;
    uint64_t keep_windows; /* windows kept for the result (all CPUs together) */
    bool control_task;     /* execution/response figures are of interest */
    bool deadline;         /* deadline misses are counted (engine deadline_ns > 0) */
};

struct collector {
    const struct collector_config *cfg;
    struct collector_sinks sinks;
    struct window_rules rules;
    struct engine *eng;
    int n;
    struct live_cpu *live;
    struct interval_stats *window; /* the open window per CPU */
    int64_t *window_index;
    struct keep_ring kept;            /* the newest closed windows */
    struct latency_hist *window_hist; /* per CPU, with sinks.window_hist */
    /* The run so far as the rings delivered it, counted by the engine's own
     * rules (cpu_result_record_sample, and engine_drain's tally): what a result written while the
     * run goes on reports. No us histogram, no counters, and execution and response histograms only
     * with a control task (cfg->control_task). */
    struct cpu_result *running;
    struct latency_hist *running_hists; /* exec, response per CPU; control task only */
    struct cycle_sample *buf;
};

static inline bool collector_periodic(const struct collector_config *cfg)
{
    return cfg->report_every_ns > 0 || cfg->report_every_samples > 0;
}

/* Allocates everything (before the engine starts). 0, or -1 with err. */
int collector_init(struct collector *c, const struct collector_config *cfg,
                   const struct collector_sinks *sinks, struct engine *eng, char *err,
                   size_t errlen);
/* Drains every ring once. */
void collector_drain(struct collector *c);
/* Until every engine thread has ended or a stop was requested: drains and
 * feeds the live sink; on a stop request asks the engine to stop and
 * returns (engine_join then waits for the threads). */
void collector_run(struct collector *c, bool *interrupted);
/* After engine_join: last drain, windows closed at end_ns. */
void collector_finish(struct collector *c, int64_t end_ns);
/* The kept windows, oldest first (reorders the ring in place); the number
 * of windows that were not kept goes to *dropped. */
const struct interval_stats *collector_windows(struct collector *c, uint64_t *count,
                                               uint64_t *dropped);
/* CPU index i's running result: the rings' samples, the missed periods
 * they reported and the engine's ring drops so far. */
const struct cpu_result *collector_running_result(struct collector *c, int i);
/* Bytes the collector allocated (its running results, windows, kept
 * windows and drain buffer). */
size_t collector_memory_bytes(const struct collector *c);
void collector_free(struct collector *c);

#endif
