/*
 * `jitterlab run` options (see run_cli.h): the getopt table and its handler
 * on top of the shared option layer (options.c), and the checks that need
 * the machine; the usage text is run_usage.c's.
 */
#include "cmd/run_cli.h"

#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run_deadline.h"
#include "crosscpu/tsc_check.h"
#include "tune/session.h"
#include "engine/counters.h"
#include "sys/cpulist.h"

enum {
    OPT_POLICY = 256,
    OPT_CLOCK,
    OPT_TOLERANCE,
    OPT_BUDGET,
    OPT_REPORT_EVERY,
    OPT_PM_QOS,
    OPT_HIST_FILE,
    OPT_HIST_MAX,
    OPT_SAMPLES,
    OPT_WORKLOAD,
    OPT_SEED,
    OPT_DEADLINE,
    OPT_COUNTERS,
    OPT_LOAD,
    OPT_TUNE,
    OPT_INTERVALS,
    OPT_KEEP_WINDOWS,
    OPT_WIDE,
    OPT_PER_CPU,
    OPT_EXPLAIN,
    OPT_EXPLAIN_KEEP,
    OPT_TELEMETRY,
    OPT_NO_TELEMETRY,
    OPT_FOREVER,
    OPT_PROMETHEUS,
    OPT_PROMETHEUS_BUCKETS,
    OPT_INFLUX,
    OPT_HISTFILE,
    OPT_TAIL,
    OPT_UNTIL_CONFIDENT,
    OPT_WAKE, /* --wake, --waker-cpu, --waker-priority: run_wake_cli.c */
    OPT_WAKER_CPU,
    OPT_WAKER_PRIORITY,
    OPT_RUNTIME,
    OPT_PERIOD,
};

/* cyclictest's options. Those that ask for what jitterlab always does are
 * taken with a note (run_cyclictest_notes); --histfile is the histogram
 * file, whose format is cyclictest's. Those that mean something else here,
 * or nothing, are refused with where their meaning went, so that a script
 * carried over from cyclictest fails loudly instead of measuring something
 * else. -h with a value is caught by the option layer (help_value_hint). */
#define RUN_HELP_VALUE_HINT                                                                        \
    "cyclictest's -h N (a histogram up to N us) is --histogram-file FILE --histogram-max N here"

static const struct cyclictest_flag {
    int c;
    const char *where;
} cyclictest_flags[] = {
    {'t', "cyclictest's -t (threads) has no equal here: one thread runs on each CPU of -a/--cpus"},
    {'b', "cyclictest's -b US (stop when a latency exceeds US) is --budget DUR here (exit 3), with "
          "--explain to name the cause"},
    {'H', "cyclictest's -H/--histofall US (its histogram with a column of all threads together) "
          "has no equal in the histogram file, which has a column per CPU: use --histogram-file "
          "FILE --histogram-max US; the JSON result's all.histogram holds every CPU together"},
    {'S', "cyclictest's -S/--smp (a thread on every CPU) is what jitterlab does: one thread on "
          "each CPU of -a/--cpus (default: the isolated CPUs, else every online CPU but CPU 0); "
          "drop -S, or name the CPUs with -a"},
    {'v', "cyclictest's -v/--verbose (every sample on stdout) is --samples FILE here (CSV: "
          "cpu,t_ns,latency_ns)"},
};

static int cyclictest_flag(int c)
{
    for (size_t i = 0; i < sizeof cyclictest_flags / sizeof cyclictest_flags[0]; i++)
        if (cyclictest_flags[i].c == c) {
            char opt[3] = {'-', (char)c, '\0'};
            return usage_error(opt, NULL, cyclictest_flags[i].where);
        }
    return -1;
}

void run_cyclictest_notes(const struct run_params *p, FILE *err)
{
    if (p->cyclictest_taken & RUN_CYCLICTEST_MLOCKALL)
        fprintf(err, "jitterlab: note: -m/--mlockall (cyclictest's) changes nothing: jitterlab "
                     "always locks its memory (the result's config.memory_lock says what was "
                     "locked)\n");
    if (p->cyclictest_taken & RUN_CYCLICTEST_NANOSLEEP)
        fprintf(err, "jitterlab: note: -n/--nanosleep (cyclictest's) changes nothing: jitterlab "
                     "always sleeps with clock_nanosleep to an absolute CLOCK_MONOTONIC time\n");
    if (p->cyclictest_taken & RUN_CYCLICTEST_HISTFILE)
        fprintf(err,
                "jitterlab: note: --histfile %s (cyclictest's) is --histogram-file %s here: "
                "cyclictest's -h format, one column per CPU, rows up to --histogram-max "
                "(cyclictest's -h N; default 1000us)\n",
                p->hist_path, p->hist_path);
}

