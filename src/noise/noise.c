/*
 * The noise loop and its collector (see noise.h).
 */
#include "noise/noise.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/stop.h"
#include "common/units.h"
#include "crosscpu/team.h"

#define START_LEAD_NS (2 * 1000 * 1000) /* from the gate to the first spin */
#define GO_POLL_NS    (50 * 1000)

struct noise_cpu {
    struct noise_window *win; /* [nwin_cap], accumulated until closed */
    size_t nwin_cap;
    uint64_t win_dropped; /* gaps that touched a window beyond the kept ones */
};

struct noise {
    struct noise_config cfg;
    struct noise_slot *slot;
    struct noise_cpu *cpu;
    _Atomic bool go, abort, team_done;
    int64_t start_ns;
    int64_t end_ns; /* CLOCK_MONOTONIC when the team ended */
    size_t windows_closed;
    int team_rc;
    struct team_report team_rep;
    char team_err[160];
    bool interrupted;
};

int64_t noise_slices_overlap(int64_t w0, int64_t w1, int64_t runtime_ns, int64_t period_ns,
                             int64_t duration_ns)
{
    if (w1 > duration_ns)
        w1 = duration_ns;
    if (w0 < 0)
        w0 = 0;
    if (w1 <= w0)
        return 0;
    if (period_ns <= 0 || runtime_ns >= period_ns)
        return w1 - w0;
    int64_t sum = 0;
    for (int64_t k = w0 / period_ns; k * period_ns < w1; k++) {
        int64_t a = k * period_ns, b = a + runtime_ns;
        int64_t lo = a > w0 ? a : w0, hi = b < w1 ? b : w1;
        if (hi > lo)
            sum += hi - lo;
    }
    return sum;
}

/* ---- the measuring thread ---- */

size_t noise_ring_slots(int ncpu)
{
    size_t slots = NOISE_RING_SLOTS, n = ncpu > 0 ? (size_t)ncpu : 1;
    while (slots > NOISE_RING_MIN && slots * sizeof(struct cycle_sample) * n > NOISE_RING_BUDGET)
        slots /= 2;
    return slots;
}

#define ANCHOR_CLOSE_NS 2000 /* a tick count and a clock read this close are one instant */

/* A gap of ticks ending at end_ns from the start. Its end comes from the
 * same tick count as its length: read from the clock after the bookkeeping,
 * a preemption there made it late by the preemption, which is also the next
 * gap, so the two overlapped and their time was counted twice (a starved
 * CPU's window came out noisier than it was long). */
static void record_gap(struct noise *nz, struct noise_slot *s, uint64_t ticks, int64_t end,
                       int64_t stop_at)
{
    int64_t len = (int64_t)timebase_ns(nz->cfg.tb, (double)ticks);
    /* A gap that ends after the slice (a thread that other tasks kept off
     * its CPU past the end) counts up to the end: the time after it is not
     * measured, and a gap moved back to end there would overlap the ones
     * before it. A gap a tick above the threshold can round down to it in
     * ns: a gap is one above the threshold as it is reported. */
    if (end > stop_at) {
        len -= end - stop_at;
        end = stop_at;
    }
    if (len <= nz->cfg.threshold_ns)
        return;
    if (len > s->stats.max)
        s->max_gap_end_ns = end;
    s->gaps++;
    s->noise_ns += len;
    running_stats_add(&s->stats, len);
    latency_hist_add(&s->hist, len);
    if (s->us_hist) {
        uint64_t row = (uint64_t)len / 1000;
        if (row < nz->cfg.us_rows)
            s->us_hist[row]++;
        else if (s->us_overflow++ < nz->cfg.us_rows)
            s->overflow_at[s->us_overflow - 1] = s->gaps;
    }
    struct cycle_sample g = {.t_ns = end,
                             .latency_ns = len,
                             .seq = (uint32_t)s->gaps,
                             .llc_misses = -1,
                             .ipc_milli = -1,
                             .context_switches = -1};
    sample_ring_push(&s->ring, &g);
}

static bool should_stop(struct noise *nz)
{
    return stop_requested() || atomic_load_explicit(&nz->abort, memory_order_relaxed);
}

