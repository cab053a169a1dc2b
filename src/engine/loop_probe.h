/*
 * A build-time probe of where the measuring loop's own time goes, for the
 * overhead experiment (`make loop-probes`, bench/loop-probe.sh). Built with
 * LOOP_PROBE defined, the loop reads the TSC at five marks of every cycle
 * and, when it ends, prints on stderr the mean, the median and the mean up
 * to the 99th percentile of the four sections between them. Without
 * LOOP_PROBE (the product), every function here compiles to nothing and
 * the loop is unchanged.
 *
 * The marks: the sleep has returned; the wake-up time has been read; the
 * cycle is about to be recorded; it has been; the next sleep is about to
 * start. The TSC is read with rdtscp, which waits for the instructions
 * before it, so that a section's misses are counted in that section.
 */
#ifndef JITTERLAB_ENGINE_LOOP_PROBE_H
#define JITTERLAB_ENGINE_LOOP_PROBE_H

#ifdef LOOP_PROBE

#include <stdint.h>

#include "common/clock.h"
#include "common/tsc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PROBE_MARKS = 5, PROBE_SECTIONS = PROBE_MARKS - 1 };
#define PROBE_ROW_TICKS 8
#define PROBE_ROWS      1024 /* beyond 8192 ticks: the last row */

struct loop_probe {
    uint64_t at[PROBE_MARKS];
    uint64_t sum[PROBE_SECTIONS];
    uint32_t rows[PROBE_SECTIONS][PROBE_ROWS];
    uint64_t cycles;
    int64_t mono0;
    uint64_t tsc0;
};

/* On the heap, not on the measuring thread's small stack; cleared here, so
 * that its pages are resident before the first cycle. NULL: no probe. */
static inline struct loop_probe *loop_probe_start(void)
{
    struct loop_probe *p = malloc(sizeof *p);
    if (!p)
        return NULL;
    memset(p, 0, sizeof *p);
    p->mono0 = monotonic_now_ns();
    p->tsc0 = read_tsc();
    return p;
}

static inline void loop_probe_mark(struct loop_probe *p, int mark)
{
    if (p)
        p->at[mark] = read_tsc();
}

/* At the last mark: a cycle whose five marks were all taken is counted. */
static inline void loop_probe_cycle(struct loop_probe *p)
{
    if (!p)
        return;
    p->at[PROBE_MARKS - 1] = read_tsc();
    if (p->at[0] == 0)
        return; /* no sleep returned since the last cycle counted: the first */
    for (int q = 0; q < PROBE_SECTIONS; q++)
        if (p->at[q + 1] < p->at[q])
            return; /* a mark left from before a sleep cut short */
    for (int q = 0; q < PROBE_SECTIONS; q++) {
        uint64_t d = p->at[q + 1] - p->at[q];
        p->sum[q] += d;
        uint64_t row = d / PROBE_ROW_TICKS;
        p->rows[q][row < PROBE_ROWS ? row : PROBE_ROWS - 1]++;
    }
    p->cycles++;
    p->at[0] = 0;
}

/* Prints the sections and frees the probe. */
static inline void loop_probe_report(struct loop_probe *p, int cpu)
{
    if (!p)
        return;
    static const char *const name[PROBE_SECTIONS] = {"wake-clock", "to-record", "record",
                                                     "to-sleep"};
    int64_t ns = monotonic_now_ns() - p->mono0;
    uint64_t ticks = read_tsc() - p->tsc0;
    if (p->cycles == 0 || ns <= 0 || ticks == 0) {
        free(p);
        return;
    }
    double ns_per_tick = (double)ns / (double)ticks;
    for (int q = 0; q < PROBE_SECTIONS; q++) {
        /* the median, and the mean of the cycles up to the 99th percentile:
         * a section an interrupt or a stall of the VM lands in is not the
         * loop's own cost, and one such in a thousand would move the mean */
        uint64_t seen = 0, median = PROBE_ROWS, kept = 0;
        double kept_ticks = 0;
        for (uint64_t row = 0; row < PROBE_ROWS && 100 * seen < 99 * p->cycles; row++) {
            uint64_t n = p->rows[q][row];
            uint64_t take = n;
            if (100 * (seen + n) > 99 * p->cycles)
                take = (99 * p->cycles + 99) / 100 - seen;
            seen += n;
            if (median == PROBE_ROWS && 2 * seen >= p->cycles)
                median = row;
            kept += take;
            kept_ticks += (double)take * ((double)row + 0.5) * PROBE_ROW_TICKS;
        }
        fprintf(
            stderr, "loop-probe cpu %d %s mean_ns %.1f median_ns %.1f mean99_ns %.1f cycles %llu\n",
            cpu, name[q], (double)p->sum[q] / (double)p->cycles * ns_per_tick,
            ((double)median + 0.5) * PROBE_ROW_TICKS * ns_per_tick,
            kept ? kept_ticks / (double)kept * ns_per_tick : 0.0, (unsigned long long)p->cycles);
    }
    free(p);
}

/* What the loop calls: with LOOP_PROBE, a probe made before the first
 * cycle and reported after the last... */
#define LOOP_PROBE_BEGIN()     struct loop_probe *probe_ = loop_probe_start()
#define LOOP_PROBE_MARK(mark)  loop_probe_mark(probe_, (mark))
#define LOOP_PROBE_CYCLE()     loop_probe_cycle(probe_)
#define LOOP_PROBE_REPORT(cpu) loop_probe_report(probe_, (cpu))

#else

/* ...and without it, nothing: the product's loop is compiled as if the
 * probe did not exist. */
#define LOOP_PROBE_BEGIN()     ((void)0)
#define LOOP_PROBE_MARK(mark)  ((void)0)
#define LOOP_PROBE_CYCLE()     ((void)0)
#define LOOP_PROBE_REPORT(cpu) ((void)0)

#endif

#endif
