/*
 * Reading the two other documents a report shows: a compare document
 * (kind "compare", written by `jitterlab compare --json`: per comparison
 * and CPU the metrics with ratio, interval, p-value, test and verdict) and
 * an inspect document (kind "inspect": verdict and findings). Both are
 * untrusted: the header is checked by out/result_read.c, every other value
 * here; verdicts and severities must be ones the writers use, since they
 * decide the colours.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_json.h"
#include "out/report_model.h"
#include "out/report_read_internal.h"
#include "sys/cpulist.h"

#define LIST_MAX 4096

/* A document's word for a message on a terminal: at most 24 bytes, control
 * characters as '?', so that a hostile value cannot drive the terminal. */
static const char *shown(const char *s, char *buf, size_t len)
{
    size_t n = 0;
    for (; n < 24 && n + 1 < len && s[n]; n++)
        buf[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
    buf[n] = '\0';
    return buf;
}

static bool one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(s, *set) == 0)
            return true;
    return false;
}

/* Checks the header of the parsed *root: on failure the tree is freed. */
static int check_kind(struct jreader *r, json_t **root, const char *want)
{
    struct result_doc hdr;
    int rc = result_read_tree(*root, &hdr, r->err, r->errlen);
    if (rc == 0 && strcmp(hdr.kind, want) != 0)
        rc = jr_fail(r, "kind", "\"%s\", not a%s %s document", hdr.kind, want[0] == 'i' ? "n" : "",
                     want);
    result_doc_free(&hdr);
    if (rc != 0) {
        json_decref(*root);
        *root = NULL;
    }
    return rc;
}

int report_load_doc_buffer(struct jreader *r, const char *text, size_t len, const char *want,
                           json_t **root)
{
    json_error_t jerr;
    *root = NULL;
    if (len > RESULT_READ_MAX_BYTES)
        return jr_fail(r, "document", "larger than %u MiB", RESULT_READ_MAX_BYTES >> 20);
    if (!(*root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)))
        return jr_fail(r, "document", "not JSON (line %d: %s)", jerr.line, jerr.text);
    return check_kind(r, root, want);
}

int report_load_doc(struct jreader *r, const char *path, const char *want, json_t **root)
{
    if (!(*root = result_load_file(path, r->err, r->errlen)))
        return -1;
    return check_kind(r, root, want);
}

/* An array of at most max items of one JSON type (strings or integers). */
static int typed_list(struct jreader *r, const json_t *o, const char *where, const char *key,
                      bool strings, const json_t **out)
{
    if (jr_array(r, o, where, key, JR_OPTIONAL, LIST_MAX, out) != 0)
        return -1;
    for (size_t i = 0; *out && i < json_array_size(*out); i++) {
        const json_t *v = json_array_get(*out, i);
        if (strings ? !json_is_string(v) : !json_is_integer(v))
            return jr_fail(r, where, "%s[%zu]: not %s", key, i, strings ? "a string" : "a CPU id");
        if (!strings && (json_integer_value(v) < 0 || json_integer_value(v) >= CPULIST_MAX_CPUS))
            return jr_fail(r, where, "%s[%zu]: not a CPU id", key, i);
    }
    return 0;
}

static const char *const verdicts[] = {"worse", "better", "no-difference", NULL};
static const char *const metric_verdicts[] = {
    "worse", "better", "no-difference", "n/a", "insufficient-data", NULL};