/* Spins until the CLOCK_MONOTONIC time until_ns (or a stop): the loop. */
static void spin(struct noise *nz, struct noise_slot *s, int64_t until_ns)
{
    const struct timebase *tb = nz->cfg.tb;
    const uint64_t threshold = timebase_ticks_of_ns(tb, nz->cfg.threshold_ns);
    const uint64_t check = timebase_ticks_of_ns(tb, NOISE_CHECK_NS);
    int64_t m0 = monotonic_now_ns();
    uint64_t t0 = timebase_ticks(tb);
    const int64_t noise_before = s->noise_ns;
    if (until_ns <= m0)
        return;
    const uint64_t end = t0 + timebase_ticks_of_ns(tb, until_ns - m0);
    uint64_t prev = t0, next = t0 + check < end ? t0 + check : end;
    uint64_t floor = UINT64_MAX, iterations = 0;
    /* A gap's end on CLOCK_MONOTONIC is taken from its tick count, from an
     * anchor (a tick count and the monotonic time read right after it)
     * renewed at every check, when the two reads were close together. */
    const uint64_t anchor_close = timebase_ticks_of_ns(tb, ANCHOR_CLOSE_NS);
    uint64_t anchor_t = t0;
    int64_t anchor_ns = m0 - nz->start_ns;
    for (;;) {
        uint64_t t = timebase_ticks(tb);
        uint64_t d = t >= prev ? t - prev : 0;
        if (d < floor)
            floor = d;
        if (d > threshold)
            record_gap(nz, s, d, anchor_ns + (int64_t)timebase_ns(tb, (double)(t - anchor_t)),
                       until_ns - nz->start_ns);
        prev = t;
        iterations++;
        if (t >= next) {
            int64_t now = monotonic_now_ns() - nz->start_ns;
            if (timebase_ticks(tb) - t <= anchor_close) {
                anchor_t = t;
                anchor_ns = now;
            }
            atomic_store_explicit(&s->progress_ns, now, memory_order_release);
            if (t >= end || should_stop(nz))
                break;
            next = t + check < end ? t + check : end;
        }
    }
    /* the span on CLOCK_MONOTONIC, the clock of the run's duration, up to
     * the slice's end (a thread kept off its CPU may see it late) */
    int64_t m1 = monotonic_now_ns();
    int64_t span = (m1 < until_ns ? m1 : until_ns) - m0;
    s->measured_ns += span;
    /* The gaps are tick lengths, the span CLOCK_MONOTONIC time: where gaps
     * fill the slice (a starved CPU), ticks a little faster than the
     * calibration said made their sum longer than the span, and the result
     * said more noise than time measured. The slice was noise all along. */
    if (s->noise_ns - noise_before > span)
        s->noise_ns = noise_before + span;
    s->iterations += iterations;
    int64_t floor_ns = (int64_t)timebase_ns(tb, (double)floor);
    if (floor != UINT64_MAX && floor_ns < s->floor_ns)
        s->floor_ns = floor_ns;
}

static void noise_body(void *arg, int i)
{
    struct noise *nz = arg;
    struct noise_slot *s = &nz->slot[i];
    atomic_store_explicit(&s->tid, (int32_t)gettid(), memory_order_release);
    int64_t limit = monotonic_now_ns() + NOISE_START_WAIT_NS + NS_PER_S;
    while (!atomic_load_explicit(&nz->go, memory_order_acquire)) {
        if (atomic_load(&nz->abort) || monotonic_now_ns() > limit)
            return;
        sleep_until_ns(monotonic_now_ns() + GO_POLL_NS);
    }
    const struct noise_config *c = &nz->cfg;
    int64_t start = nz->start_ns, end = deadline_after_ns(start, c->duration_ns);
    sleep_until_ns(start);
    for (int64_t k = 0;; k++) {
        int64_t s0 = start + k * c->period_ns;
        if (s0 >= end || should_stop(nz))
            break;
        if (k > 0) {
            /* nothing can be missed before s0: the loop is not running */
            atomic_store_explicit(&s->progress_ns, s0 - start, memory_order_release);
            int64_t slept = monotonic_now_ns();
            sleep_until_ns(s0);
            int64_t woke = monotonic_now_ns();
            s->off_ns += woke - slept;
            struct cycle_sample off = {.t_ns = woke - start,
                                       .latency_ns = woke - slept,
                                       .missed = NOISE_OFF,
                                       .seq = (uint32_t)s->slices,
                                       .llc_misses = -1,
                                       .ipc_milli = -1,
                                       .context_switches = -1};
            sample_ring_push(&s->ring, &off);
            if (should_stop(nz))
                break;
        }
        s->slices++;
        spin(nz, s, s0 + c->runtime_ns < end ? s0 + c->runtime_ns : end);
    }
    /* seen up to its end, not beyond: the windows after a stop stay open */
    atomic_store_explicit(&s->progress_ns, monotonic_now_ns() - start, memory_order_release);
}

