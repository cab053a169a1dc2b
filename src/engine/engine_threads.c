/*
 * The per-CPU cycle loop and the threads that run it (see engine.h).
 *
 * The loop only sleeps (clock_nanosleep on an absolute CLOCK_MONOTONIC
 * time), reads the clock (vDSO or rdtscp), updates the slot it owns and
 * pushes one sample into its ring; everything it touches was allocated,
 * locked and prefaulted by engine_create (engine.c). Each slot is aligned to
 * a cache line and written by one thread only. The threads start behind a
 * gate that gives up on a CPU that never runs its thread. engine_stop wakes
 * sleeping threads with SIGUSR2 and engine_join repeats the wake-up until
 * each thread has ended, so that Ctrl-C never waits for a long interval even
 * when the signal lands just before a thread goes to sleep.
 */
#include "engine/engine_internal.h"

#include "common/clock.h"
#include "engine/cycle_clock.h"
#include "engine/loop_probe.h"
#include "engine/waker.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define STACK_PREFAULT_BYTES (32 * 1024)
/* The start gate: how long a thread may take to report ready (creation,
 * pinning, prefault, calibration of its workload) before the run is called
 * off, plus a little per CPU for the creation of the others. */
#define START_TIMEOUT_NS      (5 * 1000000000LL)
#define START_PER_CPU_NS      (5 * 1000000LL)
#define START_LEAD_NS         (10 * 1000000LL)
#define START_LEAD_PER_CPU_NS (50 * 1000LL)

static inline struct timespec ns_to_timespec(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    return ts;
}

static void prefault_stack(void)
{
    volatile char buf[STACK_PREFAULT_BYTES];
    for (size_t i = 0; i < sizeof(buf); i += 4096)
        buf[i] = 0;
}

static int wait_at_gate(struct cpu_slot *s)
{
    struct engine *e = s->engine;
    pthread_mutex_lock(&e->gate_lock);
    s->ready_ns = monotonic_now_ns();
    e->ready_count++;
    pthread_cond_broadcast(&e->gate_cond);
    while (e->gate == GATE_WAIT)
        pthread_cond_wait(&e->gate_cond, &e->gate_lock);
    int gate = e->gate;
    pthread_mutex_unlock(&e->gate_lock);
    return gate;
}

static void open_gate(struct engine *e, int gate)
{
    pthread_mutex_lock(&e->gate_lock);
    e->gate = gate;
    pthread_cond_broadcast(&e->gate_cond);
    pthread_mutex_unlock(&e->gate_lock);
}

/* Only with counters open (r->counters_open_mask != 0). */
static inline void record_counters(struct cpu_result *r, const struct cycle_measure *m,
                                   struct cycle_sample *cs)
{
    uint32_t open = r->counters_open_mask;
    uint64_t d[COUNTER_COUNT];
    for (int id = 0; id < COUNTER_COUNT; id++) {
        if (!(open & (1u << id)))
            continue;
        d[id] = m->counters_after[id] - m->counters_before[id];
        r->counter_total[id] += d[id];
        if (d[id] > r->counter_max[id])
            r->counter_max[id] = d[id];
    }
    if ((open & (1u << COUNTER_LLC_MISSES)) && r->llc_hist) {
        running_stats_add(&r->llc, (int64_t)d[COUNTER_LLC_MISSES]);
        latency_hist_add(r->llc_hist, (int64_t)d[COUNTER_LLC_MISSES]);
        cs->llc_misses = (int64_t)d[COUNTER_LLC_MISSES];
    }
    uint32_t ipc_pair = (1u << COUNTER_INSTRUCTIONS) | (1u << COUNTER_CYCLES);
    if ((open & ipc_pair) == ipc_pair && d[COUNTER_CYCLES] > 0 && r->ipc_milli_hist) {
        int64_t ipc = (int64_t)(d[COUNTER_INSTRUCTIONS] * 1000 / d[COUNTER_CYCLES]);
        running_stats_add(&r->ipc_milli, ipc);
        latency_hist_add(r->ipc_milli_hist, ipc);
        cs->ipc_milli = (int32_t)ipc;
    }
    if (open & (1u << COUNTER_CONTEXT_SWITCHES))
        cs->context_switches = (int32_t)d[COUNTER_CONTEXT_SWITCHES];
}

