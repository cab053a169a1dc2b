/*
 * Telemetry (src/telemetry/) replayed from the snapshot pairs of
 * tests/fixtures/stat/: the sources chosen on each machine and the reasons
 * of the absent figures, and every per-CPU figure between t0 and t1 exactly
 * one injected second apart (the expected numbers and how they follow from
 * the files are in tests/fixtures/README.md, "stat/"). Faults (garbage,
 * counters going backwards, quiet-mode leaks) are in test_telemetry_faults.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_tree.h"

#include "test_replay.h"

#define IPI_WHY "not read while measuring: the read interrupts the measured CPU"
#define FIXTURE_MSR_WHY                                                                            \
    "no perf msr PMU under a fixture tree, and /dev/cpu/0/msr: No such file or directory"
#define NO_PERF_WHY "per-CPU context switches need perf on the live machine"
#define NO_STEAL_WHY                                                                               \
    "the hypervisor reports no steal time (0 in /proc/stat since boot): what it takes is "         \
    "unknown, not 0"

static void figures(const struct telemetry *t, int i, struct telemetry_cpu_figures *f)
{
    telemetry_cpu_delta(t, i, f);
}

/* ---- vm: recorded on the 2-vCPU development VM ---------------------------- */

static void test_telemetry_vm_sources_and_reasons(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "vm", "0-1", false, "6.18.44-fc-v1045");
    assert_source(t, TELEMETRY_AVG_MHZ, "cpuinfo");
    assert_source(t, TELEMETRY_BUSY_PCT, "proc-stat-ticks");
    assert_absent(t, TELEMETRY_BZY_MHZ, FIXTURE_MSR_WHY);
    assert_absent(t, TELEMETRY_TSC_MHZ, FIXTURE_MSR_WHY);
    assert_absent(t, TELEMETRY_SMI, FIXTURE_MSR_WHY);
    assert_absent(t, TELEMETRY_IDLE, "no cpuidle states (driver none)");
    assert_source(t, TELEMETRY_IRQS, "proc-interrupts");
    assert_source(t, TELEMETRY_SOFTIRQS, "proc-softirqs");
    assert_absent(t, TELEMETRY_CTXT, NO_PERF_WHY);
    assert_source(t, TELEMETRY_CPU_TIME, "proc-stat");
    assert_absent(t, TELEMETRY_STEAL, NO_STEAL_WHY);
    assert_absent(t, TELEMETRY_CORE_TEMP,
                  "no coretemp, k10temp, zenpower hwmon or x86_pkg_temp zone");
    assert_absent(t, TELEMETRY_PKG_TEMP,
                  "no coretemp, k10temp, zenpower hwmon or x86_pkg_temp zone");
    assert_absent(t, TELEMETRY_PKG_POWER, "no powercap RAPL domain (/sys/class/powercap)");
    telemetry_close(t);
}

static void test_telemetry_vm_figures_from_the_recorded_pair(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "vm", "0-1", false, "6.18.44-fc-v1045");
    replay_step(&r, "vm", "t1");
    assert_true(telemetry_elapsed_s(t) == 1.0);
    assert_int_equal(telemetry_system_ctxt(t), 915553 - 913313);
    static const double busy[2] = {100.0 * 9 / 109, 100.0 * 8 / 106};
    static const int64_t irqs[2] = {160, 1270}, softirqs[2] = {140, 350};
    for (int i = 0; i < 2; i++) {
        struct telemetry_cpu_figures f;
        figures(t, i, &f);
        assert_int_equal(f.cpu, i);
        assert_figure(f.avg_mhz, 2096.011, "avg_mhz", i);
        assert_figure(f.busy_pct, busy[i], "busy_pct", i);
        assert_figure(f.bzy_mhz, NAN, "bzy_mhz", i);
        assert_figure(f.tsc_mhz, NAN, "tsc_mhz", i);
        assert_figure(f.steal_pct, NAN, "steal_pct", i); /* the VM reports no steal */
        assert_figure(f.irq_pct, 0, "irq_pct", i);
        assert_figure(f.softirq_pct, 0, "softirq_pct", i);
        assert_int_equal(f.irqs, irqs[i]);
        assert_int_equal(f.softirqs, softirqs[i]);
        assert_int_equal(f.ctxt, -1);
        assert_int_equal(f.smi, -1);
        assert_int_equal(f.nidle, 0);
        assert_figure(f.core_temp_c, NAN, "core_temp_c", i);
        assert_figure(f.pkg_temp_c, NAN, "pkg_temp_c", i);
        assert_figure(f.pkg_watts, NAN, "pkg_watts", i);
    }
    struct telemetry_cpu_figures f;
    figures(t, 1, &f);
    assert_int_equal(f.nirq, 4);
    assert_string_equal(f.irq[0].id, "LOC");
    assert_string_equal(f.irq[0].name, "Local timer interrupts");
    assert_int_equal(f.irq[0].count, 1236);
    assert_string_equal(f.irq[1].id, "36");
    assert_string_equal(f.irq[1].name, "virtio1-req.0");
    assert_string_equal(telemetry_irq_label(&f.irq[1]), "virtio1-req.0");
    assert_string_equal(telemetry_irq_label(&f.irq[0]), "LOC");
    assert_int_equal(f.irq[1].count, 15);
    assert_int_equal(f.irq[2].count, 13); /* CAL */
    assert_int_equal(f.irq[3].count, 6);  /* RES */
    assert_int_equal(telemetry_softirq_count(t), 10);
    assert_string_equal(telemetry_softirq_name(t, 0), "HI");
    assert_string_equal(telemetry_softirq_name(t, 9), "RCU");
    assert_string_equal(telemetry_softirq_name(t, 10), "");
    assert_int_equal(f.softirq[1], 44);  /* TIMER */
    assert_int_equal(f.softirq[4], 15);  /* BLOCK */
    assert_int_equal(f.softirq[7], 250); /* SCHED */
    assert_int_equal(f.softirq[9], 41);  /* RCU */
    telemetry_close(t);
}

