/*
 * Unit tests for the readers behind `jitterlab inspect` (src/sys/
 * kernel_cmdline.c, kernel_config.c, cpuidle.c, cpufreq.c, irq.c, tasks.c,
 * kernel_tunables.c, read_notes.c, inspect_system.c): the command line
 * parser, the small text parsers, the recorded fixtures, and the two failure
 * modes -- a tree with nothing in it (every check unknown, nothing crashes)
 * and files holding garbage (an "unreadable" note with the path, no
 * finding) -- in temporary trees each test writes for itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/units.h"
#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"
#include "sys/kernel_cmdline.h"
#include "sys/kernel_config.h"
#include "sys/kernel_tunables.h"
#include "sys/tasks.h"
#include "test_fixture.h"
#include "test_tree.h"

/* ---- temporary trees ---------------------------------------------------- */

static bool has_note(const struct inspect_system *s, const char *path)
{
    for (int i = 0; i < s->notes.count; i++)
        if (strcmp(s->notes.note[i].path, path) == 0)
            return true;
    return false;
}

static bool is_unknown(const struct inspect_findings *f, const char *id)
{
    for (int i = 0; i < f->nunknown; i++)
        if (strcmp(f->unknown[i].id, id) == 0)
            return true;
    return false;
}

/* ---- the command line ------------------------------------------------- */

static void test_cmdline_parses_the_isolation_parameters(void **state)
{
    (void)state;
    struct kernel_cmdline *k = malloc(sizeof *k);
    assert_non_null(k);
    kernel_cmdline_parse("BOOT_IMAGE=/vmlinuz ro isolcpus=nohz,managed_irq,2-3,5 "
                         "nohz_full=2-3,5 rcu_nocbs irqaffinity=0-1 idle=poll "
                         "intel_idle.max_cstate=0 processor.max_cstate=1 clocksource=tsc "
                         "tsc=reliable tsc=nowatchdog nosoftlockup nmi_watchdog=0 skew_tick=1 "
                         "mitigations=off preempt=full nosmt -- isolcpus=9 nohz_full=9",
                         k);
    assert_true(k->isolcpus.present);
    assert_true(k->isolcpus.valid);
    assert_string_equal(k->isolcpus.text, "2-3,5");
    assert_int_equal(k->isolcpus.cpus.count, 3);
    assert_true(k->isolcpus_nohz);
    assert_true(k->isolcpus_managed_irq);
    assert_false(k->isolcpus_domain);                /* flags given: no implicit domain */
    assert_string_equal(k->nohz_full.text, "2-3,5"); /* the init part after -- is not ours */
    assert_true(k->rcu_nocbs.present);
    assert_true(k->rcu_nocbs.all); /* bare rcu_nocbs: every CPU */
    assert_int_equal(k->irqaffinity.cpus.count, 2);
    assert_string_equal(k->idle, "poll");
    assert_int_equal(k->intel_idle_max_cstate, 0);
    assert_int_equal(k->processor_max_cstate, 1);
    assert_string_equal(k->clocksource, "tsc");
    assert_string_equal(k->tsc, "reliable,nowatchdog");
    assert_true(k->nosoftlockup);
    assert_string_equal(k->nmi_watchdog, "0");
    assert_int_equal(k->skew_tick, 1);
    assert_string_equal(k->mitigations, "off");
    assert_string_equal(k->preempt, "full");
    assert_true(k->nosmt);
    free(k);
}

static void test_cmdline_defaults_and_oddities(void **state)
{
    (void)state;
    struct kernel_cmdline *k = malloc(sizeof *k);
    assert_non_null(k);
    kernel_cmdline_parse("isolcpus=3 nohz_full=0-7:2/4 intel-idle.max_cstate=2 "
                         "quoted=\"a b\" rcu_nocbs=all",
                         k);
    assert_true(k->isolcpus_domain); /* the kernel's default flag */
    assert_int_equal(k->isolcpus.cpus.cpu[0], 3);
    assert_true(k->nohz_full.present);
    assert_false(k->nohz_full.valid); /* group syntax kept as text, not guessed */
    assert_string_equal(k->nohz_full.text, "0-7:2/4");
    assert_int_equal(k->intel_idle_max_cstate, 2); /* - and _ alike in names */
    assert_true(k->rcu_nocbs.all);

    kernel_cmdline_parse(NULL, k);
    assert_false(k->isolcpus.present);
    assert_int_equal(k->skew_tick, -1);
    assert_int_equal(k->processor_max_cstate, -1);
    kernel_cmdline_parse("", k);
    assert_false(k->nohz_full.present);
    free(k);
}

