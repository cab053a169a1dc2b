/*
 * The tail analysis for people: per CPU entry the verdict (an estimate, or
 * "cannot estimate: REASON" with what to do), the threshold and its
 * exceedances, shape and scale with their intervals and what the shape
 * means, the latencies at the asked probabilities, the budget's
 * exceedance per cycle, hour and year, and the checks with their
 * statistics and p values. `jitterlab tail` prints it; `run --tail` prints
 * the same lines at the end of its summary.
 */
#ifndef JITTERLAB_OUT_TEXT_TAIL_H
#define JITTERLAB_OUT_TEXT_TAIL_H

#include <stdio.h>

#include "out/json_tail.h"

void text_tail(FILE *out, const struct tail_config *cfg, const struct tail_result *cpus,
               const int *cpu_ids, size_t n, const struct tail_result *all);

#endif
