/*
 * The options of `jitterlab doctor`, parsed without touching the machine
 * (src/cmd/doctor.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_DOCTOR_CLI_H
#define JITTERLAB_CMD_DOCTOR_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/options.h"

#define DOCTOR_MAX_LOADS 16

struct doctor_params {
    struct cli_common common;
    int64_t budget_ns;   /* 0: not given (--from: the result's spike threshold) */
    int64_t interval_ns; /* 0: run's default */
    int64_t duration_ns;
    const char *interval_text, *duration_text, *budget_text;
    const char *workload_text;
    const char *load_text[DOCTOR_MAX_LOADS];
    int nloads;
    const char *out_dir;   /* -o */
    const char *from;      /* --from RESULT.json: diagnose a run already made */
    bool apply;            /* --apply: treat, through the tune journal */
    int repeat;            /* --repeat: A/B rounds of each treatment (0: not given) */
    bool keep_neutral;     /* --keep-neutral: keep a change with no difference */
    const char *only_text; /* --only ACTIONS: the tune actions the treatment may try */
    uint32_t only_mask;    /* their bits in tune_actions[]; 0: every one prescribed */
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int doctor_parse_args(int argc, char **argv, struct doctor_params *p);

#endif
