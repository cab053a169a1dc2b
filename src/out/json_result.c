/*
 * Builds and writes the run result document (schema 1). Field names are a
 * contract with every reader (out/result_read.c, scripts, dashboards): add,
 * never rename.
 * Times are integer nanoseconds unless the key ends in _s. Statistics of an
 * empty set are null rather than invented zeros.
 */
#include "out/json_result.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_text.h"
#include "engine/counters.h"
#include "engine/workload.h"
#include "common/atomic_file.h"
#include "crosscpu/timebase.h"
#include "out/json_inspect.h"
#include "out/json_load.h"
#include "out/json_telemetry.h"
#include "sys/cpulist.h"
#include "trace/capture.h"
#include "trace/cause_source.h"

static json_t *json_int_or_null(bool present, int64_t v)
{
    return present ? json_integer(v) : json_null();
}

static json_t *json_str_or_null(const char *s)
{
    return json_text_or_null(s);
}

json_t *json_latency_stats(const struct running_stats *s, const struct latency_hist *h)
{
    bool any = s->count > 0;
    json_t *o = json_object();
    json_object_set_new(o, "min", json_int_or_null(any, s->min));
    json_object_set_new(o, "mean", json_int_or_null(any, (int64_t)llround(s->mean)));
    json_object_set_new(o, "stddev",
                        json_int_or_null(any, (int64_t)llround(running_stats_stddev(s))));
    json_object_set_new(o, "max", json_int_or_null(any, s->max));
    static const struct {
        const char *key;
        double pct;
    } pcts[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}, {"p9999", 99.99}};
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
        json_object_set_new(
            o, pcts[i].key,
            json_int_or_null(any && h, h ? latency_hist_percentile(h, pcts[i].pct) : 0));
    return o;
}

json_t *json_histogram(const struct latency_hist *h)
{
    json_t *o = json_object();
    json_t *bins = json_array();
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++) {
        if (!h->buckets[i])
            continue;
        int64_t lo, hi;
        latency_hist_bucket_bounds(i, &lo, &hi);
        json_array_append_new(
            bins, json_pack("[III]", (json_int_t)lo, (json_int_t)hi, (json_int_t)h->buckets[i]));
    }
    json_object_set_new(o, "unit", json_string("ns"));
    json_object_set_new(o, "bins", bins);
    json_object_set_new(o, "overflow", json_integer((json_int_t)h->overflow));
    json_object_set_new(o, "underflow", json_integer((json_int_t)h->underflow));
    json_object_set_new(o, "max_ns", json_int_or_null(h->count > 0, h->max_ns));
    return o;
}

json_t *json_system_info(const struct system_info *si)
{
    json_t *o = json_object();
    json_object_set_new(o, "hostname", json_str_or_null(si->hostname));
    json_object_set_new(o, "kernel", json_str_or_null(si->kernel));
    json_object_set_new(o, "kernel_version", json_str_or_null(si->kernel_version));
    json_object_set_new(o, "preempt_model", json_str_or_null(si->preempt_model));
    json_object_set_new(o, "preempt_source", json_str_or_null(si->preempt_source));
    json_object_set_new(o, "cmdline", json_str_or_null(si->cmdline));
    json_object_set_new(o, "cpu_model", json_str_or_null(si->cpu_model));
    json_object_set_new(o, "arch", json_str_or_null(si->arch));
    json_object_set_new(o, "cpus_online", json_str_or_null(si->cpus_online));
    json_object_set_new(o, "isolated", json_text_new(si->isolated));
    json_object_set_new(o, "nohz_full", json_text_new(si->nohz_full));
    json_object_set_new(o, "clocksource", json_str_or_null(si->clocksource));
    json_object_set_new(o, "clocksource_available", json_str_or_null(si->clocksource_available));
    json_object_set_new(o, "hypervisor", json_str_or_null(si->hypervisor));
    json_object_set_new(o, "tsc_constant", json_boolean(si->tsc_constant));
    json_object_set_new(o, "tsc_nonstop", json_boolean(si->tsc_nonstop));
    json_object_set_new(o, "tsc_invariant", json_boolean(si->tsc_invariant));
    json_object_set_new(o, "cpu_dma_latency_us",
                        json_int_or_null(si->cpu_dma_latency_us >= 0, si->cpu_dma_latency_us));
    return o;
}

