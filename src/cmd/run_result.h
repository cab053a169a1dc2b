/*
 * The result of `jitterlab run` put together from what the run holds: at
 * the end from the engine's exact per-CPU results, and while it goes on
 * (SIGUSR1) from the collector's running copy. One function fills the
 * report either way, so a result written early reads like the last one.
 */
#ifndef JITTERLAB_CMD_RUN_RESULT_H
#define JITTERLAB_CMD_RUN_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/run_cli.h"
#include "cmd/run_export.h"
#include "engine/collector.h"
#include "engine/engine.h"
#include "inspect/inspect_system.h"
#include "load/load.h"
#include "out/report.h"
#include "out/run_stream.h"
#include "sys/system_info.h"
#include "telemetry/run_telemetry.h"
#include "trace/explain.h"
#include "tune/session.h"

/* Everything a result is made of; pointers NULL where not in use. */
struct run_state {
    struct run_params *p;
    int argc;
    char **argv;
    const struct system_info *si;
    const struct inspect_system *machine;
    struct engine *eng;
    struct collector *c;
    struct telemetry *tele;
    struct run_telemetry *rtele;
    struct explain *explain;
    const char *explain_reason;
    const struct tune_summary *tune;
    const struct load_sched *load_sched;
    struct load_runner *loads;
    struct latency_hist *all_hist; /* 3: latency, exec, response */
    struct run_stream *rs;
    struct run_export *exp;
    bool pm_held;
    char started_at[40];
    bool running;                                        /* the engine started */
    const struct waker_result *wakers[CPULIST_MAX_CPUS]; /* --wake MECH: the report's */
};

/* Fills rep from st with the per-CPU results given (ncpu of them).
 * in_progress: written while the run goes on. */
void run_result_fill(struct run_state *st, struct run_report *rep,
                     const struct cpu_result **results, int64_t end_ns, bool interrupted,
                     bool in_progress);
/* --json and --histogram-file, and commits the streamed files. */
int run_result_write(const struct run_params *p, struct run_stream *rs,
                     const struct run_report *rep);
/* SIGUSR1: the result so far, to --json (else the summary to stdout). */
void run_result_write_now(struct run_state *st);
/* The final exit code from the outputs, the budget and the restore. */
int run_result_verdict(const struct run_params *p, const struct run_report *rep, int out_rc,
                       int tune_rc);

#endif
