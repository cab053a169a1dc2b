/*
 * `jitterlab noise` options: the usage text, the table and every check that
 * needs nothing of the machine.
 */
#include "cmd/noise_cli.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "common/units.h"
#include "noise/noise.h"
#include "noise/noise_causes.h"
#include "out/text_many.h"

static void noise_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab noise [options]\n"
            "\n"
            "Measures what takes a busy CPU away: one pinned thread per CPU spins reading the\n"
            "clock, and every step between two reads longer than the threshold is a gap (an\n"
            "interrupt, a softirq, another thread, the hypervisor, an SMI). Prints per CPU the\n"
            "noise time and share of the run, the gaps' percentiles and the loop's own floor,\n"
            "and with tracepoints (root) the noise time by cause; without them, the causes\n"
            "per report window.\n"
            "\n"
            "  -a, --cpus LIST         CPUs to measure (default: the isolated CPUs, else every\n"
            "                          online CPU but the first)\n"
            "  -D, --duration DUR      how long (bare: seconds; default 10s)\n"
            "      --threshold DUR     shortest step that counts as noise (bare: us; default\n"
            "                          1us)\n"
            "      --policy P          other | fifo (default other: the kernel's own work\n"
            "                          still runs beside the loop)\n"
            "  -p, --priority N        SCHED_FIFO priority 1..99 with --policy fifo (default %d)\n"
            "      --runtime DUR       with --policy fifo: spin this long of every period, sleep\n"
            "                          the rest (default 950ms)\n"
            "      --period DUR        with --policy fifo: the period of those slices (default\n"
            "                          1s, at least 10ms)\n"
            "      --report-every DUR  report windows: noise share and longest gap per CPU\n"
            "                          (bare: seconds; default 1s, at least 100ms)\n"
            "      --largest N         longest gaps kept per CPU, with their causes (default\n"
            "                          %d)\n"
            "      --no-trace          no tracepoints: causes per report window only\n"
            "      --per-cpu           a summary row for every CPU (default: above %d CPUs,\n"
            "                          every CPU together, then the %d worst by longest gap)\n"
            "      --histogram-file FILE  cyclictest -h format: one row per us of gap length\n"
            "      --histogram-max DUR  rows of that file (bare: us; default 1000us)\n"
            "      --json FILE         the result (kind \"noise\")\n"
            "  -q, --quiet             print nothing but errors\n"
            "      --sysroot DIR       read /sys, /proc, /dev under DIR\n"
            "  -h, --help              this text\n"
            "\n"
            "Exit status: 0 measured (also when interrupted: the outputs hold what was\n"
            "measured), 1 the measurement failed, 2 bad input.\n",
            CLI_SCHED_DEFAULT_PRIORITY, NOISE_LARGEST_DEFAULT, TEXT_MANY_MAX_ROWS, TEXT_MANY_WORST);
}

enum {
    OPT_THRESHOLD = 256,
    OPT_RUNTIME,
    OPT_PERIOD,
    OPT_EVERY,
    OPT_LARGEST,
    OPT_NO_TRACE,
    OPT_PER_CPU,
    OPT_HIST,
    OPT_HIST_MAX,
};

