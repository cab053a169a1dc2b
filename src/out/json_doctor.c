/*
 * doctor.json, built with jansson from what cmd/doctor.c has: the
 * diagnosis and prescriptions of src/doctor/. Machine strings (thread
 * names) go through json_text_new.
 */
#include "out/json_doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_text.h"
#include "out/json_result.h"

static json_t *quantile_json(const struct doctor_quantile *q)
{
    if (!q->known)
        return json_null();
    return json_pack("{s:I,s:I}", "ns", (json_int_t)q->ns, "beyond", (json_int_t)q->beyond);
}

static json_t *cause_json(const struct doctor_cause *c, size_t rank)
{
    json_t *o = json_object();
    json_object_set_new(o, "rank", json_integer((json_int_t)rank));
    json_object_set_new(o, "kind", json_text_new(c->kind));
    json_object_set_new(o, "name", json_text_new(c->name));
    if (c->pid > 0) {
        json_object_set_new(o, "pid", json_integer(c->pid));
        json_object_set_new(o, "policy", json_text_new(c->policy));
        json_object_set_new(o, "priority", json_integer(c->priority));
    }
    json_object_set_new(o, "over_budget", json_integer((json_int_t)c->count));
    json_object_set_new(o, "over_budget_ns",
                        c->over_ns >= 0 ? json_integer(c->over_ns) : json_null());
    json_object_set_new(o, "share", json_real(c->share));
    json_object_set_new(o, "max_latency_ns", json_integer(c->max_latency_ns));
    json_t *f = json_array(), *r = json_array();
    for (size_t i = 0; i < c->nfindings; i++)
        json_array_append_new(f, json_string(c->findings[i]));
    for (size_t i = 0; i < c->nremedies; i++)
        json_array_append_new(r, json_string(c->remedies[i]->id));
    json_object_set_new(o, "findings", f);
    json_object_set_new(o, "remedies", r);
    return o;
}

static json_t *prescription_json(const struct doctor_prescription *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "remedy", json_string(p->remedy->id));
    json_object_set_new(o, "kind", json_string(remedy_kind_name(p->remedy->kind)));
    json_object_set_new(o, "tune_action",
                        p->remedy->tune_action ? json_string(p->remedy->tune_action) : json_null());
    if (p->pid > 0)
        json_object_set_new(o, "pid", json_integer(p->pid));
    json_object_set_new(o, "because", json_text_new(p->because));
    json_object_set_new(o, "command", p->command[0] ? json_text_new(p->command) : json_null());
    json_object_set_new(o, "advice", json_text_new(p->advice));
    return o;
}

const struct doctor_conclusion *doctor_report_conclusion(const struct doctor_report *r)
{
    if (r->treatment && r->treatment->final)
        return r->treatment->final;
    return &r->diagnosis->conclusion;
}

static json_t *conclusion_json(const struct doctor_conclusion *c)
{
    json_t *con = json_object();
    json_object_set_new(con, "met", json_boolean(c->met));
    json_object_set_new(con, "samples", json_integer((json_int_t)c->samples));
    json_object_set_new(con, "missed", json_integer((json_int_t)c->missed));
    json_object_set_new(con, "over_budget", json_integer((json_int_t)c->over_budget));
    json_object_set_new(con, "p999", quantile_json(&c->p999));
    json_object_set_new(con, "p9999", quantile_json(&c->p9999));
    json_object_set_new(con, "max", quantile_json(&c->max));
    json_object_set_new(con, "interrupted", json_boolean(c->interrupted));
    json_object_set_new(con, "measured_s", json_real(c->measured_s));
    return con;
}

static json_t *nullable_ns(int64_t ns)
{
    return ns >= 0 ? json_integer((json_int_t)ns) : json_null();
}

static json_t *tail_json(const struct treat_tail *t)
{
    return json_pack("{s:I,s:o,s:o,s:o}", "samples", (json_int_t)t->samples, "over_budget_rate",
                     t->over_rate >= 0 ? json_real(t->over_rate) : json_null(), "p999_ns",
                     nullable_ns(t->p999_ns), "max_ns", nullable_ns(t->max_ns));
}

static json_t *runs_json(const struct doctor_treatment_report *tr, size_t i, bool after, int rounds)
{
    json_t *a = json_array();
    for (int r = 0; r < rounds && tr->dir; r++) {
        char name[64], path[4200];
        treat_run_file(name, sizeof name, i, after, r);
        snprintf(path, sizeof path, "%s/%s", tr->dir, name);
        json_array_append_new(a, json_text_new(path));
    }
    return a;
}

