/*
 * Reading the tail analysis for the report (report_model.h): a run
 * result's `tail` object (run --tail) and the tail document (kind "tail",
 * jitterlab tail --json), whose root holds the same members. Both are
 * untrusted: every number is checked for type, finiteness and a range a
 * writer could give, every array for its size (a curve of a million
 * points is refused, not drawn), each entry's CPU must be one the result
 * measured, verdicts and check states must be the writer's words. Strings
 * stay in the document and are escaped when the page is written.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_json.h"
#include "out/report_model.h"
#include "out/report_read_internal.h"
#include "sys/cpulist.h"

#define NS_LIMIT 1e15 /* ±11 days: beyond anything a run measures */
/* An extrapolated level or its bound: a heavy tail's 1e-12 level may lie
 * far beyond any run, and still be a number the writer gives. */
#define LEVEL_LIMIT 1e30
#define STAT_LIMIT  1e12 /* a test statistic */
#define ENTRIES_MAX (CPULIST_MAX_CPUS + 1)

void report_tail_free(struct report_tail *t)
{
    for (size_t i = 0; t->entry && i < t->nentry; i++)
        free(t->entry[i].curve);
    free(t->entry);
    memset(t, 0, sizeof *t);
}

/* {value, ci: [lo|null, hi|null]}, or null (all NaN) when optional. */
static int read_value(struct jreader *r, const json_t *o, const char *where, const char *key,
                      double lo, double hi, struct report_tail_value *v)
{
    v->value = v->lo = v->hi = NAN;
    const json_t *obj, *ci;
    char w[96];
    if (jr_object(r, o, where, key, JR_OPTIONAL, &obj) != 0)
        return -1;
    if (!obj)
        return 0;
    snprintf(w, sizeof w, "%s.%s", where, key);
    if (jr_number(r, obj, w, "value", lo, hi, JR_OPTIONAL, &v->value) != 0 ||
        jr_array(r, obj, w, "ci", JR_OPTIONAL, 2, &ci) != 0)
        return -1;
    if (!ci)
        return 0;
    if (json_array_size(ci) != 2)
        return jr_fail(r, w, "ci: not [lo, hi]");
    double *bound[2] = {&v->lo, &v->hi};
    for (size_t k = 0; k < 2; k++) {
        const json_t *b = json_array_get(ci, k);
        if (json_is_null(b))
            continue;
        double x = json_number_value(b);
        if (!json_is_number(b) || !isfinite(x) || x < lo || x > hi)
            return jr_fail(r, w, "ci[%zu]: not a number in %g .. %g", k, lo, hi);
        *bound[k] = x;
    }
    return 0;
}

/* A point of the estimates or the curve: {probability, latency_ns, ci}. */
static int read_point(struct jreader *r, const json_t *e, const char *where,
                      struct report_tail_point *pt)
{
    const json_t *ci;
    if (!json_is_object(e))
        return jr_fail(r, where, "not an object");
    pt->ns.lo = pt->ns.hi = NAN;
    if (jr_number(r, e, where, "probability", 0, 1, JR_REQUIRED, &pt->probability) != 0 ||
        jr_number(r, e, where, "latency_ns", 0, LEVEL_LIMIT, JR_OPTIONAL, &pt->ns.value) != 0 ||
        jr_array(r, e, where, "ci", JR_OPTIONAL, 2, &ci) != 0)
        return -1;
    if (!(pt->probability > 0))
        return jr_fail(r, where, "probability: not above 0");
    if (!ci)
        return 0;
    if (json_array_size(ci) != 2)
        return jr_fail(r, where, "ci: not [lo, hi]");
    double *bound[2] = {&pt->ns.lo, &pt->ns.hi};
    for (size_t k = 0; k < 2; k++) {
        const json_t *b = json_array_get(ci, k);
        if (json_is_null(b))
            continue;
        double x = json_number_value(b);
        if (!json_is_number(b) || !isfinite(x) || x < 0 || x > LEVEL_LIMIT)
            return jr_fail(r, where, "ci[%zu]: not a latency", k);
        *bound[k] = x;
    }
    return 0;
}

