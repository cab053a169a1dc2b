/*
 * Tuning plans against fixture trees (what each action would change for a
 * budget), the profile and action tables, value comparison after a write,
 * the journal written and read back, and the safety of apply and restore on
 * temporary trees: the allow-list, symlinks, journal ownership, the lock,
 * values of any length, and the EPP/governor order of intel_pstate.
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
#include <sys/stat.h>
#include <unistd.h>

#include "tune/session.h"
#include "tune/tune.h"
#include "tune/tune_boot.h"
#include "sys/kernel_config.h"
#include "sys/read_notes.h"
#include "sys/system_info.h"
#include "test_fixture.h"
#include "test_tree.h"

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

/* The proposal for a fixture machine's CPUs (static: large). */
static struct tune_boot_proposal *propose(const char *fixture, const char *cpus)
{
    static struct tune_boot_proposal b;
    static struct system_info si;
    static struct read_notes notes;
    struct sysroot sr;
    struct kernel_config cfg;
    struct cpulist targets;
    const char *why;
    fixture_sysroot(&sr, fixture);
    system_info_read(&sr, &si);
    memset(&notes, 0, sizeof notes);
    kernel_config_read(&sr, &cfg, &notes);
    assert_int_equal(cpulist_parse(cpus, &targets, &why), 0);
    tune_boot_propose(&si, &cfg, &targets, &b);
    return &b;
}

/* Only what this kernel was built to take goes on the proposed command
 * line; the rest is named with the option the kernel lacks. On a VM the
 * firmware is the host's. */
static void test_tune_boot_proposal_fits_the_kernel_and_the_machine(void **state)
{
    (void)state;
    /* the development VM: no CONFIG_NO_HZ_FULL, a hypervisor */
    struct tune_boot_proposal *b = propose("vm-haltpoll", "1");
    assert_null(strstr(b->cmdline, "nohz_full"));
    assert_non_null(strstr(b->cmdline, "isolcpus=managed_irq,domain,1 rcu_nocbs=1 irqaffinity=0"));
    assert_non_null(strstr(b->left_out, "nohz_full=1 (this kernel lacks CONFIG_NO_HZ_FULL"));
    assert_string_equal(b->unchecked, "");
    assert_true(b->rt_kernel);
    assert_non_null(strstr(b->firmware, "virtual machine"));
    assert_non_null(strstr(b->firmware, "host's firmware"));
    assert_null(strstr(b->firmware, "disable SMT on the real-time cores"));

    /* bare metal, PREEMPT_RT, NO_HZ_FULL and RCU_NOCB_CPU built in */
    b = propose("intel-ipc-tuned", "3");
    assert_non_null(strstr(b->cmdline, "nohz_full=3 rcu_nocbs=3 irqaffinity=0-2 rcu_nocb_poll"));
    assert_string_equal(b->left_out, "");
    assert_false(b->rt_kernel);
    assert_null(strstr(b->firmware, "virtual machine"));
    assert_non_null(strstr(b->firmware, "disable package C-states and C1E"));

    /* no /proc/config.gz: everything proposed, and said to be unchecked */
    b = propose("core2-quad", "1-3");
    assert_non_null(strstr(b->cmdline, "nohz_full=1-3"));
    assert_non_null(strstr(b->unchecked, "CONFIG_NO_HZ_FULL"));
}

