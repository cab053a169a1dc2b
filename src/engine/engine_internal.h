/*
 * What the engine's two files share (engine.c: creation, memory, results;
 * engine_threads.c: the cycle loop and the threads' start and stop): the
 * per-CPU slot and the engine itself. Nothing outside src/engine/ includes
 * this.
 */
#ifndef JITTERLAB_ENGINE_ENGINE_INTERNAL_H
#define JITTERLAB_ENGINE_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "engine/engine.h"

/* The loop needs little stack; at 256 CPUs every KiB here is 256 KiB
 * locked (mlockall populates each thread's whole stack). */
#define THREAD_STACK_BYTES (64 * 1024)

/* Bytes of the page that holds what a cycle touches besides the buckets. */
#define SLOT_HOT_PAGE 4096

/* After a sleep, each further page a cycle touches costs more than a
 * further line of a page it has touched already (on the development VM
 * 16-34 ns a page against 1-19 ns a line at 1 ms: bench/page_cost.c):
 * a slot starts on a page of its own, and that first page holds the
 * ring's producer line, the stop flag and the result's per-cycle lines
 * (asserted in engine.c). The buckets a cycle adds to are on the
 * histograms' own pages. */
struct cpu_slot {
    alignas(SLOT_HOT_PAGE) struct sample_ring ring;
    alignas(64) _Atomic bool stop;        /* this thread's copy of the engine's */
    alignas(64) struct cpu_result result; /* written by this slot's thread */
    struct workload *workload;            /* NULL without --workload */
    /* the result's other histograms in one block: exec, response, then
     * llc-misses and IPC when counted (hists_count of them) */
    struct latency_hist *hists;
    size_t hists_count;
    struct counter_set counters;
    char setup_error[256]; /* set by the thread before it reports ready */
    int sleep_error;       /* errno of a clock_nanosleep failure that ended the loop */
    int refused;           /* errno of a refused SCHED_DEADLINE, set before ready */
    /* runtime overruns, counted by the SIGXCPU handler on this thread */
    _Atomic uint64_t dl_overruns;
    int tid;               /* the thread's kernel id, set before it reports ready */
    int64_t ready_ns;      /* when it reported ready (CLOCK_MONOTONIC) */
    int64_t run_ns_at_end; /* its CPU time when it ended; -1 before */
    /* the tally of the samples the ring could not take, by the thread */
    struct cycle_tally dropped;
    /* the tally of the samples it took, by engine_drain on the collector */
    alignas(64) struct cycle_tally taken;
    alignas(64) _Atomic bool done; /* written once by the thread */
    alignas(64) pthread_t thread;  /* read-only after engine_start */
    bool started;
    bool orphan; /* never reported ready in time: detached, not joined */
    struct engine *engine;
    struct waker *waker; /* --wake MECH: this CPU's waker and channel (waker.h); else NULL */
};

struct engine {
    struct engine_config cfg;
    struct cpulist cpus;
    int n;
    struct cpu_slot *slots;
    /* start gate: threads report ready, then wait for GATE_GO or GATE_ABORT */
    pthread_mutex_t gate_lock;
    pthread_cond_t gate_cond;
    int ready_count;
    int gate;
    int64_t start_ns;
    struct engine_timing timing;
    /* Threads that never reported ready in time (detached): the last of
     * them to end frees the engine if engine_destroy came first. Under
     * gate_lock. */
    int orphans;
    bool destroy_pending;
    double ns_per_tick;
    double tsc_hz;
    bool degraded;
    enum engine_lock lock;
    struct workload_spec workload_spec;
    alignas(64) _Atomic bool stop;
    alignas(64) _Atomic int finished;
};

/* The gate's states: threads report ready, then wait for GO or ABORT. */
enum { GATE_WAIT, GATE_GO, GATE_ABORT };

/* What one cycle measured, handed from a loop to record_sample (engine_threads.c). */
struct cycle_measure {
    uint64_t k;
    int64_t wake_rel;
    int64_t latency;
    int64_t period;
    int64_t exec;
    uint32_t missed_before;
    const uint64_t *counters_before;
    const uint64_t *counters_after;
};

/* The sample of one cycle into the slot's result and ring (the timer
 * loop's record_sample, for the wake loop of engine_wake.c). */
void engine_record_cycle(struct cpu_slot *s, const struct record_rules *rules,
                         const struct cycle_measure *m, bool counting);
/* The measured thread's loop of a run woken by a waker (--wake MECH). */
void engine_wake_loop(struct cpu_slot *s);
/* Page faults of the calling thread so far; -1 if the kernel does not say. */
int64_t thread_page_faults(void);

/* Frees everything the engine allocated (engine_destroy, or the last
 * thread whose CPU never ran it in time). */
void engine_free(struct engine *e);

#endif
