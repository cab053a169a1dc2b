/*
 * The figures of a `jitterlab tsc` document (kind "tsc", see
 * docs/result-schema.md): the CPU flags, the clocksources, what the kernel
 * log says, the warp test per pair, the offsets and rates per CPU, and the
 * verdict. The header, system and config objects are the command's.
 */
#ifndef JITTERLAB_OUT_JSON_TSC_H
#define JITTERLAB_OUT_JSON_TSC_H

#include <jansson.h>

#include "crosscpu/tsc_verdict.h"

/* Adds "flags", "clocksource", "kernel", "warp", "offsets", "rates",
 * "rate_summary" and "verdict" to doc. */
void json_tsc_figures(json_t *doc, const struct tsc_static *st, const struct tsc_results *r,
                      const struct tsc_verdict *v);

#endif
