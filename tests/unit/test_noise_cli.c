/*
 * `jitterlab noise` option parsing (src/cmd/noise_cli.c), called without
 * reading the machine: the defaults, every option landing in struct
 * noise_params, the help text, and every bad input with its exact message
 * (exit 2, nothing on stdout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/noise_cli.h"
#include "test_cli.h"

static struct noise_params params;

CLI_DEFINE_PARSE(noise_parse_args, &params)

static void test_noise_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    unsetenv("JITTERLAB_SYSROOT");
    assert_int_equal(parse("noise", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(cap.out_text, "");
    assert_int_equal(params.duration_ns, 10 * INT64_C(1000000000));
    assert_int_equal(params.threshold_ns, 1000);
    assert_false(params.sched.fifo);
    assert_int_equal(params.sched.priority, 0);
    assert_int_equal(params.runtime_ns, 950 * INT64_C(1000000));
    assert_int_equal(params.period_ns, INT64_C(1000000000));
    assert_int_equal(params.report_every_ns, INT64_C(1000000000));
    assert_int_equal(params.largest, 10);
    assert_false(params.no_trace);
    assert_false(params.per_cpu);
    assert_null(params.hist_path);
    assert_int_equal(params.hist_max_ns, 1000 * INT64_C(1000));
    assert_int_equal(params.common.cpus.count, 0);
    assert_null(params.common.json_path);
    assert_false(params.common.quiet);
}

static void test_noise_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("noise -a 1-2 -D 5 --threshold 2.5 --policy fifo -p 95 --runtime 400ms "
                           "--period 500ms --report-every 250ms --largest 3 --no-trace "
                           "--histogram-file h.txt --histogram-max 200 --json n.json -q "
                           "--sysroot /fx --per-cpu",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(params.common.cpus.count, 2);
    assert_int_equal(params.duration_ns, 5 * INT64_C(1000000000));
    assert_int_equal(params.threshold_ns, 2500);
    assert_true(params.per_cpu);
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, 95);
    assert_int_equal(params.runtime_ns, 400 * INT64_C(1000000));
    assert_int_equal(params.period_ns, 500 * INT64_C(1000000));
    assert_int_equal(params.report_every_ns, 250 * INT64_C(1000000));
    assert_int_equal(params.largest, 3);
    assert_true(params.no_trace);
    assert_string_equal(params.hist_path, "h.txt");
    assert_int_equal(params.hist_max_ns, 200 * INT64_C(1000));
    assert_string_equal(params.common.json_path, "n.json");
    assert_true(params.common.quiet);
    assert_string_equal(params.common.sysroot_dir, "/fx");
}

static void test_noise_fifo_keeps_its_default_priority_and_slices(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("noise --policy fifo", &cap), -1);
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, CLI_SCHED_DEFAULT_PRIORITY);
    assert_int_equal(params.runtime_ns, NOISE_DEFAULT_RUNTIME_NS);
    assert_int_equal(params.period_ns, NOISE_DEFAULT_PERIOD_NS);
    /* runtime == period: one slice, no sleep */
    assert_int_equal(parse("noise --policy fifo --runtime 1s", &cap), -1);
    assert_int_equal(params.runtime_ns, params.period_ns);
    /* the options reset between parses */
    assert_int_equal(parse("noise", &cap), -1);
    assert_false(params.sched.fifo);
    assert_false(params.runtime_set);
}

static void test_noise_help_lists_every_option(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("noise --help", &cap), EXIT_OK);
    assert_string_equal(cap.err_text, "");
    assert_non_null(strstr(cap.out_text, "usage: jitterlab noise [options]"));
    static const char *const options[] = {
        "--cpus LIST",           "--duration DUR",
        "--threshold DUR",       "--policy P",
        "--priority N",          "--runtime DUR",
        "--period DUR",          "--report-every DUR",
        "--largest N",           "--no-trace",
        "--histogram-file FILE", "--histogram-max DUR",
        "--json FILE",           "--quiet",
        "--sysroot DIR",         "--help",
        "default 10s",           "default\n                          1us",
        "default 950ms",         "kind \"noise\"",
        "Exit status",
    };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (!strstr(cap.out_text, options[i]))
            fail_msg("help lacks '%s'", options[i]);
    assert_non_null(strstr(cap.out_text, "--per-cpu           a summary row for every CPU "
                                         "(default: above 16 CPUs,\n"));
}

static const struct cli_bad_case bad_cases[] = {
    {"noise --threshold 0", "jitterlab: --threshold 0: must be greater than 0\n"},
    {"noise --threshold -1us", "jitterlab: --threshold -1us: must not be negative\n"},
    {"noise --threshold 2s", "jitterlab: --threshold 2s: must be at most 1s\n"},
    {"noise --threshold 1x", "jitterlab: --threshold 1x: unknown unit (use ns, us, ms, s, m, h)\n"},
    {"noise -D 0", "jitterlab: --duration 0: must be greater than 0\n"},
    {"noise -D 8d", "jitterlab: --duration 8d: unknown unit (use ns, us, ms, s, m, h)\n"},
    {"noise -D 700000", "jitterlab: --duration 700000: must be at most 7 days\n"},
    {"noise --policy rr", "jitterlab: --policy rr: must be fifo or other\n"},
    {"noise --policy idle", "jitterlab: --policy idle: must be fifo or other\n"},
    {"noise -p 50", "jitterlab: --priority: has no meaning with --policy other\n"},
    {"noise --policy fifo -p 0", "jitterlab: --priority 0: must be a whole number from 1 to 99\n"},
    {"noise --runtime 10ms",
     "jitterlab: --runtime: has no meaning with --policy other (the loop never sleeps)\n"},
    {"noise --period 10ms",
     "jitterlab: --period: has no meaning with --policy other (the loop never sleeps)\n"},
    {"noise --policy fifo --runtime 2s",
     "jitterlab: --runtime 2s: must not be longer than --period (1s)\n"},
    {"noise --policy fifo --runtime 600ms --period 500ms",
     "jitterlab: --runtime 600ms: must not be longer than --period (500ms)\n"},
    {"noise --policy fifo --period 5ms", "jitterlab: --period 5ms: must be at least 10ms\n"},
    {"noise --report-every 10ms", "jitterlab: --report-every 10ms: must be at least 100ms\n"},
    {"noise --largest -1", "jitterlab: --largest -1: must be a whole number from 0 to 10000\n"},
    {"noise --largest 10001",
     "jitterlab: --largest 10001: must be a whole number from 0 to 10000\n"},
    {"noise --histogram-max 100", "jitterlab: --histogram-max: needs --histogram-file\n"},
    {"noise --histogram-file h --histogram-max 20s",
     "jitterlab: --histogram-max 20s: must be from 1us to 10s\n"},
    {"noise --threshold 1s --report-every 1s",
     "jitterlab: --threshold: must be shorter than --report-every\n"},
    {"noise --bogus", "jitterlab: noise: unknown option '--bogus' (see jitterlab help noise)\n"},
    {"noise extra", "jitterlab: noise: unexpected argument 'extra' (see jitterlab help noise)\n"},
    {"noise --threshold", "jitterlab: --threshold: needs a value\n"},
    {"noise -D", "jitterlab: -D: needs a value\n"},
};

static void test_noise_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noise_defaults),
        cmocka_unit_test(test_noise_every_option_lands_in_params),
        cmocka_unit_test(test_noise_fifo_keeps_its_default_priority_and_slices),
        cmocka_unit_test(test_noise_help_lists_every_option),
        cmocka_unit_test(test_noise_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
