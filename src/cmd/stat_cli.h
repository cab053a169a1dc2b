/*
 * The options of `jitterlab stat`, parsed without reading the machine
 * (src/cmd/stat.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_STAT_CLI_H
#define JITTERLAB_CMD_STAT_CLI_H

#include <stdint.h>

#include "cmd/options.h"

#define STAT_DEFAULT_INTERVAL_NS INT64_C(1000000000)
#define STAT_MIN_INTERVAL_NS     INT64_C(10000000) /* 10 ms: the jiffy counters' resolution */
#define STAT_DEFAULT_KEEP        3600

struct stat_params {
    struct cli_common common; /* cpus empty: every online CPU */
    int64_t interval_ns;
    int64_t duration_ns; /* 0: until Ctrl-C */
    const char *csv_path;
    uint64_t keep_windows; /* CPU-intervals kept for --json */
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int stat_parse_args(int argc, char **argv, struct stat_params *p);

#endif