static json_t *json_running(const struct running_stats *s)
{
    bool any = s->count > 0;
    return json_pack("{s:I,s:o,s:o,s:o,s:o}", "count", (json_int_t)s->count, "min",
                     json_int_or_null(any, s->min), "mean",
                     json_int_or_null(any, (int64_t)llround(s->mean)), "max",
                     json_int_or_null(any, s->max), "stddev",
                     json_int_or_null(any, (int64_t)llround(running_stats_stddev(s))));
}

static json_t *json_time_with_histogram(const struct running_stats *s, const struct latency_hist *h)
{
    json_t *o = json_latency_stats(s, h);
    json_object_set_new(o, "histogram", json_histogram(h));
    return o;
}

/* {min, mean, p99, max} of a per-cycle counter delta; scale 1000 for IPC. */
static json_t *json_counter_stats(const struct running_stats *s, const struct latency_hist *h,
                                  double scale)
{
    if (s->count == 0)
        return json_null();
    return json_pack("{s:f,s:f,s:f,s:f}", "min", (double)s->min / scale, "mean", s->mean / scale,
                     "p99", (double)latency_hist_percentile(h, 99) / scale, "max",
                     (double)s->max / scale);
}

static json_t *json_counters(const struct cpu_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "hardware",
                        json_pack("{s:b,s:o}", "available", r->hw_available, "reason",
                                  r->hw_available ? json_null() : json_str_or_null(r->hw_reason)));
    uint32_t open = r->counters_open_mask;
    if (open & (1u << COUNTER_LLC_MISSES))
        json_object_set_new(o, "llc_misses", json_counter_stats(&r->llc, r->llc_hist, 1.0));
    if ((open & (1u << COUNTER_INSTRUCTIONS)) && (open & (1u << COUNTER_CYCLES)))
        json_object_set_new(o, "ipc", json_counter_stats(&r->ipc_milli, r->ipc_milli_hist, 1000.0));
    static const struct {
        enum counter_id id;
        const char *key;
    } totals[] = {{COUNTER_CYCLES, "cycles"},
                  {COUNTER_INSTRUCTIONS, "instructions"},
                  {COUNTER_CONTEXT_SWITCHES, "context_switches"},
                  {COUNTER_CPU_MIGRATIONS, "cpu_migrations"},
                  {COUNTER_PAGE_FAULTS, "page_faults"}};
    for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++) {
        if (!(open & (1u << totals[i].id)))
            continue;
        json_object_set_new(o, totals[i].key,
                            json_pack("{s:I,s:I}", "total",
                                      (json_int_t)r->counter_total[totals[i].id], "max_per_cycle",
                                      (json_int_t)r->counter_max[totals[i].id]));
    }
    return o;
}