/* LOOP_VARIANT selects, at build time, how much of the per-cycle work the
 * loop does, for the overhead experiment in bench/ (`make loop-variants`,
 * bench/vs-cyclictest.sh -b). 0, the product: everything. 1 to 5 are not
 * for use, their results are incomplete by design, and none of them reads
 * the clock again at the end of a cycle without a workload:
 *   1: what cyclictest -h does: latency count/min/max/sum and the 1 us row
 *   2: 1 + the ring record
 *   3: 2 + the log-linear latency histogram
 *   4: 3 + Welford's latency statistics (instead of count/min/max/sum)
 *   5: 4 + what the thread counted of every sample before the ring's
 *      consumer took that over: period, exec and response statistics,
 *      tolerance and deadline, exec and response buckets (all counted
 *      twice in the result)
 *   6: the product, and right after the wake-up clock read a prefetch of
 *      the result's two per-cycle lines and of the ring's producer line,
 *      so that their misses overlap instead of coming one after another
 *   7: the product, and the exec and response buckets of every sample on
 *      the thread too (counted twice: two pages more per cycle) */
#ifndef LOOP_VARIANT
#define LOOP_VARIANT 0
#endif

static inline void record_sample(struct cpu_slot *s, const struct record_rules *rules,
                                 const struct cycle_measure *m, bool counting)
{
    struct cpu_result *r = &s->result;
    int64_t latency = m->latency;
#if LOOP_VARIANT >= 1 && LOOP_VARIANT <= 4
    (void)rules;
    if (LOOP_VARIANT >= 4) {
        running_stats_add(&r->latency, latency);
    } else {
        r->latency.count++;
        r->latency.mean += (double)latency; /* a sum here */
        if (latency < r->latency.min)
            r->latency.min = latency;
        if (latency > r->latency.max)
            r->latency.max = latency;
    }
    if (LOOP_VARIANT >= 3)
        latency_hist_add_bucket(&r->hist, latency);
    cpu_result_record_us(r, latency, m->k);
    if (LOOP_VARIANT == 1) {
        r->samples++;
        return;
    }
#else
    cpu_result_record_sample(r, m->wake_rel, latency);
    cpu_result_record_us(r, latency, m->k);
#endif
    struct cycle_sample cs = {
        .t_ns = m->wake_rel,
        .latency_ns = latency,
        .period_ns = m->period,
        .exec_ns = m->exec,
        .missed = m->missed_before,
        .seq = (uint32_t)r->samples,
        .llc_misses = -1,
        .ipc_milli = -1,
        .context_switches = -1,
    };
    if (counting)
        record_counters(r, m, &cs);
    r->samples++;
    bool taken = sample_ring_push(&s->ring, &cs);
    if (LOOP_VARIANT == 7)
        cpu_result_record_exec(r, m->latency, m->exec, true);
    if (LOOP_VARIANT == 5)
        taken = false;
    /* What the ring's consumer cannot count, the thread counts itself:
     * the result stays exact (engine_settle puts the two together). */
    if (!taken && (LOOP_VARIANT == 0 || LOOP_VARIANT >= 5)) {
        cycle_tally_add(&s->dropped, rules, latency, m->period, m->exec);
        cpu_result_record_exec(r, latency, m->exec, true);
    }
}

/* Page faults of the calling thread so far, minor and major; -1 if the
 * kernel does not say. */
int64_t thread_page_faults(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return -1;
    return (int64_t)ru.ru_minflt + (int64_t)ru.ru_majflt;
}

