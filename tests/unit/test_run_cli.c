/*
 * `jitterlab run` option parsing (src/cmd/run_cli.c), called without running
 * anything: every option lands in run_params, every bad input gives exit 2
 * with its exact message and nothing on stdout.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/run_cli.h"
#include "cmd/run_deadline.h"
#include "sys/system_info.h"
#include "tune/tune.h"
#include "test_cli.h"
#include "test_fixture.h"

static struct run_params params;

/* run_parse_args wants zeroed storage, as its callers give it */
static int parse_fresh(int argc, char **argv, struct run_params *p)
{
    memset(p, 0, sizeof *p);
    return run_parse_args(argc, argv, p);
}

CLI_DEFINE_PARSE(parse_fresh, &params)

static void parse_ok(const char *line)
{
    struct cli_capture cap;
    int rc = parse(line, &cap);
    if (rc != -1 || cap.err_text[0])
        fail_msg("'%s': rc %d, stderr '%s'", line, rc, cap.err_text);
}

static void test_run_defaults(void **state)
{
    (void)state;
    unsetenv("JITTERLAB_SYSROOT");
    parse_ok("run");
    assert_int_equal(params.interval_ns, NS_PER_MS);
    assert_int_equal(params.duration_ns, 10 * NS_PER_S);
    assert_int_equal(params.loops, 0);
    assert_int_equal(params.policy, SCHED_FIFO);
    assert_int_equal(params.priority, 90);
    assert_int_equal(params.clock, ENGINE_CLOCK_MONOTONIC);
    assert_int_equal(params.tolerance_ns, -1);
    assert_int_equal(params.budget_ns, -1);
    assert_int_equal(params.pm_qos_us, -1);
    assert_int_equal(params.hist_max_ns, 1000 * NS_PER_US);
    assert_int_equal(params.keep_windows, 3600);
    assert_int_equal(params.seed, 1);
    assert_int_equal(params.deadline_ns, 0); /* none until a workload asks for one */
    assert_int_equal(params.common.cpus.count, 0);
    assert_false(params.common.quiet);
    assert_null(params.common.json_path);
    assert_null(params.common.sysroot_dir);
    assert_int_equal(params.tune_actions, 0);
    assert_false(params.per_cpu);
}

static void test_run_bare_numbers_take_each_options_unit(void **state)
{
    (void)state;
    parse_ok("run -i 250 -D 5 --tolerance 20 --budget 100 --histogram-max 500 --deadline 300");
    assert_int_equal(params.interval_ns, 250 * NS_PER_US);
    assert_int_equal(params.duration_ns, 5 * NS_PER_S);
    assert_int_equal(params.tolerance_ns, 20 * NS_PER_US);
    assert_int_equal(params.budget_ns, 100 * NS_PER_US);
    assert_int_equal(params.hist_max_ns, 500 * NS_PER_US);
    assert_int_equal(params.deadline_ns, 300 * NS_PER_US);
}

static void test_run_every_option_lands_in_params(void **state)
{
    (void)state;
    parse_ok("run --interval 2ms --cpus 1-2 --priority 80 --policy rr --loops 100 --clock tsc "
             "--pm-qos 0 --quiet --json r.json --histogram-file h.txt --samples s.csv "
             "--report-every 1s --intervals i.csv --keep-windows 5 --wide --sysroot /tree "
             "--workload spin:10us --seed 7 --counters all --load cpu --load cache@1 --tune");
    assert_int_equal(params.interval_ns, 2 * NS_PER_MS);
    assert_int_equal(params.common.cpus.count, 2);
    assert_string_equal(params.common.cpus_text, "1-2");
    assert_int_equal(params.priority, 80);
    assert_int_equal(params.policy, SCHED_RR);
    assert_int_equal(params.loops, 100);
    assert_int_equal(params.duration_ns, 0); /* bounded by loops */
    assert_int_equal(params.clock, ENGINE_CLOCK_TSC);
    assert_int_equal(params.pm_qos_us, 0);
    assert_true(params.common.quiet);
    assert_string_equal(params.common.json_path, "r.json");
    assert_string_equal(params.hist_path, "h.txt");
    assert_string_equal(params.samples_path, "s.csv");
    assert_int_equal(params.report_every_ns, NS_PER_S);
    assert_int_equal(params.report_every_samples, 0);
    assert_string_equal(params.intervals_path, "i.csv");
    assert_int_equal(params.keep_windows, 5);
    assert_true(params.wide);
    assert_string_equal(params.common.sysroot_dir, "/tree");
    assert_string_equal(params.workload_text, "spin:10us");
    assert_int_equal(params.seed, 7);
    assert_int_not_equal(params.counters_mask, 0);
    assert_int_equal(params.nloads, 2);
    assert_string_equal(params.load_text[1], "cache@1");
    assert_int_not_equal(params.tune_actions, 0);
    assert_string_equal(params.tune_profile, "latency");
}

static void test_run_short_options(void **state)
{
    (void)state;
    parse_ok("run -i 1ms -a 3 -p 5 -D 2s -q");
    assert_int_equal(params.common.cpus.count, 1);
    assert_int_equal(params.common.cpus.cpu[0], 3);
    assert_int_equal(params.priority, 5);
    assert_int_equal(params.duration_ns, 2 * NS_PER_S);
    assert_true(params.common.quiet);
    parse_ok("run -l 10");
    assert_int_equal(params.loops, 10);
    assert_int_equal(params.duration_ns, 0);
}

static void test_run_report_every_counts_or_times_and_the_last_wins(void **state)
{
    (void)state;
    parse_ok("run --report-every 1s --report-every 1000samples");
    assert_int_equal(params.report_every_samples, 1000);
    assert_int_equal(params.report_every_ns, 0);
    parse_ok("run --report-every 1000samples --report-every 250ms");
    assert_int_equal(params.report_every_samples, 0);
    assert_int_equal(params.report_every_ns, 250 * NS_PER_MS);
}

/* A bare number is seconds, as for -D: --report-every 1 is one second, not
 * one sample (a line per sample). */
