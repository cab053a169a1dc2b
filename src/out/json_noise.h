/*
 * The `jitterlab noise` document (kind "noise", docs/result-schema.md):
 * per CPU the noise time and share, the gaps' statistics and histogram in
 * the shapes `run` uses for latency, the report windows, the causes and
 * the longest gaps; every CPU together in "all".
 */
#ifndef JITTERLAB_OUT_JSON_NOISE_H
#define JITTERLAB_OUT_JSON_NOISE_H

#include <jansson.h>

#include "out/noise_report.h"

json_t *json_noise_result(const struct noise_report *rep);

#endif