static void test_telemetry_absent_line_groups_figures_by_reason(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "vm", "0-1", false, "6.18.44-fc-v1045");
    char line[1024];
    telemetry_absent_line(t, line, sizeof line);
    assert_string_equal(line, "bzy_mhz, tsc_mhz, smi: " FIXTURE_MSR_WHY
                              "; idle: no cpuidle states (driver none); ctxt: " NO_PERF_WHY
                              "; steal_pct: " NO_STEAL_WHY
                              "; core_temp_c, pkg_temp_c: no coretemp, k10temp, zenpower hwmon "
                              "or x86_pkg_temp zone; pkg_watts: no powercap RAPL domain "
                              "(/sys/class/powercap)");
    /* a short buffer holds a terminated prefix of the same line */
    static const size_t lens[] = {1, 2, 10, 23, 24, 40, 200};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        char small[200];
        memset(small, 'x', sizeof small);
        telemetry_absent_line(t, small, lens[k]);
        size_t n = strnlen(small, lens[k]);
        assert_true(n < lens[k]);
        assert_memory_equal(small, line, n);
        assert_int_equal(n, lens[k] - 1);
    }
    telemetry_close(t);
}

static void test_telemetry_absent_line_names_only_what_is_missing(void **state)
{
    (void)state;
    /* intel-client has every source but per-CPU context switches */
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "0-7", false, "6.1.0-18-amd64");
    char line[512];
    telemetry_absent_line(t, line, sizeof line);
    assert_string_equal(line, "ctxt: " NO_PERF_WHY);
    telemetry_close(t);
}

/* ---- intel-client: Core i3-12100, every source ---------------------------- */

static const int intel_busy_msr[8] = {34, 18, 70, 2, 54, 10, 72, 0};
/* ΔMPERF = busy share x ΔTSC (3e9), ΔAPERF = 1.2 x ΔMPERF: Avg_MHz = ΔAPERF / 1e6 µs */
static const double intel_aperf_delta[8] = {1224e6, 648e6, 2520e6, 72e6, 1944e6, 360e6, 2592e6, 0};
static const double intel_busy_stat[8] = {34, 18, 70, 2, 54, 1000.0 / 101, 72, 0};
static const double intel_steal[8] = {1, 1, 0, 0, 2, 0, 2, 0};
static const double intel_irq_pct[8] = {2, 1, 4, 0, 2, 0, 1, 0};
static const double intel_softirq_pct[8] = {3, 1, 6, 0, 2, 0, 1, 0};
static const int64_t intel_irqs[8] = {388, 211, 1243, 6, 618, 73, 1299, 4};
static const int64_t intel_softirqs[8] = {141, 65, 443, 7, 213, 23, 460, 3};
static const double intel_core_temp[4] = {42, 44, 48, 40};
static const double intel_freq_mhz[8] = {3400, 800, 4300, 800, 3900, 1200, 4300, 800};
/* idle residency (% of the second) and entries: POLL C1 C1E C6 C8 */
static const double intel_idle_pct[8][5] = {
    {0.1, 2, 5, 30, 28},     /* CPU 0 */
    {0.05, 1, 3, 20, 57},    /* CPU 1 */
    {0.5, 10, 10, 9.5, 0},   /* CPU 2 */
    {0, 0.5, 0.5, 7, 90},    /* CPU 3 */
    {0.2, 4, 8, 20, 11.8},   /* CPU 4 */
    {0.01, 0.99, 2, 16, 70}, /* CPU 5 */
    {1, 12, 6, 8, 0},        /* CPU 6 */
    {0, 0, 0, 0.25, 99.75},  /* CPU 7 */
};
static const uint64_t intel_idle_entries[8][5] = {
    {50, 400, 300, 500, 200},  /* CPU 0 */
    {20, 150, 100, 300, 400},  /* CPU 1 */
    {900, 3000, 800, 150, 0},  /* CPU 2 */
    {0, 20, 10, 40, 100},      /* CPU 3 */
    {100, 700, 500, 300, 60},  /* CPU 4 */
    {5, 90, 60, 200, 300},     /* CPU 5 */
    {1500, 4000, 600, 100, 0}, /* CPU 6 */
    {0, 0, 0, 5, 40},          /* CPU 7 */
};
static const char *const intel_states[5] = {"POLL", "C1", "C1E", "C6", "C8"};

