/*
 * The verdicts of a compare document (`jitterlab compare --json`) as
 * tables, one per comparison and CPU, with each metric's ratio, interval,
 * p-value, test and verdict (worse red, better green); and the findings of
 * an inspect document. The report never computes a statistic itself: with
 * several results and no compare document it says where verdicts come from.
 */
#include <math.h>
#include <string.h>

#include "out/report_html_internal.h"
#include "out/report_json.h"

#define DASH "\xe2\x80\x93"

static const char *verdict_class(const char *v)
{
    return strcmp(v, "worse") == 0 ? "worse" : strcmp(v, "better") == 0 ? "better" : "nodiff";
}

/* A metric value in its unit: a duration for "ns", a percentage for
 * "rate" (a share of the samples), else a number. */
static void value_cell(FILE *f, double v, const char *unit)
{
    if (isnan(v)) {
        fputs("<td class=\"na\">" DASH "</td>", f);
        return;
    }
    char buf[64];
    if (unit && strcmp(unit, "ns") == 0)
        format_ns(v, buf, sizeof buf);
    else if (unit && strcmp(unit, "rate") == 0)
        snprintf(buf, sizeof buf, "%.3g%%", v * 100);
    else
        snprintf(buf, sizeof buf, "%.6g", v);
    fprintf(f, "<td>%s</td>", buf);
}

/* significant: digits of a p-value (%g), else decimals of a ratio (%f) */
static void number_cell(FILE *f, double v, bool significant)
{
    if (isnan(v))
        fputs("<td class=\"na\">" DASH "</td>", f);
    else if (significant)
        fprintf(f, "<td>%.3g</td>", v);
    else
        fprintf(f, "<td>%.3f</td>", v);
}

