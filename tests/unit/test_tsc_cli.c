/*
 * `jitterlab tsc` option parsing (src/cmd/tsc.c), called without reading
 * the machine: the defaults, every option landing in struct tsc_params,
 * seconds for a bare -D, --policy other without a priority, the help text,
 * and every bad input with its exact message (exit 2, nothing on stdout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/tsc_cli.h"
#include "common/units.h"
#include "test_cli.h"

static struct tsc_params params;

CLI_DEFINE_PARSE(tsc_parse_args, &params)

static void parse_ok(const char *line)
{
    struct cli_capture cap;
    int rc = parse(line, &cap);
    if (rc != -1 || cap.err_text[0] || cap.out_text[0])
        fail_msg("'%s': rc %d, stderr '%s'", line, rc, cap.err_text);
}

static void test_tsc_defaults(void **state)
{
    (void)state;
    unsetenv("JITTERLAB_SYSROOT");
    parse_ok("tsc");
    assert_int_equal(params.duration_ns, 2 * NS_PER_S);
    assert_int_equal(params.duration_ns, TSC_DEFAULT_DURATION_NS);
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, 10);
    assert_int_equal(params.sched.priority, TSC_DEFAULT_PRIORITY);
    assert_false(params.sched.priority_set);
    assert_null(params.csv_path);
    assert_int_equal(params.common.cpus.count, 0); /* every online CPU */
    assert_null(params.common.json_path);
    assert_null(params.common.sysroot_dir);
    assert_false(params.common.quiet);
}

static void test_tsc_every_option_lands_in_params(void **state)
{
    (void)state;
    parse_ok("tsc -a 0,2-3 -D 500ms -p 42 --policy fifo --csv w.csv --json t.json -q "
             "--sysroot /fx");
    assert_int_equal(params.common.cpus.count, 3);
    assert_int_equal(params.common.cpus.cpu[0], 0);
    assert_int_equal(params.common.cpus.cpu[2], 3);
    assert_string_equal(params.common.cpus_text, "0,2-3");
    assert_int_equal(params.duration_ns, 500 * NS_PER_MS);
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, 42);
    assert_true(params.sched.priority_set);
    assert_string_equal(params.csv_path, "w.csv");
    assert_string_equal(params.common.json_path, "t.json");
    assert_true(params.common.quiet);
    assert_string_equal(params.common.sysroot_dir, "/fx");
    /* the long forms */
    parse_ok("tsc --cpus 1 --duration 3s --priority 99 --quiet");
    assert_int_equal(params.common.cpus.count, 1);
    assert_int_equal(params.common.cpus.cpu[0], 1);
    assert_int_equal(params.duration_ns, 3 * NS_PER_S);
    assert_int_equal(params.sched.priority, 99);
    assert_true(params.common.quiet);
}

static void test_tsc_bare_duration_is_seconds(void **state)
{
    (void)state;
    parse_ok("tsc -D 0.5");
    assert_int_equal(params.duration_ns, 500 * NS_PER_MS);
    parse_ok("tsc -D 2");
    assert_int_equal(params.duration_ns, 2 * NS_PER_S);
    parse_ok("tsc -D 1us"); /* below the per-pair floor: each pair still gets 5 ms */
    assert_int_equal(params.duration_ns, NS_PER_US);
}

static void test_tsc_policy_other_has_priority_zero(void **state)
{
    (void)state;
    parse_ok("tsc --policy other");
    assert_false(params.sched.fifo);
    assert_int_equal(params.sched.priority, 0);
    parse_ok("tsc --policy other --policy fifo"); /* the last one wins */
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, TSC_DEFAULT_PRIORITY);
}

static void test_tsc_options_reset_between_parses(void **state)
{
    (void)state;
    parse_ok("tsc --csv a.csv -D 1 -p 5 --policy fifo -q");
    parse_ok("tsc");
    assert_null(params.csv_path);
    assert_int_equal(params.duration_ns, TSC_DEFAULT_DURATION_NS);
    assert_int_equal(params.sched.priority, TSC_DEFAULT_PRIORITY);
    assert_false(params.sched.priority_set);
    assert_false(params.common.quiet);
}