static void test_tune_cache_partition_on_the_fixtures(void **state)
{
    (void)state;
    /* untuned Intel: 12 ways, a quarter for CPU 3 */
    build("intel-ipc-untuned", "3", 50000, only("cache-partition"));
    /* default schemata, mkdir, cpus_list, group schemata; no mode: with L2
     * allocation (info/L2) the kernel would refuse exclusive */
    assert_int_equal(plan.n, 4);
    assert_null(find_change("/sys/fs/resctrl/jitterlab-rt/mode"));
    assert_string_equal(find_change("/sys/fs/resctrl/schemata")->new_value, "L3:0=1ff");
    assert_string_equal(find_change("/sys/fs/resctrl/jitterlab-rt/schemata")->new_value,
                        "L3:0=e00");
    /* tuned: the group is there with CPU 3 and e00 */
    build("intel-ipc-tuned", "3", 50000, only("cache-partition"));
    assert_int_equal(plan.n, 0);
    assert_non_null(strstr(plan.note[0], "already holds CPUs 3 with L3 ways e00"));
    /* supported, not mounted: the mount first */
    build("amd-epyc", "3", 50000, only("cache-partition"));
    assert_int_equal(plan.n, 1);
    assert_int_equal(plan.change[0].op, TUNE_OP_MOUNT);
    assert_string_equal(plan.change[0].path, "/sys/fs/resctrl");
    /* a VM without it: a note, nothing planned */
    build("vm-haltpoll", "1", 50000, only("cache-partition"));
    assert_int_equal(plan.n, 0);
    assert_non_null(strstr(plan.note[0], "cache-partition: not supported here"));
    /* in no profile */
    assert_int_equal(tune_profile_actions("realtime") & only("cache-partition"), 0);
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

/* A fresh file name for a journal (path: a mkstemp template) and an empty j. */
static void new_journal(char *path, struct tune_journal *j)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    memset(j, 0, sizeof(*j));
}