/* --histfile and --histogram-file name one file; two different ones are
 * a mistake, not a choice of the last. */
static int set_hist_path(struct run_params *p, const char *opt, const char *arg)
{
    if (p->hist_path && strcmp(p->hist_path, arg) != 0)
        return usage_error(opt, arg,
                           "--histfile (cyclictest's) is --histogram-file here, and the other "
                           "names another file");
    p->hist_path = arg;
    return 0;
}

/* --pm-qos: a duration like every other time option (bare: us), 0 allowed
 * (the lowest latency), in whole microseconds since that is what
 * /dev/cpu_dma_latency takes, at most 2000 s. */
static int parse_pm_qos(const char *arg, int64_t *out_us)
{
    int64_t ns;
    const char *why;
    if (parse_duration_ns(arg, NS_PER_US, &ns, &why) != 0)
        return usage_error("--pm-qos", arg, why);
    if (ns % NS_PER_US != 0)
        return usage_error("--pm-qos", arg, "must be whole microseconds (the kernel takes us)");
    if (ns > 2000 * NS_PER_S)
        return usage_error("--pm-qos", arg, "must be at most 2000s");
    *out_us = ns / NS_PER_US;
    return 0;
}

static const struct option run_options[] = {
    {"interval", required_argument, NULL, 'i'},
    {"priority", required_argument, NULL, 'p'},
    {"policy", required_argument, NULL, OPT_POLICY},
    {"duration", required_argument, NULL, 'D'},
    {"loops", required_argument, NULL, 'l'},
    {"clock", required_argument, NULL, OPT_CLOCK},
    {"tolerance", required_argument, NULL, OPT_TOLERANCE},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"report-every", required_argument, NULL, OPT_REPORT_EVERY},
    {"pm-qos", required_argument, NULL, OPT_PM_QOS},
    {"histogram-file", required_argument, NULL, OPT_HIST_FILE},
    {"histogram-max", required_argument, NULL, OPT_HIST_MAX},
    {"samples", required_argument, NULL, OPT_SAMPLES},
    {"workload", required_argument, NULL, OPT_WORKLOAD},
    {"seed", required_argument, NULL, OPT_SEED},
    {"deadline", required_argument, NULL, OPT_DEADLINE},
    {"counters", required_argument, NULL, OPT_COUNTERS},
    {"load", required_argument, NULL, OPT_LOAD},
    {"tune", optional_argument, NULL, OPT_TUNE},
    {"intervals", required_argument, NULL, OPT_INTERVALS},
    {"keep-windows", required_argument, NULL, OPT_KEEP_WINDOWS},
    {"wide", no_argument, NULL, OPT_WIDE},
    {"per-cpu", no_argument, NULL, OPT_PER_CPU},
    {"explain", optional_argument, NULL, OPT_EXPLAIN},
    {"explain-keep", required_argument, NULL, OPT_EXPLAIN_KEEP},
    {"telemetry", required_argument, NULL, OPT_TELEMETRY},
    {"no-telemetry", no_argument, NULL, OPT_NO_TELEMETRY},
    {"forever", no_argument, NULL, OPT_FOREVER},
    {"prometheus", required_argument, NULL, OPT_PROMETHEUS},
    {"prometheus-buckets", required_argument, NULL, OPT_PROMETHEUS_BUCKETS},
    {"influx", required_argument, NULL, OPT_INFLUX},
    {"tail", no_argument, NULL, OPT_TAIL},
    {"until-confident", required_argument, NULL, OPT_UNTIL_CONFIDENT},
    {"wake", required_argument, NULL, OPT_WAKE},
    {"waker-cpu", required_argument, NULL, OPT_WAKER_CPU},
    {"waker-priority", required_argument, NULL, OPT_WAKER_PRIORITY},
    {"runtime", required_argument, NULL, OPT_RUNTIME},
    {"period", required_argument, NULL, OPT_PERIOD},
    /* cyclictest's long options (see cyclictest_flags and run_cyclictest_notes) */
    {"mlockall", no_argument, NULL, 'm'},
    {"nanosleep", no_argument, NULL, 'n'},
    {"histfile", required_argument, NULL, OPT_HISTFILE},
    {"histofall", optional_argument, NULL, 'H'},
    {"smp", no_argument, NULL, 'S'},
    {"verbose", no_argument, NULL, 'v'},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* --report-every: a duration read as -D reads it (a bare number is seconds:
 * "1" is one second, never one sample), or a count of samples per CPU with
 * its unit spelled out ("1000samples"). The last one given wins. */
