/*
 * `jitterlab inspect` option parsing (src/cmd/inspect.c), called without
 * reading the machine: every option, every bad input and its exact message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/inspect_cli.h"
#include "common/units.h"
#include "test_cli.h"

static struct inspect_params params;

CLI_DEFINE_PARSE(inspect_parse_args, &params)

static void test_inspect_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    unsetenv("JITTERLAB_SYSROOT");
    assert_int_equal(parse("inspect", &cap), -1);
    assert_int_equal(params.budget_ns, 50 * NS_PER_US);
    assert_false(params.strict);
    assert_int_equal(params.common.cpus.count, 0);
    assert_null(params.common.json_path);
    assert_null(params.common.sysroot_dir);
}

static void test_inspect_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(
        parse("inspect -a 1,3 --budget 20 --strict --json i.json --sysroot /t -q", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(params.common.cpus.count, 2);
    assert_string_equal(params.common.cpus_text, "1,3");
    assert_int_equal(params.budget_ns, 20 * NS_PER_US);
    assert_true(params.strict);
    assert_string_equal(params.common.json_path, "i.json");
    assert_string_equal(params.common.sysroot_dir, "/t");
    assert_true(params.common.quiet);
    assert_int_equal(parse("inspect --cpus 2 --quiet --budget 1ms", &cap), -1);
    assert_int_equal(params.common.cpus.cpu[0], 2);
    assert_int_equal(params.budget_ns, NS_PER_MS);
    assert_int_equal(params.measure_ns, 0);
    assert_int_equal(parse("inspect --measure 5 -i 250", &cap), -1);
    assert_int_equal(params.measure_ns, 5 * NS_PER_S);     /* bare: seconds, as -D */
    assert_int_equal(params.interval_ns, 250 * NS_PER_US); /* bare: us, as -i */
    assert_int_equal(parse("inspect --measure 500ms", &cap), -1);
    assert_int_equal(params.interval_ns, NS_PER_MS); /* run's default */
    assert_int_equal(parse("inspect --measure 1s --sysroot /", &cap), -1);
}

static void test_inspect_sysroot_from_environment(void **state)
{
    (void)state;
    struct cli_capture cap;
    setenv("JITTERLAB_SYSROOT", "/env", 1);
    assert_int_equal(parse("inspect", &cap), -1);
    assert_string_equal(params.common.sysroot_dir, "/env");
    unsetenv("JITTERLAB_SYSROOT");
}

static void test_inspect_help(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("inspect -h", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab inspect [options]"));
}

static const struct cli_bad_case bad_cases[] = {
    {"inspect --budget 0", "jitterlab: --budget 0: must be greater than 0\n"},
    {"inspect -a x",
     "jitterlab: --cpus x: malformed CPU list (expected a CPU number, e.g. 0-3,6)\n"},
    {"inspect --bogus",
     "jitterlab: inspect: unknown option '--bogus' (see jitterlab help inspect)\n"},
    {"inspect --json", "jitterlab: --json: needs a value\n"},
    {"inspect --measure 0", "jitterlab: --measure 0: must be greater than 0\n"},
    {"inspect --measure soon",
     "jitterlab: --measure soon: not a duration (write e.g. 250us, 1.5ms, 10s)\n"},
    {"inspect --measure 10us",
     "jitterlab: --measure: fewer than 100 cycles of the interval; at least 100ms\n"},
    {"inspect --measure 1s -i 20ms",
     "jitterlab: --measure: fewer than 100 cycles of the interval; at least 2s\n"},
    {"inspect -i 1ms", "jitterlab: --interval: sets the --measure run's interval; add "
                       "--measure\n"},
    {"inspect --measure 1s --sysroot /t",
     "jitterlab: --measure: measures this machine, not a --sysroot (or JITTERLAB_SYSROOT) "
     "tree\n"},
    {"inspect -a", "jitterlab: -a: needs a value\n"},
    {"inspect extra",
     "jitterlab: inspect: unexpected argument 'extra' (see jitterlab help inspect)\n"},
};

static void test_inspect_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inspect_defaults),
        cmocka_unit_test(test_inspect_every_option_lands_in_params),
        cmocka_unit_test(test_inspect_sysroot_from_environment),
        cmocka_unit_test(test_inspect_help),
        cmocka_unit_test(test_inspect_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
