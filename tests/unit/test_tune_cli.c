/*
 * `jitterlab tune VERB` option parsing (src/cmd/tune.c), called without
 * touching the machine: verbs, every option, which of --only and --profile
 * a bad action list is blamed on, every bad input and its exact message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/tune_cli.h"
#include "common/units.h"
#include "tune/tune.h"
#include "test_cli.h"

static struct tune_params params;

CLI_DEFINE_PARSE(tune_parse_args, &params)

static void test_tune_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    unsetenv("JITTERLAB_TUNE_STATE");
    unsetenv("JITTERLAB_SYSROOT");
    assert_int_equal(parse("tune apply", &cap), -1);
    assert_string_equal(params.verb, "apply");
    assert_int_equal(params.budget_ns, 50 * NS_PER_US);
    assert_int_equal(params.boost, -1);
    assert_false(params.dry_run);
    assert_int_equal(params.duration_ns, 0);
    assert_string_equal(params.state_path, TUNE_DEFAULT_STATE);
    assert_int_equal(params.actions, tune_profile_actions("latency"));
}

static void test_tune_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tune hold --profile realtime -a 1 --budget 20 --freq 2000000 "
                           "--boost off --dry-run --state /tmp/s.json -D 5 --sysroot /t -q",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(params.verb, "hold");
    assert_int_equal(params.actions, tune_profile_actions("realtime"));
    assert_int_equal(params.common.cpus.cpu[0], 1);
    assert_int_equal(params.budget_ns, 20 * NS_PER_US);
    assert_int_equal(params.freq_khz, 2000000);
    assert_int_equal(params.boost, 0);
    assert_true(params.dry_run);
    assert_string_equal(params.state_path, "/tmp/s.json");
    assert_int_equal(params.duration_ns, 5 * NS_PER_S);
    assert_string_equal(params.common.sysroot_dir, "/t");
    assert_true(params.common.quiet);
    assert_int_equal(parse("tune apply --only idle-states,pm-qos --boost on", &cap), -1);
    assert_int_equal(params.actions,
                     (1u << tune_action_find("idle-states")) | (1u << tune_action_find("pm-qos")));
    assert_int_equal(params.boost, 1);
}

static void test_tune_cache_partition_options_land_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tune apply --only cache-partition --cache-ways 4 --cache-group rt_1 "
                           "--mba 50 -a 3",
                           &cap),
                     -1);
    assert_int_equal(params.actions, 1u << tune_action_find("cache-partition"));
    assert_int_equal(params.cache_ways, 4);
    assert_string_equal(params.cache_group, "rt_1");
    assert_int_equal(params.mba_pct, 50);
    /* in no profile */
    assert_int_equal(parse("tune apply --profile realtime", &cap), -1);
    assert_int_equal(params.actions & (1u << tune_action_find("cache-partition")), 0);
}

static void test_tune_state_from_environment(void **state)
{
    (void)state;
    struct cli_capture cap;
    setenv("JITTERLAB_TUNE_STATE", "/tmp/env-state.json", 1);
    assert_int_equal(parse("tune status", &cap), -1);
    assert_string_equal(params.state_path, "/tmp/env-state.json");
    unsetenv("JITTERLAB_TUNE_STATE");
}

static void test_tune_restore_and_status_ignore_the_action_list(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tune restore --profile nope", &cap), -1);
    assert_int_equal(params.actions, 0);
}

static void test_tune_help_and_no_verb(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tune --help", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab tune apply"));
    assert_int_equal(parse("tune apply -h", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab tune apply"));
    assert_int_equal(parse("tune", &cap), EXIT_USAGE);
    assert_non_null(strstr(cap.err_text, "usage: jitterlab tune apply"));
}

static const struct cli_bad_case bad_cases[] = {
    {"tune frob", "jitterlab: tune frob: unknown verb (use apply, restore, status, hold)\n"},
    {"tune apply --only nope",
     "jitterlab: --only nope: unknown action 'nope' (actions: pm-qos, idle-states, "
     "resume-latency, cpufreq, timer-migration, irq-affinity, rt-throttling, thp, "
     "nmi-watchdog, cache-partition)\n"},
    {"tune apply --profile nope",
     "jitterlab: --profile nope: unknown profile (use latency or realtime)\n"},
    /* --only decides when both are given: the profile is not the culprit */
    {"tune apply --profile realtime --only nope",
     "jitterlab: --only nope: unknown action 'nope' (actions: pm-qos, idle-states, "
     "resume-latency, cpufreq, timer-migration, irq-affinity, rt-throttling, thp, "
     "nmi-watchdog, cache-partition)\n"},
    {"tune hold --only ,", "jitterlab: --only ,: empty action list\n"},
    {"tune apply --boost maybe", "jitterlab: --boost maybe: must be on or off\n"},
    {"tune apply --freq 0", "jitterlab: --freq 0: must be a whole number from 1 to 100000000\n"},
    {"tune apply --budget 0", "jitterlab: --budget 0: must be greater than 0\n"},
    {"tune hold -D 0", "jitterlab: --duration 0: must be greater than 0\n"},
    {"tune apply -a x",
     "jitterlab: --cpus x: malformed CPU list (expected a CPU number, e.g. 0-3,6)\n"},
    {"tune apply --json x", "jitterlab: tune: unknown option '--json' (see jitterlab help tune)\n"},
    {"tune apply --state", "jitterlab: --state: needs a value\n"},
    {"tune apply --only cache-partition --cache-ways 0",
     "jitterlab: --cache-ways 0: must be a whole number from 1 to 64\n"},
    {"tune apply --only cache-partition --cache-ways 65",
     "jitterlab: --cache-ways 65: must be a whole number from 1 to 64\n"},
    {"tune apply --only cache-partition --cache-group info",
     "jitterlab: --cache-group info: must be a plain name of up to 48 characters (A-Z a-z 0-9 _ "
     "-), not info, mon_groups or mon_data\n"},
    {"tune apply --only cache-partition --cache-group ../x",
     "jitterlab: --cache-group ../x: must be a plain name of up to 48 characters (A-Z a-z 0-9 _ "
     "-), not info, mon_groups or mon_data\n"},
    {"tune apply --only cache-partition --mba 0",
     "jitterlab: --mba 0: must be a whole number from 1 to 100\n"},
    {"tune apply --only cache-partition --mba 101",
     "jitterlab: --mba 101: must be a whole number from 1 to 100\n"},
    {"tune apply --cache-ways 3",
     "jitterlab: --cache-ways 3: only with the cache-partition action (--only "
     "cache-partition)\n"},
    {"tune apply --only thp --cache-group rt",
     "jitterlab: --cache-group rt: only with the cache-partition action (--only "
     "cache-partition)\n"},
    {"tune restore --mba 50", "jitterlab: --mba 50: only with tune apply or hold\n"},
    {"tune status extra",
     "jitterlab: tune: unexpected argument 'extra' (see jitterlab help tune)\n"},
};

static void test_tune_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tune_defaults),
        cmocka_unit_test(test_tune_every_option_lands_in_params),
        cmocka_unit_test(test_tune_cache_partition_options_land_in_params),
        cmocka_unit_test(test_tune_state_from_environment),
        cmocka_unit_test(test_tune_restore_and_status_ignore_the_action_list),
        cmocka_unit_test(test_tune_help_and_no_verb),
        cmocka_unit_test(test_tune_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
