/*
 * `jitterlab rendezvous` option parsing (src/cmd/rendezvous.c), called
 * without reading the machine: the defaults, every option landing in struct
 * rendezvous_params, the layout list, the checks joining options (batches
 * against rendezvous and layouts, priority against policy, at least two
 * CPUs), the help text, and every bad input with its exact message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/rendezvous_cli.h"
#include "test_cli.h"

static struct rendezvous_params params;

CLI_DEFINE_PARSE(rendezvous_parse_args, &params)

static void test_rendezvous_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    unsetenv("JITTERLAB_SYSROOT");
    assert_int_equal(parse("rendezvous", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(cap.out_text, "");
    assert_int_equal(params.count, 1000);
    assert_int_equal(params.count, RENDEZVOUS_DEFAULT_COUNT);
    assert_int_equal(params.iterations, 5);
    assert_int_equal(params.batches, 10);
    assert_int_equal(params.nlayouts, 3);
    assert_int_equal(params.layouts[0], RV_PACKED);
    assert_int_equal(params.layouts[1], RV_PADDED);
    assert_int_equal(params.layouts[2], RV_LOCAL_COPY);
    assert_null(params.layout_text);
    assert_true(params.sched.fifo);
    assert_string_equal(cli_sched_policy(&params.sched), "fifo");
    assert_int_equal(params.sched.priority, 10);
    assert_false(params.sched.priority_set);
    assert_null(params.csv_path);
    assert_int_equal(params.common.cpus.count, 0); /* every online CPU */
    assert_null(params.common.json_path);
    assert_null(params.common.sysroot_dir);
    assert_false(params.common.quiet);
}

static void test_rendezvous_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("rendezvous -a 1,3-4 -n 5000 --iterations 7 --layout local-copy,packed "
                           "--batches 20 --policy fifo -p 42 --csv r.csv --json r.json -q "
                           "--sysroot /fx",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(params.common.cpus.count, 3);
    assert_int_equal(params.common.cpus.cpu[0], 1);
    assert_int_equal(params.common.cpus.cpu[2], 4);
    assert_string_equal(params.common.cpus_text, "1,3-4");
    assert_int_equal(params.count, 5000);
    assert_int_equal(params.iterations, 7);
    assert_int_equal(params.nlayouts, 2);
    assert_int_equal(params.layouts[0], RV_LOCAL_COPY); /* in the order given */
    assert_int_equal(params.layouts[1], RV_PACKED);
    assert_string_equal(params.layout_text, "local-copy,packed");
    assert_int_equal(params.batches, 20);
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, 42);
    assert_true(params.sched.priority_set);
    assert_string_equal(params.csv_path, "r.csv");
    assert_string_equal(params.common.json_path, "r.json");
    assert_true(params.common.quiet);
    assert_string_equal(params.common.sysroot_dir, "/fx");
    /* the long forms */
    assert_int_equal(parse("rendezvous --cpus 0-1 --rendezvous 30 --priority 99 --quiet", &cap),
                     -1);
    assert_int_equal(params.common.cpus.count, 2);
    assert_int_equal(params.count, 30);
    assert_int_equal(params.sched.priority, 99);
    assert_true(params.common.quiet);
}

static void test_rendezvous_policy_other_has_no_priority(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("rendezvous --policy other", &cap), -1);
    assert_false(params.sched.fifo);
    assert_string_equal(cli_sched_policy(&params.sched), "other");
    assert_int_equal(params.sched.priority, 0);
}