static const char *const check_names[] = {
    "goodness-of-fit", "ljung-box", "mann-kendall", "extremal-index", "split-half",
    "gev-agreement",   NULL};

static int read_check(struct jreader *r, const json_t *e, const char *where,
                      struct report_tail_check *c)
{
    const json_t *passed;
    if (!json_is_object(e))
        return jr_fail(r, where, "not an object");
    if (jr_string(r, e, where, "name", JR_REQUIRED, &c->name) != 0 ||
        jr_string(r, e, where, "method", JR_OPTIONAL, &c->method) != 0 ||
        jr_string(r, e, where, "why", JR_OPTIONAL, &c->why) != 0 ||
        jr_number(r, e, where, "statistic", -STAT_LIMIT, STAT_LIMIT, JR_OPTIONAL, &c->statistic) !=
            0 ||
        jr_number(r, e, where, "p_value", 0, 1, JR_OPTIONAL, &c->p_value) != 0 ||
        jr_number(r, e, where, "level", 0, 1, JR_OPTIONAL, &c->level) != 0)
        return -1;
    bool known = false;
    for (const char *const *n = check_names; *n && !known; n++)
        known = strcmp(*n, c->name) == 0;
    if (!known)
        return jr_fail(r, where, "name: not a check the tail analysis makes");
    passed = json_object_get(e, "passed");
    if (!passed || json_is_null(passed))
        c->state = -1;
    else if (json_is_boolean(passed))
        c->state = json_is_true(passed) ? 1 : 0;
    else
        return jr_fail(r, where, "passed: not true, false or null");
    return 0;
}

static int read_cpu(struct jreader *r, const json_t *e, const char *where, const int *cpus,
                    int ncpu, int *cpu)
{
    const json_t *v = json_object_get(e, "cpu");
    if (json_is_string(v) && strcmp(json_string_value(v), "all") == 0) {
        *cpu = -1;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) >= CPULIST_MAX_CPUS)
        return jr_fail(r, where, "cpu: not a CPU id or \"all\"");
    *cpu = (int)json_integer_value(v);
    if (!cpus)
        return 0;
    for (int i = 0; i < ncpu; i++)
        if (cpus[i] == *cpu)
            return 0;
    return jr_fail(r, where, "cpu: CPU %d is not in cpus[]", *cpu);
}

static int read_budget(struct jreader *r, const json_t *e, const char *where,
                       struct report_tail_entry *t)
{
    const json_t *b;
    if (jr_object(r, e, where, "budget_exceedance", JR_OPTIONAL, &b) != 0)
        return -1;
    if (!b)
        return 0;
    char w[96];
    snprintf(w, sizeof w, "%s.budget_exceedance", where);
    const json_t *ci;
    t->has_budget = true;
    t->per_cycle.lo = t->per_cycle.hi = NAN;
    if (jr_number(r, b, w, "budget_ns", 0, NS_LIMIT, JR_REQUIRED, &t->budget_ns) != 0 ||
        jr_number(r, b, w, "per_cycle", 0, 1, JR_OPTIONAL, &t->per_cycle.value) != 0 ||
        jr_number(r, b, w, "per_hour", 0, 1, JR_OPTIONAL, &t->per_hour) != 0 ||
        jr_number(r, b, w, "per_year", 0, 1, JR_OPTIONAL, &t->per_year) != 0 ||
        jr_array(r, b, w, "ci", JR_OPTIONAL, 2, &ci) != 0)
        return -1;
    for (size_t k = 0; ci && k < json_array_size(ci); k++) {
        const json_t *x = json_array_get(ci, k);
        if (json_is_null(x))
            continue;
        double v = json_number_value(x);
        if (!json_is_number(x) || !isfinite(v) || v < 0 || v > 1)
            return jr_fail(r, w, "ci[%zu]: not a probability", k);
        *(k ? &t->per_cycle.hi : &t->per_cycle.lo) = v;
    }
    return 0;
}