static int read_metric(struct jreader *r, const json_t *m, const char *where,
                       struct report_metric *out)
{
    const json_t *ci;
    out->ci_lo = out->ci_hi = NAN;
    if (!json_is_object(m))
        return jr_fail(r, where, "not an object");
    if (jr_string(r, m, where, "metric", JR_REQUIRED, &out->metric) != 0 ||
        jr_string(r, m, where, "unit", JR_OPTIONAL, &out->unit) != 0 ||
        jr_string(r, m, where, "test", JR_OPTIONAL, &out->test) != 0 ||
        jr_string(r, m, where, "verdict", JR_REQUIRED, &out->verdict) != 0 ||
        jr_number(r, m, where, "baseline", -1e300, 1e300, JR_OPTIONAL, &out->baseline) != 0 ||
        jr_number(r, m, where, "value", -1e300, 1e300, JR_OPTIONAL, &out->value) != 0 ||
        jr_number(r, m, where, "ratio", -1e300, 1e300, JR_OPTIONAL, &out->ratio) != 0 ||
        jr_number(r, m, where, "p_value", 0, 1, JR_OPTIONAL, &out->p_value) != 0 ||
        jr_array(r, m, where, "ci", JR_OPTIONAL, 2, &ci) != 0)
        return -1;
    if (!one_of(out->verdict, metric_verdicts))
        return jr_fail(
            r, where,
            "verdict: \"%s\" is not worse, better, no-difference, n/a or insufficient-data",
            shown(out->verdict, (char[32]){0}, 32));
    if (ci) {
        const json_t *lo = json_array_get(ci, 0), *hi = json_array_get(ci, 1);
        if (json_array_size(ci) != 2 || !json_is_number(lo) || !json_is_number(hi) ||
            json_number_value(lo) > json_number_value(hi))
            return jr_fail(r, where, "ci: not [low, high]");
        out->ci_lo = json_number_value(lo);
        out->ci_hi = json_number_value(hi);
        if (!isfinite(out->ci_lo) || !isfinite(out->ci_hi) || fabs(out->ci_lo) > 1e300 ||
            fabs(out->ci_hi) > 1e300)
            return jr_fail(r, where, "ci: out of range");
    }
    return 0;
}

static int read_cmp_cpu(struct jreader *r, const json_t *e, const char *where,
                        struct report_cmp_cpu *out)
{
    const json_t *metrics, *rank;
    out->p_greater = out->rank_p = NAN;
    if (!json_is_object(e))
        return jr_fail(r, where, "not an object");
    const json_t *cpu = json_object_get(e, "cpu");
    if (json_is_string(cpu) && strcmp(json_string_value(cpu), "all") == 0) {
        out->cpu = -1;
    } else {
        int64_t id;
        if (jr_int(r, e, where, "cpu", 0, CPULIST_MAX_CPUS - 1, JR_REQUIRED, &id) != 0)
            return -1;
        out->cpu = (int)id;
    }
    if (jr_array(r, e, where, "metrics", JR_REQUIRED, 256, &metrics) != 0 ||
        jr_object(r, e, where, "rank_test", JR_OPTIONAL, &rank) != 0 ||
        jr_string(r, e, where, "verdict", JR_OPTIONAL, &out->verdict) != 0)
        return -1;
    if (out->verdict && !one_of(out->verdict, verdicts))
        return jr_fail(r, where, "verdict: \"%s\" is not worse, better or no-difference",
                       shown(out->verdict, (char[32]){0}, 32));
    if (rank && (jr_number(r, rank, where, "p_greater", 0, 1, JR_REQUIRED, &out->p_greater) != 0 ||
                 jr_number(r, rank, where, "p_value", 0, 1, JR_REQUIRED, &out->rank_p) != 0))
        return -1;
    out->nmetric = json_array_size(metrics);
    out->metric = calloc(out->nmetric ? out->nmetric : 1, sizeof *out->metric);
    if (!out->metric)
        return jr_fail(r, where, "out of memory");
    for (size_t i = 0; i < out->nmetric; i++) {
        char w[200];
        snprintf(w, sizeof w, "%s.metrics[%zu]", where, i);
        if (read_metric(r, json_array_get(metrics, i), w, &out->metric[i]) != 0)
            return -1;
    }
    return 0;
}

