/*
 * The options of `jitterlab load`, parsed without starting anything
 * (src/cmd/load.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_LOAD_CLI_H
#define JITTERLAB_CMD_LOAD_CLI_H

#include <stdint.h>

#include "cmd/options.h"
#include "load/load.h"

struct load_params {
    struct cli_common common; /* cpus empty: the default CPUs */
    const char *kind_text;    /* the KIND argument, parsed once the machine is read */
    int64_t duration_ns;
    struct load_sched sched;
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int load_parse_args(int argc, char **argv, struct load_params *p);

#endif
