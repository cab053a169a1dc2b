/*
 * Unit tests for src/doctor/treat.c with a fake machine: each remedy is
 * scripted to be better, neutral, worse, to take no effect, to find nothing
 * to change or to be hit by a stop request, and the tests check what is
 * kept and what is put back, the rank order, the state each treatment is
 * measured on, the interleaving of the A/B and the journal's calls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/remedy.h"
#include "doctor/treat.h"
#include "out/json_doctor.h"
#include "out/text_doctor.h"

enum script { BETTER, NEUTRAL, WORSE, NO_EFFECT, NOTHING, STOP_IN_AB, APPLY_FAILS };

struct fake {
    enum script script[TREAT_MAX];
    bool applied[TREAT_MAX]; /* what the journal holds */
    bool arm_after[TREAT_MAX];
    char calls[1024]; /* "a0 m0b m0a j0 k0 ..." */
    int runs;
    bool stop;
};

static void note(struct fake *f, char what, size_t t, const char *extra)
{
    size_t used = strlen(f->calls);
    snprintf(f->calls + used, sizeof f->calls - used, "%c%zu%s ", what, t, extra);
}

static size_t index_of(struct fake *f, const struct treatment *t)
{
    (void)f;
    return t->prescription;
}

static int fake_apply(void *ctx, struct treatment *t, char *why, size_t n)
{
    struct fake *f = ctx;
    size_t i = index_of(f, t);
    note(f, 'a', i, "");
    if (f->script[i] == NOTHING) {
        snprintf(why, n, "nothing to change");
        return 1;
    }
    if (f->script[i] == APPLY_FAILS) {
        snprintf(why, n, "refused");
        return -1;
    }
    f->applied[i] = true;
    f->arm_after[i] = true;
    t->changes = 1;
    return 0;
}

static int fake_took_effect(void *ctx, struct treatment *t, char *why, size_t n)
{
    struct fake *f = ctx;
    if (f->script[t->prescription] == NO_EFFECT) {
        snprintf(why, n, "the value read back is the old one");
        return 0;
    }
    return 1;
}

static int fake_set_arm(void *ctx, struct treatment *t, bool after, char *why, size_t n)
{
    (void)why, (void)n;
    struct fake *f = ctx;
    f->arm_after[t->prescription] = after;
    return 0;
}

static int fake_measure(void *ctx, struct treatment *t, bool after, int round, char *why, size_t n)
{
    (void)why, (void)n, (void)round;
    struct fake *f = ctx;
    size_t i = t->prescription;
    assert_true(f->applied[i]);
    assert_int_equal(f->arm_after[i], after);
    note(f, 'm', i, after ? "a" : "b");
    f->runs++;
    if (f->script[i] == STOP_IN_AB && f->runs >= 2) {
        f->stop = true;
        return 1;
    }
    return 0;
}

static int fake_judge(void *ctx, struct treatment *t, int rounds, char *why, size_t n)
{
    (void)why, (void)n, (void)rounds;
    struct fake *f = ctx;
    enum verdict v = f->script[t->prescription] == BETTER  ? VERDICT_BETTER
                     : f->script[t->prescription] == WORSE ? VERDICT_WORSE
                                                           : VERDICT_SAME;
    t->tail_verdict[0] = v;
    t->tail_verdict[1] = VERDICT_SAME;
    t->tail_verdict[2] = VERDICT_SAME;
    note(f, 'j', t->prescription, "");
    return 0;
}

static int fake_put_back(void *ctx, struct treatment *t, char *why, size_t n)
{
    (void)why, (void)n;
    struct fake *f = ctx;
    assert_true(f->applied[t->prescription]);
    f->applied[t->prescription] = false;
    note(f, 'p', t->prescription, "");
    return 0;
}

static bool fake_stopped(void *ctx)
{
    return ((struct fake *)ctx)->stop;
}