/* ---- set-up ---- */

int noise_create(const struct noise_config *cfg, struct noise **out, char *err, size_t errlen)
{
    *out = NULL;
    struct noise *nz = calloc(1, sizeof *nz);
    if (!nz)
        goto oom;
    nz->cfg = *cfg;
    if (nz->cfg.period_ns <= 0 || nz->cfg.runtime_ns >= nz->cfg.period_ns)
        nz->cfg.runtime_ns = nz->cfg.period_ns = nz->cfg.duration_ns;
    nz->slot = aligned_alloc(64, sizeof(*nz->slot) * (size_t)cfg->n);
    if (nz->slot)
        memset(nz->slot, 0, sizeof(*nz->slot) * (size_t)cfg->n);
    nz->cpu = calloc((size_t)cfg->n, sizeof(*nz->cpu));
    if (!nz->slot || !nz->cpu)
        goto oom;
    size_t nwin = 0;
    if (cfg->window_ns > 0) {
        int64_t w = cfg->duration_ns / cfg->window_ns + 1;
        int64_t cap = NOISE_WINDOWS_TOTAL / (cfg->n > 0 ? cfg->n : 1);
        if (cap > NOISE_WINDOWS_MAX)
            cap = NOISE_WINDOWS_MAX;
        nwin = (size_t)(w > cap ? cap : w);
    }
    const size_t ring_slots = noise_ring_slots(cfg->n);
    for (int i = 0; i < cfg->n; i++) {
        struct noise_slot *s = &nz->slot[i];
        s->cpu = cfg->cpus[i];
        s->floor_ns = INT64_MAX;
        running_stats_init(&s->stats);
        latency_hist_init(&s->hist);
        s->ring.slots = calloc(ring_slots, sizeof(*s->ring.slots));
        s->ring.mask = ring_slots - 1;
        if (!s->ring.slots)
            goto oom;
        memset(s->ring.slots, 0, ring_slots * sizeof(*s->ring.slots)); /* resident */
        if (cfg->us_rows) {
            s->us_hist = calloc(cfg->us_rows, sizeof(*s->us_hist));
            s->overflow_at = calloc(cfg->us_rows, sizeof(*s->overflow_at));
            if (!s->us_hist || !s->overflow_at)
                goto oom;
            memset(s->us_hist, 0, cfg->us_rows * sizeof(*s->us_hist));
            memset(s->overflow_at, 0, cfg->us_rows * sizeof(*s->overflow_at));
        }
        struct noise_cpu *nc = &nz->cpu[i];
        if (nwin) {
            nc->win = calloc(nwin, sizeof(*nc->win));
            if (!nc->win)
                goto oom;
            nc->nwin_cap = nwin;
            for (size_t k = 0; k < nwin; k++) {
                int64_t w0 = (int64_t)k * cfg->window_ns;
                int64_t w1 = deadline_after_ns(w0, cfg->window_ns);
                if (w1 > cfg->duration_ns)
                    w1 = cfg->duration_ns;
                nc->win[k] =
                    (struct noise_window){.t_ns = w1, .duration_ns = w1 - w0, .cpu = s->cpu};
            }
        }
    }
    /* Everything the threads write is resident now; keep it so (best effort:
     * a page fault in the loop would be measured as noise). MCL_ONFAULT:
     * lock what is resident without reading in every mapped page of every
     * library as well (MCL_CURRENT alone does; a kernel before 4.4 has
     * only that). */
    if (mlockall(MCL_CURRENT | MCL_ONFAULT) != 0)
        (void)mlockall(MCL_CURRENT);
    *out = nz;
    return 0;
oom:
    snprintf(err, errlen, "out of memory for %d CPUs", cfg->n);
    noise_free(nz);
    return -1;
}

