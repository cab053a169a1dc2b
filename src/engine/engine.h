/*
 * The cyclic measurement engine: one pinned thread per measured CPU that
 * sleeps to absolute planned wake times (start + k * interval) and measures
 * how late it runs. Each thread keeps its exact summary (histogram, running
 * statistics, missed periods) in a per-CPU slot of its own and streams every
 * sample through an SPSC ring to the collector (the caller of engine_drain).
 *
 * Life cycle: engine_create -> engine_start -> engine_drain* (until
 * engine_finished) -> engine_stop -> engine_join -> read results ->
 * engine_destroy.
 */
#ifndef JITTERLAB_ENGINE_ENGINE_H
#define JITTERLAB_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/clock.h"
#include "engine/counters.h"
#include "engine/deadline.h"
#include "engine/ring.h"
#include "engine/wake.h"
#include "engine/workload.h"
#include "stats/histogram.h"
#include "stats/running_stats.h"
#include "stats/window.h"
#include "sys/cpulist.h"

enum engine_clock { ENGINE_CLOCK_MONOTONIC, ENGINE_CLOCK_TSC };

/* How much of the process is locked in memory. */
enum engine_lock {
    ENGINE_LOCK_NONE,    /* nothing: page faults possible on the cycle path */
    ENGINE_LOCK_BUFFERS, /* the engine's buffers (RLIMIT_MEMLOCK allowed no more) */
    ENGINE_LOCK_ALL,     /* mlockall(MCL_CURRENT | MCL_FUTURE) */
};

struct engine_config {
    int64_t interval_ns;
    int64_t duration_ns; /* 0: no time limit (loops must be set) */
    uint64_t loops;      /* samples per CPU; 0: no limit */
    int policy;          /* SCHED_FIFO, SCHED_RR, SCHED_OTHER or SCHED_DEADLINE */
    int priority;        /* 1..99 for FIFO/RR */
    /* SCHED_DEADLINE: the reservation of each thread (deadline.h) */
    struct deadline_reservation reservation;
    const struct cpulist *cpus;
    enum engine_clock clock;
    int64_t tolerance_ns;  /* < 0: no tolerance */
    uint32_t us_hist_rows; /* > 0: also keep a 1 us linear histogram (cyclictest -h) */
    const struct workload_spec *workload; /* NULL: no work after the wake-up */
    int64_t deadline_ns;                  /* response time limit */
    uint32_t counters_mask;               /* 1u << enum counter_id; 0: none */
    int64_t start_timeout_ns;             /* the start gate's limit (0: 5 s), plus 5 ms a CPU */
    /* --wake MECH: WAKE_TIMER (0), the thread's own timer; otherwise a
     * waker thread per measured CPU wakes it through MECH at each planned
     * time (engine/waker.c), pinned to waker_cpu at waker_priority
     * (SCHED_FIFO when the run is real-time) */
    enum wake_mech wake;
    int waker_cpu;
    int waker_priority;
};

/* What the waker of one measured CPU did (--wake MECH): its lateness
 * (its wake-up minus the planned time, before each wake call), kept
 * apart from the wake path's latency. */
struct waker_result {
    int cpu;          /* the waker's CPU */
    int measured_cpu; /* the CPU it wakes */
    uint64_t wakes;   /* wake calls made (the final one not counted) */
    uint64_t skipped; /* planned times already past when it woke: never issued */
    uint64_t lost;    /* wake calls that failed (a full pipe or queue) */
    int error;        /* errno of a failure that ended it; 0: none */
    int sched_policy; /* what it really ran with */
    int sched_priority;
    struct running_stats lateness;
    struct latency_hist hist; /* of the lateness */
};

/* Everything a measured CPU's thread produced; exact, and final once
 * engine_settle has run. What every cycle writes comes first, on two cache
 * lines (the engine aligns each result to one): after a sleep, each line
 * the thread touches is likely a miss. The figures of struct cycle_tally
 * (period, execution and response statistics, tolerance and deadline
 * counts) and the execution and response histograms' buckets are counted
 * off the thread: by the ring's consumer for every
 * sample it takes, by the thread itself for every sample the ring could
 * not take, and put together by engine_settle, so that they stay exact
 * whatever the ring dropped. */