static void run_script(struct fake *f, struct treat_outcome *out, const enum script *s, size_t n,
                       int repeat, bool keep_neutral)
{
    memset(f, 0, sizeof *f);
    memset(out, 0, sizeof *out);
    out->n = n;
    for (size_t i = 0; i < n; i++) {
        f->script[i] = s[i];
        out->t[i].prescription = i;
        snprintf(out->t[i].action, sizeof out->t[i].action, "action%u", (unsigned)i);
    }
    struct treat_ops ops = {f,          fake_apply,    fake_took_effect, fake_set_arm, fake_measure,
                            fake_judge, fake_put_back, fake_stopped};
    struct treat_config cfg = {repeat, keep_neutral};
    treat_run(&cfg, &ops, out);
}

static void test_treat_keeps_better_and_puts_back_neutral_and_worse(void **state)
{
    (void)state;
    struct fake f;
    struct treat_outcome out;
    const enum script s[] = {NEUTRAL, BETTER, WORSE};
    run_script(&f, &out, s, 3, 1, false);
    assert_int_equal(out.t[0].status, TREAT_PUT_BACK);
    assert_int_equal(out.t[0].verdict, VERDICT_SAME);
    assert_int_equal(out.t[1].status, TREAT_KEPT);
    assert_int_equal(out.t[1].verdict, VERDICT_BETTER);
    assert_int_equal(out.t[2].status, TREAT_PUT_BACK);
    assert_int_equal(out.t[2].verdict, VERDICT_WORSE);
    /* rank order, one at a time, each put back before the next is applied */
    assert_string_equal(f.calls, "a0 m0b m0a j0 p0 a1 m1b m1a j1 a2 m2b m2a j2 p2 ");
    assert_int_equal(out.final_state, 1);
    assert_false(f.applied[0]);
    assert_true(f.applied[1]);
    assert_true(f.arm_after[1]);
    assert_false(f.applied[2]);
}

static void test_treat_measures_each_on_the_last_kept_state(void **state)
{
    (void)state;
    struct fake f;
    struct treat_outcome out;
    const enum script s[] = {BETTER, WORSE, BETTER, NEUTRAL};
    run_script(&f, &out, s, 4, 1, false);
    assert_int_equal(out.t[0].on_top_of, -1);
    assert_int_equal(out.t[1].on_top_of, 0);
    assert_int_equal(out.t[2].on_top_of, 0);
    assert_int_equal(out.t[3].on_top_of, 2);
    assert_int_equal(out.final_state, 2);
}

static void test_treat_keep_neutral_keeps_no_difference(void **state)
{
    (void)state;
    struct fake f;
    struct treat_outcome out;
    const enum script s[] = {NEUTRAL, WORSE};
    run_script(&f, &out, s, 2, 1, true);
    assert_int_equal(out.t[0].status, TREAT_KEPT);
    assert_int_equal(out.t[1].status, TREAT_PUT_BACK);
    assert_true(f.applied[0]);
    assert_int_equal(out.final_state, 0);
}

static void test_treat_puts_back_what_took_no_effect(void **state)
{
    (void)state;
    struct fake f;
    struct treat_outcome out;
    const enum script s[] = {NO_EFFECT, NOTHING, APPLY_FAILS, BETTER};
    run_script(&f, &out, s, 4, 1, false);
    assert_int_equal(out.t[0].status, TREAT_NO_EFFECT);
    assert_string_equal(out.t[0].why, "the value read back is the old one");
    assert_int_equal(out.t[1].status, TREAT_NOTHING);
    assert_int_equal(out.t[2].status, TREAT_FAILED);
    assert_int_equal(out.t[3].status, TREAT_KEPT);
    /* not measured; only what was applied is put back */
    assert_string_equal(f.calls, "a0 p0 a1 a2 a3 m3b m3a j3 ");
}

static void test_treat_alternates_the_order_of_the_rounds(void **state)
{
    (void)state;
    struct fake f;
    struct treat_outcome out;
    const enum script s[] = {BETTER};
    run_script(&f, &out, s, 1, 3, false);
    assert_string_equal(f.calls, "a0 m0b m0a m0a m0b m0b m0a j0 ");
    assert_int_equal(out.t[0].rounds, 3);
    /* the last run was "after", but had it been "before" the kept change is set again */
    assert_true(f.arm_after[0]);
}

