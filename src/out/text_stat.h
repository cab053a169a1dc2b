/*
 * What `jitterlab stat` shows and streams: a table per interval with
 * turbostat's column names (Avg_MHz, Busy%, Bzy_MHz, TSC_MHz, IRQ, SMI,
 * per idle state %, CoreTmp, PkgTmp, PkgWatt) and only the columns this
 * machine has, redrawn in place on a terminal and appended as plain rows
 * in a pipe; and the CSV rows of --csv. The columns are fixed by the
 * telemetry's sources when the table is set up.
 */
#ifndef JITTERLAB_OUT_TEXT_STAT_H
#define JITTERLAB_OUT_TEXT_STAT_H

#include <stdbool.h>
#include <stdio.h>

#include "telemetry/run_telemetry.h"
#include "telemetry/telemetry.h"

struct stat_table {
    const struct telemetry *t;
    bool tty;
    int lines_drawn; /* tty: what the last frame drew */
    bool header_done;
    int nidle; /* idle-state columns, named after the first CPU's states */
    char idle_name[CPUIDLE_MAX_STATES][16];
};

void stat_table_init(struct stat_table *st, const struct telemetry *t,
                     const struct telemetry_cpu_figures *first, bool tty);
/* One interval: every CPU's row; on a terminal the frame replaces the last
 * and lists each CPU's busiest interrupt sources below the table. */
void stat_table_print(struct stat_table *st, FILE *out, double t_s,
                      const struct telemetry_cpu_figures *f, int ncpu);

/* CSV: the header (idle and softirq columns named after the first CPU's
 * figures), then one row per CPU per interval. */
void stat_csv_header(FILE *out, const struct telemetry *t,
                     const struct telemetry_cpu_figures *first);
void stat_csv_rows(FILE *out, const struct telemetry *t, double t_s,
                   const struct telemetry_cpu_figures *f, int ncpu);

/* The end of a run: per measured CPU, the telemetry over the kept windows
 * (rates per second, shares weighted by time) and its busiest interrupt
 * sources, over n windows of window_ns (the last of a run may be
 * shorter); only the nonly CPUs of `only` unless it is NULL (a summary of
 * many CPUs shows the rows of its worst ones). */
void text_telemetry_summary(FILE *out, const struct telemetry *t, const struct telemetry_window *w,
                            uint64_t n, uint64_t dropped, int64_t window_ns, const int *only,
                            int nonly);

#endif
