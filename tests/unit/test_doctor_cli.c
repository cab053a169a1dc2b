/*
 * `jitterlab doctor` option parsing (src/cmd/doctor.c), called without
 * touching the machine: every option, every bad input and its exact message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/doctor_cli.h"
#include "tune/tune.h"
#include "common/units.h"
#include "test_cli.h"

static struct doctor_params params;

CLI_DEFINE_PARSE(doctor_parse_args, &params)

static void test_doctor_defaults(void **state)
{
    (void)state;
    struct cli_capture cap;
    unsetenv("JITTERLAB_SYSROOT");
    assert_int_equal(parse("doctor --budget 250", &cap), -1);
    assert_int_equal(params.budget_ns, 250 * NS_PER_US);
    assert_int_equal(params.duration_ns, 30 * NS_PER_S);
    assert_int_equal(params.interval_ns, NS_PER_MS);
    assert_int_equal(params.nloads, 0);
    assert_null(params.out_dir);
    assert_null(params.from);
    assert_false(params.apply);
}

static void test_doctor_apply_options(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("doctor --budget 250 --apply", &cap), -1);
    assert_true(params.apply);
    assert_int_equal(params.repeat, 6);
    assert_false(params.keep_neutral);
    assert_int_equal(parse("doctor --budget 250 --apply --repeat 1 --keep-neutral", &cap), -1);
    assert_int_equal(params.repeat, 1);
    assert_true(params.keep_neutral);
    /* the tune actions act on a tree; the runs measure this machine */
    assert_int_equal(parse("doctor --budget 250 --apply --sysroot /t", &cap), -1);
    assert_string_equal(params.common.sysroot_dir, "/t");
    assert_int_equal(parse("doctor --budget 250 --apply --only irq-affinity,thp", &cap), -1);
    assert_int_equal(params.only_mask,
                     (1u << tune_action_find("irq-affinity")) | (1u << tune_action_find("thp")));
}

static void test_doctor_every_option_lands_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("doctor -a 2-3 -i 500 --budget 1ms -D 2 -w spin:100us --load cpu@0 "
                           "--load cache@0 -o d --json j.json -q",
                           &cap),
                     -1);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(params.common.cpus.count, 2);
    assert_int_equal(params.interval_ns, 500 * NS_PER_US);
    assert_int_equal(params.budget_ns, NS_PER_MS);
    assert_int_equal(params.duration_ns, 2 * NS_PER_S);
    assert_string_equal(params.workload_text, "spin:100us");
    assert_int_equal(params.nloads, 2);
    assert_string_equal(params.load_text[1], "cache@0");
    assert_string_equal(params.out_dir, "d");
    assert_string_equal(params.common.json_path, "j.json");
    assert_true(params.common.quiet);
    /* --from: the budget may come from the result, a tree may be read */
    assert_int_equal(parse("doctor --from r.json --sysroot /t", &cap), -1);
    assert_string_equal(params.from, "r.json");
    assert_int_equal(params.budget_ns, 0);
}

static const struct cli_bad_case bad_cases[] = {
    {"doctor", "jitterlab: --budget: is required: the latency every cycle must meet\n"},
    {"doctor --budget 0", "jitterlab: --budget 0: must be greater than 0\n"},
    {"doctor --budget 250 --sysroot /t",
     "jitterlab: --sysroot /t: doctor measures this machine; a tree is read only with --from, "
     "or tuned with --apply\n"},
    {"doctor --from r.json -D 2",
     "jitterlab: --duration: sets the baseline doctor measures; --from diagnoses a run already "
     "made\n"},
    {"doctor --from r.json --load cpu",
     "jitterlab: --load: sets the baseline doctor measures; --from diagnoses a run already "
     "made\n"},
    {"doctor --from r.json -o d",
     "jitterlab: --output: sets the baseline doctor measures; --from diagnoses a run already "
     "made\n"},
    {"doctor --apply", "jitterlab: --budget: is required: the latency every cycle must meet\n"},
    {"doctor --budget 250 --repeat 6",
     "jitterlab: --repeat: sets the treatment: give --apply too\n"},
    {"doctor --budget 250 --only thp", "jitterlab: --only: sets the treatment: give --apply too\n"},
    {"doctor --budget 250 --keep-neutral",
     "jitterlab: --keep-neutral: sets the treatment: give --apply too\n"},
    {"doctor --budget 250 --apply --repeat 3",
     "jitterlab: --repeat 3: compare's test between runs cannot reach its level with fewer than "
     "6 runs a side: 1 judges within the runs, 6 or more between them\n"},
    {"doctor --budget 250 --apply --repeat 0",
     "jitterlab: --repeat 0: must be a whole number from 1 to 16\n"},
    {"doctor --from r.json --apply",
     "jitterlab: --apply: sets the baseline doctor measures; --from diagnoses a run already "
     "made\n"},
    {"doctor --budget 250 extra",
     "jitterlab: doctor: unexpected argument 'extra' (see jitterlab help doctor)\n"},
};

static void test_doctor_bad_input_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doctor_defaults),
        cmocka_unit_test(test_doctor_every_option_lands_in_params),
        cmocka_unit_test(test_doctor_apply_options),
        cmocka_unit_test(test_doctor_bad_input_exits_2_with_the_exact_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
