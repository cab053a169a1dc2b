/*
 * The collector (see collector.h). Runs on the main thread, pinned to a
 * housekeeping CPU, waking every engine_drain_period_ns (at most
 * COLLECTOR_PERIOD_NS; more often when the rings are small). The engine's per-CPU
 * results stay the exact summary; what is computed here (live figures,
 * windows, what the sinks write) comes from the rings and so misses what a
 * full ring dropped, which the summary reports.
 */
#include "engine/collector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/stop.h"
#include "common/units.h"

#define DRAIN_BATCH 4096

/* How many windows the run can close at most. */
static uint64_t windows_expected(const struct collector_config *cfg,
                                 const struct engine_config *run, int ncpu)
{
    if (run->duration_ns == 0 && run->loops == 0)
        return UINT64_MAX; /* runs until stopped: keep_windows decides */
    uint64_t cycles = run->loops;
    if (run->duration_ns > 0) {
        uint64_t by_time = (uint64_t)(run->duration_ns / run->interval_ns) + 1;
        if (!cycles || by_time < cycles)
            cycles = by_time;
    }
    uint64_t per_cpu;
    if (cfg->report_every_samples > 0)
        per_cpu = cycles / cfg->report_every_samples + 2;
    else if (run->duration_ns > 0)
        per_cpu = (uint64_t)(run->duration_ns / cfg->report_every_ns) + 2;
    else
        per_cpu =
            (uint64_t)((double)cycles * (double)run->interval_ns / (double)cfg->report_every_ns) +
            2;
    return per_cpu * (uint64_t)ncpu;
}

static void window_close(struct collector *c, int i, int64_t t_end_ns)
{
    struct interval_stats *w = &c->window[i];
    if (w->samples == 0 && w->missed == 0)
        return;
    w->t_ns = t_end_ns;
    keep_ring_add(&c->kept, w);
    if (c->sinks.window)
        c->sinks.window(c->sinks.ctx, w);
    if (c->window_hist) {
        c->sinks.window_hist(c->sinks.ctx, w, &c->window_hist[i]);
        latency_hist_init(&c->window_hist[i]);
    }
    window_reset(w, w->cpu);
}

static void window_sample(struct collector *c, int i, const struct cycle_sample *s)
{
    const struct collector_config *cfg = c->cfg;
    if (cfg->report_every_ns > 0) {
        int64_t idx = s->t_ns / cfg->report_every_ns;
        if (idx != c->window_index[i]) {
            window_close(c, i, (c->window_index[i] + 1) * cfg->report_every_ns);
            c->window_index[i] = idx;
        }
    }
    struct interval_stats *w = &c->window[i];
    struct window_sample ws = {.latency_ns = s->latency_ns,
                               .exec_ns = s->exec_ns,
                               .period_ns = s->period_ns,
                               .missed_before = s->missed};
    window_add(w, &c->rules, &ws);
    if (c->window_hist)
        latency_hist_add(&c->window_hist[i], s->latency_ns);
    if (cfg->report_every_samples > 0 && w->samples >= cfg->report_every_samples)
        window_close(c, i, s->t_ns);
}

/* The running result takes a sample as the measuring thread did; its
 * tally figures are engine_drain's (collector_running_result). */
static void running_add(struct cpu_result *r, const struct cycle_sample *s)
{
    cpu_result_record_sample(r, s->t_ns, s->latency_ns);
    cpu_result_record_exec(r, s->latency_ns, s->exec_ns, false);
    r->samples++;
    if (s->missed) {
        r->missed += s->missed;
        r->missed_events++;
    }
}

