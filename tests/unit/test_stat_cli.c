/*
 * `jitterlab stat` option parsing (src/cmd/stat.c), called without reading
 * the machine: the defaults, every option landing in struct stat_params,
 * the bare-number units, the help text, and every bad input with its exact
 * message (exit 2, nothing on stdout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/stat_cli.h"
#include "common/units.h"
#include "test_cli.h"

static struct stat_params params;

CLI_DEFINE_PARSE(stat_parse_args, &params)

static void test_stat_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    unsetenv("JITTERLAB_SYSROOT");
    assert_int_equal(parse("stat", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(cap.out_text, "");
    assert_int_equal(params.interval_ns, NS_PER_S);
    assert_int_equal(params.interval_ns, STAT_DEFAULT_INTERVAL_NS);
    assert_int_equal(params.duration_ns, 0); /* until Ctrl-C */
    assert_null(params.csv_path);
    assert_int_equal(params.keep_windows, 3600);
    assert_int_equal(params.keep_windows, STAT_DEFAULT_KEEP);
    assert_int_equal(params.common.cpus.count, 0); /* every online CPU */
    assert_null(params.common.json_path);
    assert_null(params.common.sysroot_dir);
    assert_false(params.common.quiet);
}

static void test_stat_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("stat -a 0,2-3 -i 250ms -D 1m --csv s.csv --json s.json "
                           "--keep-windows 12 -q --sysroot /fx",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(params.common.cpus.count, 3);
    assert_int_equal(params.common.cpus.cpu[0], 0);
    assert_int_equal(params.common.cpus.cpu[2], 3);
    assert_string_equal(params.common.cpus_text, "0,2-3");
    assert_int_equal(params.interval_ns, 250 * NS_PER_MS);
    assert_int_equal(params.duration_ns, 60 * NS_PER_S);
    assert_string_equal(params.csv_path, "s.csv");
    assert_string_equal(params.common.json_path, "s.json");
    assert_int_equal(params.keep_windows, 12);
    assert_true(params.common.quiet);
    assert_string_equal(params.common.sysroot_dir, "/fx");
    /* the long forms */
    assert_int_equal(parse("stat --cpus 1 --interval 2s --duration 90s --quiet", &cap), -1);
    assert_int_equal(params.common.cpus.count, 1);
    assert_int_equal(params.common.cpus.cpu[0], 1);
    assert_int_equal(params.interval_ns, 2 * NS_PER_S);
    assert_int_equal(params.duration_ns, 90 * NS_PER_S);
    assert_true(params.common.quiet);
}

static void test_stat_bare_numbers_are_seconds(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("stat -i 2 -D 2.2", &cap), -1);
    assert_int_equal(params.interval_ns, 2 * NS_PER_S);
    assert_int_equal(params.duration_ns, 2200 * NS_PER_MS);
    assert_int_equal(parse("stat -i 0.5", &cap), -1);
    assert_int_equal(params.interval_ns, 500 * NS_PER_MS);
}

static void test_stat_interval_of_exactly_10ms_is_the_minimum_taken(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("stat -i 10ms", &cap), -1);
    assert_int_equal(params.interval_ns, STAT_MIN_INTERVAL_NS);
    assert_int_equal(parse("stat -i 0.01", &cap), -1);
    assert_int_equal(params.interval_ns, 10 * NS_PER_MS);
}

static void test_stat_keep_windows_bounds(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("stat --keep-windows 0", &cap), -1);
    assert_int_equal(params.keep_windows, 0);
    assert_int_equal(parse("stat --keep-windows 1000000", &cap), -1);
    assert_int_equal(params.keep_windows, 1000000);
}

static void test_stat_options_reset_between_parses(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("stat --csv a.csv -i 20ms --keep-windows 5 -q", &cap), -1);
    assert_int_equal(parse("stat", &cap), -1);
    assert_null(params.csv_path);
    assert_int_equal(params.interval_ns, NS_PER_S);
    assert_int_equal(params.keep_windows, STAT_DEFAULT_KEEP);
    assert_false(params.common.quiet);
}