static json_t *json_cpu(const struct run_report *rep, const struct cpu_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "cpu", json_integer(r->cpu));
    json_object_set_new(o, "samples", json_integer((json_int_t)r->samples));
    json_object_set_new(o, "missed", json_integer((json_int_t)r->missed));
    json_object_set_new(o, "missed_events", json_integer((json_int_t)r->missed_events));
    json_object_set_new(o, "ring_drops", json_integer((json_int_t)r->ring_drops));
    json_object_set_new(o, "samples_lacking",
                        json_integer((json_int_t)run_report_cpu_lacking(rep, r)));
    json_object_set_new(o, "page_faults", json_int_or_null(r->page_faults >= 0, r->page_faults));
    json_t *lat = json_latency_stats(&r->latency, &r->hist);
    json_object_set_new(lat, "over_tolerance",
                        json_int_or_null(rep->tolerance_ns >= 0, (int64_t)r->over_tolerance));
    json_object_set_new(lat, "max_at_s",
                        r->samples ? json_real((double)r->max_at_ns / 1e9) : json_null());
    json_object_set_new(o, "latency_ns", lat);
    json_object_set_new(o, "period_ns", json_running(&r->period));
    json_object_set_new(o, "histogram", json_histogram(&r->hist));
    json_object_set_new(o, "deadline_misses",
                        json_int_or_null(rep->deadline_ns > 0, (int64_t)r->deadline_misses));
    if (r->exec_hist) { /* a result written while the run goes on may lack them */
        json_object_set_new(o, "exec_ns", json_time_with_histogram(&r->exec, r->exec_hist));
        json_object_set_new(o, "response_ns",
                            json_time_with_histogram(&r->response, r->response_hist));
    }
    if (rep->counters_mask)
        json_object_set_new(o, "counters", json_counters(r));
    json_t *sched = json_pack("{s:s,s:i}", "policy",
                              r->sched_policy == SCHED_FIFO       ? "fifo"
                              : r->sched_policy == SCHED_RR       ? "rr"
                              : r->sched_policy == SCHED_DEADLINE ? "deadline"
                                                                  : "other",
                              "priority", r->sched_priority);
    if (rep->reservation) {
        /* the reservation as the kernel read it back to the thread */
        const struct deadline_reservation *k = &r->sched_reservation;
        json_object_set_new(sched, "runtime_ns", json_int_or_null(k->period_ns > 0, k->runtime_ns));
        json_object_set_new(sched, "deadline_ns",
                            json_int_or_null(k->period_ns > 0, k->deadline_ns));
        json_object_set_new(sched, "period_ns", json_int_or_null(k->period_ns > 0, k->period_ns));
        json_object_set_new(o, "dl_overruns", json_integer((json_int_t)r->dl_overruns));
        json_object_set_new(o, "dl_elsewhere", json_integer((json_int_t)r->dl_elsewhere));
    }
    json_object_set_new(o, "sched", sched);
    json_object_set_new(o, "timer_slack_ns",
                        json_int_or_null(r->timer_slack_ns >= 0, (int64_t)r->timer_slack_ns));
    if (rep->tsc_hz > 0)
        json_object_set_new(o, "tsc_pair_max_ns", json_integer(r->tsc_anchor_max_ns));
    return o;
}

/* config.tune: what run --tune changed (and what the kernel refused). */
static json_t *json_tune(const struct tune_summary *t)
{
    if (!t)
        return json_null();
    json_t *changes = json_array(), *refused = json_array(), *notes = json_array();
    for (int i = 0; i < t->plan->n; i++) {
        const struct tune_change *c = &t->plan->change[i];
        bool applied = c->state == TUNE_CHANGE_APPLIED;
        json_array_append_new(applied ? changes : refused,
                              json_pack("{s:s,s:o,s:o,s:o,s:s}", "action", c->action, "path",
                                        json_text_new(c->path), "old", json_text_new(c->old_value),
                                        "new", json_text_new(c->new_value), "state",
                                        applied ? "applied" : "refused"));
    }
    for (int i = 0; i < t->plan->nnotes; i++)
        json_array_append_new(notes, json_text_new(t->plan->note[i]));
    return json_pack("{s:o,s:I,s:o,s:o,s:o}", "profile", json_text_new(t->profile), "budget_ns",
                     (json_int_t)t->budget_ns, "changes", changes, "refused", refused, "notes",
                     notes);
}

/* A waker's figures (--wake MECH), or several merged (all). */
static json_t *json_waker(const struct running_stats *lateness, const struct latency_hist *h,
                          uint64_t wakes, uint64_t skipped, uint64_t lost)
{
    json_t *o = json_object();
    json_object_set_new(o, "wakes", json_integer((json_int_t)wakes));
    json_object_set_new(o, "skipped", json_integer((json_int_t)skipped));
    json_object_set_new(o, "lost", json_integer((json_int_t)lost));
    json_t *lat = json_time_with_histogram(lateness, h);
    json_object_set_new(lat, "count", json_integer((json_int_t)lateness->count));
    json_object_set_new(o, "lateness_ns", lat);
    return o;
}