static int parse_report_every(const char *arg, struct run_params *p)
{
    static const char unit[] = "samples";
    size_t n = strlen(arg), u = sizeof unit - 1;
    if (n > u && strcmp(arg + n - u, unit) == 0) {
        char count[24];
        long v;
        const char *why;
        if (n - u >= sizeof count ||
            (snprintf(count, sizeof count, "%.*s", (int)(n - u), arg), !all_digits(count)) ||
            parse_int_range(count, 1, 1000000000L, &v, &why) != 0)
            return usage_error("--report-every", arg,
                               "a sample count must be a whole number from 1 to 1000000000 "
                               "before 'samples' (e.g. 1000samples)");
        p->report_every_samples = (uint64_t)v;
        p->report_every_ns = 0;
        return 0;
    }
    int64_t ns;
    const char *why = "must be greater than 0";
    if (parse_duration_bounded_ns(arg, NS_PER_S, &ns, &why) != 0 || ns <= 0) {
        char msg[300];
        snprintf(msg, sizeof msg,
                 "%s; it takes a duration (bare number: s, as -D: 1, 0.5, 100ms) or a count "
                 "of samples (1000samples)",
                 why);
        return usage_error("--report-every", arg, msg);
    }
    p->report_every_ns = ns;
    p->report_every_samples = 0;
    return 0;
}

/* --until-confident P:WIDTH: a probability per cycle in (0, 1) and a
 * relative width in percent ("10%", or a bare 10), above 0 and at most
 * 1000 %. */
static int parse_until_confident(const char *arg, struct run_params *p)
{
    const char *colon = strchr(arg, ':');
    if (!colon || colon == arg || !colon[1])
        return usage_error("--until-confident", arg,
                           "takes P:WIDTH, a probability per cycle and a width in percent "
                           "(e.g. 1e-9:10%)");
    char pbuf[64];
    size_t plen = (size_t)(colon - arg);
    if (plen >= sizeof pbuf)
        plen = sizeof pbuf - 1;
    memcpy(pbuf, arg, plen);
    pbuf[plen] = '\0';
    char *end;
    double prob = strtod(pbuf, &end);
    if (*end || !(prob > 0 && prob < 1))
        return usage_error("--until-confident", arg,
                           "P must be a probability per cycle between 0 and 1 (e.g. 1e-9)");
    double width = strtod(colon + 1, &end);
    if (end == colon + 1 || (*end && strcmp(end, "%") != 0) || !(width > 0 && width <= 1000))
        return usage_error("--until-confident", arg,
                           "WIDTH must be a percentage above 0 and at most 1000 (e.g. 10%)");
    p->until_confident_text = arg;
    p->confident_probability = prob;
    p->confident_width = width / 100;
    p->tail = true;
    return 0;
}