static void test_treat_kept_change_is_set_again_after_a_before_run(void **state)
{
    (void)state;
    struct fake f;
    struct treat_outcome out;
    const enum script s[] = {BETTER};
    run_script(&f, &out, s, 1, 2, false);
    assert_string_equal(f.calls, "a0 m0b m0a m0a m0b j0 ");
    assert_true(f.arm_after[0]);
    assert_int_equal(out.t[0].status, TREAT_KEPT);
}

static void test_treat_stop_puts_back_the_change_under_test_only(void **state)
{
    (void)state;
    struct fake f;
    struct treat_outcome out;
    const enum script s[] = {BETTER, STOP_IN_AB, BETTER};
    run_script(&f, &out, s, 3, 1, false);
    assert_int_equal(out.t[0].status, TREAT_KEPT);
    assert_int_equal(out.t[1].status, TREAT_STOPPED);
    assert_int_equal(out.t[2].status, TREAT_NOT_TRIED);
    assert_int_equal(out.stopped_at, 1);
    assert_true(f.applied[0]);
    assert_false(f.applied[1]);
    assert_false(f.applied[2]);
    assert_string_equal(f.calls, "a0 m0b m0a j0 a1 m1b p1 ");
}

static void test_treat_verdict_of_the_tail(void **state)
{
    (void)state;
    enum verdict a[3] = {VERDICT_BETTER, VERDICT_SAME, VERDICT_INSUFFICIENT};
    assert_int_equal(treat_verdict_of(a), VERDICT_BETTER);
    enum verdict b[3] = {VERDICT_BETTER, VERDICT_WORSE, VERDICT_SAME};
    assert_int_equal(treat_verdict_of(b), VERDICT_WORSE);
    enum verdict c[3] = {VERDICT_SAME, VERDICT_INSUFFICIENT, VERDICT_SAME};
    assert_int_equal(treat_verdict_of(c), VERDICT_SAME);
    enum verdict d[3] = {VERDICT_INSUFFICIENT, VERDICT_INSUFFICIENT, VERDICT_NA};
    assert_int_equal(treat_verdict_of(d), VERDICT_INSUFFICIENT);
}

/* The story of a treatment: one change kept, one put back, one remedy a
 * reboot needs; the conclusion is the final state's. */
