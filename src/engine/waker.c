/*
 * The wakers of `run --wake MECH` (see waker.h). One waker thread per
 * measured CPU, not one for all: each measured CPU's wakes then leave at
 * their planned time whatever the others' wake calls cost, each waker's
 * lateness is that CPU's own figure, and a waker is as simple as the
 * measuring loop it mirrors. Every waker is pinned to --waker-cpu
 * (default: the first housekeeping CPU) at --waker-priority (SCHED_FIFO
 * when the run is real-time). It sleeps on an absolute CLOCK_MONOTONIC
 * time until each planned time start + k * interval, measures its own
 * lateness (its wake-up minus the planned time) into a histogram of its
 * own, takes the timestamp in the engine's clock (the TSC converted the
 * same way with --clock tsc) and issues wake k. A planned time already past
 * when it wakes is skipped, never issued late in a burst: the measured
 * thread sees the gap in the sequence and counts the period missed. Its
 * loop ends at the run's end, on the engine's stop, or when its measured
 * thread has ended; then it issues one final wake with a sequence number
 * at or beyond the channel's end, so that no measured thread stays blocked.
 */
#include "engine/waker.h"

#include "common/clock.h"
#include "engine/cycle_clock.h"
#include "engine/engine_internal.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

uint64_t waker_planned_wakes(int64_t interval_ns, int64_t duration_ns)
{
    if (interval_ns <= 0 || duration_ns <= 0)
        return UINT64_MAX;
    return (uint64_t)((duration_ns - 1) / interval_ns) + 1;
}

int wakers_create(struct engine *e, char *err, size_t errlen)
{
    uint64_t end = waker_planned_wakes(e->cfg.interval_ns, e->cfg.duration_ns);
    for (int i = 0; i < e->n; i++) {
        struct cpu_slot *s = &e->slots[i];
        struct waker *w = aligned_alloc(64, (sizeof(*w) + 63) / 64 * 64);
        if (!w) {
            snprintf(err, errlen, "out of memory for the wakers");
            return -1;
        }
        memset(w, 0, sizeof(*w));
        w->engine = e;
        w->slot = s;
        w->result.cpu = e->cfg.waker_cpu;
        w->result.measured_cpu = s->result.cpu;
        running_stats_init(&w->result.lateness);
        latency_hist_init(&w->result.hist);
        if (wake_channel_open(&w->ch, e->cfg.wake, i, end, err, errlen) != 0) {
            free(w);
            return -1;
        }
        s->waker = w;
    }
    return 0;
}

void wakers_free(struct engine *e)
{
    for (int i = 0; e->slots && i < e->n; i++) {
        struct waker *w = e->slots[i].waker;
        if (!w)
            continue;
        wake_channel_close(&w->ch);
        free(w);
        e->slots[i].waker = NULL;
    }
}

static bool waker_should_stop(const struct waker *w)
{
    return atomic_load_explicit(&w->stop, memory_order_relaxed) ||
           atomic_load_explicit(&w->engine->stop, memory_order_relaxed) ||
           atomic_load_explicit(&w->slot->done, memory_order_relaxed);
}

static void waker_setup(struct waker *w)
{
    sigset_t only_wake;
    sigfillset(&only_wake);
    sigdelset(&only_wake, SIGUSR2);
    pthread_sigmask(SIG_SETMASK, &only_wake, NULL);
    struct sched_param sp;
    pthread_getschedparam(pthread_self(), &w->result.sched_policy, &sp);
    w->result.sched_priority = sp.sched_priority;
    char name[16];
    snprintf(name, sizeof(name), "jl-waker/%d", w->result.measured_cpu);
    pthread_setname_np(pthread_self(), name);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* as the measuring threads */
}

/* The waker's loop: bounded by the run's end, the last representable
 * planned time, the engine's stop and its measured thread's end. */