static void test_tune_journal_round_trip(void **state)
{
    (void)state;
    char path[] = "/tmp/jl-tune-XXXXXX";
    static struct tune_journal j, back;
    new_journal(path, &j);
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

/* A value that is not UTF-8 (any bytes a file held) comes back byte for
 * byte: the journal stores its text form and decodes it. */
static void test_tune_journal_round_trips_bytes_that_are_not_utf8(void **state)
{
    (void)state;
    char path[] = "/tmp/jl-tune-XXXXXX";
    static struct tune_journal j, back;
    new_journal(path, &j);
    snprintf(j.sysroot, sizeof(j.sysroot), "/tree\\x41\xff");
    tune_plan_add(&j.changes, "thp", "/sys/kernel/mm/transparent_hugepage/enabled",
                  "always \x5b\xc3(madvise)\x1b[0m", "never", "what\xfe");
    char err[256];
    assert_int_equal(tune_journal_save(path, &j, err, sizeof(err)), 0);
    assert_int_equal(tune_journal_load(path, &back, err, sizeof(err)), 0);
    assert_string_equal(back.sysroot, "/tree\\x41\xff");
    assert_int_equal(back.changes.n, 1);
    assert_string_equal(back.changes.change[0].old_value, "always \x5b\xc3(madvise)\x1b[0m");
    assert_string_equal(back.changes.change[0].what, "what\xfe");
    tune_plan_free(&j.changes);
    tune_plan_free(&back.changes);
    unlink(path);
}

static const char *const rl_path = "/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us";

/* Plans resume-latency for CPU 1 of the tree at root, now holding value. */
static void build_resume_latency(const char *root, const char *value, int64_t budget_ns)
{
    static struct sysroot sr;
    write_text(root, rl_path, value);
    sysroot_init(&sr, root);
    struct tune_request rq = {
        .sr = &sr, .budget_ns = budget_ns, .boost = -1, .actions = only("resume-latency")};
    const char *why;
    assert_int_equal(cpulist_parse("1", &rq.targets, &why), 0);
    tune_plan_free(&plan);
    assert_int_equal(tune_plan_build(&rq, &plan), 0);
}

static void test_tune_resume_latency_never_loosens_a_stricter_limit(void **state)
{
    const char *root = *state;
    build_resume_latency(root, "n/a\n", 50000); /* none allowed: stricter than 25 us */
    assert_int_equal(plan.n, 0);
    build_resume_latency(root, "10\n", 50000);
    assert_int_equal(plan.n, 0);
    build_resume_latency(root, "0\n", 50000); /* 0 = no limit */
    assert_int_equal(plan.n, 1);
    assert_string_equal(plan.change[0].new_value, "25");
    build_resume_latency(root, "100\n", 50000);
    assert_int_equal(plan.n, 1);
    build_resume_latency(root, "1\n", 500); /* below 1 us: n/a, stricter than 1 */
    assert_int_equal(plan.n, 1);
    assert_string_equal(plan.change[0].new_value, "n/a");
    build_resume_latency(root, "n/a\n", 500);
    assert_int_equal(plan.n, 0);
}

static char *read_all(const char *root, const char *rel)
{
    static struct sysroot sr;
    sysroot_init(&sr, root);
    char *v = NULL;
    assert_true(sysroot_read_value(&sr, rel, &v) >= 0);
    return v;
}

static void assert_file(const char *root, const char *rel, const char *want)
{
    char *v = read_all(root, rel);
    assert_string_equal(v, want);
    free(v);
}

static void journal_path(const char *root, char *buf, size_t len)
{
    snprintf(buf, len, "%s/state/tune-state.json", root);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/state", root);
    mkdir(dir, 0700);
}

/* Writes a journal by hand, as an attacker could: one change. */
static void craft_journal(const char *root, const char *state, const char *action, const char *path,
                          const char *old_value)
{
    char doc[4096];
    snprintf(doc, sizeof doc,
             "{\"tool\": \"jitterlab\", \"schema\": 1, \"kind\": \"tune-state\", \"mode\": "
             "\"apply\", \"pid\": 1, \"complete\": true, \"sysroot\": \"%s/tree\", "
             "\"changes\": [{\"action\": \"%s\", \"path\": \"%s\", \"old\": \"%s\", \"new\": "
             "\"0\"}]}\n",
             root, action, path, old_value);
    FILE *f = fopen(state, "w");
    assert_non_null(f);
    fputs(doc, f);
    fclose(f);
    chmod(state, 0600);
}

static void test_tune_restore_writes_only_allowed_paths_beneath_the_tree(void **state)
{
    const char *root = *state;
    char st[PATH_MAX], failed[2048], err[512], outside[PATH_MAX], link[PATH_MAX];
    int restored;
    journal_path(root, st, sizeof st);
    write_text(root, "/outside", "precious\n");
    write_text(root, "/tree/proc/sys/kernel/timer_migration", "0\n");
    snprintf(outside, sizeof outside, "%s/outside", root);

    /* ".." out of the tree */
    craft_journal(root, st, "timer-migration", "/proc/sys/kernel/../../../outside", "evil");
    assert_int_equal(tune_restore(st, NULL, failed, sizeof failed, &restored, err, sizeof err), -1);
    assert_non_null(strstr(err, "'..'"));
    assert_file(root, "/outside", "precious");

    /* a path no action writes */
    craft_journal(root, st, "timer-migration", "/outside", "evil");
    assert_int_equal(tune_restore(st, NULL, failed, sizeof failed, &restored, err, sizeof err), -1);
    assert_non_null(strstr(err, "outside what this action writes"));
    craft_journal(root, st, "thp", "/proc/sys/kernel/timer_migration", "evil");
    assert_int_equal(tune_restore(st, NULL, failed, sizeof failed, &restored, err, sizeof err), -1);
    assert_file(root, "/outside", "precious");

    /* an allowed path that is a symlink in the tree, pointing outside */
    snprintf(link, sizeof link, "%s/tree/proc/sys/kernel/nmi_watchdog", root);
    assert_int_equal(symlink(outside, link), 0);
    craft_journal(root, st, "nmi-watchdog", "/proc/sys/kernel/nmi_watchdog", "evil");
    assert_int_equal(tune_restore(st, NULL, failed, sizeof failed, &restored, err, sizeof err), -1);
    assert_non_null(strstr(failed, "/proc/sys/kernel/nmi_watchdog"));
    assert_file(root, "/outside", "precious");
    /* ... and a symlinked directory on the way */
    char dir_link[PATH_MAX];
    write_text(root, "/elsewhere/enabled", "always [madvise] never\n");
    snprintf(dir_link, sizeof dir_link, "%s/tree/sys/kernel/mm/transparent_hugepage", root);
    write_text(root, "/tree/sys/kernel/mm/.keep", "");
    snprintf(link, sizeof link, "%s/elsewhere", root);
    assert_int_equal(symlink(link, dir_link), 0);
    craft_journal(root, st, "thp", "/sys/kernel/mm/transparent_hugepage/enabled", "never");
    assert_int_equal(tune_restore(st, NULL, failed, sizeof failed, &restored, err, sizeof err), -1);
    assert_file(root, "/elsewhere/enabled", "always [madvise] never");
    /* the fallback walk refuses the same */
    struct sysroot sr;
    char tree[PATH_MAX];
    snprintf(tree, sizeof tree, "%s/tree", root);
    sysroot_init(&sr, tree);
    assert_int_equal(sysroot_open_walk(&sr, "/sys/kernel/mm/transparent_hugepage/enabled", 1),
                     -ELOOP);
    assert_int_equal(sysroot_open_walk(&sr, "/proc/sys/kernel/nmi_watchdog", 1), -ELOOP);
    assert_int_equal(sysroot_open_walk(&sr, "/proc/../../outside", 1), -EXDEV);
    int fd = sysroot_open_walk(&sr, "/proc/sys/kernel/timer_migration", 0);
    assert_true(fd >= 0);
    close(fd);
    unlink(st);
}

static void test_tune_journal_of_others_is_refused(void **state)
{
    const char *root = *state;
    char st[PATH_MAX], err[512], dir[PATH_MAX];
    static struct tune_journal j;
    journal_path(root, st, sizeof st);
    write_text(root, "/tree/proc/sys/kernel/timer_migration", "0\n");
    craft_journal(root, st, "timer-migration", "/proc/sys/kernel/timer_migration", "1");
    assert_int_equal(tune_journal_load(st, &j, err, sizeof err), 0);
    tune_plan_free(&j.changes);
    chmod(st, 0620); /* group-writable alone is enough to refuse */
    assert_int_equal(tune_journal_load(st, &j, err, sizeof err), -1);
    assert_non_null(strstr(err, "writable by group or others"));
    chmod(st, 0602);
    assert_int_equal(tune_journal_load(st, &j, err, sizeof err), -1);
    assert_non_null(strstr(err, "writable by group or others"));
    chmod(st, 0600);
    snprintf(dir, sizeof dir, "%s/state", root);
    chmod(dir, 0777);
    assert_int_equal(tune_journal_load(st, &j, err, sizeof err), -1);
    assert_non_null(strstr(err, "writable by others"));
    chmod(dir, 01777); /* sticky, like /tmp: fine */
    assert_int_equal(tune_journal_load(st, &j, err, sizeof err), 0);
    tune_plan_free(&j.changes);
    chmod(dir, 0700);
    char link[PATH_MAX];
    snprintf(link, sizeof link, "%s/state/link.json", root);
    assert_int_equal(symlink(st, link), 0);
    assert_int_equal(tune_journal_load(link, &j, err, sizeof err), -1);
    assert_non_null(strstr(err, "symbolic link"));
    unlink(link);
    unlink(st);
}

static void test_tune_lock_refuses_a_second_session(void **state)
{
    const char *root = *state;
    char st[PATH_MAX], err[512];
    int first, second;
    journal_path(root, st, sizeof st);
    assert_int_equal(tune_lock(st, TUNE_MODE_HOLD, &first, err, sizeof err), 0);
    assert_int_equal(tune_lock(st, TUNE_MODE_RUN, &second, err, sizeof err), 1);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld (hold)", (long)getpid());
    assert_non_null(strstr(err, pid));
    tune_unlock(first);
    assert_int_equal(tune_lock(st, TUNE_MODE_RUN, &second, err, sizeof err), 0);
    tune_unlock(second);
}

static void test_tune_session_refuses_a_journal_of_an_apply(void **state)
{
    const char *root = *state;
    char st[PATH_MAX], err[512], tree[PATH_MAX];
    journal_path(root, st, sizeof st);
    write_text(root, "/tree/proc/sys/kernel/timer_migration", "1\n");
    snprintf(tree, sizeof tree, "%s/tree", root);
    struct sysroot sr;
    sysroot_init(&sr, tree);
    struct tune_result res;
    tune_plan_free(&plan);
    tune_plan_add(&plan, "timer-migration", "/proc/sys/kernel/timer_migration", "1", "0", NULL);
    assert_int_equal(tune_apply(&sr, &plan, st, TUNE_MODE_APPLY, NULL, &res, err, sizeof err), 0);
    assert_int_equal(tune_apply(&sr, &plan, st, TUNE_MODE_RUN, NULL, &res, err, sizeof err), -1);
    assert_non_null(strstr(err, "tune restore"));
    unlink(st);
}

static void test_tune_long_values_are_restored_in_full(void **state)
{
    const char *root = *state;
    char st[PATH_MAX], failed[2048], err[512], tree[PATH_MAX], list[2048] = "";
    int restored;
    /* every odd CPU of a 256-CPU machine: 456 characters */
    for (int cpu = 1; cpu < 256; cpu += 2) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%d", used ? "," : "", cpu);
    }
    assert_int_equal(strlen(list), 456);
    char line[2100];
    snprintf(line, sizeof line, "%s\n", list);
    write_text(root, "/tree/proc/irq/30/smp_affinity_list", line);
    journal_path(root, st, sizeof st);
    snprintf(tree, sizeof tree, "%s/tree", root);
    struct sysroot sr;
    sysroot_init(&sr, tree);
    struct tune_result res;
    tune_plan_free(&plan);
    tune_plan_add(&plan, "irq-affinity", "/proc/irq/30/smp_affinity_list", list, "0", NULL);
    assert_int_equal(tune_apply(&sr, &plan, st, TUNE_MODE_APPLY, NULL, &res, err, sizeof err), 0);
    assert_int_equal(res.applied, 1);
    assert_file(tree, "/proc/irq/30/smp_affinity_list", "0");
    assert_int_equal(tune_restore(st, NULL, failed, sizeof failed, &restored, err, sizeof err), 0);
    assert_file(tree, "/proc/irq/30/smp_affinity_list", list);
    /* "verified" means the whole value: a cut one does not match */
    char cut[300];
    snprintf(cut, sizeof cut, "%.255s", list);
    assert_false(tune_value_matches(list, cut));
}

