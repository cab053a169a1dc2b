/*
 * Experiment files (src/experiment/plan.c): what a good file becomes (the
 * settings, each step's run argv, continuation lines), every error with its
 * exact message and line, and the order planner, interleaved and blocked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/units.h"
#include "experiment/plan.h"

static struct experiment_plan plan;

static int parse(const char *text, char *err, size_t errlen)
{
    return plan_parse(text, strlen(text), "e.ini", &plan, err, errlen);
}

static void parse_ok(const char *text)
{
    char err[1024];
    if (parse(text, err, sizeof(err)) != 0)
        fail_msg("unexpected error: %s", err);
}

static void expect_argv(const struct plan_step *s, const char *const *want)
{
    int n = 0;
    while (want[n])
        n++;
    if (s->argv.count != n)
        fail_msg("[step %s]: %d words, want %d", s->name, s->argv.count, n);
    for (int i = 0; i < n; i++)
        if (strcmp(s->argv.word[i], want[i]) != 0)
            fail_msg("[step %s]: word %d '%s', want '%s'", s->name, i, s->argv.word[i], want[i]);
}

#define TWO_STEPS "[step a]\nrun = -a 1\n[step b]\nrun = -a 1\n"

static void test_plan_defaults(void **state)
{
    (void)state;
    parse_ok("[experiment]\nname = x\n" TWO_STEPS);
    assert_string_equal(plan.name, "x");
    assert_int_equal(plan.repeat, 3);
    assert_false(plan.blocked);
    assert_int_equal(plan.settle_ns, NS_PER_S);
    assert_int_equal(plan.nsteps, 2);
    assert_int_equal(plan.nruns, 6);
    assert_int_equal(plan.line, 1);
    assert_string_equal(plan.step[1].name, "b");
    assert_int_equal(plan.step[1].line, 5);
    assert_int_equal(plan.step[0].key[STEP_RUN].line, 4);
    assert_null(plan.step[0].key[STEP_LOAD].text);
    expect_argv(&plan.step[0], (const char *[]){"run", "-a", "1", NULL});
    plan_free(&plan);
}

static void test_plan_every_key_lands_in_the_plan(void **state)
{
    (void)state;
    parse_ok("; a comment\n"
             "# another\n"
             "[experiment]\n"
             "name = cache-study_2.0\n"
             "repeat = 2\n"
             "order = blocked   ; an inline comment is fine here\n"
             "settle = 500ms\n"
             "\n"
             "[step quiet]\n"
             "run = -a 1 -D 5s --workload 'ptrchase:1M:100'\n"
             "before = echo a; echo b\n"
             "after = rm -f /tmp/x && true\n"
             "[step thrash]\n"
             "run = -a 1 -D 5s\n"
             "load = cache@0 pulse:50ms:50ms:cpu@0\n"
             "tune = latency\n"
             "save = intervals samples\n");
    assert_string_equal(plan.name, "cache-study_2.0");
    assert_int_equal(plan.repeat, 2);
    assert_true(plan.blocked);
    assert_int_equal(plan.settle_ns, 500 * NS_PER_MS);
    assert_string_equal(plan.step[0].key[STEP_BEFORE].text, "echo a; echo b");
    assert_string_equal(plan.step[0].key[STEP_AFTER].text, "rm -f /tmp/x && true");
    assert_int_equal(plan.step[0].key[STEP_AFTER].line, 12);
    expect_argv(&plan.step[0], (const char *[]){"run", "-a", "1", "-D", "5s", "--workload",
                                                "ptrchase:1M:100", NULL});
    assert_int_equal(plan.step[0].run_end, 7);
    assert_int_equal(plan.step[0].load_end, 7);
    expect_argv(&plan.step[1],
                (const char *[]){"run", "-a", "1", "-D", "5s", "--load", "cache@0", "--load",
                                 "pulse:50ms:50ms:cpu@0", "--tune=latency", NULL});
    assert_int_equal(plan.step[1].run_end, 5);
    assert_int_equal(plan.step[1].load_end, 9);
    assert_int_equal(plan.step[0].save, 0);
    assert_int_equal(plan.step[1].save, (1u << SAVE_SAMPLES) | (1u << SAVE_INTERVALS));
    assert_string_equal(plan.step[1].key[STEP_SAVE].text, "intervals samples");
    plan_free(&plan);
}

static void test_plan_indented_lines_continue_a_value(void **state)
{
    (void)state;
    parse_ok("[experiment]\n"
             "name = x\n"
             "[step a]\n"
             "run = -a 1\n"
             "   -D 5s\n"
             "\t--workload ptrchase\n"
             "before = echo one\n"
             "  echo two\n"
             "[step b]\n"
             "  run = -a 1\n"); /* indented right after the header: a key */
    expect_argv(&plan.step[0],
                (const char *[]){"run", "-a", "1", "-D", "5s", "--workload", "ptrchase", NULL});
    assert_string_equal(plan.step[0].key[STEP_BEFORE].text, "echo one\necho two");
    assert_int_equal(plan.step[1].key[STEP_RUN].line, 10);
    plan_free(&plan);
}

