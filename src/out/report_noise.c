/*
 * The noise part of the report page (noise results, kind "noise"): the
 * inputs, a section per CPU and one for all CPUs with the table of noise
 * figures (noise share, gaps, floor, gap p50/p99/p99.99/max) and the plots
 * of report_plots_noise (gap histogram, its tail, the noise share per
 * window), the causes each result found per CPU, then the verdicts of a
 * compare document and the system and config side by side, as for runs.
 * Every figure is the document's own; strings of documents are escaped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_html_internal.h"
#include "out/report_json.h"

#define DASH        "\xe2\x80\x93"
#define CAUSES_ROWS 30

static double share_pct(const struct result_cpu *c)
{
    return c->noise.measured_ns > 0
               ? 100.0 * (double)c->noise.noise_ns / (double)c->noise.measured_ns
               : NAN;
}

/* explain.method of a noise result: "tracepoints" or "window"; NULL. */
static const char *method_of(const struct report_run *r)
{
    const json_t *e = json_object_get(r->root, "explain");
    return json_is_object(e) ? json_string_value(json_object_get(e, "method")) : NULL;
}

static void text_cell(FILE *f, const char *s)
{
    fputs("<td class=\"text\">", f);
    markup_escape(f, s && s[0] ? s : DASH, 0);
    fputs("</td>", f);
}