/* ---- small parsers ----------------------------------------------------- */

static void test_kernel_config_lines(void **state)
{
    (void)state;
    struct kernel_config c = {.hz = VALUE_UNKNOWN};
    kernel_config_line(&c, "CONFIG_PREEMPT_BUILD=y\n");
    kernel_config_line(&c, "CONFIG_PREEMPT_VOLUNTARY=y\n");
    kernel_config_line(&c, "# CONFIG_PREEMPT is not set\n");
    kernel_config_line(&c, "CONFIG_PREEMPT_DYNAMIC=y\n");
    kernel_config_line(&c, "CONFIG_HZ=1000\n");
    kernel_config_line(&c, "CONFIG_NO_HZ_FULL=y\n");
    assert_string_equal(c.preempt, "voluntary");
    assert_true(c.preempt_dynamic);
    assert_int_equal(c.hz, 1000);
    assert_true(c.no_hz_full);
    kernel_config_line(&c, "CONFIG_PREEMPT_RT=y\n");
    kernel_config_line(&c, "CONFIG_PREEMPT=y\n"); /* RT stays */
    assert_string_equal(c.preempt, "rt");
}

/* HZ is 100..1000 on real kernels: a value that is not a whole number, or
 * one no kernel could have, stays unknown instead of becoming LONG_MAX. */
static void test_kernel_config_refuses_a_garbled_hz(void **state)
{
    (void)state;
    static const char *const bad[] = {"CONFIG_HZ=99999999999999999999\n", "CONFIG_HZ=1000x\n",
                                      "CONFIG_HZ=0\n", "CONFIG_HZ=-250\n", "CONFIG_HZ=2000000\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct kernel_config c = {.hz = VALUE_UNKNOWN};
        kernel_config_line(&c, bad[i]);
        if (c.hz != VALUE_UNKNOWN)
            fail_msg("%s gave hz %lld", bad[i], (long long)c.hz);
    }
    struct kernel_config c = {.hz = VALUE_UNKNOWN};
    kernel_config_line(&c, "CONFIG_HZ=250");
    assert_int_equal(c.hz, 250);
}

static void test_stat_line_with_blanks_and_parens_in_comm(void **state)
{
    (void)state;
    char line[512];
    /* field 39 = processor 3, 40 = rt_priority 80, 41 = policy 1 (FIFO) */
    snprintf(line, sizeof line,
             "901 (my (odd) thr) R 1 900 900 0 -1 2129984 0 0 0 0 0 0 0 0 -81 0 2 0 100 0 0 "
             "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 3 80 1 0 0 0\n");
    struct task_info t;
    memset(&t, 0, sizeof t);
    assert_int_equal(task_parse_stat(line, &t), 0);
    assert_string_equal(t.comm, "my (odd) thr");
    assert_int_equal(t.tid, 901);
    assert_int_equal(t.state, 'R');
    assert_true(t.kernel_thread); /* 2129984 = 0x208040 has PF_KTHREAD */
    assert_int_equal(t.processor, 3);
    assert_int_equal(t.rt_priority, 80);
    assert_int_equal(t.policy, 1);
    assert_int_equal(task_parse_stat("garbage", &t), -1);
    assert_int_equal(task_parse_stat("12 (x)", &t), -1);
}

static void test_status_allowed_list_only_at_a_line_start(void **state)
{
    (void)state;
    char status[] = "Name:\tCpus_allowed_list:\t3\nUmask:\t0022\nCpus_allowed:\t3\n"
                    "Cpus_allowed_list:\t0-1\nMems_allowed_list:\t0\n";
    assert_string_equal(task_status_allowed_list(status), "0-1");
    char none[] = "Name:\tx Cpus_allowed_list: 2\nState:\tS (sleeping)\n";
    assert_null(task_status_allowed_list(none));
    char first[] = "Cpus_allowed_list:\t5";
    assert_string_equal(task_status_allowed_list(first), "5");
}