static void test_rendezvous_single_layout_and_bounds(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("rendezvous --layout padded", &cap), -1);
    assert_int_equal(params.nlayouts, 1);
    assert_int_equal(params.layouts[0], RV_PADDED);
    /* with one layout, every rendezvous can be its own batch */
    assert_int_equal(parse("rendezvous --layout padded -n 10 --batches 10", &cap), -1);
    assert_int_equal(params.batches, 10);
    /* three layouts: one round per batch at most */
    assert_int_equal(parse("rendezvous -n 30 --batches 10", &cap), -1);
    assert_int_equal(parse("rendezvous -n 1 --batches 1 --layout packed", &cap), -1);
    assert_int_equal(parse("rendezvous -n 1000000 --iterations 1000 --batches 1000", &cap), -1);
    assert_int_equal(params.count, RENDEZVOUS_MAX_COUNT);
    assert_int_equal(params.iterations, RENDEZVOUS_MAX_ITERATIONS);
    assert_int_equal(params.batches, RENDEZVOUS_MAX_BATCHES);
    assert_int_equal(parse("rendezvous --iterations 1 --batches 1 -p 1", &cap), -1);
    assert_int_equal(params.iterations, 1);
    assert_int_equal(params.sched.priority, 1);
}

static void test_rendezvous_options_reset_between_parses(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("rendezvous --layout padded --csv a.csv -n 50 --batches 2 "
                           "--policy other -q",
                           &cap),
                     -1);
    assert_int_equal(parse("rendezvous", &cap), -1);
    assert_int_equal(params.nlayouts, 3);
    assert_null(params.csv_path);
    assert_int_equal(params.count, 1000);
    assert_int_equal(params.batches, 10);
    assert_true(params.sched.fifo);
    assert_int_equal(params.sched.priority, 10);
    assert_false(params.common.quiet);
}

static void test_rendezvous_sysroot_falls_back_to_the_environment(void **state)
{
    (void)state;
    struct cli_capture cap;
    setenv("JITTERLAB_SYSROOT", "/env/tree", 1);
    assert_int_equal(parse("rendezvous", &cap), -1);
    assert_string_equal(params.common.sysroot_dir, "/env/tree");
    assert_int_equal(parse("rendezvous --sysroot /given", &cap), -1);
    assert_string_equal(params.common.sysroot_dir, "/given");
    unsetenv("JITTERLAB_SYSROOT");
}