static void test_telemetry_intel_sources_are_the_msrs_and_sensors(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "0-7", false, "6.1.0-18-amd64");
    assert_source(t, TELEMETRY_AVG_MHZ, "msr");
    assert_source(t, TELEMETRY_BUSY_PCT, "msr");
    assert_source(t, TELEMETRY_BZY_MHZ, "msr");
    assert_source(t, TELEMETRY_TSC_MHZ, "msr");
    assert_source(t, TELEMETRY_SMI, "msr");
    assert_source(t, TELEMETRY_IDLE, "cpuidle");
    assert_source(t, TELEMETRY_IRQS, "proc-interrupts");
    assert_source(t, TELEMETRY_SOFTIRQS, "proc-softirqs");
    assert_absent(t, TELEMETRY_CTXT, NO_PERF_WHY);
    assert_source(t, TELEMETRY_CPU_TIME, "proc-stat");
    assert_source(t, TELEMETRY_CORE_TEMP, "hwmon-coretemp");
    assert_source(t, TELEMETRY_PKG_TEMP, "hwmon-coretemp");
    assert_source(t, TELEMETRY_PKG_POWER, "powercap");
    assert_int_equal(telemetry_notes(t)->count, 0);
    telemetry_close(t);
}

static void test_telemetry_intel_figures_follow_turbostat_definitions(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "0-7", false, "6.1.0-18-amd64");
    replay_step(&r, "intel-client", "t1");
    assert_int_equal(telemetry_system_ctxt(t), 23456);
    for (int i = 0; i < 8; i++) {
        struct telemetry_cpu_figures f;
        figures(t, i, &f);
        assert_int_equal(f.cpu, i);
        /* turbostat: ΔAPERF / µs; ΔMPERF / ΔTSC; TSC rate × ΔAPERF / ΔMPERF */
        assert_figure(f.tsc_mhz, 3000, "tsc_mhz", i);
        assert_figure(f.avg_mhz, intel_aperf_delta[i] / 1e6, "avg_mhz", i);
        assert_figure(f.busy_pct, intel_busy_msr[i], "busy_pct", i);
        assert_figure(f.bzy_mhz, i == 7 ? NAN : 3600, "bzy_mhz", i);
        assert_int_equal(f.smi, 2); /* 0xffffffff -> 1: the 32-bit count wrapped */
        assert_figure(f.steal_pct, intel_steal[i], "steal_pct", i);
        assert_figure(f.irq_pct, intel_irq_pct[i], "irq_pct", i);
        assert_figure(f.softirq_pct, intel_softirq_pct[i], "softirq_pct", i);
        assert_int_equal(f.irqs, intel_irqs[i]);
        assert_int_equal(f.softirqs, intel_softirqs[i]);
        assert_int_equal(f.ctxt, -1);
        assert_int_equal(f.nidle, 5);
        for (int k = 0; k < 5; k++) {
            assert_string_equal(f.idle[k].name, intel_states[k]);
            assert_figure(f.idle[k].residency_pct, intel_idle_pct[i][k], intel_states[k], i);
            assert_int_equal(f.idle[k].entries, intel_idle_entries[i][k]);
        }
        assert_figure(f.pkg_temp_c, 46, "pkg_temp_c", i); /* coretemp, not x86_pkg_temp's 52 */
        assert_figure(f.core_temp_c, intel_core_temp[i % 4], "core_temp_c", i);
        /* RAPL wrapped: 262143328850 - 262133328850 + 15000000 µJ in 1 s */
        assert_figure(f.pkg_watts, 25, "pkg_watts", i);
    }
    telemetry_close(t);
}

