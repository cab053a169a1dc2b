/*
 * The tail analysis while a run goes on (see run_tail_watch.h). The
 * collector owns the rings of window maxima and fills the snapshot only
 * while `busy` is 0; the worker owns the snapshot from the semaphore's
 * post until it sets `busy` back, so neither waits for the other. The
 * outcome of the checks is read under a mutex by the end of the run.
 */
#include "cmd/run_tail_watch.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run_tail.h"
#include "common/clock.h"
#include "common/stop.h"
#include "stats/tail.h"

bool tail_watch_wanted(const struct run_params *p)
{
    return p->confident_probability > 0 || (p->tail && p->prometheus);
}

/* Between two checks: a window for --until-confident (the report window,
 * else the telemetry window), a minute for the exporter alone. */
static int64_t check_period_ns(const struct run_params *p)
{
    if (p->confident_probability <= 0)
        return TAIL_WATCH_METRICS_PERIOD_NS;
    if (p->report_every_ns > 0)
        return p->report_every_ns;
    if (p->report_every_samples > 0)
        return (int64_t)p->report_every_samples * p->interval_ns;
    return run_telemetry_period_ns(p->report_every_ns);
}

int tail_watch_open(struct tail_watch *w, const struct run_params *p, const int *cpu_ids, int n,
                    struct metrics *metrics, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    if (sem_init(&w->wake, 0, 0) != 0 || pthread_mutex_init(&w->lock, NULL) != 0) {
        snprintf(err, errlen, "cannot set up the checks' thread");
        return -1;
    }
    w->ready = true;
    size_t un = (size_t)n;
    w->n = n;
    w->interval_ns = p->interval_ns;
    w->budget_ns = p->budget_ns >= 0 ? p->budget_ns : -1;
    w->nprobabilities = run_tail_probabilities(p, w->probabilities);
    w->confident_probability = p->confident_probability;
    w->confident_width = p->confident_width;
    w->metrics = metrics;
    w->period_ns = check_period_ns(p);
    w->ring = malloc(un * TAIL_WATCH_WINDOWS * sizeof *w->ring);
    w->added = calloc(un, sizeof *w->added);
    w->ring_samples = calloc(un, sizeof *w->ring_samples);
    w->hist = malloc(un * sizeof *w->hist);
    w->maxima = malloc(un * TAIL_WATCH_WINDOWS * sizeof *w->maxima);
    w->nmax = calloc(un, sizeof *w->nmax);
    w->block_cycles = calloc(un, sizeof *w->block_cycles);
    w->last = calloc(un, sizeof *w->last);
    w->copy = calloc(un, sizeof *w->copy);
    if (!w->ring || !w->added || !w->ring_samples || !w->hist || !w->maxima || !w->nmax ||
        !w->block_cycles || !w->last || !w->copy) {
        snprintf(err, errlen, "out of memory for the checks of %d CPUs", n);
        tail_watch_free(w);
        return -1;
    }
    for (int i = 0; i < n; i++)
        w->last[i] = (struct run_tail_check_cpu){
            .cpu = cpu_ids[i], .latency_ns = NAN, .upper_ns = NAN, .width = NAN};
    w->last_t_s = NAN;
    return 0;
}

struct run_tail_check_cpu tail_watch_check_cpu(int cpu, const struct tail_result *r, double p,
                                               double width)
{
    struct run_tail_check_cpu c = {.cpu = cpu, .latency_ns = NAN, .upper_ns = NAN, .width = NAN};
    if (r->verdict != TAIL_ESTIMATE)
        return c;
    for (size_t k = 0; k < r->nestimates; k++) {
        if (r->estimates[k].probability != p)
            continue;
        const struct tail_value *v = &r->estimates[k].ns;
        if (!isfinite(v->value) || v->value <= 0)
            return c;
        c.estimate = true;
        c.latency_ns = v->value;
        c.upper_ns = isnan(v->hi) ? INFINITY : v->hi;
        c.width = (c.upper_ns - v->value) / v->value;
        c.confident = width > 0 && c.width <= width;
        return c;
    }
    return c;
}