struct cpu_result {
    uint64_t samples;
    uint64_t missed;
    uint64_t missed_events; /* times one or more periods were missed in a row */
    int64_t max_at_ns;      /* wake time (relative to start) of the largest latency */
    struct running_stats latency;
    /* NULL in a copy that does not keep them (the collector's running
     * result without a control task); the engine's own always has them */
    struct latency_hist *exec_hist;
    struct latency_hist *response_hist;
    /* linear 1 us histogram, only when us_hist_rows > 0, and the cycle
     * numbers of the first samples beyond it: as cyclictest -h keeps them,
     * as many as there are rows (us_rows entries, allocated before the
     * first cycle; min(us_overflow, us_rows) of them used) */
    uint64_t *us_hist;
    uint64_t us_overflow;
    uint64_t *overflow_cycles;
    uint32_t us_rows;
    /* the figures of the ring's tally (struct cycle_tally) */
    uint64_t over_tolerance; /* latency or |period error| beyond the tolerance */
    uint64_t deadline_misses;
    struct running_stats period; /* consecutive cycles only (none missed between) */
    /* the control task: execution time = wake-up to end of the work,
     * response time = latency + execution time */
    struct running_stats exec;
    struct running_stats response;
    /* set before the first cycle, at the end, or rarely */
    int cpu;
    uint64_t ring_drops;
    /* page faults (minor and major) the measuring thread took from its
     * first sleep to the end of its loop; -1: not known (a running copy,
     * or the loop never ran) */
    int64_t page_faults;
    int sched_policy; /* the policy the thread really ran with */
    int sched_priority;
    /* SCHED_DEADLINE: the reservation as the kernel reads it back (zero
     * otherwise), the runtime overruns it signalled (a lower bound:
     * deadline.c), and the samples whose wake-up ran on another CPU than
     * `cpu`, where the thread was created (the scheduler places a
     * SCHED_DEADLINE thread itself) */
    struct deadline_reservation sched_reservation;
    uint64_t dl_overruns;
    uint64_t dl_elsewhere;
    long timer_slack_ns;       /* the thread's timer slack as the kernel reports it */
    int64_t tsc_anchor_max_ns; /* --clock tsc: largest uncertainty of a clock pair */
    /* counters over the active part of each cycle */
    uint32_t counters_open_mask;
    bool hw_available;
    char hw_reason[160];
    uint64_t counter_total[COUNTER_COUNT];
    uint64_t counter_max[COUNTER_COUNT]; /* largest per-cycle delta */
    struct running_stats llc;
    struct latency_hist *llc_hist; /* allocated only when llc-misses are counted */
    struct running_stats ipc_milli;
    struct latency_hist *ipc_milli_hist; /* only when instructions and cycles are */
    /* the latency histogram; the measuring thread writes only the bucket of
     * each sample, and its count, min and max when the loop ends */
    struct latency_hist hist;
};

/* An empty result for one CPU (statistics initialised, no buffers: the
 * histogram pointers are NULL). */
void cpu_result_init(struct cpu_result *r, int cpu);

/* The rules a sample is counted by (engine_config's), held by the measuring
 * thread on its own stack so that a cycle reads no line of the shared
 * configuration. */
struct record_rules {
    int64_t interval_ns;
    int64_t tolerance_ns; /* < 0: none */
    int64_t deadline_ns;
};

static inline struct record_rules record_rules_of(const struct engine_config *cfg)
{
    struct record_rules rules = {.interval_ns = cfg->interval_ns,
                                 .tolerance_ns = cfg->tolerance_ns,
                                 .deadline_ns = cfg->deadline_ns};
    return rules;
}

/* Count, min and max of histograms filled without headers, from the
 * running statistics of the same values. */
void cpu_result_finish_hists(struct cpu_result *r);

/* What of a sample is counted apart from the measuring thread's own
 * figures (see struct cpu_result): the ring's consumer counts the samples
 * it takes, the thread those its ring could not take. The buckets of the
 * execution and response histograms are added the same way
 * (cpu_result_record_exec). */
