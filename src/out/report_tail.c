/*
 * The tail analysis on the page: per CPU entry of a result's `tail` (run
 * --tail), in that CPU's section, and per entry of a tail document
 * (jitterlab tail --json), in a section of its own. Each entry gets an
 * exceedance plot on log axes, P(latency > x) per cycle against x: the
 * empirical points of the histogram (at each bucket's upper edge, the
 * values above it over the samples: exact, whatever the buckets' width),
 * the fitted tail (the entry's curve) with its band, the threshold and the
 * budget as vertical lines; then the verdict with its estimates and the
 * checks table. An entry that cannot be estimated shows its empirical
 * points and the reason instead of a curve. A tail document carries no
 * histogram: its plot has the curve, threshold and budget only, unless the
 * one result it names was given too (report_tail_doc.run).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_html_internal.h"
#include "out/report_json.h"

#define TAIL_PLOT_W      880
#define TAIL_PLOT_H      320
#define FIT_COLOUR       "#222222"
#define BAND_COLOUR      "#888888"
#define THR_COLOUR       "#7f7f7f"
#define BUD_COLOUR       "#d62728"
#define TAIL_PLOT_MAX_NS 8.64e13

static const struct report_tail_entry *entry_of(const struct report_tail *t, int cpu)
{
    for (size_t i = 0; t && i < t->nentry; i++)
        if (t->entry[i].cpu == cpu)
            return &t->entry[i];
    return NULL;
}

static bool usable_point(const struct report_tail_point *pt)
{
    return pt->probability >= REPORT_TAIL_PROBABILITY && pt->ns.value >= 1;
}

/* The band of the fitted curve: one filled area per run of points with
 * both bounds, lower bounds forward and upper bounds back. */
static void band(FILE *m, const struct svg_plot *p, const struct report_tail_entry *e)
{
    size_t i = 0;
    while (i < e->ncurve) {
        size_t j = i;
        while (j < e->ncurve && usable_point(&e->curve[j]) && e->curve[j].ns.lo >= 1 &&
               isfinite(e->curve[j].ns.hi))
            j++;
        if (j - i >= 2) {
            fprintf(m, "<path d=\"");
            for (size_t k = i; k < j; k++)
                fprintf(m, "%c%.1f %.1f ", k == i ? 'M' : 'L', svg_px(p, e->curve[k].ns.lo),
                        svg_py(p, e->curve[k].probability));
            for (size_t k = j; k-- > i;)
                fprintf(m, "L%.1f %.1f ", svg_px(p, e->curve[k].ns.hi),
                        svg_py(p, e->curve[k].probability));
            fprintf(m, "Z\" fill=\"%s\" fill-opacity=\"0.25\" stroke=\"none\"/>\n", BAND_COLOUR);
        }
        i = j + 1;
    }
}

static void vertical(FILE *m, const struct svg_plot *p, double x, const char *colour,
                     const char *dash)
{
    struct svg_path l;
    svg_path_begin(&l, m, p, colour, dash, 1.4);
    svg_path_point(&l, x, p->y.lo);
    svg_path_point(&l, x, p->y.hi);
    svg_path_end(&l);
}