static void test_telemetry_intel_top_eight_irqs_by_count_then_file_order(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "0-7", false, "6.1.0-18-amd64");
    replay_step(&r, "intel-client", "t1");
    struct telemetry_cpu_figures f;
    figures(t, 0, &f);
    /* ten sources moved on CPU 0; IWI (3, after acpi's 3) and MCP (1) drop out */
    static const struct {
        const char *id, *name;
        uint64_t count;
    } want[8] = {
        {"LOC", "Local timer interrupts", 250},
        {"RES", "Rescheduling interrupts", 40},
        {"CAL", "Function call interrupts", 35},
        {"125", "nvme0q1", 25},
        {"140", "i915", 12},
        {"TLB", "TLB shootdowns", 12},
        {"157", "enp3s0-TxRx-0", 7},
        {"9", "acpi", 3},
    };
    assert_int_equal(f.nirq, TELEMETRY_TOP_IRQS);
    uint64_t sum = 0;
    for (int k = 0; k < 8; k++) {
        assert_string_equal(f.irq[k].id, want[k].id);
        assert_string_equal(f.irq[k].name, want[k].name);
        assert_int_equal(f.irq[k].count, want[k].count);
        sum += f.irq[k].count;
    }
    assert_int_equal(f.irqs, (int64_t)sum + 3 + 1);
    figures(t, 7, &f); /* LOC 2, then CAL and MCP (1 each) in file order */
    assert_int_equal(f.nirq, 3);
    assert_string_equal(f.irq[0].id, "LOC");
    assert_string_equal(f.irq[1].id, "CAL");
    assert_string_equal(f.irq[2].id, "MCP");
    telemetry_close(t);
}

static void test_telemetry_irq_line_that_appears_counts_from_zero(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "0-7", false, "6.1.0-18-amd64");
    replay_step(&r, "intel-client", "t1");
    struct telemetry_cpu_figures f;
    figures(t, 2, &f); /* 156 (enp3s0) registered between t0 and t1 with 1 on CPU 2 */
    bool found = false;
    for (int k = 0; k < f.nirq; k++)
        if (strcmp(f.irq[k].id, "156") == 0) {
            assert_string_equal(f.irq[k].name, "enp3s0");
            assert_int_equal(f.irq[k].count, 1);
            found = true;
        }
    assert_true(found);
    telemetry_close(t);
}

static void test_telemetry_intel_softirqs_by_vector(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "0-7", false, "6.1.0-18-amd64");
    replay_step(&r, "intel-client", "t1");
    struct telemetry_cpu_figures f;
    figures(t, 0, &f);
    static const uint64_t want[10] = {0, 20, 0, 5, 25, 0, 1, 60, 0, 30};
    assert_int_equal(telemetry_softirq_count(t), 10);
    for (int k = 0; k < 10; k++)
        assert_int_equal(f.softirq[k], want[k]);
    telemetry_close(t);
}

static void test_telemetry_intel_quiet_refuses_every_read_that_interrupts(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "0-7", true, "6.1.0-18-amd64");
    const char *msr_why = IPI_WHY " (APERF/MPERF/TSC/SMI MSRs)";
    assert_source(t, TELEMETRY_AVG_MHZ, "cpufreq-requested");
    assert_source(t, TELEMETRY_BUSY_PCT, "proc-stat-ticks");
    assert_absent(t, TELEMETRY_BZY_MHZ, msr_why);
    assert_absent(t, TELEMETRY_TSC_MHZ, msr_why);
    assert_absent(t, TELEMETRY_SMI, msr_why);
    assert_source(t, TELEMETRY_IDLE, "cpuidle");
    assert_absent(t, TELEMETRY_CORE_TEMP, IPI_WHY " (coretemp/x86_pkg_temp read an MSR by IPI)");
    assert_absent(t, TELEMETRY_PKG_TEMP, IPI_WHY " (coretemp/x86_pkg_temp read an MSR by IPI)");
    assert_absent(t, TELEMETRY_PKG_POWER, IPI_WHY " (RAPL energy MSR by IPI)");
    replay_step(&r, "intel-client", "t1");
    for (int i = 0; i < 8; i++) {
        struct telemetry_cpu_figures f;
        figures(t, i, &f);
        assert_figure(f.avg_mhz, intel_freq_mhz[i], "avg_mhz (scaling_cur_freq at t1)", i);
        assert_figure(f.busy_pct, intel_busy_stat[i], "busy_pct (/proc/stat)", i);
        assert_figure(f.bzy_mhz, NAN, "bzy_mhz", i);
        assert_figure(f.tsc_mhz, NAN, "tsc_mhz", i);
        assert_int_equal(f.smi, -1);
        assert_figure(f.core_temp_c, NAN, "core_temp_c", i);
        assert_figure(f.pkg_temp_c, NAN, "pkg_temp_c", i);
        assert_figure(f.pkg_watts, NAN, "pkg_watts", i);
        assert_int_equal(f.irqs, intel_irqs[i]);
        assert_figure(f.idle[4].residency_pct, intel_idle_pct[i][4], "C8", i);
    }
    telemetry_close(t);
}