struct cycle_tally {
    uint64_t over_tolerance;
    uint64_t deadline_misses;
    struct running_stats period;
    struct running_stats exec;
    struct running_stats response;
};

void cycle_tally_init(struct cycle_tally *t);

/* One sample, by the run's rules (tolerance, deadline). period_ns is 0
 * when the sample has no period (first, or after missed cycles). */
static inline void cycle_tally_add(struct cycle_tally *t, const struct record_rules *rules,
                                   int64_t latency, int64_t period_ns, int64_t exec_ns)
{
    int64_t period_error = 0;
    if (period_ns > 0) {
        running_stats_add(&t->period, period_ns);
        period_error = period_ns - rules->interval_ns;
    }
    if (rules->tolerance_ns >= 0 &&
        (latency > rules->tolerance_ns || period_error > rules->tolerance_ns ||
         -period_error > rules->tolerance_ns))
        t->over_tolerance++;
    running_stats_add(&t->exec, exec_ns);
    running_stats_add(&t->response, latency + exec_ns);
    if (response_misses_deadline(latency, exec_ns, rules->deadline_ns))
        t->deadline_misses++;
}

/* Sets the result's tally figures to those of a and b together (b may be
 * NULL) and completes its histograms' headers: called again, it gives the
 * same result. */
void cpu_result_set_tally(struct cpu_result *r, const struct cycle_tally *a,
                          const struct cycle_tally *b);

/* What one sample adds to a result on the measuring thread: the latency
 * figures and the latency histogram's bucket, whose count, min and max come
 * from the running statistics when the result is settled
 * (cpu_result_finish_hists). */
static inline void cpu_result_record_sample(struct cpu_result *r, int64_t wake_rel_ns,
                                            int64_t latency)
{
    if (r->samples == 0 || latency > r->latency.max)
        r->max_at_ns = wake_rel_ns;
    running_stats_add(&r->latency, latency);
    latency_hist_add_bucket(&r->hist, latency);
}

/* A sample's buckets in the execution and response histograms (a no-op
 * without them). shared: histograms that two threads add to, as the
 * engine's are (the ring's consumer for every sample it takes, the
 * measuring thread for those its ring dropped). */
static inline void cpu_result_record_exec(struct cpu_result *r, int64_t latency, int64_t exec_ns,
                                          bool shared)
{
    if (!r->exec_hist)
        return;
    if (shared) {
        latency_hist_add_bucket_shared(r->exec_hist, exec_ns);
        latency_hist_add_bucket_shared(r->response_hist, latency + exec_ns);
    } else {
        latency_hist_add_bucket(r->exec_hist, exec_ns);
        latency_hist_add_bucket(r->response_hist, latency + exec_ns);
    }
}

/* What one sample adds to the 1 us histogram (a no-op without one): a row,
 * or an overflow whose cycle number k is kept while fewer than us_rows are. */
static inline void cpu_result_record_us(struct cpu_result *r, int64_t latency, uint64_t k)
{
    if (!r->us_hist)
        return;
    uint64_t row = latency > 0 ? (uint64_t)(latency / 1000) : 0;
    if (row < r->us_rows) {
        r->us_hist[row]++;
        return;
    }
    if (r->us_overflow < r->us_rows)
        r->overflow_cycles[r->us_overflow] = k;
    r->us_overflow++;
}

struct engine;

/* What the start and the stop took (ns): engine_start until every thread
 * was created, and until every one had reported ready (pinned, stack and
 * workload prefaulted); the slowest CPU to report; engine_stop until the
 * last thread was joined. */
struct engine_timing {
    int64_t create_ns;
    int64_t ready_ns;
    int64_t slowest_ready_ns;
    int slowest_cpu;
    int64_t first_wakeup_ns;   /* planned wake-up 0 */
    int64_t stop_requested_ns; /* CLOCK_MONOTONIC; 0: never asked to stop */
    int64_t stop_ns;
};

/* Entries of each CPU's sample ring for this interval and CPU count (see
 * engine.c: about 2 s of samples; when all rings would pass 16 MiB, as few
 * as hold 200 ms; never more than 64 MiB in all). */
uint64_t engine_ring_capacity(int64_t interval_ns, int ncpu);

