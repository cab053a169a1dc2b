/*
 * The doctor section of a report (report_doctor.h): read from the
 * document alone, so that `jitterlab report doctor.json` draws what doctor
 * drew. The runs are the results of the page; this file adds the story.
 */
#include "out/report_doctor.h"

#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "out/report_html_internal.h"
#include "out/result_read.h"
#include "out/svg.h"

static const char *string_at(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static void add_run(struct report_doctor *d, const json_t *v)
{
    if (json_is_string(v) && d->nrun < REPORT_MAX_RESULTS)
        d->run[d->nrun++] = json_string_value(v);
}

int report_doctor_read(const char *path, struct report_doctor *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->path = path;
    d->root = result_load_file(path, err, errlen);
    if (!d->root)
        return -1;
    const char *kind = string_at(d->root, "kind");
    if (!kind || strcmp(kind, "doctor") != 0) {
        snprintf(err, errlen, "not a doctor document");
        report_doctor_free(d);
        return -1;
    }
    const json_t *t = json_object_get(d->root, "treatment");
    const json_t *items = json_object_get(t, "items");
    if ((t && !json_is_object(t)) || (t && !json_is_array(items))) {
        snprintf(err, errlen, "treatment: not an object with items");
        report_doctor_free(d);
        return -1;
    }
    add_run(d, json_object_get(json_object_get(d->root, "baseline"), "result"));
    for (size_t i = 0; i < json_array_size(items); i++) {
        const json_t *it = json_array_get(items, i);
        const char *status = string_at(it, "status");
        if (!status || strcmp(status, "kept") != 0)
            continue;
        add_run(d, json_array_get(json_object_get(it, "before_runs"), 0));
        add_run(d, json_array_get(json_object_get(it, "after_runs"), 0));
    }
    add_run(d, json_object_get(t, "final_result"));
    return 0;
}

void report_doctor_free(struct report_doctor *d)
{
    json_decref(d->root);
    d->root = NULL;
    d->nrun = 0;
}

static void text_cell(FILE *f, const json_t *v)
{
    fputs("<td>", f);
    if (json_is_string(v))
        markup_escape(f, json_string_value(v), 200);
    else if (json_is_integer(v))
        fprintf(f, "%lld", (long long)json_integer_value(v));
    else
        fputs("-", f);
    fputs("</td>", f);
}

/* The cells of o's keys (a NULL-terminated list), as text_cell. */
static void text_cells(FILE *f, const json_t *o, const char *const *keys)
{
    for (; *keys; keys++)
        text_cell(f, json_object_get(o, *keys));
}

static void ns_cell(FILE *f, const json_t *v)
{
    fputs("<td>", f);
    if (json_is_integer(v)) {
        char buf[32];
        format_duration((int64_t)json_integer_value(v), buf, sizeof buf);
        markup_escape(f, buf, 0);
    } else {
        fputs("-", f);
    }
    fputs("</td>", f);
}

static void tail_cells(FILE *f, const json_t *tail)
{
    const json_t *rate = json_object_get(tail, "over_budget_rate");
    if (json_is_number(rate))
        fprintf(f, "<td>%.3f%%</td>", 100.0 * json_number_value(rate));
    else
        fputs("<td>-</td>", f);
    ns_cell(f, json_object_get(tail, "p999_ns"));
    ns_cell(f, json_object_get(tail, "max_ns"));
}

static void conclusion(FILE *f, const json_t *c)
{
    bool met = json_is_true(json_object_get(c, "met"));
    const char *state = string_at(c, "state");
    fprintf(f, "<p><span class=\"%s\">budget %s</span> in the %s: ", met ? "better" : "worse",
            met ? "met" : "NOT met",
            state && strcmp(state, "final") == 0 ? "final state" : "baseline");
    static const char *const keys[] = {"p999", "p9999", "max"};
    static const char *const names[] = {"p99.9", "p99.99", "max"};
    for (int k = 0; k < 3; k++) {
        const json_t *q = json_object_get(c, keys[k]);
        const json_t *ns = json_object_get(q, "ns");
        char buf[32] = "-";
        if (json_is_integer(ns))
            format_duration((int64_t)json_integer_value(ns), buf, sizeof buf);
        fprintf(f, "%s%s ", k ? ", " : "", names[k]);
        markup_escape(f, buf, 0);
    }
    const json_t *n = json_object_get(c, "samples");
    fprintf(f, "; %lld samples.</p>\n", json_is_integer(n) ? (long long)json_integer_value(n) : 0);
}

static void causes(FILE *f, const json_t *list)
{
    if (!json_array_size(list))
        return;
    fputs("<table>\n<tr><th>#</th><th>cause</th><th>name</th><th>samples over the "
          "budget</th><th>max</th></tr>\n",
          f);
    for (size_t i = 0; i < json_array_size(list) && i < 20; i++) {
        const json_t *k = json_array_get(list, i);
        fprintf(f, "<tr><td>%zu</td>", i + 1);
        static const char *const keys[] = {"kind", "name", "over_budget", NULL};
        text_cells(f, k, keys);
        ns_cell(f, json_object_get(k, "max_latency_ns"));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void treatments(FILE *f, const json_t *t)
{
    const json_t *items = json_object_get(t, "items");
    fputs("<h3>Treatment</h3>\n<p>Each runtime remedy in rank order, applied through the tune "
          "journal, measured before and after in alternating rounds and judged by compare's "
          "tests on the over-budget rate, p99.9 and max.</p>\n",
          f);
    fputs("<table>\n<tr><th>#</th><th>action</th><th>status</th><th>verdict</th>"
          "<th>before: over</th><th>p99.9</th><th>max</th><th>after: over</th><th>p99.9</th>"
          "<th>max</th><th>why</th></tr>\n",
          f);
    for (size_t i = 0; i < json_array_size(items); i++) {
        const json_t *it = json_array_get(items, i);
        const char *status = string_at(it, "status");
        bool kept = status && strcmp(status, "kept") == 0;
        fprintf(f, "<tr class=\"%s\"><td>%zu</td>", kept ? "better" : "", i + 1);
        static const char *const keys[] = {"action", "status", "verdict", NULL};
        text_cells(f, it, keys);
        tail_cells(f, json_object_get(it, "before"));
        tail_cells(f, json_object_get(it, "after"));
        text_cell(f, json_object_get(it, "why"));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    const char *stopped = string_at(t, "stopped_in");
    if (stopped) {
        fputs("<p>Stopped in the ", f);
        markup_escape(f, stopped, 40);
        fputs(": the change under test was put back.</p>\n", f);
    }
    const char *journal = string_at(t, "journal");
    if (journal) {
        fputs("<p>Kept changes: <code>jitterlab tune restore</code> undoes them (journal <code>",
              f);
        markup_escape(f, journal, 0);
        fputs("</code>).</p>\n", f);
    }
}

void report_doctor_section(struct report_ctx *c)
{
    FILE *f = c->f;
    const struct report_doctor *d = c->in->doctor;
    fputs("<section id=\"doctor\"><h2>Doctor</h2>\n<p>From <code>", f);
    markup_escape(f, d->path, 0);
    fputs("</code>", f);
    const json_t *budget = json_object_get(d->root, "budget_ns");
    if (json_is_integer(budget)) {
        char buf[32];
        format_duration((int64_t)json_integer_value(budget), buf, sizeof buf);
        fputs(", budget ", f);
        markup_escape(f, buf, 0);
    }
    fputs(".</p>\n", f);
    const json_t *base = json_object_get(d->root, "baseline_conclusion");
    if (base) {
        fputs("<h3>Baseline</h3>\n", f);
        conclusion(f, base);
    }
    fputs("<h3>Diagnosis</h3>\n", f);
    causes(f, json_object_get(json_object_get(d->root, "diagnosis"), "causes"));
    const json_t *t = json_object_get(d->root, "treatment");
    if (t)
        treatments(f, t);
    fputs("<h3>Conclusion</h3>\n", f);
    conclusion(f, json_object_get(d->root, "conclusion"));
    fputs("</section>\n", f);
}
