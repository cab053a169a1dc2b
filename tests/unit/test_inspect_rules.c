/*
 * Unit tests for src/inspect/inspect_rules.c against the fixture trees of real
 * machine types (tests/fixtures/, found through $JL_TOP): for each machine
 * and budget they pin the finding ids, their severities and the verdict, so
 * that other tools can rely on them. The rule table itself must hold every
 * promised id, and every tune action a rule offers must exist in
 * tune_actions[].
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"
#include "tune/tune.h"
#include "test_fixture.h"
#include "test_tree.h"

struct inspected {
    struct inspect_system sys;
    struct inspect_findings findings;
};

/* Reads the tree with the default target CPUs (cpus NULL) or cpus. */
static struct inspected *inspect_tree(const struct sysroot *tree, const char *cpus,
                                      int64_t budget_ns)
{
    struct inspected *r = malloc(sizeof *r);
    struct cpulist *targets = calloc(1, sizeof *targets);
    assert_non_null(r);
    assert_non_null(targets);
    if (cpus)
        assert_int_equal(cpulist_parse(cpus, targets, NULL), 0);
    assert_int_equal(inspect_system_read(tree, targets, &r->sys), 0);
    free(targets);
    inspect_rules_run(&r->sys, budget_ns, &r->findings);
    return r;
}

/* Reads fixture NAME the same way. */
static struct inspected *inspect_fixture(const char *name, const char *cpus, int64_t budget_ns)
{
    struct sysroot sr;
    fixture_sysroot(&sr, name);
    return inspect_tree(&sr, cpus, budget_ns);
}

static void inspected_free(struct inspected *r)
{
    inspect_system_free(&r->sys);
    free(r);
}

static void expect(const struct inspected *r, const char *id, enum inspect_severity sev)
{
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, id);
    if (!f)
        fail_msg("no finding %s", id);
    if (f->severity != sev)
        fail_msg("%s is %s, expected %s (%s)", id, inspect_severity_name(f->severity),
                 inspect_severity_name(sev), f->effect);
}

static void expect_none(const struct inspected *r, const char *id)
{
    if (inspect_finding_by_id(&r->findings, id))
        fail_msg("unexpected finding %s", id);
}

static bool is_unknown(const struct inspected *r, const char *id)
{
    for (int i = 0; i < r->findings.nunknown; i++)
        if (strcmp(r->findings.unknown[i].id, id) == 0)
            return true;
    return false;
}

static bool has_evidence(const struct inspect_finding *f, const char *path_part,
                         const char *value_part)
{
    for (int i = 0; i < f->nevidence; i++)
        if (strstr(f->evidence[i].path, path_part) && strstr(f->evidence[i].value, value_part))
            return true;
    return false;
}

static int count_severity(const struct inspected *r, enum inspect_severity sev)
{
    int n = 0;
    for (int i = 0; i < r->findings.count; i++)
        n += r->findings.finding[i].severity == sev;
    return n;
}

/* ---- the rule table ----------------------------------------------------- */

static void test_rule_table_holds_every_promised_id(void **state)
{
    (void)state;
    static const char *const promised[] = {
        "cstate-exit-latency", "pm-qos-unset",          "cpufreq-governor",    "cpufreq-boost",
        "epp-not-performance", "no-isolation",          "nohz-full-missing",   "rcu-nocbs-missing",
        "irq-on-rt-cpu",       "not-preempt-rt",        "rt-throttling",       "smt-sibling-shared",
        "timer-migration",     "thp-enabled",           "clocksource-not-tsc", "tsc-not-invariant",
        "hypervisor",          "swap-in-use",           "nmi-watchdog",        "measured-latency",
        "resctrl-unmounted",   "cache-not-partitioned", "cache-ways-shared"};
    for (size_t i = 0; i < sizeof promised / sizeof promised[0]; i++) {
        bool found = false;
        for (size_t k = 0; k < inspect_rule_count(); k++)
            found = found || strcmp(inspect_rule_id(k), promised[i]) == 0;
        if (!found)
            fail_msg("rule %s missing from the table", promised[i]);
    }
    assert_null(inspect_rule_id(inspect_rule_count()));
}

