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
#include "tune/tune.h"
#include "test_cli.h"

static struct run_params params;

CLI_DEFINE_PARSE(run_parse_args, &params)

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
    assert_int_equal(params.deadline_ns, NS_PER_MS); /* the interval */
    assert_int_equal(params.common.cpus.count, 0);
    assert_false(params.common.quiet);
    assert_null(params.common.json_path);
    assert_null(params.common.sysroot_dir);
    assert_int_equal(params.tune_actions, 0);
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
    parse_ok("run --report-every 1s --report-every 1000");
    assert_int_equal(params.report_every_samples, 1000);
    assert_int_equal(params.report_every_ns, 0);
    parse_ok("run --report-every 1000 --report-every 250ms");
    assert_int_equal(params.report_every_samples, 0);
    assert_int_equal(params.report_every_ns, 250 * NS_PER_MS);
}

static void test_run_policy_other_has_priority_zero(void **state)
{
    (void)state;
    parse_ok("run --policy other");
    assert_int_equal(params.policy, SCHED_OTHER);
    assert_int_equal(params.priority, 0);
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

static const struct cli_bad_case bad_cases[] = {
    {"run -i 0", "jitterlab: --interval 0: must be greater than 0\n"},
    {"run -i 2h", "jitterlab: --interval 2h: must be at most 1h\n"},
    {"run -i abc", "jitterlab: --interval abc: not a duration (write e.g. 250us, 1.5ms, 10s)\n"},
    {"run -a 1-", "jitterlab: --cpus 1-: malformed CPU list (range without an end, e.g. 0-3)\n"},
    {"run -p 0", "jitterlab: --priority 0: must be a whole number from 1 to 99\n"},
    {"run -p 100", "jitterlab: --priority 100: must be a whole number from 1 to 99\n"},
    {"run --policy idle", "jitterlab: --policy idle: must be fifo, rr or other\n"},
    {"run --policy other -p 5", "jitterlab: --priority: has no meaning with --policy other\n"},
    {"run -D 0", "jitterlab: --duration 0: must be greater than 0\n"},
    {"run -l 0", "jitterlab: --loops 0: must be a whole number from 1 to 1000000000000\n"},
    {"run -l 1000000000000 -i 1h",
     "jitterlab: --loops 1000000000000: loops x interval must be at most 366 days\n"},
    {"run --clock foo", "jitterlab: --clock foo: must be monotonic or tsc\n"},
    {"run --tolerance -1", "jitterlab: --tolerance -1: must not be negative\n"},
    {"run --report-every 0",
     "jitterlab: --report-every 0: must be a whole number from 1 to 1000000000\n"},
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
     "rt-throttling, thp, nmi-watchdog)\n"},
    {"run --tune=pm-qos,nope",
     "jitterlab: --tune pm-qos,nope: not a profile (latency, realtime), and unknown action "
     "'nope' (actions: pm-qos, idle-states, resume-latency, cpufreq, timer-migration, "
     "irq-affinity, rt-throttling, thp, nmi-watchdog)\n"},
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
    {"run --bogus", "jitterlab: run: unknown option '--bogus' (see jitterlab help run)\n"},
    {"run -x", "jitterlab: run: unknown option '-x' (see jitterlab help run)\n"},
    {"run -i", "jitterlab: -i: needs a value\n"},
    {"run --json", "jitterlab: --json: needs a value\n"},
    {"run extra", "jitterlab: run: unexpected argument 'extra' (see jitterlab help run)\n"},
};

static void test_run_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_defaults),
        cmocka_unit_test(test_run_bare_numbers_take_each_options_unit),
        cmocka_unit_test(test_run_every_option_lands_in_params),
        cmocka_unit_test(test_run_short_options),
        cmocka_unit_test(test_run_report_every_counts_or_times_and_the_last_wins),
        cmocka_unit_test(test_run_policy_other_has_priority_zero),
        cmocka_unit_test(test_run_tune_profile_realtime),
        cmocka_unit_test(test_run_sysroot_from_environment_unless_given),
        cmocka_unit_test(test_run_explain_threshold_and_keep),
        cmocka_unit_test(test_run_help_prints_usage_and_exits_0),
        cmocka_unit_test(test_run_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