static void test_sysfs_selected_word(void **state)
{
    (void)state;
    char w[16];
    assert_int_equal(sysfs_selected_word("always [madvise] never", w, sizeof w), 0);
    assert_string_equal(w, "madvise");
    assert_int_equal(sysfs_selected_word("always madvise never", w, sizeof w), -1);
    assert_int_equal(sysfs_selected_word("[]", w, sizeof w), -1);
}

/* ---- recorded machines ------------------------------------------------- */

static void test_reads_intel_fixture_idle_states_and_cpufreq(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "intel-ipc-untuned");
    struct inspect_system *s = malloc(sizeof *s);
    assert_non_null(s);
    assert_int_equal(inspect_system_read(&sr, NULL, s), 0);
    assert_string_equal(s->cpuidle.driver, "intel_idle");
    assert_string_equal(s->cpuidle.governor, "menu");
    assert_int_equal(s->cpuidle.ncpu, 4); /* every online CPU */
    const struct cpuidle_cpu *c3 = cpuidle_find_cpu(&s->cpuidle, 3);
    assert_non_null(c3);
    assert_int_equal(c3->nstates, 6);
    assert_string_equal(c3->state[5].name, "C10");
    assert_string_equal(c3->state[5].desc, "MWAIT 0x60");
    assert_int_equal(c3->state[5].latency_us, 660);
    assert_int_equal(c3->state[5].residency_us, 1980);
    assert_int_equal(c3->state[5].disable, 0);
    assert_int_equal(c3->state[5].below, 0);
    assert_int_equal(c3->resume_latency_us, 0);
    assert_int_equal(s->cpufreq.npolicy, 4);
    const struct cpufreq_policy_info *p = cpufreq_policy_of(&s->cpufreq, 2);
    assert_non_null(p);
    assert_int_equal(p->id, 2);
    assert_string_equal(p->driver, "intel_pstate");
    assert_string_equal(p->governor, "powersave");
    assert_string_equal(p->epp, "balance_performance");
    assert_int_equal(p->base_khz, 1500000);
    assert_int_equal(s->cpufreq.intel_no_turbo, 0);
    assert_string_equal(s->cpufreq.intel_pstate_status, "active");
    assert_int_equal(s->tunables.sched_rt_runtime_us, 950000);
    assert_string_equal(s->tunables.thp_enabled, "always");
    assert_int_equal(s->tunables.swap_total_kb, 999420);
    assert_string_equal(s->topology.smt_control, "notsupported");
    inspect_system_free(s);
    free(s);
}

static void test_reads_vm_fixture_irqs_and_threads(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "vm-haltpoll");
    struct inspect_system *s = malloc(sizeof *s);
    assert_non_null(s);
    assert_int_equal(inspect_system_read(&sr, NULL, s), 0);
    assert_int_equal(s->targets.count, 1);
    assert_int_equal(s->irqs.ntarget, 1);
    int found = 0;
    for (int i = 0; i < s->irqs.nirq; i++) {
        const struct irq_line *irq = &s->irqs.irq[i];
        if (strcmp(irq->id, "36") == 0) {
            found++;
            assert_true(irq->numeric);
            assert_string_equal(irq->effective_affinity_list, "1");
            assert_true(irq->affine_to_target);
            assert_non_null(strstr(irq->desc, "virtio1-req.0"));
            assert_true(irq_count(&s->irqs, i, 0) > 0);
        }
        if (strcmp(irq->id, "ERR") == 0) {
            found++;
            assert_false(irq->numeric);
            assert_int_equal(irq_count(&s->irqs, i, 0), IRQ_COUNT_UNKNOWN); /* one column */
        }
    }
    assert_int_equal(found, 2);
    assert_true(s->tasks.scanned >= 5);
    bool per_cpu_kthread = false;
    for (int i = 0; i < s->tasks.nkept; i++)
        if (strcmp(s->tasks.task[i].comm, "ksoftirqd/1") == 0)
            per_cpu_kthread = s->tasks.task[i].kernel_thread && s->tasks.task[i].per_cpu;
    assert_true(per_cpu_kthread);
    inspect_system_free(s);
    free(s);
}