static void test_every_finding_has_evidence_effect_and_fix(void **state)
{
    (void)state;
    static const char *const fixtures[] = {"vm-haltpoll", "intel-ipc-untuned", "intel-ipc-tuned",
                                           "core2-quad", "amd-epyc"};
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        struct inspected *r = inspect_fixture(fixtures[i], NULL, 50 * NS_PER_US);
        for (int k = 0; k < r->findings.count; k++) {
            const struct inspect_finding *f = &r->findings.finding[k];
            if (!f->effect[0] || !f->fix[0])
                fail_msg("%s/%s lacks effect or fix", fixtures[i], f->id);
            if (f->severity != INSPECT_OK && f->nevidence == 0)
                fail_msg("%s/%s has no evidence", fixtures[i], f->id);
            for (int e = 0; e < f->nevidence; e++)
                if (f->evidence[e].path[0] != '/')
                    fail_msg("%s/%s evidence without a path", fixtures[i], f->id);
            if (k > 0 && f->severity > r->findings.finding[k - 1].severity)
                fail_msg("%s: findings not sorted worst first at %s", fixtures[i], f->id);
        }
        /* one finding or one unknown note per rule, never both */
        for (size_t k = 0; k < inspect_rule_count(); k++) {
            const char *id = inspect_rule_id(k);
            bool f = inspect_finding_by_id(&r->findings, id) != NULL;
            if (f && is_unknown(r, id))
                fail_msg("%s: %s is both a finding and unknown", fixtures[i], id);
        }
        inspected_free(r);
    }
}

/* The link between the inspect and tune tables: a rule that names an action
 * tune does not have would print a fix that fails. */
static void test_every_tune_action_a_rule_offers_exists(void **state)
{
    (void)state;
    int linked = 0;
    for (size_t i = 0; i < inspect_rule_count(); i++) {
        for (int k = 0; k < INSPECT_MAX_TUNE_ACTIONS; k++) {
            const char *action = inspect_rule_tune_action(i, k);
            if (!action)
                break;
            linked++;
            if (tune_action_find(action) < 0)
                fail_msg("rule %s offers tune action '%s', which tune_actions[] lacks",
                         inspect_rule_id(i), action);
        }
    }
    assert_true(linked >= 10);
    assert_null(inspect_rule_tune_action(inspect_rule_count(), 0));
}

/* Each fix that offers a tune action spells the command from the table's id,
 * names every action of the rule, and nothing else is typed as a tune command. */
static void test_fix_lines_name_the_rules_tune_actions(void **state)
{
    (void)state;
    static const char *const fixtures[] = {"vm-haltpoll", "intel-ipc-untuned", "core2-quad",
                                           "amd-epyc"};
    int checked = 0;
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        struct inspected *r = inspect_fixture(fixtures[i], NULL, 50 * NS_PER_US);
        for (int n = 0; n < r->findings.count; n++) {
            const struct inspect_finding *f = &r->findings.finding[n];
            size_t rule = 0;
            while (strcmp(inspect_rule_id(rule), f->id) != 0)
                rule++;
            const char *first = inspect_rule_tune_action(rule, 0);
            if (!f->tune_action) {
                if (strstr(f->fix, "tune apply"))
                    fail_msg("%s/%s: tune command typed as text: %s", fixtures[i], f->id, f->fix);
                continue;
            }
            checked++;
            assert_string_equal(f->tune_action, first);
            /* the CPUs and budget of this report, not tune's defaults */
            char want[384], targets[256];
            cpulist_format(&r->sys.targets, targets, sizeof targets);
            snprintf(want, sizeof want, "jitterlab tune apply -a %s --budget 50us --only %s",
                     targets, first);
            if (strncmp(f->fix, want, strlen(want)) != 0)
                fail_msg("%s/%s: fix does not start with '%s': %s", fixtures[i], f->id, want,
                         f->fix);
            for (int k = 1; k < INSPECT_MAX_TUNE_ACTIONS && inspect_rule_tune_action(rule, k);
                 k++) {
                snprintf(want, sizeof want, "--only %s", inspect_rule_tune_action(rule, k));
                if (!strstr(f->fix, want))
                    fail_msg("%s/%s: fix lacks '%s': %s", fixtures[i], f->id, want, f->fix);
            }
        }
        inspected_free(r);
    }
    assert_true(checked >= 5);
}

/* ---- intel-ipc-untuned -------------------------------------------------- */

