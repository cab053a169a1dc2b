/*
 * Running a checked experiment plan: each planned run in order, with its
 * step's before and after commands (sh -c), as a child `jitterlab run`
 * writing DIR/.STEP-REPEAT.json.part, renamed to STEP-REPEAT.json only
 * when the run finished (exit 0 or 3 and a document that says it was not
 * interrupted); then compare.json and report.html through the compare and
 * report subcommands. It prints nothing: the caller (cmd/experiment.c)
 * hears of every run through struct runner_ops and saves experiment.json.
 */
#ifndef JITTERLAB_EXPERIMENT_RUNNER_H
#define JITTERLAB_EXPERIMENT_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "experiment/child.h"
#include "experiment/plan.h"

/* A before or after command may take this long, then it is stopped. */
#define RUNNER_HOOK_LIMIT_NS (INT64_C(600) * 1000000000)
/* A child that got SIGINT (Ctrl-C, its time limit) is SIGKILLed this much later. */
#define RUNNER_GRACE_NS (INT64_C(30) * 1000000000)

enum run_status { RUN_NOT_RUN, RUN_DONE, RUN_FAILED, RUN_INTERRUPTED, RUN_SKIPPED };
/* "not-run", "done", "failed", "interrupted", "skipped" */
const char *run_status_name(enum run_status s);

struct run_record {
    int index; /* into plan->run */
    enum run_status status;
    char started_at[40]; /* RFC 3339, when the run (else its before) started */
    bool run_started;    /* the jitterlab run child was started */
    struct child_result run;
    struct child_result before, after; /* started = false: none */
    char file[PLAN_NAME_MAX + 32];     /* "STEP-REPEAT.json" when done, else "" */
    char why[600];                     /* why there is no file, else "" */
};

struct runner_config {
    const struct experiment_plan *plan;
    const char *dir;         /* the experiment directory */
    const char *exe;         /* this program: "/proc/self/exe" */
    const char *exe_path;    /* its file, $JITTERLAB in before and after */
    bool quiet;              /* children's stdout to /dev/null */
    const int64_t *limit_ns; /* per step: a run is stopped after this long */
};

struct runner_ops {
    void *ctx;
    /* The result document at path: 0 finished (interrupted: false), 1
     * interrupted, -1 unreadable, with why. */
    int (*judge)(void *ctx, const char *path, char *why, size_t whylen);
    /* A run begins (argv: its full command line) or has ended. */
    void (*started)(void *ctx, const struct run_record *r, char *const *argv);
    void (*ended)(void *ctx, const struct run_record *r);
};

/* "STEP-REPEAT.json" of planned run i. */
void runner_file_name(const struct experiment_plan *plan, int i, char *buf, size_t len);
/* The argv of planned run i: exe, "run", the step's words, --json
 * DIR/.STEP-REPEAT.json.part, and an option per saved output (--samples
 * DIR/.STEP-REPEAT.samples.csv.part, ...). 0, or -1 (out of memory). */
int runner_run_argv(const struct runner_config *cfg, int i, struct words *argv);

/* Makes the planned runs i with todo[i], in plan order, settling between
 * two of them; records[i] describes each run made. Returns true when a stop
 * request ended the experiment early (the run it hit has run its after). */
bool runner_run(const struct runner_config *cfg, const bool *todo, struct run_record *records,
                const struct runner_ops *ops);

enum output_status { OUTPUT_DONE, OUTPUT_FAILED, OUTPUT_NOT_RUN };
/* "done", "failed", "not-run" */
const char *output_status_name(enum output_status s);

struct output_record {
    enum output_status status;
    char why[600];
    struct words argv; /* the command, run in DIR */
};

enum runner_output { OUTPUT_COMPARE, OUTPUT_REPORT };

/* The command of compare.json (grouped by step, the first step the
 * baseline) or of report.html (with compare.json when with_compare) from
 * the finished runs (have[i]: STEP-REPEAT.json exists), to be run in DIR.
 * false, with out->why, when there is nothing to compare or report. */
bool runner_output_plan(const struct runner_config *cfg, enum runner_output which, const bool *have,
                        bool with_compare, struct output_record *out);
/* Runs that command (compare prints its table unless quiet). */
void runner_output_run(const struct runner_config *cfg, enum runner_output which,
                       struct output_record *out);

#endif