/* The plot of one entry; h: the histogram it was fitted on, or NULL. */
static void tail_plot(struct report_ctx *c, const struct report_tail_entry *e,
                      const struct report_hist *h, double budget_ns, const char *colour,
                      const char *label, int cpu, const char *name)
{
    double xlo = INFINITY, xhi = 0, ylo = 1;
    uint64_t cum = 0;
    for (int i = 0; h && h->total && i < h->nbins; i++) {
        cum += h->bins[i].count;
        double y = (double)(h->total - cum) / (double)h->total;
        xlo = fmin(xlo, fmax((double)h->bins[i].hi, 1));
        xhi = fmax(xhi, (double)h->bins[i].hi);
        if (y > 0)
            ylo = fmin(ylo, y);
    }
    bool curve = false;
    for (size_t i = 0; e->estimate && i < e->ncurve; i++) {
        const struct report_tail_point *pt = &e->curve[i];
        if (!usable_point(pt))
            continue;
        curve = true;
        xlo = fmin(xlo, pt->ns.value);
        xhi = fmax(xhi, pt->ns.value); /* the band beyond is clipped at the edge */
        ylo = fmin(ylo, pt->probability);
    }
    double marks[3] = {e->threshold_ns, budget_ns, e->empirical_max_ns};
    for (int k = 0; k < 3; k++)
        if (marks[k] >= 1) {
            xlo = fmin(xlo, marks[k]);
            xhi = fmax(xhi, marks[k]);
        }
    if (!(xlo <= xhi)) {
        fputs("<p class=\"note\">Nothing to draw: no histogram, no fitted curve.</p>\n", c->f);
        return;
    }
    struct svg_plot p;
    svg_plot_init(&p, TAIL_PLOT_W, TAIL_PLOT_H);
    /* at most a day: a heavy tail's 1e-12 level may lie far beyond */
    axis_log(&p.x, xlo, fmin(xhi * 1.05, TAIL_PLOT_MAX_NS), AXIS_FMT_NS);
    axis_log(&p.y, fmax(ylo, REPORT_TAIL_PROBABILITY), 1, AXIS_FMT_POWER);
    char title[160], cpu_name[32];
    report_cpu_name(cpu, cpu_name, sizeof cpu_name);
    snprintf(title, sizeof title, "Tail, %s: P(latency > x) per cycle", cpu_name);
    p.title = title;
    p.x_title = "latency x";
    p.y_title = "P(latency > x) per cycle";
    if (h)
        svg_plot_legend(&p, label, colour, NULL);
    if (curve) {
        svg_plot_legend(&p, "fitted tail", FIT_COLOUR, NULL);
        svg_plot_legend(&p, "its interval", BAND_COLOUR, NULL);
    }
    if (e->threshold_ns >= 1)
        svg_plot_legend(&p, "threshold", THR_COLOUR, "4 3");
    if (budget_ns >= 1)
        svg_plot_legend(&p, "budget", BUD_COLOUR, "8 4");
    char *text;
    size_t len;
    FILE *m = report_plot_open(c, &p, &text, &len);
    if (!m)
        return;
    if (curve)
        band(m, &p, e);
    if (h && h->total) {
        struct svg_path l;
        svg_path_begin(&l, m, &p, colour, NULL, 1.6);
        cum = 0;
        for (int i = 0; i < h->nbins; i++) {
            cum += h->bins[i].count;
            double y = (double)(h->total - cum) / (double)h->total;
            if (y > 0)
                svg_path_point(&l, fmax((double)h->bins[i].hi, 1), y);
        }
        svg_path_end(&l);
    }
    if (curve) {
        struct svg_path l;
        svg_path_begin(&l, m, &p, FIT_COLOUR, NULL, 1.8);
        for (size_t i = 0; i < e->ncurve; i++)
            if (usable_point(&e->curve[i]))
                svg_path_point(&l, e->curve[i].ns.value, e->curve[i].probability);
        svg_path_end(&l);
    }
    if (e->threshold_ns >= 1)
        vertical(m, &p, e->threshold_ns, THR_COLOUR, "4 3");
    if (budget_ns >= 1)
        vertical(m, &p, budget_ns, BUD_COLOUR, "8 4");
    if (!curve)
        svg_plot_note(m, &p,
                      e->estimate ? "no fitted curve in the document"
                                  : "cannot estimate: no fitted tail");
    char caption[512];
    snprintf(caption, sizeof caption, "%s%s%s",
             h ? "The points: at each bucket's upper edge x, the share of samples above x "
                 "(exact). "
               : "No histogram: the document has none (give the result it names too). ",
             curve ? "The black line: the fitted tail, with its interval shaded; read the "
                     "latency that is exceeded once in 1/p cycles at height p. "
                   : "",
             "Dashed: the threshold the fit starts at (grey) and the budget (red).");
    report_plot_close(c, m, &text, &len, cpu, name, caption);
}