static void thread_setup(struct cpu_slot *s)
{
    struct cpu_result *r = &s->result;
    s->tid = (int)gettid();
    sigset_t only_wake;
    sigfillset(&only_wake);
    sigdelset(&only_wake, SIGUSR2);
    pthread_sigmask(SIG_SETMASK, &only_wake, NULL);
    char name[16];
    snprintf(name, sizeof(name), "jitterlab/%d", r->cpu);
    pthread_setname_np(pthread_self(), name);
    /* The default 50 us slack would be measured as latency under
     * SCHED_OTHER (the kernel ignores slack for real-time threads). */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    r->timer_slack_ns = slack >= 0 ? slack : -1;
    prefault_stack();
    if (s->workload)
        workload_calibrate(s->workload);
    if (s->engine->cfg.counters_mask) {
        if (counters_open(&s->counters, s->engine->cfg.counters_mask, s->setup_error,
                          sizeof(s->setup_error)) == 0) {
            r->counters_open_mask = s->counters.open_mask;
            r->hw_available = s->counters.hw_available;
            snprintf(r->hw_reason, sizeof(r->hw_reason), "%s", s->counters.hw_reason);
        }
    }
    struct sched_param sp;
    pthread_getschedparam(pthread_self(), &r->sched_policy, &sp);
    r->sched_priority = sp.sched_priority;
    /* Last, once everything is prepared on the thread's own CPU: from here
     * on the scheduler places it (deadline.h). The policy recorded is the
     * kernel's read-back (the C library's cache knows nothing of it). */
    if (s->engine->cfg.policy == SCHED_DEADLINE) {
        int rc = deadline_enter(&s->engine->cfg.reservation, &s->dl_overruns);
        if (rc != 0) {
            s->refused = rc;
            snprintf(s->setup_error, sizeof(s->setup_error),
                     "the kernel refused SCHED_DEADLINE: %s", strerror(rc));
        } else if (deadline_read_back(&r->sched_reservation) == 0) {
            r->sched_policy = SCHED_DEADLINE;
            r->sched_priority = 0;
        }
    }
}

static void thread_done(struct cpu_slot *s)
{
    struct engine *e = s->engine;
    s->result.ring_drops = atomic_load_explicit(&s->ring.drops, memory_order_relaxed);
    s->result.dl_overruns = atomic_load_explicit(&s->dl_overruns, memory_order_relaxed);
    cpu_result_finish_hists(&s->result);
    counters_close(&s->counters);
    /* The scheduler's run time of this thread (what /proc/TID/schedstat
     * says), kept because that file goes with the thread: the last
     * telemetry snapshot is taken after the threads have ended. */
    struct timespec cpu;
    s->run_ns_at_end = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0
                           ? (int64_t)cpu.tv_sec * 1000000000 + cpu.tv_nsec
                           : -1;
    atomic_store_explicit(&s->done, true, memory_order_release);
    atomic_fetch_add_explicit(&e->finished, 1, memory_order_acq_rel);
    pthread_mutex_lock(&e->gate_lock);
    bool orphan = s->orphan;
    bool last = orphan && --e->orphans == 0 && e->destroy_pending;
    pthread_mutex_unlock(&e->gate_lock);
    if (last)
        engine_free(e); /* nobody else touches the engine any more */
}