static void test_untuned_intel_at_50us_is_not_ready(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("intel-ipc-untuned", NULL, 50 * NS_PER_US);
    char cpus[64];
    cpulist_format(&r->sys.targets, cpus, sizeof cpus);
    assert_string_equal(cpus, "1-3"); /* no isolation: online minus CPU 0 */
    assert_false(r->findings.ready);

    expect(r, "cstate-exit-latency", INSPECT_CRITICAL);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "cstate-exit-latency");
    assert_string_equal(f->cpus, "1-3");
    assert_true(has_evidence(f, "/cpuidle/state5/latency", "660 (C10"));
    assert_true(has_evidence(f, "/cpuidle/state4/latency", "260 (C8"));
    assert_true(has_evidence(f, "/cpuidle/state3/latency", "195 (C6"));
    assert_non_null(strstr(f->effect, "C10 exit latency 660 µs exceeds the 50 µs budget"));
    assert_non_null(strstr(f->fix, "jitterlab tune apply -a 1-3 --budget 50us --only idle-states"));
    assert_non_null(strstr(f->fix, "intel_idle.max_cstate"));

    expect(r, "not-preempt-rt", INSPECT_CRITICAL);
    expect(r, "pm-qos-unset", INSPECT_WARNING);
    expect(r, "cpufreq-governor", INSPECT_WARNING);
    expect(r, "cpufreq-boost", INSPECT_WARNING);
    expect(r, "epp-not-performance", INSPECT_WARNING);
    expect(r, "no-isolation", INSPECT_WARNING);
    expect(r, "nohz-full-missing", INSPECT_WARNING);
    expect(r, "rcu-nocbs-missing", INSPECT_WARNING);
    expect(r, "irq-on-rt-cpu", INSPECT_WARNING);
    expect(r, "rt-throttling", INSPECT_WARNING);
    expect(r, "thp-enabled", INSPECT_WARNING);
    expect(r, "nmi-watchdog", INSPECT_WARNING);
    expect(r, "threads-on-rt-cpu", INSPECT_INFO);
    expect(r, "timer-migration", INSPECT_INFO);
    expect(r, "swap-in-use", INSPECT_INFO);
    expect(r, "smt-sibling-shared", INSPECT_OK);
    expect(r, "clocksource-not-tsc", INSPECT_OK);
    expect(r, "tsc-not-invariant", INSPECT_OK);
    expect(r, "hypervisor", INSPECT_OK);
    assert_int_equal(count_severity(r, INSPECT_CRITICAL), 2);
    assert_string_equal(r->findings.finding[0].id, "cstate-exit-latency"); /* worst first */
    assert_non_null(strstr(r->findings.verdict_reason, "not ready for a 50 µs budget"));
    assert_non_null(strstr(r->findings.verdict_reason, "C10 exit latency 660 µs"));
    assert_string_equal(r->sys.base.preempt_model, "voluntary"); /* config.gz, PREEMPT_DYNAMIC */
    assert_string_equal(r->sys.base.preempt_source, "/proc/config.gz");
    assert_int_equal(r->sys.notes.count, 0);
    inspected_free(r);
}

static void test_untuned_intel_at_1ms_is_ready_with_warnings(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("intel-ipc-untuned", NULL, NS_PER_MS);
    assert_true(r->findings.ready);
    expect(r, "cstate-exit-latency", INSPECT_WARNING); /* C10 660 µs > half of 1 ms */
    expect(r, "not-preempt-rt", INSPECT_WARNING);
    expect(r, "pm-qos-unset", INSPECT_OK);
    assert_non_null(strstr(r->findings.verdict_reason, "ready for a 1000 µs budget"));
    inspected_free(r);
}

static void test_irq_finding_names_the_busiest_queue(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("intel-ipc-untuned", "3", 50 * NS_PER_US);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "irq-on-rt-cpu");
    assert_non_null(f);
    assert_true(has_evidence(f, "/proc/irq/127/smp_affinity_list", "enp1s0-TxRx-3"));
    /* effective 1, but its requested 0-3 lets the kernel deliver it on 3: tune moves it */
    assert_true(has_evidence(f, "/proc/irq/122/smp_affinity_list",
                             "requested 0-3, effective 1: tune moves it"));
    assert_false(has_evidence(f, "/proc/irq/126/", "")); /* requested and effective 2 */
    assert_non_null(strstr(f->effect, "tune moves 4 of them"));
    assert_non_null(strstr(
        f->fix, "jitterlab tune apply -a 3 --budget 50us --only irq-affinity (moves 4 IRQs"));
    inspected_free(r);
}

/* ---- intel-ipc-tuned ---------------------------------------------------- */

