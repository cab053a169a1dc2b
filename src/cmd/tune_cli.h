/*
 * The options of `jitterlab tune VERB`, parsed without touching the machine
 * (src/cmd/tune.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_TUNE_CLI_H
#define JITTERLAB_CMD_TUNE_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/options.h"

struct tune_params {
    struct cli_common common; /* cpus empty: the default CPUs; no --json */
    const char *verb;         /* apply, restore, status or hold */
    const char *profile;
    const char *only;
    uint32_t actions; /* apply and hold: the --only list, else the profile's */
    int64_t budget_ns;
    int64_t freq_khz;
    int boost; /* -1 leave, 0 off, 1 on */
    bool dry_run;
    int64_t duration_ns;    /* hold: 0 = until Ctrl-C */
    const char *state_path; /* --state, else $JITTERLAB_TUNE_STATE, else the default */
    /* cache-partition: 0 / NULL = its defaults */
    int cache_ways;
    const char *cache_group;
    int mba_pct;
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int tune_parse_args(int argc, char **argv, struct tune_params *p);

#endif