static int read_entry(struct jreader *r, const json_t *e, const char *where, const int *cpus,
                      int ncpu, struct report_tail_entry *t)
{
    if (!json_is_object(e))
        return jr_fail(r, where, "not an object");
    const char *verdict;
    const json_t *est, *checks, *curve;
    int64_t threshold;
    if (read_cpu(r, e, where, cpus, ncpu, &t->cpu) != 0 ||
        jr_string(r, e, where, "verdict", JR_REQUIRED, &verdict) != 0 ||
        jr_string(r, e, where, "reason", JR_OPTIONAL, &t->reason) != 0 ||
        jr_string(r, e, where, "advice", JR_OPTIONAL, &t->advice) != 0 ||
        jr_string(r, e, where, "data", JR_OPTIONAL, &t->data) != 0 ||
        jr_string(r, e, where, "threshold_rule", JR_OPTIONAL, &t->threshold_rule) != 0 ||
        jr_string(r, e, where, "shape_meaning", JR_OPTIONAL, &t->shape_meaning) != 0 ||
        jr_int(r, e, where, "samples", 0, INT64_MAX, JR_OPTIONAL, &t->samples) != 0 ||
        jr_int(r, e, where, "exceedances", 0, INT64_MAX, JR_OPTIONAL, &t->exceedances) != 0 ||
        jr_int(r, e, where, "fitted", 0, INT64_MAX, JR_OPTIONAL, &t->fitted) != 0 ||
        jr_int(r, e, where, "threshold_ns", 0, (int64_t)NS_LIMIT, JR_OPTIONAL, &threshold) != 0 ||
        jr_number(r, e, where, "exceedance_rate", 0, 1, JR_OPTIONAL, &t->exceedance_rate) != 0 ||
        jr_number(r, e, where, "empirical_max_ns", 0, NS_LIMIT, JR_OPTIONAL,
                  &t->empirical_max_ns) != 0 ||
        jr_number(r, e, where, "upper_endpoint_ns", 0, LEVEL_LIMIT, JR_OPTIONAL,
                  &t->upper_endpoint_ns) != 0 ||
        jr_number(r, e, where, "more_hours_1e-9", 0, 1e12, JR_OPTIONAL, &t->more_hours_1e9) != 0 ||
        jr_number(r, e, where, "confidence", 0, 1, JR_OPTIONAL, &t->confidence) != 0 ||
        read_value(r, e, where, "shape", -1e6, 1e6, &t->shape) != 0 ||
        read_value(r, e, where, "scale", 0, LEVEL_LIMIT, &t->scale) != 0 ||
        read_budget(r, e, where, t) != 0 ||
        jr_array(r, e, where, "estimates", JR_OPTIONAL, REPORT_TAIL_ESTIMATES, &est) != 0 ||
        jr_array(r, e, where, "checks", JR_OPTIONAL, REPORT_TAIL_CHECKS, &checks) != 0 ||
        jr_array(r, e, where, "curve", JR_OPTIONAL, REPORT_TAIL_CURVE, &curve) != 0)
        return -1;
    if (strcmp(verdict, "estimate") != 0 && strcmp(verdict, "cannot-estimate") != 0)
        return jr_fail(r, where, "verdict: not \"estimate\" or \"cannot-estimate\"");
    t->estimate = verdict[0] == 'e';
    t->threshold_ns = threshold == JR_ABSENT ? NAN : (double)threshold;
    char w[96];
    t->nest = est ? json_array_size(est) : 0;
    for (size_t i = 0; i < t->nest; i++) {
        snprintf(w, sizeof w, "%s.estimates[%zu]", where, i);
        if (read_point(r, json_array_get(est, i), w, &t->est[i]) != 0)
            return -1;
    }
    t->ncheck = checks ? json_array_size(checks) : 0;
    for (size_t i = 0; i < t->ncheck; i++) {
        snprintf(w, sizeof w, "%s.checks[%zu]", where, i);
        if (read_check(r, json_array_get(checks, i), w, &t->check[i]) != 0)
            return -1;
    }
    size_t n = curve ? json_array_size(curve) : 0;
    t->curve = calloc(n ? n : 1, sizeof *t->curve);
    if (!t->curve)
        return jr_fail(r, where, "out of memory");
    t->ncurve = n;
    for (size_t i = 0; i < n; i++) {
        snprintf(w, sizeof w, "%s.curve[%zu]", where, i);
        if (read_point(r, json_array_get(curve, i), w, &t->curve[i]) != 0)
            return -1;
    }
    return 0;
}

