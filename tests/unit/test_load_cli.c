/*
 * `jitterlab load` option parsing (src/cmd/load.c), called without starting
 * a load: the KIND argument, every option, every bad input and its message.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/load_cli.h"
#include "common/units.h"
#include "test_cli.h"

static struct load_params params;

CLI_DEFINE_PARSE(load_parse_args, &params)

static void test_load_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    unsetenv("JITTERLAB_SYSROOT");
    assert_int_equal(parse("load cpu", &cap), -1);
    assert_string_equal(params.kind_text, "cpu");
    assert_int_equal(params.duration_ns, 10 * NS_PER_S);
    assert_int_equal(params.sched.policy, SCHED_OTHER);
    assert_int_equal(params.sched.nice, 0);
    assert_int_equal(params.common.cpus.count, 0);
    assert_null(params.common.sysroot_dir);
}

static void test_load_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("load -a 1 -D 3 --policy batch --nice 5 --json l.json -q --sysroot /t "
                           "pulse:100ms:400ms",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(params.kind_text, "pulse:100ms:400ms");
    assert_int_equal(params.common.cpus.cpu[0], 1);
    assert_int_equal(params.duration_ns, 3 * NS_PER_S);
    assert_int_equal(params.sched.policy, SCHED_BATCH);
    assert_int_equal(params.sched.nice, 5);
    assert_string_equal(params.common.json_path, "l.json");
    assert_true(params.common.quiet);
    assert_string_equal(params.common.sysroot_dir, "/t");
    /* options may follow the KIND */
    assert_int_equal(parse("load cache --policy idle --duration 1m", &cap), -1);
    assert_string_equal(params.kind_text, "cache");
    assert_int_equal(params.sched.policy, SCHED_IDLE);
    assert_int_equal(params.duration_ns, 60 * NS_PER_S);
}

static void test_load_help(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("load --help", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab load KIND [options]"));
}

static const struct cli_bad_case bad_cases[] = {
    {"load", "jitterlab: load: which load? (e.g. jitterlab load pulse:100ms:400ms -a 1; see "
             "jitterlab help load)\n"},
    {"load cpu extra", "jitterlab: load: unexpected argument 'extra' (see jitterlab help load)\n"},
    {"load --policy fifo cpu",
     "jitterlab: --policy fifo: must be other, batch or idle (loads never run real-time)\n"},
    {"load --nice 20 cpu", "jitterlab: --nice 20: must be a whole number from -20 to 19\n"},
    {"load -D 0 cpu", "jitterlab: --duration 0: must be greater than 0\n"},
    {"load -a 1- cpu",
     "jitterlab: --cpus 1-: malformed CPU list (range without an end, e.g. 0-3)\n"},
    {"load --bogus", "jitterlab: load: unknown option '--bogus' (see jitterlab help load)\n"},
    {"load cpu -D", "jitterlab: -D: needs a value\n"},
};

static void test_load_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

/* Parsing reorders argv (getopt puts KIND last); cli_argv_copy, taken
 * before, keeps the command line as typed for the --json document. */
static void test_load_argv_copy_keeps_the_typed_order(void **state)
{
    (void)state;
    struct cli_args a;
    char **argv = cli_args_split(&a, "load -D 1 cpu -a 1 --json l.json");
    char **typed = cli_argv_copy(a.argc, argv);
    assert_non_null(typed);
    struct cli_capture cap;
    cli_capture_begin(&cap);
    int rc = load_parse_args(a.argc, argv, &params);
    cli_capture_end(&cap);
    assert_int_equal(rc, -1);
    assert_string_equal(params.kind_text, "cpu");
    assert_string_equal(argv[3], "-a"); /* what getopt did to argv */
    const char *want[] = {"load", "-D", "1", "cpu", "-a", "1", "--json", "l.json"};
    for (int i = 0; i < a.argc; i++)
        assert_string_equal(typed[i], want[i]);
    assert_null(typed[a.argc]);
    free(typed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_defaults),
        cmocka_unit_test(test_load_argv_copy_keeps_the_typed_order),
        cmocka_unit_test(test_load_every_option_lands_in_params),
        cmocka_unit_test(test_load_help),
        cmocka_unit_test(test_load_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
