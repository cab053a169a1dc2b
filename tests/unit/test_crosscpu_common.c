/*
 * The ground the cross-CPU measurements stand on: each CPU's last-level
 * cache read from sysfs (the highest data/unified level, its id or else the
 * first CPU sharing it), what two CPUs share (cpu_pair_group) on a
 * synthetic two-package SMT machine with two LLCs in the first package,
 * the exact order statistics of a batch, and a team of pinned threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <stdatomic.h>

#include "crosscpu/sample_stats.h"
#include "crosscpu/team.h"
#include "crosscpu/timebase.h"
#include "sys/cpu_topology.h"
#include "sys/read_notes.h"
#include "test_tree.h"

static void write_cache(const char *root, int cpu, int index, int level, const char *type,
                        const char *shared, int id)
{
    char rel[160], text[32];
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, index);
    snprintf(text, sizeof text, "%d\n", level);
    write_text(root, rel, text);
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, index);
    write_text(root, rel, type);
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu,
             index);
    write_text(root, rel, shared);
    if (id >= 0) {
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cache/index%d/id", cpu, index);
        snprintf(text, sizeof text, "%d\n", id);
        write_text(root, rel, text);
    }
}

/* CPUs 0-7: package 0 holds cores 0 (CPUs 0,1) and 1 (CPUs 2,3), each core
 * with its own L3 (ids 10 and 11); package 1 holds cores 0 (4,5) and 1
 * (6,7) sharing one L3 without an id file. Every CPU has an L1i listed
 * after its L3 (ignored) and an L2 per core. */
static void write_machine(const char *root)
{
    for (int cpu = 0; cpu < 8; cpu++) {
        char rel[160], text[32];
        int core = (cpu / 2) % 2, pkg = cpu / 4;
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
        snprintf(text, sizeof text, "%d\n", core);
        write_text(root, rel, text);
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 cpu);
        snprintf(text, sizeof text, "%d\n", pkg);
        write_text(root, rel, text);
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 cpu);
        snprintf(text, sizeof text, "%d-%d\n", cpu & ~1, (cpu & ~1) + 1);
        write_text(root, rel, text);
        char core_cpus[32];
        snprintf(core_cpus, sizeof core_cpus, "%d-%d\n", cpu & ~1, (cpu & ~1) + 1);
        write_cache(root, cpu, 0, 1, "Data\n", core_cpus, -1);
        write_cache(root, cpu, 1, 2, "Unified\n", core_cpus, -1);
        if (pkg == 0)
            write_cache(root, cpu, 2, 3, "Unified\n", core_cpus, 10 + core);
        else
            write_cache(root, cpu, 2, 3, "Unified\n", "4-7\n", -1);
        write_cache(root, cpu, 3, 4, "Instruction\n", "0-7\n", 99);
    }
}

static void read_machine(const char *root, struct cpu_topology *t)
{
    write_machine(root);
    struct sysroot sr;
    sysroot_init(&sr, root);
    static struct cpulist cpus;
    const char *why;
    assert_int_equal(cpulist_parse("0-7", &cpus, &why), 0);
    assert_int_equal(cpu_topology_read(&sr, &cpus, t, NULL), 0);
    assert_int_equal(t->ncpu, 8);
}

static void test_llc_is_the_highest_data_or_unified_level(void **state)
{
    struct cpu_topology t;
    read_machine(*state, &t);
    const struct cpu_siblings *c0 = cpu_topology_find(&t, 0), *c3 = cpu_topology_find(&t, 3);
    assert_int_equal(c0->llc_level, 3); /* the level-4 instruction cache is not it */
    assert_int_equal(c0->llc_id, 10);
    assert_int_equal(c3->llc_id, 11);
    assert_string_equal(c3->llc_cpus, "2-3");
    cpu_topology_free(&t);
}

static void test_llc_without_id_is_named_by_its_first_cpu(void **state)
{
    struct cpu_topology t;
    read_machine(*state, &t);
    assert_int_equal(cpu_topology_find(&t, 6)->llc_id, 4);
    assert_string_equal(cpu_topology_find(&t, 6)->llc_cpus, "4-7");
    assert_null(cpu_topology_find(&t, 8));
    cpu_topology_free(&t);
}

static void test_pair_groups_follow_the_topology(void **state)
{
    struct cpu_topology t;
    read_machine(*state, &t);
#define GROUP(a, b) cpu_pair_group(cpu_topology_find(&t, a), cpu_topology_find(&t, b))
    assert_int_equal(GROUP(0, 0), CPU_PAIR_SAME);
    assert_int_equal(GROUP(0, 1), CPU_PAIR_SMT);
    assert_int_equal(GROUP(1, 0), CPU_PAIR_SMT);
    assert_int_equal(GROUP(0, 2), CPU_PAIR_OTHER_LLC);
    assert_int_equal(GROUP(4, 6), CPU_PAIR_SAME_LLC);
    assert_int_equal(GROUP(1, 5), CPU_PAIR_OTHER_PACKAGE);
    assert_int_equal(GROUP(7, 0), CPU_PAIR_OTHER_PACKAGE);
#undef GROUP
    assert_string_equal(cpu_pair_group_name(CPU_PAIR_SMT), "smt-sibling");
    assert_string_equal(cpu_pair_group_name(CPU_PAIR_OTHER_PACKAGE), "other-package");
    assert_string_equal(cpu_pair_group_name((enum cpu_pair_group)42), "unknown");
    cpu_topology_free(&t);
}

