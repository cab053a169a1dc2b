/*
 * `jitterlab experiment` option parsing (src/cmd/experiment.c) and the
 * check of every step's `jitterlab run` options, with run's own message
 * followed by the line of the experiment file that brought the bad word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/experiment_cli.h"
#include "common/units.h"
#include "test_cli.h"

static struct experiment_params params;

CLI_DEFINE_PARSE(experiment_parse_args, &params)

static void test_experiment_options_land_in_params(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("experiment e.ini", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_string_equal(params.file, "e.ini");
    assert_null(params.output_dir);
    assert_null(params.resume_dir);
    assert_false(params.dry_run);
    assert_false(params.common.quiet);
    assert_int_equal(parse("experiment -o out --dry-run -q e.ini", &cap), -1);
    assert_string_equal(params.output_dir, "out");
    assert_true(params.dry_run);
    assert_true(params.common.quiet);
    assert_int_equal(parse("experiment e.ini --output=o2", &cap), -1);
    assert_string_equal(params.output_dir, "o2");
    assert_int_equal(parse("experiment --resume d --dry-run", &cap), -1);
    assert_string_equal(params.resume_dir, "d");
    assert_null(params.file);
}

static void test_experiment_help(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("experiment --help", &cap), EXIT_OK);
    assert_non_null(strstr(cap.out_text, "usage: jitterlab experiment FILE [-o DIR]"));
    assert_non_null(strstr(cap.out_text, "--resume DIR"));
}

static const struct cli_bad_case bad_cases[] = {
    {"experiment", "jitterlab: experiment: which experiment file? (e.g. jitterlab experiment "
                   "examples/c-states.ini; see jitterlab help experiment)\n"},
    {"experiment a.ini b.ini",
     "jitterlab: experiment: unexpected argument 'b.ini' (see jitterlab help experiment)\n"},
    {"experiment --resume d e.ini",
     "jitterlab: --resume d: takes no FILE (it runs DIR/experiment.ini)\n"},
    {"experiment --resume d -o x",
     "jitterlab: --output x: has no meaning with --resume (the results stay in DIR)\n"},
    {"experiment -a 1 e.ini",
     "jitterlab: experiment: unknown option '-a' (see jitterlab help experiment)\n"},
    {"experiment --json x e.ini",
     "jitterlab: experiment: unknown option '--json' (see jitterlab help experiment)\n"},
    {"experiment e.ini -o", "jitterlab: -o: needs a value\n"},
};

static void test_experiment_bad_usage_exits_2_with_the_exact_message(void **state)
{
    (void)state;
    cli_expect_bad_cases(parse, bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
    struct cli_capture cap;
    char *argv[] = {"experiment", "-o", "", "e.ini", NULL};
    cli_capture_begin(&cap);
    int rc = experiment_parse_args(4, argv, &params);
    cli_capture_end(&cap);
    assert_int_equal(rc, EXIT_USAGE);
    assert_string_equal(cap.err_text, "jitterlab: --output: must not be empty\n");
}

/* Parses an experiment whose step b has the given keys, and checks its steps. */
static int check(const char *step_b, struct cli_capture *cap, int64_t *limit_ns)
{
    static struct experiment_plan plan;
    char text[2048], err[512];
    snprintf(text, sizeof(text), "[experiment]\nname = x\n[step a]\nrun = -a 1 -D 2s\n[step b]\n%s",
             step_b);
    if (plan_parse(text, strlen(text), "e.ini", &plan, err, sizeof(err)) != 0)
        fail_msg("plan: %s", err);
    cli_capture_begin(cap);
    int rc = experiment_check_steps(&plan, "e.ini", limit_ns);
    cli_capture_end(cap);
    plan_free(&plan);
    return rc;
}

static void test_experiment_steps_that_run_accepts(void **state)
{
    (void)state;
    struct cli_capture cap;
    int64_t limit[PLAN_MAX_STEPS];
    unsetenv("JITTERLAB_SYSROOT");
    assert_int_equal(
        check("run = -a 1 -i 500us -l 2000\nload = cpu@0\ntune = latency\n", &cap, limit), 0);
    assert_string_equal(cap.err_text, "");
    assert_int_equal(limit[0], 2 * NS_PER_S + 120 * NS_PER_S);
    assert_int_equal(limit[1], NS_PER_S + 120 * NS_PER_S); /* 2000 x 500 us */
}

