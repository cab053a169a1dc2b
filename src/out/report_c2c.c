/*
 * The report's section for a c2c document: the one-way latency of every
 * ordered CPU pair as a heat map (rows: the CPU that writes first, columns:
 * its partner; nine colour bands from the lowest to the highest median,
 * lines where the package or the last-level cache changes along the
 * matrix's order), the summary per group (SMT siblings, same LLC, ...) and
 * the topology each CPU had. The SVG is drawn by hand with presentation
 * attributes only, like every plot of the page.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_html_internal.h"
#include "out/report_json.h"
#include "out/svg.h"

#define HEAT_AREA_PX  640.0
#define HEAT_LEFT_PX  56.0
#define HEAT_TOP_PX   40.0
#define HEAT_BANDS    9
#define LABEL_GAP_PX  14.0
#define TOOLTIP_CPUS  64 /* a <title> per cell up to 64 x 64 cells */
#define VALUE_CELL_PX 34.0

/* Light to dark: a yellow-orange-red sequential scale. */
static const char *const bands[HEAT_BANDS] = {
    "#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c",
    "#fc4e2a", "#e31a1c", "#bd0026", "#800026",
};

static int band_of(double v, double lo, double hi)
{
    if (!(hi > lo))
        return 0;
    int b = (int)((v - lo) / (hi - lo) * HEAT_BANDS);
    return b < 0 ? 0 : b >= HEAT_BANDS ? HEAT_BANDS - 1 : b;
}

static void value_range(const struct report_c2c *d, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    size_t cells = (size_t)d->ncpu * (size_t)d->ncpu;
    for (size_t i = 0; i < cells; i++)
        if (!isnan(d->median_ns[i])) {
            *lo = fmin(*lo, d->median_ns[i]);
            *hi = fmax(*hi, d->median_ns[i]);
        }
}

/* Where the package (thick) or the LLC (thin) changes between CPU k-1 and
 * k of the matrix's order: 2, 1, or 0. */
static int boundary(const struct report_c2c *d, int k)
{
    const struct report_c2c_cpu *a = &d->cpu[k - 1], *b = &d->cpu[k];
    if (a->package_id != JR_ABSENT && b->package_id != JR_ABSENT && a->package_id != b->package_id)
        return 2;
    if (a->llc_id != JR_ABSENT && b->llc_id != JR_ABSENT && a->llc_id != b->llc_id)
        return 1;
    return 0;
}

static void heat_cells(FILE *f, const struct report_c2c *d, double cell, double lo, double hi)
{
    int n = d->ncpu;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            double v = d->median_ns[(size_t)i * (size_t)n + (size_t)k];
            double x = HEAT_LEFT_PX + k * cell, y = HEAT_TOP_PX + i * cell;
            const char *fill = isnan(v) ? "#dddddd" : bands[band_of(v, lo, hi)];
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">", x,
                    y, cell, cell, fill);
            if (n <= TOOLTIP_CPUS) {
                char buf[48];
                if (isnan(v))
                    snprintf(buf, sizeof buf, "%s", i == k ? "same CPU" : "not measured");
                else
                    format_ns(v, buf, sizeof buf);
                fprintf(f, "<title>CPU %d \xe2\x86\x92 CPU %d: %s</title>", d->cpu[i].cpu,
                        d->cpu[k].cpu, buf);
            }
            fputs("</rect>\n", f);
            if (cell >= VALUE_CELL_PX && !isnan(v))
                fprintf(f,
                        "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" text-anchor=\"middle\" "
                        "fill=\"%s\">%.*f</text>\n",
                        x + cell / 2, y + cell / 2 + 3.5,
                        band_of(v, lo, hi) >= HEAT_BANDS / 2 + 1 ? "#ffffff" : "#222222",
                        v < 100 ? 1 : 0, v);
        }
}

/* Every step-th CPU is labelled: a power of two, so that 256 CPUs are
 * labelled 0, 16, 32, ..., with at least `room` pixels per label. */
static int label_step(double room, double cell)
{
    int step = 1;
    while (step * cell < room)
        step *= 2;
    return step;
}

