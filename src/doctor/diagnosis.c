/*
 * The diagnosis from a run result (see diagnosis.h). The run's
 * spike_summary already counts every spike by its dominant cause, with the
 * spikes' whole latency (latency_total_ns, latency_max_ns); with the spike
 * threshold at the budget those are the samples over it, and what a cause
 * cost the budget is its spikes' latency beyond it. Spikes no event
 * explains are the `unexplained` rows: a cause like any other. The
 * conclusion comes from the merged "all" entry's quantiles.
 */
#include "doctor/diagnosis.h"

#include <stdio.h>
#include <string.h>

#include "common/safe_text.h"

bool doctor_finding_counts(const struct inspect_finding *f)
{
    return f->severity >= INSPECT_WARNING;
}

static const char *str_of(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static int64_t int_of(const json_t *o, const char *key, int64_t dflt)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

/* The findings that share a remedy with the cause. */
static void link_findings(struct doctor_cause *c, const struct inspect_findings *findings,
                          const struct remedy_machine *m)
{
    for (int i = 0; findings && i < findings->count; i++) {
        const struct inspect_finding *f = &findings->finding[i];
        if (!doctor_finding_counts(f) || c->nfindings >= DOCTOR_CAUSE_FINDINGS_MAX)
            continue;
        const struct remedy *fr[DOCTOR_CAUSE_REMEDIES_MAX];
        size_t nf =
            remedies_for(REMEDY_FROM_FINDING, f->id, NULL, m, fr, DOCTOR_CAUSE_REMEDIES_MAX);
        bool shared = false;
        for (size_t a = 0; a < nf && a < DOCTOR_CAUSE_REMEDIES_MAX; a++)
            for (size_t b = 0; b < c->nremedies; b++)
                shared |= fr[a] == c->remedies[b];
        if (shared)
            c->findings[c->nfindings++] = f->id;
    }
}

static void read_cause(const json_t *row, bool traced, int64_t budget_ns, struct doctor_cause *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->kind, sizeof c->kind, "%s", str_of(row, "kind"));
    /* back to the bytes the document's text form stands for */
    if (safe_text_decode(str_of(row, "name"), c->name, sizeof c->name) < 0)
        snprintf(c->name, sizeof c->name, "%s", str_of(row, "name"));
    c->pid = int_of(row, "pid", -1);
    snprintf(c->policy, sizeof c->policy, "%s", str_of(row, "policy"));
    c->priority = int_of(row, "priority", 0);
    if (traced) {
        c->count = (uint64_t)int_of(row, "count", 0);
        /* a result written before the spikes' whole latency was kept: the
         * dominant parts are the nearest it has */
        int64_t total = int_of(row, "latency_total_ns", int_of(row, "total_ns", 0));
        c->max_latency_ns = int_of(row, "latency_max_ns", int_of(row, "max_ns", 0));
        c->over_ns = total - (int64_t)c->count * budget_ns;
        if (c->over_ns < 0)
            c->over_ns = 0;
    } else {
        c->count = (uint64_t)int_of(row, "spikes", 0);
        c->max_latency_ns = int_of(row, "max_ns", 0);
        c->over_ns = -1;
    }
}

/* Largest cost first; ties: more samples, then the document's order. */
static void rank(struct doctor_diagnosis *d)
{
    for (size_t i = 1; i < d->ncauses; i++) {
        struct doctor_cause c = d->cause[i];
        size_t j = i;
        while (j > 0 &&
               (d->cause[j - 1].over_ns < c.over_ns ||
                (d->cause[j - 1].over_ns == c.over_ns && d->cause[j - 1].count < c.count))) {
            d->cause[j] = d->cause[j - 1];
            j--;
        }
        d->cause[j] = c;
    }
}

