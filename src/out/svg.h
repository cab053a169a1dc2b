/*
 * Drawing the report's plots as SVG text: a plot frame with its axes
 * (out/svg_axis.h), titles and legend, and lines given in data
 * coordinates. Everything is written with presentation attributes (no
 * style sheet, no ids, no references), so that one plot reads the same
 * inline in the HTML report and as a file of its own. Every string that
 * may come from a document goes through markup_escape().
 */
#ifndef JITTERLAB_OUT_SVG_H
#define JITTERLAB_OUT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "out/svg_axis.h"

/* Writes s escaped for HTML and XML text and attribute values: & < > " '
 * as entities, and what XML 1.0 forbids or UTF-8 does not allow (control
 * characters but tab and newline, U+FFFE, U+FFFF, malformed sequences) as
 * U+FFFD. With max_chars > 0 at most that many characters, then "…". */
void markup_escape(FILE *f, const char *s, size_t max_chars);
/* Characters (code points) of s, for width estimates. */
size_t markup_chars(const char *s);

struct svg_legend_entry {
    const char *label;
    const char *colour; /* "#4e79a7" */
    const char *dash;   /* NULL: solid; else a stroke-dasharray ("6 3") */
};

#define SVG_LEGEND_MAX 24

struct svg_plot {
    double width, height;
    double left, right, top, bottom; /* margins around the plot area, px */
    struct axis x, y;
    const char *title, *x_title, *y_title; /* plain text, may be NULL */
    struct svg_legend_entry legend[SVG_LEGEND_MAX];
    int nlegend;
};

/* Default margins for a plot of width x height px, no legend. */
void svg_plot_init(struct svg_plot *p, double width, double height);
void svg_plot_legend(struct svg_plot *p, const char *label, const char *colour, const char *dash);
/* Opens <svg> (standalone: with the XML declaration and namespace of a
 * file of its own) and draws background, grid, ticks, labels, titles and
 * legend. The top margin grows with the legend's rows. */
void svg_plot_begin(FILE *f, struct svg_plot *p, bool standalone);
void svg_plot_end(FILE *f);
/* Grey text in the middle of the plot area ("no samples"). */
void svg_plot_note(FILE *f, const struct svg_plot *p, const char *text);
/* Pixel position of a data value, clamped to the plot area. */
double svg_px(const struct svg_plot *p, double x);
double svg_py(const struct svg_plot *p, double y);

/* One line of a plot. Points closer than a quarter pixel to the last one
 * drawn are left out; a NaN coordinate breaks the line. Nothing is
 * written for a line without points. */
struct svg_path {
    FILE *out;
    const struct svg_plot *plot;
    FILE *d; /* the path data, collected in memory */
    char *text;
    size_t len;
    double last_x, last_y;
    bool pen_down;
    size_t points;
    char colour[16];
    char attrs[160];
};

void svg_path_begin(struct svg_path *l, FILE *out, const struct svg_plot *p, const char *colour,
                    const char *dash, double stroke_width);
void svg_path_point(struct svg_path *l, double x, double y);
/* Writes <path d="..."/> (a dot for a single point). Returns the points drawn. */
size_t svg_path_end(struct svg_path *l);

#endif
