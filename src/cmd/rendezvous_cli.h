/*
 * The options of `jitterlab rendezvous`, parsed without reading the machine
 * (src/cmd/rendezvous.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_RENDEZVOUS_CLI_H
#define JITTERLAB_CMD_RENDEZVOUS_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/options.h"
#include "crosscpu/rendezvous.h"

#define RENDEZVOUS_DEFAULT_COUNT      1000
#define RENDEZVOUS_MAX_COUNT          1000000
#define RENDEZVOUS_MAX_RECORDS        20000000L /* rendezvous x CPUs: ~340 MB of records */
#define RENDEZVOUS_DEFAULT_ITERATIONS 5
#define RENDEZVOUS_MAX_ITERATIONS     1000
#define RENDEZVOUS_DEFAULT_BATCHES    10
#define RENDEZVOUS_MAX_BATCHES        1000
#define RENDEZVOUS_DEFAULT_PRIORITY   CLI_SCHED_DEFAULT_PRIORITY

struct rendezvous_params {
    struct cli_common common; /* cpus empty: every online CPU */
    long count;               /* -n: rendezvous */
    long iterations;
    enum rv_layout layouts[RV_LAYOUT_COUNT]; /* in the order given */
    int nlayouts;
    const char *layout_text; /* NULL: the default list */
    long batches;
    struct cli_sched sched; /* --policy, --priority */
    const char *csv_path;
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int rendezvous_parse_args(int argc, char **argv, struct rendezvous_params *p);

#endif
