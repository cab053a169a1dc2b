/*
 * The noise document (see json_noise.h).
 */
#include "out/json_noise.h"

#include <math.h>

#include "common/json_text.h"
#include "out/json_result.h"
#include "trace/explain.h"

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static json_t *real_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *json_gap_stats(const struct running_stats *s, const struct latency_hist *h,
                              int64_t max_at_ns)
{
    json_t *o = json_latency_stats(s, h);
    json_object_set_new(o, "max_at_s", s->count ? json_real((double)max_at_ns / 1e9) : json_null());
    return o;
}

static json_t *json_window(const struct noise_window *w)
{
    json_t *o = json_object();
    json_object_set_new(o, "t_s", json_real((double)w->t_ns / 1e9));
    json_object_set_new(o, "duration_ns", json_integer(w->duration_ns));
    json_object_set_new(o, "measured_ns", json_integer(w->measured_ns));
    json_object_set_new(o, "noise_ns", json_integer(w->noise_ns));
    json_object_set_new(o, "noise_pct", json_real(pct(w->noise_ns, w->measured_ns)));
    json_object_set_new(o, "gaps", json_integer((json_int_t)w->gaps));
    json_object_set_new(o, "max_ns", json_integer(w->max_ns));
    return o;
}

static json_t *json_cause_row(const struct noise_cause_row *r, int64_t noise_ns)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(cause_kind_name(r->kind)));
    json_object_set_new(o, "name", json_text_new(r->name));
    if (r->kind == CAUSE_THREAD) {
        json_object_set_new(o, "pid", json_integer(r->pid));
        json_object_set_new(o, "policy", json_string(explain_thread_policy(r->prio, r->policy)));
        json_object_set_new(o, "priority", json_integer(cause_user_priority(r->prio)));
        json_cause_pids(o, &r->pids, true, "gaps", "ns");
    }
    if (r->folded)
        json_object_set_new(o, "folded", json_integer((json_int_t)r->folded));
    json_object_set_new(o, "ns", json_integer(r->ns));
    json_object_set_new(o, "share", json_real(noise_ns > 0 ? (double)r->ns / (double)noise_ns : 0));
    json_object_set_new(o, "gaps", json_integer((json_int_t)r->gaps));
    return o;
}

static json_t *json_noise_cpu(const struct noise_report *rep, const struct noise_report_cpu *c)
{
    const struct noise_slot *s = c->slot;
    json_t *o = json_object();
    json_object_set_new(o, "cpu", json_integer(s->cpu));
    json_object_set_new(o, "tid", json_integer(s->tid));
    json_object_set_new(o, "measured_ns", json_integer(s->measured_ns));
    json_object_set_new(o, "noise_ns", json_integer(s->noise_ns));
    json_object_set_new(o, "noise_pct", json_real(pct(s->noise_ns, s->measured_ns)));
    json_object_set_new(o, "gaps", json_integer((json_int_t)s->gaps));
    json_object_set_new(o, "iterations", json_integer((json_int_t)s->iterations));
    json_object_set_new(o, "floor_ns", s->iterations ? json_integer(s->floor_ns) : json_null());
    /* the loop's mean cost: the time between gaps over the steps that were no gap */
    uint64_t quiet = s->iterations - s->gaps;
    json_object_set_new(o, "step_mean_ns",
                        quiet ? json_real((double)(s->measured_ns - s->noise_ns) / (double)quiet)
                              : json_null());
    json_object_set_new(o, "gap_ns", json_gap_stats(&s->stats, &s->hist, s->max_gap_end_ns));
    json_object_set_new(o, "histogram", json_histogram(&s->hist));
    json_object_set_new(o, "slices", json_integer((json_int_t)s->slices));
    json_object_set_new(o, "off_ns", json_integer(s->off_ns));
    json_object_set_new(o, "ring_drops", json_integer((json_int_t)c->ring_drops));
    json_object_set_new(o, "steal_pct", real_or_null(c->steal_pct));
    json_object_set_new(o, "smi", c->smi >= 0 ? json_integer(c->smi) : json_null());
    json_t *wins = json_array();
    for (size_t k = 0; k < c->nwin; k++)
        json_array_append_new(wins, json_window(&c->win[k]));
    json_object_set_new(o, "windows", wins);
    json_object_set_new(o, "windows_dropped", json_integer((json_int_t)c->win_dropped));
    json_t *causes = json_array();
    for (size_t k = 0; k < c->ncauses; k++)
        json_array_append_new(causes, json_cause_row(&c->causes[k], c->causes_ns));
    json_object_set_new(o, "causes", causes);
    json_object_set_new(o, "gaps_attributed", json_integer((json_int_t)c->attributed));
    json_t *off = json_array();
    for (size_t k = 0; k < c->noff_causes; k++)
        json_array_append_new(off, json_cause_row(&c->off_causes[k], c->off_causes_ns));
    json_object_set_new(o, "off_causes", off);
    json_t *largest = json_array();
    for (size_t k = 0; k < c->nlargest; k++) {
        const struct spike *sp = &c->largest[k];
        const char *policy[SPIKE_CAUSES_MAX] = {NULL};
        for (unsigned j = 0; j < sp->ncauses && j < SPIKE_CAUSES_MAX; j++)
            if (sp->causes[j].kind == CAUSE_THREAD)
                policy[j] = explain_thread_policy(sp->causes[j].prio, sp->causes[j].policy);
        json_t *g = json_spike(sp, policy, rep->start_ns);
        /* a gap's length is its "latency": said as gap_ns here */
        json_object_set(g, "gap_ns", json_object_get(g, "latency_ns"));
        json_object_del(g, "latency_ns");
        json_array_append_new(largest, g);
    }
    json_object_set_new(o, "largest", largest);
    return o;
}

