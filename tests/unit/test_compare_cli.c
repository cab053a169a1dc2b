/*
 * `jitterlab compare` option parsing (src/cmd/compare.c), without reading a
 * file: the defaults, files and groups becoming arms, every option landing
 * in struct compare_params, the help text, and every bad input with its
 * exact message (exit 2, nothing on stdout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/compare_cli.h"
#include "common/units.h"
#include "test_cli.h"

static struct compare_params params;

static int parse_and_keep(int argc, char **argv, struct compare_params *p)
{
    compare_params_free(p);
    return compare_parse_args(argc, argv, p);
}

CLI_DEFINE_PARSE(parse_and_keep, &params)

static void test_compare_defaults_and_files_as_arms(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("compare a.json b.json c.json", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(params.narms, 3);
    assert_false(params.grouped);
    for (int a = 0; a < 3; a++)
        assert_int_equal(params.nfiles[a], 1);
    assert_string_equal(params.files[2][0], "c.json");
    assert_true(params.alpha == 0.05);
    assert_int_equal(params.budget_ns, -1);
    assert_true(params.fail_if_worse_pct < 0);
    assert_int_equal(params.seed, 1);
    assert_int_equal(params.reps, 4000);
    assert_int_equal(params.nlabels, 0);
    assert_null(params.common.json_path);
    /* after "--" a result may look like an option */
    assert_int_equal(parse("compare -q -- -h.json --json", &cap), -1);
    assert_int_equal(params.narms, 2);
    assert_string_equal(params.files[0][0], "-h.json");
    assert_string_equal(params.files[1][0], "--json");
    assert_null(params.common.json_path);
}

static void test_compare_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("compare --group a1,a2,a3 --group b1 --label A --label B --budget 100 "
                           "--alpha 0.01 --fail-if-worse 7.5 --seed 9 --reps 500 --json c.json -q",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_true(params.grouped);
    assert_int_equal(params.narms, 2);
    assert_int_equal(params.nfiles[0], 3);
    assert_string_equal(params.files[0][1], "a2");
    assert_int_equal(params.nfiles[1], 1);
    assert_string_equal(params.labels[1], "B");
    assert_int_equal(params.budget_ns, 100 * NS_PER_US); /* bare: us */
    assert_true(params.alpha == 0.01);
    assert_true(params.fail_if_worse_pct == 7.5);
    assert_int_equal(params.seed, 9);
    assert_int_equal(params.reps, 500);
    assert_string_equal(params.common.json_path, "c.json");
    assert_true(params.common.quiet);
    assert_int_equal(parse("compare a b --fail-if-worse 0", &cap), -1);
    assert_true(params.fail_if_worse_pct == 0);
}

static void test_compare_help(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("compare --help", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab compare BASELINE.json"));
    assert_non_null(strstr(cap.out_text, "--fail-if-worse PCT"));
    assert_string_equal(cap.err_text, "");
}

static const struct cli_bad_case bad_cases[] = {
    {"compare", "jitterlab: compare: needs two results or groups at least (a baseline and one to "
                "compare; see jitterlab help compare)\n"},
    {"compare a.json", "jitterlab: compare: needs two results or groups at least (a baseline "
                       "and one to compare; see jitterlab help compare)\n"},
    {"compare --group a,b a.json",
     "jitterlab: --group: and file arguments cannot be mixed: give every arm as a --group\n"},
    {"compare --group , --group b", "jitterlab: --group ,: names no file\n"},
    {"compare a b --label x --label x", "jitterlab: --label x: given twice\n"},
    {"compare a b --label x --label y --label z",
     "jitterlab: --label 3: more labels than results\n"},
    {"compare a b --alpha 0", "jitterlab: --alpha 0: must be a number above 0 and below 0.5\n"},
    {"compare a b --alpha 0.5", "jitterlab: --alpha 0.5: must be a number above 0 and below 0.5\n"},
    {"compare a b --alpha x", "jitterlab: --alpha x: must be a number above 0 and below 0.5\n"},
    {"compare a b --fail-if-worse -1",
     "jitterlab: --fail-if-worse -1: must be a percentage of 0 or more\n"},
    {"compare a b --fail-if-worse 5%", "jitterlab: --fail-if-worse 5%: must be a percentage of 0 "
                                       "or more\n"},
    {"compare a b --budget 0", "jitterlab: --budget 0: must be greater than 0\n"},
    {"compare a b --reps 10", "jitterlab: --reps 10: must be a whole number from 200 to 100000\n"},
    {"compare a b --bogus", "jitterlab: compare: unknown option '--bogus' (see jitterlab help "
                            "compare)\n"},
};

static void test_compare_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

static int teardown(void **state)
{
    (void)state;
    compare_params_free(&params);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_defaults_and_files_as_arms),
        cmocka_unit_test(test_compare_every_option_lands_in_params),
        cmocka_unit_test(test_compare_help),
        cmocka_unit_test(test_compare_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