static void test_run_report_every_bare_number_is_seconds_as_for_duration(void **state)
{
    (void)state;
    parse_ok("run -D 1 --report-every 1");
    assert_int_equal(params.duration_ns, NS_PER_S);
    assert_int_equal(params.report_every_ns, NS_PER_S);
    assert_int_equal(params.report_every_samples, 0);
    parse_ok("run --report-every 0.5");
    assert_int_equal(params.report_every_ns, 500 * NS_PER_MS);
    assert_int_equal(params.report_every_samples, 0);
    parse_ok("run --report-every 1samples");
    assert_int_equal(params.report_every_samples, 1);
    assert_int_equal(params.report_every_ns, 0);
}

/* A run's --workload, parsed as run_validate parses it. */
static void parse_with_workload(const char *line)
{
    parse_ok(line);
    struct sysroot sr;
    sysroot_init(&sr, NULL);
    const char *why;
    assert_int_equal(workload_parse(params.workload_text ? params.workload_text : "none", &sr,
                                    params.seed, &params.workload, &why),
                     0);
}

/* A spin at least as long as the interval misses most periods: one warning
 * naming both values; a shorter spin or another kind has none. */
static void test_run_warns_when_the_spin_is_not_shorter_than_the_interval(void **state)
{
    (void)state;
    char w[256];
    parse_with_workload("run --workload spin:2ms -i 1ms");
    assert_true(run_workload_warning(&params, w, sizeof w));
    assert_string_equal(w, "warning: --workload spin:2ms spins 2 ms per cycle, no less than the "
                           "interval (1 ms): most periods will be missed");
    parse_with_workload("run --workload spin:500 -i 500us");
    assert_true(run_workload_warning(&params, w, sizeof w));
    assert_string_equal(w, "warning: --workload spin:500 spins 500 us per cycle, no less than "
                           "the interval (500 us): most periods will be missed");
    parse_with_workload("run --workload spin:999us -i 1ms");
    assert_false(run_workload_warning(&params, w, sizeof w));
    parse_with_workload("run --workload ptrchase:64KiB -i 10us");
    assert_false(run_workload_warning(&params, w, sizeof w));
    parse_with_workload("run -i 10us");
    assert_false(run_workload_warning(&params, w, sizeof w));
}

/* The run header names the policy the threads get: the one asked for, or
 * SCHED_OTHER and what was refused. */
static void test_run_policy_text_names_the_policy_obtained(void **state)
{
    (void)state;
    char buf[96];
    run_policy_text(SCHED_FIFO, 90, false, buf, sizeof buf);
    assert_string_equal(buf, "SCHED_FIFO 90");
    run_policy_text(SCHED_RR, 5, false, buf, sizeof buf);
    assert_string_equal(buf, "SCHED_RR 5");
    run_policy_text(SCHED_OTHER, 0, false, buf, sizeof buf);
    assert_string_equal(buf, "SCHED_OTHER");
    run_policy_text(SCHED_FIFO, 90, true, buf, sizeof buf);
    assert_string_equal(buf, "SCHED_OTHER (SCHED_FIFO 90 refused: not permitted)");
    run_policy_text(SCHED_RR, 10, true, buf, sizeof buf);
    assert_string_equal(buf, "SCHED_OTHER (SCHED_RR 10 refused: not permitted)");
}

static void test_run_policy_other_has_priority_zero(void **state)
{
    (void)state;
    parse_ok("run --policy other");
    assert_int_equal(params.policy, SCHED_OTHER);
    assert_int_equal(params.priority, 0);
}

/* The reservation's period is the interval, given by -i or --period; the
 * deadline defaults to it and becomes the run's response limit. */
static void test_run_deadline_completes_the_reservation(void **state)
{
    (void)state;
    parse_ok("run --policy deadline --runtime 200us");
    assert_int_equal(params.policy, SCHED_DEADLINE);
    assert_int_equal(params.priority, 0);
    assert_int_equal(params.reservation.runtime_ns, 200 * NS_PER_US);
    assert_int_equal(params.reservation.period_ns, NS_PER_MS);
    assert_int_equal(params.reservation.deadline_ns, NS_PER_MS);
    assert_int_equal(params.deadline_ns, NS_PER_MS);
    parse_ok("run --policy deadline --runtime 100 --period 2ms --deadline 500");
    assert_int_equal(params.interval_ns, 2 * NS_PER_MS);
    assert_int_equal(params.reservation.period_ns, 2 * NS_PER_MS);
    assert_int_equal(params.reservation.runtime_ns, 100 * NS_PER_US);
    assert_int_equal(params.reservation.deadline_ns, 500 * NS_PER_US);
    assert_int_equal(params.deadline_ns, 500 * NS_PER_US);
    parse_ok("run --policy deadline --runtime 1024ns -i 5ms --period 5ms");
    assert_int_equal(params.reservation.period_ns, 5 * NS_PER_MS);
    char buf[128];
    run_deadline_text(&params.reservation, buf, sizeof buf);
    assert_string_equal(buf, "SCHED_DEADLINE runtime 1.024 us deadline 5 ms period 5 ms");
    run_policy_text(SCHED_DEADLINE, 0, false, buf, sizeof buf);
    assert_string_equal(buf, "SCHED_DEADLINE");
}

static void test_run_tune_profile_realtime(void **state)
{
    (void)state;
    parse_ok("run --tune=realtime");
    assert_string_equal(params.tune_profile, "realtime");
    assert_int_not_equal(params.tune_actions, 0);
    /* or the actions themselves, as tune --only takes them */
    parse_ok("run --tune=pm-qos,timer-migration");
    assert_int_equal(params.tune_actions, (1u << tune_action_find("pm-qos")) |
                                              (1u << tune_action_find("timer-migration")));
    parse_ok("run --tune=irq-affinity");
    assert_int_equal(params.tune_actions, 1u << tune_action_find("irq-affinity"));
}

static void test_run_sysroot_from_environment_unless_given(void **state)
{
    (void)state;
    setenv("JITTERLAB_SYSROOT", "/env-tree", 1);
    parse_ok("run");
    assert_string_equal(params.common.sysroot_dir, "/env-tree");
    parse_ok("run --sysroot /given");
    assert_string_equal(params.common.sysroot_dir, "/given");
    unsetenv("JITTERLAB_SYSROOT");
}