static void ns_text(char *buf, size_t len, double ns)
{
    if (isnan(ns))
        snprintf(buf, len, "not bounded");
    else
        format_ns(ns, buf, len);
}

static void value_line(FILE *f, const char *what, const struct report_tail_value *v, bool ns)
{
    char a[48], lo[48], hi[48];
    if (isnan(v->value))
        return;
    if (ns) {
        format_ns(v->value, a, sizeof a);
        ns_text(lo, sizeof lo, v->lo);
        ns_text(hi, sizeof hi, v->hi);
    } else {
        snprintf(a, sizeof a, "%.4g", v->value);
        snprintf(lo, sizeof lo, isnan(v->lo) ? "not bounded" : "%.4g", v->lo);
        snprintf(hi, sizeof hi, isnan(v->hi) ? "not bounded" : "%.4g", v->hi);
    }
    fprintf(f, "%s %s [%s, %s]", what, a, lo, hi);
}

static void text(FILE *f, const char *s)
{
    markup_escape(f, s ? s : "\xe2\x80\x93", 400);
}

/* The verdict, the fit and the estimates, in words. */
static void verdict_lines(struct report_ctx *c, const struct report_tail_entry *e)
{
    FILE *f = c->f;
    fputs("<p class=\"tail-verdict\">", f);
    if (!e->estimate) {
        fputs("<b>Cannot estimate</b>: ", f);
        text(f, e->reason);
        if (e->advice) {
            fputs("<br>What to do: ", f);
            text(f, e->advice);
        }
        fputs("</p>\n", f);
        return;
    }
    fputs("<b>Estimate</b>", f);
    fputs(" from the ", f);
    text(f, e->data ? e->data : "histogram");
    if (e->threshold_ns >= 0) {
        char u[48];
        format_ns(e->threshold_ns, u, sizeof u);
        fprintf(f, ", threshold %s (", u);
        text(f, e->threshold_rule);
        fputs(")", f);
    }
    if (e->exceedances != JR_ABSENT && e->samples != JR_ABSENT)
        fprintf(f, ", %lld exceedances of %lld samples", (long long)e->exceedances,
                (long long)e->samples);
    fputs(".<br>", f);
    value_line(f, "shape \xce\xbe", &e->shape, false);
    if (e->shape_meaning) {
        fputs(" (", f);
        text(f, e->shape_meaning);
        fputs(")", f);
    }
    fputs("; ", f);
    value_line(f, "scale \xcf\x83", &e->scale, true);
    fputs("<br>\n", f);
    for (size_t i = 0; i < e->nest; i++) {
        char what[64];
        snprintf(what, sizeof what, "once in %.3g cycles:", 1 / e->est[i].probability);
        if (isnan(e->est[i].ns.value))
            fprintf(f, "%s no estimate<br>\n", what);
        else {
            value_line(f, what, &e->est[i].ns, true);
            fputs("<br>\n", f);
        }
    }
    if (e->has_budget) {
        char b[48];
        format_ns(e->budget_ns, b, sizeof b);
        fprintf(f, "P(latency > %s): %.3g per cycle [%s], %.3g per hour, %.3g per year<br>\n", b,
                e->per_cycle.value, isnan(e->per_cycle.hi) ? "not bounded" : "interval given",
                e->per_hour, e->per_year);
    }
    if (!isnan(e->empirical_max_ns)) {
        char mx[48];
        format_ns(e->empirical_max_ns, mx, sizeof mx);
        fprintf(f, "largest value seen: %s", mx);
        if (!isnan(e->more_hours_1e9))
            fprintf(f, "; %.3g hours more would see 10\xe2\x81\xb9 cycles", e->more_hours_1e9);
        fputs("\n", f);
    }
    fputs("</p>\n", f);
}

