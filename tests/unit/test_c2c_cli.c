/*
 * `jitterlab c2c` option parsing (src/cmd/c2c.c), called without reading
 * the machine: the defaults, every option landing in struct c2c_params,
 * the help text, and every bad input with its exact message (exit 2,
 * nothing on stdout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/c2c_cli.h"
#include "cmd/cmd.h"
#include "test_cli.h"

static struct c2c_params params;

CLI_DEFINE_PARSE(c2c_parse_args, &params)

static void test_c2c_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    unsetenv("JITTERLAB_SYSROOT");
    assert_int_equal(parse("c2c", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(cap.out_text, "");
    assert_int_equal(params.mode, C2C_LOAD_STORE);
    assert_int_equal(params.round_trips, 10000);
    assert_int_equal(params.round_trips, C2C_DEFAULT_ROUND_TRIPS);
    assert_int_equal(params.rounds, 3);
    assert_int_equal(params.rounds, C2C_DEFAULT_ROUNDS);
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, 10);
    assert_int_equal(params.sched.priority, C2C_DEFAULT_PRIORITY);
    assert_false(params.sched.priority_set);
    assert_null(params.csv_path);
    assert_int_equal(params.common.cpus.count, 0); /* every online CPU */
    assert_null(params.common.json_path);
    assert_null(params.common.sysroot_dir);
    assert_false(params.common.quiet);
}

static void test_c2c_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("c2c -a 0,2-3 --mode cas -n 500 --rounds 7 --policy fifo -p 42 "
                           "--csv m.csv --json m.json -q --sysroot /fx",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(params.common.cpus.count, 3);
    assert_int_equal(params.common.cpus.cpu[0], 0);
    assert_int_equal(params.common.cpus.cpu[1], 2);
    assert_int_equal(params.common.cpus.cpu[2], 3);
    assert_string_equal(params.common.cpus_text, "0,2-3");
    assert_int_equal(params.mode, C2C_CAS);
    assert_int_equal(params.round_trips, 500);
    assert_int_equal(params.rounds, 7);
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, 42);
    assert_true(params.sched.priority_set);
    assert_string_equal(params.csv_path, "m.csv");
    assert_string_equal(params.common.json_path, "m.json");
    assert_true(params.common.quiet);
    assert_string_equal(params.common.sysroot_dir, "/fx");
    /* the long forms, and the mode named explicitly */
    assert_int_equal(parse("c2c --cpus 1-2 --mode load-store --round-trips 1 --priority 99 "
                           "--quiet",
                           &cap),
                     -1);
    assert_int_equal(params.common.cpus.count, 2);
    assert_int_equal(params.mode, C2C_LOAD_STORE);
    assert_int_equal(params.round_trips, 1);
    assert_int_equal(params.sched.priority, 99);
    assert_true(params.common.quiet);
}

static void test_c2c_policy_other_has_no_priority(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("c2c --policy other", &cap), -1);
    assert_false(params.sched.fifo);
    assert_int_equal(params.sched.priority, 0);
    assert_int_equal(parse("c2c --policy other --policy fifo", &cap), -1);
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, C2C_DEFAULT_PRIORITY);
}

static void test_c2c_bounds_are_taken(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("c2c -n 1000000 --rounds 1000 -p 1", &cap), -1);
    assert_int_equal(params.round_trips, C2C_MAX_ROUND_TRIPS);
    assert_int_equal(params.rounds, C2C_MAX_ROUNDS);
    assert_int_equal(params.sched.priority, 1);
    assert_int_equal(parse("c2c --rounds 1 -a 0-1", &cap), -1);
    assert_int_equal(params.rounds, 1);
    assert_int_equal(params.common.cpus.count, 2);
}

static void test_c2c_options_reset_between_parses(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("c2c --csv a.csv --mode cas -n 5 --rounds 2 -p 3 -q", &cap), -1);
    assert_int_equal(parse("c2c", &cap), -1);
    assert_null(params.csv_path);
    assert_int_equal(params.mode, C2C_LOAD_STORE);
    assert_int_equal(params.round_trips, C2C_DEFAULT_ROUND_TRIPS);
    assert_int_equal(params.rounds, C2C_DEFAULT_ROUNDS);
    assert_int_equal(params.sched.priority, C2C_DEFAULT_PRIORITY);
    assert_false(params.sched.priority_set);
    assert_false(params.common.quiet);
}