static void test_stat_sysroot_falls_back_to_the_environment(void **state)
{
    (void)state;
    struct cli_capture cap;
    setenv("JITTERLAB_SYSROOT", "/env/tree", 1);
    assert_int_equal(parse("stat", &cap), -1);
    assert_string_equal(params.common.sysroot_dir, "/env/tree");
    assert_int_equal(parse("stat --sysroot /given", &cap), -1);
    assert_string_equal(params.common.sysroot_dir, "/given");
    unsetenv("JITTERLAB_SYSROOT");
}

static void test_stat_help_lists_every_option(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("stat --help", &cap), EXIT_OK);
    assert_string_equal(cap.err_text, "");
    assert_non_null(strstr(cap.out_text, "usage: jitterlab stat [options]"));
    static const char *const options[] = {"--cpus LIST",    "--interval DUR", "--duration DUR",
                                          "--csv FILE",     "--json FILE",    "--keep-windows N",
                                          "--quiet",        "--sysroot DIR",  "--help",
                                          "(default 3600)", "at least 10ms"};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (!strstr(cap.out_text, options[i]))
            fail_msg("help lacks '%s'", options[i]);
    assert_int_equal(parse("stat -h", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab stat [options]"));
}

static const struct cli_bad_case bad_cases[] = {
    {"stat -i 1ms", "jitterlab: --interval 1ms: must be at least 10ms\n"},
    {"stat -i 9999us", "jitterlab: --interval 9999us: must be at least 10ms\n"},
    {"stat -i 0.009", "jitterlab: --interval 0.009: must be at least 10ms\n"},
    {"stat -i abc", "jitterlab: --interval abc: not a duration (write e.g. 250us, 1.5ms, 10s)\n"},
    {"stat -i 0", "jitterlab: --interval 0: must be greater than 0\n"},
    {"stat --interval -5", "jitterlab: --interval -5: must not be negative\n"},
    {"stat -i 1e3", "jitterlab: --interval 1e3: unknown unit (use ns, us, ms, s, m, h)\n"},
    {"stat -D 0", "jitterlab: --duration 0: must be greater than 0\n"},
    {"stat --duration -1", "jitterlab: --duration -1: must not be negative\n"},
    {"stat -D 2.2x", "jitterlab: --duration 2.2x: unknown unit (use ns, us, ms, s, m, h)\n"},
    {"stat -D 100000000h", "jitterlab: --duration 100000000h: too large\n"},
    {"stat --keep-windows -1",
     "jitterlab: --keep-windows -1: must be a whole number from 0 to 1000000\n"},
    {"stat --keep-windows 1000001",
     "jitterlab: --keep-windows 1000001: must be a whole number from 0 to 1000000\n"},
    {"stat --keep-windows x",
     "jitterlab: --keep-windows x: must be a whole number from 0 to 1000000\n"},
    {"stat -a 1-", "jitterlab: --cpus 1-: malformed CPU list (range without an end, e.g. 0-3)\n"},
    {"stat --bogus", "jitterlab: stat: unknown option '--bogus' (see jitterlab help stat)\n"},
    {"stat -x", "jitterlab: stat: unknown option '-x' (see jitterlab help stat)\n"},
    {"stat extra", "jitterlab: stat: unexpected argument 'extra' (see jitterlab help stat)\n"},
    {"stat -i", "jitterlab: -i: needs a value\n"},
    {"stat -D", "jitterlab: -D: needs a value\n"},
    {"stat --csv", "jitterlab: --csv: needs a value\n"},
    {"stat --keep-windows", "jitterlab: --keep-windows: needs a value\n"},
    {"stat --json", "jitterlab: --json: needs a value\n"},
};

static void test_stat_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_defaults),
        cmocka_unit_test(test_stat_every_option_lands_in_params),
        cmocka_unit_test(test_stat_bare_numbers_are_seconds),
        cmocka_unit_test(test_stat_interval_of_exactly_10ms_is_the_minimum_taken),
        cmocka_unit_test(test_stat_keep_windows_bounds),
        cmocka_unit_test(test_stat_options_reset_between_parses),
        cmocka_unit_test(test_stat_sysroot_falls_back_to_the_environment),
        cmocka_unit_test(test_stat_help_lists_every_option),
        cmocka_unit_test(test_stat_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
