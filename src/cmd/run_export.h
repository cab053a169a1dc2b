/*
 * What `run` hands to the monitoring systems while it goes on: the
 * Prometheus exporter's figures (export/metrics.h) and server, and the
 * InfluxDB points (export/influx.h). The collector feeds both through the
 * run's sinks; nothing here runs on a measured CPU.
 */
#ifndef JITTERLAB_CMD_RUN_EXPORT_H
#define JITTERLAB_CMD_RUN_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/run_cli.h"
#include "engine/collector.h"
#include "engine/engine.h"
#include "export/exporter.h"
#include "export/influx.h"
#include "export/metrics.h"
#include "sys/system_info.h"
#include "trace/explain.h"

struct run_export {
    bool metrics_on;
    struct metrics metrics;
    struct exporter *exporter;
    struct influx *influx;
    struct influx_counts influx_counts; /* after run_export_close */
    int64_t deadline_ns;
    int64_t telemetry_period_ns;
    int64_t unix_start_ns; /* CLOCK_REALTIME of planned wake-up 0 */
    struct engine *eng;
    const struct explain *explain; /* NULL: no --explain */
};

/* Before the engine starts: figures, server, destination. 0, or -1 after
 * the message (naming the option). */
int run_export_open(struct run_export *x, const struct run_params *p, const struct system_info *si);
/* The run started (planned wake-up 0 at start_ns, CLOCK_MONOTONIC). */
void run_export_started(struct run_export *x, struct engine *eng, const struct explain *explain);
void run_export_sample(struct run_export *x, int i, const struct cycle_sample *s);
void run_export_window(struct run_export *x, const struct interval_stats *w,
                       const struct latency_hist *h);
void run_export_telemetry(struct run_export *x, int i, const struct telemetry_window *w);
/* After each drain pass: publish the figures, hand the points over. */
void run_export_drained(struct run_export *x);
/* SIGHUP: the InfluxDB file is reopened. */
void run_export_reopen(struct run_export *x);
/* Ends the server and sends what is left. */
void run_export_close(struct run_export *x);

#endif