static void checks_table(struct report_ctx *c, const struct report_tail_entry *e)
{
    FILE *f = c->f;
    if (!e->ncheck)
        return;
    fputs("<table class=\"tail-checks\"><tr><th class=\"text\">check</th><th "
          "class=\"text\">method</th><th>statistic</th><th>p</th><th>level</th><th "
          "class=\"text\">result</th><th class=\"text\">why</th></tr>\n",
          f);
    for (size_t i = 0; i < e->ncheck; i++) {
        const struct report_tail_check *k = &e->check[i];
        fputs("<tr><td class=\"text\">", f);
        text(f, k->name);
        fputs("</td><td class=\"text\">", f);
        text(f, k->method);
        fputs("</td>", f);
        double nums[3] = {k->statistic, k->p_value, k->level};
        for (int j = 0; j < 3; j++)
            if (isnan(nums[j]))
                fputs("<td class=\"na\">\xe2\x80\x93</td>", f);
            else
                fprintf(f, "<td>%.4g</td>", nums[j]);
        fprintf(f, "<td class=\"text %s\">%s</td><td class=\"text\">",
                k->state > 0    ? "ok"
                : k->state == 0 ? "critical"
                                : "na",
                k->state > 0    ? "passed"
                : k->state == 0 ? "failed"
                                : "not run");
        text(f, k->why);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void tail_entry(struct report_ctx *c, const struct report_tail_entry *e,
                       const struct report_hist *h, double budget_ns, const char *colour,
                       const char *label, int cpu, const char *name)
{
    tail_plot(c, e, h, budget_ns, colour, label, cpu, name);
    verdict_lines(c, e);
    checks_table(c, e);
}

void report_tail_cpu(struct report_ctx *c, int cpu)
{
    bool any = false;
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_run *run = &c->in->run[r];
        const struct report_tail_entry *e = entry_of(run->tail, cpu);
        const struct report_cpu *rc = report_run_cpu(run, cpu);
        if (!e || !rc)
            continue;
        if (!any)
            fputs("<h3>Tail</h3>\n<p class=\"note\">How sure is the worst case: the tail "
                  "analysis the result carries (run --tail; docs/tail.md).</p>\n",
                  c->f);
        any = true;
        fputs("<h4>", c->f);
        markup_escape(c->f, run->label, 80);
        fputs("</h4>\n", c->f);
        char name[32];
        snprintf(name, sizeof name, "tail%d", r);
        tail_entry(c, e, &rc->latency, e->has_budget ? e->budget_ns : run->tail->budget_ns,
                   report_colour(r), run->label, cpu, name);
    }
}

void report_tail_docs(struct report_ctx *c)
{
    for (int i = 0; i < c->in->ntail; i++) {
        const struct report_tail_doc *d = &c->in->tail[i];
        FILE *f = c->f;
        fprintf(f, "<section id=\"taildoc%d\"><h2>Tail analysis: ", i);
        markup_escape(f, d->path, 120);
        fputs("</h2>\n<p class=\"note\">", f);
        if (d->run >= 0) {
            fputs("Fitted on ", f);
            markup_escape(f, c->in->run[d->run].label, 80);
            fputs(", whose histograms are drawn with it.", f);
        } else {
            fputs("The document holds no histogram: its fitted curves, thresholds and budget "
                  "are drawn alone (give the one result it names too to see its points).",
                  f);
        }
        fputs("</p>\n", f);
        for (size_t k = 0; k < d->tail.nentry; k++) {
            const struct report_tail_entry *e = &d->tail.entry[k];
            const struct report_cpu *rc =
                d->run >= 0 ? report_run_cpu(&c->in->run[d->run], e->cpu) : NULL;
            char cpu_name[32], name[32];
            report_cpu_name(e->cpu, cpu_name, sizeof cpu_name);
            fprintf(f, "<h3>%s</h3>\n", cpu_name);
            snprintf(name, sizeof name, "taildoc%d", i);
            tail_entry(c, e, rc ? &rc->latency : NULL,
                       e->has_budget ? e->budget_ns : d->tail.budget_ns,
                       report_colour(d->run >= 0 ? d->run : i), rc ? c->in->run[d->run].label : "",
                       e->cpu, name);
        }
        fputs("</section>\n", f);
    }
}