/* Allocates, locks and prefaults everything. Returns NULL and fills err. */
struct engine *engine_create(const struct engine_config *cfg, char *err, unsigned long errlen);
/* Starts the threads; returns when all run their first cycle's setup.
 * Returns 0 or -1 with err filled (thread creation, affinity failure). */
int engine_start(struct engine *e, char *err, unsigned long errlen);
/* Collector: moves up to max samples of measured CPU index i into out,
 * and counts them into the CPU's tally (engine_taken_tally). The only
 * consumer of the rings: call it from one thread. */
uint64_t engine_drain(struct engine *e, int i, struct cycle_sample *out, uint64_t max);
/* What engine_drain has counted of measured CPU index i's samples so far;
 * read on the thread that drains. */
const struct cycle_tally *engine_taken_tally(const struct engine *e, int i);
/* The ring of measured CPU index i, for a producer other than the engine's
 * own threads (the collector benchmark fills it while none is started). */
struct sample_ring *engine_ring(struct engine *e, int i);
/* True once every thread has ended its loop (duration, loops or stop). */
bool engine_finished(const struct engine *e);
/* Asks every thread to end now (signal-safe). */
void engine_stop(struct engine *e);
void engine_join(struct engine *e);
/* After engine_join and the caller's last engine_drain: takes what the
 * rings still hold (lost to the caller) and completes each ended thread's
 * result with the tally of its samples (struct cpu_result). Called again,
 * it changes nothing. */
void engine_settle(struct engine *e);
const struct engine_timing *engine_timing(const struct engine *e);
/* Bytes the engine allocated (slots, rings, histograms: all prefaulted and,
 * where allowed, locked); each started thread adds engine_stack_bytes. */
size_t engine_memory_bytes(const struct engine *e);
size_t engine_stack_bytes(void);
/* How often the collector must drain so that no ring fills between two
 * passes: a quarter of a ring's worth of samples, 1 ms .. 100 ms. */
int64_t engine_drain_period_ns(const struct engine *e);
int engine_cpu_count(const struct engine *e);
/* The configuration the engine runs with (its own copy). */
const struct engine_config *engine_config(const struct engine *e);
/* Final after engine_settle; before it, what the thread has written so
 * far (its tally figures still empty). */
const struct cpu_result *engine_result(const struct engine *e, int i);
/* Samples of measured CPU index i that found its ring full so far; read
 * while the run goes on (the collector's running result). */
uint64_t engine_ring_drops(const struct engine *e, int i);
/* CLOCK_MONOTONIC time of planned wake-up 0, in ns. */
int64_t engine_start_ns(const struct engine *e);
/* TSC ticks per second used for --clock tsc (0 otherwise). */
double engine_tsc_hz(const struct engine *e);
/* True when SCHED_FIFO/RR is not permitted (no privilege): the threads run
 * SCHED_OTHER. Known from engine_create on (a probe thread), so that the
 * caller can say so before the first cycle. */
bool engine_degraded(const struct engine *e);
enum engine_lock engine_memory_lock(const struct engine *e);
/* After engine_start failed: the errno with which the kernel refused a
 * thread's SCHED_DEADLINE reservation (EBUSY, EPERM, EINVAL, ...), and
 * its CPU in *cpu; 0 when the failure was another. */
int engine_refused(const struct engine *e, int *cpu);
/* The kernel thread id of measured CPU index i's thread (what tracepoints
 * name it by); valid once engine_start has returned 0. */
int engine_thread_tid(const struct engine *e, int i);
/* That thread's CPU time (ns) when it ended, -1 while it runs or when the
 * clock failed; once engine_join has returned, final. */
int64_t engine_thread_run_ns(const struct engine *e, int i);
/* Non-zero (an errno) when a thread's clock_nanosleep failed and ended its
 * loop; *cpu names the CPU. */
int engine_sleep_error(const struct engine *e, int *cpu);
void engine_destroy(struct engine *e);
/* The waker of measured CPU index i; NULL in a timer run. Final once
 * engine_join has returned. */
const struct waker_result *engine_waker_result(const struct engine *e, int i);

/* Whether --clock tsc can work on this build (x86 only). */
bool engine_tsc_supported(void);

#endif