static void test_tuned_intel_at_50us_is_ready(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("intel-ipc-tuned", NULL, 50 * NS_PER_US);
    char cpus[64];
    cpulist_format(&r->sys.targets, cpus, sizeof cpus);
    assert_string_equal(cpus, "3"); /* the isolated CPU */
    assert_true(r->findings.ready);
    assert_int_equal(count_severity(r, INSPECT_CRITICAL), 0);
    assert_int_equal(count_severity(r, INSPECT_WARNING), 0);
    static const char *const ok[] = {
        "cstate-exit-latency", "pm-qos-unset",   "cpufreq-governor",  "cpufreq-boost",
        "epp-not-performance", "no-isolation",   "nohz-full-missing", "rcu-nocbs-missing",
        "irq-on-rt-cpu",       "not-preempt-rt", "rt-throttling",     "smt-sibling-shared",
        "timer-migration",     "thp-enabled",    "tsc-not-invariant", "clocksource-not-tsc",
        "hypervisor",          "swap-in-use",    "nmi-watchdog",      "threads-on-rt-cpu"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        expect(r, ok[i], INSPECT_OK);
    assert_int_equal(r->findings.nunknown, 0);
    assert_string_equal(r->sys.base.preempt_model, "PREEMPT_RT");
    assert_string_equal(r->findings.verdict_reason,
                        "ready for a 50 µs budget: nothing critical, no warnings");
    inspected_free(r);
}

static void test_tuned_intel_at_1us_fails_on_c1e(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("intel-ipc-tuned", NULL, NS_PER_US);
    assert_false(r->findings.ready);
    expect(r, "cstate-exit-latency", INSPECT_CRITICAL);
    assert_non_null(strstr(inspect_finding_by_id(&r->findings, "cstate-exit-latency")->effect,
                           "C1E exit "
                           "latency 2 µs"));
    inspected_free(r);
}

/* ---- core2-quad --------------------------------------------------------- */

static void test_core2_frequency_changes_are_critical_below_the_pll_stall(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("core2-quad", NULL, 50 * NS_PER_US);
    assert_false(r->findings.ready);
    expect(r, "cpufreq-governor", INSPECT_CRITICAL);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "cpufreq-governor");
    assert_non_null(strstr(f->effect, "between 1600 and 2400 MHz"));
    assert_non_null(strstr(f->effect, "PLL"));
    assert_true(has_evidence(f, "scaling_available_frequencies", "2400000 1600000"));
    expect(r, "cstate-exit-latency", INSPECT_CRITICAL); /* C3 85 µs; C2 20 µs is under half */
    f = inspect_finding_by_id(&r->findings, "cstate-exit-latency");
    assert_true(has_evidence(f, "state3/latency", "85 (C3"));
    assert_false(has_evidence(f, "state2/latency", "C2"));
    assert_non_null(strstr(f->fix, "processor.max_cstate"));
    expect(r, "clocksource-not-tsc", INSPECT_WARNING);
    expect(r, "tsc-not-invariant", INSPECT_WARNING);
    expect(r, "not-preempt-rt", INSPECT_CRITICAL);
    expect_none(r, "cpufreq-boost"); /* no boost switch on this CPU */
    assert_true(is_unknown(r, "cpufreq-boost"));
    expect_none(r, "epp-not-performance"); /* no HWP */
    inspected_free(r);
}

static void test_core2_at_200us_frequency_is_a_warning(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("core2-quad", NULL, 200 * NS_PER_US);
    expect(r, "cpufreq-governor", INSPECT_WARNING);
    expect(r, "cstate-exit-latency", INSPECT_OK); /* C3 85 µs under half of 200 */
    expect(r, "not-preempt-rt", INSPECT_CRITICAL);
    assert_false(r->findings.ready);
    inspected_free(r);
}

/* ---- amd-epyc ----------------------------------------------------------- */

static void test_epyc_isolated_smt_pair(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("amd-epyc", NULL, 50 * NS_PER_US);
    char cpus[64];
    cpulist_format(&r->sys.targets, cpus, sizeof cpus);
    assert_string_equal(cpus, "3,7");
    assert_false(r->findings.ready);
    expect(r, "cstate-exit-latency", INSPECT_CRITICAL);
    expect(r, "not-preempt-rt", INSPECT_CRITICAL); /* preempt=full, below 200 µs */
    assert_string_equal(r->sys.base.preempt_model, "full");
    assert_string_equal(r->sys.base.preempt_source, "/proc/cmdline");
    expect(r, "no-isolation", INSPECT_OK);
    expect(r, "nohz-full-missing", INSPECT_OK);
    expect(r, "rcu-nocbs-missing", INSPECT_OK);
    expect(r, "smt-sibling-shared", INSPECT_INFO); /* 3 and 7 share a core, both targets */
    expect(r, "irq-on-rt-cpu", INSPECT_WARNING);   /* managed nvme queues */
    expect(r, "threads-on-rt-cpu", INSPECT_WARNING);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "threads-on-rt-cpu");
    assert_true(has_evidence(f, "/proc/1400/task/1402/stat", "trader-log"));
    assert_false(has_evidence(f, "/task/1401/", "trader-md")); /* pinned: the RT thread */
    expect(r, "cpufreq-boost", INSPECT_WARNING);
    expect(r, "epp-not-performance", INSPECT_WARNING);
    expect(r, "swap-in-use", INSPECT_WARNING);
    expect_none(r, "pm-qos-unset");
    assert_true(is_unknown(r, "pm-qos-unset")); /* /dev/cpu_dma_latency not recorded */
    assert_true(r->sys.cmdline.isolcpus_managed_irq);
    assert_true(r->sys.cmdline.isolcpus_domain);
    inspected_free(r);
}