static void test_tsc_sysroot_falls_back_to_the_environment(void **state)
{
    (void)state;
    setenv("JITTERLAB_SYSROOT", "/env/tree", 1);
    parse_ok("tsc");
    assert_string_equal(params.common.sysroot_dir, "/env/tree");
    parse_ok("tsc --sysroot /given");
    assert_string_equal(params.common.sysroot_dir, "/given");
    unsetenv("JITTERLAB_SYSROOT");
}

static void test_tsc_help_lists_every_option(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tsc --help", &cap), EXIT_OK);
    assert_string_equal(cap.err_text, "");
    assert_non_null(strstr(cap.out_text, "usage: jitterlab tsc [options]"));
    static const char *const options[] = {
        "--cpus LIST", "--duration DUR", "--policy P",        "--priority N", "--csv FILE",
        "--json FILE", "--quiet",        "--sysroot DIR",     "--help",       "(default 10)",
        "default 2s",  "at least 5ms",   "exits 0 either way"};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (!strstr(cap.out_text, options[i]))
            fail_msg("help lacks '%s'", options[i]);
    assert_int_equal(parse("tsc -D 1 -h", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab tsc [options]"));
}

static const struct cli_bad_case bad_cases[] = {
    {"tsc -D 0", "jitterlab: --duration 0: must be greater than 0\n"},
    {"tsc --duration -1", "jitterlab: --duration -1: must not be negative\n"},
    {"tsc -D abc", "jitterlab: --duration abc: not a duration (write e.g. 250us, 1.5ms, 10s)\n"},
    {"tsc -D 2x", "jitterlab: --duration 2x: unknown unit (use ns, us, ms, s, m, h)\n"},
    {"tsc -D 100000000h", "jitterlab: --duration 100000000h: too large\n"},
    {"tsc -p 0", "jitterlab: --priority 0: must be a whole number from 1 to 99\n"},
    {"tsc --priority 100", "jitterlab: --priority 100: must be a whole number from 1 to 99\n"},
    {"tsc -p ten", "jitterlab: --priority ten: must be a whole number from 1 to 99\n"},
    {"tsc --policy rr", "jitterlab: --policy rr: must be fifo or other\n"},
    {"tsc --policy FIFO", "jitterlab: --policy FIFO: must be fifo or other\n"},
    {"tsc --policy other -p 5", "jitterlab: --priority: has no meaning with --policy other\n"},
    {"tsc -p 5 --policy other", "jitterlab: --priority: has no meaning with --policy other\n"},
    {"tsc -a 1-", "jitterlab: --cpus 1-: malformed CPU list (range without an end, e.g. 0-3)\n"},
    {"tsc -a 3-1",
     "jitterlab: --cpus 3-1: malformed CPU list (descending range; write e.g. 1-3)\n"},
    {"tsc --cpus x",
     "jitterlab: --cpus x: malformed CPU list (expected a CPU number, e.g. 0-3,6)\n"},
    {"tsc --bogus", "jitterlab: tsc: unknown option '--bogus' (see jitterlab help tsc)\n"},
    {"tsc -x", "jitterlab: tsc: unknown option '-x' (see jitterlab help tsc)\n"},
    {"tsc extra", "jitterlab: tsc: unexpected argument 'extra' (see jitterlab help tsc)\n"},
    {"tsc -D", "jitterlab: -D: needs a value\n"},
    {"tsc -p", "jitterlab: -p: needs a value\n"},
    {"tsc --policy", "jitterlab: --policy: needs a value\n"},
    {"tsc --csv", "jitterlab: --csv: needs a value\n"},
    {"tsc --json", "jitterlab: --json: needs a value\n"},
    {"tsc -a", "jitterlab: -a: needs a value\n"},
};

static void test_tsc_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsc_defaults),
        cmocka_unit_test(test_tsc_every_option_lands_in_params),
        cmocka_unit_test(test_tsc_bare_duration_is_seconds),
        cmocka_unit_test(test_tsc_policy_other_has_priority_zero),
        cmocka_unit_test(test_tsc_options_reset_between_parses),
        cmocka_unit_test(test_tsc_sysroot_falls_back_to_the_environment),
        cmocka_unit_test(test_tsc_help_lists_every_option),
        cmocka_unit_test(test_tsc_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