static void test_plan_accepts_crlf_a_bom_and_blanks_in_headers(void **state)
{
    (void)state;
    parse_ok("\xEF\xBB\xBF[experiment]\r\nname = x\r\n[ step  a ]\r\nrun = -a 1\r\n"
             "[step b]\r\nrun = -a 1");
    assert_string_equal(plan.step[0].name, "a");
    expect_argv(&plan.step[1], (const char *[]){"run", "-a", "1", NULL});
    plan_free(&plan);
}

struct bad_case {
    const char *text;
    const char *message;
};

#define EXP "[experiment]\nname = x\n"

static const struct bad_case bad_cases[] = {
    /* sections */
    {"[experiment]\nname = x\n[steps a]\nrun = -a 1\n" TWO_STEPS,
     "e.ini:3: unknown section [steps a] (sections: [experiment], [step NAME])"},
    {EXP "[bogus]\n" TWO_STEPS, "e.ini:3: unknown section [bogus] (sections: [experiment], [step "
                                "NAME])"},
    {EXP "[step]\nrun = -a 1\n", "e.ini:3: [step]: a step needs a name: [step NAME]"},
    {EXP "[step a/b]\nrun = -a 1\n",
     "e.ini:3: [step a/b]: a step name is 1 to 64 letters, digits, '_', '.' or '-', starting "
     "with a letter or digit"},
    {EXP "[step -h]\nrun = -a 1\n",
     "e.ini:3: [step -h]: a step name is 1 to 64 letters, digits, '_', '.' or '-', starting "
     "with a letter or digit"},
    {EXP "[step a]\nrun = -a 1\n[step b]\nrun = -a 1\n\n[step a]\nrun = -a 1\n",
     "e.ini:8: [step a]: a second step of that name (the first is at line 3)"},
    {EXP TWO_STEPS "[experiment]\n",
     "e.ini:7: [experiment]: a second [experiment] section (the first is at line 1)"},
    {"name = x\n[experiment]\n",
     "e.ini:1: name: a key before any section (the file starts with [experiment])"},
    {EXP "[step a\nrun = -a 1\n", "e.ini:3: neither a [section] nor a key = value line"},
    {EXP "[step a]\nrun -a 1\n", "e.ini:4: neither a [section] nor a key = value line"},
    /* [experiment] keys */
    {"[experiment]\nname = x\nrepeats = 3\n" TWO_STEPS,
     "e.ini:3: [experiment] repeats: unknown key (keys: name, repeat, order, settle)"},
    {"[experiment]\nname = x y\n" TWO_STEPS,
     "e.ini:2: [experiment] name 'x y': must be 1 to 64 letters, digits, '_', '.' or '-', "
     "starting with a letter or digit"},
    {"[experiment]\nname = x\nname = y\n" TWO_STEPS,
     "e.ini:3: [experiment] name: given twice (first at line 2)"},
    {"[experiment]\nname = x\nrepeat = 0\n" TWO_STEPS,
     "e.ini:3: [experiment] repeat '0': must be a whole number from 1 to 32 (the runs one "
     "compare group holds)"},
    {"[experiment]\nname = x\nrepeat = 33\n" TWO_STEPS,
     "e.ini:3: [experiment] repeat '33': must be a whole number from 1 to 32 (the runs one "
     "compare group holds)"},
    {"[experiment]\nname = x\norder = random\n" TWO_STEPS,
     "e.ini:3: [experiment] order 'random': must be interleaved or blocked"},
    {"[experiment]\nname = x\nsettle = 1 s\n" TWO_STEPS,
     "e.ini:3: [experiment] settle '1 s': must not contain spaces (write e.g. 250us)"},
    {"[experiment]\nname = x\nsettle = 2h\n" TWO_STEPS,
     "e.ini:3: [experiment] settle '2h': must be at most 1h"},
    {"[experiment]\nname = x\nsettle = -1s\n" TWO_STEPS,
     "e.ini:3: [experiment] settle '-1s': must not be negative"},
    {"[experiment]\nname = x\n  y\n" TWO_STEPS,
     "e.ini:3: [experiment] name: an indented line continues it; the value takes one line"},
    /* [step NAME] keys */
    {EXP "[step a]\nrun = -a 1\nloads = cpu\n",
     "e.ini:5: [step a] loads: unknown key (keys: run, load, tune, before, after, save)"},
    {EXP "[step a]\nrun = -a 1\nrun = -a 1\n",
     "e.ini:5: [step a] run: given twice (first at line 4)"},
    {EXP "[step a]\nload = cpu\n[step b]\nrun = -a 1\n",
     "e.ini:3: [step a]: run is required (the options of jitterlab run)"},
    {EXP "[step a]\nrun =\n[step b]\nrun = -a 1\n", "e.ini:4: [step a] run: empty"},
    {EXP "[step a]\nrun = -a 1\nafter =\n[step b]\nrun = -a 1\n", "e.ini:5: [step a] after: empty"},
    {EXP "[step a]\nrun = -a 1 --load 'cmd:x\n[step b]\nrun = -a 1\n",
     "e.ini:4: [step a] run: unterminated single quote"},
    {EXP "[step a]\nrun = -a 1\nload = \"cpu\n[step b]\nrun = -a 1\n",
     "e.ini:5: [step a] load: unterminated double quote"},
    {EXP "[step a]\nrun = -a 1\ntune = latency realtime\n[step b]\nrun = -a 1\n",
     "e.ini:5: [step a] tune 'latency realtime': one profile or action list, without blanks"},
    {EXP "[step a]\nrun = -a 1\ntune = latency\n  realtime\n",
     "e.ini:6: [step a] tune: an indented line continues it; the value takes one line"},
    {EXP "[step a]\nrun = -a 1\n  load = cpu\n",
     "e.ini:5: [step a] run: this indented line continues run (libinih reads an indented line "
     "as a continuation); write load at the start of its line"},
    {EXP "[step a]\nrun = -a 1\nbefore = echo a ; echo b\n",
     "e.ini:5: [step a] before: ' ;' starts a comment in an INI file and would cut the command "
     "there; write 'a; b' (no blank before ';'), 'a && b', or continue on an indented line"},
    {EXP "[step a]\nrun = -a 1\nsave = samples csv\n[step b]\nrun = -a 1\n",
     "e.ini:5: [step a] save 'csv': not an output of a run (outputs: samples, histogram, "
     "intervals)"},
    {EXP "[step a]\nrun = -a 1\nsave = samples\n  samples\n[step b]\nrun = -a 1\n",
     "e.ini:5: [step a] save 'samples': given twice"},
    /* the file as a whole */
    {TWO_STEPS, "e.ini: no [experiment] section (it names the experiment: name = ...)"},
    {"[experiment]\nrepeat = 2\n" TWO_STEPS, "e.ini:1: [experiment]: name is required"},
    {EXP "[step a]\nrun = -a 1\n",
     "e.ini: an experiment needs at least two [step NAME] sections, found 1"},
};