static int run_option(void *params, int c, const char *arg)
{
    struct run_params *p = params;
    const char *why;
    char why_buf[300];
    long v;
    int rc = 0;
    if ((rc = cyclictest_flag(c)) >= 0)
        return rc;
    rc = 0;
    switch (c) {
    case 'i':
        rc = parse_positive_duration("--interval", arg, NS_PER_US, &p->interval_ns);
        if (!rc && p->interval_ns > 3600 * NS_PER_S)
            rc = usage_error("--interval", arg, "must be at most 1h");
        p->interval_set = true;
        break;
    case 'p':
        rc = parse_int_option("--priority", arg, 1, 99, &v);
        p->priority = (int)v;
        p->priority_set = true;
        break;
    case OPT_POLICY:
        if (strcmp(arg, "fifo") == 0)
            p->policy = SCHED_FIFO;
        else if (strcmp(arg, "rr") == 0)
            p->policy = SCHED_RR;
        else if (strcmp(arg, "other") == 0)
            p->policy = SCHED_OTHER;
        else if (strcmp(arg, "deadline") == 0)
            p->policy = SCHED_DEADLINE;
        else
            rc = usage_error("--policy", arg, "must be fifo, rr, other or deadline");
        p->policy_name = arg;
        break;
    case 'D':
        if (strcmp(arg, "0") == 0) {
            p->forever = true; /* as cyclictest -D 0: until stopped */
            p->duration_ns = 0;
        } else {
            rc = parse_positive_duration("--duration", arg, NS_PER_S, &p->duration_ns);
        }
        p->duration_text = arg;
        p->duration_set = true;
        break;
    case 'l':
        rc = parse_int_option("--loops", arg, 1, 1000000000000L, &v);
        p->loops = (uint64_t)v;
        break;
    case OPT_CLOCK:
        if (strcmp(arg, "monotonic") == 0)
            p->clock = ENGINE_CLOCK_MONOTONIC;
        else if (strcmp(arg, "tsc") == 0)
            p->clock = ENGINE_CLOCK_TSC;
        else
            rc = usage_error("--clock", arg, "must be monotonic or tsc");
        break;
    case OPT_TOLERANCE:
        rc = parse_positive_duration("--tolerance", arg, NS_PER_US, &p->tolerance_ns);
        break;
    case OPT_BUDGET:
        rc = parse_positive_duration("--budget", arg, NS_PER_US, &p->budget_ns);
        break;
    case OPT_REPORT_EVERY:
        rc = parse_report_every(arg, p);
        break;
    case OPT_PM_QOS:
        rc = parse_pm_qos(arg, &p->pm_qos_us);
        break;
    case OPT_HIST_FILE:
        rc = set_hist_path(p, "--histogram-file", arg);
        break;
    case OPT_HISTFILE:
        rc = set_hist_path(p, "--histfile", arg);
        p->cyclictest_taken |= RUN_CYCLICTEST_HISTFILE;
        break;
    case 'm':
        p->cyclictest_taken |= RUN_CYCLICTEST_MLOCKALL;
        break;
    case 'n':
        p->cyclictest_taken |= RUN_CYCLICTEST_NANOSLEEP;
        break;
    case OPT_HIST_MAX:
        rc = parse_positive_duration("--histogram-max", arg, NS_PER_US, &p->hist_max_ns);
        if (!rc && (p->hist_max_ns < NS_PER_US || p->hist_max_ns > 10 * NS_PER_S))
            rc = usage_error("--histogram-max", arg, "must be from 1us to 10s");
        break;
    case OPT_SAMPLES:
        p->samples_path = arg;
        break;
    case OPT_INTERVALS:
        p->intervals_path = arg;
        break;
    case OPT_KEEP_WINDOWS:
        rc = parse_int_option("--keep-windows", arg, 0, 1000000L, &v);
        p->keep_windows = (uint64_t)v;
        break;
    case OPT_WIDE:
        p->wide = true;
        break;
    case OPT_PER_CPU:
        p->per_cpu = true;
        break;
    case OPT_EXPLAIN:
        p->explain = true;
        p->explain_threshold_ns = 0;
        if (arg) {
            rc = parse_positive_duration("--explain", arg, NS_PER_US, &p->explain_threshold_ns);
            if (!rc && p->explain_threshold_ns > RUN_MAX_EXPLAIN_NS)
                rc = usage_error("--explain", arg, "must be at most 60s");
        }
        break;
    case OPT_EXPLAIN_KEEP:
        rc = parse_int_option("--explain-keep", arg, 0, 1000000L, &v);
        p->explain_keep = (uint64_t)v;
        p->explain_keep_set = true;
        break;
    case OPT_TELEMETRY:
        if (strcmp(arg, "quiet") == 0 || strcmp(arg, "all") == 0) {
            p->telemetry = true;
            p->telemetry_all = strcmp(arg, "all") == 0;
        } else {
            rc = usage_error("--telemetry", arg, "must be quiet or all");
        }
        break;
    case OPT_NO_TELEMETRY:
        p->telemetry = false;
        p->telemetry_all = false;
        break;
    case OPT_FOREVER:
        p->forever = true;
        break;
    case OPT_PROMETHEUS:
        p->prometheus_text = arg;
        p->prometheus = true;
        if (listen_addr_parse(arg, &p->prometheus_addr, why_buf, sizeof(why_buf)) != 0)
            rc = usage_error("--prometheus", arg, why_buf);
        break;
    case OPT_PROMETHEUS_BUCKETS:
        p->prometheus_buckets_text = arg;
        if (metrics_parse_bounds(arg, &p->prometheus_bounds, why_buf, sizeof(why_buf)) != 0)
            rc = usage_error("--prometheus-buckets", arg, why_buf);
        break;
    case OPT_INFLUX:
        p->influx_text = arg;
        if (influx_dest_parse(arg, &p->influx, why_buf, sizeof(why_buf)) != 0)
            rc = usage_error("--influx", p->influx.shown, why_buf);
        break;
    case OPT_TAIL:
        p->tail = true;
        break;
    case OPT_UNTIL_CONFIDENT:
        rc = parse_until_confident(arg, p);
        break;
    case OPT_WAKE:
    case OPT_WAKER_CPU:
    case OPT_WAKER_PRIORITY:
        rc = run_wake_option(&p->wake, c - OPT_WAKE, arg);
        break;
    case OPT_WORKLOAD:
        p->workload_text = arg;
        break;
    case OPT_SEED:
        rc = parse_int_option("--seed", arg, 0, LONG_MAX, &v);
        p->seed = (uint64_t)v;
        break;
    case OPT_DEADLINE:
        rc = parse_positive_duration("--deadline", arg, NS_PER_US, &p->deadline_ns);
        p->deadline_text = arg;
        break;
    case OPT_RUNTIME:
    case OPT_PERIOD:
        rc = run_deadline_option(p, c == OPT_RUNTIME ? "--runtime" : "--period", arg);
        break;
    case OPT_LOAD:
        if (p->nloads == RUN_MAX_LOADS)
            rc = usage_error("--load", arg, "too many loads (at most 16)");
        else
            p->load_text[p->nloads++] = arg;
        break;
    case OPT_TUNE: {
        /* a profile, or a list of actions (what tune --only takes) */
        const char *bad_opt = NULL;
        char twhy[600];
        p->tune_profile = arg ? arg : "latency";
        p->tune_actions = tune_profile_actions(p->tune_profile);
        if (!p->tune_actions)
            p->tune_actions = tune_actions_for(NULL, p->tune_profile, &bad_opt, twhy, sizeof(twhy));
        if (!p->tune_actions) {
            char both[700];
            snprintf(both, sizeof(both), "not a profile (latency, realtime), and %s", twhy);
            rc = usage_error("--tune", p->tune_profile, both);
        }
        break;
    }
    case OPT_COUNTERS:
        if (counters_parse(arg, &p->counters_mask, &why) != 0)
            rc = usage_error("--counters", arg, why);
        break;
    }
    return rc;
}

