/*
 * What the text outputs share when many CPUs are measured (64-256 and more):
 * the rule that decides when a per-CPU table collapses, the choice of the
 * N worst (or best) entries without sorting them all, and the strip, one
 * character per CPU for its largest latency, wrapped to fit 100 columns.
 * Used by run's live view and summary (text_report.c), noise's
 * (text_noise.c) and the c2c pairs (text_c2c.c).
 */
#ifndef JITTERLAB_OUT_TEXT_MANY_H
#define JITTERLAB_OUT_TEXT_MANY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Up to this many CPUs every table keeps one row per CPU, as it always
 * did; with more, a table shows every CPU together, then the worst ones. */
#define TEXT_MANY_MAX_ROWS 16
/* The rows of each "worst" list of a collapsed table. */
#define TEXT_MANY_WORST 8
/* No line of a collapsed view is wider (display columns). */
#define TEXT_MANY_COLUMNS 100
/* Cells of one strip line, in groups of 8. */
#define TEXT_MANY_STRIP_CELLS 64
#define TEXT_MANY_BANDS       5

/* Whether a table of ncpu CPUs collapses (per_cpu: --per-cpu, every row). */
static inline bool text_many_collapsed(int ncpu, bool per_cpu)
{
    return !per_cpu && ncpu > TEXT_MANY_MAX_ROWS;
}

/* The TEXT_MANY_WORST entries with the largest values (or, with
 * !largest, the smallest) of those added, best-ranked first; on a tie the
 * one added first ranks first. Values that are NaN are left out. */
struct text_many_top {
    bool largest;
    int n;
    int idx[TEXT_MANY_WORST];
    double value[TEXT_MANY_WORST];
};

void text_many_top_init(struct text_many_top *t, bool largest);
void text_many_top_add(struct text_many_top *t, int idx, double value);

/* "248 more CPUs: --per-cpu prints all" (nothing when more <= 0). */
void text_many_more(FILE *out, int more);

/* The strip: first a legend line naming each band's character,
 * "  max latency per CPU: . <10µs  - <50µs  + <100µs  * <1ms  # >=1ms  ? none",
 * then lines of TEXT_MANY_STRIP_CELLS cells, each line led by the first
 * CPU on it. On a terminal (tty) each cell is coloured by its band and
 * every line ends by erasing the rest of it (the live views redraw in
 * place). Bands are fixed, so that the same character means the same
 * latency on every machine. */
struct text_strip {
    FILE *out;
    bool tty;
    int cells; /* on the open line */
    int lines; /* printed, the legend included */
};

/* The band of a value: 0 .. TEXT_MANY_BANDS - 1, or -1 for none (< 0). */
int text_many_band(int64_t max_ns);
char text_many_band_char(int band);

/* what: "max latency", "longest gap". */
void text_strip_begin(struct text_strip *s, FILE *out, bool tty, const char *what);
/* One CPU; max_ns < 0: nothing measured yet. */
void text_strip_cell(struct text_strip *s, int cpu, int64_t max_ns);
/* Ends the last line; returns the lines printed. */
int text_strip_end(struct text_strip *s);

#endif
