/*
 * The options of `jitterlab compare`, parsed without reading a file
 * (src/cmd/compare.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_COMPARE_CLI_H
#define JITTERLAB_CMD_COMPARE_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/options.h"
#include "compare/compare.h"

#define COMPARE_MAX_ARMS 32

struct compare_params {
    struct cli_common common;
    int narms;
    int nfiles[COMPARE_MAX_ARMS];
    const char *files[COMPARE_MAX_ARMS][COMPARE_MAX_RUNS_PER_ARM];
    /* a doctor.json's final state runs, in place of the document (heap) */
    char *owned[COMPARE_MAX_ARMS][COMPARE_MAX_RUNS_PER_ARM];
    int nowned[COMPARE_MAX_ARMS];
    const char *doctor_doc[COMPARE_MAX_ARMS]; /* the doctor.json an arm came from; NULL */
    bool grouped;                             /* --group given: each arm a comma-separated list */
    int nlabels;
    const char *labels[COMPARE_MAX_ARMS];
    char *group_text[COMPARE_MAX_ARMS]; /* copies split in place */
    double alpha;
    int64_t budget_ns;        /* -1: the baseline's own */
    double fail_if_worse_pct; /* < 0: off */
    uint64_t seed;
    int reps;
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int compare_parse_args(int argc, char **argv, struct compare_params *p);
void compare_params_free(struct compare_params *p);

#endif
