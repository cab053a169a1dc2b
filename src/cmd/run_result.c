/*
 * The result of a run (see run_result.h).
 */
#include "cmd/run_result.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "common/clock.h"
#include "common/units.h"
#include "out/histfile.h"
#include "out/json_result.h"
#include "out/text_report.h"

static void fill_report(struct run_report *rep, const struct run_params *p, struct engine *eng,
                        struct collector *c, int64_t end_ns, bool pm_held)
{
    rep->version = JITTERLAB_VERSION;
    int64_t start_ns = engine_start_ns(eng);
    rep->duration_s = start_ns > 0 ? (double)(end_ns - start_ns) / 1e9 : 0;
    rep->start_ns = start_ns;
    if (rep->duration_s < 0)
        rep->duration_s = 0;
    rep->interval_ns = p->interval_ns;
    rep->forever = p->forever;
    rep->duration_ns = p->duration_ns;
    rep->loops = p->loops;
    rep->policy = p->policy == SCHED_FIFO       ? "fifo"
                  : p->policy == SCHED_RR       ? "rr"
                  : p->policy == SCHED_DEADLINE ? "deadline"
                                                : "other";
    rep->reservation = p->policy == SCHED_DEADLINE ? &p->reservation : NULL;
    rep->priority = p->priority;
    rep->realtime = p->policy != SCHED_OTHER && !engine_degraded(eng);
    rep->memory_locked = engine_memory_lock(eng) == ENGINE_LOCK_ALL;
    rep->memory_lock = engine_memory_lock(eng) == ENGINE_LOCK_ALL       ? "all"
                       : engine_memory_lock(eng) == ENGINE_LOCK_BUFFERS ? "buffers"
                                                                        : "none";
    rep->cpus = &p->common.cpus;
    rep->clock = p->clock == ENGINE_CLOCK_TSC ? "tsc" : "monotonic";
    rep->tsc_hz = engine_tsc_hz(eng);
    rep->tolerance_ns = p->tolerance_ns;
    rep->budget_ns = p->budget_ns;
    rep->pm_qos_us = pm_held ? p->pm_qos_us : -1;
    rep->report_every_ns = p->report_every_ns;
    rep->report_every_samples = p->report_every_samples;
    rep->keep_windows = p->keep_windows;
    rep->workload = has_workload(p) ? &p->workload : NULL;
    rep->seed = p->seed;
    rep->deadline_ns = p->deadline_ns;
    rep->counters_mask = p->counters_mask;
    rep->control_task = control_task_columns(p);
    rep->loads = p->loads;
    rep->nloads = p->nloads;
    rep->ncpu = c->n;
    rep->wake = wake_mech_name(p->wake.mech);
    rep->waker_cpu = p->wake.waker_cpu;
    rep->waker_priority = p->wake.waker_priority;
    rep->per_cpu = p->per_cpu;
    if (collector_periodic(c->cfg)) {
        rep->has_intervals = true;
        rep->intervals = collector_windows(c, &rep->interval_count, &rep->intervals_dropped);
    }
}

/* The result document into path; 0, or -1 after the message (with
 * `after` appended). */
static int write_json(const struct run_report *rep, const char *path, const char *after)
{
    json_t *doc = json_run_result(rep);
    int rc = doc && json_write_file(doc, path) == 0 ? 0 : -1;
    if (rc != 0)
        fprintf(stderr, "jitterlab: --json %s: %s%s\n", path, strerror(errno), after);
    json_decref(doc);
    return rc;
}