static void test_treatment_is_told_in_text_and_doctor_json(void **state)
{
    (void)state;
    static struct doctor_diagnosis diag;
    static struct doctor_prescriptions ps;
    static struct treat_outcome out;
    memset(&diag, 0, sizeof diag);
    memset(&ps, 0, sizeof ps);
    memset(&out, 0, sizeof out);
    snprintf(diag.method, sizeof diag.method, "tracepoints");
    diag.conclusion = (struct doctor_conclusion){
        .budget_ns = 1000000, .samples = 1000, .over_budget = 9, .max = {true, 3000000, 0}};
    const char *ids[] = {"tune-irq-affinity", "tune-rt-throttling", "boot-isolation"};
    for (size_t i = 0; i < 3; i++) {
        ps.p[i].remedy = remedy_find(ids[i]);
        assert_non_null(ps.p[i].remedy);
        ps.p[i].pid = -1;
    }
    ps.count = 3;
    out.n = 2;
    struct treat_tail before = {2000, 0.004, 1500000, 3000000},
                      after = {2000, 0.0005, 900000, 1200000};
    /* measured once each; the second on top of the first, with the arms swapped */
    const char *actions[] = {"irq-affinity", "rt-throttling"};
    const enum treat_status status[] = {TREAT_KEPT, TREAT_PUT_BACK};
    const enum verdict v[] = {VERDICT_BETTER, VERDICT_WORSE};
    for (size_t i = 0; i < 2; i++) {
        struct treatment *t = &out.t[i];
        t->prescription = i;
        t->on_top_of = (int)i - 1;
        t->status = status[i];
        t->verdict = t->tail_verdict[0] = v[i];
        t->tail_verdict[1] = t->tail_verdict[2] = VERDICT_SAME;
        t->before = i ? after : before;
        t->after = i ? before : after;
        t->rounds = 1;
        t->changes = i ? 1 : 4;
        snprintf(t->action, sizeof t->action, "%s", actions[i]);
    }
    out.final_state = 0;
    out.stopped_at = -1;
    struct doctor_conclusion final = {.budget_ns = 1000000,
                                      .met = true,
                                      .samples = 1000,
                                      .p999 = {true, 900000, 1},
                                      .max = {true, 950000, 0}};
    struct doctor_treatment_report tr = {.outcome = &out,
                                         .repeat = 1,
                                         .journal = "/j.json",
                                         .dir = "/d",
                                         .final_result = "/d/final.json",
                                         .final = &final};
    struct doctor_report r = {.version = "t",
                              .started_at = "now",
                              .cpus = "1",
                              .diagnosis = &diag,
                              .prescriptions = &ps,
                              .treatment = &tr};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    text_doctor_report(f, &r);
    fclose(f);
    assert_non_null(strstr(text, "Treatment: 2 runtime remedies"));
    assert_non_null(strstr(text, "1. irq-affinity (prescription 1): kept; 4 changes, measured on "
                                 "the baseline"));
    assert_non_null(strstr(text, "measured on treatment 1 kept"));
    assert_non_null(strstr(text, "Put back: rt-throttling (worse)."));
    assert_non_null(strstr(text, "Kept: irq-affinity (undo: jitterlab tune restore; journal "));
    assert_non_null(strstr(text, "Remains (a reboot or a person): prescriptions 3 boot-isolation"));
    assert_non_null(strstr(text, "Conclusion: budget 1 ms met in the final state"));
    for (char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        assert_true(n <= 100);
        line += n + (line[n] == '\n');
    }
    free(text);
    assert_true(doctor_report_conclusion(&r)->met);
    json_t *doc = json_doctor_document(&r);
    const json_t *t = json_object_get(doc, "treatment");
    assert_int_equal(json_integer_value(json_object_get(t, "final_state")), 1);
    const json_t *i0 = json_array_get(json_object_get(t, "items"), 0);
    assert_string_equal(json_string_value(json_object_get(i0, "status")), "kept");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(i0, "verdicts"), "exceed_budget")),
        "better");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(i0, "after"), "p999_ns")),
                     900000);
    assert_string_equal(json_string_value(json_array_get(json_object_get(i0, "after_runs"), 0)),
                        "/d/treat-1-after-1.json");
    const json_t *con = json_object_get(doc, "conclusion");
    assert_string_equal(json_string_value(json_object_get(con, "state")), "final");
    assert_true(json_is_true(json_object_get(con, "met")));
    assert_false(json_is_true(json_object_get(json_object_get(doc, "baseline_conclusion"), "met")));
    /* compare's arm: the final run and the after runs of the last change kept */
    char *paths[8], why[200];
    assert_int_equal(json_doctor_final_runs(doc, paths, 8, why, sizeof why), 2);
    assert_string_equal(paths[0], "/d/treat-1-after-1.json");
    assert_string_equal(paths[1], "/d/final.json");
    free(paths[0]);
    free(paths[1]);
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_treat_keeps_better_and_puts_back_neutral_and_worse),
        cmocka_unit_test(test_treat_measures_each_on_the_last_kept_state),
        cmocka_unit_test(test_treat_keep_neutral_keeps_no_difference),
        cmocka_unit_test(test_treat_puts_back_what_took_no_effect),
        cmocka_unit_test(test_treat_alternates_the_order_of_the_rounds),
        cmocka_unit_test(test_treat_kept_change_is_set_again_after_a_before_run),
        cmocka_unit_test(test_treat_stop_puts_back_the_change_under_test_only),
        cmocka_unit_test(test_treat_verdict_of_the_tail),
        cmocka_unit_test(test_treatment_is_told_in_text_and_doctor_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