static void test_epyc_single_target_warns_about_its_sibling(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("amd-epyc", "3", 500 * NS_PER_US);
    expect(r, "smt-sibling-shared", INSPECT_WARNING);
    expect(r, "not-preempt-rt", INSPECT_WARNING);
    expect(r, "cstate-exit-latency", INSPECT_WARNING); /* 350 µs > half of 500 */
    assert_true(r->findings.ready);
    inspected_free(r);
}

/* ---- vm-haltpoll (this development VM) ---------------------------------- */

static void test_vm_is_not_ready_for_want_of_preemption(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("vm-haltpoll", NULL, 50 * NS_PER_US);
    assert_false(r->findings.ready);
    expect(r, "not-preempt-rt", INSPECT_CRITICAL);
    assert_string_equal(r->sys.base.preempt_model, "none"); /* PREEMPT_DYNAMIC, config default */
    expect(r, "hypervisor", INSPECT_WARNING);
    expect(r, "cstate-exit-latency", INSPECT_INFO); /* driver none: no states */
    expect(r, "cpufreq-governor", INSPECT_INFO);    /* no cpufreq */
    expect(r, "pm-qos-unset", INSPECT_OK);
    expect(r, "clocksource-not-tsc", INSPECT_INFO); /* kvm-clock */
    expect(r, "irq-on-rt-cpu", INSPECT_WARNING);
    expect(r, "thp-enabled", INSPECT_INFO); /* madvise */
    expect(r, "nmi-watchdog", INSPECT_OK);
    expect(r, "swap-in-use", INSPECT_OK);
    assert_string_equal(r->sys.cpuidle.driver, "none");
    assert_true(r->sys.config.present);
    assert_int_equal(r->sys.config.hz, 250);
    inspected_free(r);
}

/* The hypervisor's evidence names only what exists: this VM has neither
 * /sys/hypervisor/type nor a DMI vendor, and its copy has no kernel log. */
static void test_vm_hypervisor_cites_only_existing_evidence(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("vm-haltpoll", NULL, 50 * NS_PER_US);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "hypervisor");
    assert_non_null(f);
    assert_string_equal(r->sys.base.hypervisor, "unknown");
    for (int k = 0; k < f->nevidence; k++) {
        assert_string_not_equal(f->evidence[k].path, "/sys/hypervisor/type");
        assert_null(strstr(f->evidence[k].value, "unknown"));
    }
    assert_null(strstr(f->effect, "(unknown)"));
    inspected_free(r);
}

/* ---- the verdict: unverified, and a measurement folded in --------------- */

#define HUGE_BUDGET (10 * NS_PER_S) /* no setting of these fixtures is critical at it */

static struct inspected *inspect_measured(const char *name, int64_t budget_ns,
                                          const struct inspect_measurement *m)
{
    struct inspected *r = inspect_fixture(name, NULL, budget_ns);
    inspect_rules_run_measured(&r->sys, budget_ns, m, &r->findings);
    return r;
}

static struct inspect_measurement measured(int64_t max_ns, uint64_t missed)
{
    struct inspect_measurement m = {.done = true,
                                    .realtime = true,
                                    .duration_s = 10.0,
                                    .interval_ns = NS_PER_MS,
                                    .samples = 10000,
                                    .missed = missed,
                                    .max_ns = max_ns,
                                    .p99_ns = max_ns / 2,
                                    .max_cpu = 1};
    snprintf(m.command, sizeof m.command, "jitterlab run -a 1 -i 1ms -D 10s");
    return m;
}

/* A hypervisor's effect cannot be bounded from inside: nothing critical is
 * not enough to say ready. */