static void *cycle_thread(void *arg)
{
    struct cpu_slot *s = arg;
    struct engine *e = s->engine;
    const struct engine_config *cfg = &e->cfg;
    struct cpu_result *r = &s->result;

    thread_setup(s);
    if (wait_at_gate(s) != GATE_GO) {
        thread_done(s);
        return NULL;
    }

    if (cfg->wake != WAKE_TIMER) { /* woken by a waker thread: engine_wake.c */
        engine_wake_loop(s);
        thread_done(s);
        return NULL;
    }

    const int64_t interval = cfg->interval_ns;
    const int64_t start = e->start_ns;
    /* No planned time may overflow: the run ends at the last representable
     * one at the latest, whatever the duration or loop count. */
    const int64_t k_max = (INT64_MAX - start) / interval;
    const int64_t end = cfg->duration_ns > 0 && cfg->duration_ns < INT64_MAX - start
                            ? start + cfg->duration_ns
                            : start + k_max * interval;
    struct cycle_clock clk = {.use_tsc = cfg->clock == ENGINE_CLOCK_TSC,
                              .ns_per_tick = e->ns_per_tick};
    uint64_t k = 0;
    int64_t prev_wake = -1;
    uint32_t missed_before = 0;
    /* What a cycle reads, in locals: no line of the shared configuration
     * or of the slot beyond the result is touched from one cycle to the
     * next (engine_internal.h). */
    const bool counting = r->counters_open_mask != 0;
    const struct record_rules rules = record_rules_of(cfg);
    const uint64_t loops = cfg->loops;
    struct workload *const work = s->workload;
    /* A SCHED_DEADLINE thread is not pinned: where each wake-up ran is
     * counted (sched_getcpu reads the rseq area or the vDSO, no system
     * call). */
    const bool placed_by_kernel = cfg->policy == SCHED_DEADLINE;
    const int home_cpu = r->cpu;
    uint64_t before[COUNTER_COUNT] = {0};
    uint64_t after[COUNTER_COUNT] = {0};
    LOOP_PROBE_BEGIN(); /* before the count: its own faults are not the loop's */
    /* Everything the loop touches was made resident before the gate; the
     * faults it still takes are counted, so that this is seen, not assumed. */
    const int64_t faults_before = thread_page_faults();
    for (;;) {
        int64_t planned = start + (int64_t)k * interval;
        if (planned >= end)
            break;
        if (clk.use_tsc) {
            /* A fresh pair before every sleep: nothing that happens between
             * two reads of one clock can leak into the other's conversion. */
            int64_t err_ns = tsc_pair(3, &clk.anchor_mono, &clk.anchor_tsc);
            if (err_ns > r->tsc_anchor_max_ns)
                r->tsc_anchor_max_ns = err_ns;
        }
        if (atomic_load_explicit(&s->stop, memory_order_relaxed))
            break;
        struct timespec ts = ns_to_timespec(planned);
        LOOP_PROBE_CYCLE();
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        LOOP_PROBE_MARK(0);
        int64_t wake = cycle_clock_now(&clk);
        LOOP_PROBE_MARK(1);
#if LOOP_VARIANT == 6
        for (int line = 0; line < 2; line++)
            __builtin_prefetch((const char *)r + 64 * line, 1, 3);
        __builtin_prefetch(&s->ring, 1, 3);
#endif
        if (rc == EINTR) {
            if (atomic_load_explicit(&s->stop, memory_order_relaxed))
                break; /* woken by engine_stop, not by the timer */
            continue;  /* stray signal: sleep again to the same planned time */
        }
        if (rc != 0) {
            s->sleep_error = rc; /* never spin on a sleep that fails at RT priority */
            break;
        }
        if (placed_by_kernel && sched_getcpu() != home_cpu)
            r->dl_elsewhere++;

        /* The counter reads bracket the execution window, not inside it. */
        int64_t work_start = wake;
        if (counting) {
            counters_read(&s->counters, before);
            work_start = cycle_clock_now(&clk);
        }
        if (work)
            workload_run_cycle(work);
#if LOOP_VARIANT == 0 || LOOP_VARIANT >= 6
        int64_t work_end = cycle_clock_now(&clk);
#else
        int64_t work_end = work ? cycle_clock_now(&clk) : wake;
#endif
        int64_t cycle_end = work_end; /* the moment that decides missed periods */
        if (counting) {
            counters_read(&s->counters, after);
            cycle_end = cycle_clock_now(&clk);
        }
        struct cycle_measure m = {
            .k = k,
            .wake_rel = wake - start,
            .latency = wake - planned,
            /* A period spanning missed cycles is not a period of the loop. */
            .period = prev_wake >= 0 && missed_before == 0 ? wake - prev_wake : 0,
            .exec = work_end - work_start,
            .missed_before = missed_before,
            .counters_before = before,
            .counters_after = after,
        };
        LOOP_PROBE_MARK(2);
        record_sample(s, &rules, &m, counting);
        LOOP_PROBE_MARK(3);
        prev_wake = wake;
        missed_before = 0;
        if (loops && r->samples >= loops)
            break;

        /* Every planned wake-up already in the past is a missed period,
         * counted and skipped (the schedule never shifts). */
        k++;
        int64_t next = start + (int64_t)k * interval;
        if (next < cycle_end && next < end) {
            uint64_t late = (uint64_t)((cycle_end - next - 1) / interval) + 1;
            uint64_t left = (uint64_t)((end - next + interval - 1) / interval);
            if (late > left)
                late = left;
            r->missed += late;
            k += late;
            r->missed_events++;
            missed_before = (uint32_t)(late > UINT32_MAX ? UINT32_MAX : late);
        }
    }
    LOOP_PROBE_REPORT(r->cpu);
    int64_t faults_after = thread_page_faults();
    if (faults_before >= 0 && faults_after >= 0)
        r->page_faults = faults_after - faults_before;
    thread_done(s);
    return NULL;
}

