/*
 * The report page (report_html.h): the head with its style sheet, the
 * inputs, a table of contents, then the verdicts, one section per CPU and
 * one for all CPUs (with the tail analysis a result carries), the inspect
 * findings, the tail documents, the spikes of each result and the system
 * and config objects; noise results have their own part
 * instead (report_noise.c). The parts live in report_plots.c,
 * report_tables.c, report_config.c and report_verdicts.c; this file holds
 * the layout and what they share (colours, the plot figure, --svg copies).
 * Ids and anchors are made of numbers only, never of document text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_html_internal.h"
#include "out/report_json.h"

static const char *const colours[REPORT_MAX_RESULTS] = {
    "#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1",
    "#76b7b2", "#9c755f", "#edc948", "#ff9da7", "#555555",
};

const char *report_colour(int i)
{
    return colours[(unsigned)i % REPORT_MAX_RESULTS];
}

const struct report_cpu *report_run_cpu(const struct report_run *run, int cpu)
{
    if (cpu < 0)
        return &run->all;
    for (int i = 0; i < run->ncpu; i++)
        if (run->cpu[i].cpu == cpu)
            return &run->cpu[i];
    return NULL;
}

void report_cpu_name(int cpu, char *buf, size_t len)
{
    if (cpu < 0)
        snprintf(buf, len, "all CPUs");
    else
        snprintf(buf, len, "CPU %d", cpu);
}

FILE *report_plot_open(struct report_ctx *c, struct svg_plot *p, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *mem = open_memstream(text, len);
    if (!mem) {
        c->failed = true;
        return NULL;
    }
    svg_plot_begin(mem, p, false);
    return mem;
}

/* Keeps a copy of the plot as a file of its own, file_name: the XML
 * declaration and the SVG namespace in front of the inline text. */
static void keep_svg(struct report_ctx *c, const char *text, size_t len, const char *file_name)
{
    struct report_svgs *s = c->svgs;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        void *p = realloc(s->svg, cap * sizeof *s->svg);
        if (!p) {
            c->failed = true;
            return;
        }
        s->svg = p;
        s->cap = cap;
    }
    struct report_svg *out = &s->svg[s->n];
    snprintf(out->name, sizeof out->name, "%s", file_name);
    FILE *mem = open_memstream(&out->text, &out->len);
    if (!mem) {
        c->failed = true;
        return;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\"",
          mem);
    fwrite(text + 4, 1, len - 4, mem); /* after "<svg" */
    if (fclose(mem) != 0) {
        free(out->text);
        c->failed = true;
        return;
    }
    s->n++;
}

void report_plot_close(struct report_ctx *c, FILE *mem, char **text, size_t *len, int cpu,
                       const char *name, const char *caption)
{
    if (!mem)
        return;
    svg_plot_end(mem);
    if (fclose(mem) != 0 || !*text) {
        c->failed = true;
        free(*text);
        return;
    }
    char file_name[64];
    if (cpu < 0)
        snprintf(file_name, sizeof file_name, "all-%s.svg", name);
    else
        snprintf(file_name, sizeof file_name, "cpu%d-%s.svg", cpu, name);
    report_figure(c, *text, *len, name, file_name, caption);
    free(*text);
    *text = NULL;
}

void report_figure(struct report_ctx *c, const char *svg, size_t len, const char *name,
                   const char *file_name, const char *caption)
{
    fprintf(c->f, "<figure class=\"plot\" data-plot=\"%s\">\n", name);
    fwrite(svg, 1, len, c->f);
    if (caption) {
        fputs("<figcaption>", c->f);
        markup_escape(c->f, caption, 0);
        fputs("</figcaption>\n", c->f);
    }
    fputs("</figure>\n", c->f);
    if (c->svgs && len > 4)
        keep_svg(c, svg, len, file_name);
}

void report_result_cell(struct report_ctx *c, int i)
{
    fprintf(c->f, "<td class=\"label\"><span class=\"swatch\" style=\"background:%s\"></span>",
            report_colour(i));
    markup_escape(c->f, c->in->run[i].label, 0);
    fputs("</td>", c->f);
}

void report_ns_cell(FILE *f, int64_t ns)
{
    char buf[48];
    if (ns == JR_ABSENT) {
        fputs("<td class=\"na\">\xe2\x80\x93</td>", f);
        return;
    }
    format_ns((double)ns, buf, sizeof buf);
    fprintf(f, "<td>%s</td>", buf);
}

