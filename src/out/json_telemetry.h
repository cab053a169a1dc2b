/*
 * Telemetry in documents: the figures of one CPU over one window and where
 * each figure came from, shared by `stat` (kind "stat") and the
 * `telemetry` array of a run. Absent figures are null; the reasons are in
 * the sources object.
 */
#ifndef JITTERLAB_OUT_JSON_TELEMETRY_H
#define JITTERLAB_OUT_JSON_TELEMETRY_H

#include <jansson.h>

#include "telemetry/telemetry.h"

/* Adds the figures' keys to obj: avg_mhz, busy_pct, ..., irq_by_source,
 * softirq_by_vector, idle. */
void json_telemetry_figures(json_t *obj, const struct telemetry_cpu_figures *f,
                            const struct telemetry *t);
/* {"avg_mhz": {"source": "cpuinfo"}, "bzy_mhz": {"source": null, "why": "..."}, ...} */
json_t *json_telemetry_sources(const struct telemetry *t);
/* {"avg_mhz": "cpuinfo", ...}: the present sources only, for each entry. */
json_t *json_telemetry_source_names(const struct telemetry *t);

#endif