static void wake_handler(int sig)
{
    (void)sig; /* only interrupts clock_nanosleep */
}

/* Each thread reads its slot's flag (on the page it touches anyway, see
 * engine_internal.h); engine_join waits on the engine's. */
static void request_stop(struct engine *e)
{
    atomic_store(&e->stop, true);
    for (int i = 0; i < e->n; i++)
        atomic_store(&e->slots[i].stop, true);
}

static int create_thread(struct engine *e, struct cpu_slot *s, bool realtime)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, THREAD_STACK_BYTES);
    /* Sized for the CPU's id: a fixed cpu_set_t ends at CPU 1023. */
    size_t setsize = CPU_ALLOC_SIZE(s->result.cpu + 1);
    cpu_set_t *set = CPU_ALLOC(s->result.cpu + 1);
    if (!set) {
        pthread_attr_destroy(&attr);
        return ENOMEM;
    }
    CPU_ZERO_S(setsize, set);
    CPU_SET_S(s->result.cpu, setsize, set);
    pthread_attr_setaffinity_np(&attr, setsize, set);
    CPU_FREE(set);
    if (realtime) {
        struct sched_param sp = {.sched_priority = e->cfg.priority};
        pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&attr, e->cfg.policy);
        pthread_attr_setschedparam(&attr, &sp);
    } else {
        struct sched_param sp = {.sched_priority = 0};
        pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
        pthread_attr_setschedparam(&attr, &sp);
    }
    int rc = pthread_create(&s->thread, &attr, cycle_thread, s);
    pthread_attr_destroy(&attr);
    return rc;
}