static json_t *json_waker_of(const struct waker_result *w)
{
    json_t *o = json_waker(&w->lateness, &w->hist, w->wakes, w->skipped, w->lost);
    json_object_set_new(o, "cpu", json_integer(w->cpu));
    json_object_set_new(o, "sched",
                        json_pack("{s:s,s:i}", "policy",
                                  w->sched_policy == SCHED_FIFO ? "fifo" : "other", "priority",
                                  w->sched_priority));
    json_object_set_new(o, "error", w->error ? json_string(strerror(w->error)) : json_null());
    return o;
}

/* all.waker: every CPU's waker merged; NULL when out of memory. */
static json_t *json_wakers_all(const struct run_report *rep)
{
    struct latency_hist *h = malloc(sizeof(*h));
    if (!h)
        return NULL;
    latency_hist_init(h);
    struct running_stats lateness;
    running_stats_init(&lateness);
    uint64_t wakes = 0, skipped = 0, lost = 0;
    for (int i = 0; i < rep->ncpu; i++) {
        const struct waker_result *w = rep->wakers[i];
        latency_hist_merge(h, &w->hist);
        running_stats_merge(&lateness, &w->lateness);
        wakes += w->wakes;
        skipped += w->skipped;
        lost += w->lost;
    }
    json_t *o = json_waker(&lateness, h, wakes, skipped, lost);
    free(h);
    return o;
}

static json_t *json_config(const struct run_report *rep)
{
    json_t *c = json_object();
    json_object_set_new(c, "interval_ns", json_integer(rep->interval_ns));
    json_object_set_new(c, "duration_ns", json_int_or_null(rep->duration_ns > 0, rep->duration_ns));
    json_object_set_new(c, "loops", json_int_or_null(rep->loops > 0, (int64_t)rep->loops));
    json_object_set_new(c, "forever", json_boolean(rep->forever));
    json_object_set_new(c, "policy", json_text_new(rep->policy));
    json_object_set_new(c, "priority", json_integer(rep->priority));
    json_object_set_new(c, "realtime", json_boolean(rep->realtime));
    json_object_set_new(c, "memory_locked", json_boolean(rep->memory_locked));
    json_object_set_new(c, "memory_lock",
                        json_text_new(rep->memory_lock ? rep->memory_lock : "none"));
    json_t *cpus = json_array();
    for (int i = 0; i < rep->cpus->count; i++)
        json_array_append_new(cpus, json_integer(rep->cpus->cpu[i]));
    json_object_set_new(c, "cpus", cpus);
    json_object_set_new(c, "clock", json_text_new(rep->clock));
    bool woken = rep->wake && strcmp(rep->wake, "timer") != 0;
    json_object_set_new(c, "wake", json_text_new(rep->wake ? rep->wake : "timer"));
    json_object_set_new(c, "waker_cpu", json_int_or_null(woken, rep->waker_cpu));
    json_object_set_new(c, "waker_priority", json_int_or_null(woken, rep->waker_priority));
    json_object_set_new(c, "tsc_hz", rep->tsc_hz > 0 ? json_real(rep->tsc_hz) : json_null());
    json_object_set_new(c, "tolerance_ns",
                        json_int_or_null(rep->tolerance_ns >= 0, rep->tolerance_ns));
    json_object_set_new(c, "budget_ns", json_int_or_null(rep->budget_ns >= 0, rep->budget_ns));
    json_object_set_new(c, "tune", json_tune(rep->tune));
    json_t *wl = json_null();
    if (rep->workload) {
        const struct workload_spec *w = rep->workload;
        wl = json_object();
        json_object_set_new(wl, "kind",
                            json_string(w->kind == WORKLOAD_PTRCHASE ? "ptrchase" : "spin"));
        json_object_set_new(wl, "spec", json_text_new(w->text));
        json_object_set_new(wl, "size_bytes",
                            json_int_or_null(w->kind == WORKLOAD_PTRCHASE, (int64_t)w->size_bytes));
        json_object_set_new(wl, "steps",
                            json_int_or_null(w->kind == WORKLOAD_PTRCHASE, (int64_t)w->steps));
        json_object_set_new(wl, "spin_ns", json_int_or_null(w->kind == WORKLOAD_SPIN, w->spin_ns));
        json_object_set_new(wl, "seed", json_integer((json_int_t)w->seed));
    }
    json_object_set_new(c, "workload", wl);
    json_object_set_new(c, "seed", json_integer((json_int_t)rep->seed));
    json_object_set_new(c, "deadline_ns", json_int_or_null(rep->deadline_ns > 0, rep->deadline_ns));
    const struct deadline_reservation *res = rep->reservation;
    json_object_set_new(c, "runtime_ns", json_int_or_null(res != NULL, res ? res->runtime_ns : 0));
    json_object_set_new(c, "period_ns", json_int_or_null(res != NULL, res ? res->period_ns : 0));
    json_t *counters = json_null();
    if (rep->counters_mask) {
        counters = json_array();
        for (int id = 0; id < COUNTER_COUNT; id++)
            if (rep->counters_mask & (1u << id))
                json_array_append_new(counters, json_string(counter_name((enum counter_id)id)));
    }
    json_object_set_new(c, "counters", counters);
    json_object_set_new(
        c, "load",
        rep->nloads ? json_load_list(rep->loads, rep->nloads, rep->load_sched, rep->load_runner)
                    : json_null());
    json_object_set_new(c, "pm_qos_us", json_int_or_null(rep->pm_qos_us >= 0, rep->pm_qos_us));
    json_object_set_new(c, "report_every_ns",
                        json_int_or_null(rep->report_every_ns > 0, rep->report_every_ns));
    json_object_set_new(
        c, "report_every_samples",
        json_int_or_null(rep->report_every_samples > 0, (int64_t)rep->report_every_samples));
    json_object_set_new(
        c, "keep_windows",
        json_int_or_null(rep->has_intervals || rep->telemetry, (int64_t)rep->keep_windows));
    json_object_set_new(c, "telemetry",
                        rep->telemetry ? json_pack("{s:I,s:s}", "period_ns",
                                                   (json_int_t)rep->telemetry_period_ns, "mode",
                                                   rep->telemetry_all ? "all" : "quiet")
                                       : json_null());
    return c;
}

