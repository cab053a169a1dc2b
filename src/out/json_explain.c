/*
 * What a run with --explain adds to its result document (json_result.h):
 * "explain" (method, threshold, records by tracepoint, the ring), the
 * attributed spikes or the spike windows, and "spike_summary" by cause,
 * each cause named by its kind, name and, for a thread, its pid, policy
 * and priority. Names are the machine's bytes: written in their text form.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/json_text.h"
#include "out/json_result.h"
#include "trace/capture.h"
#include "trace/cause_source.h"

static json_t *json_cause_head(unsigned kind, const char *name, int32_t pid)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(cause_kind_name(kind)));
    json_object_set_new(o, "name", json_text_new(name));
    if (kind == CAUSE_THREAD)
        json_object_set_new(o, "pid", json_integer(pid));
    return o;
}

void json_cause_pids(json_t *o, const struct cause_pids *p, bool by_ns, const char *count_key,
                     const char *ns_key)
{
    struct cause_pid top[CAUSE_PIDS_MAX];
    size_t n = cause_pids_sorted(p, by_ns, top);
    json_t *pids = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(pids,
                              json_pack("{s:i,s:I,s:I}", "pid", (int)top[k].pid, count_key,
                                        (json_int_t)top[k].count, ns_key, (json_int_t)top[k].ns));
    json_object_set_new(o, "pids", pids);
    json_object_set_new(o, "pids_unlisted",
                        json_pack("{s:I,s:I}", count_key, (json_int_t)p->unlisted_count, ns_key,
                                  (json_int_t)p->unlisted_ns));
}

json_t *json_spike(const struct spike *s, const char *const *policy, int64_t start_ns)
{
    json_t *o = json_object();
    json_object_set_new(o, "cpu", json_integer(s->cpu));
    json_object_set_new(o, "t_s", json_real((double)(s->wake_ns - start_ns) / 1e9));
    json_object_set_new(o, "latency_ns", json_integer(s->latency_ns));
    json_t *causes = json_array();
    for (unsigned j = 0; j < s->ncauses && j < SPIKE_CAUSES_MAX; j++) {
        const struct spike_cause *c = &s->causes[j];
        json_t *co = json_cause_head(c->kind, c->name, c->pid);
        if (c->kind == CAUSE_THREAD) {
            json_object_set_new(co, "policy", json_string(policy[j] ? policy[j] : "?"));
            json_object_set_new(co, "priority", json_integer(cause_user_priority(c->prio)));
        } else if (c->kind == CAUSE_IRQ) {
            json_object_set_new(co, "id", json_integer((json_int_t)c->id));
        }
        json_object_set_new(co, "ns", json_integer(c->ns));
        json_array_append_new(causes, co);
    }
    json_object_set_new(o, "causes", causes);
    if (s->ncauses > 0) {
        const struct spike_cause *d = &s->causes[s->dominant];
        json_object_set_new(o, "dominant", json_cause_head(d->kind, d->name, d->pid));
    } else {
        json_object_set_new(o, "dominant", json_null());
    }
    if (s->flags & SPIKE_EVENTS_LOST)
        json_object_set_new(o, "events_lost", json_true());
    return o;
}

void json_window_explanation(const struct window_explanation *wx, json_t *windows, json_t *by_cause)
{
    for (size_t k = 0; k < wx->nspike; k++) {
        const struct window_spike *s = &wx->spike[k];
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(s->cpu));
        json_object_set_new(o, "t_s", json_real((double)s->t_ns / 1e9));
        json_object_set_new(o, "spikes", json_integer((json_int_t)s->spikes));
        json_object_set_new(o, "max_ns", json_integer(s->max_ns));
        json_t *causes = json_array();
        for (int j = 0; j < s->ncauses; j++)
            json_array_append_new(
                causes, json_pack("{s:s,s:o,s:f,s:f,s:f}", "kind", s->cause[j].kind, "name",
                                  json_text_new(s->cause[j].name), "value", s->cause[j].value,
                                  "baseline", s->cause[j].baseline, "excess", s->cause[j].excess));
        json_object_set_new(o, "causes", causes);
        json_object_set_new(o, "dominant",
                            s->ncauses ? json_pack("{s:s,s:o}", "kind", s->cause[0].kind, "name",
                                                   json_text_new(s->cause[0].name))
                                       : json_pack("{s:s,s:s}", "kind", "unexplained", "name",
                                                   "nothing above the CPU's usual"));
        json_array_append_new(windows, o);
    }
    for (size_t r = 0; r < wx->nrows; r++) {
        const struct window_summary_row *row = &wx->row[r];
        json_array_append_new(by_cause, json_pack("{s:s,s:o,s:I,s:f,s:I,s:I}", "kind", row->kind,
                                                  "name", json_text_new(row->name), "windows",
                                                  (json_int_t)row->windows, "share", row->share,
                                                  "spikes", (json_int_t)row->spikes, "max_ns",
                                                  (json_int_t)row->max_ns));
    }
}

/* "explain", "spikes" (tracepoints) or "spike_windows" (window method),
 * and "spike_summary" {method, by_cause} of a run with --explain. */
