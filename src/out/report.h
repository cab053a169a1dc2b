/*
 * The finished run as every output sees it: configuration, machine, per-CPU
 * exact results from the engine, the merged "all" view and the interval
 * windows the collector cut. Built once by `jitterlab run`, then handed to
 * the JSON, text, histogram-file writers; none of them modifies it.
 */
#ifndef JITTERLAB_OUT_REPORT_H
#define JITTERLAB_OUT_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "load/load.h"
#include "stats/histogram.h"
#include "stats/running_stats.h"
#include "stats/window.h"
#include "inspect/inspect_system.h"
#include "out/json_tail.h"
#include "sys/system_info.h"
#include "export/influx.h"
#include "telemetry/run_telemetry.h"
#include "telemetry/telemetry.h"
#include "trace/explain.h"
#include "tune/tune.h"

/* One CPU at a check of `run --until-confident`: its latency at the
 * probability asked, and how far above it its interval reaches. */
struct run_tail_check_cpu {
    int cpu;
    bool estimate;     /* the verdict: an estimate (else the checks refused one) */
    double latency_ns; /* NAN when not an estimate */
    double upper_ns;   /* the interval's upper bound; INFINITY when unbounded */
    double width;      /* (upper - latency) / latency; NAN when not an estimate */
    bool confident;    /* an estimate and width <= the width asked */
};

/* `run --until-confident P:WIDTH`: what ended the run and its last check. */
struct run_tail_confidence {
    double probability;   /* P per cycle */
    double width;         /* WIDTH as a fraction */
    const char *ended_by; /* "confident", "duration" (-D or -l), "signal" */
    const char *limit;    /* what "duration" means here: "-D" or "-l" */
    uint64_t checks;      /* checks finished */
    double last_t_s;      /* when the last check's snapshot was taken; NAN: none */
    int ncpu;
    const struct run_tail_check_cpu *cpus; /* the last check, ncpu entries */
    int widest;                            /* index of the CPU farthest from the goal; -1: none */
};

/* `run --tail`: the tail analysis of each CPU and of all together. */
struct run_report_tail {
    struct tail_config cfg;
    const struct tail_result *cpus; /* n, in the order of the measured CPUs */
    const int *cpu_ids;
    size_t n;
    const struct tail_result *all;                /* NULL with one CPU */
    const struct run_tail_confidence *confidence; /* NULL without --until-confident */
};

struct run_report {
    const char *version;
    int argc;
    char **argv;
    char started_at[40]; /* RFC 3339 UTC */
    double duration_s;
    int64_t start_ns; /* CLOCK_MONOTONIC of planned wake-up 0 */
    bool interrupted;
    bool in_progress;                   /* written while the run goes on (SIGUSR1) */
    const struct influx_counts *influx; /* NULL: no --influx */
    const char *influx_dest;
    const struct system_info *system;
    const struct inspect_system *machine; /* NULL: only system_info is known */
    const struct tune_summary *tune;      /* NULL: not run with --tune */

    /* config */
    int64_t interval_ns;
    int64_t duration_ns; /* requested; 0 = none */
    bool forever;        /* until stopped */
    uint64_t loops;      /* requested; 0 = none */
    const char *policy;  /* requested: "fifo", "rr", "other", "deadline" */
    int priority;
    /* --policy deadline: the reservation asked for; NULL otherwise */
    const struct deadline_reservation *reservation;
    bool realtime;           /* false when it ran SCHED_OTHER for lack of privilege */
    bool memory_locked;      /* everything locked (mlockall) */
    const char *memory_lock; /* "all", "buffers" or "none" */
    const struct cpulist *cpus;
    const char *clock;
    double tsc_hz;
    int64_t tolerance_ns; /* < 0: none */
    int64_t budget_ns;    /* < 0: none */
    int64_t pm_qos_us;    /* < 0: not held */
    int64_t report_every_ns;
    uint64_t report_every_samples;
    uint64_t keep_windows;
    const struct workload_spec *workload; /* NULL: none */
    uint64_t seed;
    int64_t deadline_ns;
    uint32_t counters_mask;
    bool control_task;             /* execution/response figures are of interest */
    const struct load_spec *loads; /* --load, nloads of them */
    int nloads;
    const struct load_sched *load_sched;
    const struct load_runner *load_runner;
    /* --wake MECH: "timer" (the default) or the mechanism; the wakers'
     * CPU and priority, and their results (NULL in a timer run) */
    const char *wake;
    int waker_cpu;
    int waker_priority;
    const struct waker_result *const *wakers; /* ncpu of them, or NULL */

    /* results */
    int ncpu;
    const struct cpu_result *const *cpu; /* engine results, one per measured CPU */
    uint64_t all_samples;
    uint64_t all_missed;
    uint64_t all_over_tolerance;
    uint64_t all_ring_drops;
    /* samples the results lack: 0 in a final result, which counts every
     * sample; in_progress, what the rings dropped (run_report_cpu_lacking) */
    uint64_t all_samples_lacking;
    int64_t all_page_faults; /* sum over the CPUs; -1 when a CPU's is not known */
    int64_t all_max_at_ns;
    struct running_stats all_latency;
    struct latency_hist *all_hist;
    uint64_t all_deadline_misses;
    struct running_stats all_exec;
    struct running_stats all_response;
    struct latency_hist *all_exec_hist;     /* caller-owned storage */
    struct latency_hist *all_response_hist; /* caller-owned storage */
    bool all_exec_partial;                  /* a CPU's copy kept no exec/response histogram */
    bool has_intervals;                     /* --report-every was given */
    const struct interval_stats *intervals; /* the newest windows, oldest first */
    uint64_t interval_count;
    uint64_t intervals_dropped; /* windows closed but not kept (--keep-windows) */
    /* telemetry: NULL with --no-telemetry (or when the run never started) */
    const struct telemetry *telemetry;
    int64_t telemetry_period_ns;
    bool telemetry_all;                               /* --telemetry all */
    const struct telemetry_window *telemetry_windows; /* oldest first */
    uint64_t telemetry_count;
    uint64_t telemetry_dropped;
    /* --explain: NULL when not asked for */
    const char *explain_method;    /* "tracepoints" or "window" */
    const char *explain_reason;    /* window: why no tracepoints */
    int64_t explain_threshold_ns;  /* 0: the default rule */
    const struct explain *explain; /* tracepoints: the finished explainer */
    /* the start and the stop of the measuring threads: NULL when none started */
    const struct engine_timing *timing;
    /* --tail: NULL without it, and in a result written while the run goes
     * on (the analysis runs at the end) */
    const struct run_report_tail *tail;
    /* --per-cpu: the text summary has a row per CPU however many there are
     * (else more than TEXT_MANY_MAX_ROWS collapse to the worst ones) */
    bool per_cpu;
};

/* Samples CPU result r does not count. A final result counts every sample
 * (the measuring thread counts what its ring dropped); a result written
 * while the run goes on is the collector's running copy, counted from what
 * the rings delivered, so it lacks every sample they dropped so far: its
 * counts, statistics, histogram and percentiles are then not exact. */
static inline uint64_t run_report_cpu_lacking(const struct run_report *rep,
                                              const struct cpu_result *r)
{
    return rep->in_progress ? r->ring_drops : 0;
}

/* Merges the per-CPU results into the all_* fields (all_hist must point at
 * storage owned by the caller). */
void run_report_merge(struct run_report *rep);

#endif
