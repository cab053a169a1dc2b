/*
 * inspect --measure: a short run on the target CPUs, read back into a
 * struct inspect_measurement for the verdict (src/inspect/inspect_rules.h).
 */
#ifndef JITTERLAB_CMD_INSPECT_MEASURE_H
#define JITTERLAB_CMD_INSPECT_MEASURE_H

#include <stdint.h>

#include "inspect/inspect_rules.h"

struct inspect_measure_spec {
    const char *exe;  /* this program: "/proc/self/exe" */
    const char *cpus; /* kernel list form */
    int64_t interval_ns, duration_ns, budget_ns;
};

/* Runs the measurement (polling the stop request, forwarding it). m->done
 * false with m->why when it could not run or left no result. */
void inspect_measure(const struct inspect_measure_spec *spec, struct inspect_measurement *m);

#endif