static void heat_labels_and_lines(FILE *f, const struct report_c2c *d, double cell)
{
    int n = d->ncpu;
    /* Above the columns a label needs its width (about 6 px a digit at
     * font size 10) and a gap; beside the rows only its height. */
    int digits = 1;
    for (int top = d->cpu[n - 1].cpu; top >= 10; top /= 10)
        digits++;
    int col_step = label_step(6.0 * digits + 6.0, cell);
    int row_step = label_step(LABEL_GAP_PX, cell);
    double side = cell * n;
    for (int k = 0; k < n; k += col_step)
        fprintf(f,
                "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" text-anchor=\"middle\" "
                "fill=\"#333333\">%d</text>\n",
                HEAT_LEFT_PX + (k + 0.5) * cell, HEAT_TOP_PX - 4, d->cpu[k].cpu);
    for (int k = 0; k < n; k += row_step)
        fprintf(f,
                "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" text-anchor=\"end\" "
                "fill=\"#333333\">%d</text>\n",
                HEAT_LEFT_PX - 4, HEAT_TOP_PX + (k + 0.5) * cell + 3.5, d->cpu[k].cpu);
    for (int k = 1; k < n; k++) {
        int b = boundary(d, k);
        if (!b)
            continue;
        double at = k * cell;
        const char *attrs = b == 2
                                ? "stroke=\"#000000\" stroke-width=\"2\""
                                : "stroke=\"#333333\" stroke-width=\"1\" stroke-dasharray=\"3 2\"";
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" %s/>\n",
                HEAT_LEFT_PX + at, HEAT_TOP_PX, HEAT_LEFT_PX + at, HEAT_TOP_PX + side, attrs);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" %s/>\n", HEAT_LEFT_PX,
                HEAT_TOP_PX + at, HEAT_LEFT_PX + side, HEAT_TOP_PX + at, attrs);
    }
    fprintf(f,
            "<text x=\"%.2f\" y=\"14\" font-size=\"12\" text-anchor=\"middle\">to CPU</text>\n"
            "<text x=\"14\" y=\"%.2f\" font-size=\"12\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 14 %.2f)\">from CPU</text>\n",
            HEAT_LEFT_PX + side / 2, HEAT_TOP_PX + side / 2, HEAT_TOP_PX + side / 2);
}

/* The bands as a legend right of the map, lowest at the bottom, each with
 * the values it holds ("240 ns to 267 ns"; the top band to the highest
 * median). When every pair has the same median there is one colour and
 * one entry, that value; a band whose bounds print alike is not repeated. */
static void heat_legend(FILE *f, double x, double lo, double hi)
{
    double h = 20;
    int nbands = hi > lo ? HEAT_BANDS : 1;
    char prev[112] = "";
    for (int b = 0; b < nbands; b++) {
        double y = HEAT_TOP_PX + (HEAT_BANDS - 1 - b) * h;
        char from[48], to[48], label[112];
        format_ns(lo + (hi - lo) * b / HEAT_BANDS, from, sizeof from);
        format_ns(lo + (hi - lo) * (b + 1) / HEAT_BANDS, to, sizeof to);
        if (nbands == 1)
            snprintf(label, sizeof label, "%s (every pair)", from);
        else if (strcmp(from, to) == 0)
            snprintf(label, sizeof label, "%s", from);
        else
            snprintf(label, sizeof label, "%s to %s", from, to);
        fprintf(f,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"16\" height=\"%.2f\" fill=\"%s\" "
                "stroke=\"#999999\" stroke-width=\"0.5\"/>\n",
                x, y, h, bands[b]);
        if (strcmp(label, prev) != 0)
            fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" fill=\"#333333\">%s</text>\n",
                    x + 20, y + h / 2 + 3.5, label);
        snprintf(prev, sizeof prev, "%s", label);
    }
    fprintf(f,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"16\" height=\"%.2f\" fill=\"#dddddd\"/>\n"
            "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" fill=\"#333333\">none</text>\n",
            x, HEAT_TOP_PX + HEAT_BANDS * h + 8, h, x + 20, HEAT_TOP_PX + HEAT_BANDS * h + 21.5);
}