static void test_telemetry_quiet_before_5_18_refuses_cpufreq_too(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "0-7", true, "5.15.0-91-generic");
    assert_absent(t, TELEMETRY_AVG_MHZ,
                  IPI_WHY " (scaling_cur_freq and cpuinfo on kernels before 5.18)");
    replay_step(&r, "intel-client", "t1");
    struct telemetry_cpu_figures f;
    figures(t, 0, &f);
    assert_figure(f.avg_mhz, NAN, "avg_mhz", 0);
    telemetry_close(t);
    /* an unknown release is treated as old */
    t = replay_open(&r, *state, "intel-client", "0-7", true, NULL);
    assert_null(telemetry_source(t, TELEMETRY_AVG_MHZ)->name);
    telemetry_close(t);
}

static void test_telemetry_only_the_cpus_asked_for(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "2,6", false, "6.1.0-18-amd64");
    replay_step(&r, "intel-client", "t1");
    struct telemetry_cpu_figures f;
    figures(t, 0, &f);
    assert_int_equal(f.cpu, 2);
    assert_int_equal(f.irqs, intel_irqs[2]);
    assert_figure(f.busy_pct, intel_busy_msr[2], "busy_pct", 2);
    assert_figure(f.core_temp_c, intel_core_temp[2], "core_temp_c", 2);
    figures(t, 1, &f);
    assert_int_equal(f.cpu, 6);
    assert_int_equal(f.softirqs, intel_softirqs[6]);
    assert_figure(f.idle[1].residency_pct, intel_idle_pct[6][1], "C1", 6);
    telemetry_close(t);
}

static void test_telemetry_first_snapshot_has_no_figures(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "intel-client", "0-7", false, "6.1.0-18-amd64");
    struct telemetry_cpu_figures f;
    figures(t, 0, &f);
    assert_true(telemetry_elapsed_s(t) == 0);
    assert_figure(f.avg_mhz, NAN, "avg_mhz", 0);
    assert_int_equal(f.irqs, -1);
    assert_int_equal(telemetry_system_ctxt(t), -1);
    /* a second snapshot of the same files: zero deltas, not garbage */
    r.now_ns += NS_PER_S;
    telemetry_snapshot(t);
    figures(t, 0, &f);
    assert_figure(f.avg_mhz, 0, "avg_mhz", 0);
    assert_figure(f.busy_pct, NAN, "busy_pct (no TSC delta)", 0);
    assert_int_equal(f.irqs, 0);
    assert_int_equal(f.nirq, 0);
    assert_int_equal(f.smi, 0);
    assert_figure(f.pkg_watts, 0, "pkg_watts", 0);
    telemetry_close(t);
}

/* ---- amd-epyc: two packages, k10temp, no RAPL, no msr files -------------- */

static void test_telemetry_amd_two_packages_k10temp_tdie_per_package(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "amd-epyc", "0-15", false, "6.8.0-51-generic");
    assert_source(t, TELEMETRY_AVG_MHZ, "cpuinfo");
    assert_source(t, TELEMETRY_BUSY_PCT, "proc-stat-ticks");
    assert_absent(t, TELEMETRY_BZY_MHZ, FIXTURE_MSR_WHY);
    assert_source(t, TELEMETRY_IDLE, "cpuidle");
    assert_source(t, TELEMETRY_PKG_TEMP, "hwmon-k10temp");
    assert_absent(t, TELEMETRY_CORE_TEMP, "the sensor has no per-core values");
    assert_absent(t, TELEMETRY_PKG_POWER, "no powercap RAPL domain (/sys/class/powercap)");
    replay_step(&r, "amd-epyc", "t1");
    assert_int_equal(telemetry_system_ctxt(t), 40000);
    for (int k = 0; k < 16; k++) {
        struct telemetry_cpu_figures f;
        figures(t, k, &f);
        assert_figure(f.avg_mhz, 1500.25 + 100 * k, "avg_mhz (cpu MHz at t1)", k);
        assert_figure(f.busy_pct, 9 + k, "busy_pct", k);
        assert_figure(f.steal_pct, 0, "steal_pct", k);
        assert_figure(f.irq_pct, 0, "irq_pct", k);
        assert_figure(f.softirq_pct, 1, "softirq_pct", k);
        assert_int_equal(f.irqs, 100 + 15 * k + (k % 4 == 0 ? 50 : 0) + (k == 0));
        assert_int_equal(f.softirqs, 100 + 6 * k + (k % 4 == 0 ? 50 : 0));
        assert_int_equal(f.nidle, 3);
        assert_string_equal(f.idle[2].name, "C2");
        assert_figure(f.idle[0].residency_pct, 0.01 * (k + 1), "POLL", k);
        assert_figure(f.idle[1].residency_pct, 10 + k, "C1", k);
        assert_figure(f.idle[2].residency_pct, 70 - 2 * k, "C2", k);
        assert_int_equal(f.idle[0].entries, 10 + k);
        assert_int_equal(f.idle[1].entries, 1000 + 100 * k);
        assert_int_equal(f.idle[2].entries, 200 + 10 * k);
        /* Tdie, not Tctl (which carries an offset), of the CPU's own package */
        assert_figure(f.pkg_temp_c, k < 8 ? 47.5 : 52.25, "pkg_temp_c", k);
        assert_figure(f.core_temp_c, NAN, "core_temp_c", k);
        assert_figure(f.pkg_watts, NAN, "pkg_watts", k);
    }
    telemetry_close(t);
}

