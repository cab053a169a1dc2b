/*
 * SVG drawing for the report (svg.h): the escaping every document string
 * goes through, the plot frame and the lines. Coordinates are written with
 * one decimal: a tenth of a pixel is finer than any screen and keeps a
 * 2000-point line near 25 kB. A line's data is collected in a memory
 * stream first, so that a line without points leaves no empty element.
 */
#include "out/svg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */
#define ELLIPSIS    "\xe2\x80\xa6"
#define FONT_PX     11.0
#define CHAR_PX     6.2 /* average advance of an 11 px sans-serif character */

/* The length of the well-formed UTF-8 sequence at s, or 0. */
static size_t utf8_sequence(const unsigned char *s, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
    if (n == 0 || s[0] > 0xf4)
        return 0;
    uint32_t v = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0; /* overlong, beyond Unicode, or a surrogate */
    *cp = v;
    return n;
}

size_t markup_chars(const char *s)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp;
        size_t k = utf8_sequence(p, &cp);
        p += k ? k : 1;
        n++;
    }
    return n;
}

void markup_escape(FILE *f, const char *s, size_t max_chars)
{
    if (!s)
        return;
    const unsigned char *p = (const unsigned char *)s;
    size_t chars = 0;
    while (*p) {
        if (max_chars && chars == max_chars) {
            fputs(ELLIPSIS, f);
            return;
        }
        uint32_t cp;
        size_t k = utf8_sequence(p, &cp);
        chars++;
        if (k == 0) {
            fputs(REPLACEMENT, f);
            p++;
            continue;
        }
        switch (cp) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            if ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f || cp == 0xfffe ||
                cp == 0xffff)
                fputs(REPLACEMENT, f);
            else
                fwrite(p, 1, k, f);
        }
        p += k;
    }
}

void svg_plot_init(struct svg_plot *p, double width, double height)
{
    memset(p, 0, sizeof *p);
    p->width = width;
    p->height = height;
    p->left = 70;
    p->right = 18;
    p->top = 30;
    p->bottom = 42;
    axis_linear(&p->x, 0, 1, AXIS_FMT_NUMBER);
    axis_linear(&p->y, 0, 1, AXIS_FMT_NUMBER);
}

void svg_plot_legend(struct svg_plot *p, const char *label, const char *colour, const char *dash)
{
    if (p->nlegend < SVG_LEGEND_MAX)
        p->legend[p->nlegend++] = (struct svg_legend_entry){label, colour, dash};
}

#define LEGEND_LABEL_CHARS 40

static double legend_entry_px(const struct svg_legend_entry *e)
{
    size_t n = markup_chars(e->label ? e->label : "");
    return 28 + CHAR_PX * (double)(n > LEGEND_LABEL_CHARS ? LEGEND_LABEL_CHARS + 1 : n) + 14;
}

/* Lays the legend out in rows from the plot area's left edge; with draw
 * false only counts the rows. */
static int legend_rows(FILE *f, const struct svg_plot *p, double y0, bool draw)
{
    if (p->nlegend == 0)
        return 0;
    double x = p->left, max_x = p->width - p->right;
    int rows = 1;
    for (int i = 0; i < p->nlegend; i++) {
        const struct svg_legend_entry *e = &p->legend[i];
        double w = legend_entry_px(e);
        if (x > p->left && x + w > max_x) {
            x = p->left;
            rows++;
        }
        double y = y0 + (rows - 1) * 15.0;
        if (draw) {
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-width=\"2.5\"%s%s%s/>",
                    x, y - 4, x + 22, y - 4, e->colour, e->dash ? " stroke-dasharray=\"" : "",
                    e->dash ? e->dash : "", e->dash ? "\"" : "");
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 28, y);
            markup_escape(f, e->label, LEGEND_LABEL_CHARS);
            fputs("</text>\n", f);
        }
        x += w;
    }
    return rows;
}

static double area_x0(const struct svg_plot *p)
{
    return p->left;
}

static double area_x1(const struct svg_plot *p)
{
    return p->width - p->right;
}

static double area_y0(const struct svg_plot *p)
{
    return p->top;
}

