/*
 * What the files of the HTML report share: the context every part writes
 * through, the result colours, and the parts themselves (report_html.c
 * lays out the page and calls them): plots (report_plots.c), tables
 * (report_tables.c, report_config.c), verdicts (report_verdicts.c) and
 * the part of noise results (report_noise.c), the tail analysis
 * (report_tail.c).
 */
#ifndef JITTERLAB_OUT_REPORT_HTML_INTERNAL_H
#define JITTERLAB_OUT_REPORT_HTML_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "out/report_html.h"
#include "out/svg.h"

struct report_ctx {
    FILE *f;
    const struct report_input *in;
    struct report_svgs *svgs; /* NULL: no --svg */
    bool failed;              /* out of memory */
};

/* The colour of result i. */
const char *report_colour(int i);
/* The entry of CPU cpu (-1: "all") in run, or NULL when it was not measured. */
const struct report_cpu *report_run_cpu(const struct report_run *run, int cpu);
/* "CPU 3" or "all CPUs". */
void report_cpu_name(int cpu, char *buf, size_t len);
/* A plot drawn into memory: begin with report_plot_open, draw into the
 * returned stream, end with report_plot_close, which writes the figure into
 * the page (and keeps it for --svg under name, "cpu1-histogram"). */
FILE *report_plot_open(struct report_ctx *c, struct svg_plot *p, char **text, size_t *len);
void report_plot_close(struct report_ctx *c, FILE *mem, char **text, size_t *len, int cpu,
                       const char *name, const char *caption);
/* An SVG drawn by hand (starting "<svg") as a figure of the page, kept for
 * --svg as file_name; name is its data-plot attribute (a fixed word). */
void report_figure(struct report_ctx *c, const char *svg, size_t len, const char *name,
                   const char *file_name, const char *caption);
/* A swatch of result i's colour and its label, for tables. */
void report_result_cell(struct report_ctx *c, int i);
/* The inputs table of a page: its opening and the header cells every kind
 * shares (result, file, host, kernel, started, duration, CPUs); the caller
 * adds its own header cells and "</tr>". */
void report_inputs_head(FILE *f);
/* The row of result i up to its CPUs cell, those shared columns; the caller
 * adds its own cells and "</tr>". */
void report_inputs_row_head(struct report_ctx *c, int i);
/* Opens the row of result r in a per-CPU table (cpu: a CPU id or -1) and
 * returns that result's CPU; NULL when it did not measure cpu: then the row
 * is closed with one "not measured" cell spanning ncols. */
const struct report_cpu *report_cpu_row(struct report_ctx *c, int r, int cpu, int ncols);
/* A duration in a table cell ("–" for JR_ABSENT). */
void report_ns_cell(FILE *f, int64_t ns);

/* The parts of the page. cpu is a CPU id or -1 for all CPUs. */
void report_plots_cpu(struct report_ctx *c, int cpu);
void report_percentile_table(struct report_ctx *c, int cpu);
void report_exec_table(struct report_ctx *c, int cpu);
void report_spikes(struct report_ctx *c, int run);
void report_config(struct report_ctx *c);
void report_verdicts(struct report_ctx *c);
void report_findings(struct report_ctx *c);
/* Noise results: the gap plots of one CPU section (report_plots.c), and
 * the whole part of the page they have instead of the run sections
 * (report_noise.c), for the CPUs given. */
void report_plots_noise(struct report_ctx *c, int cpu);
void report_noise_part(struct report_ctx *c, const int *cpus, int ncpus);
/* Core-to-core latency: c2c document i's heat map, groups and topology. */
void report_c2c(struct report_ctx *c, int i);
/* The tail analysis (report_tail.c): the results' entries for cpu, in its
 * section; the tail documents' sections. */
void report_tail_cpu(struct report_ctx *c, int cpu);
void report_tail_docs(struct report_ctx *c);
/* The doctor document's section (report_doctor.c). */
void report_doctor_section(struct report_ctx *c);

#endif