static void test_pair_groups_without_cache_information(void **state)
{
    (void)state;
    struct cpu_siblings a = {.cpu = 0,
                             .core_id = 0,
                             .package_id = 0,
                             .llc_level = VALUE_UNKNOWN,
                             .llc_id = VALUE_UNKNOWN};
    struct cpu_siblings b = a;
    b.cpu = 1;
    b.core_id = 1;
    assert_int_equal(cpu_pair_group(&a, &b), CPU_PAIR_SAME_PACKAGE); /* as on this VM */
    b.package_id = VALUE_UNKNOWN;
    assert_int_equal(cpu_pair_group(&a, &b), CPU_PAIR_UNKNOWN);
    b.package_id = 1;
    assert_int_equal(cpu_pair_group(&a, &b), CPU_PAIR_OTHER_PACKAGE);
}

static void test_sample_summary_is_exact(void **state)
{
    (void)state;
    uint64_t v[200];
    for (int i = 0; i < 200; i++)
        v[i] = (uint64_t)(200 - i); /* 200 .. 1, unsorted */
    struct sample_summary s;
    sample_summary_u64(v, 200, &s);
    assert_int_equal(s.n, 200);
    assert_int_equal(s.min, 1);
    assert_int_equal(s.max, 200);
    assert_int_equal(s.median, 100); /* nearest rank: the 100th of 200 */
    assert_int_equal(s.p99, 198);
    assert_true(s.mean > 100.49 && s.mean < 100.51);
    assert_int_equal(v[0], 1); /* sorted in place */
    sample_summary_u64(v, 0, &s);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.max, 0);
    uint64_t one = 7;
    sample_summary_u64(&one, 1, &s);
    assert_int_equal(s.min, 7);
    assert_int_equal(s.median, 7);
    assert_int_equal(s.p99, 7);
    double d[] = {3.0, 1.0, 2.0};
    assert_true(quantile_double(d, 3, 0.5) == 2.0);
    assert_true(quantile_double(d, 3, 0.0) == 1.0);
    assert_true(quantile_double(d, 3, 1.0) == 3.0);
}

struct team_probe {
    int cpu_seen[2];
    atomic_int ran;
};

static void probe_body(void *arg, int index)
{
    struct team_probe *p = arg;
    p->cpu_seen[index] = sched_getcpu();
    atomic_fetch_add(&p->ran, 1);
}

static void test_team_runs_each_body_on_its_cpu(void **state)
{
    (void)state;
    int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int cpus[2] = {0, ncpu > 1 ? 1 : 0};
    struct team_probe p = {{-1, -1}, 0};
    struct team_config cfg = {.cpus = cpus, .n = 2, .fifo = false, .body = probe_body, .arg = &p};
    struct team_report rep;
    char err[128];
    assert_int_equal(team_run(&cfg, &rep, err, sizeof err), 0);
    assert_int_equal(atomic_load(&p.ran), 2);
    assert_int_equal(p.cpu_seen[0], cpus[0]);
    assert_int_equal(p.cpu_seen[1], cpus[1]);
    assert_false(rep.realtime);
}

static void test_team_refuses_a_cpu_it_cannot_run_on(void **state)
{
    (void)state;
    int cpus[1] = {4000}; /* no such CPU: the pinning fails, no body runs */
    struct team_probe p = {{-1, -1}, 0};
    struct team_config cfg = {.cpus = cpus, .n = 1, .body = probe_body, .arg = &p};
    struct team_report rep;
    char err[128] = "";
    assert_int_equal(team_run(&cfg, &rep, err, sizeof err), -1);
    assert_int_equal(atomic_load(&p.ran), 0);
    assert_non_null(strstr(err, "CPU 4000"));
}

static void test_timebase_ticks_advance(void **state)
{
    (void)state;
    struct timebase tb;
    timebase_init(&tb, false); /* not invariant: CLOCK_MONOTONIC, one tick per ns */
    assert_false(tb.tsc);
    assert_true(tb.ns_per_tick == 1.0);
    assert_string_equal(timebase_name(&tb), "monotonic");
    assert_non_null(strstr(tb.why, "invariant"));
    uint64_t a = timebase_ticks(&tb), b = timebase_ticks(&tb);
    assert_true(b >= a);
    assert_int_equal(timebase_ticks_of_ns(&tb, 1000), 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_llc_is_the_highest_data_or_unified_level,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_llc_without_id_is_named_by_its_first_cpu,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_pair_groups_follow_the_topology, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test(test_pair_groups_without_cache_information),
        cmocka_unit_test(test_sample_summary_is_exact),
        cmocka_unit_test(test_team_runs_each_body_on_its_cpu),
        cmocka_unit_test(test_team_refuses_a_cpu_it_cannot_run_on),
        cmocka_unit_test(test_timebase_ticks_advance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