struct step_case {
    const char *step_b;
    const char *message; /* all of stderr: run's message, then ours */
};

static const struct step_case step_cases[] = {
    {"run = -a 1 --bogus\n",
     "jitterlab: run: unknown option '--bogus' (see jitterlab help run)\n"
     "jitterlab: e.ini:6: [step b] run: not accepted by jitterlab run (see the message above)\n"},
    {"run = -a 1 -i 0\n", "jitterlab: --interval 0: must be greater than 0\n"
                          "jitterlab: e.ini:6: [step b] run: not accepted by jitterlab run (see "
                          "the message above)\n"},
    {"run = -a 1 stray\n",
     "jitterlab: run: unexpected argument 'stray' (see jitterlab help run)\n"
     "jitterlab: e.ini:6: [step b] run: not accepted by jitterlab run (see the message above)\n"},
    {"run = -a 1 --json r.json\n",
     "jitterlab: e.ini:6: [step b] run: --json is the experiment's to give (it writes "
     "DIR/STEP-REPEAT.json)\n"},
    {"run = -a 1 --js=r.json\n",
     "jitterlab: e.ini:6: [step b] run: --json is the experiment's to give (it writes "
     "DIR/STEP-REPEAT.json)\n"},
    {"run = -a 1 --workload nothing\n",
     "jitterlab: --workload nothing: unknown workload kind (use none, ptrchase, spin)\n"
     "jitterlab: e.ini:6: [step b] run: not accepted by jitterlab run on this machine (see the "
     "message above)\n"},
    {"run = -a 1\nload = bogus@0\n", NULL}, /* names the load line (7); run's text varies */
    {"run = -a 1\nload = cpu@1\n",
     "jitterlab: --load cpu@1: its CPUs include every measured CPU; a load runs beside the "
     "measurement, not on all of it\n"
     "jitterlab: e.ini:7: [step b] load: not accepted by jitterlab run on this machine (see the "
     "message above)\n"},
    {"run = -a 1\n\ntune = nosuch\n",
     "jitterlab: --tune nosuch: not a profile (latency, realtime), and unknown action 'nosuch' "
     "(actions: pm-qos, idle-states, resume-latency, cpufreq, timer-migration, irq-affinity, "
     "rt-throttling, thp, nmi-watchdog, cache-partition)\n"
     "jitterlab: e.ini:8: [step b] tune: not accepted by jitterlab run (see the message above)\n"},
};

static void test_experiment_bad_run_options_name_the_line(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(step_cases) / sizeof(step_cases[0]); i++) {
        struct cli_capture cap;
        int64_t limit[PLAN_MAX_STEPS];
        int rc = check(step_cases[i].step_b, &cap, limit);
        const char *want = step_cases[i].message;
        if (rc != EXIT_USAGE || (want && strcmp(cap.err_text, want) != 0) ||
            (!want && !strstr(cap.err_text, "jitterlab: e.ini:7: [step b] load: not accepted")))
            fail_msg("case %zu: rc %d, stderr '%s', want '%s'", i, rc, cap.err_text,
                     want ? want : "(the load line)");
        assert_string_equal(cap.out_text, "");
    }
    struct cli_capture cap;
    int64_t limit[PLAN_MAX_STEPS];
    assert_int_equal(check("run = -a 1 --help\n", &cap, limit), EXIT_USAGE);
    assert_non_null(strstr(cap.err_text, "jitterlab: e.ini:6: [step b] run: -h/--help prints a "
                                         "text and measures nothing\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_experiment_options_land_in_params),
        cmocka_unit_test(test_experiment_help),
        cmocka_unit_test(test_experiment_bad_usage_exits_2_with_the_exact_message),
        cmocka_unit_test(test_experiment_steps_that_run_accepts),
        cmocka_unit_test(test_experiment_bad_run_options_name_the_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