static json_t *json_noise_config(const struct noise_report *rep)
{
    const struct noise_config *c = rep->cfg;
    json_t *o = json_object();
    json_t *cpus = json_array();
    for (int i = 0; i < c->n; i++)
        json_array_append_new(cpus, json_integer(c->cpus[i]));
    json_object_set_new(o, "cpus", cpus);
    json_object_set_new(o, "duration_ns", json_integer(c->duration_ns));
    json_object_set_new(o, "threshold_ns", json_integer(c->threshold_ns));
    json_object_set_new(o, "policy", json_string(c->fifo ? "fifo" : "other"));
    json_object_set_new(o, "priority", json_integer(c->fifo ? c->priority : 0));
    json_object_set_new(o, "runtime_ns", json_integer(c->runtime_ns));
    json_object_set_new(o, "period_ns", json_integer(c->period_ns));
    json_object_set_new(o, "report_every_ns", json_integer(c->window_ns));
    json_object_set_new(o, "histogram_rows", json_integer(c->us_rows));
    json_object_set_new(o, "largest", json_integer(rep->largest_per_cpu));
    json_object_set_new(o, "memory_locked", json_boolean(rep->memory_locked));
    return o;
}

json_t *json_noise_result(const struct noise_report *rep)
{
    json_t *doc = json_document_new("noise", rep->version, rep->argc, rep->argv, rep->started_at);
    json_object_set_new(doc, "duration_s", json_real((double)rep->elapsed_ns / 1e9));
    json_object_set_new(doc, "interrupted", json_boolean(rep->interrupted));
    json_object_set_new(doc, "realtime", json_boolean(rep->realtime));
    json_timebase_fields(doc, rep->tb);
    json_object_set_new(doc, "system", json_system_info(rep->system));
    json_object_set_new(doc, "config", json_noise_config(rep));
    json_t *cpus = json_array();
    for (int i = 0; i < rep->n; i++)
        json_array_append_new(cpus, json_noise_cpu(rep, &rep->cpu[i]));
    json_object_set_new(doc, "cpus", cpus);

    json_t *all = json_object();
    json_object_set_new(all, "measured_ns", json_integer(rep->all_measured_ns));
    json_object_set_new(all, "noise_ns", json_integer(rep->all_noise_ns));
    json_object_set_new(all, "noise_pct", json_real(pct(rep->all_noise_ns, rep->all_measured_ns)));
    json_object_set_new(all, "gaps", json_integer((json_int_t)rep->all_gaps));
    json_object_set_new(all, "floor_ns",
                        rep->all_floor_ns < INT64_MAX ? json_integer(rep->all_floor_ns)
                                                      : json_null());
    json_object_set_new(all, "gap_ns", json_latency_stats(&rep->all_stats, rep->all_hist));
    json_object_set_new(all, "histogram", json_histogram(rep->all_hist));
    json_object_set_new(doc, "all", all);

    json_t *e = json_object();
    json_object_set_new(e, "method", json_string(rep->method));
    json_object_set_new(e, "reason",
                        rep->method_reason ? json_text_new(rep->method_reason) : json_null());
    json_object_set_new(e, "events", json_integer((json_int_t)rep->events));
    json_object_set_new(e, "events_lost", json_integer((json_int_t)rep->events_lost));
    json_object_set_new(doc, "explain", e);
    if (rep->windows) {
        json_t *windows = json_array(), *by_cause = json_array();
        json_window_explanation(rep->windows, windows, by_cause);
        json_object_set_new(doc, "spike_windows", windows);
        json_object_set_new(doc, "spike_summary",
                            json_pack("{s:s,s:o}", "method", "window", "by_cause", by_cause));
    }
    return doc;
}