void run_policy_text(int policy, int priority, bool degraded, char *buf, size_t len)
{
    const char *name = policy == SCHED_FIFO ? "SCHED_FIFO" : policy == SCHED_RR ? "SCHED_RR" : NULL;
    if (policy == SCHED_DEADLINE)
        snprintf(buf, len, "SCHED_DEADLINE"); /* the reservation: run_deadline_text */
    else if (!name)
        snprintf(buf, len, "SCHED_OTHER");
    else if (degraded)
        snprintf(buf, len, "SCHED_OTHER (%s %d refused: not permitted)", name, priority);
    else
        snprintf(buf, len, "%s %d", name, priority);
}

bool run_workload_warning(const struct run_params *p, char *buf, size_t len)
{
    if (p->workload.kind != WORKLOAD_SPIN || p->workload.spin_ns < p->interval_ns)
        return false;
    char spin[32], iv[32];
    format_duration(p->workload.spin_ns, spin, sizeof spin);
    format_duration(p->interval_ns, iv, sizeof iv);
    snprintf(buf, len,
             "warning: --workload %s spins %s per cycle, no less than the interval (%s): "
             "most periods will be missed",
             p->workload_text ? p->workload_text : p->workload.text, spin, iv);
    return true;
}

static const struct cli_command run_cli = {
    "run",       run_usage,  "i:p:D:l:tmb:nHSv" CLI_COMMON_SHORT,
    run_options, run_option, RUN_HELP_VALUE_HINT,
};