static void test_hypervisor_makes_the_verdict_unverified(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("vm-haltpoll", NULL, HUGE_BUDGET);
    assert_int_equal(count_severity(r, INSPECT_CRITICAL), 0);
    assert_true(inspect_finding_by_id(&r->findings, "hypervisor")->unbounded);
    assert_int_equal(r->findings.verdict, INSPECT_UNVERIFIED);
    assert_false(r->findings.ready);
    assert_string_equal(inspect_verdict_name(r->findings.verdict), "unverified");
    assert_non_null(strstr(r->findings.verdict_reason, "[hypervisor]"));
    /* the measurement it proposes is of the CPUs and the budget judged */
    assert_non_null(strstr(r->findings.verdict_reason,
                           "measure: jitterlab inspect -a 1 --budget 10s --measure 60s"));
    assert_non_null(strstr(inspect_finding_by_id(&r->findings, "hypervisor")->effect,
                           "jitterlab inspect -a 1 --budget 10s --measure 60s"));
    expect_none(r, "measured-latency"); /* no measurement asked for: no finding, no unknown */
    assert_false(is_unknown(r, "measured-latency"));
    inspected_free(r);
    /* bare metal with nothing critical stays ready */
    r = inspect_fixture("intel-ipc-tuned", NULL, HUGE_BUDGET);
    for (int i = 0; i < r->findings.count; i++)
        assert_false(r->findings.finding[i].unbounded);
    assert_int_equal(r->findings.verdict, INSPECT_READY);
    inspected_free(r);
}

/* A measurement within the budget answers what settings cannot; one above
 * it, or without samples, is critical; misses within it are a warning. */
static void test_measurement_decides_an_unbounded_verdict(void **state)
{
    (void)state;
    struct inspect_measurement m = measured(3 * NS_PER_MS, 0);
    struct inspected *r = inspect_measured("vm-haltpoll", HUGE_BUDGET, &m);
    expect(r, "measured-latency", INSPECT_OK);
    assert_int_equal(r->findings.verdict, INSPECT_READY);
    assert_non_null(strstr(r->findings.verdict_reason, "measured within it"));
    assert_true(r->findings.has_measurement);
    inspected_free(r);

    m = measured(HUGE_BUDGET + 1, 0); /* 1 ns over */
    r = inspect_measured("vm-haltpoll", HUGE_BUDGET, &m);
    expect(r, "measured-latency", INSPECT_CRITICAL);
    assert_int_equal(r->findings.verdict, INSPECT_NOT_READY);
    assert_string_equal(r->findings.finding[0].id, "measured-latency");
    assert_non_null(strstr(r->findings.verdict_reason, "[measured-latency]"));
    assert_string_equal(r->findings.finding[0].cpus, "1");
    inspected_free(r);

    m = measured(HUGE_BUDGET, 7); /* at the budget exactly: within; misses: a warning */
    r = inspect_measured("vm-haltpoll", HUGE_BUDGET, &m);
    expect(r, "measured-latency", INSPECT_WARNING);
    assert_int_equal(r->findings.verdict, INSPECT_READY);
    assert_true(has_evidence(inspect_finding_by_id(&r->findings, "measured-latency"), "measured",
                             "7 missed"));
    inspected_free(r);

    m = measured(0, 0);
    m.samples = 0;
    r = inspect_measured("intel-ipc-tuned", HUGE_BUDGET, &m);
    expect(r, "measured-latency", INSPECT_CRITICAL);
    assert_int_equal(r->findings.verdict, INSPECT_NOT_READY);
    inspected_free(r);

    /* a measurement that failed is unknown and decides nothing */
    m = (struct inspect_measurement){.done = false};
    snprintf(m.why, sizeof m.why, "the run ended (exit status 1) without a result");
    r = inspect_measured("vm-haltpoll", HUGE_BUDGET, &m);
    expect_none(r, "measured-latency");
    assert_true(is_unknown(r, "measured-latency"));
    assert_int_equal(r->findings.verdict, INSPECT_UNVERIFIED);
    inspected_free(r);

    /* a critical setting stays critical whatever was measured */
    m = measured(10 * NS_PER_US, 0);
    r = inspect_measured("vm-haltpoll", 50 * NS_PER_US, &m);
    expect(r, "not-preempt-rt", INSPECT_CRITICAL);
    expect(r, "measured-latency", INSPECT_OK);
    assert_int_equal(r->findings.verdict, INSPECT_NOT_READY);
    inspected_free(r);
}

/* The run a measured finding proposes next measures what inspect measured:
 * the same CPUs, interval and budget (misses are periods of that interval). */
