/*
 * The collector's sinks of a run (see run_sinks.h): each callback hands
 * what the collector produced to every consumer that is on.
 */
#include "cmd/run_sinks.h"

#include <stdio.h>

#include "common/stop.h"
#include "out/run_stream.h"

static void run_sink_sample(void *ctx, int cpu, const struct cycle_sample *s)
{
    struct run_sinks *r = ctx;
    if (r->stream.sample)
        r->stream.sample(r->stream.ctx, cpu, s);
    bool spike = r->explain && explain_sample(r->explain, cpu, s);
    if (r->telemetry)
        run_telemetry_sample(r->telemetry, r->index_of_cpu[cpu], s, spike);
    run_export_sample(r->exp, r->index_of_cpu[cpu], s);
}

static void run_sink_window_hist(void *ctx, const struct interval_stats *w,
                                 const struct latency_hist *h)
{
    struct run_sinks *r = ctx;
    run_export_window(r->exp, w, h);
}

void run_sink_telemetry_window(void *ctx, int i, const struct telemetry_window *w)
{
    struct run_sinks *r = ctx;
    run_export_telemetry(r->exp, i, w);
    if (r->watch && !r->watch_report_windows)
        tail_watch_window(r->watch, i, w->max_ns, w->samples);
}

static void run_sink_tick(void *ctx, int64_t t_ns)
{
    struct run_sinks *r = ctx;
    if (r->telemetry)
        run_telemetry_tick(r->telemetry, t_ns);
}

static void run_sink_window(void *ctx, const struct interval_stats *w)
{
    struct run_sinks *r = ctx;
    if (r->stream.window)
        r->stream.window(r->stream.ctx, w);
    if (r->watch && r->watch_report_windows)
        tail_watch_window(r->watch, r->index_of_cpu[w->cpu], w->latency.max, w->samples);
}

static void run_sink_live(void *ctx, const struct live_frame *f)
{
    struct run_sinks *r = ctx;
    if (r->stream.live)
        r->stream.live(r->stream.ctx, f);
}

static void run_sink_drained(void *ctx)
{
    struct run_sinks *r = ctx;
    if (r->explain)
        explain_drained(r->explain);
    if (r->telemetry)
        run_telemetry_poll(r->telemetry);
    run_export_drained(r->exp);
    if (r->watch)
        tail_watch_drained(r->watch, r->st->c);
    run_stream_flush(r->st->rs);
    /* the requests of a run without an end, taken between two passes */
    if (reopen_request_take()) {
        char err[600];
        if (run_stream_reopen(r->st->rs, err, sizeof(err)) != 0)
            fprintf(stderr, "jitterlab: cannot reopen %s; its rows are dropped\n", err);
        run_export_reopen(r->exp);
    }
    if (result_request_take() && r->st->running)
        run_result_write_now(r->st);
}

struct collector_sinks run_sinks_of(struct run_sinks *r, int64_t tick_period_ns)
{
    return (struct collector_sinks){.ctx = r,
                                    .sample = run_sink_sample,
                                    .window = run_sink_window,
                                    .window_hist = r->exp->influx ? run_sink_window_hist : NULL,
                                    .live = r->stream.live ? run_sink_live : NULL,
                                    .drained = run_sink_drained,
                                    .live_period_ns = r->stream.live_period_ns,
                                    .tick = r->telemetry ? run_sink_tick : NULL,
                                    .tick_period_ns = tick_period_ns};
}
