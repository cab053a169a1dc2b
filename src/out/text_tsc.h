/*
 * What `jitterlab tsc` prints: the flags, clocksources, tsc= values and the
 * kernel's TSC lines, the warp table per pair, the offset table and the
 * rate per CPU, then the verdict with its reasons and notes; and the CSV of
 * --csv (one row per pair of the warp test).
 */
#ifndef JITTERLAB_OUT_TEXT_TSC_H
#define JITTERLAB_OUT_TEXT_TSC_H

#include <stdbool.h>
#include <stdio.h>

#include "crosscpu/tsc_verdict.h"

struct tsc_text {
    const struct tsc_static *st;
    const struct tsc_results *r;
    const struct tsc_verdict *v;
    const char *cpus_text; /* "0-1" */
    const char *clock;     /* the deadlines' clock: "tsc" or "monotonic" */
    bool realtime;
};

void tsc_text_print(FILE *out, const struct tsc_text *t);
void tsc_csv_write(FILE *out, const struct tsc_results *r);

#endif