int engine_start(struct engine *e, char *err, unsigned long errlen)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = wake_handler; /* no SA_RESTART: the sleep must return */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);

    /* A SCHED_DEADLINE thread starts as SCHED_OTHER and asks for its
     * reservation itself, in the gate (thread_setup). */
    bool realtime = e->cfg.policy != SCHED_OTHER && e->cfg.policy != SCHED_DEADLINE && !e->degraded;
    if (e->cfg.policy == SCHED_DEADLINE)
        deadline_overrun_handler_install();
    int64_t t0 = monotonic_now_ns();
    for (int i = 0; i < e->n; i++) {
        struct cpu_slot *s = &e->slots[i];
        int rc = create_thread(e, s, realtime);
        if (rc == EPERM && realtime) {
            e->degraded = true;
            realtime = false;
            rc = create_thread(e, s, false);
        }
        if (rc != 0) {
            snprintf(err, errlen, "cannot start the thread for CPU %d: %s", s->result.cpu,
                     strerror(rc));
            open_gate(e, GATE_ABORT);
            engine_join(e);
            return -1;
        }
        s->started = true;
    }
    if (wakers_start(e, err, errlen) != 0) {
        open_gate(e, GATE_ABORT);
        engine_join(e);
        return -1;
    }
    int64_t created = monotonic_now_ns();
    /* Bounded: a CPU held by a higher-priority task never runs its thread's
     * setup, and a run must not wait for it forever. */
    int64_t deadline = created +
                       (e->cfg.start_timeout_ns > 0 ? e->cfg.start_timeout_ns : START_TIMEOUT_NS) +
                       START_PER_CPU_NS * e->n;
    struct timespec until = ns_to_timespec(deadline);
    pthread_mutex_lock(&e->gate_lock);
    int rc = 0;
    while (e->ready_count < e->n && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&e->gate_cond, &e->gate_lock, &until);
    if (e->ready_count < e->n) {
        int late = -1;
        for (int i = 0; i < e->n; i++)
            if (e->slots[i].ready_ns == 0) {
                e->slots[i].orphan = true;
                e->orphans++;
                if (late < 0)
                    late = e->slots[i].result.cpu;
            }
        snprintf(err, errlen,
                 "CPU %d did not run its measuring thread within %.1f s (a task of higher "
                 "priority holds it?)",
                 late, (double)(deadline - created) / 1e9);
        e->gate = GATE_ABORT;
        pthread_cond_broadcast(&e->gate_cond);
        pthread_mutex_unlock(&e->gate_lock);
        request_stop(e);
        engine_join(e);
        return -1;
    }
    for (int i = 0; i < e->n; i++) {
        if (e->slots[i].setup_error[0]) {
            snprintf(err, errlen, "CPU %d: %s", e->slots[i].result.cpu, e->slots[i].setup_error);
            e->gate = GATE_ABORT;
            pthread_cond_broadcast(&e->gate_cond);
            pthread_mutex_unlock(&e->gate_lock);
            engine_join(e);
            return -1;
        }
    }
    int64_t ready = monotonic_now_ns();
    e->timing.create_ns = created - t0;
    e->timing.ready_ns = ready - t0;
    for (int i = 0; i < e->n; i++)
        if (e->slots[i].ready_ns - t0 >= e->timing.slowest_ready_ns) {
            e->timing.slowest_ready_ns = e->slots[i].ready_ns - t0;
            e->timing.slowest_cpu = e->slots[i].result.cpu;
        }
    /* First planned wake-up a little ahead, so that every thread is asleep:
     * all leave the gate through one mutex, a little time each. */
    e->start_ns = ready + START_LEAD_NS + START_LEAD_PER_CPU_NS * e->n;
    e->timing.first_wakeup_ns = e->start_ns - t0;
    e->gate = GATE_GO;
    pthread_cond_broadcast(&e->gate_cond);
    pthread_mutex_unlock(&e->gate_lock);
    return 0;
}

bool engine_finished(const struct engine *e)
{
    return atomic_load(&e->finished) == e->n;
}

void engine_stop(struct engine *e)
{
    if (!e->timing.stop_requested_ns)
        e->timing.stop_requested_ns = monotonic_now_ns();
    request_stop(e);
    wakers_stop(e);
    for (int i = 0; i < e->n; i++)
        if (e->slots[i].started && !atomic_load(&e->slots[i].done))
            pthread_kill(e->slots[i].thread, SIGUSR2);
}

void engine_join(struct engine *e)
{
    wakers_join(e); /* first: no wake goes to a thread that has ended */
    for (int i = 0; i < e->n; i++) {
        struct cpu_slot *s = &e->slots[i];
        if (!s->started)
            continue;
        s->started = false;
        if (s->orphan) {
            /* Its CPU never ran it: it ends at the closed gate when it
             * runs, and nobody waits for that. */
            pthread_detach(s->thread);
            continue;
        }
        /* A wake-up signal that arrived just before the thread went to
         * sleep is lost: repeat it until the thread has ended. */
        while (atomic_load(&e->stop) && !atomic_load(&s->done)) {
            pthread_kill(s->thread, SIGUSR2);
            struct timespec pause = {0, 1000 * 1000};
            nanosleep(&pause, NULL);
        }
        pthread_join(s->thread, NULL);
    }
    if (e->timing.stop_requested_ns)
        e->timing.stop_ns = monotonic_now_ns() - e->timing.stop_requested_ns;
}

int engine_refused(const struct engine *e, int *cpu)
{
    for (int i = 0; i < e->n; i++)
        if (e->slots[i].refused) {
            *cpu = e->slots[i].result.cpu;
            return e->slots[i].refused;
        }
    return 0;
}

const struct engine_timing *engine_timing(const struct engine *e)
{
    return &e->timing;
}

void engine_record_cycle(struct cpu_slot *s, const struct record_rules *rules,
                         const struct cycle_measure *m, bool counting)
{
    record_sample(s, rules, m, counting);
}
