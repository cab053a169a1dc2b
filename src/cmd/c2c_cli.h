/*
 * The options of `jitterlab c2c`, parsed without reading the machine
 * (src/cmd/c2c.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_C2C_CLI_H
#define JITTERLAB_CMD_C2C_CLI_H

#include <stdbool.h>

#include "cmd/options.h"
#include "crosscpu/c2c.h"

#define C2C_DEFAULT_ROUND_TRIPS 10000
#define C2C_DEFAULT_ROUNDS      3
#define C2C_DEFAULT_PRIORITY    CLI_SCHED_DEFAULT_PRIORITY
#define C2C_MAX_ROUND_TRIPS     1000000 /* 8 MB of samples */
#define C2C_MAX_ROUNDS          1000

struct c2c_params {
    struct cli_common common; /* cpus empty: every online CPU */
    enum c2c_mode mode;
    int round_trips; /* -n: timed per round */
    int rounds;
    struct cli_sched sched; /* --policy, --priority */
    const char *csv_path;
    bool per_cpu; /* --per-cpu: the matrix however many CPUs */
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int c2c_parse_args(int argc, char **argv, struct c2c_params *p);

#endif