void noise_free(struct noise *nz)
{
    if (!nz)
        return;
    for (int i = 0; nz->slot && i < nz->cfg.n; i++) {
        free(nz->slot[i].ring.slots);
        free(nz->slot[i].us_hist);
        free(nz->slot[i].overflow_at);
    }
    for (int i = 0; nz->cpu && i < nz->cfg.n; i++)
        free(nz->cpu[i].win);
    free(nz->slot);
    free(nz->cpu);
    free(nz);
}

/* ---- the collector ---- */

static void *team_main(void *arg)
{
    struct noise *nz = arg;
    struct team_config tc = {.cpus = nz->cfg.cpus,
                             .n = nz->cfg.n,
                             .fifo = nz->cfg.fifo,
                             .priority = nz->cfg.priority,
                             .body = noise_body,
                             .arg = nz};
    nz->team_rc = team_run(&tc, &nz->team_rep, nz->team_err, sizeof nz->team_err);
    nz->end_ns = monotonic_now_ns();
    atomic_store_explicit(&nz->team_done, true, memory_order_release);
    return NULL;
}

bool noise_windows_add_gap(struct noise_window *win, size_t cap, int64_t window_ns, int64_t end_ns,
                           int64_t len_ns)
{
    int64_t g0 = end_ns - len_ns, g1 = end_ns;
    if (g0 < 0)
        g0 = 0;
    if (cap == 0 || window_ns <= 0 || g1 <= 0)
        return cap > 0 && g1 <= 0;
    size_t kend = (size_t)((g1 - 1) / window_ns);
    for (size_t k = (size_t)(g0 / window_ns); k <= kend && k < cap; k++) {
        int64_t a = (int64_t)k * window_ns, b = a + window_ns;
        int64_t lo = g0 > a ? g0 : a, hi = g1 < b ? g1 : b;
        if (hi > lo)
            win[k].noise_ns += hi - lo;
    }
    if (kend >= cap)
        return false;
    win[kend].gaps++;
    if (len_ns > win[kend].max_ns)
        win[kend].max_ns = len_ns;
    return true;
}

static void window_gap(struct noise *nz, int i, const struct cycle_sample *g)
{
    struct noise_cpu *nc = &nz->cpu[i];
    /* a gap the last check found after the end: it ends with the run (its
     * end is read after the bookkeeping, a few hundred ns late at most) */
    int64_t end = g->t_ns < nz->cfg.duration_ns ? g->t_ns : nz->cfg.duration_ns;
    if (nc->win &&
        !noise_windows_add_gap(nc->win, nc->nwin_cap, nz->cfg.window_ns, end, g->latency_ns))
        nc->win_dropped++;
}

static void drain(struct noise *nz, const struct noise_sinks *sk)
{
    struct cycle_sample buf[256];
    for (int i = 0; i < nz->cfg.n; i++) {
        uint64_t got;
        while ((got = sample_ring_pop(&nz->slot[i].ring, buf, 256)) > 0)
            for (uint64_t k = 0; k < got; k++) {
                if (buf[k].missed != NOISE_OFF)
                    window_gap(nz, i, &buf[k]);
                if (sk->gap)
                    sk->gap(sk->arg, i, &buf[k]);
            }
    }
}

/* Closes the windows that end at or before upto (from the start); at the
 * end (final), also the one upto falls in, cut short there. */
static void close_windows(struct noise *nz, const struct noise_sinks *sk, int64_t upto, bool final)
{
    const struct noise_config *c = &nz->cfg;
    size_t cap = nz->cfg.n > 0 ? nz->cpu[0].nwin_cap : 0;
    while (nz->windows_closed < cap) {
        size_t k = nz->windows_closed;
        struct noise_window *first = &nz->cpu[0].win[k];
        int64_t w0 = (int64_t)k * c->window_ns;
        if (first->duration_ns <= 0 || (first->t_ns > upto && !(final && w0 < upto)))
            break;
        for (int i = 0; i < c->n; i++) {
            struct noise_window *w = &nz->cpu[i].win[k];
            if (w->t_ns > upto) /* the last, cut short by a stop */
                w->t_ns = upto;
            w->duration_ns = w->t_ns - w0;
            w->measured_ns =
                noise_slices_overlap(w0, w->t_ns, c->runtime_ns, c->period_ns, c->duration_ns);
            /* gap ends from two anchors overlap by the calibration's error
             * where gaps fill the window: it was noise all along */
            if (w->noise_ns > w->measured_ns)
                w->noise_ns = w->measured_ns;
            if (sk->window)
                sk->window(sk->arg, i, w);
        }
        nz->windows_closed++;
    }
}

