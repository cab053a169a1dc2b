/*
 * The figures of a c2c document (kind "c2c", docs/result-schema.md): the
 * settings, the clock, the topology of each CPU, every ordered pair, the
 * matrix (row = from, column = to) the HTML report draws as a heat map, and
 * the summary per group. Latencies are one-way ns rounded to 0.1, null where
 * nothing was measured.
 */
#ifndef JITTERLAB_OUT_JSON_C2C_H
#define JITTERLAB_OUT_JSON_C2C_H

#include <jansson.h>

#include "crosscpu/c2c.h"

/* Adds config, clock, tsc_hz, realtime, interrupted, duration_s, timeouts,
 * topology, pairs, matrix and groups to doc (after its header and system). */
void json_c2c_fill(json_t *doc, const struct c2c_result *r);

#endif
