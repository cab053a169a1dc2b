/*
 * `jitterlab report` option parsing (src/cmd/report.c), called without
 * reading any file: the defaults, every option landing in struct
 * report_params, results before and after options, labels one per result,
 * the help text, and every bad input with its exact message (exit 2,
 * nothing on stdout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/report_cli.h"
#include "test_cli.h"

static struct report_params params;

CLI_DEFINE_PARSE(report_parse_args, &params)

static void test_report_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("report a.json", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(cap.out_text, "");
    assert_string_equal(params.output, "report.html");
    assert_string_equal(params.output, REPORT_DEFAULT_OUTPUT);
    assert_int_equal(params.nfiles, 1);
    assert_string_equal(params.files[0], "a.json");
    assert_int_equal(params.nlabels, 0);
    assert_null(params.compare_path);
    assert_null(params.inspect_path);
    assert_null(params.svg_dir);
    assert_null(params.title);
    assert_int_equal(params.common.cpus.count, 0); /* every CPU */
    assert_false(params.common.quiet);
}

static void test_report_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("report -o r.html --label base --label new --compare c.json "
                           "--inspect i.json --svg plots --title Nightly -a 1,3 -q a.json b.json",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(params.output, "r.html");
    assert_int_equal(params.nlabels, 2);
    assert_string_equal(params.labels[0], "base");
    assert_string_equal(params.labels[1], "new");
    assert_string_equal(params.compare_path, "c.json");
    assert_string_equal(params.inspect_path, "i.json");
    assert_string_equal(params.svg_dir, "plots");
    assert_string_equal(params.title, "Nightly");
    assert_int_equal(params.common.cpus.count, 2);
    assert_int_equal(params.common.cpus.cpu[0], 1);
    assert_int_equal(params.common.cpus.cpu[1], 3);
    assert_true(params.common.quiet);
    assert_int_equal(params.nfiles, 2);
    assert_string_equal(params.files[0], "a.json");
    assert_string_equal(params.files[1], "b.json");
    /* the long forms, options after the results */
    assert_int_equal(parse("report a.json --output x.html --cpus 2 --quiet", &cap), -1);
    assert_string_equal(params.output, "x.html");
    assert_int_equal(params.common.cpus.count, 1);
    assert_int_equal(params.common.cpus.cpu[0], 2);
    assert_true(params.common.quiet);
    assert_int_equal(params.nfiles, 1);
}

static void test_report_results_and_options_mix_in_any_order(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("report a.json --label A b.json --label B c.json --label C", &cap), -1);
    assert_int_equal(params.nfiles, 3);
    assert_string_equal(params.files[2], "c.json");
    assert_int_equal(params.nlabels, 3);
    assert_string_equal(params.labels[2], "C");
    /* after "--" a result may look like an option */
    assert_int_equal(parse("report -o r.html -- -odd.json", &cap), -1);
    assert_int_equal(params.nfiles, 1);
    assert_string_equal(params.files[0], "-odd.json");
}

static void test_report_takes_up_to_10_results(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("report 1 2 3 4 5 6 7 8 9 10", &cap), -1);
    assert_int_equal(params.nfiles, REPORT_MAX_RESULTS);
    assert_string_equal(params.files[9], "10");
    assert_int_equal(parse("report 1 2 3 4 5 6 7 8 9 10 --label a --label b --label c --label d "
                           "--label e --label f --label g --label h --label i --label j",
                           &cap),
                     -1);
    assert_int_equal(params.nlabels, 10);
}

static void test_report_options_reset_between_parses(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("report a.json --label A --svg d --title T -o o.html -q", &cap), -1);
    assert_int_equal(parse("report b.json", &cap), -1);
    assert_int_equal(params.nlabels, 0);
    assert_null(params.svg_dir);
    assert_null(params.title);
    assert_string_equal(params.output, REPORT_DEFAULT_OUTPUT);
    assert_false(params.common.quiet);
    assert_string_equal(params.files[0], "b.json");
}