static void test_c2c_sysroot_falls_back_to_the_environment(void **state)
{
    (void)state;
    struct cli_capture cap;
    setenv("JITTERLAB_SYSROOT", "/env/tree", 1);
    assert_int_equal(parse("c2c", &cap), -1);
    assert_string_equal(params.common.sysroot_dir, "/env/tree");
    assert_int_equal(parse("c2c --sysroot /given", &cap), -1);
    assert_string_equal(params.common.sysroot_dir, "/given");
    unsetenv("JITTERLAB_SYSROOT");
}

static void test_c2c_help_lists_every_option(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("c2c --help", &cap), EXIT_OK);
    assert_string_equal(cap.err_text, "");
    assert_non_null(strstr(cap.out_text, "usage: jitterlab c2c [options]"));
    static const char *const options[] = {
        "--cpus LIST",     "--mode M",        "load-store",   "cas",
        "--round-trips N", "--rounds N",      "--policy P",   "--priority N",
        "--csv FILE",      "--json FILE",     "--quiet",      "--sysroot DIR",
        "--help",          "(default 10000)", "(default 3)",  "(default 10)",
        "at least two",    "10 ms",           "kind \"c2c\"", "lowest median",
    };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (!strstr(cap.out_text, options[i]))
            fail_msg("help lacks '%s'", options[i]);
    assert_int_equal(parse("c2c -h", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab c2c [options]"));
}

static const struct cli_bad_case bad_cases[] = {
    {"c2c -a 1", "jitterlab: --cpus 1: needs at least two CPUs\n"},
    {"c2c --cpus 3-3", "jitterlab: --cpus 3-3: needs at least two CPUs\n"},
    {"c2c -a 1-", "jitterlab: --cpus 1-: malformed CPU list (range without an end, e.g. 0-3)\n"},
    {"c2c --mode store", "jitterlab: --mode store: must be load-store or cas\n"},
    {"c2c --mode CAS", "jitterlab: --mode CAS: must be load-store or cas\n"},
    {"c2c -n 0", "jitterlab: --round-trips 0: must be a whole number from 1 to 1000000\n"},
    {"c2c --round-trips 1000001",
     "jitterlab: --round-trips 1000001: must be a whole number from 1 to 1000000\n"},
    {"c2c -n 1k", "jitterlab: --round-trips 1k: must be a whole number from 1 to 1000000\n"},
    {"c2c --rounds 0", "jitterlab: --rounds 0: must be a whole number from 1 to 1000\n"},
    {"c2c --rounds -3", "jitterlab: --rounds -3: must be a whole number from 1 to 1000\n"},
    {"c2c --rounds 1001", "jitterlab: --rounds 1001: must be a whole number from 1 to 1000\n"},
    {"c2c --policy rr", "jitterlab: --policy rr: must be fifo or other\n"},
    {"c2c -p 0", "jitterlab: --priority 0: must be a whole number from 1 to 99\n"},
    {"c2c --priority 100", "jitterlab: --priority 100: must be a whole number from 1 to 99\n"},
    {"c2c --policy other -p 5", "jitterlab: --priority: has no meaning with --policy other\n"},
    {"c2c --bogus", "jitterlab: c2c: unknown option '--bogus' (see jitterlab help c2c)\n"},
    {"c2c -x", "jitterlab: c2c: unknown option '-x' (see jitterlab help c2c)\n"},
    {"c2c extra", "jitterlab: c2c: unexpected argument 'extra' (see jitterlab help c2c)\n"},
    {"c2c --mode", "jitterlab: --mode: needs a value\n"},
    {"c2c -n", "jitterlab: -n: needs a value\n"},
    {"c2c --rounds", "jitterlab: --rounds: needs a value\n"},
    {"c2c --policy", "jitterlab: --policy: needs a value\n"},
    {"c2c -p", "jitterlab: -p: needs a value\n"},
    {"c2c --csv", "jitterlab: --csv: needs a value\n"},
    {"c2c --json", "jitterlab: --json: needs a value\n"},
};

static void test_c2c_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c2c_defaults),
        cmocka_unit_test(test_c2c_every_option_lands_in_params),
        cmocka_unit_test(test_c2c_policy_other_has_no_priority),
        cmocka_unit_test(test_c2c_bounds_are_taken),
        cmocka_unit_test(test_c2c_options_reset_between_parses),
        cmocka_unit_test(test_c2c_sysroot_falls_back_to_the_environment),
        cmocka_unit_test(test_c2c_help_lists_every_option),
        cmocka_unit_test(test_c2c_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
