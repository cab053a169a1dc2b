/*
 * The document of `jitterlab rendezvous --json` (kind "rendezvous"): the
 * common header, the configuration, the clock, and per layout its timeouts,
 * per-CPU loop-exit and total statistics, medians over CPUs and ratios to
 * packed. struct rendezvous_report is what cmd hands to this writer and to
 * the text and CSV writers (text_rendezvous.h).
 */
#ifndef JITTERLAB_OUT_JSON_RENDEZVOUS_H
#define JITTERLAB_OUT_JSON_RENDEZVOUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "crosscpu/rendezvous.h"
#include "crosscpu/rendezvous_stats.h"
#include "crosscpu/timebase.h"
#include "sys/system_info.h"

struct rendezvous_report {
    const struct system_info *si;
    const char *version;
    int argc;
    char **argv; /* from the subcommand's name on */
    const char *started_at;
    double duration_s;
    bool interrupted;
    bool realtime;
    const int *cpus; /* cpus[0] was the master */
    int ncpu;
    long rendezvous;
    long iterations;
    const enum rv_layout *layouts;
    int nlayouts;
    long batches;
    const char *policy; /* as asked: "fifo" or "other" */
    long priority;      /* 0 with --policy other */
    const struct timebase *tb;
    int64_t deadline_ns;
    const struct rv_stats *stats;
};

json_t *json_rendezvous_document(const struct rendezvous_report *rep);

#endif