static void test_report_help_lists_every_option(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("report --help", &cap), EXIT_OK);
    assert_string_equal(cap.err_text, "");
    assert_non_null(strstr(cap.out_text, "usage: jitterlab report RESULT.json... [options]"));
    static const char *const options[] = {
        "--output FILE", "--label L",    "--compare FILE",        "--inspect FILE",
        "--svg DIR",     "--title TEXT", "--cpus LIST",           "--quiet",
        "--help",        "--c2c FILE",   "(default report.html)", "At most 10 results"};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (!strstr(cap.out_text, options[i]))
            fail_msg("help lacks '%s'", options[i]);
    assert_int_equal(parse("report -h", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab report"));
}

static const struct cli_bad_case bad_cases[] = {
    {"report", "jitterlab: report: which results? (e.g. jitterlab report a.json b.json -o "
               "report.html; see jitterlab help report)\n"},
    {"report -o r.html", "jitterlab: report: which results? (e.g. jitterlab report a.json "
                         "b.json -o report.html; see jitterlab help report)\n"},
    {"report 1 2 3 4 5 6 7 8 9 10 11",
     "jitterlab: report: 11 results, at most 10 fit in one report\n"},
    {"report a.json --label A --label B",
     "jitterlab: --label: 2 labels for 1 result (one per result, in order)\n"},
    {"report a.json b.json c.json --label A",
     "jitterlab: --label: 1 label for 3 results (one per result, in order)\n"},
    {"report a --label 1 --label 2 --label 3 --label 4 --label 5 --label 6 --label 7 --label 8 "
     "--label 9 --label 10 --label 11",
     "jitterlab: --label 11: more labels than the 10 results a report holds\n"},
    {"report a.json -a 1-",
     "jitterlab: --cpus 1-: malformed CPU list (range without an end, e.g. 0-3)\n"},
    {"report a.json --bogus", "jitterlab: report: unknown option '--bogus' (see jitterlab help "
                              "report)\n"},
    {"report a.json -x", "jitterlab: report: unknown option '-x' (see jitterlab help report)\n"},
    {"report a.json --json r.json",
     "jitterlab: report: unknown option '--json' (see jitterlab help report)\n"},
    {"report a.json --sysroot /x",
     "jitterlab: report: unknown option '--sysroot' (see jitterlab help report)\n"},
    {"report a.json -o", "jitterlab: -o: needs a value\n"},
    {"report a.json --output", "jitterlab: --output: needs a value\n"},
    {"report a.json --label", "jitterlab: --label: needs a value\n"},
    {"report a.json --compare", "jitterlab: --compare: needs a value\n"},
    {"report a.json --inspect", "jitterlab: --inspect: needs a value\n"},
    {"report a.json --svg", "jitterlab: --svg: needs a value\n"},
    {"report a.json --title", "jitterlab: --title: needs a value\n"},
    {"report a.json -a", "jitterlab: -a: needs a value\n"},
    {"report --c2c", "jitterlab: --c2c: needs a value\n"},
    {"report --c2c 1 --c2c 2 --c2c 3 --c2c 4 --c2c 5",
     "jitterlab: --c2c 5: more than the 4 matrices a report holds\n"},
};

/* --group: each is one result of the runs it names, in order, labels one
 * per group; files beside groups, or a group of nothing, are refused. */
static void test_report_groups_are_results_of_several_runs(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("report --label a --group a-1.json,a-2.json,a-3.json --label b "
                           "--group b-1.json -o r.html",
                           &cap),
                     -1);
    assert_true(params.grouped);
    assert_int_equal(params.nfiles, 2);
    assert_int_equal(params.group_n[0], 3);
    assert_string_equal(params.group_file[0][2], "a-3.json");
    assert_string_equal(params.files[1], "b-1.json");
    assert_int_equal(params.group_n[1], 1);
    assert_int_equal(parse("report --group a-1.json,a-2.json b.json", &cap), EXIT_USAGE);
    assert_string_equal(cap.err_text, "jitterlab: --group: results come either as --group or as "
                                      "files, not both\n");
    assert_int_equal(parse("report --group ,", &cap), EXIT_USAGE);
    assert_int_equal(parse("report --group a.json --group b.json --label x", &cap), EXIT_USAGE);
}

static void test_report_c2c_matrices_need_no_run_result(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("report --c2c m.json -o m.html", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(params.nfiles, 0);
    assert_int_equal(params.nc2c, 1);
    assert_string_equal(params.c2c_paths[0], "m.json");
    assert_int_equal(parse("report a.json --c2c m.json --c2c n.json", &cap), -1);
    assert_int_equal(params.nfiles, 1);
    assert_int_equal(params.nc2c, 2);
    assert_string_equal(params.c2c_paths[1], "n.json");
    assert_int_equal(parse("report a.json", &cap), -1);
    assert_int_equal(params.nc2c, 0);
}

static void test_report_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

/* Empty values cannot be written in the space-split lines above. */
static void test_report_refuses_empty_labels_and_svg_dirs(void **state)
{
    (void)state;
    struct cli_capture cap;
    char *argv[] = {"report", "a.json", "--label", "", NULL};
    cli_capture_begin(&cap);
    int rc = report_parse_args(4, argv, &params);
    cli_capture_end(&cap);
    assert_int_equal(rc, EXIT_USAGE);
    assert_string_equal(cap.err_text, "jitterlab: --label: must not be empty\n");
    char *argv2[] = {"report", "a.json", "--svg", "", NULL};
    cli_capture_begin(&cap);
    rc = report_parse_args(4, argv2, &params);
    cli_capture_end(&cap);
    assert_int_equal(rc, EXIT_USAGE);
    assert_string_equal(cap.err_text, "jitterlab: --svg: needs a directory\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_defaults),
        cmocka_unit_test(test_report_every_option_lands_in_params),
        cmocka_unit_test(test_report_results_and_options_mix_in_any_order),
        cmocka_unit_test(test_report_takes_up_to_10_results),
        cmocka_unit_test(test_report_options_reset_between_parses),
        cmocka_unit_test(test_report_help_lists_every_option),
        cmocka_unit_test(test_report_bad_input_exits_2_with_the_exact_message),
        cmocka_unit_test(test_report_refuses_empty_labels_and_svg_dirs),
        cmocka_unit_test(test_report_groups_are_results_of_several_runs),
        cmocka_unit_test(test_report_c2c_matrices_need_no_run_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