static void test_run_explain_threshold_and_keep(void **state)
{
    (void)state;
    parse_ok("run");
    assert_false(params.explain);
    assert_int_equal(params.explain_keep, 1000);
    parse_ok("run --explain");
    assert_true(params.explain);
    assert_int_equal(params.explain_threshold_ns, 0); /* the default rule */
    parse_ok("run --explain=500us --explain-keep 0");
    assert_int_equal(params.explain_threshold_ns, 500 * NS_PER_US);
    assert_int_equal(params.explain_keep, 0); /* only counted */
    parse_ok("run --explain=20 --explain-keep 1000000");
    assert_int_equal(params.explain_threshold_ns, 20 * NS_PER_US); /* bare: us */
    assert_int_equal(params.explain_keep, 1000000);
    parse_ok("run --explain=60s");
    assert_int_equal(params.explain_threshold_ns, 60 * NS_PER_S);
}

/* --per-cpu asks the summary for every CPU's row; the help names the
 * rule it turns off (more than TEXT_MANY_MAX_ROWS CPUs collapse). */
static void test_run_per_cpu_asks_for_every_cpu_row(void **state)
{
    (void)state;
    parse_ok("run --per-cpu");
    assert_true(params.per_cpu);
    parse_ok("run -a 1-2 --per-cpu -D 1");
    assert_true(params.per_cpu);
    struct cli_capture cap;
    assert_int_equal(parse("run --help", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "--per-cpu           a summary row for every CPU "
                                         "(default: above 16 CPUs,\n"));
}