static void test_measured_fix_keeps_the_measured_interval(void **state)
{
    (void)state;
    struct inspect_measurement m = measured(NS_PER_MS, 0);
    m.interval_ns = 250 * NS_PER_US;
    struct inspected *r = inspect_measured("vm-haltpoll", 250 * NS_PER_US, &m);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "measured-latency");
    assert_non_null(f);
    assert_int_equal(f->severity, INSPECT_CRITICAL);
    assert_non_null(strstr(f->fix, "jitterlab run -a 1 -i 250us --budget 250us --explain"));
    inspected_free(r);

    m = measured(10 * NS_PER_US, 0);
    m.interval_ns = 250 * NS_PER_US;
    r = inspect_measured("vm-haltpoll", 250 * NS_PER_US, &m);
    f = inspect_finding_by_id(&r->findings, "measured-latency");
    assert_int_equal(f->severity, INSPECT_OK);
    assert_non_null(strstr(f->fix, "jitterlab run -a 1 -i 250us -D 1h --budget 250us"));
    inspected_free(r);
}

/* The isolation fix proposes nohz_full= only to a kernel built with
 * CONFIG_NO_HZ_FULL (tune's boot proposal does the same). */
static void test_isolation_fix_proposes_nohz_full_only_where_the_kernel_takes_it(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("vm-haltpoll", NULL, 50 * NS_PER_US);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "no-isolation");
    assert_non_null(f);
    assert_non_null(strstr(f->fix, "boot: isolcpus=domain,managed_irq,1 rcu_nocbs=1"));
    assert_null(strstr(f->fix, "nohz_full"));
    inspected_free(r);
    r = inspect_fixture("core2-quad", "1", 50 * NS_PER_US); /* no config.gz: not known */
    f = inspect_finding_by_id(&r->findings, "no-isolation");
    assert_non_null(f);
    assert_non_null(strstr(f->fix, "boot: isolcpus=domain,managed_irq,1 nohz_full=1 rcu_nocbs=1"));
    inspected_free(r);
}

/* PREEMPT_DYNAMIC with nothing saying the mode it runs in: unbounded. */
static void test_undecidable_preemption_model_is_unbounded(void **state)
{
    char *root = *state;
    write_text(root, "/proc/version",
               "Linux version 6.8.0 (b@h) (gcc 13) #1 SMP PREEMPT_DYNAMIC Tue Jan 2 2024\n");
    write_text(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu tsc constant_tsc\n\n");
    write_text(root, "/sys/devices/system/cpu/online", "0-1\n");
    struct sysroot sr;
    sysroot_init(&sr, root);
    struct inspected *r = inspect_tree(&sr, NULL, HUGE_BUDGET);
    assert_string_equal(r->sys.base.preempt_model, "dynamic");
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "not-preempt-rt");
    assert_non_null(f);
    assert_true(f->unbounded);
    assert_int_equal(r->findings.verdict, INSPECT_UNVERIFIED);
    assert_non_null(strstr(r->findings.verdict_reason, "[not-preempt-rt]"));
    inspected_free(r);
}

/* ---- cache allocation (resctrl) ----------------------------------------- */

static void test_cache_rules_on_each_kind_of_machine(void **state)
{
    (void)state;
    struct inspected *r = inspect_fixture("vm-haltpoll", NULL, 50 * NS_PER_US);
    expect(r, "cache-not-partitioned", INSPECT_INFO);
    assert_non_null(strstr(inspect_finding_by_id(&r->findings, "cache-not-partitioned")->effect,
                           "no cache allocation on this machine"));
    assert_true(is_unknown(r, "resctrl-unmounted"));
    assert_true(is_unknown(r, "cache-ways-shared"));
    inspected_free(r);

    r = inspect_fixture("intel-ipc-untuned", NULL, 50 * NS_PER_US);
    expect(r, "cache-not-partitioned", INSPECT_INFO);
    expect(r, "resctrl-unmounted", INSPECT_OK);
    expect(r, "cache-ways-shared", INSPECT_OK);
    const struct inspect_finding *f = inspect_finding_by_id(&r->findings, "cache-not-partitioned");
    assert_string_equal(f->tune_action, "cache-partition");
    assert_true(has_evidence(f, "/sys/fs/resctrl/schemata", "L3:0=fff"));
    inspected_free(r);

    r = inspect_fixture("intel-ipc-tuned", NULL, 50 * NS_PER_US);
    expect(r, "cache-not-partitioned", INSPECT_OK);
    expect(r, "cache-ways-shared", INSPECT_OK);
    expect(r, "resctrl-unmounted", INSPECT_OK);
    inspected_free(r);

    r = inspect_fixture("amd-epyc", NULL, 50 * NS_PER_US);
    expect(r, "resctrl-unmounted", INSPECT_INFO);
    expect(r, "cache-not-partitioned", INSPECT_INFO);
    assert_true(is_unknown(r, "cache-ways-shared"));
    assert_non_null(
        strstr(inspect_finding_by_id(&r->findings, "resctrl-unmounted")->fix, "mount -t resctrl"));
    inspected_free(r);
}