/* ---- missing and garbage ----------------------------------------------- */

static void test_empty_tree_gives_unknowns_not_a_crash(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    struct inspect_system *s = malloc(sizeof *s);
    struct inspect_findings *f = malloc(sizeof *f);
    assert_non_null(s);
    assert_non_null(f);
    assert_int_equal(inspect_system_read(&sr, NULL, s), 0);
    assert_int_equal(s->targets.count, 1); /* nothing online known: CPU 0 */
    inspect_rules_run(s, 50 * NS_PER_US, f);
    static const char *const unknown_ids[] = {
        "cstate-exit-latency", "pm-qos-unset",        "rt-throttling",     "timer-migration",
        "thp-enabled",         "swap-in-use",         "nmi-watchdog",      "irq-on-rt-cpu",
        "threads-on-rt-cpu",   "clocksource-not-tsc", "tsc-not-invariant", "smt-sibling-shared"};
    for (size_t i = 0; i < sizeof unknown_ids / sizeof unknown_ids[0]; i++) {
        if (!is_unknown(f, unknown_ids[i]))
            fail_msg("%s not unknown", unknown_ids[i]);
        assert_null(inspect_finding_by_id(f, unknown_ids[i]));
    }
    assert_int_equal(s->notes.count, 0); /* missing is not garbage */
    assert_false(f->ready);              /* no preempt model known: none assumed */
    inspect_system_free(s);
    free(s);
    free(f);
}

static void test_garbage_files_are_noted_and_give_no_finding(void **state)
{
    const char *root = *state;
    write_text(root, "/sys/devices/system/cpu/online", "0-1\n");
    write_text(root, "/proc/sys/kernel/sched_rt_runtime_us", "lots\n");
    write_text(root, "/proc/sys/kernel/timer_migration", "1 2 3\n");
    write_text(root, "/proc/sys/kernel/nmi_watchdog", "\n");
    write_text(root, "/sys/kernel/mm/transparent_hugepage/enabled", "sometimes\n");
    write_text(root, "/proc/meminfo", "MemTotal: 1 kB\n");
    write_text(root, "/dev/cpu_dma_latency", "zz\n");
    write_text(root, "/proc/config.gz", "not gzip at all\n");
    write_text(root, "/sys/devices/system/cpu/cpuidle/current_driver", "intel_idle\n");
    write_text(root, "/sys/devices/system/cpu/cpu1/cpuidle/state0/name", "C6\n");
    write_text(root, "/sys/devices/system/cpu/cpu1/cpuidle/state0/latency", "fast\n");
    write_text(root, "/sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1-x\n");
    write_text(root, "/proc/interrupts", "no header here\n 1: 2 3\n");
    write_text(root, "/proc/7/task/7/stat", "not a stat line\n");
    write_text(root, "/proc/7/task/7/status", "Name:\tx\n");

    struct sysroot sr;
    sysroot_init(&sr, root);
    struct inspect_system *s = malloc(sizeof *s);
    struct inspect_findings *f = malloc(sizeof *f);
    assert_non_null(s);
    assert_non_null(f);
    assert_int_equal(inspect_system_read(&sr, NULL, s), 0);
    static const char *const noted[] = {
        "/proc/sys/kernel/sched_rt_runtime_us",
        "/proc/sys/kernel/timer_migration",
        "/proc/sys/kernel/nmi_watchdog",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/proc/meminfo",
        "/dev/cpu_dma_latency",
        "/proc/config.gz",
        "/sys/devices/system/cpu/cpu1/cpuidle/state0/latency",
        "/sys/devices/system/cpu/cpu1/topology/thread_siblings_list",
        "/proc/interrupts",
        "/proc/7/task/7/stat"};
    for (size_t i = 0; i < sizeof noted / sizeof noted[0]; i++)
        if (!has_note(s, noted[i]))
            fail_msg("no unreadable note for %s", noted[i]);
    for (int i = 0; i < s->notes.count; i++)
        if (strcmp(s->notes.note[i].path, "/proc/sys/kernel/sched_rt_runtime_us") == 0)
            assert_string_equal(s->notes.note[i].reason, "not a number: 'lots'");
    assert_false(s->config.present);

    inspect_rules_run(s, 50 * NS_PER_US, f);
    static const char *const no_finding[] = {"rt-throttling", "timer-migration",   "nmi-watchdog",
                                             "thp-enabled",   "swap-in-use",       "pm-qos-unset",
                                             "irq-on-rt-cpu", "smt-sibling-shared"};
    for (size_t i = 0; i < sizeof no_finding / sizeof no_finding[0]; i++)
        if (inspect_finding_by_id(f, no_finding[i]))
            fail_msg("garbage gave a finding %s", no_finding[i]);
    /* a state whose latency is garbage is never counted as too slow */
    const struct inspect_finding *c = inspect_finding_by_id(f, "cstate-exit-latency");
    assert_true(c == NULL || c->severity != INSPECT_CRITICAL);
    inspect_system_free(s);
    free(s);
    free(f);
}