static void test_run_help_prints_usage_and_exits_0(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("run --help", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab run [options]"));
    assert_string_equal(cap.err_text, "");
    assert_int_equal(parse("run -i 1ms -h", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab run [options]"));
}

/* --pm-qos takes units like every other time option; a bare number is us. */
static void test_run_pm_qos_takes_units(void **state)
{
    (void)state;
    parse_ok("run --pm-qos 10us");
    assert_int_equal(params.pm_qos_us, 10);
    parse_ok("run --pm-qos 1ms");
    assert_int_equal(params.pm_qos_us, 1000);
    parse_ok("run --pm-qos 25");
    assert_int_equal(params.pm_qos_us, 25);
}

static const struct cli_bad_case bad_cases[] = {
    {"run -h 1000 -D 1",
     "jitterlab: -h 1000: -h is --help and takes no value; cyclictest's -h N (a histogram up to N "
     "us) is --histogram-file FILE --histogram-max N here\n"},
    {"run --help 5", "jitterlab: --help 5: --help is --help and takes no value; cyclictest's -h N "
                     "(a histogram up to N us) is --histogram-file FILE --histogram-max N here\n"},
    {"run -t", "jitterlab: -t: cyclictest's -t (threads) has no equal here: one thread runs on "
               "each CPU of -a/--cpus\n"},
    {"run -H 100", "jitterlab: -H: cyclictest's -H/--histofall US (its histogram with a column of "
                   "all threads together) has no equal in the histogram file, which has a column "
                   "per CPU: use --histogram-file FILE --histogram-max US; the JSON result's "
                   "all.histogram holds every CPU together\n"},
    {"run --histofall=100", "jitterlab: -H: cyclictest's -H/--histofall US (its histogram with a "
                            "column of all threads together) has no equal in the histogram file, "
                            "which has a column per CPU: use --histogram-file FILE "
                            "--histogram-max US; the JSON result's all.histogram holds every CPU "
                            "together\n"},
    {"run -S", "jitterlab: -S: cyclictest's -S/--smp (a thread on every CPU) is what jitterlab "
               "does: one thread on each CPU of -a/--cpus (default: the isolated CPUs, else every "
               "online CPU but CPU 0); drop -S, or name the CPUs with -a\n"},
    {"run --verbose", "jitterlab: -v: cyclictest's -v/--verbose (every sample on stdout) is "
                      "--samples FILE here (CSV: cpu,t_ns,latency_ns)\n"},
    {"run --histfile a.txt --histogram-file b.txt",
     "jitterlab: --histogram-file b.txt: --histfile (cyclictest's) is --histogram-file here, and "
     "the other names another file\n"},
    {"run --c tsc", "jitterlab: run: ambiguous option '--c': --clock, --counters, --cpus\n"},
    {"run --pm-qos 1.5us", "jitterlab: --pm-qos 1.5us: must be whole microseconds (the kernel "
                           "takes us)\n"},
    {"run --pm-qos 2001s", "jitterlab: --pm-qos 2001s: must be at most 2000s\n"},
    {"run -i 0", "jitterlab: --interval 0: must be greater than 0\n"},
    {"run -i 2h", "jitterlab: --interval 2h: must be at most 1h\n"},
    {"run -i abc", "jitterlab: --interval abc: not a duration (write e.g. 250us, 1.5ms, 10s)\n"},
    {"run -a 1-", "jitterlab: --cpus 1-: malformed CPU list (range without an end, e.g. 0-3)\n"},
    {"run -p 0", "jitterlab: --priority 0: must be a whole number from 1 to 99\n"},
    {"run -p 100", "jitterlab: --priority 100: must be a whole number from 1 to 99\n"},
    {"run --policy idle", "jitterlab: --policy idle: must be fifo, rr, other or deadline\n"},
    {"run --policy deadline",
     "jitterlab: --policy deadline: needs --runtime DUR (the CPU time reserved in each period)\n"},
    {"run --policy deadline --runtime 100us -p 50",
     "jitterlab: --priority: has no meaning with --policy deadline (the reservation is --runtime, "
     "--deadline and --period)\n"},
    {"run --runtime 100us", "jitterlab: --runtime 100us: needs --policy deadline\n"},
    {"run --period 1ms", "jitterlab: --period 1ms: needs --policy deadline\n"},
    {"run --policy deadline --runtime 2ms --deadline 1ms",
     "jitterlab: --runtime 2ms: longer than --deadline 1ms\n"},
    {"run --policy deadline --runtime 2ms",
     "jitterlab: --runtime 2ms: longer than the deadline, which is the period (--period 1ms)\n"},
    {"run --policy deadline --runtime 2ms -i 1ms",
     "jitterlab: --runtime 2ms: longer than the deadline, which is the period (-i 1ms)\n"},
    {"run --policy deadline --runtime 100us --deadline 2ms",
     "jitterlab: --deadline 2ms: longer than --period 1ms\n"},
    {"run --policy deadline --runtime 1000ns",
     "jitterlab: --runtime 1000ns: must be at least 1024ns (the kernel's shortest SCHED_DEADLINE "
     "runtime)\n"},
    {"run --policy deadline --runtime 0", "jitterlab: --runtime 0: must be greater than 0\n"},
    {"run --policy deadline --runtime 100us --period 2h",
     "jitterlab: --period 2h: must be at most 1h\n"},
    {"run --policy deadline --runtime 100us -i 1ms --period 2ms",
     "jitterlab: --period 2ms: must equal the interval (-i 1ms): the measured thread wakes once "
     "per interval; give one of the two\n"},
    {"run --policy other -p 5", "jitterlab: --priority: has no meaning with --policy other\n"},
    {"run -D 0 -l 5", "jitterlab: --loops 5: a run --forever has no end to count to\n"},
    {"run -l 0", "jitterlab: --loops 0: must be a whole number from 1 to 1000000000000\n"},
    {"run -l 1000000000000 -i 1h",
     "jitterlab: --loops 1000000000000: loops x interval must be at most 366 days\n"},
    {"run --clock foo", "jitterlab: --clock foo: must be monotonic or tsc\n"},
    {"run --tolerance -1", "jitterlab: --tolerance -1: must not be negative\n"},
    {"run --report-every 0",
     "jitterlab: --report-every 0: must be greater than 0; it takes a duration (bare number: s, "
     "as -D: 1, 0.5, 100ms) or a count of samples (1000samples)\n"},
    {"run --report-every 10x",
     "jitterlab: --report-every 10x: unknown unit (use ns, us, ms, s, m, h); it takes a duration "
     "(bare number: s, as -D: 1, 0.5, 100ms) or a count of samples (1000samples)\n"},
    {"run --report-every 0samples",
     "jitterlab: --report-every 0samples: a sample count must be a whole number from 1 to "
     "1000000000 before 'samples' (e.g. 1000samples)\n"},
    {"run --report-every 1.5samples",
     "jitterlab: --report-every 1.5samples: a sample count must be a whole number from 1 to "
     "1000000000 before 'samples' (e.g. 1000samples)\n"},
    {"run --report-every samples",
     "jitterlab: --report-every samples: not a duration (write e.g. 250us, 1.5ms, 10s); it takes "
     "a duration (bare number: s, as -D: 1, 0.5, 100ms) or a count of samples (1000samples)\n"},
    {"run --histogram-max 11s", "jitterlab: --histogram-max 11s: must be from 1us to 10s\n"},
    {"run --keep-windows -1",
     "jitterlab: --keep-windows -1: must be a whole number from 0 to 1000000\n"},
    {"run --seed x", "jitterlab: --seed x: must be a whole number from 0 to 9223372036854775807\n"},
    {"run --counters bogus",
     "jitterlab: --counters bogus: unknown counter (use cycles, instructions, llc-misses, "
     "context-switches, cpu-migrations, page-faults, all)\n"},
    {"run --tune=bogus",
     "jitterlab: --tune bogus: not a profile (latency, realtime), and unknown action 'bogus' "
     "(actions: pm-qos, idle-states, resume-latency, cpufreq, timer-migration, irq-affinity, "
     "rt-throttling, thp, nmi-watchdog, cache-partition)\n"},
    {"run --tune=pm-qos,nope",
     "jitterlab: --tune pm-qos,nope: not a profile (latency, realtime), and unknown action "
     "'nope' (actions: pm-qos, idle-states, resume-latency, cpufreq, timer-migration, "
     "irq-affinity, rt-throttling, thp, nmi-watchdog, cache-partition)\n"},
    {"run --intervals f", "jitterlab: --intervals f: needs --report-every\n"},
    {"run --wide", "jitterlab: --wide: needs --report-every\n"},
    {"run --load cpu --load cpu --load cpu --load cpu --load cpu --load cpu --load cpu --load cpu "
     "--load cpu --load cpu --load cpu --load cpu --load cpu --load cpu --load cpu --load cpu "
     "--load pulse",
     "jitterlab: --load pulse: too many loads (at most 16)\n"},
    {"run --explain=0", "jitterlab: --explain 0: must be greater than 0\n"},
    {"run --explain=-5us", "jitterlab: --explain -5us: must not be negative\n"},
    {"run --explain=fast",
     "jitterlab: --explain fast: not a duration (write e.g. 250us, 1.5ms, 10s)\n"},
    {"run --explain=61s", "jitterlab: --explain 61s: must be at most 60s\n"},
    {"run --explain --explain-keep 1000001",
     "jitterlab: --explain-keep 1000001: must be a whole number from 0 to 1000000\n"},
    {"run --explain --explain-keep x",
     "jitterlab: --explain-keep x: must be a whole number from 0 to 1000000\n"},
    {"run --explain-keep 10", "jitterlab: --explain-keep 10: needs --explain\n"},
    {"run --tail --no-telemetry",
     "jitterlab: --tail: needs windows to take the maxima of, and --no-telemetry leaves none: add "
     "--report-every DUR, or drop --no-telemetry\n"},
    {"run --until-confident 1e-9:10% --no-telemetry",
     "jitterlab: --until-confident 1e-9:10%: needs windows to take the maxima of, and "
     "--no-telemetry leaves none: add --report-every DUR, or drop --no-telemetry\n"},
    {"run --until-confident 1e-9",
     "jitterlab: --until-confident 1e-9: takes P:WIDTH, a probability per cycle and a width in "
     "percent (e.g. 1e-9:10%)\n"},
    {"run --until-confident :10%",
     "jitterlab: --until-confident :10%: takes P:WIDTH, a probability per cycle and a width in "
     "percent (e.g. 1e-9:10%)\n"},
    {"run --until-confident 1e-9:",
     "jitterlab: --until-confident 1e-9:: takes P:WIDTH, a probability per cycle and a width in "
     "percent (e.g. 1e-9:10%)\n"},
    {"run --until-confident 1:10%",
     "jitterlab: --until-confident 1:10%: P must be a probability per cycle between 0 and 1 (e.g. "
     "1e-9)\n"},
    {"run --until-confident 0:10%",
     "jitterlab: --until-confident 0:10%: P must be a probability per cycle between 0 and 1 (e.g. "
     "1e-9)\n"},
    {"run --until-confident nan:10%",
     "jitterlab: --until-confident nan:10%: P must be a probability per cycle between 0 and 1 "
     "(e.g. 1e-9)\n"},
    {"run --until-confident 1e-9x:10%",
     "jitterlab: --until-confident 1e-9x:10%: P must be a probability per cycle between 0 and 1 "
     "(e.g. 1e-9)\n"},
    {"run --until-confident 1e-9:0%",
     "jitterlab: --until-confident 1e-9:0%: WIDTH must be a percentage above 0 and at most 1000 "
     "(e.g. 10%)\n"},
    {"run --until-confident 1e-9:-5%",
     "jitterlab: --until-confident 1e-9:-5%: WIDTH must be a percentage above 0 and at most 1000 "
     "(e.g. 10%)\n"},
    {"run --until-confident 1e-9:10%%",
     "jitterlab: --until-confident 1e-9:10%%: WIDTH must be a percentage above 0 and at most 1000 "
     "(e.g. 10%)\n"},
    {"run --until-confident 1e-9:ten",
     "jitterlab: --until-confident 1e-9:ten: WIDTH must be a percentage above 0 and at most 1000 "
     "(e.g. 10%)\n"},
    {"run --until-confident 1e-9:1001",
     "jitterlab: --until-confident 1e-9:1001: WIDTH must be a percentage above 0 and at most 1000 "
     "(e.g. 10%)\n"},
    {"run --wake bogus",
     "jitterlab: --wake bogus: unknown mechanism (one of timer, futex, eventfd, pipe, signal, mq, "
     "sem)\n"},
    {"run --waker-cpu 1", "jitterlab: --waker-cpu 1: needs --wake MECH other than timer\n"},
    {"run --wake timer --waker-cpu 1",
     "jitterlab: --waker-cpu 1: needs --wake MECH other than timer\n"},
    {"run --waker-priority 50",
     "jitterlab: --waker-priority 50: needs --wake MECH other than timer\n"},
    {"run --wake futex --waker-priority 0",
     "jitterlab: --waker-priority 0: must be a whole number from 1 to 99\n"},
    {"run --wake futex --waker-cpu x", "jitterlab: --waker-cpu x: must be a whole number from 0 to "
                                       "4095\n"},
    {"run --wake sem --policy other --waker-priority 5",
     "jitterlab: --waker-priority 5: has no meaning with --policy other\n"},
    {"run --bogus", "jitterlab: run: unknown option '--bogus' (see jitterlab help run)\n"},
    {"run -x", "jitterlab: run: unknown option '-x' (see jitterlab help run)\n"},
    {"run -i", "jitterlab: -i: needs a value\n"},
    {"run --json", "jitterlab: --json: needs a value\n"},
    {"run extra", "jitterlab: run: unexpected argument 'extra' (see jitterlab help run)\n"},
};

/* --tail alone, and --until-confident, which implies it; either needs
 * windows, which telemetry gives, or --report-every without it. */
static void test_run_tail_and_until_confident_parse(void **state)
{
    (void)state;
    parse_ok("run");
    assert_false(params.tail);
    assert_true(params.confident_probability == 0);
    parse_ok("run --tail");
    assert_true(params.tail);
    assert_null(params.until_confident_text);
    parse_ok("run --until-confident 1e-9:10%");
    assert_true(params.tail);
    assert_string_equal(params.until_confident_text, "1e-9:10%");
    assert_true(params.confident_probability == 1e-9);
    assert_true(params.confident_width > 0.0999999 && params.confident_width < 0.1000001);
    parse_ok("run --until-confident 0.001:2.5");
    assert_true(params.confident_probability == 0.001);
    assert_true(params.confident_width > 0.0249999 && params.confident_width < 0.0250001);
    parse_ok("run --tail --no-telemetry --report-every 1s");
    parse_ok("run --until-confident 1e-6:50% --no-telemetry --report-every 1000samples");
    parse_ok("run --until-confident 1e-9:10% -D 0");
}

/* cyclictest's options for what jitterlab always does are taken, each with
 * a note of what it does here; --histfile is the histogram file. */
static void test_run_takes_cyclictests_harmless_options_with_a_note(void **state)
{
    (void)state;
    parse_ok("run");
    assert_int_equal(params.cyclictest_taken, 0);
    parse_ok("run -m -n --histfile h.txt");
    assert_int_equal(params.cyclictest_taken,
                     RUN_CYCLICTEST_MLOCKALL | RUN_CYCLICTEST_NANOSLEEP | RUN_CYCLICTEST_HISTFILE);
    assert_string_equal(params.hist_path, "h.txt");
    parse_ok("run --mlockall --nanosleep --histfile h.txt --histogram-file h.txt");
    assert_string_equal(params.hist_path, "h.txt");
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_non_null(m);
    run_cyclictest_notes(&params, m);
    assert_int_equal(fclose(m), 0);
    assert_string_equal(
        text, "jitterlab: note: -m/--mlockall (cyclictest's) changes nothing: jitterlab always "
              "locks its memory (the result's config.memory_lock says what was locked)\n"
              "jitterlab: note: -n/--nanosleep (cyclictest's) changes nothing: jitterlab always "
              "sleeps with clock_nanosleep to an absolute CLOCK_MONOTONIC time\n"
              "jitterlab: note: --histfile h.txt (cyclictest's) is --histogram-file h.txt here: "
              "cyclictest's -h format, one column per CPU, rows up to --histogram-max "
              "(cyclictest's -h N; default 1000us)\n");
    free(text);
    parse_ok("run --histogram-file h.txt");
    assert_int_equal(params.cyclictest_taken, 0);
}

static void test_run_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

/* ---- --forever, --prometheus, --prometheus-buckets, --influx ---------- */

static void test_run_forever_and_duration_zero_run_until_stopped(void **state)
{
    (void)state;
    parse_ok("run");
    assert_false(params.forever);
    parse_ok("run --forever");
    assert_true(params.forever);
    assert_int_equal(params.duration_ns, 0); /* not the default 10 s */
    assert_int_equal(params.loops, 0);
    parse_ok("run -D 0");
    assert_true(params.forever); /* as cyclictest -D 0 */
    assert_int_equal(params.duration_ns, 0);
    assert_true(params.duration_set);
    parse_ok("run --duration 0 --forever -i 100us");
    assert_true(params.forever);
    assert_int_equal(params.duration_ns, 0);
    assert_int_equal(params.interval_ns, 100 * NS_PER_US);
}

static void test_run_prometheus_address_defaults_to_loopback(void **state)
{
    (void)state;
    parse_ok("run");
    assert_false(params.prometheus);
    assert_null(params.prometheus_text);
    parse_ok("run --prometheus 9808");
    assert_true(params.prometheus);
    assert_string_equal(params.prometheus_text, "9808");
    assert_int_equal(params.prometheus_addr.sa.ss_family, AF_INET);
    assert_string_equal(params.prometheus_addr.text, "127.0.0.1:9808");
    parse_ok("run --prometheus 0.0.0.0:9100");
    assert_string_equal(params.prometheus_addr.text, "0.0.0.0:9100");
    parse_ok("run --prometheus [::1]:9808");
    assert_int_equal(params.prometheus_addr.sa.ss_family, AF_INET6);
    assert_string_equal(params.prometheus_addr.text, "[::1]:9808");
    parse_ok("run --prometheus localhost:9808");
    assert_string_equal(params.prometheus_addr.text, "127.0.0.1:9808");
}

static void test_run_prometheus_buckets_or_the_default_bounds(void **state)
{
    (void)state;
    struct metrics_bounds def;
    metrics_default_bounds(&def);
    parse_ok("run --prometheus 9808");
    assert_null(params.prometheus_buckets_text);
    assert_int_equal(params.prometheus_bounds.n, def.n);
    assert_int_equal(params.prometheus_bounds.le_ns[0], NS_PER_US);
    assert_int_equal(params.prometheus_bounds.le_ns[def.n - 1], 100 * NS_PER_MS);
    parse_ok("run --prometheus 9808 --prometheus-buckets 10us,50us,1ms");
    assert_string_equal(params.prometheus_buckets_text, "10us,50us,1ms");
    assert_int_equal(params.prometheus_bounds.n, 3);
    assert_int_equal(params.prometheus_bounds.le_ns[0], 10 * NS_PER_US);
    assert_int_equal(params.prometheus_bounds.le_ns[1], 50 * NS_PER_US);
    assert_int_equal(params.prometheus_bounds.le_ns[2], NS_PER_MS);
    /* in either order; a bare number is microseconds */
    parse_ok("run --prometheus-buckets 5,20 --prometheus 9808");
    assert_int_equal(params.prometheus_bounds.n, 2);
    assert_int_equal(params.prometheus_bounds.le_ns[1], 20 * NS_PER_US);
    parse_ok("run --prometheus 9808 --prometheus-buckets "
             "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
             "24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,"
             "44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,"
             "64");
    assert_int_equal(params.prometheus_bounds.n, METRICS_MAX_BOUNDS);
}

static void test_run_influx_destination_and_its_default_window(void **state)
{
    (void)state;
    parse_ok("run");
    assert_null(params.influx_text);
    assert_int_equal(params.report_every_ns, 0);
    parse_ok("run --influx out.lp");
    assert_string_equal(params.influx_text, "out.lp");
    assert_int_equal(params.influx.kind, INFLUX_FILE);
    assert_int_equal(params.report_every_ns, 10 * NS_PER_S); /* --report-every 10s */
    assert_int_equal(params.report_every_samples, 0);
    parse_ok("run --influx udp://127.0.0.1:8089");
    assert_int_equal(params.influx.kind, INFLUX_UDP);
    parse_ok("run --influx http://127.0.0.1:8086/write?db=jl");
    assert_int_equal(params.influx.kind, INFLUX_HTTP);
    assert_string_equal(params.influx.text, "http://127.0.0.1:8086/write?db=jl");
    /* a window given is kept, in time or in samples */
    parse_ok("run --influx out.lp --report-every 2s");
    assert_int_equal(params.report_every_ns, 2 * NS_PER_S);
    parse_ok("run --report-every 500samples --influx out.lp");
    assert_int_equal(params.report_every_samples, 500);
    assert_int_equal(params.report_every_ns, 0);
    /* the default window counts as --report-every for what needs one */
    parse_ok("run --influx out.lp --intervals i.csv --wide");
    assert_int_equal(params.report_every_ns, 10 * NS_PER_S);
}

static const struct cli_bad_case export_bad_cases[] = {
    {"run --forever -l 5", "jitterlab: --loops 5: a run --forever has no end to count to\n"},
    {"run --loops 5 --forever", "jitterlab: --loops 5: a run --forever has no end to count to\n"},
    {"run -D 0 --loops 7", "jitterlab: --loops 7: a run --forever has no end to count to\n"},
    {"run --prometheus", "jitterlab: --prometheus: needs a value\n"},
    {"run --prometheus 0",
     "jitterlab: --prometheus 0: the port must be a number from 1 to 65535\n"},
    {"run --prometheus 99999",
     "jitterlab: --prometheus 99999: the port must be a number from 1 to 65535\n"},
    {"run --prometheus 127.0.0.1:http",
     "jitterlab: --prometheus 127.0.0.1:http: the port must be a number from 1 to 65535\n"},
    {"run --prometheus 300.1.1.1:9808",
     "jitterlab: --prometheus 300.1.1.1:9808: 300.1.1.1 is not an IPv4 address, [IPv6] address "
     "or localhost\n"},
    {"run --prometheus example.com:9808",
     "jitterlab: --prometheus example.com:9808: example.com is not an IPv4 address, [IPv6] "
     "address or localhost\n"},
    {"run --prometheus [::1]",
     "jitterlab: --prometheus [::1]: an IPv6 address is written [ADDR]:PORT\n"},
    {"run --prometheus :9808", "jitterlab: --prometheus :9808: not [ADDR:]PORT\n"},
    {"run --prometheus 9808 --prometheus-buckets 50us,10us",
     "jitterlab: --prometheus-buckets 50us,10us: 10us: bounds must rise strictly\n"},
    {"run --prometheus 9808 --prometheus-buckets 10us,10us",
     "jitterlab: --prometheus-buckets 10us,10us: 10us: bounds must rise strictly\n"},
    {"run --prometheus 9808 --prometheus-buckets 10us,,1ms",
     "jitterlab: --prometheus-buckets 10us,,1ms: an empty item\n"},
    {"run --prometheus 9808 --prometheus-buckets 10us,",
     "jitterlab: --prometheus-buckets 10us,: an empty item\n"},
    {"run --prometheus 9808 --prometheus-buckets 0",
     "jitterlab: --prometheus-buckets 0: 0: a bound must be greater than 0\n"},
    {"run --prometheus 9808 --prometheus-buckets 10us,fast",
     "jitterlab: --prometheus-buckets 10us,fast: fast: not a duration (write e.g. 250us, 1.5ms, "
     "10s)\n"},
    {"run --prometheus 9808 --prometheus-buckets "
     "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
     "24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,"
     "44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,"
     "64,65",
     "jitterlab: --prometheus-buckets "
     "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
     "24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,"
     "44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,"
     "64,65"
     ": more than 64 bounds\n"},
    {"run --prometheus-buckets 10us", "jitterlab: --prometheus-buckets 10us: needs --prometheus\n"},
    {"run --influx ftp://x",
     "jitterlab: --influx ftp://x: not a file, udp://HOST:PORT or http[s]://HOST:PORT/PATH\n"},
    {"run --influx udp://nohost",
     "jitterlab: --influx udp://nohost: a UDP destination is udp://HOST:PORT\n"},
    {"run --influx udp://127.0.0.1:0",
     "jitterlab: --influx udp://127.0.0.1:0: the port must be a number from 1 to 65535\n"},
    {"run --influx http://", "jitterlab: --influx http://: no host in the URL\n"},
    {"run --influx https:///api/v2/write",
     "jitterlab: --influx https:///api/v2/write: no host in the URL\n"},
};

static void test_run_export_options_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, export_bad_cases,
                         sizeof(export_bad_cases) / sizeof(export_bad_cases[0]));
}

/* The --forever with --duration message names the duration as given, as
 * every other message does. */
static const struct cli_bad_case forever_duration_cases[] = {
    {"run --forever -D 5s",
     "jitterlab: --duration 5s: a run --forever has no end (use one or the other)\n"},
    {"run --duration 1.5ms --forever",
     "jitterlab: --duration 1.5ms: a run --forever has no end (use one or the other)\n"},
};

static void test_run_forever_with_a_duration_names_the_duration_as_given(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, forever_duration_cases,
                         sizeof(forever_duration_cases) / sizeof(forever_duration_cases[0]));
}