/* intel_pstate's rule: EPP cannot be written while the governor is
 * performance (EBUSY). */
static int pstate_write(const struct tune_io *io, const struct sysroot *sr, const char *path,
                        const char *value)
{
    (void)io;
    const char *epp = strstr(path, "energy_performance_preference");
    if (epp) {
        char gov[256];
        snprintf(gov, sizeof gov, "%.*sscaling_governor", (int)(epp - path), path);
        char *g = NULL;
        bool busy = sysroot_read_value(sr, gov, &g) >= 0 && strcmp(g, "performance") == 0;
        free(g);
        if (busy)
            return -EBUSY;
    }
    return tune_io_machine.write(&tune_io_machine, sr, path, value);
}

/* --freq pins min = max: the limit moved first is the one that keeps
 * min <= max at every step (and restore, in reverse, keeps it too). */
static void test_tune_freq_limits_keep_min_below_max(void **state)
{
    (void)state;
    static struct sysroot sr;
    const char *base = "/sys/devices/system/cpu/cpufreq/policy1";
    char max_path[128], min_path[128];
    snprintf(max_path, sizeof max_path, "%s/scaling_max_freq", base);
    snprintf(min_path, sizeof min_path, "%s/scaling_min_freq", base);
    /* core2-quad policy1: min 1600000, max 2400000 */
    for (int below = 0; below < 2; below++) {
        fixture_sysroot(&sr, "core2-quad");
        struct tune_request rq = {.sr = &sr,
                                  .budget_ns = 50000,
                                  .boost = -1,
                                  .actions = only("cpufreq"),
                                  .freq_khz = below ? 1000000 : 2000000};
        const char *why;
        assert_int_equal(cpulist_parse("1", &rq.targets, &why), 0);
        tune_plan_free(&plan);
        assert_int_equal(tune_plan_build(&rq, &plan), 0);
        int max_at = -1, min_at = -1;
        for (int i = 0; i < plan.n; i++) {
            if (strcmp(plan.change[i].path, max_path) == 0)
                max_at = i;
            if (strcmp(plan.change[i].path, min_path) == 0)
                min_at = i;
        }
        assert_true(max_at >= 0 && min_at >= 0);
        if (below) /* 1.0 GHz < min: lower min first, then max */
            assert_true(min_at < max_at);
        else /* 2.0 GHz >= min: lower max first, then raise min */
            assert_true(max_at < min_at);
    }
}

