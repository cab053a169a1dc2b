/*
 * Tuning plans against fixture trees (what each action would change for a
 * budget), the profile and action tables, value comparison after a write,
 * and the journal written and read back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/tune.h"
#include "test_fixture.h"

static struct tune_plan plan;

static const struct tune_change *find_change(const char *path)
{
    for (int i = 0; i < plan.n; i++)
        if (strcmp(plan.change[i].path, path) == 0)
            return &plan.change[i];
    return NULL;
}

static void build(const char *fixture, const char *cpus, int64_t budget_ns, uint32_t actions)
{
    static struct sysroot sr;
    fixture_sysroot(&sr, fixture);
    struct tune_request rq = {.sr = &sr, .budget_ns = budget_ns, .boost = -1, .actions = actions};
    const char *why;
    assert_int_equal(cpulist_parse(cpus, &rq.targets, &why), 0);
    tune_plan_free(&plan);
    assert_int_equal(tune_plan_build(&rq, &plan), 0);
}

static uint32_t only(const char *name)
{
    int idx = tune_action_find(name);
    assert_true(idx >= 0);
    return 1u << idx;
}

static void test_tune_idle_states_follow_the_budget(void **state)
{
    (void)state;
    /* Core 2 acpi_idle: C1 1 us, C2 20 us, C3 85 us; the limit is half the budget */
    build("core2-quad", "1", 50000, only("idle-states"));
    assert_int_equal(plan.n, 1);
    assert_non_null(find_change("/sys/devices/system/cpu/cpu1/cpuidle/state3/disable"));
    build("core2-quad", "1", 10000, only("idle-states"));
    assert_int_equal(plan.n, 2);
    build("core2-quad", "1-2", 500, only("idle-states"));
    assert_int_equal(plan.n, 6); /* C1, C2, C3 on two CPUs; POLL (0 us) stays */
    const struct tune_change *c =
        find_change("/sys/devices/system/cpu/cpu2/cpuidle/state1/disable");
    assert_non_null(c);
    assert_string_equal(c->old_value, "0");
    assert_string_equal(c->new_value, "1");
}

static void test_tune_cpufreq_moves_ondemand_to_performance(void **state)
{
    (void)state;
    build("core2-quad", "1", 50000, only("cpufreq"));
    const struct tune_change *c =
        find_change("/sys/devices/system/cpu/cpufreq/policy1/scaling_governor");
    assert_non_null(c);
    assert_string_equal(c->old_value, "ondemand");
    assert_string_equal(c->new_value, "performance");
}

static void test_tune_tuned_machine_needs_only_a_resume_limit(void **state)
{
    (void)state;
    /* Deep states are disabled, performance governor, IRQs off CPU 3, timer
     * migration off: only the per-CPU resume latency limit (0 = none) is new. */
    build("intel-ipc-tuned", "3", 50000, tune_profile_actions("realtime"));
    assert_int_equal(plan.n, 1);
    assert_string_equal(plan.change[0].action, "resume-latency");
    build("intel-ipc-tuned", "3", 50000,
          tune_profile_actions("realtime") & ~only("resume-latency"));
    assert_int_equal(plan.n, 0);
}

static void test_tune_profiles_and_opt_in_actions(void **state)
{
    (void)state;
    uint32_t latency = tune_profile_actions("latency");
    uint32_t realtime = tune_profile_actions("realtime");
    assert_true(latency != 0);
    assert_int_equal(realtime & latency, latency);
    assert_true(realtime & only("irq-affinity"));
    assert_false(latency & only("irq-affinity"));
    static const char *opt_in[] = {"rt-throttling", "thp", "nmi-watchdog"};
    for (size_t i = 0; i < 3; i++)
        assert_false(realtime & only(opt_in[i]));
    assert_int_equal(tune_profile_actions("fastest"), 0);
    assert_int_equal(tune_action_find("turbo"), -1);
}

static void test_tune_value_matches_what_the_kernel_reads_back(void **state)
{
    (void)state;
    assert_true(tune_value_matches("0", "0\n"));
    assert_true(tune_value_matches("never", "always madvise [never]"));
    assert_false(tune_value_matches("never", "always [madvise] never"));
    assert_true(tune_value_matches("0-2", " 0-2 \n"));
    assert_false(tune_value_matches("1", "10"));
}

static void test_tune_journal_round_trip(void **state)
{
    (void)state;
    char path[] = "/tmp/jl-tune-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    static struct tune_journal j, back;
    memset(&j, 0, sizeof(j));
    j.mode = TUNE_MODE_RUN;
    j.pid = 4242;
    j.complete = true;
    snprintf(j.sysroot, sizeof(j.sysroot), "/some/tree");
    snprintf(j.created_at, sizeof(j.created_at), "2026-01-01T00:00:00.000Z");
    tune_plan_add(&j.changes, "thp", "/sys/kernel/mm/transparent_hugepage/enabled", "madvise",
                  "never", "transparent hugepages off");
    tune_plan_add(&j.changes, "timer-migration", "/proc/sys/kernel/timer_migration", "1", "0",
                  NULL);
    char err[256];
    assert_int_equal(tune_journal_save(path, &j, err, sizeof(err)), 0);
    assert_int_equal(tune_journal_load(path, &back, err, sizeof(err)), 0);
    assert_int_equal(back.mode, TUNE_MODE_RUN);
    assert_int_equal(back.pid, 4242);
    assert_true(back.complete);
    assert_string_equal(back.sysroot, "/some/tree");
    assert_int_equal(back.changes.n, 2);
    assert_string_equal(back.changes.change[0].old_value, "madvise");
    assert_string_equal(back.changes.change[1].new_value, "0");
    /* adding the same path again keeps its original old value */
    tune_plan_add(&back.changes, "thp", "/sys/kernel/mm/transparent_hugepage/enabled", "never",
                  "never", NULL);
    assert_int_equal(back.changes.n, 2);
    assert_string_equal(back.changes.change[0].old_value, "madvise");
    tune_plan_free(&j.changes);
    tune_plan_free(&back.changes);
    unlink(path);
    assert_int_equal(tune_journal_load(path, &back, err, sizeof(err)), 1);
}

static int teardown(void **state)
{
    (void)state;
    tune_plan_free(&plan);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tune_idle_states_follow_the_budget),
        cmocka_unit_test(test_tune_cpufreq_moves_ondemand_to_performance),
        cmocka_unit_test(test_tune_tuned_machine_needs_only_a_resume_limit),
        cmocka_unit_test(test_tune_profiles_and_opt_in_actions),
        cmocka_unit_test(test_tune_value_matches_what_the_kernel_reads_back),
        cmocka_unit_test(test_tune_journal_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