/* ---- --wake MECH, --waker-cpu, --waker-priority --------------------------- */

static void test_run_wake_defaults_to_the_timer_and_takes_every_mechanism(void **state)
{
    (void)state;
    parse_ok("run");
    assert_int_equal(params.wake.mech, WAKE_TIMER);
    assert_int_equal(params.wake.waker_cpu, -1);
    static const char *names[] = {"timer", "futex", "eventfd", "pipe", "signal", "mq", "sem"};
    for (int m = 0; m < WAKE_MECH_COUNT; m++) {
        char line[64];
        snprintf(line, sizeof line, "run --wake %s", names[m]);
        parse_ok(line);
        assert_int_equal(params.wake.mech, m);
        assert_string_equal(wake_mech_name(params.wake.mech), names[m]);
    }
}

/* The waker preempts the measured thread on its CPU by default: one
 * priority above it (at most 99); none under --policy other. */
static void test_run_waker_priority_defaults_to_one_above_the_measured_threads(void **state)
{
    (void)state;
    parse_ok("run --wake futex");
    assert_int_equal(params.wake.waker_priority, 91);
    parse_ok("run --wake futex -p 99");
    assert_int_equal(params.wake.waker_priority, 99);
    parse_ok("run --wake pipe -p 40 --waker-priority 20 --waker-cpu 1");
    assert_int_equal(params.wake.waker_priority, 20);
    assert_int_equal(params.wake.waker_cpu, 1);
    parse_ok("run --wake sem --policy other");
    assert_int_equal(params.wake.waker_priority, 0);
}

