/*
 * The exporter's page: the metrics of metrics.h in the Prometheus text
 * exposition format 0.0.4, or in OpenMetrics 1.0 (counter families named
 * without `_total`, an info family, `# EOF`). Pure: writes to a stream.
 */
#ifndef JITTERLAB_EXPORT_PROM_TEXT_H
#define JITTERLAB_EXPORT_PROM_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "export/metrics.h"

#define PROM_TEXT_CONTENT_TYPE   "text/plain; version=0.0.4; charset=utf-8"
#define PROM_OPENMETRICS_CONTENT "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* Whether an Accept header asks for OpenMetrics (NULL: no). */
bool prom_accepts_openmetrics(const char *accept);
/* Writes the page; returns 0 or -1 on a write error. */
int prom_render(FILE *out, const struct metrics_config *cfg, const struct metrics_cpu *cpus,
                int ncpu, bool openmetrics);

#endif
