/*
 * The comparison for people: per non-baseline arm its verdict, then per CPU
 * entry (all CPUs first; single CPUs when there are several) a table of
 * every metric with both values, the ratio, its interval, the test and the
 * verdict; ratios in red (worse) and green (better) on a terminal.
 */
#ifndef JITTERLAB_OUT_TEXT_COMPARE_H
#define JITTERLAB_OUT_TEXT_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "out/json_compare.h"

void text_compare(FILE *out, const struct compare_input *in, int narms,
                  const struct arm_comparison *cmp, const struct compare_family *fam, bool colour);

#endif
