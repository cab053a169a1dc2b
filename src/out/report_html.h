/*
 * The HTML report of `jitterlab report`: one self-contained page (inline
 * SVG and CSS; no script, font, image or link outside the file) drawn from
 * the run results, and optionally a compare and an inspect document, that
 * out/report_model.h read. Every plot can also be kept as an SVG file of
 * its own (--svg DIR).
 */
#ifndef JITTERLAB_OUT_REPORT_HTML_H
#define JITTERLAB_OUT_REPORT_HTML_H

#include <stdio.h>

#include "out/report_model.h"

struct report_doctor;
#include "sys/cpulist.h"

struct report_input {
    struct report_run *run; /* labels set; at most REPORT_MAX_RESULTS */
    int nrun;
    const struct report_compare *compare; /* NULL: none given */
    const struct report_inspect *inspect; /* NULL: none given */
    const struct report_doctor *doctor;   /* NULL: none given (report_doctor.h) */
    const struct cpulist *cpus;           /* only these CPUs; NULL or empty: every one */
    const char *title;                    /* NULL: "jitterlab report" */
    const char *version;                  /* of the program writing the report */
    const struct report_c2c *c2c;         /* c2c documents: their heat maps */
    int nc2c;
    const struct report_tail_doc *tail; /* tail documents: their sections */
    int ntail;
};

/* One plot as a file of its own: "cpu1-histogram.svg" and its text. */
struct report_svg {
    char name[64];
    char *text;
    size_t len;
};

struct report_svgs {
    size_t n, cap;
    struct report_svg *svg;
};

/* Writes the page; with svgs, also keeps every plot in it. Returns 0, or
 * -1 when out of memory or a write failed (ferror). */
int report_html_write(FILE *f, const struct report_input *in, struct report_svgs *svgs);
void report_svgs_free(struct report_svgs *s);

#endif