static int64_t min_progress(const struct noise *nz)
{
    int64_t m = INT64_MAX;
    for (int i = 0; i < nz->cfg.n; i++) {
        int64_t p = atomic_load_explicit(&nz->slot[i].progress_ns, memory_order_acquire);
        if (p < m)
            m = p;
    }
    return m;
}

int noise_run(struct noise *nz, const struct noise_sinks *sinks, char *err, size_t errlen)
{
    static const struct noise_sinks none;
    const struct noise_sinks *sk = sinks ? sinks : &none;
    pthread_t team;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&team, NULL, team_main, nz);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the measuring threads: %s", strerror(rc));
        return -1;
    }
    /* Every thread running and its tid known, or the team given up. */
    int64_t limit = monotonic_now_ns() + NOISE_START_WAIT_NS;
    int *tids = calloc((size_t)nz->cfg.n, sizeof *tids);
    bool all_in = false;
    while (!all_in && !atomic_load(&nz->team_done) && monotonic_now_ns() < limit && tids) {
        all_in = true;
        for (int i = 0; i < nz->cfg.n; i++)
            if ((tids[i] = atomic_load_explicit(&nz->slot[i].tid, memory_order_acquire)) == 0)
                all_in = false;
        if (!all_in)
            sleep_until_ns(monotonic_now_ns() + NOISE_CHECK_NS);
    }
    if (!all_in) {
        atomic_store(&nz->abort, true);
        pthread_join(team, NULL);
        snprintf(err, errlen, "%s",
                 nz->team_rc != 0 ? nz->team_err
                 : tids           ? "the measuring threads did not start in time"
                                  : "out of memory");
        free(tids);
        return -1;
    }
    nz->start_ns = monotonic_now_ns() + START_LEAD_NS;
    for (int i = 0; i < nz->cfg.n; i++)
        atomic_store_explicit(&nz->slot[i].progress_ns, 0, memory_order_relaxed);
    if (sk->started)
        sk->started(sk->arg, nz->start_ns, tids);
    free(tids);
    atomic_store_explicit(&nz->go, true, memory_order_release);

    int64_t next = nz->start_ns + NOISE_POLL_NS;
    while (!atomic_load_explicit(&nz->team_done, memory_order_acquire)) {
        sleep_until_ns(next);
        int64_t now = monotonic_now_ns();
        if (now >= next)
            next += NOISE_POLL_NS * ((now - next) / NOISE_POLL_NS + 1);
        int64_t upto = min_progress(nz); /* before the drain: see noise.h */
        drain(nz, sk);
        close_windows(nz, sk, upto, false);
        if (sk->drained)
            sk->drained(sk->arg, now - nz->start_ns);
    }
    pthread_join(team, NULL);
    drain(nz, sk);
    int64_t elapsed = nz->end_ns - nz->start_ns;
    nz->interrupted = elapsed < nz->cfg.duration_ns && stop_requested();
    if (!nz->interrupted || elapsed > nz->cfg.duration_ns)
        elapsed = nz->cfg.duration_ns; /* a last slice ends before the run */
    nz->end_ns = nz->start_ns + elapsed;
    close_windows(nz, sk, elapsed, true);
    if (sk->drained)
        sk->drained(sk->arg, elapsed);
    return 0;
}

const struct noise_slot *noise_slot(const struct noise *nz, int i)
{
    return &nz->slot[i];
}

const struct noise_window *noise_windows(const struct noise *nz, int i, size_t *count,
                                         uint64_t *dropped)
{
    *count = nz->windows_closed;
    *dropped = nz->cpu[i].win_dropped;
    return nz->cpu[i].win;
}

bool noise_realtime(const struct noise *nz)
{
    return nz->team_rep.realtime;
}

int64_t noise_start_ns(const struct noise *nz)
{
    return nz->start_ns;
}

int64_t noise_elapsed_ns(const struct noise *nz)
{
    return nz->end_ns - nz->start_ns;
}

bool noise_interrupted(const struct noise *nz)
{
    return nz->interrupted;
}

uint64_t noise_ring_drops(const struct noise *nz, int i)
{
    return atomic_load(&nz->slot[i].ring.drops);
}