/* What the exporter publishes of one CPU's fit. */
static void publish(struct tail_watch *w, int i, const struct tail_result *r)
{
    struct metrics_tail t = {.fitted = true, .pass = r->verdict == TAIL_ESTIMATE, .budget_p = NAN};
    for (size_t k = 0; k < r->nestimates && k < METRICS_TAIL_MAX_P; k++) {
        t.probability[k] = r->estimates[k].probability;
        t.estimate_s[k] = t.pass ? r->estimates[k].ns.value / 1e9 : NAN;
        t.nprob++;
    }
    if (t.pass && r->has_budget)
        t.budget_p = r->budget_per_cycle.value;
    metrics_set_tail(w->metrics, i, &t);
}

/* One check on the snapshot the collector handed over. */
static void check(struct tail_watch *w)
{
    size_t n = (size_t)w->n;
    struct tail_input *in = calloc(n, sizeof *in);
    struct tail_result *out = calloc(n, sizeof *out);
    struct tail_bin **bins = calloc(n, sizeof *bins);
    char(*err)[TAIL_ERR_LEN] = calloc(n, sizeof *err);
    bool ok = in && out && bins && err;
    for (size_t i = 0; ok && i < n; i++) {
        const struct latency_hist *h = &w->hist[i];
        size_t nonempty = 0;
        for (size_t b = 0; b < LATENCY_HIST_BUCKETS; b++)
            nonempty += h->buckets[b] != 0;
        bins[i] = malloc((nonempty ? nonempty : 1) * sizeof **bins);
        if (!bins[i]) {
            ok = false;
            break;
        }
        in[i] = (struct tail_input){
            .bins = bins[i],
            .nbins = tail_bins_of_hist(h, bins[i]),
            .overflow = h->overflow,
            .max_ns = h->count ? h->max_ns : -1,
            .block_max = w->nmax[i] ? &w->maxima[i * TAIL_WATCH_WINDOWS] : NULL,
            .nblock = w->nmax[i],
            .block_cycles = w->block_cycles[i],
            .interval_ns = w->interval_ns,
            .budget_ns = w->budget_ns,
            .threshold_ns = -1,
            .probabilities = w->probabilities,
            .nprobabilities = w->nprobabilities,
            .duration_s = w->t_s,
        };
    }
    double t_s = w->t_s;
    if (ok)
        tail_analyse_many(in, out, n, w->threads, err);
    /* the snapshot is read: the collector may fill the next one */
    atomic_store(&w->busy, 0);
    if (ok) {
        bool all_confident = w->confident_probability > 0;
        pthread_mutex_lock(&w->lock);
        for (size_t i = 0; i < n; i++) {
            w->last[i] = tail_watch_check_cpu(w->last[i].cpu, &out[i], w->confident_probability,
                                              w->confident_width);
            all_confident = all_confident && w->last[i].confident;
        }
        w->checks++;
        w->last_t_s = t_s;
        if (all_confident && !w->confident) {
            w->confident = true;
            stop_request_end();
        }
        pthread_mutex_unlock(&w->lock);
        for (size_t i = 0; w->metrics && i < n; i++)
            publish(w, (int)i, &out[i]);
    }
    for (size_t i = 0; bins && i < n; i++)
        free(bins[i]);
    free(bins);
    free(in);
    free(out);
    free(err);
}

static void *worker(void *arg)
{
    struct tail_watch *w = arg;
    for (;;) {
        while (sem_wait(&w->wake) != 0)
            ; /* EINTR: signals are blocked, but be sure */
        if (atomic_load(&w->quit))
            return NULL;
        check(w);
    }
}

int tail_watch_start(struct tail_watch *w, int64_t start_ns, char *err, size_t errlen)
{
    w->start_ns = start_ns;
    cpu_set_t set;
    w->threads = 1;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        w->threads = (unsigned)CPU_COUNT(&set);
    if (w->threads > 16)
        w->threads = 16;
    /* the worker takes no signal (they stay with the collector) and runs
     * SCHED_OTHER on the collector's CPUs, which it inherits */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
    struct sched_param sp = {.sched_priority = 0};
    pthread_attr_setschedparam(&attr, &sp);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&w->thread, &attr, worker, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the thread of the checks: %s", strerror(rc));
        return -1;
    }
    w->started = true;
    return 0;
}