static int validate_wake(const char *extra, struct cli_capture *cap)
{
    struct sysroot sr;
    fixture_sysroot(&sr, "tsc-watchdog-unstable"); /* CPUs 0-1 online */
    static char line[sizeof sr.prefix + 128];
    snprintf(line, sizeof line, "run -D 1 --sysroot %s %s", sr.prefix, extra);
    parse_ok(line);
    static struct system_info si;
    system_info_read(&sr, &si);
    cli_capture_begin(cap);
    int rc = run_validate(&params, &si, &sr);
    cli_capture_end(cap);
    return rc;
}

/* The wakers go to the first CPU not measured (the collector's), else to
 * the first measured one; --waker-cpu must be online. */
static void test_run_waker_cpu_defaults_to_housekeeping_and_must_be_online(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(validate_wake("-a 1 --wake futex", &cap), -1);
    assert_int_equal(params.wake.waker_cpu, 0);
    assert_int_equal(validate_wake("-a 0-1 --wake futex", &cap), -1);
    assert_int_equal(params.wake.waker_cpu, 0);
    assert_int_equal(validate_wake("-a 0 --wake eventfd", &cap), -1);
    assert_int_equal(params.wake.waker_cpu, 1);
    assert_int_equal(validate_wake("-a 1 --wake mq --waker-cpu 1", &cap), -1);
    assert_int_equal(params.wake.waker_cpu, 1);
    assert_int_equal(validate_wake("-a 1 --wake mq --waker-cpu 7", &cap), EXIT_USAGE);
    assert_string_equal(cap.err_text,
                        "jitterlab: --waker-cpu 7: CPU 7 is not online (online: 0-1)\n");
}