/* rank = ceil(n * num / den), in integers: 99.9 % of 10000 is 9990 exactly */
static struct doctor_quantile quantile(const json_t *lat, const char *key, uint64_t n, uint64_t num,
                                       uint64_t den)
{
    struct doctor_quantile q = {0};
    const json_t *v = json_object_get(lat, key);
    if (!json_is_integer(v))
        return q;
    q.known = true;
    q.ns = (int64_t)json_integer_value(v);
    uint64_t rankp = (n / den) * num + ((n % den) * num + den - 1) / den;
    q.beyond = n > rankp ? n - rankp : 0;
    return q;
}

void doctor_conclude(const json_t *root, int64_t budget_ns, struct doctor_conclusion *c)
{
    const json_t *all = json_object_get(root, "all");
    const json_t *lat = json_object_get(all, "latency_ns");
    memset(c, 0, sizeof *c);
    c->budget_ns = budget_ns;
    c->samples = (uint64_t)int_of(all, "samples", 0);
    c->missed = (uint64_t)int_of(all, "missed", 0);
    c->p999 = quantile(lat, "p999", c->samples, 999, 1000);
    c->p9999 = quantile(lat, "p9999", c->samples, 9999, 10000);
    c->max = quantile(lat, "max", c->samples, 1, 1);
    /* the spikes at the budget, or without --explain the deadline misses of
     * --budget: the same samples */
    const json_t *x = json_object_get(root, "explain");
    c->over_budget = (uint64_t)(x ? int_of(x, "spikes", 0) : int_of(all, "deadline_misses", 0));
    c->interrupted = json_is_true(json_object_get(root, "interrupted"));
    const json_t *dur = json_object_get(root, "duration_s");
    c->measured_s = json_is_number(dur) ? json_number_value(dur) : 0;
    c->met = c->samples > 0 && c->max.known && c->max.ns <= budget_ns && c->missed == 0;
}

int doctor_diagnose(const json_t *root, int64_t budget_ns, const struct inspect_findings *findings,
                    const struct remedy_machine *m, struct doctor_diagnosis *out, char *err,
                    size_t errlen)
{
    memset(out, 0, sizeof *out);
    const json_t *summary = json_object_get(root, "spike_summary");
    const json_t *rows = json_object_get(summary, "by_cause");
    if (strcmp(str_of(root, "kind"), "run") != 0) {
        snprintf(err, errlen, "not a run result (kind \"%s\")", str_of(root, "kind"));
        return -1;
    }
    if (!json_is_array(rows) || !json_is_object(json_object_get(root, "explain"))) {
        snprintf(err, errlen, "the run was made without --explain: nothing names its causes");
        return -1;
    }
    snprintf(out->method, sizeof out->method, "%s", str_of(summary, "method"));
    bool traced = strcmp(out->method, "window") != 0;
    uint64_t all_count = 0;
    int64_t all_over = 0;
    size_t i;
    const json_t *row;
    json_array_foreach(rows, i, row)
    {
        if (out->ncauses == DOCTOR_CAUSES_MAX)
            break; /* the writer keeps at most 33 rows */
        struct doctor_cause *c = &out->cause[out->ncauses++];
        read_cause(row, traced, budget_ns, c);
        c->nremedies = remedies_for(REMEDY_FROM_CAUSE, c->kind, c->name, m, c->remedies,
                                    DOCTOR_CAUSE_REMEDIES_MAX);
        if (c->nremedies > DOCTOR_CAUSE_REMEDIES_MAX)
            c->nremedies = DOCTOR_CAUSE_REMEDIES_MAX;
        link_findings(c, findings, m);
        all_count += c->count;
        all_over += c->over_ns > 0 ? c->over_ns : 0;
    }
    for (i = 0; i < out->ncauses; i++) {
        struct doctor_cause *c = &out->cause[i];
        if (traced && all_over > 0)
            c->share = (double)c->over_ns / (double)all_over;
        else if (all_count > 0)
            c->share = (double)c->count / (double)all_count;
    }
    rank(out);
    doctor_conclude(root, budget_ns, &out->conclusion);
    return 0;
}
