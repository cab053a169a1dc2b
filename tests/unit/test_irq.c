/*
 * The one IRQ placement model (src/sys/irq.c) and the two tools that use it:
 * inspect's irq-on-rt-cpu counts the IRQs that `tune apply --only
 * irq-affinity` moves, on every fixture, and after an apply it says which
 * moves the kernel has not made yet. And what tune does with a change the
 * kernel refuses: reported, kept out of the journal (an entry of an earlier
 * apply keeps its values), the session going on for run --tune.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"
#include "sys/irq.h"
#include "tune/session.h"
#include "tune/tune.h"
#include "test_fixture.h"
#include "test_tree.h"

/* Parses text into l (one of the caller's: a struct cpulist is large). */
static struct cpulist *list_of(struct cpulist *l, const char *text)
{
    assert_int_equal(cpulist_parse(text, l, NULL), 0);
    return l;
}

/* The placement against target CPU 1; NULL for a list that is not known. */
static enum irq_placement place(const char *requested, const char *effective)
{
    static struct cpulist r, e, t;
    return irq_placement_of(requested ? list_of(&r, requested) : NULL,
                            effective ? list_of(&e, effective) : NULL, list_of(&t, "1"));
}

static void test_irq_placement_follows_requested_then_effective(void **state)
{
    (void)state;
    assert_int_equal(place("0-1", "0"), IRQ_ALLOWED_ON_TARGET); /* tune moves it */
    assert_int_equal(place("1", "1"), IRQ_ALLOWED_ON_TARGET);
    assert_int_equal(place("0", "1"), IRQ_MOVE_PENDING); /* the kernel has not moved it */
    assert_int_equal(place("0", "0"), IRQ_OFF_TARGETS);
    assert_int_equal(place("0-1", NULL), IRQ_ALLOWED_ON_TARGET); /* no effective list */
    assert_int_equal(place("0", NULL), IRQ_OFF_TARGETS);
    assert_int_equal(place(NULL, "1"), IRQ_MOVE_PENDING); /* requested unreadable */
    assert_int_equal(place(NULL, NULL), IRQ_OFF_TARGETS);
}

static void test_irq_moved_mask_falls_back_to_the_housekeeping_cpus(void **state)
{
    (void)state;
    static struct cpulist a, b, c, out;
    char text[64];
    irq_moved_mask(list_of(&a, "0-3"), list_of(&b, "1,3"), list_of(&c, "0,2"), &out);
    cpulist_format(&out, text, sizeof text);
    assert_string_equal(text, "0,2");
    irq_moved_mask(list_of(&a, "3"), list_of(&b, "3"), list_of(&c, "0-2"), &out);
    cpulist_format(&out, text, sizeof text);
    assert_string_equal(text, "0-2");
    irq_moved_mask(list_of(&a, "0-3"), list_of(&b, "3"), list_of(&c, "0-2"), &out);
    cpulist_format(&out, text, sizeof text);
    assert_string_equal(text, "0-2");
}

static void test_irq_read_places_each_line_of_the_pending_fixture(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "vm-irq-pending");
    struct irq_table t;
    static struct read_notes notes;
    static struct cpulist target;
    assert_int_equal(irq_read(&sr, list_of(&target, "1"), &t, &notes), 0);
    int seen = 0;
    for (int i = 0; i < t.nirq; i++) {
        const struct irq_line *l = &t.irq[i];
        if (!l->numeric)
            continue;
        seen++;
        enum irq_placement want = strcmp(l->id, "24") == 0   ? IRQ_ALLOWED_ON_TARGET
                                  : strcmp(l->id, "36") == 0 ? IRQ_MOVE_PENDING
                                                             : IRQ_OFF_TARGETS;
        assert_int_equal(l->placement, want);
        assert_int_equal(l->affine_to_target, strcmp(l->id, "36") == 0); /* effective 1 */
    }
    assert_int_equal(seen, 3);
    irq_free(&t);
}

struct inspected {
    struct inspect_system sys;
    struct inspect_findings findings;
};

static struct inspected *inspect_tree(const struct sysroot *sr)
{
    struct inspected *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_int_equal(inspect_system_read(sr, NULL, &r->sys), 0);
    inspect_rules_run(&r->sys, 50 * NS_PER_US, &r->findings);
    return r;
}