int run_parse_args(int argc, char **argv, struct run_params *p)
{
    p->interval_ns = NS_PER_MS;
    p->policy = SCHED_FIFO;
    p->policy_name = "fifo";
    p->priority = 90;
    p->clock = ENGINE_CLOCK_MONOTONIC;
    p->tolerance_ns = -1;
    p->budget_ns = -1;
    p->pm_qos_us = -1;
    p->hist_max_ns = 1000 * NS_PER_US;
    p->seed = 1;
    p->keep_windows = RUN_DEFAULT_KEEP_WINDOWS;
    p->explain_keep = RUN_DEFAULT_EXPLAIN_KEEP;
    p->telemetry = true;
    metrics_default_bounds(&p->prometheus_bounds);
    p->wake.waker_cpu = -1;

    int rc = cli_parse(&run_cli, &p->common, p, argc, argv, 1, NULL);
    if (rc >= 0)
        return rc;
    if ((rc = run_deadline_finish(p)) >= 0) /* may set the interval: first */
        return rc;
    if (p->forever && p->loops) {
        char n[32];
        snprintf(n, sizeof(n), "%llu", (unsigned long long)p->loops);
        return usage_error("--loops", n, "a run --forever has no end to count to");
    }
    if (p->forever && p->duration_ns > 0)
        return usage_error("--duration", p->duration_text,
                           "a run --forever has no end (use one or the other)");
    if (p->prometheus_buckets_text && !p->prometheus)
        return usage_error("--prometheus-buckets", p->prometheus_buckets_text,
                           "needs --prometheus");
    if (p->influx_text && !p->report_every_ns && !p->report_every_samples)
        p->report_every_ns = RUN_DEFAULT_INFLUX_WINDOW_NS;
    if (!p->duration_set && !p->loops && !p->forever)
        p->duration_ns = 10 * NS_PER_S;
    if (p->loops && (double)p->loops * (double)p->interval_ns > (double)RUN_MAX_DURATION_NS) {
        char n[32];
        snprintf(n, sizeof(n), "%llu", (unsigned long long)p->loops);
        return usage_error("--loops", n, "loops x interval must be at most 366 days");
    }
    if ((p->intervals_path || p->wide) && !p->report_every_ns && !p->report_every_samples)
        return usage_error(p->intervals_path ? "--intervals" : "--wide", p->intervals_path,
                           "needs --report-every");
    if (p->explain_keep_set && !p->explain) {
        char n[32];
        snprintf(n, sizeof(n), "%llu", (unsigned long long)p->explain_keep);
        return usage_error("--explain-keep", n, "needs --explain");
    }
    if (p->tail && !p->telemetry && !p->report_every_ns && !p->report_every_samples) {
        const char *opt = p->until_confident_text ? "--until-confident" : "--tail";
        return usage_error(opt, p->until_confident_text,
                           "needs windows to take the maxima of, and --no-telemetry leaves "
                           "none: add --report-every DUR, or drop --no-telemetry");
    }
    if (p->policy == SCHED_OTHER) {
        if (p->priority_set)
            return usage_error("--priority", NULL, "has no meaning with --policy other");
        p->priority = 0;
    }
    if ((rc = run_wake_finish(&p->wake, p->policy != SCHED_OTHER, p->priority)) != 0)
        return rc;
    return -1;
}

/* Each --load parses, runs on online CPUs (by default those not measured)
 * and leaves at least one measured CPU alone. */