void collector_drain(struct collector *c)
{
    const struct collector_config *cfg = c->cfg;
    bool periodic = collector_periodic(cfg);
    for (int i = 0; i < c->n; i++) {
        uint64_t got;
        while ((got = engine_drain(c->eng, i, c->buf, DRAIN_BATCH)) > 0) {
            struct live_cpu *l = &c->live[i];
            for (uint64_t k = 0; k < got; k++) {
                const struct cycle_sample *s = &c->buf[k];
                running_add(&c->running[i], s);
                /* the window first: a sample that opens the next window
                 * closes the last one before a sink sees it */
                if (periodic)
                    window_sample(c, i, s);
                l->current_ns = s->latency_ns;
                if (c->sinks.sample)
                    c->sinks.sample(c->sinks.ctx, l->cpu, s);
            }
            if (got < DRAIN_BATCH)
                break;
        }
        /* the tally engine_drain counted, and the histograms' headers */
        cpu_result_set_tally(&c->running[i], engine_taken_tally(c->eng, i), NULL);
    }
    if (c->sinks.drained)
        c->sinks.drained(c->sinks.ctx);
}

int collector_init(struct collector *c, const struct collector_config *cfg,
                   const struct collector_sinks *sinks, struct engine *eng, char *err,
                   size_t errlen)
{
    const struct engine_config *run = engine_config(eng);
    memset(c, 0, sizeof(*c));
    c->cfg = cfg;
    if (sinks)
        c->sinks = *sinks;
    c->rules = (struct window_rules){.interval_ns = run->interval_ns,
                                     .deadline_ns = run->deadline_ns,
                                     .tolerance_ns = run->tolerance_ns};
    c->eng = eng;
    c->n = engine_cpu_count(eng);
    c->live = calloc((size_t)c->n, sizeof(*c->live));
    c->window = calloc((size_t)c->n, sizeof(*c->window));
    c->window_index = calloc((size_t)c->n, sizeof(*c->window_index));
    c->buf = malloc(DRAIN_BATCH * sizeof(*c->buf));
    c->running = malloc((size_t)c->n * sizeof(*c->running));
    /* Execution and response histograms in the running copy only where
     * they mean something: at 256 CPUs they would be 15 MiB of the run. */
    if (cfg->control_task)
        c->running_hists = malloc(2 * (size_t)c->n * sizeof(*c->running_hists));
    if (c->sinks.window_hist && collector_periodic(cfg))
        c->window_hist = malloc((size_t)c->n * sizeof(*c->window_hist));
    if (!c->live || !c->window || !c->window_index || !c->buf || !c->running ||
        (cfg->control_task && !c->running_hists) ||
        (c->sinks.window_hist && collector_periodic(cfg) && !c->window_hist)) {
        snprintf(err, errlen, "cannot set up the collector: out of memory");
        return -1;
    }
    if (collector_periodic(cfg)) {
        uint64_t want = windows_expected(cfg, run, c->n);
        uint64_t cap = cfg->keep_windows < want ? cfg->keep_windows : want;
        if (keep_ring_init(&c->kept, sizeof(struct interval_stats), cap) != 0) {
            snprintf(err, errlen,
                     "--keep-windows %llu: cannot allocate %llu windows (%llu bytes); keep fewer",
                     (unsigned long long)cfg->keep_windows, (unsigned long long)cap,
                     (unsigned long long)(cap * sizeof(struct interval_stats)));
            return -1;
        }
    }
    for (int i = 0; i < c->n; i++) {
        c->live[i].cpu = engine_result(eng, i)->cpu;
        window_reset(&c->window[i], c->live[i].cpu);
        cpu_result_init(&c->running[i], c->live[i].cpu);
        if (c->running_hists) {
            latency_hist_init(&c->running_hists[2 * i]);
            latency_hist_init(&c->running_hists[2 * i + 1]);
            c->running[i].exec_hist = &c->running_hists[2 * i];
            c->running[i].response_hist = &c->running_hists[2 * i + 1];
        }
        c->live[i].r = &c->running[i];
        if (c->window_hist)
            latency_hist_init(&c->window_hist[i]);
    }
    return 0;
}