static void waker_loop(struct waker *w)
{
    struct engine *e = w->engine;
    struct waker_result *r = &w->result;
    const int64_t interval = e->cfg.interval_ns;
    const int64_t start = e->start_ns;
    const int64_t k_max = (INT64_MAX - start) / interval;
    const int64_t end = e->cfg.duration_ns > 0 && e->cfg.duration_ns < INT64_MAX - start
                            ? start + e->cfg.duration_ns
                            : start + k_max * interval;
    struct cycle_clock clk = {.use_tsc = e->cfg.clock == ENGINE_CLOCK_TSC,
                              .ns_per_tick = e->ns_per_tick};
    uint64_t k = 0;
    uint64_t skipped = 0; /* before k, never issued */
    for (;;) {
        int64_t planned = start + (int64_t)k * interval;
        if (planned >= end || waker_should_stop(w))
            break;
        if (clk.use_tsc)
            tsc_pair(3, &clk.anchor_mono, &clk.anchor_tsc);
        struct timespec ts = {(time_t)(planned / 1000000000), (long)(planned % 1000000000)};
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        int64_t woke = cycle_clock_now(&clk);
        if (rc == EINTR)
            continue; /* the stop is checked at the top */
        if (rc != 0) {
            r->error = rc;
            break;
        }
        int64_t lateness = woke - planned;
        running_stats_add(&r->lateness, lateness);
        latency_hist_add(&r->hist, lateness);
        int64_t stamp = cycle_clock_now(&clk);
        rc = wake_post(&w->ch, k, stamp, skipped);
        skipped = 0;
        if (rc == EAGAIN)
            r->lost++;
        else if (rc != 0) {
            r->error = rc;
            break;
        }
        r->wakes++;
        /* planned times already past are skipped (the schedule never shifts) */
        k++;
        int64_t now = cycle_clock_now(&clk);
        int64_t next = start + (int64_t)k * interval;
        if (next < now && next < end) {
            uint64_t late = (uint64_t)((now - next - 1) / interval) + 1;
            uint64_t left = (uint64_t)((end - next + interval - 1) / interval);
            if (late > left)
                late = left;
            r->skipped += late;
            skipped = late;
            k += late;
        }
    }
    /* The final wake: at the end of the planned ones, or, when the waker
     * ends early, the channel's end lowered to it first. */
    if (atomic_load(&w->ch.end_seq) > k)
        atomic_store(&w->ch.end_seq, k);
    if (!atomic_load(&w->slot->done))
        wake_post(&w->ch, k, cycle_clock_now(&clk), skipped);
}

static void *waker_thread(void *arg)
{
    struct waker *w = arg;
    struct engine *e = w->engine;
    waker_setup(w);
    pthread_mutex_lock(&e->gate_lock);
    while (e->gate == GATE_WAIT)
        pthread_cond_wait(&e->gate_cond, &e->gate_lock);
    int gate = e->gate;
    pthread_mutex_unlock(&e->gate_lock);
    if (gate == GATE_GO)
        waker_loop(w);
    latency_hist_set_range(&w->result.hist, w->result.lateness.count, w->result.lateness.min,
                           w->result.lateness.max);
    atomic_store_explicit(&w->done, true, memory_order_release);
    return NULL;
}

static int create_waker(struct engine *e, struct waker *w, bool realtime)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, THREAD_STACK_BYTES);
    int cpu = e->cfg.waker_cpu;
    size_t setsize = CPU_ALLOC_SIZE(cpu + 1);
    cpu_set_t *set = CPU_ALLOC(cpu + 1);
    if (!set) {
        pthread_attr_destroy(&attr);
        return ENOMEM;
    }
    CPU_ZERO_S(setsize, set);
    CPU_SET_S(cpu, setsize, set);
    pthread_attr_setaffinity_np(&attr, setsize, set);
    CPU_FREE(set);
    struct sched_param sp = {.sched_priority = realtime ? e->cfg.waker_priority : 0};
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, realtime ? SCHED_FIFO : SCHED_OTHER);
    pthread_attr_setschedparam(&attr, &sp);
    int rc = pthread_create(&w->thread, &attr, waker_thread, w);
    pthread_attr_destroy(&attr);
    return rc;
}

int wakers_start(struct engine *e, char *err, size_t errlen)
{
    bool realtime = e->cfg.policy != SCHED_OTHER && !e->degraded;
    for (int i = 0; i < e->n; i++) {
        struct waker *w = e->slots[i].waker;
        if (!w)
            continue;
        w->ch.target = e->slots[i].thread;
        int rc = create_waker(e, w, realtime);
        if (rc == EPERM && realtime)
            rc = create_waker(e, w, false);
        if (rc != 0) {
            snprintf(err, errlen, "cannot start the waker of CPU %d on CPU %d: %s",
                     w->result.measured_cpu, e->cfg.waker_cpu, strerror(rc));
            return -1;
        }
        w->started = true;
    }
    return 0;
}

void wakers_stop(struct engine *e)
{
    for (int i = 0; i < e->n; i++) {
        struct waker *w = e->slots[i].waker;
        if (w && w->started && !atomic_load(&w->done))
            pthread_kill(w->thread, SIGUSR2);
    }
}

void wakers_join(struct engine *e)
{
    for (int i = 0; i < e->n; i++) {
        struct waker *w = e->slots[i].waker;
        if (!w || !w->started)
            continue;
        w->started = false;
        atomic_store(&w->stop, true);
        /* as engine_join: a wake-up signal just before its sleep is lost */
        while (!atomic_load(&w->done)) {
            pthread_kill(w->thread, SIGUSR2);
            struct timespec pause = {0, 1000 * 1000};
            nanosleep(&pause, NULL);
        }
        pthread_join(w->thread, NULL);
    }
}

const struct waker_result *engine_waker_result(const struct engine *e, int i)
{
    return e->slots[i].waker ? &e->slots[i].waker->result : NULL;
}