static void test_telemetry_amd_quiet_keeps_k10temp_which_interrupts_nobody(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "amd-epyc", "0-15", true, "6.8.0-51-generic");
    assert_source(t, TELEMETRY_PKG_TEMP, "hwmon-k10temp");
    assert_source(t, TELEMETRY_AVG_MHZ, "cpuinfo");
    replay_step(&r, "amd-epyc", "t1");
    struct telemetry_cpu_figures f;
    figures(t, 9, &f);
    assert_figure(f.pkg_temp_c, 52.25, "pkg_temp_c", 9);
    telemetry_close(t);
}

/* ---- kernel releases ------------------------------------------------------- */

static void test_kernel_release_at_least_compares_major_then_minor(void **state)
{
    (void)state;
    assert_true(kernel_release_at_least("5.18.0", 5, 18));
    assert_true(kernel_release_at_least("5.18", 5, 18));
    assert_true(kernel_release_at_least("5.18-rc1", 5, 18));
    assert_true(kernel_release_at_least("6.1.0-18-amd64", 5, 18));
    assert_true(kernel_release_at_least("6.0", 5, 18));
    assert_true(kernel_release_at_least("10.2.1", 5, 18));
    assert_true(kernel_release_at_least("5.19.17", 5, 18));
    assert_false(kernel_release_at_least("5.17.15", 5, 18));
    assert_false(kernel_release_at_least("5.15.0-91-generic", 5, 18));
    assert_false(kernel_release_at_least("5.4.0", 5, 18)); /* 4 < 18, not "5.4" > "5.18" */
    assert_false(kernel_release_at_least("4.19.0-27-amd64", 5, 18));
    assert_false(kernel_release_at_least("5", 5, 0));
    assert_false(kernel_release_at_least("", 5, 18));
    assert_false(kernel_release_at_least(NULL, 5, 18));
    assert_false(kernel_release_at_least("linux-6.1", 5, 18));
}

/* ---- busy from the scheduler's run time, not from tick samples ----------- */

/* /proc/schedstat of the vm machine: version, timestamp, then per CPU nine
 * numbers, the 7th the run time of its tasks in ns. */
static void write_schedstat(const char *root, long long run0_ns, long long run1_ns)
{
    char text[512];
    snprintf(text, sizeof text,
             "version 15\ntimestamp 4295000000\n"
             "cpu0 0 0 0 0 0 0 %lld 900000 1000\ndomain0 03 0 0 0\n"
             "cpu1 0 0 0 0 0 0 %lld 900000 1000\n",
             run0_ns, run1_ns);
    write_text(root, "/proc/schedstat", text);
}

/* Busy of CPUs 0 and 1 over the replayed second; closes t. */
static void assert_busy(struct telemetry *t, double cpu0_pct, double cpu1_pct)
{
    struct telemetry_cpu_figures f;
    figures(t, 0, &f);
    assert_figure(f.busy_pct, cpu0_pct, "busy_pct", 0);
    figures(t, 1, &f);
    assert_figure(f.busy_pct, cpu1_pct, "busy_pct", 1);
    telemetry_close(t);
}

static void test_telemetry_busy_from_schedstat_run_time(void **state)
{
    struct replay r;
    replay_prepare(&r, *state, "vm", "0-1");
    write_schedstat(*state, 5000000000LL, 7000000000LL);
    struct telemetry *t = replay_start(&r, false, "6.18.44-fc-v1045");
    assert_source(t, TELEMETRY_BUSY_PCT, "schedstat");
    /* 400 ms and 900 ms of the second, whatever the ticks say */
    write_schedstat(*state, 5400000000LL, 7900000000LL);
    replay_step(&r, "vm", "t1");
    assert_busy(t, 40, 90);
}