static int read_comparison(struct jreader *r, const json_t *e, const char *where,
                           struct report_comparison *out)
{
    const json_t *cpus;
    if (!json_is_object(e))
        return jr_fail(r, where, "not an object");
    if (jr_string(r, e, where, "label", JR_REQUIRED, &out->label) != 0 ||
        jr_string(r, e, where, "verdict", JR_REQUIRED, &out->verdict) != 0 ||
        jr_array(r, e, where, "cpus", JR_REQUIRED, CPULIST_MAX_CPUS + 1, &cpus) != 0)
        return -1;
    if (!one_of(out->verdict, verdicts))
        return jr_fail(r, where, "verdict: \"%s\" is not worse, better or no-difference",
                       shown(out->verdict, (char[32]){0}, 32));
    out->ncpu = json_array_size(cpus);
    out->cpu = calloc(out->ncpu ? out->ncpu : 1, sizeof *out->cpu);
    if (!out->cpu)
        return jr_fail(r, where, "out of memory");
    for (size_t i = 0; i < out->ncpu; i++) {
        char w[140];
        snprintf(w, sizeof w, "%s.cpus[%zu]", where, i);
        if (read_cmp_cpu(r, json_array_get(cpus, i), w, &out->cpu[i]) != 0)
            return -1;
    }
    return 0;
}

static int read_compare(struct jreader *r, const char *path, struct report_compare *c)
{
    const json_t *inputs, *cmps;
    if (report_load_doc(r, path, "compare", &c->root) != 0)
        return -1;
    if (jr_number(r, c->root, "", "alpha", 0, 1, JR_OPTIONAL, &c->alpha) != 0 ||
        jr_string(r, c->root, "", "baseline", JR_OPTIONAL, &c->baseline) != 0 ||
        jr_array(r, c->root, "", "inputs", JR_OPTIONAL, 64, &inputs) != 0 ||
        jr_array(r, c->root, "", "comparisons", JR_REQUIRED, 64, &cmps) != 0)
        return -1;
    c->ninput = inputs ? json_array_size(inputs) : 0;
    c->ncmp = json_array_size(cmps);
    c->input = calloc(c->ninput ? c->ninput : 1, sizeof *c->input);
    c->cmp = calloc(c->ncmp ? c->ncmp : 1, sizeof *c->cmp);
    if (!c->input || !c->cmp)
        return jr_fail(r, "comparisons", "out of memory");
    for (size_t i = 0; i < c->ninput; i++) {
        const json_t *e = json_array_get(inputs, i);
        char w[80];
        snprintf(w, sizeof w, "inputs[%zu]", i);
        if (!json_is_object(e))
            return jr_fail(r, w, "not an object");
        if (jr_string(r, e, w, "label", JR_REQUIRED, &c->input[i].label) != 0 ||
            typed_list(r, e, w, "files", true, &c->input[i].files) != 0 ||
            jr_int(r, e, w, "runs", 0, INT32_MAX, JR_OPTIONAL, &c->input[i].runs) != 0)
            return -1;
    }
    for (size_t i = 0; i < c->ncmp; i++) {
        char w[48];
        snprintf(w, sizeof w, "comparisons[%zu]", i);
        if (read_comparison(r, json_array_get(cmps, i), w, &c->cmp[i]) != 0)
            return -1;
    }
    return 0;
}

void report_compare_free(struct report_compare *c)
{
    for (size_t i = 0; c->cmp && i < c->ncmp; i++) {
        for (size_t k = 0; c->cmp[i].cpu && k < c->cmp[i].ncpu; k++)
            free(c->cmp[i].cpu[k].metric);
        free(c->cmp[i].cpu);
    }
    free(c->cmp);
    free(c->input);
    json_decref(c->root);
    memset(c, 0, sizeof *c);
}

int report_compare_read(const char *path, struct report_compare *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->alpha = NAN;
    struct jreader r = {err, errlen};
    if (read_compare(&r, path, c) != 0) {
        report_compare_free(c);
        return -1;
    }
    c->path = path;
    return 0;
}

static const char *const severities[] = {"critical", "warning", "info", "ok", NULL};

