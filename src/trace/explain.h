/*
 * `run --explain`: from the collector's samples and the tracepoint capture
 * to explained spikes. Each sample above the threshold becomes a pending
 * spike; after every drain pass the collector calls explain_drained, which
 * reads the trace buffers into a bounded per-CPU window of recent events
 * and attributes (trace/attribute.h) every pending spike whose events have
 * all arrived, flagging those whose events the capture lost; the spike store (trace/spikes.h) keeps
 * the largest and the summary. Everything is allocated by explain_open, before the engine starts;
 * nothing here touches the measuring threads. Without tracepoints the same threshold detects and
 * counts the spikes, and at the end the telemetry windows explain them (trace/window_explain.h).
 */
#ifndef JITTERLAB_TRACE_EXPLAIN_H
#define JITTERLAB_TRACE_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/ring.h"
#include "sys/cpulist.h"
#include "trace/spikes.h"
#include "trace/window_explain.h"

/* Spike threshold when none is given: max(EXPLAIN_MIN_THRESHOLD_NS,
 * EXPLAIN_P50_FACTOR x the CPU's running median latency). */
#define EXPLAIN_MIN_THRESHOLD_NS (50 * 1000)
#define EXPLAIN_P50_FACTOR       10
#define EXPLAIN_POLICIES_SEEN    64
#define EXPLAIN_TRACEPOINTS_MAX  64 /* as many as the capture opens per CPU */

/* What tells the host's late wake-up of a halted vCPU from the exit of a
 * guest idle state (trace/attribute.h, struct spike_request). */
struct explain_platform {
    bool hypervisor;                  /* the CPU flag: a guest */
    bool idle_driver;                 /* a cpuidle driver (not "none", not absent) */
    int64_t idle_exit_latency_max_ns; /* the longest any state of the CPUs declares; 0 unknown */
};

struct explain_config {
    const struct cpulist *cpus;
    int64_t interval_ns;
    int64_t threshold_ns; /* 0: the default rule */
    size_t keep;          /* spikes kept in full */
    int64_t poll_period_ns;
    /* The measuring threads never sleep (`noise`): a sample is a gap in a
     * busy loop (latency_ns its length, t_ns its end), every sample given
     * is a spike, attributed with SPIKE_BUSY (trace/attribute.h); beyond
     * the pending spikes one drain pass holds, gaps are counted only (the
     * attributed callback says which were attributed). */
    bool busy;
    /* When set: called with every spike once attributed, before the store
     * keeps or counts it (i: the CPU's index). */
    void (*attributed)(void *arg, int i, const struct spike *s);
    void *attributed_arg;
    struct explain_platform platform;
    /* When set, the capture to read instead of opening the tracepoints
     * (tests: trace_capture_open_memory); explain_free closes it. */
    struct trace_capture *capture;
};

struct explain_cpu;
struct trace_capture;

struct explain {
    struct explain_config cfg;
    struct trace_capture *capture;
    struct explain_cpu *cpu;
    int ncpu;
    int64_t start_ns; /* CLOCK_MONOTONIC of the run's planned wake-up 0 */
    struct spike_store store;
    /* filled by explain_finish */
    bool finished;
    uint64_t events;
    uint64_t events_lost;
    /* the records of each tracepoint that recorded any */
    const char *tracepoint[EXPLAIN_TRACEPOINTS_MAX];
    uint64_t tracepoint_events[EXPLAIN_TRACEPOINTS_MAX];
    size_t ntracepoints;
    const struct spike *kept;
    size_t kept_count;
    struct spike_summary_row rows[SPIKES_GROUPS_MAX + 1];
    size_t nrows;
    const char *(*kept_policy)[SPIKE_CAUSES_MAX]; /* per kept spike and cause */
    const char *row_policy[SPIKES_GROUPS_MAX + 1];
    /* the policies last read, by pid, for tasks that end before their
     * spikes are explained */
    struct explain_policy_seen {
        int32_t pid;
        int32_t prio; /* the trace's, when the policy was read */
        int16_t policy;
    } seen[EXPLAIN_POLICIES_SEEN];
    size_t next_seen;
    /* the window method (capture NULL): filled by explain_by_windows */
    struct window_explanation windows;
};

/* Opens the capture and allocates everything: 0. 1 when the tracepoints
 * cannot be used, with the reason in err: spikes are then only detected and
 * counted (capture NULL), for the window method. -1 when out of memory. */
int explain_open(struct explain *x, const struct explain_config *cfg, char *err, size_t errlen);
/* Once the engine runs: its start time and each thread's tid (by CPU
 * index); enables the capture. */
int explain_start(struct explain *x, int64_t start_ns, const int *tids);
/* Collector sink: one sample of the CPU cpu (the real id); true when it
 * is a spike. Busy (cfg.busy): true when it will be attributed (the
 * attributed callback then sees the CPU's spikes in the order given). */
bool explain_sample(struct explain *x, int cpu, const struct cycle_sample *s);
/* Collector: after each drain pass. */
void explain_drained(struct explain *x);
/* After the last drain: reads what is left, attributes every pending
 * spike, sorts the kept ones by time and resolves thread policies. */
void explain_finish(struct explain *x);
/* The window method: explains the telemetry windows whose spike counts
 * came from explain_sample. 0, or -1 when out of memory. */
int explain_by_windows(struct explain *x, const struct telemetry_window *w, size_t n,
                       const char *const *softirq_names, int nsoftirq);
/* Spikes detected on the CPU of index i, and on all. */
uint64_t explain_cpu_spikes(const struct explain *x, int i);
uint64_t explain_spikes(const struct explain *x);
void explain_free(struct explain *x);

struct sysroot;
struct system_info;
/* Reads *out from the machine (hypervisor from si, cpuidle of cpus). */
void explain_platform_read(const struct sysroot *sr, const struct system_info *si,
                           const struct cpulist *cpus, struct explain_platform *out);

/* The policy of a thread for people. The trace's kernel priority decides
 * the class: SCHED_DEADLINE below 0, real-time below 100, normal above.
 * policy (a SCHED_* value read from the live task when the spike was
 * explained, -1 unknown) only refines it within that class: "SCHED_FIFO"
 * or "SCHED_RR"; without it "SCHED_FIFO/RR" (the priority cannot tell
 * them apart), and "SCHED_OTHER" for a normal task (OTHER, BATCH and IDLE
 * share priorities 100..139). The task is never read here: by the end of
 * the run it may be gone, or its pid another task's. */
const char *explain_thread_policy(int32_t prio, int policy);

#endif
