/*
 * The options of `jitterlab inspect`, parsed without reading the machine
 * (src/cmd/inspect.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_INSPECT_CLI_H
#define JITTERLAB_CMD_INSPECT_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/options.h"

struct inspect_params {
    struct cli_common common; /* cpus empty: the default CPUs */
    int64_t budget_ns;
    bool strict;
    int64_t measure_ns;  /* --measure: 0 = no measurement */
    int64_t interval_ns; /* -i/--interval of the measurement; 0 = not given */
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int inspect_parse_args(int argc, char **argv, struct inspect_params *p);

#endif