static void test_tune_epp_follows_the_intel_pstate_rule(void **state)
{
    const char *root = *state;
    static const struct tune_io pstate = {pstate_write, NULL, NULL};
    struct tune_io io = pstate;
    io.read = tune_io_machine.read;
    const char *base = "/sys/devices/system/cpu/cpufreq/policy3";
    char st[PATH_MAX], failed[2048], err[512], tree[PATH_MAX], gov[256], epp[256];
    int restored;
    snprintf(gov, sizeof gov, "%s/scaling_governor", base);
    snprintf(epp, sizeof epp, "%s/energy_performance_preference", base);
    /* the plan of the untuned Intel machine sets EPP before the governor */
    build("intel-ipc-untuned", "3", 50000, only("cpufreq"));
    int gov_at = -1, epp_at = -1;
    for (int i = 0; i < plan.n; i++) {
        if (strcmp(plan.change[i].path, gov) == 0)
            gov_at = i;
        if (strcmp(plan.change[i].path, epp) == 0)
            epp_at = i;
    }
    assert_true(epp_at >= 0 && gov_at > epp_at);
    snprintf(tree, sizeof tree, "%s/tree", root);
    for (int i = 0; i < plan.n; i++) {
        char line[256];
        snprintf(line, sizeof line, "%s\n", plan.change[i].old_value);
        char rel[300];
        snprintf(rel, sizeof rel, "/tree%s", plan.change[i].path);
        write_text(root, rel, line);
    }
    journal_path(root, st, sizeof st);
    struct sysroot sr;
    sysroot_init(&sr, tree);
    struct tune_result res;
    assert_int_equal(tune_apply(&sr, &plan, st, TUNE_MODE_APPLY, &io, &res, err, sizeof err), 0);
    assert_int_equal(res.refused, 0);
    assert_file(tree, gov, "performance");
    assert_file(tree, epp, "performance");
    assert_int_equal(tune_restore(st, &io, failed, sizeof failed, &restored, err, sizeof err), 0);
    assert_file(tree, gov, "powersave");
    assert_file(tree, epp, "balance_performance");

    /* a journal in the other order (written without the rule: under it the
     * EPP write is refused and left out of the journal): on restore the EBUSY
     * write is retried after the rest */
    tune_plan_free(&plan);
    tune_plan_add(&plan, "cpufreq", gov, "powersave", "performance", NULL);
    tune_plan_add(&plan, "cpufreq", epp, "balance_performance", "performance", NULL);
    assert_int_equal(tune_apply(&sr, &plan, st, TUNE_MODE_APPLY, NULL, &res, err, sizeof err), 0);
    assert_int_equal(res.applied, 2);
    write_text(tree, gov, "performance\n");
    write_text(tree, epp, "performance\n");
    assert_int_equal(tune_restore(st, &io, failed, sizeof failed, &restored, err, sizeof err), 0);
    assert_file(tree, gov, "powersave");
    assert_file(tree, epp, "balance_performance");
}

