/*
 * What experiment.json says beyond the common header (built by the caller):
 * the plan, the sessions (the first invocation and each --resume), every
 * planned run in order with its latest attempt, the history of every
 * attempt ever made, and how compare.json and report.html came about. The
 * record is kept as jansson objects, so that --resume carries the earlier
 * sessions' entries over as they were written.
 */
#ifndef JITTERLAB_EXPERIMENT_RECORD_H
#define JITTERLAB_EXPERIMENT_RECORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "experiment/plan.h"
#include "experiment/runner.h"

struct experiment_record {
    const struct experiment_plan *plan;
    json_t *sessions; /* array */
    json_t *history;  /* array, every attempt in the order made */
    json_t **runs;    /* plan->nruns entries: the latest attempt, never NULL */
    json_t *compare, *report;
};

/* A new experiment: every run "not-run". 0 or -1 (out of memory). */
int record_init(struct experiment_record *r, const struct experiment_plan *plan);
/* --resume: sessions, history and the runs' entries from an experiment.json
 * (doc) written for the same plan; have[i]: STEP-REPEAT.json exists, which
 * wins over what the entry says. 0, or -1 with why. */
int record_load(struct experiment_record *r, const struct experiment_plan *plan, json_t *doc,
                const bool *have, char *why, size_t whylen);
void record_free(struct experiment_record *r);

/* A session begins (argv: the experiment's own command line) / ends. */
void record_session_begin(struct experiment_record *r, int argc, char **argv,
                          const char *started_at, bool resume);
void record_session_end(struct experiment_record *r, const char *ended_at, bool interrupted,
                        int runs_made);
/* A run was made: its entry, and one more in the history. */
void record_run(struct experiment_record *r, const struct run_record *rec);
/* compare or report (key "compare" / "report"), file its output's name. */
void record_output(struct experiment_record *r, const char *key, const char *file, const char *dir,
                   const struct output_record *out);

/* Adds "plan", "summary", "sessions", "runs", "history", "compare" and
 * "report" to doc. */
void record_fill(const struct experiment_record *r, json_t *doc);
/* The "plan" object alone. */
json_t *record_plan_json(const struct experiment_plan *plan);
/* status of entry i ("done", ...). */
const char *record_run_status(const struct experiment_record *r, int i);

#endif