void json_run_explain(json_t *doc, const struct run_report *rep, int64_t start_ns)
{
    const struct explain *x = rep->explain;
    bool traced = x->capture != NULL;
    json_t *e = json_object();
    json_object_set_new(e, "method", json_text_new(rep->explain_method));
    if (rep->explain_reason)
        json_object_set_new(e, "reason", json_text_new(rep->explain_reason));
    json_object_set_new(e, "threshold_ns",
                        rep->explain_threshold_ns > 0 ? json_integer(rep->explain_threshold_ns)
                                                      : json_null());
    json_object_set_new(e, "events", json_integer((json_int_t)x->events));
    json_object_set_new(e, "events_lost", json_integer((json_int_t)x->events_lost));
    if (traced) {
        json_object_set_new(e, "trace_ring", json_string(trace_capture_ring(x->capture)));
        json_t *by = json_object();
        for (size_t k = 0; k < x->ntracepoints; k++)
            json_object_set_new(by, x->tracepoint[k],
                                json_integer((json_int_t)x->tracepoint_events[k]));
        json_object_set_new(e, "events_by_tracepoint", by);
    }
    json_object_set_new(e, "spikes", json_integer((json_int_t)explain_spikes(x)));
    if (traced)
        json_object_set_new(e, "spikes_kept", json_integer((json_int_t)x->kept_count));
    else
        json_object_set_new(e, "windows_with_spikes", json_integer((json_int_t)x->windows.nspike));
    json_object_set_new(doc, "explain", e);
    json_t *by_cause = json_array();
    if (traced) {
        json_t *spikes = json_array();
        for (size_t k = 0; k < x->kept_count; k++)
            json_array_append_new(spikes, json_spike(&x->kept[k], x->kept_policy[k], start_ns));
        for (size_t r = 0; r < x->nrows; r++) {
            const struct spike_summary_row *row = &x->rows[r];
            json_t *o = json_cause_head(row->kind, row->name, row->pid);
            if (row->kind == CAUSE_THREAD) {
                json_object_set_new(o, "policy",
                                    json_string(x->row_policy[r] ? x->row_policy[r] : "?"));
                json_object_set_new(o, "priority", json_integer(cause_user_priority(row->prio)));
                if (row->pids)
                    json_cause_pids(o, row->pids, false, "count", "total_ns");
            }
            if (row->folded)
                json_object_set_new(o, "folded", json_integer((json_int_t)row->folded));
            json_object_set_new(o, "count", json_integer((json_int_t)row->count));
            json_object_set_new(o, "share", json_real(row->share));
            json_object_set_new(o, "total_ns", json_integer(row->total_ns));
            json_object_set_new(o, "max_ns", json_integer(row->max_ns));
            json_object_set_new(o, "median_ns", json_integer(row->median_ns));
            json_object_set_new(o, "latency_total_ns", json_integer(row->latency_total_ns));
            json_object_set_new(o, "latency_max_ns", json_integer(row->latency_max_ns));
            json_array_append_new(by_cause, o);
        }
        json_object_set_new(doc, "spikes", spikes);
    } else {
        json_t *windows = json_array();
        json_window_explanation(&x->windows, windows, by_cause);
        json_object_set_new(doc, "spike_windows", windows);
    }
    json_object_set_new(
        doc, "spike_summary",
        json_pack("{s:s,s:o}", "method", rep->explain_method, "by_cause", by_cause));
}
