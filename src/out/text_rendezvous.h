/*
 * What `jitterlab rendezvous` prints: a table per layout and CPU (loop-exit
 * and total min/median/p99/max), each layout's counts and medians over CPUs,
 * then one line per layout with its ratio to packed, the 95 % interval and
 * the batch ratios' spread, and below it what that lets one say (faster,
 * slower, no difference shown, or no conclusion: the interval against 1);
 * and the CSV of --csv, one row per layout and CPU.
 */
#ifndef JITTERLAB_OUT_TEXT_RENDEZVOUS_H
#define JITTERLAB_OUT_TEXT_RENDEZVOUS_H

#include <stdio.h>

#include "out/json_rendezvous.h"

void text_rendezvous(FILE *out, const struct rendezvous_report *rep);
void csv_rendezvous(FILE *out, const struct rendezvous_report *rep);
/* The conclusion line of one layout against packed, from the intervals of
 * its total and loop-exit ratios. */
void text_rendezvous_conclusion(FILE *out, const char *layout, const struct rv_ratio *total,
                                const struct rv_ratio *loop_exit);

#endif