void collector_run(struct collector *c, bool *interrupted)
{
    const struct engine_config *run = engine_config(c->eng);
    int64_t start = engine_start_ns(c->eng);
    int64_t next_live = monotonic_now_ns() + c->sinks.live_period_ns;
    int64_t tick_period = c->sinks.tick ? c->sinks.tick_period_ns : 0;
    int64_t next_tick = tick_period > 0 ? start + tick_period : INT64_MAX;
    const int64_t period = engine_drain_period_ns(c->eng);
    while (!engine_finished(c->eng)) {
        int64_t wake = monotonic_now_ns() + period;
        sleep_until_ns(wake < next_tick ? wake : next_tick);
        if (stop_requested()) {
            /* engine_join repeats the wake-up until every thread has ended;
             * collector_finish drains what they recorded meanwhile. The
             * program's own end (it has what it ran for) is no interruption. */
            *interrupted = stop_signalled();
            engine_stop(c->eng);
            return;
        }
        int64_t now = monotonic_now_ns();
        if (now >= next_tick) {
            /* Empty the rings first: a snapshot of many CPUs takes tens of
             * ms, and the rings must hold only what arrives meanwhile. The
             * windows are the same (a sample before the new boundary lands
             * in the window that ends there either way). */
            collector_drain(c);
            c->sinks.tick(c->sinks.ctx, now - start);
            while (next_tick <= now)
                next_tick += tick_period; /* a late wake-up skips, never bunches */
        }
        collector_drain(c);
        if (!c->sinks.live || now < next_live)
            continue;
        struct live_frame f = {
            .elapsed_s = now > start ? (double)(now - start) / 1e9 : 0,
            .total_s = (double)run->duration_ns / 1e9,
            .loops = run->loops,
            .cpus = c->live,
            .ncpu = c->n,
            .control_task = c->cfg->control_task,
            .deadline = c->cfg->deadline,
        };
        c->sinks.live(c->sinks.ctx, &f);
        next_live = now + c->sinks.live_period_ns;
    }
}

void collector_finish(struct collector *c, int64_t end_ns)
{
    const struct collector_config *cfg = c->cfg;
    collector_drain(c);
    engine_settle(c->eng); /* nothing is left in the rings: the results are final */
    if (!collector_periodic(cfg))
        return;
    for (int i = 0; i < c->n; i++) {
        /* Missed periods after the last sample reach no ring entry. */
        c->window[i].missed += engine_result(c->eng, i)->missed - c->running[i].missed;
        int64_t start_ns = engine_start_ns(c->eng);
        int64_t t_end = start_ns > 0 ? end_ns - start_ns : 0;
        if (cfg->report_every_ns > 0 && (c->window_index[i] + 1) * cfg->report_every_ns < t_end)
            t_end = (c->window_index[i] + 1) * cfg->report_every_ns;
        window_close(c, i, t_end);
    }
}

const struct interval_stats *collector_windows(struct collector *c, uint64_t *count,
                                               uint64_t *dropped)
{
    return keep_ring_oldest_first(&c->kept, count, dropped);
}

const struct cpu_result *collector_running_result(struct collector *c, int i)
{
    struct cpu_result *r = &c->running[i];
    r->ring_drops = engine_ring_drops(c->eng, i);
    const struct cpu_result *e = engine_result(c->eng, i);
    r->sched_policy = e->sched_policy; /* set by the thread before its first cycle */
    r->sched_priority = e->sched_priority;
    r->timer_slack_ns = e->timer_slack_ns;
    return r;
}

size_t collector_memory_bytes(const struct collector *c)
{
    size_t n = (size_t)c->n;
    return n * (sizeof(*c->live) + sizeof(*c->window) + sizeof(*c->window_index) +
                sizeof(*c->running) + (c->window_hist ? sizeof(*c->window_hist) : 0) +
                (c->running_hists ? 2 * sizeof(*c->running_hists) : 0)) +
           DRAIN_BATCH * sizeof(*c->buf) + (size_t)c->kept.cap * c->kept.size;
}

void collector_free(struct collector *c)
{
    free(c->running);
    free(c->running_hists);
    free(c->window_hist);
    free(c->live);
    free(c->window);
    free(c->window_index);
    keep_ring_free(&c->kept);
    free(c->buf);
}