static void test_plan_bad_files_name_the_line_and_why(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        char err[1024];
        int rc = parse(bad_cases[i].text, err, sizeof(err));
        if (rc != -1 || strcmp(err, bad_cases[i].message) != 0)
            fail_msg("case %zu: rc %d, '%s', want '%s'", i, rc, err, bad_cases[i].message);
        assert_int_equal(plan.nsteps, 0);
        assert_null(plan.run);
    }
}

static void test_plan_long_lines_and_the_first_error_in_line_order(void **state)
{
    (void)state;
    char text[1024], err[1024];
    char long_value[300];
    memset(long_value, 'x', sizeof(long_value) - 1);
    long_value[sizeof(long_value) - 1] = '\0';
    snprintf(text, sizeof(text), EXP "[step a]\nrun = -a 1 %s\n", long_value);
    assert_int_equal(parse(text, err, sizeof(err)), -1);
    assert_string_equal(err, "e.ini:4: a line longer than 197 characters (continue a long value "
                             "on indented lines)");
    /* a syntax error (libinih) before an error of ours is the one reported */
    assert_int_equal(parse(EXP "oops\n[bogus]\n", err, sizeof(err)), -1);
    assert_string_equal(err, "e.ini:3: neither a [section] nor a key = value line");
    assert_int_equal(parse(EXP "[bogus]\noops\n", err, sizeof(err)), -1);
    assert_string_equal(err, "e.ini:3: unknown section [bogus] (sections: [experiment], [step "
                             "NAME])");
    static const char nul[] = EXP "[step a]\nrun = -a 1\nx\0y\n";
    assert_int_equal(plan_parse(nul, sizeof(nul) - 1, "e.ini", &plan, err, sizeof(err)), -1);
    assert_string_equal(err, "e.ini:5: a NUL byte (is this a text file?)");
}