static int validate_loads(struct run_params *p, const struct system_info *si,
                          const struct sysroot *sr)
{
    char why[700];
    int rc;
    for (int i = 0; i < p->nloads; i++) {
        struct load_spec *l = &p->loads[i];
        if (load_parse(p->load_text[i], sr, true, l, why, sizeof(why)) != 0)
            return usage_error("--load", p->load_text[i], why);
        if (!l->cpus_given) {
            cpulist_subtract(&si->online, &p->common.cpus, &l->cpus);
            if (l->cpus.count == 0)
                return usage_error("--load", p->load_text[i],
                                   "no CPU left for the load (every online CPU is measured); "
                                   "name its CPUs with @CPUS");
        } else if ((rc = check_cpus_online("--load", p->load_text[i], &l->cpus, si)) != 0) {
            return rc;
        }
        struct cpulist left;
        cpulist_subtract(&p->common.cpus, &l->cpus, &left);
        if (left.count == 0)
            return usage_error("--load", p->load_text[i],
                               "its CPUs include every measured CPU; a load runs beside the "
                               "measurement, not on all of it");
    }
    return 0;
}

/* --clock tsc trusts the TSC only where `jitterlab tsc` would: the CPU
 * flags and the kernel's own verdicts (from the sysroot) and, on the live
 * machine only, a TSC_QUICK_WARP_NS warp test over the run's CPUs (one
 * CPU: its monotonicity). A fixture tree describes another machine, so
 * its static verdict alone decides (and the unit tests stay cheap).
 * 0, or EXIT_USAGE naming every reason. */
static int refuse_untrusted_tsc(const struct run_params *p, const struct system_info *si,
                                const struct sysroot *sr)
{
    struct tsc_verdict *v = calloc(1, sizeof *v);
    char *why = malloc(TSC_VERDICT_MAX * (TSC_TEXT_MAX + 2) + 64);
    char err[256];
    int rc = 0;
    if (!v || !why) {
        rc = usage_error("--clock", "tsc", "refused: out of memory");
    } else if (tsc_check_quick(sr, si->hypervisor, p->common.cpus.cpu, p->common.cpus.count, v, err,
                               sizeof err) != 0) {
        snprintf(why, 320, "refused: the warp test could not run: %s", err);
        rc = usage_error("--clock", "tsc", why);
    } else if (!v->safe) {
        size_t n = (size_t)snprintf(why, 64, "refused: ");
        for (int i = 0; i < v->nreasons; i++)
            n += (size_t)sprintf(why + n, "%s%s", i ? "; " : "", v->reasons[i]);
        rc = usage_error("--clock", "tsc", why);
    }
    free(why);
    free(v);
    return rc;
}

/* Checks that need the machine: CPUs online, TSC, workload, loads, output paths. */
int run_validate(struct run_params *p, const struct system_info *si, const struct sysroot *sr)
{
    const char *reason;
    int rc;
    if (workload_parse(p->workload_text ? p->workload_text : "none", sr, p->seed, &p->workload,
                       &reason) != 0)
        return usage_error("--workload", p->workload_text, reason);
    if (p->deadline_ns == 0 && has_workload(p))
        p->deadline_ns = p->interval_ns;
    if ((rc = cli_choose_cpus(&p->common, si)) != 0)
        return rc;
    if ((rc = run_deadline_validate(p, sr)) != 0)
        return rc;
    if (p->clock == ENGINE_CLOCK_TSC) {
        if (!engine_tsc_supported())
            return usage_error("--clock", "tsc", "refused: this architecture has no TSC");
        if ((rc = refuse_untrusted_tsc(p, si, sr)) != 0)
            return rc;
    }
    if ((rc = validate_loads(p, si, sr)) != 0)
        return rc;
    if ((rc = run_wake_validate(&p->wake, &p->common.cpus, si)) != 0)
        return rc;
    if ((rc = check_output_path("--json", p->common.json_path)) != 0 ||
        (rc = check_output_path("--histogram-file", p->hist_path)) != 0 ||
        (rc = check_output_path("--samples", p->samples_path)) != 0 ||
        (rc = check_output_path("--intervals", p->intervals_path)) != 0 ||
        (p->influx_text && p->influx.kind == INFLUX_FILE &&
         (rc = check_output_path("--influx", p->influx_text)) != 0))
        return rc;
    const struct cli_output outputs[] = {
        {"--json", p->common.json_path},
        {"--histogram-file", p->hist_path},
        {"--samples", p->samples_path},
        {"--intervals", p->intervals_path},
        {"--influx", p->influx_text && p->influx.kind == INFLUX_FILE ? p->influx_text : NULL},
    };
    if ((rc = check_distinct_outputs(outputs, sizeof outputs / sizeof outputs[0])) != 0)
        return rc;
    return -1;
}