static void write_thread_run(const char *root, int tid, long long run_ns)
{
    char rel[64], text[64];
    snprintf(rel, sizeof rel, "/proc/%d/schedstat", tid);
    snprintf(text, sizeof text, "%lld 123456 789\n", run_ns);
    write_text(root, rel, text);
}

/* The vm machine without /proc/schedstat, in run: the measured threads
 * 4242 and 4243 (100 and 0 ms run so far) are followed by their files. */
static struct telemetry *open_with_threads(struct replay *r, const char *root)
{
    replay_prepare(r, root, "vm", "0-1");
    write_thread_run(root, (int)getpid(), 1000);
    write_thread_run(root, 4242, 100000000LL);
    write_thread_run(root, 4243, 0);
    struct telemetry_config cfg = {.sr = &r->sr,
                                   .cpus = &r->cpus,
                                   .quiet = true,
                                   .kernel_release = "6.18.44-fc-v1045",
                                   .measured_threads = true,
                                   .now_ns = replay_clock,
                                   .now_ctx = r};
    char err[128] = "";
    struct telemetry *t = r->t = telemetry_open(&cfg, err, sizeof err);
    assert_non_null(t);
    return t;
}

static void test_telemetry_busy_from_the_measured_threads_without_schedstat(void **state)
{
    struct replay r;
    struct telemetry *t = open_with_threads(&r, *state);
    assert_source(t, TELEMETRY_BUSY_PCT, "thread-schedstat");
    telemetry_set_threads(t, (const int[]){4242, 4243});
    telemetry_snapshot(t); /* the run starts */
    write_thread_run(*state, 4242, 500000000LL);
    write_thread_run(*state, 4243, 250000000LL);
    replay_step(&r, "vm", "t1");
    assert_busy(t, 40, 25);
}

/* Threads 4242 and 4243 ran 500 and 250 ms when they ended (*ended). */
static int64_t run_ns_at_end(void *ended, int i)
{
    return *(bool *)ended ? (i == 0 ? 500000000LL : 250000000LL) : -1;
}

static void test_telemetry_busy_of_threads_that_ended_before_the_last_snapshot(void **state)
{
    struct replay r;
    struct telemetry *t = open_with_threads(&r, *state);
    telemetry_set_threads(t, (const int[]){4242, 4243});
    bool ended = false;
    telemetry_follow_thread_ends(t, run_ns_at_end, &ended);
    telemetry_snapshot(t);
    /* both threads exited: their files are gone, their run time is known;
     * a file of the same tid (reused by another thread) is not theirs */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/proc/4242/schedstat", (const char *)*state);
    assert_int_equal(unlink(path), 0);
    write_thread_run(*state, 4243, 990000000LL);
    ended = true;
    replay_step(&r, "vm", "t1");
    assert_busy(t, 40, 25);
}

/* ---- steal: not reported is not zero ----------------------------------- */

/* /proc/stat of CPUs 0-1 with every CPU's steal ticks. */
static void write_stat_steal(const char *root, long long steal0, long long steal1)
{
    char text[512];
    snprintf(text, sizeof text,
             "cpu  200 0 100 1000 0 0 0 %lld 0 0\n"
             "cpu0 100 0 50 500 0 0 0 %lld 0 0\n"
             "cpu1 100 0 50 500 0 0 0 %lld 0 0\nctxt 1000\n",
             steal0 + steal1, steal0, steal1);
    write_text(root, "/proc/stat", text);
}

static void test_telemetry_steal_of_a_vm_that_reports_it(void **state)
{
    struct replay r;
    replay_prepare(&r, *state, "vm", "0-1");
    write_stat_steal(*state, 20, 0);
    struct telemetry *t = replay_start(&r, true, "6.18.44-fc-v1045");
    assert_source(t, TELEMETRY_STEAL, "proc-stat");
    r.now_ns += 1000000000;
    /* cpu0: 100 more ticks, 10 of them steal; cpu1: none stolen */
    write_text(*state, "/proc/stat",
               "cpu  290 0 100 1000 0 0 0 30 0 0\n"
               "cpu0 190 0 50 500 0 0 0 30 0 0\n"
               "cpu1 100 0 50 600 0 0 0 0 0 0\nctxt 1100\n");
    telemetry_snapshot(t);
    struct telemetry_cpu_figures f;
    figures(t, 0, &f);
    assert_figure(f.steal_pct, 10, "steal_pct", 0);
    figures(t, 1, &f);
    assert_figure(f.steal_pct, 0, "steal_pct", 1);
    telemetry_close(t);
}

