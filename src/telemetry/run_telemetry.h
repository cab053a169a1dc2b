/*
 * Telemetry inside `run`: once per telemetry window the collector takes a
 * snapshot (telemetry.h) and every measured CPU gets one record that puts
 * the window's latency (samples, missed, max, p99, mean, spikes) beside
 * what the CPU did (frequency, busy, idle, interrupts, steal, ...). A
 * window ends at the snapshot's time; a sample belongs to the window its
 * wake-up time falls in, so a CPU's window closes when its first sample
 * after the snapshot arrives (or at the next snapshot, for a CPU that sent
 * nothing). The newest `keep` records (all CPUs together) are kept in
 * storage allocated before the first cycle. Runs on the collector only.
 */
#ifndef JITTERLAB_TELEMETRY_RUN_TELEMETRY_H
#define JITTERLAB_TELEMETRY_RUN_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/ring.h"
#include "stats/histogram.h"
#include "stats/keep_ring.h"
#include "stats/running_stats.h"
#include "telemetry/telemetry.h"

/* One CPU over one telemetry window. */
struct telemetry_window {
    int64_t t_ns;        /* end of the window (the snapshot), relative to the run start */
    int64_t duration_ns; /* from the snapshot before */
    int cpu;
    uint64_t samples;
    uint64_t missed;
    uint64_t spikes; /* samples above the --explain threshold */
    int64_t max_ns;  /* latency; 0 without samples */
    int64_t p99_ns;
    double mean_ns;
    struct telemetry_cpu_figures fig;
};

struct run_telemetry_cpu;

struct run_telemetry {
    struct telemetry *t;
    int ncpu;
    struct run_telemetry_cpu *cpu;
    int64_t boundary_ns;   /* time of the last snapshot, relative to the run start */
    int64_t prev_boundary; /* the one before: a window's start */
    uint64_t ticks;        /* snapshots taken since the start */
    struct telemetry_cpu_figures *pending; /* per CPU, of the window ending at boundary_ns */
    struct keep_ring kept;                 /* the newest records */
    /* Called with each record as it closes (i: the CPU's index), when set
     * after run_telemetry_init: the exporters' feed. */
    void (*on_window)(void *ctx, int i, const struct telemetry_window *w);
    void *on_window_ctx;
};

/* Allocates everything for ncpu CPUs (the telemetry's, in order) and at
 * most keep records. 0, or -1 with err. */
int run_telemetry_init(struct run_telemetry *rt, struct telemetry *t, uint64_t keep, char *err,
                       size_t errlen);
/* The run starts: the snapshot every window is measured from. */
void run_telemetry_start(struct run_telemetry *rt);
/* A sample of the CPU of index i; spike: it was above the explain threshold. */
void run_telemetry_sample(struct run_telemetry *rt, int i, const struct cycle_sample *s,
                          bool spike);
/* A snapshot at t_ns (relative to the run start): closes the windows that
 * are still open from the last one, then takes the new one. */
void run_telemetry_tick(struct run_telemetry *rt, int64_t t_ns);
/* Between snapshots, at every drain (context-switch rings). */
void run_telemetry_poll(struct run_telemetry *rt);
/* After the last drain (the last run_telemetry_tick was taken at the end
 * of the run): closes every window; missed[i] is the CPU's total of missed
 * periods, so that those after its last sample count in its last window. */
void run_telemetry_finish(struct run_telemetry *rt, const uint64_t *missed);
/* The kept records, oldest first; the number not kept goes to *dropped. */
const struct telemetry_window *run_telemetry_windows(struct run_telemetry *rt, uint64_t *count,
                                                     uint64_t *dropped);
void run_telemetry_free(struct run_telemetry *rt);

#endif