int run_result_write(const struct run_params *p, struct run_stream *rs,
                     const struct run_report *rep)
{
    int rc = EXIT_OK;
    const char *opt = NULL, *path = NULL;
    if (run_stream_commit(rs, &opt, &path) != 0) {
        fprintf(stderr, "jitterlab: %s %s: %s\n", opt, path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    if (p->common.json_path && write_json(rep, p->common.json_path, "") != 0)
        rc = EXIT_RUNTIME;
    if (p->hist_path && histfile_write(rep, p->hist_path) != 0) {
        fprintf(stderr, "jitterlab: --histogram-file %s: %s\n", p->hist_path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    return rc;
}

/* The final exit code from the outputs, the budget and the restore. */
int run_result_verdict(const struct run_params *p, const struct run_report *rep, int out_rc,
                       int tune_rc)
{
    int rc = out_rc;
    if (rc == EXIT_OK && p->budget_ns >= 0) {
        char max[32], budget[32];
        format_duration(p->budget_ns, budget, sizeof(budget));
        if (rep->all_samples == 0) {
            /* Nothing measured is never within budget. */
            fprintf(stderr, "jitterlab: --budget %s: no sample was taken\n", budget);
            rc = EXIT_RUNTIME;
        } else if (rep->all_latency.max > p->budget_ns) {
            format_duration(rep->all_latency.max, max, sizeof(max));
            fprintf(stderr, "jitterlab: latency budget exceeded: max %s > --budget %s\n", max,
                    budget);
            rc = EXIT_BUDGET;
        }
    }
    if (rc == EXIT_OK && tune_rc != EXIT_OK)
        rc = tune_rc;
    return rc;
}

void run_result_fill(struct run_state *st, struct run_report *rep,
                     const struct cpu_result **results, int64_t end_ns, bool interrupted,
                     bool in_progress)
{
    const struct run_params *p = st->p;
    memset(rep, 0, sizeof(*rep));
    snprintf(rep->started_at, sizeof(rep->started_at), "%s", st->started_at);
    rep->argc = st->argc;
    rep->argv = st->argv;
    rep->interrupted = interrupted;
    rep->in_progress = in_progress;
    rep->system = st->si;
    rep->machine = st->machine;
    rep->tune = st->tune;
    rep->load_sched = st->load_sched;
    rep->load_runner = st->loads;
    rep->cpu = results;
    rep->all_hist = &st->all_hist[0];
    rep->all_exec_hist = &st->all_hist[1];
    rep->all_response_hist = &st->all_hist[2];
    fill_report(rep, p, st->eng, st->c, end_ns, st->pm_held);
    if (st->running) /* the engine exists and its threads started */
        rep->timing = engine_timing(st->eng);
    if (st->running && p->wake.mech != WAKE_TIMER) {
        for (int i = 0; i < rep->ncpu; i++)
            st->wakers[i] = engine_waker_result(st->eng, i);
        rep->wakers = st->wakers;
    }
    if (st->rtele && st->running) {
        rep->telemetry = st->tele;
        rep->telemetry_period_ns = run_telemetry_period_ns(p->report_every_ns);
        rep->telemetry_all = p->telemetry_all;
        rep->telemetry_windows =
            run_telemetry_windows(st->rtele, &rep->telemetry_count, &rep->telemetry_dropped);
    }
    struct explain *x = st->explain;
    if (x && !in_progress && !x->capture && rep->telemetry &&
        explain_by_windows(x, rep->telemetry_windows, rep->telemetry_count,
                           telemetry_softirq_names(st->tele),
                           telemetry_softirq_count(st->tele)) != 0)
        fprintf(stderr, "jitterlab: --explain: out of memory for the window attribution\n");
    /* The spikes are summed up at the end; a result written before has
     * their counts in the exporter only. */
    if (x && !in_progress) {
        rep->explain_method = x->capture ? "tracepoints" : "window";
        rep->explain_reason = st->explain_reason;
        rep->explain_threshold_ns = p->explain_threshold_ns;
        rep->explain = x;
    }
    run_report_merge(rep);
}

void run_result_write_now(struct run_state *st)
{
    const struct cpu_result *results[CPULIST_MAX_CPUS];
    struct run_report rep;
    for (int i = 0; i < st->c->n; i++)
        results[i] = collector_running_result(st->c, i);
    run_result_fill(st, &rep, results, monotonic_now_ns(), false, true);
    const char *path = st->p->common.json_path;
    if (!path) {
        text_summary(stdout, &rep);
        fflush(stdout);
        return;
    }
    if (write_json(&rep, path, " (the run goes on)") == 0 && !st->p->common.quiet)
        fprintf(stderr, "jitterlab: result so far written to %s\n", path);
}