static void test_resume_latency_na_holds_every_state_off(void **state)
{
    const char *root = *state;
    write_text(root, "/sys/devices/system/cpu/online", "0-1\n");
    write_text(root, "/sys/devices/system/cpu/cpuidle/current_driver", "intel_idle\n");
    write_text(root, "/sys/devices/system/cpu/cpu1/cpuidle/state0/name", "POLL\n");
    write_text(root, "/sys/devices/system/cpu/cpu1/cpuidle/state0/latency", "0\n");
    write_text(root, "/sys/devices/system/cpu/cpu1/cpuidle/state1/name", "C6\n");
    write_text(root, "/sys/devices/system/cpu/cpu1/cpuidle/state1/latency", "133\n");
    write_text(root, "/sys/devices/system/cpu/cpu1/cpuidle/state1/disable", "0\n");
    write_text(root, "/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us", "n/a\n");
    struct sysroot sr;
    sysroot_init(&sr, root);
    struct inspect_system *s = malloc(sizeof *s);
    struct inspect_findings *f = malloc(sizeof *f);
    assert_non_null(s);
    assert_non_null(f);
    assert_int_equal(inspect_system_read(&sr, NULL, s), 0);
    assert_int_equal(cpuidle_find_cpu(&s->cpuidle, 1)->resume_latency_us,
                     RESUME_LATENCY_NONE_ALLOWED);
    inspect_rules_run(s, 50 * NS_PER_US, f);
    assert_int_equal(inspect_finding_by_id(f, "cstate-exit-latency")->severity, INSPECT_OK);

    /* the same state with no limit is critical */
    write_text(root, "/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us", "0\n");
    inspect_system_free(s);
    assert_int_equal(inspect_system_read(&sr, NULL, s), 0);
    inspect_rules_run(s, 50 * NS_PER_US, f);
    assert_int_equal(inspect_finding_by_id(f, "cstate-exit-latency")->severity, INSPECT_CRITICAL);
    inspect_system_free(s);
    free(s);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cmdline_parses_the_isolation_parameters),
        cmocka_unit_test(test_cmdline_defaults_and_oddities),
        cmocka_unit_test(test_kernel_config_lines),
        cmocka_unit_test(test_kernel_config_refuses_a_garbled_hz),
        cmocka_unit_test(test_stat_line_with_blanks_and_parens_in_comm),
        cmocka_unit_test(test_status_allowed_list_only_at_a_line_start),
        cmocka_unit_test(test_sysfs_selected_word),
        cmocka_unit_test(test_reads_intel_fixture_idle_states_and_cpufreq),
        cmocka_unit_test(test_reads_vm_fixture_irqs_and_threads),
        cmocka_unit_test_setup_teardown(test_empty_tree_gives_unknowns_not_a_crash, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_garbage_files_are_noted_and_give_no_finding,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_resume_latency_na_holds_every_state_off,
                                        temp_tree_setup, temp_tree_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