static void inspected_free(struct inspected *r)
{
    inspect_system_free(&r->sys);
    free(r);
}

/* What irq-on-rt-cpu says tune moves ("tune moves N of them"; none when ok). */
static int inspect_irq_moves(const struct inspected *r)
{
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "irq-on-rt-cpu");
    assert_non_null(f);
    if (f->severity == INSPECT_OK)
        return 0;
    const char *at = strstr(f->effect, "tune moves ");
    if (!at)
        fail_msg("irq-on-rt-cpu does not say what tune moves: %s", f->effect);
    int n = -1;
    assert_int_equal(sscanf(at, "tune moves %d", &n), 1);
    return n;
}

/* The plan of `tune apply --only irq-affinity` for inspect's target CPUs. */
static int tune_irq_moves(const struct sysroot *sr, const struct inspected *r)
{
    struct tune_request rq = {.sr = sr,
                              .targets = r->sys.targets,
                              .budget_ns = 50 * NS_PER_US,
                              .boost = -1,
                              .actions = 1u << tune_action_find("irq-affinity")};
    static struct tune_plan plan;
    assert_int_equal(tune_plan_build(&rq, &plan), 0);
    int n = plan.n;
    tune_plan_free(&plan);
    return n;
}

static void test_inspect_counts_the_irqs_tune_moves(void **state)
{
    (void)state;
    static const char *const fixtures[] = {"vm-irq-pending",  "vm-haltpoll", "intel-ipc-untuned",
                                           "intel-ipc-tuned", "core2-quad",  "amd-epyc"};
    static const int moves[] = {1, 19, 6, 0, 3, 2}; /* default targets: 1, 1, 1-3, 3, 1-3, 3,7 */
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        struct sysroot sr;
        fixture_sysroot(&sr, fixtures[i]);
        struct inspected *r = inspect_tree(&sr);
        int said = inspect_irq_moves(r), planned = tune_irq_moves(&sr, r);
        if (said != planned || planned != moves[i])
            fail_msg("%s: inspect says tune moves %d, tune plans %d, expected %d", fixtures[i],
                     said, planned, moves[i]);
        inspected_free(r);
    }
}

static bool has_evidence(const struct inspect_finding *f, const char *path, const char *value)
{
    for (int i = 0; i < f->nevidence; i++)
        if (strstr(f->evidence[i].path, path) && strstr(f->evidence[i].value, value))
            return true;
    return false;
}

static void test_inspect_shows_both_lists_of_a_pending_move(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "vm-irq-pending");
    struct inspected *r = inspect_tree(&sr);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "irq-on-rt-cpu");
    assert_int_equal(f->severity, INSPECT_WARNING);
    assert_true(has_evidence(f, "/proc/irq/36/effective_affinity_list",
                             "requested 0, effective 1: kernel has not moved it yet"));
    assert_true(has_evidence(f, "/proc/irq/24/smp_affinity_list",
                             "requested 0-1, effective 0: tune moves it"));
    assert_false(has_evidence(f, "/proc/irq/39/", ""));
    assert_non_null(strstr(f->effect, "2 device interrupts can arrive on CPU 1"));
    assert_non_null(strstr(f->fix, "--only irq-affinity (moves 1 IRQ:"));
    inspected_free(r);
}

/* A copy of a fixture under the test's temporary directory: ROOT/tree. */
static void copy_fixture(const char *root, const char *name, char *tree, size_t len)
{
    struct sysroot fix;
    fixture_sysroot(&fix, name);
    snprintf(tree, len, "%s/tree", root);
    char cmd[2 * PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "cp -a '%s' '%s'", fix.prefix, tree);
    assert_int_equal(system(cmd), 0);
}

static void read_tree_file(const char *tree, const char *path, char *buf, size_t len)
{
    struct sysroot sr;
    sysroot_init(&sr, tree);
    assert_true(sysroot_read_string(&sr, path, buf, len) >= 0);
}

/* The user's report: after the apply the one IRQ left on CPU 1 is a move the
 * kernel has not made; inspect says so and offers no tune command. */