static double area_y1(const struct svg_plot *p)
{
    return p->height - p->bottom;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

double svg_px(const struct svg_plot *p, double x)
{
    double f = axis_fraction(&p->x, x);
    double v = area_x0(p) + f * (area_x1(p) - area_x0(p));
    return clamp(isnan(v) ? area_x0(p) : v, area_x0(p), area_x1(p));
}

double svg_py(const struct svg_plot *p, double y)
{
    double f = axis_fraction(&p->y, y);
    double v = area_y1(p) - f * (area_y1(p) - area_y0(p));
    return clamp(isnan(v) ? area_y1(p) : v, area_y0(p), area_y1(p));
}

static void draw_ticks(FILE *f, const struct svg_plot *p)
{
    double x0 = area_x0(p), x1 = area_x1(p), y0 = area_y0(p), y1 = area_y1(p);
    for (int i = 0; i < p->x.nticks; i++) {
        const struct axis_tick *t = &p->x.tick[i];
        double x = svg_px(p, t->value);
        if (t->major)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>",
                    x, y0, x, y1);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#666\"/>", x, y1,
                x, y1 + (t->major ? 5 : 3));
        if (t->major && t->label[0]) {
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, y1 + 16);
            markup_escape(f, t->label, 0);
            fputs("</text>", f);
        }
        fputc('\n', f);
    }
    for (int i = 0; i < p->y.nticks; i++) {
        const struct axis_tick *t = &p->y.tick[i];
        double y = svg_py(p, t->value);
        if (t->major)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>",
                    x0, y, x1, y);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#666\"/>",
                x0 - (t->major ? 5 : 3), y, x0, y);
        if (t->major && t->label[0]) {
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 7, y + 4);
            markup_escape(f, t->label, 0);
            fputs("</text>", f);
        }
        fputc('\n', f);
    }
}

/* An axis title with the linear axis' unit: "latency (µs)". */
static void axis_title(FILE *f, const char *title, const struct axis *a)
{
    markup_escape(f, title, 0);
    if (a->unit[0]) {
        fputs(" (", f);
        markup_escape(f, a->unit, 0);
        fputc(')', f);
    }
}

void svg_plot_begin(FILE *f, struct svg_plot *p, bool standalone)
{
    int rows = legend_rows(f, p, 0, false);
    p->top = (p->title ? 30 : 12) + rows * 15.0;
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "
              "xmlns=\"http://www.w3.org/2000/svg\"",
              f);
    else
        fputs("<svg", f);
    fprintf(f,
            " width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"sans-serif\" font-size=\"%.0f\" role=\"img\" aria-label=\"",
            p->width, p->height, p->width, p->height, FONT_PX);
    markup_escape(f, p->title ? p->title : "plot", 0);
    fputs("\">\n", f);
    fprintf(f, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", p->width, p->height);
    if (p->title) {
        fprintf(f, "<text x=\"%.1f\" y=\"17\" font-size=\"13\" font-weight=\"bold\">", p->left);
        markup_escape(f, p->title, 0);
        fputs("</text>\n", f);
    }
    legend_rows(f, p, (p->title ? 30 : 12) + 3, true);
    draw_ticks(f, p);
    double x0 = area_x0(p), x1 = area_x1(p), y0 = area_y0(p), y1 = area_y1(p);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#888\"/>\n",
            x0, y0, x1 - x0, y1 - y0);
    if (p->x_title) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (x0 + x1) / 2,
                p->height - 6);
        axis_title(f, p->x_title, &p->x);
        fputs("</text>\n", f);
    }
    if (p->y_title) {
        double cy = (y0 + y1) / 2;
        fprintf(f,
                "<text x=\"13\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 13 "
                "%.1f)\">",
                cy, cy);
        axis_title(f, p->y_title, &p->y);
        fputs("</text>\n", f);
    }
}

void svg_plot_end(FILE *f)
{
    fputs("</svg>\n", f);
}

void svg_plot_note(FILE *f, const struct svg_plot *p, const char *text)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#777\">",
            (area_x0(p) + area_x1(p)) / 2, (area_y0(p) + area_y1(p)) / 2);
    markup_escape(f, text, 0);
    fputs("</text>\n", f);
}

void svg_path_begin(struct svg_path *l, FILE *out, const struct svg_plot *p, const char *colour,
                    const char *dash, double stroke_width)
{
    memset(l, 0, sizeof *l);
    l->out = out;
    l->plot = p;
    l->d = open_memstream(&l->text, &l->len);
    snprintf(l->colour, sizeof l->colour, "%s", colour);
    snprintf(l->attrs, sizeof l->attrs,
             "fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" stroke-linejoin=\"round\"%s%s%s",
             colour, stroke_width, dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
             dash ? "\"" : "");
}

void svg_path_point(struct svg_path *l, double x, double y)
{
    if (!l->d)
        return;
    if (isnan(x) || isnan(y)) {
        l->pen_down = false;
        return;
    }
    double px = svg_px(l->plot, x), py = svg_py(l->plot, y);
    if (l->pen_down && fabs(px - l->last_x) < 0.25 && fabs(py - l->last_y) < 0.25)
        return;
    fprintf(l->d, "%s%.1f %.1f", l->pen_down ? " L" : l->points ? " M" : "M", px, py);
    l->pen_down = true;
    l->last_x = px;
    l->last_y = py;
    l->points++;
}

size_t svg_path_end(struct svg_path *l)
{
    if (!l->d)
        return 0;
    fclose(l->d);
    l->d = NULL;
    size_t n = l->points;
    if (n == 1)
        fprintf(l->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n", l->last_x,
                l->last_y, l->colour);
    else if (n > 1)
        fprintf(l->out, "<path %s d=\"%s\"/>\n", l->attrs, l->text);
    free(l->text);
    l->text = NULL;
    return n;
}
