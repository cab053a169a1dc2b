/*
 * The options of `jitterlab noise`, parsed without reading the machine
 * (src/cmd/noise_cli.c), so that unit tests can call the parser.
 */
#ifndef JITTERLAB_CMD_NOISE_CLI_H
#define JITTERLAB_CMD_NOISE_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/options.h"

#define NOISE_DEFAULT_DURATION_NS  (10 * INT64_C(1000000000))
#define NOISE_DEFAULT_THRESHOLD_NS INT64_C(1000)
#define NOISE_DEFAULT_RUNTIME_NS   (950 * INT64_C(1000000))
#define NOISE_DEFAULT_PERIOD_NS    INT64_C(1000000000)
#define NOISE_DEFAULT_EVERY_NS     INT64_C(1000000000)
#define NOISE_MIN_EVERY_NS         (100 * INT64_C(1000000))
#define NOISE_MAX_DURATION_NS      (7 * 24 * 3600 * INT64_C(1000000000))
#define NOISE_MAX_THRESHOLD_NS     INT64_C(1000000000)
#define NOISE_MIN_PERIOD_NS        (10 * INT64_C(1000000))
#define NOISE_DEFAULT_HIST_MAX_NS  (1000 * INT64_C(1000))

struct noise_params {
    struct cli_common common; /* cpus: as given, then as chosen */
    int64_t duration_ns;
    int64_t threshold_ns;
    struct cli_sched sched; /* --policy (default other), --priority */
    int64_t runtime_ns, period_ns;
    bool runtime_set, period_set;
    int64_t report_every_ns;
    const char *hist_path;
    int64_t hist_max_ns;
    bool hist_max_set;
    long largest;
    bool no_trace;
    bool per_cpu; /* --per-cpu: a summary row for every CPU, however many */
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int noise_parse_args(int argc, char **argv, struct noise_params *p);

#endif