static void test_telemetry_steal_of_bare_metal_is_zero(void **state)
{
    struct replay r;
    replay_prepare(&r, *state, "vm", "0-1");
    write_text(*state, "/proc/cpuinfo",
               "processor\t: 0\ncpu MHz\t\t: 2096.011\nflags\t\t: fpu vme tsc msr\n\n"
               "processor\t: 1\ncpu MHz\t\t: 2096.011\nflags\t\t: fpu vme tsc msr\n");
    write_stat_steal(*state, 0, 0);
    struct telemetry *t = replay_start(&r, true, "6.18.44-fc-v1045");
    assert_source(t, TELEMETRY_STEAL, "proc-stat");
    telemetry_close(t);
}

static void test_telemetry_steal_of_a_xen_guest_without_it_is_unknown(void **state)
{
    struct replay r;
    replay_prepare(&r, *state, "vm", "0-1");
    write_text(*state, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu\n");
    write_text(*state, "/sys/hypervisor/type", "xen\n");
    write_stat_steal(*state, 0, 0);
    struct telemetry *t = replay_start(&r, true, "6.18.44-fc-v1045");
    assert_absent(t, TELEMETRY_STEAL, NO_STEAL_WHY);
    telemetry_close(t);
}

/* ---- the frequency is named by its source ------------------------------- */

static void test_telemetry_frequency_named_by_its_source(void **state)
{
    (void)state;
    assert_string_equal(telemetry_freq_column("perf-msr"), "Avg_MHz");
    assert_string_equal(telemetry_freq_column("msr"), "Avg_MHz");
    assert_string_equal(telemetry_freq_column("cpufreq-requested"), "Req_MHz");
    assert_string_equal(telemetry_freq_column("cpuinfo"), "CPU_MHz");
    assert_string_equal(telemetry_freq_column(NULL), "Avg_MHz");
    assert_non_null(strstr(telemetry_freq_meaning("msr"), "cycles run per microsecond"));
    assert_non_null(strstr(telemetry_freq_meaning("cpufreq-requested"), "asked for"));
    assert_non_null(strstr(telemetry_freq_meaning("cpufreq-requested"), "not cycles run"));
    assert_non_null(strstr(telemetry_freq_meaning("cpuinfo"), "/proc/cpuinfo"));
    assert_non_null(strstr(telemetry_freq_meaning("cpuinfo"), "not cycles run"));
}

static void test_telemetry_busy_falls_back_to_ticks_and_says_so(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "vm", "0-1", true, "6.18.44-fc-v1045");
    /* no /proc/schedstat and nobody's thread to follow: tick samples */
    assert_source(t, TELEMETRY_BUSY_PCT, "proc-stat-ticks");
    telemetry_close(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, temp_tree_setup, temp_tree_teardown)
        T(test_telemetry_busy_from_schedstat_run_time),
        T(test_telemetry_busy_from_the_measured_threads_without_schedstat),
        T(test_telemetry_busy_of_threads_that_ended_before_the_last_snapshot),
        T(test_telemetry_busy_falls_back_to_ticks_and_says_so),
        T(test_telemetry_steal_of_a_vm_that_reports_it),
        T(test_telemetry_frequency_named_by_its_source),
        T(test_telemetry_steal_of_bare_metal_is_zero),
        T(test_telemetry_steal_of_a_xen_guest_without_it_is_unknown),
        T(test_telemetry_vm_sources_and_reasons),
        T(test_telemetry_vm_figures_from_the_recorded_pair),
        T(test_telemetry_absent_line_groups_figures_by_reason),
        T(test_telemetry_absent_line_names_only_what_is_missing),
        T(test_telemetry_intel_sources_are_the_msrs_and_sensors),
        T(test_telemetry_intel_figures_follow_turbostat_definitions),
        T(test_telemetry_intel_top_eight_irqs_by_count_then_file_order),
        T(test_telemetry_irq_line_that_appears_counts_from_zero),
        T(test_telemetry_intel_softirqs_by_vector),
        T(test_telemetry_intel_quiet_refuses_every_read_that_interrupts),
        T(test_telemetry_quiet_before_5_18_refuses_cpufreq_too),
        T(test_telemetry_only_the_cpus_asked_for),
        T(test_telemetry_first_snapshot_has_no_figures),
        T(test_telemetry_amd_two_packages_k10temp_tdie_per_package),
        T(test_telemetry_amd_quiet_keeps_k10temp_which_interrupts_nobody),
        cmocka_unit_test(test_kernel_release_at_least_compares_major_then_minor),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