void report_svgs_free(struct report_svgs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->svg[i].text);
    free(s->svg);
    memset(s, 0, sizeof *s);
}

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1180px;padding:0 1em;"
    "color:#222;line-height:1.35}\n"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ccc;margin-top:2em}\n"
    "h3{margin-top:1.4em}\n"
    "table{border-collapse:collapse;margin:.6em 0;font-size:.9em}\n"
    "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right;vertical-align:top}\n"
    "th{background:#f2f2f2}td.label,td.text,th.text{text-align:left}\n"
    "td.text{max-width:44em;overflow-wrap:anywhere}td.na{color:#999}\n"
    "td.key{text-align:left;white-space:nowrap}td.same{color:#555}\n"
    "tr.diff td{background:#fff3c4}tr.diff td:first-child{font-weight:bold}\n"
    ".swatch{display:inline-block;width:.9em;height:.9em;margin-right:.4em;"
    "vertical-align:-.1em;border-radius:2px}\n"
    ".worse{background:#f8d0d0;color:#8a0000;font-weight:bold}\n"
    ".better{background:#d3f0d3;color:#0a5a0a;font-weight:bold}\n"
    ".nodiff{background:#eee}.critical{background:#f8d0d0;font-weight:bold}\n"
    ".warning{background:#fde8c4}.info{background:#e4eefa}.ok{background:#e2f3e2}\n"
    ".note{color:#555;font-style:italic}.flag{color:#a00;font-weight:bold}\n"
    "figure.plot{display:inline-block;margin:.4em .6em .6em 0;vertical-align:top}\n"
    "figure.plot svg{max-width:100%;height:auto;border:1px solid #ddd}\n"
    "figcaption{font-size:.8em;color:#555;max-width:880px}\n"
    "nav ul{columns:3;font-size:.9em}details{margin:.6em 0}summary{cursor:pointer}\n"
    "code{background:#f4f4f4;padding:0 .2em}\n"
    "@media print{figure.plot{break-inside:avoid}h2{break-before:page}}\n";

/* The CPUs the page has sections for: every CPU of every result (or those
 * of --cpus among them), ascending. */
static int section_cpus(const struct report_input *in, int *out, int max)
{
    int n = 0;
    for (int r = 0; r < in->nrun; r++)
        for (int i = 0; i < in->run[r].ncpu; i++) {
            int cpu = in->run[r].cpu[i].cpu;
            if (in->cpus && in->cpus->count > 0 && !cpulist_contains(in->cpus, cpu))
                continue;
            int k = 0;
            while (k < n && out[k] < cpu)
                k++;
            if ((k < n && out[k] == cpu) || n == max)
                continue;
            memmove(&out[k + 1], &out[k], (size_t)(n - k) * sizeof *out);
            out[k] = cpu;
            n++;
        }
    return n;
}

void report_inputs_head(FILE *f)
{
    fputs("<table class=\"inputs\"><tr><th class=\"text\">result</th><th class=\"text\">file</th>"
          "<th class=\"text\">host</th><th class=\"text\">kernel</th>"
          "<th class=\"text\">started</th><th>duration</th><th>CPUs</th>",
          f);
}

void report_inputs_row_head(struct report_ctx *c, int i)
{
    FILE *f = c->f;
    const struct report_run *r = &c->in->run[i];
    fputs("<tr>", f);
    report_result_cell(c, i);
    const char *cells[] = {r->path, r->hostname, r->kernel, r->started_at};
    for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++) {
        fputs("<td class=\"text\">", f);
        markup_escape(f, cells[k] && cells[k][0] ? cells[k] : "\xe2\x80\x93", 0);
        fputs("</td>", f);
    }
    if (isnan(r->duration_s))
        fputs("<td class=\"na\">\xe2\x80\x93</td>", f);
    else
        fprintf(f, "<td>%.3f s%s%s</td>", r->duration_s,
                r->interrupted ? " <span class=\"flag\">interrupted</span>" : "",
                r->core.exact ? ""
                              : " <span class=\"flag\">so far, not exact: samples lacking</span>");
    fprintf(f, "<td>%d</td>", r->ncpu);
}

static void inputs_table(struct report_ctx *c)
{
    FILE *f = c->f;
    report_inputs_head(f);
    fputs("<th>samples</th><th>missed</th></tr>\n", f);
    for (int i = 0; i < c->in->nrun; i++) {
        const struct report_run *r = &c->in->run[i];
        report_inputs_row_head(c, i);
        fprintf(f, "<td>%llu</td><td>%llu</td></tr>\n", (unsigned long long)r->all.core->samples,
                (unsigned long long)r->all.core->missed);
    }
    fputs("</table>\n", f);
}