static void test_tune_allow_list_comes_from_the_actions(void **state)
{
    (void)state;
    assert_null(tune_path_refusal("irq-affinity", "/proc/irq/9/smp_affinity_list"));
    assert_null(
        tune_path_refusal("idle-states", "/sys/devices/system/cpu/cpu1/cpuidle/state3/disable"));
    assert_null(tune_path_refusal("timer-migration", "/proc/sys/kernel/timer_migration"));
    assert_non_null(tune_path_refusal("timer-migration", "/proc/sys/kernel/core_pattern"));
    assert_non_null(tune_path_refusal("irq-affinity", "/proc/irq/../sys/kernel/core_pattern"));
    assert_non_null(tune_path_refusal("irq-affinity", "/proc/irq/"));
    assert_non_null(tune_path_refusal("idle-states", "/sys/devices/system/cpu/./cpu1"));
    assert_non_null(tune_path_refusal("turbo", "/proc/irq/9/smp_affinity_list"));
    assert_non_null(tune_path_refusal("irq-affinity", "proc/irq/9/smp_affinity_list"));
    /* every action names what it writes */
    for (int i = 0; i < tune_action_count; i++)
        assert_non_null(tune_actions[i].writes);
}

static int teardown(void **state)
{
    (void)state;
    tune_plan_free(&plan);
    return 0;
}