void tail_watch_window(struct tail_watch *w, int i, int64_t max_ns, uint64_t samples)
{
    if (i < 0 || i >= w->n || samples == 0)
        return;
    w->ring[(size_t)i * TAIL_WATCH_WINDOWS + w->added[i] % TAIL_WATCH_WINDOWS] = max_ns;
    w->added[i]++;
    w->ring_samples[i] += samples;
}

void tail_watch_drained(struct tail_watch *w, struct collector *c)
{
    int64_t now = monotonic_now_ns();
    if (!w->next_check_ns)
        w->next_check_ns = now + w->period_ns;
    if (now < w->next_check_ns || !w->started)
        return;
    while (w->next_check_ns <= now)
        w->next_check_ns += w->period_ns;
    if (atomic_load(&w->busy))
        return; /* the last check still runs: skip this one, never wait */
    for (int i = 0; i < w->n; i++) {
        const struct cpu_result *r = collector_running_result(c, i);
        w->hist[i] = r->hist;
        uint64_t kept = w->added[i] < TAIL_WATCH_WINDOWS ? w->added[i] : TAIL_WATCH_WINDOWS;
        const int64_t *ring = &w->ring[(size_t)i * TAIL_WATCH_WINDOWS];
        int64_t *dst = &w->maxima[(size_t)i * TAIL_WATCH_WINDOWS];
        for (uint64_t k = 0; k < kept; k++) /* oldest first */
            dst[k] = ring[(w->added[i] - kept + k) % TAIL_WATCH_WINDOWS];
        w->nmax[i] = kept;
        w->block_cycles[i] = w->added[i] ? (double)w->ring_samples[i] / (double)w->added[i] : 0;
    }
    w->t_s = w->start_ns > 0 ? (double)(now - w->start_ns) / 1e9 : 0;
    atomic_store(&w->busy, 1);
    sem_post(&w->wake);
}

void tail_watch_stop(struct tail_watch *w)
{
    if (!w->started)
        return;
    atomic_store(&w->quit, true);
    sem_post(&w->wake);
    pthread_join(w->thread, NULL);
    w->started = false;
}

/* The CPU farthest from the goal: one that cannot estimate, else the
 * widest interval. */
static int widest(const struct run_tail_check_cpu *c, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (best < 0) {
            best = i;
            continue;
        }
        const struct run_tail_check_cpu *a = &c[i], *b = &c[best];
        if (!b->estimate)
            continue;
        if (!a->estimate || a->width > b->width)
            best = i;
    }
    return best;
}

const struct run_tail_confidence *tail_watch_outcome(struct tail_watch *w, bool signalled,
                                                     const char *limit)
{
    pthread_mutex_lock(&w->lock);
    memcpy(w->copy, w->last, (size_t)w->n * sizeof *w->copy);
    w->result = (struct run_tail_confidence){
        .probability = w->confident_probability,
        .width = w->confident_width,
        .ended_by = w->confident ? "confident"
                    : signalled  ? "signal"
                                 : "duration",
        .limit = limit,
        .checks = w->checks,
        .last_t_s = w->last_t_s,
        .ncpu = w->n,
        .cpus = w->copy,
        .widest = w->checks ? widest(w->copy, w->n) : -1,
    };
    pthread_mutex_unlock(&w->lock);
    return &w->result;
}

void tail_watch_free(struct tail_watch *w)
{
    tail_watch_stop(w);
    if (w->ready) {
        pthread_mutex_destroy(&w->lock);
        sem_destroy(&w->wake);
    }
    free(w->ring);
    free(w->added);
    free(w->ring_samples);
    free(w->hist);
    free(w->maxima);
    free(w->nmax);
    free(w->block_cycles);
    free(w->last);
    free(w->copy);
    memset(w, 0, sizeof *w);
}