/* A group for the targets whose ways overlap the default group's, or the
 * ways other agents use, is a warning naming what it shares with. */
static void test_cache_ways_shared(void **state)
{
    char *root = *state;
    write_text(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu cat_l3 rdt_a\n\n");
    write_text(root, "/proc/filesystems", "nodev\tresctrl\n");
    write_text(root, "/sys/devices/system/cpu/online", "0-1\n");
    write_text(root, "/sys/fs/resctrl/info/L3/cbm_mask", "ff\n");
    write_text(root, "/sys/fs/resctrl/info/L3/min_cbm_bits", "1\n");
    write_text(root, "/sys/fs/resctrl/info/L3/num_closids", "4\n");
    write_text(root, "/sys/fs/resctrl/info/L3/shareable_bits", "0\n");
    write_text(root, "/sys/fs/resctrl/schemata", "L3:0=3f\n");
    write_text(root, "/sys/fs/resctrl/cpus_list", "0\n");
    write_text(root, "/sys/fs/resctrl/rt/schemata", "L3:0=f0\n");
    write_text(root, "/sys/fs/resctrl/rt/cpus_list", "1\n");
    write_text(root, "/sys/fs/resctrl/rt/mode", "shareable\n");
    struct sysroot sr;
    sysroot_init(&sr, root);
    struct inspected *r = inspect_tree(&sr, "1", 50 * NS_PER_US);
    expect(r, "cache-ways-shared", INSPECT_WARNING);
    assert_non_null(
        strstr(inspect_finding_by_id(&r->findings, "cache-ways-shared")->effect, "(default)"));
    expect(r, "cache-not-partitioned", INSPECT_OK); /* it has a group, if a leaky one */
    inspected_free(r);
    /* no overlap with the default group, but with the ways a GPU may use */
    write_text(root, "/sys/fs/resctrl/schemata", "L3:0=0f\n");
    write_text(root, "/sys/fs/resctrl/info/L3/shareable_bits", "c0\n");
    r = inspect_tree(&sr, "1", 50 * NS_PER_US);
    expect(r, "cache-ways-shared", INSPECT_WARNING);
    assert_non_null(
        strstr(inspect_finding_by_id(&r->findings, "cache-ways-shared")->effect, "shareable_bits"));
    inspected_free(r);
    write_text(root, "/sys/fs/resctrl/info/L3/shareable_bits", "0\n");
    r = inspect_tree(&sr, "1", 50 * NS_PER_US);
    expect(r, "cache-ways-shared", INSPECT_OK);
    inspected_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_table_holds_every_promised_id),
        cmocka_unit_test(test_hypervisor_makes_the_verdict_unverified),
        cmocka_unit_test(test_vm_hypervisor_cites_only_existing_evidence),
        cmocka_unit_test(test_cache_rules_on_each_kind_of_machine),
        cmocka_unit_test_setup_teardown(test_cache_ways_shared, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test(test_measurement_decides_an_unbounded_verdict),
        cmocka_unit_test(test_measured_fix_keeps_the_measured_interval),
        cmocka_unit_test(test_isolation_fix_proposes_nohz_full_only_where_the_kernel_takes_it),
        cmocka_unit_test_setup_teardown(test_undecidable_preemption_model_is_unbounded,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test(test_every_finding_has_evidence_effect_and_fix),
        cmocka_unit_test(test_every_tune_action_a_rule_offers_exists),
        cmocka_unit_test(test_fix_lines_name_the_rules_tune_actions),
        cmocka_unit_test(test_untuned_intel_at_50us_is_not_ready),
        cmocka_unit_test(test_untuned_intel_at_1ms_is_ready_with_warnings),
        cmocka_unit_test(test_irq_finding_names_the_busiest_queue),
        cmocka_unit_test(test_tuned_intel_at_50us_is_ready),
        cmocka_unit_test(test_tuned_intel_at_1us_fails_on_c1e),
        cmocka_unit_test(test_core2_frequency_changes_are_critical_below_the_pll_stall),
        cmocka_unit_test(test_core2_at_200us_frequency_is_a_warning),
        cmocka_unit_test(test_epyc_isolated_smt_pair),
        cmocka_unit_test(test_epyc_single_target_warns_about_its_sibling),
        cmocka_unit_test(test_vm_is_not_ready_for_want_of_preemption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