/* The session layer prints through the streams it is given: a restore with
 * nothing to restore says so on err, in the program's format, and is the
 * usage outcome; quiet (out NULL) prints nothing else. */
static void test_tune_restore_report_without_snapshot_writes_to_err(void **state)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/state", (const char *)*state);
    FILE *err = tmpfile();
    assert_non_null(err);
    assert_int_equal(tune_restore_report(path, true, NULL, err), TUNE_NO_SNAPSHOT);
    assert_int_equal(tune_restore_report(path, false, NULL, err), TUNE_OK);
    char text[8200] = "";
    rewind(err);
    size_t n = fread(text, 1, sizeof(text) - 1, err);
    text[n] = '\0';
    fclose(err);
    char want[4300];
    snprintf(want, sizeof(want), "jitterlab: tune restore: no snapshot in %s: nothing to restore\n",
             path);
    assert_string_equal(text, want);
}

static void test_tune_state_path_prefers_the_option_then_the_environment(void **state)
{
    (void)state;
    assert_string_equal(tune_state_path("/given"), "/given");
    setenv("JITTERLAB_TUNE_STATE", "/from/env", 1);
    assert_string_equal(tune_state_path(NULL), "/from/env");
    setenv("JITTERLAB_TUNE_STATE", "", 1);
    assert_string_equal(tune_state_path(NULL), TUNE_DEFAULT_STATE);
    unsetenv("JITTERLAB_TUNE_STATE");
}

/* doctor's treatment: two applies, the second put back alone; the first
 * stays journaled and restores; the A/B switch leaves the journal as it is */