static void test_inspect_after_apply_warns_only_about_the_pending_move(void **state)
{
    const char *root = *state;
    char tree[PATH_MAX], st[PATH_MAX], value[64];
    copy_fixture(root, "vm-irq-pending", tree, sizeof tree);
    snprintf(st, sizeof st, "%s/state.json", root);
    struct sysroot sr;
    sysroot_init(&sr, tree);
    struct tune_request rq = {.sr = &sr,
                              .budget_ns = 50 * NS_PER_US,
                              .boost = -1,
                              .actions = 1u << tune_action_find("irq-affinity")};
    assert_int_equal(cpulist_parse("1", &rq.targets, NULL), 0);
    static struct tune_session s;
    assert_int_equal(tune_session_begin(&s, &rq, NULL, st, TUNE_MODE_APPLY, NULL, stderr), TUNE_OK);
    assert_int_equal(s.applied, 1);
    assert_int_equal(s.refused, 0);
    tune_session_free(&s);
    read_tree_file(tree, "/proc/irq/24/smp_affinity_list", value, sizeof value);
    assert_string_equal(value, "0");

    struct inspected *r = inspect_tree(&sr);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "irq-on-rt-cpu");
    assert_int_equal(f->severity, INSPECT_WARNING);
    assert_null(f->tune_action);
    assert_null(strstr(f->fix, "tune apply"));
    assert_non_null(strstr(f->fix, "isolcpus=managed_irq"));
    assert_non_null(strstr(f->effect, "the kernel has not moved it yet"));
    assert_non_null(strstr(f->effect, "managed IRQ"));
    assert_int_equal(inspect_irq_moves(r), 0);
    assert_int_equal(tune_irq_moves(&sr, r), 0);
    assert_int_equal(f->nevidence, 1);
    inspected_free(r);
}

/* Refuses (as a managed IRQ does, EIO) every write to a path containing ctx. */
static int refusing_write(const struct tune_io *io, const struct sysroot *sr, const char *path,
                          const char *value)
{
    if (strstr(path, io->ctx))
        return -EIO;
    return tune_io_machine.write(&tune_io_machine, sr, path, value);
}

static bool journal_has(const char *st, const char *path, const char *old_value,
                        const char *new_value)
{
    static struct tune_journal j;
    char err[512];
    assert_int_equal(tune_journal_load(st, &j, err, sizeof err), 0);
    int k = tune_plan_find(&j.changes, path);
    bool same = k >= 0 && (!old_value || strcmp(j.changes.change[k].old_value, old_value) == 0) &&
                (!new_value || strcmp(j.changes.change[k].new_value, new_value) == 0);
    tune_plan_free(&j.changes);
    return same;
}

static int journal_size(const char *st)
{
    static struct tune_journal j;
    char err[512];
    int rc = tune_journal_load(st, &j, err, sizeof err);
    int n = rc == 0 ? j.changes.n : -rc; /* no journal: -1 */
    tune_plan_free(&j.changes);
    return n;
}

