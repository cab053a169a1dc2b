/*
 * An experiment file, read and checked before anything runs: the INI text
 * (libinih, through a line reader of our own that numbers the lines, since
 * this libinih's handler gets no line number) becomes a struct
 * experiment_plan: the [experiment] settings, one step per [step NAME] with
 * its `jitterlab run` argv, and the planned runs in order. Every error names
 * the file and line; the caller prints it and exits 2. The order planner is
 * a pure function, so tests pin both orders.
 */
#ifndef JITTERLAB_EXPERIMENT_PLAN_H
#define JITTERLAB_EXPERIMENT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare/compare.h"
#include "experiment/words.h"

#define PLAN_MAX_STEPS 16
#define PLAN_NAME_MAX  64 /* characters of an experiment or step name */
/* Every repeat of a step is one file of its compare group. */
#define PLAN_MAX_REPEAT     COMPARE_MAX_RUNS_PER_ARM
#define PLAN_DEFAULT_REPEAT 3
#define PLAN_MAX_SETTLE_NS  (INT64_C(3600) * 1000000000)
/* The experiment file, at most; experiment files are a few hundred bytes. */
#define PLAN_MAX_FILE_BYTES (1024 * 1024)

/* The keys of a [step NAME] section, in the order of plan_step_keys[]. */
enum plan_step_key {
    STEP_RUN,
    STEP_LOAD,
    STEP_TUNE,
    STEP_BEFORE,
    STEP_AFTER,
    STEP_SAVE,
    STEP_NKEYS
};
extern const char *const plan_step_keys[STEP_NKEYS];

/* What `save` may name: a run output written once per run, as
 * DIR/STEP-REPEAT.SUFFIX, by the run option (which a step's run may not
 * give itself: one path for every run would keep only the last run's). */
struct plan_save_kind {
    const char *word;   /* in save = ... */
    const char *option; /* of jitterlab run */
    const char *suffix; /* of the file */
};
enum plan_save { SAVE_SAMPLES, SAVE_HISTOGRAM, SAVE_INTERVALS, PLAN_SAVE_KINDS };
extern const struct plan_save_kind plan_save_kinds[PLAN_SAVE_KINDS];

struct plan_value {
    char *text; /* NULL when the key was not given */
    int line;
};

struct plan_step {
    char name[PLAN_NAME_MAX + 1];
    int line; /* of its [step NAME] header */
    struct plan_value key[STEP_NKEYS];
    /* "run", the words of run, "--load" KIND for each word of load, then
     * "--tune=TUNE": what `jitterlab run` gets, but --json. */
    struct words argv;
    int run_end;   /* argv.count after the words of run */
    int load_end;  /* argv.count after the --load pairs */
    unsigned save; /* bit k (enum plan_save): saved per run */
};

struct plan_run {
    int order;  /* 1, 2, ... in the order the runs are made */
    int step;   /* index into step[] */
    int repeat; /* 1 .. repeat */
};

struct experiment_plan {
    char name[PLAN_NAME_MAX + 1];
    int line; /* of the [experiment] header */
    int repeat;
    bool blocked; /* order = blocked: A A .. B B ..; else interleaved */
    int64_t settle_ns;
    int nsteps;
    struct plan_step step[PLAN_MAX_STEPS];
    int nruns;
    struct plan_run *run;
};

/* Parses and checks the experiment text (len bytes) read from file (the
 * name used in messages). 0, or -1 with "FILE:LINE: why" in err; the plan
 * is empty (plan_free is harmless) either way on error. */
int plan_parse(const char *text, size_t len, const char *file, struct experiment_plan *plan,
               char *err, size_t errlen);
void plan_free(struct experiment_plan *plan);

/* The runs of nsteps steps repeated repeat times: interleaved (A1 B1 A2
 * B2 ...) or blocked (A1 A2 ... B1 B2 ...). out holds nsteps * repeat
 * entries. */
void plan_order(int nsteps, int repeat, bool blocked, struct plan_run *out);

/* name is 1..PLAN_NAME_MAX characters of [A-Za-z0-9_.-], the first a
 * letter or digit. */
bool plan_name_valid(const char *name, size_t len);

#endif