static void contents(struct report_ctx *c, const int *cpus, int ncpus)
{
    FILE *f = c->f;
    fputs("<nav><ul>\n", f);
    if (c->in->doctor)
        fputs("<li><a href=\"#doctor\">Doctor</a></li>\n", f);
    fputs("<li><a href=\"#verdicts\">Verdicts</a></li>\n", f);
    for (int i = 0; i < ncpus; i++)
        fprintf(f, "<li><a href=\"#cpu%d\">CPU %d</a></li>\n", cpus[i], cpus[i]);
    fputs("<li><a href=\"#all\">All CPUs</a></li>\n", f);
    if (c->in->inspect)
        fputs("<li><a href=\"#inspect\">Inspect findings</a></li>\n", f);
    for (int i = 0; i < c->in->ntail; i++)
        fprintf(f, "<li><a href=\"#taildoc%d\">Tail analysis %d</a></li>\n", i, i + 1);
    for (int i = 0; i < c->in->nrun; i++)
        if (c->in->run[i].has_explain || c->in->run[i].nspike) {
            fprintf(f, "<li><a href=\"#spikes%d\">Spikes: ", i);
            markup_escape(f, c->in->run[i].label, 40);
            fputs("</a></li>\n", f);
        }
    fputs("<li><a href=\"#system\">System and config</a></li>\n</ul></nav>\n", f);
}

static void cpu_section(struct report_ctx *c, int cpu)
{
    char name[32];
    report_cpu_name(cpu, name, sizeof name);
    if (cpu < 0)
        fputs("<section id=\"all\"><h2>All CPUs</h2>\n", c->f);
    else
        fprintf(c->f, "<section id=\"cpu%d\"><h2>CPU %d</h2>\n", cpu, cpu);
    report_percentile_table(c, cpu);
    report_plots_cpu(c, cpu);
    report_tail_cpu(c, cpu);
    fputs("</section>\n", c->f);
}

/* The run results' part of the page: inputs, contents, verdicts, a
 * section per CPU and for all CPUs, findings, spikes, system and config. */
static void runs_part(struct report_ctx *c)
{
    const struct report_input *in = c->in;
    int *cpus = calloc(CPULIST_MAX_CPUS, sizeof *cpus);
    if (!cpus) {
        c->failed = true;
        return;
    }
    int ncpus = section_cpus(in, cpus, CPULIST_MAX_CPUS);
    if (in->run[0].noise) { /* every result is: cmd/report.c refuses a mix */
        report_noise_part(c, cpus, ncpus);
        free(cpus);
        return;
    }
    inputs_table(c);
    contents(c, cpus, ncpus);
    if (in->doctor)
        report_doctor_section(c);
    report_verdicts(c);
    for (int i = 0; i < ncpus && !c->failed; i++)
        cpu_section(c, cpus[i]);
    cpu_section(c, -1);
    free(cpus);
    if (in->inspect)
        report_findings(c);
    report_tail_docs(c);
    for (int i = 0; i < in->nrun; i++)
        if (in->run[i].has_explain || in->run[i].nspike)
            report_spikes(c, i);
    report_config(c);
}

int report_html_write(FILE *f, const struct report_input *in, struct report_svgs *svgs)
{
    struct report_ctx c = {f, in, svgs, false};
    const char *title = in->title ? in->title : "jitterlab report";
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    markup_escape(f, title, 0);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
    markup_escape(f, title, 0);
    fputs("</h1>\n<p class=\"note\">Written by jitterlab ", f);
    markup_escape(f, in->version, 0);
    if (in->nrun || !in->nc2c)
        fprintf(f, " from %d result%s%s", in->nrun, in->nrun == 1 ? "" : "s",
                in->nc2c ? " and" : "");
    else
        fputs(" from", f);
    if (in->nc2c)
        fprintf(f, " %d core-to-core matri%s", in->nc2c, in->nc2c == 1 ? "x" : "ces");
    if (in->ntail)
        fprintf(f, " and %d tail analys%s", in->ntail, in->ntail == 1 ? "is" : "es");
    fputs(in->nrun ? ". Each result has one colour throughout.</p>\n" : ".</p>\n", f);
    if (in->nrun > 0) {
        runs_part(&c);
    } else {
        if (in->inspect)
            report_findings(&c);
        report_tail_docs(&c);
    }
    for (int i = 0; i < in->nc2c && !c.failed; i++)
        report_c2c(&c, i);
    fputs("</body>\n</html>\n", f);
    return c.failed || ferror(f) ? -1 : 0;
}