static void test_tune_refused_change_stays_out_of_the_journal(void **state)
{
    const char *root = *state;
    char tree[PATH_MAX], st[PATH_MAX], err[512], value[64];
    copy_fixture(root, "vm-irq-pending", tree, sizeof tree);
    snprintf(st, sizeof st, "%s/state.json", root);
    struct sysroot sr;
    sysroot_init(&sr, tree);
    struct tune_io io = {refusing_write, tune_io_machine.read, "/proc/irq/24/"};
    static struct tune_plan plan;
    tune_plan_add(&plan, "timer-migration", "/proc/sys/kernel/timer_migration", "1", "0", NULL);
    tune_plan_add(&plan, "irq-affinity", "/proc/irq/24/smp_affinity_list", "0-1", "0", NULL);
    struct tune_result res;
    assert_int_equal(tune_apply(&sr, &plan, st, TUNE_MODE_APPLY, &io, &res, err, sizeof err), 0);
    assert_int_equal(res.applied, 1);
    assert_int_equal(res.refused, 1);
    assert_non_null(strstr(res.refused_list, "/proc/irq/24/smp_affinity_list"));
    assert_int_equal(plan.change[1].state, TUNE_CHANGE_REFUSED);
    assert_int_equal(journal_size(st), 1);
    assert_true(journal_has(st, "/proc/sys/kernel/timer_migration", "1", "0"));
    assert_false(journal_has(st, "/proc/irq/24/smp_affinity_list", NULL, NULL));
    read_tree_file(tree, "/proc/irq/24/smp_affinity_list", value, sizeof value);
    assert_string_equal(value, "0-1");

    /* an entry of an earlier apply keeps its old and new values */
    tune_plan_free(&plan);
    tune_plan_add(&plan, "irq-affinity", "/proc/irq/24/smp_affinity_list", "0-1", "0", NULL);
    assert_int_equal(tune_apply(&sr, &plan, st, TUNE_MODE_APPLY, NULL, &res, err, sizeof err), 0);
    assert_int_equal(res.applied, 1);
    tune_plan_free(&plan);
    tune_plan_add(&plan, "irq-affinity", "/proc/irq/24/smp_affinity_list", "0", "1", NULL);
    assert_int_equal(tune_apply(&sr, &plan, st, TUNE_MODE_APPLY, &io, &res, err, sizeof err), 0);
    assert_int_equal(res.refused, 1);
    assert_int_equal(journal_size(st), 2);
    assert_true(journal_has(st, "/proc/irq/24/smp_affinity_list", "0-1", "0"));
    tune_plan_free(&plan);

    /* all refused, nothing journaled before: no snapshot is left */
    char failed[1024];
    int restored = 0;
    assert_int_equal(tune_restore(st, NULL, failed, sizeof failed, &restored, err, sizeof err), 0);
    assert_int_equal(restored, 2);
    tune_plan_add(&plan, "irq-affinity", "/proc/irq/24/smp_affinity_list", "0-1", "0", NULL);
    assert_int_equal(tune_apply(&sr, &plan, st, TUNE_MODE_APPLY, &io, &res, err, sizeof err), 0);
    assert_int_equal(res.refused, 1);
    assert_int_equal(res.journaled, 0);
    assert_int_equal(access(st, F_OK), -1);
    tune_plan_free(&plan);
}

/* run --tune's path: a refusal is counted, not a failure of the session. */
static void test_tune_session_goes_on_after_a_refusal(void **state)
{
    const char *root = *state;
    char tree[PATH_MAX], st[PATH_MAX], path[PATH_MAX + 64], other[PATH_MAX + 16];
    copy_fixture(root, "vm-irq-pending", tree, sizeof tree);
    snprintf(st, sizeof st, "%s/state.json", root);
    /* a file linked elsewhere too is never written (EMLINK): a refusal */
    snprintf(path, sizeof path, "%s/proc/irq/24/smp_affinity_list", tree);
    snprintf(other, sizeof other, "%s/linked", root);
    assert_int_equal(link(path, other), 0);
    struct sysroot sr;
    sysroot_init(&sr, tree);
    struct tune_request rq = {.sr = &sr,
                              .budget_ns = 50 * NS_PER_US,
                              .boost = -1,
                              .actions = 1u << tune_action_find("irq-affinity") |
                                         1u << tune_action_find("timer-migration")};
    assert_int_equal(cpulist_parse("1", &rq.targets, NULL), 0);
    static struct tune_session s;
    assert_int_equal(tune_session_begin(&s, &rq, NULL, st, TUNE_MODE_RUN, NULL, stderr), TUNE_OK);
    assert_int_equal(s.applied, 1);
    assert_int_equal(s.refused, 1);
    assert_int_equal(journal_size(st), 1);
    assert_false(journal_has(st, "/proc/irq/24/smp_affinity_list", NULL, NULL));
    assert_int_equal(tune_session_end(&s), TUNE_OK);
    assert_int_equal(access(st, F_OK), -1); /* restored, journal removed */
    tune_session_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_irq_placement_follows_requested_then_effective),
        cmocka_unit_test(test_irq_moved_mask_falls_back_to_the_housekeeping_cpus),
        cmocka_unit_test(test_irq_read_places_each_line_of_the_pending_fixture),
        cmocka_unit_test(test_inspect_counts_the_irqs_tune_moves),
        cmocka_unit_test(test_inspect_shows_both_lists_of_a_pending_move),
        cmocka_unit_test_setup_teardown(test_inspect_after_apply_warns_only_about_the_pending_move,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_tune_refused_change_stays_out_of_the_journal,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_tune_session_goes_on_after_a_refusal, temp_tree_setup,
                                        temp_tree_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