static json_t *json_interval(const struct interval_stats *iv, bool with_tolerance,
                             bool with_deadline)
{
    bool any = iv->latency.count > 0;
    json_t *o = json_object();
    json_object_set_new(o, "t_s", json_real((double)iv->t_ns / 1e9));
    json_object_set_new(o, "cpu", json_integer(iv->cpu));
    json_object_set_new(o, "samples", json_integer((json_int_t)iv->samples));
    json_object_set_new(o, "missed", json_integer((json_int_t)iv->missed));
    json_object_set_new(o, "min_ns", json_int_or_null(any, iv->latency.min));
    json_object_set_new(o, "mean_ns", json_int_or_null(any, (int64_t)llround(iv->latency.mean)));
    json_object_set_new(o, "max_ns", json_int_or_null(any, iv->latency.max));
    /* the same shape as period_ns, error_ns and exec_ns (preferred over the
     * flat min_ns/mean_ns/max_ns, which stay for older readers) */
    json_object_set_new(o, "latency_ns", json_running(&iv->latency));
    json_object_set_new(o, "period_ns", json_running(&iv->period));
    json_object_set_new(o, "over_tolerance",
                        json_int_or_null(with_tolerance, (int64_t)iv->over_tolerance));
    json_object_set_new(o, "error_ns", json_running(&iv->error));
    json_object_set_new(o, "exec_ns", json_running(&iv->exec));
    json_object_set_new(o, "deadline_misses",
                        json_int_or_null(with_deadline, (int64_t)iv->deadline_misses));
    return o;
}

/* "telemetry_sources", "telemetry" (one entry per window and CPU) and
 * "telemetry_dropped". */
