/*
 * What the collector of a run feeds, wired in one place: the output stream
 * (live view, samples and intervals files), --explain, the telemetry
 * windows and the exporters, and after every drain pass the requests of a
 * run without an end (reopen the logs, write the result so far). `run`
 * and the collector benchmark (bench/collector) use the same wiring.
 */
#ifndef JITTERLAB_CMD_RUN_SINKS_H
#define JITTERLAB_CMD_RUN_SINKS_H

#include <stdint.h>

#include "cmd/run_export.h"
#include "cmd/run_result.h"
#include "cmd/run_tail_watch.h"
#include "engine/collector.h"
#include "sys/cpulist.h"
#include "telemetry/run_telemetry.h"
#include "trace/explain.h"

/* The collector's sinks: the output stream's, and --explain and the
 * telemetry windows beside them. index_of_cpu maps a CPU id to its
 * measured index. */
struct run_sinks {
    struct collector_sinks stream;
    struct explain *explain;         /* NULL: no --explain */
    struct run_telemetry *telemetry; /* NULL: --no-telemetry */
    struct run_export *exp;
    struct run_state *st;
    /* --until-confident, --tail --prometheus: NULL without; it takes the
     * report windows' maxima when the run has them, else the telemetry's */
    struct tail_watch *watch;
    bool watch_report_windows;
    int index_of_cpu[CPULIST_MAX_CPUS];
};

/* The sinks to give collector_init; tick_period_ns: the telemetry's. */
struct collector_sinks run_sinks_of(struct run_sinks *r, int64_t tick_period_ns);
/* run_telemetry's on_window: a closed telemetry window to the exporters. */
void run_sink_telemetry_window(void *ctx, int i, const struct telemetry_window *w);

#endif
