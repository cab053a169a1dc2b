/*
 * What people read on the terminal: the end-of-run summary table (per CPU and
 * all CPUs, microseconds with three decimals), a compact log-scale text
 * histogram, the --report-every window lines and the live view.
 */
#ifndef JITTERLAB_OUT_TEXT_REPORT_H
#define JITTERLAB_OUT_TEXT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/collector.h"
#include "out/report.h"

void text_summary(FILE *out, const struct run_report *rep);
/* `run --until-confident`: what ended the run, with the last check's
 * widest interval ("stopped: the 1e-09 level's interval is within 10 %
 * (CPU 1: 12.3 us, +8.1 %)", "-D ended the run before ..."). */
void text_until_confident(FILE *out, const struct run_tail_confidence *k);
/* One line per load: its CPUs and the duty cycle each achieved. */
void text_loads(FILE *out, const struct load_spec *specs, int n, const struct load_runner *lr);
void text_histogram(FILE *out, const struct latency_hist *h);
/* with_exec adds the execution time and deadline-miss columns (the count
 * "-" without with_deadline: the run has no deadline); without wide the
 * line fits 100 columns. */
void text_interval_header(FILE *out, bool with_exec, bool wide);
void text_interval_line(FILE *out, const struct interval_stats *iv, int64_t interval_ns,
                        int64_t tolerance_ns, bool with_exec, bool with_deadline, bool wide);
/* ns as microseconds, for "%.3f" columns. */
double text_us(int64_t ns);
/* A deadline-miss count, or "-" in a run without a deadline. */
void text_dl_miss_cell(FILE *out, bool with_deadline, uint64_t n, int width);

/* Terminal: redraws in place; returns the number of lines drawn, to pass
 * back as prev_lines on the next call (0 the first time). */
int live_view_draw(FILE *out, const struct live_frame *f, int prev_lines);
/* Erases a live view of `lines` lines (before printing other text). */
void live_view_clear(FILE *out, int lines);
/* Not a terminal: one plain line per CPU. */
void live_plain_lines(FILE *out, const struct live_frame *f);

#endif