static void json_telemetry(json_t *doc, const struct run_report *rep)
{
    json_object_set_new(doc, "telemetry_sources", json_telemetry_sources(rep->telemetry));
    json_t *names = json_telemetry_source_names(rep->telemetry);
    json_t *arr = json_array();
    for (uint64_t k = 0; k < rep->telemetry_count; k++) {
        const struct telemetry_window *w = &rep->telemetry_windows[k];
        json_t *o = json_object();
        json_object_set_new(o, "t_s", json_real((double)w->t_ns / 1e9));
        json_object_set_new(o, "cpu", json_integer(w->cpu));
        json_object_set_new(o, "samples", json_integer((json_int_t)w->samples));
        json_object_set_new(o, "missed", json_integer((json_int_t)w->missed));
        json_object_set_new(o, "max_ns", json_int_or_null(w->samples > 0, w->max_ns));
        json_object_set_new(o, "p99_ns", json_int_or_null(w->samples > 0, w->p99_ns));
        json_object_set_new(o, "mean_ns",
                            w->samples > 0 ? json_real(round(w->mean_ns * 10) / 10) : json_null());
        if (rep->explain_method)
            json_object_set_new(o, "spikes", json_integer((json_int_t)w->spikes));
        json_telemetry_figures(o, &w->fig, rep->telemetry);
        json_object_set(o, "source", names);
        json_array_append_new(arr, o);
    }
    json_decref(names);
    json_object_set_new(doc, "telemetry", arr);
    json_object_set_new(doc, "telemetry_dropped", json_integer((json_int_t)rep->telemetry_dropped));
}

json_t *json_document_new(const char *kind, const char *version, int argc, char **argv,
                          const char *started_at)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "tool", json_string("jitterlab"));
    json_object_set_new(doc, "schema", json_integer(1));
    json_object_set_new(doc, "kind", json_string(kind));
    json_object_set_new(doc, "version", json_string(version));
    json_t *args = json_array();
    json_array_append_new(args, json_string("jitterlab"));
    for (int i = 0; i < argc; i++) /* a URL's credentials never */
        json_array_append_new(args, json_text_redacted(argv[i]));
    json_object_set_new(doc, "argv", args);
    json_object_set_new(doc, "started_at", json_text_new(started_at));
    return doc;
}

/* How long the measuring threads took to start and, when asked, to stop. */
static json_t *json_start_stop(const struct engine_timing *t)
{
    return json_pack("{s:I,s:I,s:i,s:I,s:I,s:o}", "threads_created_ns", (json_int_t)t->create_ns,
                     "threads_ready_ns", (json_int_t)t->ready_ns, "slowest_cpu", t->slowest_cpu,
                     "slowest_ready_ns", (json_int_t)t->slowest_ready_ns, "first_wakeup_ns",
                     (json_int_t)t->first_wakeup_ns, "stop_ns",
                     json_int_or_null(t->stop_requested_ns != 0 && t->stop_ns > 0, t->stop_ns));
}

/* A finite number, else null (an unbounded or unknown figure). */
static json_t *json_real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* tail.until_confident: the goal, what ended the run and its last check. */
static json_t *json_until_confident(const struct run_tail_confidence *k)
{
    json_t *o = json_object();
    json_object_set_new(o, "probability", json_real(k->probability));
    json_object_set_new(o, "width_pct", json_real(k->width * 100));
    json_object_set_new(o, "checks", json_integer((json_int_t)k->checks));
    if (!k->checks || !k->cpus) {
        json_object_set_new(o, "last_check", json_null());
        return o;
    }
    json_t *last = json_object(), *cpus = json_array();
    json_object_set_new(last, "t_s", json_real_or_null(k->last_t_s));
    for (int i = 0; i < k->ncpu; i++) {
        const struct run_tail_check_cpu *c = &k->cpus[i];
        json_array_append_new(cpus, json_pack("{s:i,s:s,s:o,s:o,s:o,s:b}", "cpu", c->cpu, "verdict",
                                              c->estimate ? "estimate" : "cannot-estimate",
                                              "latency_ns", json_real_or_null(c->latency_ns),
                                              "upper_ns", json_real_or_null(c->upper_ns),
                                              "width_pct", json_real_or_null(c->width * 100),
                                              "confident", c->confident));
    }
    json_object_set_new(last, "cpus", cpus);
    json_object_set_new(last, "widest_cpu",
                        k->widest >= 0 ? json_integer(k->cpus[k->widest].cpu) : json_null());
    json_object_set_new(o, "last_check", last);
    return o;
}

