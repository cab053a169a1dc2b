/*
 * doctor.json, built with jansson from what cmd/doctor.c has: the
 * diagnosis and prescriptions of src/doctor/. Machine strings (thread
 * names) go through json_text_new.
 */
#include "out/json_doctor.h"

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
    json_object_set_new(doc, "conclusion", con);
    return doc;
}