static json_t *treatment_json(const struct doctor_treatment_report *tr, size_t i)
{
    const struct treatment *t = &tr->outcome->t[i];
    bool measured = t->verdict != VERDICT_NA;
    json_t *o = json_object();
    json_object_set_new(o, "action", json_string(t->action));
    json_object_set_new(o, "prescription", json_integer((json_int_t)t->prescription + 1));
    json_object_set_new(o, "status", json_string(treat_status_name(t->status)));
    json_object_set_new(o, "verdict",
                        measured ? json_string(verdict_name(t->verdict)) : json_null());
    json_t *tail = json_null();
    if (measured) {
        tail = json_object();
        for (int k = 0; k < 3; k++)
            json_object_set_new(tail, compare_metric_key(treat_tail_metrics[k]),
                                json_string(verdict_name(t->tail_verdict[k])));
    }
    json_object_set_new(o, "verdicts", tail);
    json_object_set_new(o, "on_top_of",
                        t->on_top_of >= 0 ? json_integer(t->on_top_of + 1)
                                          : json_string("baseline"));
    json_object_set_new(o, "changes", json_integer(t->changes));
    json_object_set_new(o, "rounds", json_integer(t->rounds));
    json_object_set_new(o, "before", measured ? tail_json(&t->before) : json_null());
    json_object_set_new(o, "after", measured ? tail_json(&t->after) : json_null());
    json_object_set_new(o, "before_runs", runs_json(tr, i, false, t->rounds));
    json_object_set_new(o, "after_runs", runs_json(tr, i, true, t->rounds));
    json_object_set_new(o, "why", t->why[0] ? json_text_new(t->why) : json_null());
    return o;
}

static json_t *treatments_json(const struct doctor_treatment_report *tr)
{
    json_t *items = json_array();
    for (size_t i = 0; i < tr->outcome->n; i++)
        json_array_append_new(items, treatment_json(tr, i));
    int fs = tr->outcome->final_state;
    return json_pack("{s:o,s:i,s:b,s:o,s:o,s:o,s:o}", "items", items, "repeat", tr->repeat,
                     "keep_neutral", tr->keep_neutral, "journal", json_text_new(tr->journal),
                     "final_state", fs >= 0 ? json_integer(fs + 1) : json_string("baseline"),
                     "final_result",
                     tr->final_result ? json_text_new(tr->final_result) : json_null(), "stopped_in",
                     tr->stopped_in ? json_string(tr->stopped_in) : json_null());
}

json_t *json_doctor_document(const struct doctor_report *r)
{
    const struct doctor_diagnosis *d = r->diagnosis;
    const struct doctor_conclusion *c = &d->conclusion;
    json_t *doc = json_document_new("doctor", r->version, r->argc, r->argv, r->started_at);
    json_object_set_new(doc, "cpus", json_string(r->cpus));
    json_object_set_new(doc, "budget_ns", json_integer(c->budget_ns));
    json_object_set_new(
        doc, "baseline",
        json_pack("{s:o,s:o,s:s}", "result", r->baseline ? json_text_new(r->baseline) : json_null(),
                  "command", r->baseline_command ? json_text_new(r->baseline_command) : json_null(),
                  "method", d->method));
    json_t *causes = json_array();
    for (size_t i = 0; i < d->ncauses; i++)
        json_array_append_new(causes, cause_json(&d->cause[i], i + 1));
    json_object_set_new(doc, "diagnosis", json_pack("{s:o}", "causes", causes));
    json_t *ps = json_array();
    for (size_t i = 0; i < r->prescriptions->count; i++)
        json_array_append_new(ps, prescription_json(&r->prescriptions->p[i]));
    json_t *pre = json_pack("{s:o}", "items", ps);
    json_object_set_new(pre, "boot_cmdline",
                        r->prescriptions->boot_cmdline[0]
                            ? json_text_new(r->prescriptions->boot_cmdline)
                            : json_null());
    json_object_set_new(doc, "prescriptions", pre);
    if (r->treatment) {
        json_object_set_new(doc, "treatment", treatments_json(r->treatment));
        json_object_set_new(doc, "baseline_conclusion", conclusion_json(c));
    }
    json_t *con = conclusion_json(doctor_report_conclusion(r));
    json_object_set_new(con, "state",
                        json_string(r->treatment && r->treatment->final ? "final" : "baseline"));
    json_object_set_new(doc, "conclusion", con);
    return doc;
}

int json_doctor_final_runs(const json_t *doc, char **paths, int max, char *why, size_t whylen)
{
    const json_t *t = json_object_get(doc, "treatment");
    const json_t *final = json_object_get(t, "final_result");
    if (!json_is_object(t)) {
        snprintf(why, whylen,
                 "a doctor document without --apply: its baseline is the run "
                 "to compare (baseline.result)");
        return -1;
    }
    if (!json_is_string(final)) {
        snprintf(why, whylen,
                 "its final state has no run kept (stopped before it, or made "
                 "without -o)");
        return -1;
    }
    int n = 0;
    const json_t *kept = json_object_get(t, "final_state");
    if (json_is_integer(kept)) {
        const json_t *items = json_object_get(t, "items");
        const json_t *item = json_array_get(items, (size_t)json_integer_value(kept) - 1);
        const json_t *runs = json_object_get(item, "after_runs");
        for (size_t i = 0; i < json_array_size(runs) && n < max - 1; i++)
            if (json_is_string(json_array_get(runs, i)))
                paths[n++] = strdup(json_string_value(json_array_get(runs, i)));
    }
    paths[n++] = strdup(json_string_value(final));
    for (int i = 0; i < n; i++)
        if (!paths[i]) {
            snprintf(why, whylen, "out of memory");
            for (int k = 0; k < n; k++)
                free(paths[k]);
            return -1;
        }
    return n;
}
