/*
 * The options of `jitterlab tail`, parsed without reading a file
 * (src/cmd/tail.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_TAIL_CLI_H
#define JITTERLAB_CMD_TAIL_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/options.h"
#include "stats/tail.h"

#define TAIL_MAX_RESULTS        32
#define TAIL_DEFAULT_CONFIDENCE 0.95

struct tail_params {
    struct cli_common common; /* --cpus, -q, --json */
    int nresults;
    const char *results[TAIL_MAX_RESULTS];
    int64_t budget_ns;     /* -1: the first result's config.budget_ns, if any */
    int64_t threshold_ns;  /* -1: chosen by the ladder */
    size_t nprobabilities; /* 0: the defaults 1e-6, 1e-9, 1e-12 */
    double probabilities[TAIL_MAX_PROBABILITIES];
    const char *samples_path;
    double confidence;
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int tail_parse_args(int argc, char **argv, struct tail_params *p);

#endif
