/*
 * `run --prometheus` and `run --influx` (see run_export.h).
 */
#include "cmd/run_export.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "common/clock.h"
#include "common/units.h"

static void fill_info(struct metrics_info *in, const struct run_params *p,
                      const struct system_info *si)
{
    snprintf(in->version, sizeof(in->version), "%s", JITTERLAB_VERSION);
    snprintf(in->kernel, sizeof(in->kernel), "%s", si->kernel);
    snprintf(in->preempt, sizeof(in->preempt), "%s", si->preempt_model);
    snprintf(in->cpu_model, sizeof(in->cpu_model), "%s", si->cpu_model);
    snprintf(in->clocksource, sizeof(in->clocksource), "%s", si->clocksource);
    snprintf(in->hypervisor, sizeof(in->hypervisor), "%s", si->hypervisor);
    in->interval_s = (double)p->interval_ns / 1e9;
}

int run_export_open(struct run_export *x, const struct run_params *p, const struct system_info *si)
{
    memset(x, 0, sizeof(*x));
    x->deadline_ns = p->deadline_ns;
    x->telemetry_period_ns = run_telemetry_period_ns(p->report_every_ns);
    char err[512];
    if (p->prometheus) {
        struct metrics_config mc = {.bounds = p->prometheus_bounds,
                                    .response = has_workload(p),
                                    .deadline = run_has_deadline(p)};
        fill_info(&mc.info, p, si);
        if (metrics_init(&x->metrics, &mc, p->common.cpus.cpu, p->common.cpus.count) != 0) {
            fprintf(stderr, "jitterlab: --prometheus %s: out of memory\n", p->prometheus_text);
            return -1;
        }
        x->metrics_on = true;
        x->exporter = exporter_start(&p->prometheus_addr, &x->metrics, err, sizeof(err));
        if (!x->exporter) {
            fprintf(stderr, "jitterlab: --prometheus %s: %s\n", p->prometheus_text, err);
            return -1;
        }
    }
    if (p->influx_text) {
        x->influx = influx_open(&p->influx, si->hostname, run_has_deadline(p), err, sizeof(err));
        if (!x->influx) {
            fprintf(stderr, "jitterlab: --influx %s: %s\n", p->influx.shown, err);
            return -1;
        }
    }
    return 0;
}

void run_export_started(struct run_export *x, struct engine *eng, const struct explain *explain)
{
    x->eng = eng;
    x->explain = explain;
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    int64_t now_rt = (int64_t)rt.tv_sec * NS_PER_S + rt.tv_nsec;
    x->unix_start_ns = now_rt - (monotonic_now_ns() - engine_start_ns(eng));
    if (x->metrics_on)
        metrics_set_start(&x->metrics, (double)x->unix_start_ns / 1e9);
}

void run_export_sample(struct run_export *x, int i, const struct cycle_sample *s)
{
    if (x->metrics_on)
        metrics_sample(&x->metrics, i, s->latency_ns, s->exec_ns, s->missed,
                       response_misses_deadline(s->latency_ns, s->exec_ns, x->deadline_ns));
}

void run_export_window(struct run_export *x, const struct interval_stats *w,
                       const struct latency_hist *h)
{
    if (x->influx)
        influx_window(x->influx, w, h, x->unix_start_ns + w->t_ns);
}

void run_export_telemetry(struct run_export *x, int i, const struct telemetry_window *w)
{
    if (x->metrics_on)
        metrics_telemetry(&x->metrics, i, &w->fig, w->duration_ns);
    if (x->influx) {
        /* on the period's grid, so that a report window of the same length
         * ending there is the same point */
        int64_t p = x->telemetry_period_ns;
        int64_t t = (w->t_ns + p / 2) / p * p;
        influx_telemetry(x->influx, &w->fig, x->unix_start_ns + t);
    }
}

void run_export_drained(struct run_export *x)
{
    if (x->metrics_on && x->eng) {
        for (int i = 0; i < x->metrics.ncpu; i++) {
            struct metrics_cpu *c = metrics_cpu_acc(&x->metrics, i);
            c->ring_drops = engine_ring_drops(x->eng, i);
            if (x->explain && x->explain->capture) {
                c->has_spikes = true;
                for (unsigned k = 0; k < CAUSE_KIND_COUNT; k++)
                    c->spikes[k] = spikes_cpu_cause(&x->explain->store, c->cpu, k);
            }
        }
        metrics_publish(&x->metrics);
    }
    if (x->influx)
        influx_flush(x->influx);
}

void run_export_reopen(struct run_export *x)
{
    char err[300];
    if (x->influx && influx_reopen(x->influx, err, sizeof(err)) != 0)
        fprintf(stderr, "jitterlab: --influx: cannot reopen: %s; its points are dropped\n", err);
}

void run_export_close(struct run_export *x)
{
    exporter_stop(x->exporter);
    x->exporter = NULL;
    if (x->influx) {
        influx_close(x->influx, &x->influx_counts);
        x->influx = NULL;
    }
    if (x->metrics_on)
        metrics_free(&x->metrics);
    x->metrics_on = false;
}