static int read_finding(struct jreader *r, const json_t *e, const char *where,
                        struct report_finding *f)
{
    if (!json_is_object(e))
        return jr_fail(r, where, "not an object");
    const json_t *ev;
    if (jr_string(r, e, where, "id", JR_REQUIRED, &f->id) != 0 ||
        jr_string(r, e, where, "area", JR_OPTIONAL, &f->area) != 0 ||
        jr_string(r, e, where, "severity", JR_REQUIRED, &f->severity) != 0 ||
        jr_string(r, e, where, "effect", JR_OPTIONAL, &f->effect) != 0 ||
        jr_string(r, e, where, "fix", JR_OPTIONAL, &f->fix) != 0 ||
        typed_list(r, e, where, "cpus", false, &f->cpus) != 0 ||
        jr_array(r, e, where, "evidence", JR_OPTIONAL, LIST_MAX, &ev) != 0)
        return -1;
    if (!one_of(f->severity, severities))
        return jr_fail(r, where, "severity: \"%s\" is not critical, warning, info or ok",
                       shown(f->severity, (char[32]){0}, 32));
    for (size_t i = 0; ev && i < json_array_size(ev); i++) {
        const json_t *x = json_array_get(ev, i);
        char w[140];
        const char *s;
        snprintf(w, sizeof w, "%s.evidence[%zu]", where, i);
        if (!json_is_object(x))
            return jr_fail(r, w, "not an object");
        if (jr_string(r, x, w, "path", JR_OPTIONAL, &s) != 0 ||
            jr_string(r, x, w, "value", JR_OPTIONAL, &s) != 0)
            return -1;
    }
    f->evidence = ev;
    return 0;
}

static int read_inspect(struct jreader *r, const char *path, struct report_inspect *in)
{
    const json_t *findings, *unknown, *sys;
    if (report_load_doc(r, path, "inspect", &in->root) != 0)
        return -1;
    if (jr_string(r, in->root, "", "verdict", JR_OPTIONAL, &in->verdict) != 0 ||
        jr_string(r, in->root, "", "verdict_reason", JR_OPTIONAL, &in->verdict_reason) != 0 ||
        jr_int(r, in->root, "", "budget_ns", 0, INT64_MAX, JR_OPTIONAL, &in->budget_ns) != 0 ||
        typed_list(r, in->root, "", "cpus", false, &in->cpus) != 0 ||
        jr_array(r, in->root, "", "findings", JR_OPTIONAL, LIST_MAX, &findings) != 0 ||
        jr_array(r, in->root, "", "unknown", JR_OPTIONAL, LIST_MAX, &unknown) != 0 ||
        jr_object(r, in->root, "", "system", JR_OPTIONAL, &sys) != 0)
        return -1;
    if (sys && jr_string(r, sys, "system", "hostname", JR_OPTIONAL, &in->hostname) != 0)
        return -1;
    in->nfinding = findings ? json_array_size(findings) : 0;
    in->nunknown = unknown ? json_array_size(unknown) : 0;
    in->finding = calloc(in->nfinding ? in->nfinding : 1, sizeof *in->finding);
    in->unknown = calloc(in->nunknown ? in->nunknown : 1, sizeof *in->unknown);
    if (!in->finding || !in->unknown)
        return jr_fail(r, "findings", "out of memory");
    for (size_t i = 0; i < in->nfinding; i++) {
        char w[48];
        snprintf(w, sizeof w, "findings[%zu]", i);
        if (read_finding(r, json_array_get(findings, i), w, &in->finding[i]) != 0)
            return -1;
    }
    for (size_t i = 0; i < in->nunknown; i++) {
        const json_t *e = json_array_get(unknown, i);
        char w[48];
        snprintf(w, sizeof w, "unknown[%zu]", i);
        if (!json_is_object(e))
            return jr_fail(r, w, "not an object");
        if (jr_string(r, e, w, "id", JR_REQUIRED, &in->unknown[i].id) != 0 ||
            jr_string(r, e, w, "why", JR_OPTIONAL, &in->unknown[i].why) != 0)
            return -1;
    }
    return 0;
}

void report_inspect_free(struct report_inspect *in)
{
    free(in->finding);
    free(in->unknown);
    json_decref(in->root);
    memset(in, 0, sizeof *in);
}

int report_inspect_read(const char *path, struct report_inspect *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->budget_ns = JR_ABSENT;
    struct jreader r = {err, errlen};
    if (read_inspect(&r, path, in) != 0) {
        report_inspect_free(in);
        return -1;
    }
    in->path = path;
    return 0;
}