static void test_plan_steps_and_names_at_their_limits(void **state)
{
    (void)state;
    char text[8192] = EXP, err[1024];
    for (int i = 0; i < PLAN_MAX_STEPS; i++) {
        char step[64];
        snprintf(step, sizeof(step), "[step s%d]\nrun = -a 1\n", i);
        strcat(text, step);
    }
    parse_ok(text);
    assert_int_equal(plan.nsteps, PLAN_MAX_STEPS);
    plan_free(&plan);
    strcat(text, "[step one-too-many]\nrun = -a 1\n");
    assert_int_equal(parse(text, err, sizeof(err)), -1);
    assert_string_equal(err, "e.ini:35: [step one-too-many]: more than 16 steps");
    /* as many repeats as one compare group holds */
    parse_ok("[experiment]\nname = x\nrepeat = 32\n" TWO_STEPS);
    assert_int_equal(plan.repeat, COMPARE_MAX_RUNS_PER_ARM);
    assert_int_equal(plan.nruns, 2 * COMPARE_MAX_RUNS_PER_ARM);
    plan_free(&plan);
    assert_true(plan_name_valid("a.B_9-z", 7));
    assert_false(plan_name_valid("", 0));
    assert_false(plan_name_valid("a b", 3));
    /* a plain word: nothing a child could take for an option */
    assert_false(plan_name_valid("-h", 2));
    assert_false(plan_name_valid("-o", 2));
    assert_false(plan_name_valid(".x", 2));
    assert_false(plan_name_valid("_x", 2));
    assert_true(plan_name_valid("9-x", 3));
    char name[PLAN_NAME_MAX + 2];
    memset(name, 'n', sizeof(name));
    assert_true(plan_name_valid(name, PLAN_NAME_MAX));
    assert_false(plan_name_valid(name, PLAN_NAME_MAX + 1));
}

static void expect_order(int nsteps, int repeat, bool blocked, const char *want)
{
    struct plan_run runs[64];
    char got[256] = "";
    plan_order(nsteps, repeat, blocked, runs);
    for (int i = 0; i < nsteps * repeat; i++) {
        char one[16];
        assert_int_equal(runs[i].order, i + 1);
        snprintf(one, sizeof(one), "%s%c%d", i ? " " : "", 'A' + runs[i].step, runs[i].repeat);
        strcat(got, one);
    }
    assert_string_equal(got, want);
}

static void test_plan_order_interleaved_and_blocked(void **state)
{
    (void)state;
    expect_order(2, 3, false, "A1 B1 A2 B2 A3 B3");
    expect_order(3, 2, false, "A1 B1 C1 A2 B2 C2");
    expect_order(2, 3, true, "A1 A2 A3 B1 B2 B3");
    expect_order(3, 1, true, "A1 B1 C1");
    expect_order(3, 1, false, "A1 B1 C1");
    /* the plan keeps the order it was asked for */
    parse_ok("[experiment]\nname = x\nrepeat = 2\norder = blocked\n" TWO_STEPS);
    assert_int_equal(plan.nruns, 4);
    assert_int_equal(plan.run[1].step, 0);
    assert_int_equal(plan.run[1].repeat, 2);
    assert_int_equal(plan.run[2].step, 1);
    assert_int_equal(plan.run[2].repeat, 1);
    plan_free(&plan);
    parse_ok("[experiment]\nname = x\nrepeat = 2\n" TWO_STEPS);
    assert_int_equal(plan.run[1].step, 1);
    assert_int_equal(plan.run[1].repeat, 1);
    assert_int_equal(plan.run[3].order, 4);
    plan_free(&plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_defaults),
        cmocka_unit_test(test_plan_every_key_lands_in_the_plan),
        cmocka_unit_test(test_plan_indented_lines_continue_a_value),
        cmocka_unit_test(test_plan_accepts_crlf_a_bom_and_blanks_in_headers),
        cmocka_unit_test(test_plan_bad_files_name_the_line_and_why),
        cmocka_unit_test(test_plan_long_lines_and_the_first_error_in_line_order),
        cmocka_unit_test(test_plan_steps_and_names_at_their_limits),
        cmocka_unit_test(test_plan_order_interleaved_and_blocked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
