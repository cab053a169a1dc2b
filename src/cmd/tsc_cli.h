/*
 * The options of `jitterlab tsc`, parsed without reading the machine
 * (src/cmd/tsc.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_TSC_CLI_H
#define JITTERLAB_CMD_TSC_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/options.h"

#define TSC_DEFAULT_DURATION_NS INT64_C(2000000000)
#define TSC_DEFAULT_PRIORITY    CLI_SCHED_DEFAULT_PRIORITY

struct tsc_params {
    struct cli_common common; /* cpus empty: every online CPU */
    int64_t duration_ns;      /* the warp test's total, split over the pairs */
    struct cli_sched sched;   /* --policy, --priority */
    const char *csv_path;     /* the warp table, one row per pair */
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int tsc_parse_args(int argc, char **argv, struct tsc_params *p);

#endif