/* ---- --clock tsc: the check of `jitterlab tsc` in run_validate ---------- */

/* run_validate on a fixture tree: the tree's flags and kernel log decide
 * alone (no live warp test under a sysroot). */
static int validate_on(const char *fixture, const char *clock, struct cli_capture *cap)
{
    struct sysroot sr;
    fixture_sysroot(&sr, fixture);
    static char line[sizeof sr.prefix + 64];
    snprintf(line, sizeof line, "run -D 1 --clock %s --sysroot %s", clock, sr.prefix);
    parse_ok(line);
    static struct system_info si;
    system_info_read(&sr, &si);
    cli_capture_begin(cap);
    int rc = run_validate(&params, &si, &sr);
    cli_capture_end(cap);
    return rc;
}

/* A deadline belongs to a task: a workload's is the interval unless
 * --deadline says otherwise; an explicit --deadline applies without one
 * (to the latency alone); a bare run has none, and counts no misses. */
static void test_run_has_a_deadline_only_with_a_workload_or_deadline(void **state)
{
    (void)state;
    static const struct {
        const char *extra;
        int64_t deadline_ns;
        bool columns;
    } cases[] = {
        {"", 0, false},
        {"--workload spin:100us -i 500us", 500 * NS_PER_US, true},
        {"--workload spin:100us --deadline 300", 300 * NS_PER_US, true},
        {"--deadline 300", 300 * NS_PER_US, true},
        {"--counters cycles", 0, true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct sysroot sr;
        fixture_sysroot(&sr, "tsc-watchdog-unstable");
        static char line[sizeof sr.prefix + 128];
        snprintf(line, sizeof line, "run -D 1 --sysroot %s %s", sr.prefix, cases[k].extra);
        parse_ok(line);
        static struct system_info si;
        system_info_read(&sr, &si);
        struct cli_capture cap;
        cli_capture_begin(&cap);
        int rc = run_validate(&params, &si, &sr);
        cli_capture_end(&cap);
        assert_int_equal(rc, -1);
        assert_int_equal(params.deadline_ns, cases[k].deadline_ns);
        assert_int_equal(run_has_deadline(&params), cases[k].deadline_ns > 0);
        assert_int_equal(control_task_columns(&params), cases[k].columns);
    }
}

static void test_run_clock_tsc_refused_where_the_watchdog_marked_it_unstable(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(validate_on("tsc-watchdog-unstable", "tsc", &cap), EXIT_USAGE);
    assert_string_equal(cap.err_text,
                        "jitterlab: --clock tsc: refused: the kernel's clocksource watchdog "
                        "marked the TSC unstable (kernel log: \"clocksource: timekeeping watchdog "
                        "on CPU1: Marking clocksource 'tsc' as unstable because the skew is too "
                        "large:\")\n");
    assert_string_equal(cap.out_text, "");
    /* the clock that does not need the TSC is not checked */
    assert_int_equal(validate_on("tsc-watchdog-unstable", "monotonic", &cap), -1);
    assert_string_equal(cap.err_text, "");
}

static void test_run_clock_tsc_refused_without_an_invariant_tsc_naming_every_reason(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(validate_on("tsc-not-invariant", "tsc", &cap), EXIT_USAGE);
    assert_string_equal(cap.err_text,
                        "jitterlab: --clock tsc: refused: the TSC is not invariant: nonstop_tsc "
                        "missing from /proc/cpuinfo (it stops in deep C-states); the kernel "
                        "marked the TSC unstable due to TSC halts in idle\n");
}

static void test_run_clock_tsc_goes_on_with_an_invariant_tsc_and_a_clean_log(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(validate_on("tsc-invariant-clean", "tsc", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(cap.out_text, "");
    assert_int_equal(params.clock, ENGINE_CLOCK_TSC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_defaults),
        cmocka_unit_test(test_run_wake_defaults_to_the_timer_and_takes_every_mechanism),
        cmocka_unit_test(test_run_waker_priority_defaults_to_one_above_the_measured_threads),
        cmocka_unit_test(test_run_waker_cpu_defaults_to_housekeeping_and_must_be_online),
        cmocka_unit_test(test_run_takes_cyclictests_harmless_options_with_a_note),
        cmocka_unit_test(test_run_bare_numbers_take_each_options_unit),
        cmocka_unit_test(test_run_every_option_lands_in_params),
        cmocka_unit_test(test_run_pm_qos_takes_units),
        cmocka_unit_test(test_run_short_options),
        cmocka_unit_test(test_run_report_every_counts_or_times_and_the_last_wins),
        cmocka_unit_test(test_run_report_every_bare_number_is_seconds_as_for_duration),
        cmocka_unit_test(test_run_policy_text_names_the_policy_obtained),
        cmocka_unit_test(test_run_warns_when_the_spin_is_not_shorter_than_the_interval),
        cmocka_unit_test(test_run_policy_other_has_priority_zero),
        cmocka_unit_test(test_run_deadline_completes_the_reservation),
        cmocka_unit_test(test_run_tune_profile_realtime),
        cmocka_unit_test(test_run_sysroot_from_environment_unless_given),
        cmocka_unit_test(test_run_explain_threshold_and_keep),
        cmocka_unit_test(test_run_help_prints_usage_and_exits_0),
        cmocka_unit_test(test_run_per_cpu_asks_for_every_cpu_row),
        cmocka_unit_test(test_run_bad_input_exits_2_with_the_exact_message),
        cmocka_unit_test(test_run_forever_and_duration_zero_run_until_stopped),
        cmocka_unit_test(test_run_prometheus_address_defaults_to_loopback),
        cmocka_unit_test(test_run_prometheus_buckets_or_the_default_bounds),
        cmocka_unit_test(test_run_influx_destination_and_its_default_window),
        cmocka_unit_test(test_run_export_options_bad_input_exits_2_with_the_exact_message),
        cmocka_unit_test(test_run_forever_with_a_duration_names_the_duration_as_given),
        cmocka_unit_test(test_run_tail_and_until_confident_parse),
        cmocka_unit_test(test_run_has_a_deadline_only_with_a_workload_or_deadline),
        cmocka_unit_test(test_run_clock_tsc_refused_where_the_watchdog_marked_it_unstable),
        cmocka_unit_test(test_run_clock_tsc_refused_without_an_invariant_tsc_naming_every_reason),
        cmocka_unit_test(test_run_clock_tsc_goes_on_with_an_invariant_tsc_and_a_clean_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
