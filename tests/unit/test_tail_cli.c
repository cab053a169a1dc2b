/*
 * `jitterlab tail` option parsing (src/cmd/tail.c), called without reading
 * a file: the defaults, every option landing in struct tail_params, the
 * results taken among the options, the help text, and every bad input with
 * its exact message (exit 2, nothing on stdout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/tail_cli.h"
#include "common/units.h"
#include "test_cli.h"

static struct tail_params params;

CLI_DEFINE_PARSE(tail_parse_args, &params)

static void test_tail_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tail r.json", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(cap.out_text, "");
    assert_int_equal(params.nresults, 1);
    assert_string_equal(params.results[0], "r.json");
    assert_int_equal(params.budget_ns, -1);     /* the result's */
    assert_int_equal(params.threshold_ns, -1);  /* the ladder */
    assert_int_equal(params.nprobabilities, 0); /* 1e-6, 1e-9, 1e-12 */
    assert_null(params.samples_path);
    assert_true(params.confidence == 0.95);
    assert_int_equal(params.common.cpus.count, 0);
    assert_null(params.common.json_path);
    assert_false(params.common.quiet);
}

static void test_tail_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tail --budget 200us r.json --probability 1e-5 --probability 0.001 "
                           "--threshold 80us --samples s.csv --confidence 0.9 --json t.json "
                           "-a 1,3 -q",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(params.nresults, 1);
    assert_string_equal(params.results[0], "r.json");
    assert_int_equal(params.budget_ns, 200 * NS_PER_US);
    assert_int_equal(params.threshold_ns, 80 * NS_PER_US);
    assert_int_equal(params.nprobabilities, 2);
    assert_true(params.probabilities[0] == 1e-5);
    assert_true(params.probabilities[1] == 0.001);
    assert_string_equal(params.samples_path, "s.csv");
    assert_true(params.confidence == 0.9);
    assert_string_equal(params.common.json_path, "t.json");
    assert_int_equal(params.common.cpus.count, 2);
    assert_int_equal(params.common.cpus.cpu[1], 3);
    assert_true(params.common.quiet);
    assert_int_equal(parse("tail --cpus 2 --quiet a.json b.json c.json", &cap), -1);
    assert_int_equal(params.nresults, 3);
    assert_string_equal(params.results[2], "c.json");
    assert_int_equal(params.common.cpus.cpu[0], 2);
}

static void test_tail_bare_durations_are_microseconds(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tail r.json --budget 250 --threshold 1.5", &cap), -1);
    assert_int_equal(params.budget_ns, 250 * NS_PER_US);
    assert_int_equal(params.threshold_ns, 1500);
}

static void test_tail_takes_eight_probabilities(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tail r.json --probability 0.1 --probability 0.2 --probability 0.3 "
                           "--probability 0.4 --probability 0.5 --probability 0.6 "
                           "--probability 0.7 --probability 0.8",
                           &cap),
                     -1);
    assert_int_equal(params.nprobabilities, TAIL_MAX_PROBABILITIES);
    assert_true(params.probabilities[7] == 0.8);
}

static void test_tail_options_reset_between_parses(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tail a.json --budget 1ms --probability 0.5 --samples s.csv", &cap), -1);
    assert_int_equal(parse("tail b.json", &cap), -1);
    assert_int_equal(params.budget_ns, -1);
    assert_int_equal(params.nprobabilities, 0);
    assert_null(params.samples_path);
}

static void test_tail_help_lists_every_option(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("tail --help", &cap), EXIT_OK);
    assert_string_equal(cap.err_text, "");
    static const char *const opts[] = {
        "--budget DUR", "--probability P", "--threshold DUR", "--samples CSV", "--confidence C",
        "--json FILE",  "-a, --cpus LIST", "-q, --quiet",     "-h, --help",    "Exit codes"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (!strstr(cap.out_text, opts[i]))
            fail_msg("help lacks %s", opts[i]);
    assert_int_equal(parse("tail -h", &cap), EXIT_OK);
}

static void test_tail_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    static const struct cli_bad_case cases[] = {
        {"tail", "jitterlab: tail: needs a run result (jitterlab run --json FILE; see jitterlab "
                 "help tail)\n"},
        {"tail -q", "jitterlab: tail: needs a run result (jitterlab run --json FILE; see "
                    "jitterlab help tail)\n"},
        {"tail a.json b.json --samples s.csv",
         "jitterlab: --samples s.csv: belongs to one result, and 2 are given\n"},
        {"tail r.json --budget 0", "jitterlab: --budget 0: must be greater than 0\n"},
        {"tail r.json --budget 5parsecs",
         "jitterlab: --budget 5parsecs: unknown unit (use ns, us, ms, s, m, h)\n"},
        {"tail r.json --threshold -3us", "jitterlab: --threshold -3us: must not be negative\n"},
        {"tail r.json --probability 0", "jitterlab: --probability 0: must be a probability above "
                                        "0 and below 1\n"},
        {"tail r.json --probability 1", "jitterlab: --probability 1: must be a probability above "
                                        "0 and below 1\n"},
        {"tail r.json --probability 1e-9x", "jitterlab: --probability 1e-9x: must be a "
                                            "probability above 0 and below 1\n"},
        {"tail r.json --probability nan", "jitterlab: --probability nan: must be a probability "
                                          "above 0 and below 1\n"},
        {"tail r.json --probability 0.1 --probability 0.2 --probability 0.3 --probability 0.4 "
         "--probability 0.5 --probability 0.6 --probability 0.7 --probability 0.8 "
         "--probability 0.9",
         "jitterlab: --probability 0.9: too many probabilities (at most 8)\n"},
        {"tail r.json --confidence 1", "jitterlab: --confidence 1: must be a confidence above 0 "
                                       "and below 1\n"},
        {"tail r.json --confidence 95%", "jitterlab: --confidence 95%: must be a confidence "
                                         "above 0 and below 1\n"},
        {"tail r.json --cpus 3-1",
         "jitterlab: --cpus 3-1: malformed CPU list (descending range; write e.g. 1-3)\n"},
        {"tail r.json --frobnicate",
         "jitterlab: tail: unknown option '--frobnicate' (see jitterlab help tail)\n"},
        {"tail r.json --json", "jitterlab: --json: needs a value\n"},
    };
    cli_expect_bad_cases(parse, cases, sizeof cases / sizeof cases[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tail_defaults),
        cmocka_unit_test(test_tail_every_option_lands_in_params),
        cmocka_unit_test(test_tail_bare_durations_are_microseconds),
        cmocka_unit_test(test_tail_takes_eight_probabilities),
        cmocka_unit_test(test_tail_options_reset_between_parses),
        cmocka_unit_test(test_tail_help_lists_every_option),
        cmocka_unit_test(test_tail_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