static const struct option noise_options[] = {
    {"duration", required_argument, NULL, 'D'},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    CLI_OPTION_SCHED,
    {"runtime", required_argument, NULL, OPT_RUNTIME},
    {"period", required_argument, NULL, OPT_PERIOD},
    {"report-every", required_argument, NULL, OPT_EVERY},
    {"largest", required_argument, NULL, OPT_LARGEST},
    {"no-trace", no_argument, NULL, OPT_NO_TRACE},
    {"per-cpu", no_argument, NULL, OPT_PER_CPU},
    {"histogram-file", required_argument, NULL, OPT_HIST},
    {"histogram-max", required_argument, NULL, OPT_HIST_MAX},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

static int noise_option(void *params, int c, const char *arg)
{
    struct noise_params *p = params;
    int rc = cli_sched_option(&p->sched, c, arg);
    if (rc >= 0)
        return rc;
    switch (c) {
    case 'D':
        if ((rc = parse_positive_duration("--duration", arg, NS_PER_S, &p->duration_ns)) != 0)
            return rc;
        if (p->duration_ns > NOISE_MAX_DURATION_NS)
            return usage_error("--duration", arg, "must be at most 7 days");
        return 0;
    case OPT_THRESHOLD:
        if ((rc = parse_positive_duration("--threshold", arg, NS_PER_US, &p->threshold_ns)) != 0)
            return rc;
        if (p->threshold_ns > NOISE_MAX_THRESHOLD_NS)
            return usage_error("--threshold", arg, "must be at most 1s");
        return 0;
    case OPT_RUNTIME:
        p->runtime_set = true;
        return parse_positive_duration("--runtime", arg, NS_PER_US, &p->runtime_ns);
    case OPT_PERIOD:
        p->period_set = true;
        if ((rc = parse_positive_duration("--period", arg, NS_PER_US, &p->period_ns)) != 0)
            return rc;
        if (p->period_ns < NOISE_MIN_PERIOD_NS)
            return usage_error("--period", arg, "must be at least 10ms");
        return 0;
    case OPT_EVERY:
        if ((rc = parse_positive_duration("--report-every", arg, NS_PER_S, &p->report_every_ns)) !=
            0)
            return rc;
        if (p->report_every_ns < NOISE_MIN_EVERY_NS)
            return usage_error("--report-every", arg, "must be at least 100ms");
        return 0;
    case OPT_LARGEST:
        return parse_int_option("--largest", arg, 0, NOISE_LARGEST_MAX, &p->largest);
    case OPT_NO_TRACE:
        p->no_trace = true;
        return 0;
    case OPT_PER_CPU:
        p->per_cpu = true;
        return 0;
    case OPT_HIST:
        p->hist_path = arg;
        return 0;
    default: /* OPT_HIST_MAX */
        p->hist_max_set = true;
        if ((rc = parse_positive_duration("--histogram-max", arg, NS_PER_US, &p->hist_max_ns)) != 0)
            return rc;
        if (p->hist_max_ns < NS_PER_US || p->hist_max_ns > 10 * NS_PER_S)
            return usage_error("--histogram-max", arg, "must be from 1us to 10s");
        return 0;
    }
}

static const struct cli_command noise_cli = {
    "noise", noise_usage, "D:p:" CLI_COMMON_SHORT, noise_options, noise_option, NULL,
};

int noise_parse_args(int argc, char **argv, struct noise_params *p)
{
    memset(p, 0, sizeof(*p));
    p->duration_ns = NOISE_DEFAULT_DURATION_NS;
    p->threshold_ns = NOISE_DEFAULT_THRESHOLD_NS;
    p->runtime_ns = NOISE_DEFAULT_RUNTIME_NS;
    p->period_ns = NOISE_DEFAULT_PERIOD_NS;
    p->report_every_ns = NOISE_DEFAULT_EVERY_NS;
    p->hist_max_ns = NOISE_DEFAULT_HIST_MAX_NS;
    p->largest = NOISE_LARGEST_DEFAULT;
    cli_sched_init(&p->sched);
    p->sched.fifo = false; /* noise's default: the kernel's work is not starved */
    int rc = cli_parse(&noise_cli, &p->common, p, argc, argv, 1, NULL);
    if (rc >= 0)
        return rc;
    if ((rc = cli_sched_finish(&p->sched)) != 0)
        return rc;
    if (!p->sched.fifo && (p->runtime_set || p->period_set))
        return usage_error(p->runtime_set ? "--runtime" : "--period", NULL,
                           "has no meaning with --policy other (the loop never sleeps)");
    if (p->runtime_ns > p->period_ns) {
        char r[32], q[32];
        format_duration_arg(p->runtime_ns, r, sizeof r);
        format_duration_arg(p->period_ns, q, sizeof q);
        char why[128];
        snprintf(why, sizeof why, "must not be longer than --period (%s)", q);
        return usage_error("--runtime", r, why);
    }
    if (p->hist_max_set && !p->hist_path)
        return usage_error("--histogram-max", NULL, "needs --histogram-file");
    if (p->threshold_ns >= p->report_every_ns)
        return usage_error("--threshold", NULL, "must be shorter than --report-every");
    return -1;
}