static void test_rendezvous_help_lists_every_option(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("rendezvous --help", &cap), EXIT_OK);
    assert_string_equal(cap.err_text, "");
    assert_non_null(strstr(cap.out_text, "usage: jitterlab rendezvous [options]"));
    static const char *const options[] = {
        "--cpus LIST",   "--rendezvous N", "--iterations N", "--layout LIST", "--batches N",
        "--policy P",    "--priority N",   "--csv FILE",     "--json FILE",   "--quiet",
        "--sysroot DIR", "--help",         "(default 1000)", "(default 5)",   "packed",
        "padded",        "local-copy",     "(default 10)",   "at least 2"};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (!strstr(cap.out_text, options[i]))
            fail_msg("help lacks '%s'", options[i]);
    assert_int_equal(parse("rendezvous -h", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab rendezvous [options]"));
}

static const struct cli_bad_case bad_cases[] = {
    {"rendezvous -n 0", "jitterlab: --rendezvous 0: must be a whole number from 1 to 1000000\n"},
    {"rendezvous --rendezvous 1000001",
     "jitterlab: --rendezvous 1000001: must be a whole number from 1 to 1000000\n"},
    {"rendezvous -n x", "jitterlab: --rendezvous x: must be a whole number from 1 to 1000000\n"},
    {"rendezvous --iterations 0",
     "jitterlab: --iterations 0: must be a whole number from 1 to 1000\n"},
    {"rendezvous --iterations 1001",
     "jitterlab: --iterations 1001: must be a whole number from 1 to 1000\n"},
    {"rendezvous --batches 0", "jitterlab: --batches 0: must be a whole number from 1 to 1000\n"},
    {"rendezvous --batches -3", "jitterlab: --batches -3: must be a whole number from 1 to 1000\n"},
    {"rendezvous -n 5 --batches 6",
     "jitterlab: --batches 6: more batches than rendezvous (-n 5)\n"},
    {"rendezvous --batches 6 -n 5",
     "jitterlab: --batches 6: more batches than rendezvous (-n 5)\n"},
    {"rendezvous -n 20 --batches 7",
     "jitterlab: --batches 7: each batch needs a rendezvous of each of the 3 layouts: at most 6 "
     "with -n 20\n"},
    {"rendezvous -n 9 --batches 5 --layout padded,packed",
     "jitterlab: --batches 5: each batch needs a rendezvous of each of the 2 layouts: at most 4 "
     "with -n 9\n"},
    {"rendezvous --layout foo",
     "jitterlab: --layout foo: unknown layout 'foo' (packed, padded, local-copy)\n"},
    {"rendezvous --layout packed,Padded",
     "jitterlab: --layout packed,Padded: unknown layout 'Padded' (packed, padded, local-copy)\n"},
    {"rendezvous --layout packed,packed",
     "jitterlab: --layout packed,packed: packed is named twice\n"},
    {"rendezvous --layout padded,local-copy,padded",
     "jitterlab: --layout padded,local-copy,padded: padded is named twice\n"},
    {"rendezvous --layout packed,",
     "jitterlab: --layout packed,: empty layout name (packed, padded, local-copy)\n"},
    {"rendezvous --layout ,padded",
     "jitterlab: --layout ,padded: empty layout name (packed, padded, local-copy)\n"},
    {"rendezvous --policy rr", "jitterlab: --policy rr: must be fifo or other\n"},
    {"rendezvous --policy FIFO", "jitterlab: --policy FIFO: must be fifo or other\n"},
    {"rendezvous --priority 0", "jitterlab: --priority 0: must be a whole number from 1 to 99\n"},
    {"rendezvous -p 100", "jitterlab: --priority 100: must be a whole number from 1 to 99\n"},
    {"rendezvous --policy other -p 5",
     "jitterlab: --priority: has no meaning with --policy other\n"},
    {"rendezvous -a 0", "jitterlab: --cpus 0: a rendezvous needs at least 2 CPUs\n"},
    {"rendezvous --cpus 3-3", "jitterlab: --cpus 3-3: a rendezvous needs at least 2 CPUs\n"},
    {"rendezvous -a 1-",
     "jitterlab: --cpus 1-: malformed CPU list (range without an end, e.g. 0-3)\n"},
    {"rendezvous --bogus",
     "jitterlab: rendezvous: unknown option '--bogus' (see jitterlab help rendezvous)\n"},
    {"rendezvous -x",
     "jitterlab: rendezvous: unknown option '-x' (see jitterlab help rendezvous)\n"},
    {"rendezvous extra",
     "jitterlab: rendezvous: unexpected argument 'extra' (see jitterlab help rendezvous)\n"},
    {"rendezvous -n", "jitterlab: -n: needs a value\n"},
    {"rendezvous --iterations", "jitterlab: --iterations: needs a value\n"},
    {"rendezvous --layout", "jitterlab: --layout: needs a value\n"},
    {"rendezvous --batches", "jitterlab: --batches: needs a value\n"},
    {"rendezvous --policy", "jitterlab: --policy: needs a value\n"},
    {"rendezvous -p", "jitterlab: -p: needs a value\n"},
    {"rendezvous --csv", "jitterlab: --csv: needs a value\n"},
    {"rendezvous --json", "jitterlab: --json: needs a value\n"},
};

static void test_rendezvous_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rendezvous_defaults),
        cmocka_unit_test(test_rendezvous_every_option_lands_in_params),
        cmocka_unit_test(test_rendezvous_policy_other_has_no_priority),
        cmocka_unit_test(test_rendezvous_single_layout_and_bounds),
        cmocka_unit_test(test_rendezvous_options_reset_between_parses),
        cmocka_unit_test(test_rendezvous_sysroot_falls_back_to_the_environment),
        cmocka_unit_test(test_rendezvous_help_lists_every_option),
        cmocka_unit_test(test_rendezvous_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