static void cmp_cpu_table(FILE *f, const struct report_cmp_cpu *cc)
{
    char name[32];
    report_cpu_name(cc->cpu, name, sizeof name);
    fprintf(f, "<h4>%s", name);
    if (cc->verdict)
        fprintf(f, ": <span class=\"%s\">%s</span>", verdict_class(cc->verdict), cc->verdict);
    fputs("</h4>\n", f);
    fputs("<table class=\"compare\"><tr><th class=\"text\">metric</th><th>baseline</th>"
          "<th>value</th><th>ratio</th><th>interval</th><th>p-value</th>"
          "<th class=\"text\">test</th><th class=\"text\">verdict</th></tr>\n",
          f);
    for (size_t i = 0; i < cc->nmetric; i++) {
        const struct report_metric *m = &cc->metric[i];
        fputs("<tr><td class=\"text\">", f);
        markup_escape(f, m->metric, 40);
        fputs("</td>", f);
        value_cell(f, m->baseline, m->unit);
        value_cell(f, m->value, m->unit);
        number_cell(f, m->ratio, false);
        if (isnan(m->ci_lo))
            fputs("<td class=\"na\">" DASH "</td>", f);
        else
            fprintf(f, "<td>[%.3f, %.3f]</td>", m->ci_lo, m->ci_hi);
        number_cell(f, m->p_value, true);
        fputs("<td class=\"text\">", f);
        markup_escape(f, m->test ? m->test : DASH, 24);
        fprintf(f, "</td><td class=\"text %s\">", verdict_class(m->verdict));
        markup_escape(f, m->verdict, 0);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (!isnan(cc->rank_p))
        fprintf(f,
                "<p class=\"note\">Rank test: P(a sample of this result &gt; one of the "
                "baseline) = %.3f, p %s %.3g.</p>\n",
                cc->p_greater, cc->rank_p < 1e-300 ? "&lt;" : "=",
                cc->rank_p < 1e-300 ? 1e-300 : cc->rank_p);
}

static void compare_tables(struct report_ctx *c)
{
    FILE *f = c->f;
    const struct report_compare *cmp = c->in->compare;
    fputs("<p>From <code>", f);
    markup_escape(f, cmp->path, 0);
    fputs("</code>", f);
    if (!isnan(cmp->alpha))
        fprintf(f, ", significance level \xce\xb1 = %.3g", cmp->alpha);
    if (cmp->baseline) {
        fputs(", baseline <b>", f);
        markup_escape(f, cmp->baseline, 0);
        fputs("</b>", f);
    }
    fputs(". Ratios are value / baseline.</p>\n", f);
    if (cmp->ninput) {
        fputs("<table class=\"cmp-inputs\"><tr><th class=\"text\">input</th><th>runs</th>"
              "<th class=\"text\">files</th></tr>\n",
              f);
        for (size_t i = 0; i < cmp->ninput; i++) {
            const struct report_cmp_input *in = &cmp->input[i];
            fputs("<tr><td class=\"text\">", f);
            markup_escape(f, in->label, 0);
            fputs("</td>", f);
            if (in->runs == JR_ABSENT)
                fputs("<td class=\"na\">" DASH "</td>", f);
            else
                fprintf(f, "<td>%lld</td>", (long long)in->runs);
            fputs("<td class=\"text\">", f);
            for (size_t k = 0; in->files && k < json_array_size(in->files); k++) {
                fputs(k ? ", " : "", f);
                markup_escape(f, json_string_value(json_array_get(in->files, k)), 0);
            }
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    for (size_t i = 0; i < cmp->ncmp; i++) {
        const struct report_comparison *k = &cmp->cmp[i];
        fputs("<h3>", f);
        markup_escape(f, k->label, 0);
        if (cmp->baseline) {
            fputs(" against ", f);
            markup_escape(f, cmp->baseline, 0);
        }
        fprintf(f, ": <span class=\"%s\">", verdict_class(k->verdict));
        markup_escape(f, k->verdict, 0);
        fputs("</span></h3>\n", f);
        for (size_t j = 0; j < k->ncpu; j++)
            cmp_cpu_table(f, &k->cpu[j]);
    }
}

void report_verdicts(struct report_ctx *c)
{
    FILE *f = c->f;
    fputs("<section id=\"verdicts\"><h2>Verdicts</h2>\n", f);
    if (c->in->compare)
        compare_tables(c);
    else if (c->in->nrun > 1)
        fputs("<p>This report draws the results side by side and computes no statistics. "
              "Whether a difference is real (worse, better or no difference, with intervals "
              "and p-values) is what <code>jitterlab compare</code> says: run <code>jitterlab "
              "compare A.json B.json --json compare.json</code> and give the document to "
              "<code>jitterlab report ... --compare compare.json</code>.</p>\n",
              f);
    else
        fputs("<p>One result: nothing to compare. <code>jitterlab compare</code> gives "
              "verdicts between results (<code>--compare FILE</code> shows them here).</p>\n",
              f);
    fputs("</section>\n", f);
}

static void cpu_list(FILE *f, const json_t *cpus)
{
    for (size_t i = 0; cpus && i < json_array_size(cpus); i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)json_integer_value(json_array_get(cpus, i)));
}

static void finding_row(FILE *f, const struct report_finding *x)
{
    fprintf(f, "<tr><td class=\"text %s\">%s</td><td class=\"text\">", x->severity, x->severity);
    markup_escape(f, x->id, 0);
    fputs("</td><td class=\"text\">", f);
    markup_escape(f, x->area ? x->area : DASH, 0);
    fputs("</td><td class=\"text\">", f);
    cpu_list(f, x->cpus);
    fputs("</td><td class=\"text\">", f);
    markup_escape(f, x->effect, 0);
    for (size_t k = 0; x->evidence && k < json_array_size(x->evidence); k++) {
        const json_t *e = json_array_get(x->evidence, k);
        fputs("<br><code>", f);
        markup_escape(f, json_string_value(json_object_get(e, "path")), 0);
        fputs("</code>: ", f);
        markup_escape(f, json_string_value(json_object_get(e, "value")), 0);
    }
    fputs("</td><td class=\"text\">", f);
    markup_escape(f, x->fix, 0);
    fputs("</td></tr>\n", f);
}

void report_findings(struct report_ctx *c)
{
    FILE *f = c->f;
    const struct report_inspect *in = c->in->inspect;
    fputs("<section id=\"inspect\"><h2>Inspect findings</h2>\n<p>From <code>", f);
    markup_escape(f, in->path, 0);
    fputs("</code>", f);
    if (in->hostname) {
        fputs(" on ", f);
        markup_escape(f, in->hostname, 0);
    }
    if (in->budget_ns != JR_ABSENT) {
        char buf[48];
        format_ns((double)in->budget_ns, buf, sizeof buf);
        fprintf(f, ", budget %s", buf);
    }
    if (in->cpus && json_array_size(in->cpus)) {
        fputs(", CPUs ", f);
        cpu_list(f, in->cpus);
    }
    fputs(".</p>\n", f);
    if (in->verdict) {
        bool ready = strcmp(in->verdict, "ready") == 0;
        fprintf(f, "<p><span class=\"%s\">", ready ? "better" : "worse");
        markup_escape(f, in->verdict, 0);
        fputs("</span> ", f);
        markup_escape(f, in->verdict_reason, 0);
        fputs("</p>\n", f);
    }
    /* worst first, in the document's order within a severity; the checks
     * that passed folded away */
    static const char *const order[] = {"critical", "warning", "info", "ok"};
    size_t passed = 0;
    for (size_t i = 0; i < in->nfinding; i++)
        passed += strcmp(in->finding[i].severity, "ok") == 0;
    for (size_t s = 0; s < sizeof order / sizeof order[0]; s++) {
        bool ok = strcmp(order[s], "ok") == 0;
        if (ok && passed == 0)
            break;
        if (s == 0 || ok) {
            if (ok)
                fprintf(f, "<details><summary>%zu checks passed</summary>\n", passed);
            fputs("<table class=\"findings\"><tr><th class=\"text\">severity</th>"
                  "<th class=\"text\">id</th><th class=\"text\">area</th>"
                  "<th class=\"text\">CPUs</th><th class=\"text\">effect and evidence</th>"
                  "<th class=\"text\">fix</th></tr>\n",
                  f);
        }
        for (size_t i = 0; i < in->nfinding; i++)
            if (strcmp(in->finding[i].severity, order[s]) == 0)
                finding_row(f, &in->finding[i]);
        if (s == 2 || ok)
            fputs(ok ? "</table>\n</details>\n" : "</table>\n", f);
    }
    if (in->nunknown) {
        fputs("<p>Not checked:</p>\n<ul>\n", f);
        for (size_t i = 0; i < in->nunknown; i++) {
            fputs("<li><code>", f);
            markup_escape(f, in->unknown[i].id, 0);
            fputs("</code>: ", f);
            markup_escape(f, in->unknown[i].why, 0);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    fputs("</section>\n", f);
}