int report_read_tail(struct jreader *r, const json_t *obj, const char *where, const int *cpus,
                     int ncpu, struct report_tail *t)
{
    memset(t, 0, sizeof *t);
    const json_t *arr, *all;
    if (jr_number(r, obj, where, "confidence", 0, 1, JR_OPTIONAL, &t->confidence) != 0 ||
        jr_number(r, obj, where, "budget_ns", 0, NS_LIMIT, JR_OPTIONAL, &t->budget_ns) != 0 ||
        jr_number(r, obj, where, "interval_ns", 0, NS_LIMIT, JR_OPTIONAL, &t->interval_ns) != 0 ||
        jr_array(r, obj, where, "cpus", JR_REQUIRED, ENTRIES_MAX, &arr) != 0 ||
        jr_object(r, obj, where, "all", JR_OPTIONAL, &all) != 0)
        return -1;
    size_t n = json_array_size(arr) + (all ? 1 : 0);
    t->entry = calloc(n ? n : 1, sizeof *t->entry);
    if (!t->entry)
        return jr_fail(r, where, "out of memory");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char w[64];
        if (i < json_array_size(arr))
            snprintf(w, sizeof w, "%s%scpus[%zu]", where, where[0] ? "." : "", i);
        else
            snprintf(w, sizeof w, "%s%sall", where, where[0] ? "." : "");
        t->nentry = i + 1;
        const json_t *e = i < json_array_size(arr) ? json_array_get(arr, i) : all;
        rc = read_entry(r, e, w, cpus, ncpu, &t->entry[i]);
        if (rc == 0 && (i < json_array_size(arr)) != (t->entry[i].cpu >= 0))
            rc = jr_fail(r, w, "cpu: \"all\" belongs in all, a CPU in cpus[]");
    }
    if (rc != 0)
        report_tail_free(t);
    return rc;
}

/* ---- the tail document -------------------------------------------------- */

void report_tail_doc_free(struct report_tail_doc *d)
{
    report_tail_free(&d->tail);
    json_decref(d->root);
    memset(d, 0, sizeof *d);
    d->run = -1;
}

static int read_tail_doc(struct jreader *r, struct report_tail_doc *d)
{
    if (jr_string(r, d->root, "", "started_at", JR_OPTIONAL, &d->started_at) != 0 ||
        jr_array(r, d->root, "", "inputs", JR_OPTIONAL, 4096, &d->inputs) != 0)
        return -1;
    for (size_t i = 0; d->inputs && i < json_array_size(d->inputs); i++)
        if (!json_is_string(json_array_get(d->inputs, i)))
            return jr_fail(r, "inputs", "[%zu]: not a string", i);
    return report_read_tail(r, d->root, "", NULL, 0, &d->tail);
}

int report_tail_doc_read(const char *path, struct report_tail_doc *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->run = -1;
    struct jreader r = {err, errlen};
    if (report_load_doc(&r, path, "tail", &d->root) != 0 || read_tail_doc(&r, d) != 0) {
        report_tail_doc_free(d);
        return -1;
    }
    d->path = path;
    return 0;
}

int report_tail_doc_read_buffer(const char *text, size_t len, struct report_tail_doc *d, char *err,
                                size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->run = -1;
    struct jreader r = {err, errlen};
    if (report_load_doc_buffer(&r, text, len, "tail", &d->root) != 0 || read_tail_doc(&r, d) != 0) {
        report_tail_doc_free(d);
        return -1;
    }
    d->path = "(buffer)";
    return 0;
}
