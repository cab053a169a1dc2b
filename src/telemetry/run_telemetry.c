/*
 * Telemetry windows of a run (see run_telemetry.h). Per CPU an open
 * latency window (count, missed, running mean and max, a histogram for the
 * p99) collects the samples whose wake-up time is before the next
 * snapshot; the snapshot's figures wait in `pending` until the CPU's
 * window closes, which is usually the first drain after the snapshot.
 */
#include "telemetry/run_telemetry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run_telemetry_cpu {
    bool open;        /* the window ending at boundary_ns still takes samples */
    uint64_t samples; /* of the window being filled */
    uint64_t missed;
    uint64_t spikes;
    uint64_t seen_missed; /* every missed period counted so far */
    struct running_stats latency;
    struct latency_hist hist;
    /* samples that arrived after the boundary before the window closed are
     * impossible: a sample at or after boundary_ns closes it first */
};

int run_telemetry_init(struct run_telemetry *rt, struct telemetry *t, uint64_t keep, char *err,
                       size_t errlen)
{
    memset(rt, 0, sizeof(*rt));
    rt->t = t;
    rt->ncpu = telemetry_cpu_count(t);
    rt->cpu = calloc((size_t)rt->ncpu, sizeof(*rt->cpu));
    rt->pending = calloc((size_t)rt->ncpu, sizeof(*rt->pending));
    if (!rt->cpu || !rt->pending ||
        keep_ring_init(&rt->kept, sizeof(struct telemetry_window), keep) != 0) {
        snprintf(err, errlen,
                 "telemetry: cannot allocate %llu windows (%llu bytes); keep fewer "
                 "(--keep-windows) or run with --no-telemetry",
                 (unsigned long long)keep,
                 (unsigned long long)(keep * sizeof(struct telemetry_window)));
        run_telemetry_free(rt);
        return -1;
    }
    for (int i = 0; i < rt->ncpu; i++) {
        running_stats_init(&rt->cpu[i].latency);
        latency_hist_init(&rt->cpu[i].hist);
    }
    return 0;
}

void run_telemetry_start(struct run_telemetry *rt)
{
    telemetry_snapshot(rt->t);
    rt->boundary_ns = 0;
    rt->prev_boundary = 0;
    for (int i = 0; i < rt->ncpu; i++)
        rt->cpu[i].open = false;
}

static void window_reset(struct run_telemetry_cpu *c)
{
    c->samples = c->missed = c->spikes = 0;
    running_stats_init(&c->latency);
    latency_hist_init(&c->hist);
}

/* Closes the CPU's window that ends at boundary_ns into a record. */
static void close_window(struct run_telemetry *rt, int i)
{
    struct run_telemetry_cpu *c = &rt->cpu[i];
    if (!c->open)
        return;
    c->open = false;
    struct telemetry_window w = {
        .t_ns = rt->boundary_ns,
        .duration_ns = rt->boundary_ns - rt->prev_boundary,
        .cpu = rt->pending[i].cpu,
        .samples = c->samples,
        .missed = c->missed,
        .spikes = c->spikes,
        .max_ns = c->samples ? c->latency.max : 0,
        .p99_ns = c->samples ? latency_hist_percentile(&c->hist, 99) : 0,
        .mean_ns = c->samples ? c->latency.mean : 0,
        .fig = rt->pending[i],
    };
    keep_ring_add(&rt->kept, &w);
    if (rt->on_window)
        rt->on_window(rt->on_window_ctx, i, &w);
    window_reset(c);
}

void run_telemetry_sample(struct run_telemetry *rt, int i, const struct cycle_sample *s, bool spike)
{
    struct run_telemetry_cpu *c = &rt->cpu[i];
    if (c->open && s->t_ns >= rt->boundary_ns)
        close_window(rt, i);
    c->samples++;
    c->missed += s->missed;
    c->seen_missed += s->missed;
    c->spikes += spike;
    running_stats_add(&c->latency, s->latency_ns);
    latency_hist_add(&c->hist, s->latency_ns);
}

void run_telemetry_tick(struct run_telemetry *rt, int64_t t_ns)
{
    for (int i = 0; i < rt->ncpu; i++)
        close_window(rt, i); /* a CPU that sent nothing since the last snapshot */
    telemetry_snapshot(rt->t);
    rt->prev_boundary = rt->boundary_ns;
    rt->boundary_ns = t_ns;
    rt->ticks++;
    for (int i = 0; i < rt->ncpu; i++) {
        telemetry_cpu_delta(rt->t, i, &rt->pending[i]);
        rt->cpu[i].open = true;
    }
}

void run_telemetry_poll(struct run_telemetry *rt)
{
    telemetry_poll(rt->t);
}

void run_telemetry_finish(struct run_telemetry *rt, const uint64_t *missed)
{
    /* The last window holds what came after the last sample, with the
     * missed periods no sample reported. */
    for (int i = 0; i < rt->ncpu; i++) {
        if (missed[i] > rt->cpu[i].seen_missed)
            rt->cpu[i].missed += missed[i] - rt->cpu[i].seen_missed;
        rt->cpu[i].seen_missed = missed[i];
        close_window(rt, i);
    }
}

const struct telemetry_window *run_telemetry_windows(struct run_telemetry *rt, uint64_t *count,
                                                     uint64_t *dropped)
{
    return keep_ring_oldest_first(&rt->kept, count, dropped);
}

void run_telemetry_free(struct run_telemetry *rt)
{
    free(rt->cpu);
    free(rt->pending);
    keep_ring_free(&rt->kept);
    memset(rt, 0, sizeof(*rt));
}