/* The top-level `tail` (run --tail): the tail document's object, and with
 * --until-confident what ended the run. */
static json_t *json_run_tail(const struct run_report_tail *t)
{
    json_t *o = json_tail_object(&t->cfg, t->cpus, t->cpu_ids, t->n, t->all);
    if (!o || !t->confidence)
        return o;
    json_object_set_new(o, "ended_by", json_string(t->confidence->ended_by));
    json_object_set_new(o, "until_confident", json_until_confident(t->confidence));
    return o;
}

json_t *json_run_result(const struct run_report *rep)
{
    json_t *doc = json_document_new("run", rep->version, rep->argc, rep->argv, rep->started_at);
    json_object_set_new(doc, "duration_s", json_real(rep->duration_s));
    json_object_set_new(doc, "interrupted", json_boolean(rep->interrupted));
    json_object_set_new(doc, "in_progress", json_boolean(rep->in_progress));
    json_object_set_new(doc, "exact", json_boolean(rep->all_samples_lacking == 0));
    if (rep->timing)
        json_object_set_new(doc, "start_stop", json_start_stop(rep->timing));
    json_object_set_new(doc, "system",
                        rep->machine ? run_system_json(rep->machine)
                                     : json_system_info(rep->system));
    json_object_set_new(doc, "config", json_config(rep));

    json_t *cpus = json_array();
    for (int i = 0; i < rep->ncpu; i++) {
        json_t *cpu = json_cpu(rep, rep->cpu[i]);
        if (rep->wakers)
            json_object_set_new(cpu, "waker", json_waker_of(rep->wakers[i]));
        json_array_append_new(cpus, cpu);
    }
    json_object_set_new(doc, "cpus", cpus);

    json_t *all = json_object();
    json_object_set_new(all, "samples", json_integer((json_int_t)rep->all_samples));
    json_object_set_new(all, "missed", json_integer((json_int_t)rep->all_missed));
    json_object_set_new(all, "ring_drops", json_integer((json_int_t)rep->all_ring_drops));
    json_object_set_new(all, "samples_lacking", json_integer((json_int_t)rep->all_samples_lacking));
    json_object_set_new(all, "page_faults",
                        json_int_or_null(rep->all_page_faults >= 0, rep->all_page_faults));
    json_t *lat = json_latency_stats(&rep->all_latency, rep->all_hist);
    json_object_set_new(lat, "over_tolerance",
                        json_int_or_null(rep->tolerance_ns >= 0, (int64_t)rep->all_over_tolerance));
    json_object_set_new(lat, "max_at_s",
                        rep->all_samples ? json_real((double)rep->all_max_at_ns / 1e9)
                                         : json_null());
    json_object_set_new(all, "latency_ns", lat);
    json_object_set_new(all, "histogram", json_histogram(rep->all_hist));
    json_object_set_new(all, "deadline_misses",
                        json_int_or_null(rep->deadline_ns > 0, (int64_t)rep->all_deadline_misses));
    if (rep->reservation) {
        uint64_t overruns = 0, elsewhere = 0;
        for (int i = 0; i < rep->ncpu; i++) {
            overruns += rep->cpu[i]->dl_overruns;
            elsewhere += rep->cpu[i]->dl_elsewhere;
        }
        json_object_set_new(all, "dl_overruns", json_integer((json_int_t)overruns));
        json_object_set_new(all, "dl_elsewhere", json_integer((json_int_t)elsewhere));
    }
    if (!rep->all_exec_partial) {
        json_object_set_new(all, "exec_ns",
                            json_time_with_histogram(&rep->all_exec, rep->all_exec_hist));
        json_object_set_new(all, "response_ns",
                            json_time_with_histogram(&rep->all_response, rep->all_response_hist));
    }
    if (rep->wakers) {
        json_t *w = json_wakers_all(rep);
        json_object_set_new(all, "waker", w ? w : json_null());
    }
    json_object_set_new(doc, "all", all);

    if (rep->has_intervals) {
        json_t *ivs = json_array();
        for (uint64_t i = 0; i < rep->interval_count; i++)
            json_array_append_new(ivs, json_interval(&rep->intervals[i], rep->tolerance_ns >= 0,
                                                     rep->deadline_ns > 0));
        json_object_set_new(doc, "intervals", ivs);
        json_object_set_new(doc, "intervals_dropped",
                            json_integer((json_int_t)rep->intervals_dropped));
    }
    if (rep->influx) {
        json_t *o = json_object();
        json_object_set_new(o, "destination", json_text_new(rep->influx_dest));
        json_object_set_new(o, "points", json_integer((json_int_t)rep->influx->points));
        json_object_set_new(o, "sent", json_integer((json_int_t)rep->influx->sent));
        json_object_set_new(o, "dropped", json_integer((json_int_t)rep->influx->dropped));
        json_object_set_new(o, "last_error",
                            rep->influx->last_error[0] ? json_text_new(rep->influx->last_error)
                                                       : json_null());
        json_object_set_new(doc, "influx", o);
    }
    if (rep->telemetry)
        json_telemetry(doc, rep);
    if (rep->explain_method)
        json_run_explain(doc, rep, rep->start_ns);
    if (rep->tail)
        json_object_set_new(doc, "tail", json_run_tail(rep->tail));
    return doc;
}