static void inputs_table(struct report_ctx *c)
{
    FILE *f = c->f;
    report_inputs_head(f);
    fputs("<th>gaps</th><th>noise share</th><th class=\"text\">causes from</th></tr>\n", f);
    for (int i = 0; i < c->in->nrun; i++) {
        const struct report_run *r = &c->in->run[i];
        report_inputs_row_head(c, i);
        fprintf(f, "<td>%llu</td><td>%.4f%%</td>", (unsigned long long)r->all.core->samples,
                share_pct(r->all.core));
        text_cell(f, method_of(r));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void noise_table(struct report_ctx *c, int cpu)
{
    FILE *f = c->f;
    fputs("<table class=\"noise\"><tr><th class=\"text\">result</th><th>noise share</th>"
          "<th>noise</th><th>measured</th><th>gaps</th><th>gaps/s</th><th>floor</th>"
          "<th>gap p50</th><th>gap p99</th><th>gap p99.99</th><th>gap max</th></tr>\n",
          f);
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_cpu *rc = report_cpu_row(c, r, cpu, 10);
        if (!rc)
            continue;
        const struct result_cpu *k = rc->core;
        const struct result_noise *n = &k->noise;
        double pct = share_pct(k);
        if (isnan(pct))
            fputs("<td class=\"na\">" DASH "</td>", f);
        else
            fprintf(f, "<td>%.4f%%</td>", pct);
        report_ns_cell(f, n->noise_ns);
        report_ns_cell(f, n->measured_ns);
        fprintf(f, "<td>%llu</td>", (unsigned long long)k->samples);
        if (n->measured_ns > 0)
            fprintf(f, "<td>%.1f</td>", 1e9 * (double)k->samples / (double)n->measured_ns);
        else
            fputs("<td class=\"na\">" DASH "</td>", f);
        report_ns_cell(f, n->floor_ns >= 0 ? n->floor_ns : JR_ABSENT);
        const struct result_latency *s = &k->latency;
        report_ns_cell(f, s->known ? s->p50 : JR_ABSENT);
        report_ns_cell(f, s->known ? s->p99 : JR_ABSENT);
        report_ns_cell(f, s->known ? s->p9999 : JR_ABSENT);
        report_ns_cell(f, s->known ? s->max : JR_ABSENT);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n<p class=\"note\">A gap is a stretch of time the spinning thread did not "
          "run, at least the threshold long; noise share = the gaps' time over the time "
          "measured; floor = the loop's shortest step, its own cost.</p>\n",
          f);
}

static void cpu_section(struct report_ctx *c, int cpu)
{
    if (cpu < 0)
        fputs("<section id=\"all\"><h2>Noise, all CPUs</h2>\n", c->f);
    else
        fprintf(c->f, "<section id=\"cpu%d\"><h2>Noise, CPU %d</h2>\n", cpu, cpu);
    noise_table(c, cpu);
    report_plots_noise(c, cpu);
    fputs("</section>\n", c->f);
}

/* The pids of a thread source, each with its share of the row's time. */
static void pids_cell(FILE *f, const struct result_noise_cause *q)
{
    fputs("<td>", f);
    for (size_t p = 0; p < q->npid; p++)
        fprintf(f, "%s%lld (%.0f%%)", p ? ", " : "", (long long)q->pids[p].pid,
                q->ns > 0 ? 100.0 * (double)q->pids[p].ns / (double)q->ns : 0.0);
    if (q->pids_other_ns > 0)
        fprintf(f, ", others (%.0f%%)",
                q->ns > 0 ? 100.0 * (double)q->pids_other_ns / (double)q->ns : 0.0);
    fputs("</td>", f);
}

/* Result i's causes per CPU: kind, name, pid, share of the attributed noise. */
static void causes_section(struct report_ctx *c, int i)
{
    FILE *f = c->f;
    const struct report_run *r = &c->in->run[i];
    fprintf(f, "<section id=\"causes%d\"><h2>Noise causes: ", i);
    markup_escape(f, r->label, 0);
    fputs("</h2>\n", f);
    for (int k = 0; k < r->ncpu; k++) {
        const struct result_noise *n = &r->cpu[k].core->noise;
        if (!n->ncause)
            continue;
        if (c->in->cpus && c->in->cpus->count > 0 && !cpulist_contains(c->in->cpus, r->cpu[k].cpu))
            continue;
        fprintf(f,
                "<h3>CPU %d</h3>\n<table class=\"causes\"><tr><th class=\"text\">kind</th>"
                "<th class=\"text\">name</th><th>pid</th><th class=\"text\">policy</th>"
                "<th>share</th><th>time</th><th>gaps</th></tr>\n",
                r->cpu[k].cpu);
        size_t shown = n->ncause < CAUSES_ROWS ? n->ncause : CAUSES_ROWS;
        for (size_t j = 0; j < shown; j++) {
            const struct result_noise_cause *q = &n->cause[j];
            fputs("<tr>", f);
            text_cell(f, q->kind);
            if (q->folded > 0) {
                char name[320];
                snprintf(name, sizeof name, "%s (%llu smaller causes folded)", q->name,
                         (unsigned long long)q->folded);
                text_cell(f, name);
            } else {
                text_cell(f, q->name);
            }
            if (q->npid > 1 || (q->npid && q->pids_other_ns > 0))
                pids_cell(f, q);
            else if (q->pid >= 0)
                fprintf(f, "<td>%lld</td>", (long long)q->pid);
            else
                fputs("<td class=\"na\">" DASH "</td>", f);
            text_cell(f, q->policy);
            fprintf(f, "<td>%.1f%%</td>", 100 * q->share);
            report_ns_cell(f, q->ns);
            fprintf(f, "<td>%llu</td></tr>\n", (unsigned long long)q->gaps);
        }
        fputs("</table>\n", f);
        if (n->ncause > shown)
            fprintf(f, "<p class=\"note\">%zu more causes not shown.</p>\n", n->ncause - shown);
    }
    fputs("<p class=\"note\">Share = the cause's part of the noise the tracepoints explained; "
          "a gap with several causes counts once in each. A thread is its name, policy and "
          "priority; several pids of one are listed with their part of its time.</p>\n"
          "</section>\n",
          f);
}

static bool has_causes(const struct report_run *r)
{
    for (int k = 0; k < r->ncpu; k++)
        if (r->cpu[k].core->noise.ncause)
            return true;
    return false;
}

void report_noise_part(struct report_ctx *c, const int *cpus, int ncpus)
{
    const struct report_input *in = c->in;
    FILE *f = c->f;
    inputs_table(c);
    fputs("<nav><ul>\n<li><a href=\"#verdicts\">Verdicts</a></li>\n", f);
    for (int i = 0; i < ncpus; i++)
        fprintf(f, "<li><a href=\"#cpu%d\">Noise, CPU %d</a></li>\n", cpus[i], cpus[i]);
    fputs("<li><a href=\"#all\">Noise, all CPUs</a></li>\n", f);
    for (int i = 0; i < in->nrun; i++)
        if (has_causes(&in->run[i])) {
            fprintf(f, "<li><a href=\"#causes%d\">Noise causes: ", i);
            markup_escape(f, in->run[i].label, 40);
            fputs("</a></li>\n", f);
        }
    fputs("<li><a href=\"#system\">System and config</a></li>\n</ul></nav>\n", f);
    report_verdicts(c);
    for (int i = 0; i < ncpus && !c->failed; i++)
        cpu_section(c, cpus[i]);
    cpu_section(c, -1);
    for (int i = 0; i < in->nrun; i++)
        if (has_causes(&in->run[i]))
            causes_section(c, i);
    if (in->inspect)
        report_findings(c);
    report_config(c);
}
