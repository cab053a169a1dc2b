/*
 * Unit tests for src/doctor/remedy.c: every inspect finding id and every
 * cause kind has a remedy on every kind of machine, every remedy a row
 * names exists, every tune remedy names a real tune action, and a
 * finding's remedies carry out every tune action its rule offers. A new
 * finding or cause kind without its row fails here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "doctor/remedy.h"
#include "inspect/inspect_rules.h"
#include "trace/attribute.h"
#include "tune/tune.h"

static const struct remedy_machine machines[] = {
    {.vm = false, .no_cpuidle_driver = false},
    {.vm = false, .no_cpuidle_driver = true},
    {.vm = true, .no_cpuidle_driver = false},
    {.vm = true, .no_cpuidle_driver = true},
};
#define NMACHINES (sizeof machines / sizeof machines[0])

static void test_every_inspect_finding_has_a_remedy(void **state)
{
    (void)state;
    const struct remedy *r[8];
    for (size_t i = 0; i < inspect_rule_count(); i++)
        for (size_t m = 0; m < NMACHINES; m++)
            if (remedies_for(REMEDY_FROM_FINDING, inspect_rule_id(i), NULL, &machines[m], r, 8) ==
                0)
                fail_msg("finding %s has no remedy (machine %zu)", inspect_rule_id(i), m);
}

static void test_every_cause_kind_has_a_remedy(void **state)
{
    (void)state;
    const struct remedy *r[8];
    for (unsigned k = 0; k < CAUSE_KIND_COUNT; k++)
        for (size_t m = 0; m < NMACHINES; m++)
            if (remedies_for(REMEDY_FROM_CAUSE, cause_kind_name(k), NULL, &machines[m], r, 8) == 0)
                fail_msg("cause kind %s has no remedy (machine %zu)", cause_kind_name(k), m);
    /* the window method's kinds beyond the tracepoints' */
    static const char *const window_kinds[] = {"steal", "smi", "frequency", "idle"};
    for (size_t k = 0; k < 4; k++)
        for (size_t m = 0; m < NMACHINES; m++)
            assert_true(remedies_for(REMEDY_FROM_CAUSE, window_kinds[k], NULL, &machines[m], r, 8) >
                        0);
}

static void test_every_row_names_a_known_key_and_remedy(void **state)
{
    (void)state;
    for (size_t i = 0; i < remedy_link_count(); i++) {
        const struct remedy_link *l = remedy_link_at(i);
        if (!remedy_find(l->remedy))
            fail_msg("row %zu (%s) names remedy %s, which does not exist", i, l->key, l->remedy);
        bool known = false;
        if (l->source == REMEDY_FROM_FINDING) {
            for (size_t k = 0; k < inspect_rule_count(); k++)
                known |= strcmp(inspect_rule_id(k), l->key) == 0;
        } else {
            known = cause_kind_from_name(l->key) >= 0 || strcmp(l->key, "steal") == 0 ||
                    strcmp(l->key, "smi") == 0 || strcmp(l->key, "frequency") == 0 ||
                    strcmp(l->key, "idle") == 0;
        }
        if (!known)
            fail_msg("row %zu names %s, which is no finding id or cause kind", i, l->key);
    }
}

static void test_every_tune_remedy_names_a_real_tune_action(void **state)
{
    (void)state;
    for (size_t i = 0; i < remedy_count(); i++) {
        const struct remedy *r = remedy_at(i);
        assert_true((r->kind == REMEDY_TUNE) == (r->tune_action != NULL));
        if (r->tune_action && tune_action_find(r->tune_action) < 0)
            fail_msg("remedy %s names tune action %s, which does not exist", r->id, r->tune_action);
        bool used = false;
        for (size_t k = 0; k < remedy_link_count(); k++)
            used |= strcmp(remedy_link_at(k)->remedy, r->id) == 0;
        if (!used)
            fail_msg("remedy %s is in no row", r->id);
        assert_null(remedy_find(r->id) != r ? r : NULL); /* ids are unique */
    }
}

/* What inspect's fix offers, doctor prescribes too: one link, two tables. */
static void test_a_findings_remedies_include_its_rules_tune_actions(void **state)
{
    (void)state;
    const struct remedy *r[8];
    for (size_t i = 0; i < inspect_rule_count(); i++) {
        size_t n = remedies_for(REMEDY_FROM_FINDING, inspect_rule_id(i), NULL, &machines[0], r, 8);
        for (int k = 0; inspect_rule_tune_action(i, k); k++) {
            bool found = false;
            for (size_t j = 0; j < n && j < 8; j++)
                found |= r[j]->tune_action &&
                         strcmp(r[j]->tune_action, inspect_rule_tune_action(i, k)) == 0;
            if (!found)
                fail_msg("finding %s offers tune action %s, its remedies do not",
                         inspect_rule_id(i), inspect_rule_tune_action(i, k));
        }
    }
}

/* A halted vCPU's late exit is the hypervisor's, not the idle states'. */
static void test_idle_exit_on_a_guest_without_idle_driver_is_the_hypervisors(void **state)
{
    (void)state;
    const struct remedy *r[8];
    struct remedy_machine halt = {.vm = true, .no_cpuidle_driver = true};
    assert_int_equal(remedies_for(REMEDY_FROM_CAUSE, "idle-exit", NULL, &halt, r, 8), 1);
    assert_string_equal(r[0]->id, "hypervisor-halt");
    struct remedy_machine metal = {0};
    size_t n = remedies_for(REMEDY_FROM_CAUSE, "idle-exit", NULL, &metal, r, 8);
    assert_true(n >= 1);
    for (size_t j = 0; j < n; j++)
        assert_true(r[j]->kind != REMEDY_HYPERVISOR);
    assert_int_equal(remedies_for(REMEDY_FROM_CAUSE, "thread", NULL, &metal, r, 8), 1);
    assert_string_equal(r[0]->id, "move-thread");
    /* a name's own rows replace its kind's */
    assert_int_equal(remedies_for(REMEDY_FROM_CAUSE, "unexplained", "events lost", &metal, r, 8),
                     1);
    assert_string_equal(r[0]->id, "trace-lost");
    assert_int_equal(remedies_for(REMEDY_FROM_CAUSE, "unexplained", "no events", &metal, r, 8), 1);
    assert_string_equal(r[0]->id, "firmware-smi");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_inspect_finding_has_a_remedy),
        cmocka_unit_test(test_every_cause_kind_has_a_remedy),
        cmocka_unit_test(test_every_row_names_a_known_key_and_remedy),
        cmocka_unit_test(test_every_tune_remedy_names_a_real_tune_action),
        cmocka_unit_test(test_a_findings_remedies_include_its_rules_tune_actions),
        cmocka_unit_test(test_idle_exit_on_a_guest_without_idle_driver_is_the_hypervisors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
