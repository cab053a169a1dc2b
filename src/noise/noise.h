/*
 * `jitterlab noise`: what takes a busy CPU away. One thread per measured
 * CPU, pinned, spins reading the clock (crosscpu/timebase.h: the invariant
 * TSC, calibrated, else CLOCK_MONOTONIC); every step between two reads
 * longer than the threshold is a gap, the CPU taken from the loop. The
 * thread keeps its own exact figures (count, sum, floor, the gap histogram
 * and statistics) and hands every gap to the collector through an SPSC
 * ring (engine/ring.h, a gap as a struct cycle_sample: t_ns its end,
 * latency_ns its length, both from the run start), for report windows and
 * attribution. With SCHED_FIFO the loop spins in bounded slices (runtime of
 * every period) and sleeps in between, so that the kernel's own work runs;
 * each sleep goes through the ring too, marked NOISE_OFF in `missed`, so
 * that what ran meanwhile can be attributed the same way.
 *
 * The collector is the calling thread: noise_run starts the team on a
 * thread of its own (signals blocked), waits until every thread runs,
 * calls sinks->started, opens the gate and drains the rings every poll
 * period until the team ends (duration, or stop_requested()). Report
 * windows are closed once every CPU's thread has been seen past their end
 * (a heartbeat each thread writes at most every NOISE_CHECK_NS), so a gap
 * across a boundary is split between its windows exactly.
 *
 * Every spin is bounded: the loop checks its deadline at least every
 * NOISE_CHECK_NS, and a slice never outlasts the run's end.
 */
#ifndef JITTERLAB_NOISE_NOISE_H
#define JITTERLAB_NOISE_NOISE_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crosscpu/timebase.h"
#include "engine/ring.h"
#include "stats/histogram.h"
#include "stats/running_stats.h"

#define NOISE_CHECK_NS      (1000 * 1000)      /* deadline and stop checks: 1 ms */
#define NOISE_RING_SLOTS    8192               /* gaps per CPU between two drains */
#define NOISE_RING_BUDGET   ((size_t)16 << 20) /* bytes of every CPU's ring together */
#define NOISE_RING_MIN      1024
#define NOISE_POLL_NS       (10 * 1000 * 1000) /* the collector's drain period */
#define NOISE_WINDOWS_MAX   100000             /* report windows kept per CPU (the first) */
#define NOISE_WINDOWS_TOTAL 1000000            /* and of all CPUs together */
#define NOISE_START_WAIT_NS (3 * INT64_C(1000000000))

struct noise_config {
    const int *cpus;
    int n;
    bool fifo; /* else SCHED_OTHER */
    int priority;
    int64_t duration_ns;
    int64_t threshold_ns;
    int64_t runtime_ns; /* of every period_ns; runtime == period: one slice */
    int64_t period_ns;
    int64_t window_ns; /* report windows; 0: none */
    uint32_t us_rows;  /* > 0: also a 1 us linear histogram of the gaps (--histogram-file) */
    const struct timebase *tb;
};

/* One report window of one CPU. */
struct noise_window {
    int64_t t_ns;        /* end, relative to the start */
    int64_t duration_ns; /* the window's length */
    int64_t measured_ns; /* of it, time the loop was spinning (slices) */
    int64_t noise_ns;    /* gap time inside the window */
    uint64_t gaps;       /* gaps that ended in it */
    int64_t max_ns;      /* the longest of them; 0 when none */
    int cpu;
};

/* What one CPU's thread writes; read by the collector after the end (the
 * heartbeat and the ring during the run). */
struct noise_slot {
    alignas(64) _Atomic int64_t progress_ns; /* thread seen running at, from the start */
    _Atomic int32_t tid;
    int cpu;
    uint64_t iterations;
    uint64_t gaps;
    int64_t noise_ns;
    int64_t floor_ns;       /* the shortest step: the loop's own cost; INT64_MAX: none */
    int64_t max_gap_end_ns; /* end of the longest gap, from the start */
    int64_t measured_ns;    /* time spent spinning */
    int64_t off_ns;         /* time slept between slices */
    uint64_t slices;
    struct running_stats stats; /* gap lengths */
    struct latency_hist hist;   /* gap lengths */
    /* the 1 us histogram (us_rows entries) and the numbers of the gaps
     * beyond it (the first us_rows of them), only with us_rows > 0 */
    uint64_t *us_hist;
    uint64_t us_overflow;
    uint64_t *overflow_at;
    struct sample_ring ring;
    alignas(64) char pad[1];
};

/* cycle_sample.missed of a ring record that is a sleep between slices */
#define NOISE_OFF 1u

struct noise;

/* What the collector hands on while it drains. */
struct noise_sinks {
    void *arg;
    /* every thread runs: tids by CPU index; start_ns is the CLOCK_MONOTONIC
     * of the start every time is relative to */
    void (*started)(void *arg, int64_t start_ns, const int *tids);
    /* every gap of CPU index i, and every sleep between slices (missed ==
     * NOISE_OFF), in order per CPU */
    void (*gap)(void *arg, int i, const struct cycle_sample *g);
    /* a report window closed (all CPUs' windows of one time, CPU order) */
    void (*window)(void *arg, int i, const struct noise_window *w);
    /* after every drain pass; now_ns from the start */
    void (*drained)(void *arg, int64_t now_ns);
};

/* Allocates and prefaults everything for cfg (slots, rings, windows). 0, or
 * -1 with err. */
int noise_create(const struct noise_config *cfg, struct noise **out, char *err, size_t errlen);
/* Runs the measurement (see above). 0, or -1 with err when the threads
 * could not be started (then nothing was measured). */
int noise_run(struct noise *nz, const struct noise_sinks *sinks, char *err, size_t errlen);
const struct noise_slot *noise_slot(const struct noise *nz, int i);
/* The kept windows of CPU index i and how many were not kept. */
const struct noise_window *noise_windows(const struct noise *nz, int i, size_t *count,
                                         uint64_t *dropped);
/* The run's facts once noise_run returned. */
bool noise_realtime(const struct noise *nz);    /* every thread ran at SCHED_FIFO */
int64_t noise_start_ns(const struct noise *nz); /* CLOCK_MONOTONIC */
int64_t noise_elapsed_ns(const struct noise *nz);
bool noise_interrupted(const struct noise *nz);
uint64_t noise_ring_drops(const struct noise *nz, int i);
void noise_free(struct noise *nz);

/* A gap of len_ns ending at end_ns (from the start) into the windows
 * win[0..cap) of window_ns each: its time split between the windows it
 * overlaps, counted (and its length for the max) in the window it ends in.
 * false when it ends beyond the last window (its part inside is added).
 * Pure. */
bool noise_windows_add_gap(struct noise_window *win, size_t cap, int64_t window_ns, int64_t end_ns,
                           int64_t len_ns);
/* Of [w0, w1) (from the start), the time inside the planned slices:
 * [k * period, k * period + runtime) within [0, duration). Pure. */
int64_t noise_slices_overlap(int64_t w0, int64_t w1, int64_t runtime_ns, int64_t period_ns,
                             int64_t duration_ns);

/* Slots of each CPU's gap ring for ncpu CPUs: NOISE_RING_SLOTS, halved
 * while all rings together would pass NOISE_RING_BUDGET, never below
 * NOISE_RING_MIN (256 CPUs: 1024 slots, 64 KiB a CPU). */
size_t noise_ring_slots(int ncpu);

#endif