void json_timebase_fields(json_t *doc, const struct timebase *tb)
{
    json_object_set_new(doc, "clock", json_string(timebase_name(tb)));
    json_object_set_new(doc, "tsc_hz",
                        tb->tsc ? json_integer((json_int_t)llround(tb->hz)) : json_null());
}

/* The end of the array that opens at text[i] when it holds only scalars
 * (no array or object inside), else 0. */
static size_t scalar_array_end(const char *text, size_t i)
{
    bool in_string = false;
    for (size_t k = i + 1; text[k]; k++) {
        char ch = text[k];
        if (in_string) {
            if (ch == '\\' && text[k + 1])
                k++;
            else if (ch == '"')
                in_string = false;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '[' || ch == '{') {
            return 0;
        } else if (ch == ']') {
            return k;
        }
    }
    return 0;
}

/* Puts every array of scalars on one line ("[0, 1000, 12]"), in place: an
 * indented document otherwise spends a line on every number of every
 * histogram bin. Strings are copied untouched. */
void json_compact_scalar_arrays(char *text)
{
    size_t w = 0;
    bool in_string = false;
    for (size_t r = 0; text[r]; r++) {
        char ch = text[r];
        if (in_string) {
            text[w++] = ch;
            if (ch == '\\' && text[r + 1])
                text[w++] = text[++r];
            else if (ch == '"')
                in_string = false;
            continue;
        }
        if (ch == '"')
            in_string = true;
        size_t end = ch == '[' ? scalar_array_end(text, r) : 0;
        if (!end) {
            text[w++] = ch;
            continue;
        }
        bool str = false; /* inside a string of the array */
        for (; r <= end; r++) {
            ch = text[r];
            if (str) {
                text[w++] = ch;
                if (ch == '\\')
                    text[w++] = text[++r];
                else if (ch == '"')
                    str = false;
            } else if (ch == '"') {
                str = true;
                text[w++] = ch;
            } else if (ch != ' ' && ch != '\n' && ch != '\t' && ch != '\r') {
                text[w++] = ch;
                if (ch == ',')
                    text[w++] = ' ';
            }
        }
        r = end;
    }
    text[w] = '\0';
}

int json_write_file(json_t *doc, const char *path)
{
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (!text) {
        errno = ENOMEM;
        return -1;
    }
    json_compact_scalar_arrays(text);
    struct atomic_file f;
    if (atomic_file_open(&f, path) != 0) {
        int saved = errno;
        free(text);
        errno = saved;
        return -1;
    }
    fputs(text, f.fp);
    fputc('\n', f.fp);
    free(text);
    return atomic_file_commit(&f);
}