static void heat_map(struct report_ctx *c, const struct report_c2c *d, int i)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        c->failed = true;
        return;
    }
    int n = d->ncpu > 0 ? d->ncpu : 1;
    double cell = floor(HEAT_AREA_PX / n);
    cell = cell < 2 ? 2 : cell > 48 ? 48 : cell;
    double side = cell * n;
    double width = HEAT_LEFT_PX + side + 170, height = HEAT_TOP_PX + fmax(side, 230) + 12;
    double lo, hi;
    value_range(d, &lo, &hi);
    fprintf(f,
            "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"sans-serif\">\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
            "fill=\"#ffffff\"/>\n",
            width, height, width, height, width, height);
    heat_cells(f, d, cell, lo, hi);
    heat_labels_and_lines(f, d, cell);
    if (isfinite(lo))
        heat_legend(f, HEAT_LEFT_PX + side + 16, lo, hi);
    fputs("</svg>\n", f);
    if (fclose(f) != 0 || !text) {
        free(text);
        c->failed = true;
        return;
    }
    char file_name[64];
    snprintf(file_name, sizeof file_name, "c2c%d-heatmap.svg", i);
    report_figure(c, text, len, "c2c-heatmap", file_name,
                  "One-way latency (round trip / 2, median of the best round) from the row's CPU "
                  "to the column's. Thick lines: another package; dashed: another last-level "
                  "cache.");
    free(text);
}

static void number_cell(FILE *f, double ns)
{
    char buf[48];
    if (isnan(ns)) {
        fputs("<td class=\"na\">\xe2\x80\x93</td>", f);
        return;
    }
    format_ns(ns, buf, sizeof buf);
    fprintf(f, "<td>%s</td>", buf);
}

static void id_cell(FILE *f, int64_t v)
{
    if (v == JR_ABSENT)
        fputs("<td class=\"na\">\xe2\x80\x93</td>", f);
    else
        fprintf(f, "<td>%lld</td>", (long long)v);
}

static void group_table(FILE *f, const struct report_c2c *d)
{
    if (d->ngroup == 0)
        return;
    fputs("<table class=\"c2c-groups\"><tr><th class=\"text\">CPUs that share</th><th>pairs</th>"
          "<th>min of medians</th><th>median</th><th>max</th><th>best min</th></tr>\n",
          f);
    for (size_t g = 0; g < d->ngroup; g++) {
        const struct report_c2c_group *x = &d->group[g];
        fputs("<tr><td class=\"text\">", f);
        markup_escape(f, x->group, 32);
        fprintf(f, "</td><td>%lld</td>", (long long)x->pairs);
        number_cell(f, x->min_ns);
        number_cell(f, x->median_ns);
        number_cell(f, x->max_ns);
        number_cell(f, x->best_min_ns);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void topology_table(FILE *f, const struct report_c2c *d)
{
    fputs("<details><summary>Topology of the measured CPUs</summary>\n"
          "<table class=\"c2c-topology\"><tr><th>CPU</th><th>core</th><th>last-level cache</th>"
          "<th>package</th></tr>\n",
          f);
    for (int k = 0; k < d->ncpu; k++) {
        fprintf(f, "<tr><td>%d</td>", d->cpu[k].cpu);
        id_cell(f, d->cpu[k].core_id);
        id_cell(f, d->cpu[k].llc_id);
        id_cell(f, d->cpu[k].package_id);
        fputs("</tr>\n", f);
    }
    fputs("</table></details>\n", f);
}

void report_c2c(struct report_ctx *c, int i)
{
    const struct report_c2c *d = &c->in->c2c[i];
    FILE *f = c->f;
    fprintf(f, "<section id=\"c2c%d\"><h2>Core-to-core latency: ", i);
    markup_escape(f, d->path, 80);
    fputs("</h2>\n<p class=\"note\">", f);
    if (d->hostname) {
        markup_escape(f, d->hostname, 64);
        fputs(", ", f);
    }
    fprintf(f, "%d CPUs, mode ", d->ncpu);
    markup_escape(f, d->mode ? d->mode : "?", 16);
    fputs(", clock ", f);
    markup_escape(f, d->clock ? d->clock : "?", 16);
    if (d->round_trips != JR_ABSENT && d->rounds != JR_ABSENT)
        fprintf(f, ", %lld round trips \xc3\x97 %lld rounds", (long long)d->round_trips,
                (long long)d->rounds);
    fprintf(f, "%s%s.</p>\n", d->realtime ? ", SCHED_FIFO" : ", not real-time (SCHED_OTHER)",
            d->interrupted ? " <span class=\"flag\">interrupted</span>" : "");
    heat_map(c, d, i);
    group_table(f, d);
    topology_table(f, d);
    fputs("</section>\n", f);
}