static void test_tune_put_back_undoes_one_apply_and_keeps_the_other(void **state)
{
    const char *root = *state;
    char st[PATH_MAX], tree[PATH_MAX], err[512], failed[512];
    journal_path(root, st, sizeof st);
    snprintf(tree, sizeof tree, "%s/tree", root);
    write_text(root, "/tree/proc/sys/kernel/timer_migration", "1\n");
    write_text(root, "/tree/proc/sys/kernel/nmi_watchdog", "1\n");
    struct sysroot sr;
    sysroot_init(&sr, tree);
    struct tune_plan kept = {0}, tried = {0}, before_tried = {0};
    struct tune_result res;
    tune_plan_add(&kept, "timer-migration", "/proc/sys/kernel/timer_migration", "1", "0", "t");
    assert_int_equal(tune_apply(&sr, &kept, st, TUNE_MODE_APPLY, NULL, &res, err, sizeof err), 0);
    tune_plan_add(&before_tried, "timer-migration", "/proc/sys/kernel/timer_migration", "", "", "");
    tune_plan_add(&tried, "nmi-watchdog", "/proc/sys/kernel/nmi_watchdog", "1", "0", "n");
    assert_int_equal(tune_apply(&sr, &tried, st, TUNE_MODE_APPLY, NULL, &res, err, sizeof err), 0);
    /* the A/B's "before" arm: the old value, journal untouched */
    assert_int_equal(tune_plan_set(&sr, &tried, false, NULL, err, sizeof err), 0);
    assert_file(tree, "/proc/sys/kernel/nmi_watchdog", "1");
    assert_int_equal(tune_plan_set(&sr, &tried, true, NULL, err, sizeof err), 0);
    assert_file(tree, "/proc/sys/kernel/nmi_watchdog", "0");
    static struct tune_journal j;
    assert_int_equal(tune_journal_load(st, &j, err, sizeof err), 0);
    assert_int_equal(j.changes.n, 2);
    tune_plan_free(&j.changes);
    /* put back: its value back, its entry gone, the kept one stays */
    assert_int_equal(tune_put_back(&sr, &tried, &before_tried, st, NULL, err, sizeof err), 0);
    assert_file(tree, "/proc/sys/kernel/nmi_watchdog", "1");
    assert_file(tree, "/proc/sys/kernel/timer_migration", "0");
    assert_int_equal(tune_journal_load(st, &j, err, sizeof err), 0);
    assert_int_equal(j.changes.n, 1);
    assert_string_equal(j.changes.change[0].action, "timer-migration");
    tune_plan_free(&j.changes);
    int restored = 0;
    assert_int_equal(tune_restore(st, NULL, failed, sizeof failed, &restored, err, sizeof err), 0);
    assert_file(tree, "/proc/sys/kernel/timer_migration", "1");
    /* a put back of the only apply leaves no journal */
    assert_int_equal(tune_apply(&sr, &tried, st, TUNE_MODE_APPLY, NULL, &res, err, sizeof err), 0);
    struct tune_plan none = {0};
    assert_int_equal(tune_put_back(&sr, &tried, &none, st, NULL, err, sizeof err), 0);
    assert_int_equal(access(st, F_OK), -1);
    assert_file(tree, "/proc/sys/kernel/nmi_watchdog", "1");
    tune_plan_free(&kept);
    tune_plan_free(&tried);
    tune_plan_free(&before_tried);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tune_idle_states_follow_the_budget),
        cmocka_unit_test(test_tune_cache_partition_on_the_fixtures),
        cmocka_unit_test(test_tune_boot_proposal_fits_the_kernel_and_the_machine),
        cmocka_unit_test(test_tune_cpufreq_moves_ondemand_to_performance),
        cmocka_unit_test(test_tune_freq_limits_keep_min_below_max),
        cmocka_unit_test(test_tune_tuned_machine_needs_only_a_resume_limit),
        cmocka_unit_test(test_tune_profiles_and_opt_in_actions),
        cmocka_unit_test(test_tune_value_matches_what_the_kernel_reads_back),
        cmocka_unit_test(test_tune_journal_round_trip),
        cmocka_unit_test(test_tune_journal_round_trips_bytes_that_are_not_utf8),
        cmocka_unit_test(test_tune_state_path_prefers_the_option_then_the_environment),
        cmocka_unit_test_setup_teardown(test_tune_restore_report_without_snapshot_writes_to_err,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test(test_tune_allow_list_comes_from_the_actions),
        cmocka_unit_test_setup_teardown(test_tune_resume_latency_never_loosens_a_stricter_limit,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(
            test_tune_restore_writes_only_allowed_paths_beneath_the_tree, temp_tree_setup,
            temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_tune_journal_of_others_is_refused, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_tune_lock_refuses_a_second_session, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_tune_session_refuses_a_journal_of_an_apply,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_tune_long_values_are_restored_in_full, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_tune_epp_follows_the_intel_pstate_rule,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_tune_put_back_undoes_one_apply_and_keeps_the_other,
                                        temp_tree_setup, temp_tree_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
