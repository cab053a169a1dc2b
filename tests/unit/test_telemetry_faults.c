/*
 * Telemetry (src/telemetry/) when the files are not what the kernel writes
 * or change under it: the garbage fixture pair (tests/fixtures/stat/
 * garbage), counters that go backwards (absent figure, never a huge one),
 * a CPU that loses its column, files that vanish, the RAPL counter without
 * a known range, and the quiet promise (no read that interrupts a measured
 * CPU) where sources mix. The well-formed pairs are in test_telemetry.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_tree.h"

#include "test_replay.h"

static bool has_note(const struct telemetry *t, const char *path, const char *reason)
{
    const struct read_notes *n = telemetry_notes(t);
    for (int i = 0; i < n->count; i++)
        if (strcmp(n->note[i].path, path) == 0 &&
            (!reason || strstr(n->note[i].reason, reason) != NULL))
            return true;
    return false;
}

static void list_notes(const struct telemetry *t)
{
    const struct read_notes *n = telemetry_notes(t);
    for (int i = 0; i < n->count; i++)
        print_message("note: %s: %s\n", n->note[i].path, n->note[i].reason);
}

#define assert_note(t, path, reason)                                                               \
    do {                                                                                           \
        if (!has_note(t, path, reason)) {                                                          \
            list_notes(t);                                                                         \
            fail_msg("no note for %s (%s)", path, reason ? reason : "any reason");                 \
        }                                                                                          \
    } while (0)

/* A fixture /dev/cpu/N/msr (tests/fixtures/stat/make_fixtures.py):
 * register R at byte 8 x R. */
static void write_msr(const char *root, int cpu, uint64_t tsc, uint32_t smi, uint64_t mperf,
                      uint64_t aperf)
{
    uint8_t b[8 * 0xE8 + 8] = {0};
    const struct {
        unsigned reg;
        uint64_t v;
    } regs[] = {{0x10, tsc}, {0x34, smi}, {0xE7, mperf}, {0xE8, aperf}};
    for (size_t r = 0; r < sizeof regs / sizeof regs[0]; r++)
        for (int i = 0; i < 8; i++)
            b[8 * regs[r].reg + (unsigned)i] = (uint8_t)(regs[r].v >> (8 * i));
    char rel[64];
    snprintf(rel, sizeof rel, "/dev/cpu/%d/msr", cpu);
    write_file(root, rel, b, sizeof b);
}

static void remove_file(const char *root, const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s", root, rel);
    if (unlink(path) != 0)
        fail_msg("unlink %s: %s", path, strerror(errno));
}

/* ---- the garbage pair ----------------------------------------------------- */

static void test_telemetry_garbage_sources_say_what_is_missing(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "garbage", "0-1", false, "6.1.0-18-amd64");
    assert_absent(t, TELEMETRY_AVG_MHZ,
                  "no APERF, no cpufreq scaling_cur_freq, no cpu MHz in /proc/cpuinfo");
    assert_absent(t, TELEMETRY_BUSY_PCT,
                  "no MPERF/TSC, and /proc/stat missing or not in the kernel's format");
    assert_absent(t, TELEMETRY_TSC_MHZ, "/dev/cpu/N/msr: no TSC register");
    assert_absent(t, TELEMETRY_BZY_MHZ, "/dev/cpu/N/msr: no APERF register");
    assert_absent(t, TELEMETRY_SMI, "/dev/cpu/N/msr: no SMI count register");
    assert_source(t, TELEMETRY_IDLE, "cpuidle");
    assert_absent(t, TELEMETRY_IRQS, "/proc/interrupts missing, or not in the kernel's format");
    assert_source(t, TELEMETRY_SOFTIRQS, "proc-softirqs");
    assert_absent(t, TELEMETRY_CPU_TIME, "/proc/stat missing, or not in the kernel's format");
    assert_source(t, TELEMETRY_PKG_TEMP, "hwmon-coretemp");
    assert_source(t, TELEMETRY_CORE_TEMP, "hwmon-coretemp");
    assert_source(t, TELEMETRY_PKG_POWER, "powercap");
    /* every file that held garbage is named once */
    assert_note(t, "/proc/stat", "a cpu line that is not 4 or more numbers");
    assert_note(t, "/proc/interrupts", "no CPU header line");
    assert_note(t, "/sys/class/hwmon/hwmon0/temp2_label", "not a coretemp label");
    assert_note(t, "/sys/class/hwmon/hwmon0/temp3_input", "not a number: 'hot'");
    assert_note(t, "/sys/class/powercap/intel-rapl:0/energy_uj", "not a number: '12abc'");
    assert_note(t, "/sys/class/powercap/intel-rapl:1/name", "not a RAPL domain name");
    assert_note(t, "/sys/devices/system/cpu/cpu1/cpuidle/state1/usage", "not a number: 'many'");
    telemetry_close(t);
}

static void test_telemetry_garbage_figures_are_absent_not_invented(void **state)
{
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "garbage", "0-1", false, "6.1.0-18-amd64");
    replay_step(&r, "garbage", "t1");
    assert_int_equal(telemetry_system_ctxt(t), -1); /* the file did not parse */
    for (int i = 0; i < 2; i++) {
        struct telemetry_cpu_figures f;
        telemetry_cpu_delta(t, i, &f);
        assert_figure(f.avg_mhz, NAN, "avg_mhz", i);
        assert_figure(f.busy_pct, NAN, "busy_pct", i);
        assert_figure(f.tsc_mhz, NAN, "tsc_mhz", i);
        assert_figure(f.steal_pct, NAN, "steal_pct", i);
        assert_int_equal(f.irqs, -1);
        assert_int_equal(f.nirq, 0);
        assert_figure(f.pkg_temp_c, 51, "pkg_temp_c", i);
        /* "Core x" is no core; "Core 1" reads "hot" */
        assert_figure(f.core_temp_c, NAN, "core_temp_c", i);
        assert_figure(f.pkg_watts, NAN, "pkg_watts", i);
        assert_int_equal(f.nidle, 2);
        assert_figure(f.idle[0].residency_pct, 0.02, "POLL", i);
        assert_int_equal(f.idle[0].entries, 10);
    }
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 1, &f);
    assert_figure(f.idle[1].residency_pct, NAN, "C1 (usage 'many')", 1);
    /* softirqs: the rows that parse; CPU 1's TIMER column is "x3"/"x5" */
    assert_int_equal(f.softirqs, 2);
    assert_int_equal(f.softirq[1], 0);
    telemetry_cpu_delta(t, 0, &f);
    assert_int_equal(f.softirqs, 8 + 4);
    assert_int_equal(f.softirq[1], 8);
    assert_int_equal(f.softirq[2], 4);
    telemetry_close(t);
}

static void test_telemetry_negative_idle_time_is_garbage_not_a_residency(void **state)
{
    /* garbage/: cpu0 state1 time is -5000 at t0 and 195000 at t1; the kernel
     * prints an unsigned count, so -5000 is garbage: the residency is absent
     * and the file noted, not (195000 + 5000) / 1 s = 20 %. */
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "garbage", "0-1", false, "6.1.0-18-amd64");
    replay_step(&r, "garbage", "t1");
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_string_equal(f.idle[1].name, "C1");
    assert_figure(f.idle[1].residency_pct, NAN, "C1 residency from a negative time", 0);
    assert_note(t, "/sys/devices/system/cpu/cpu0/cpuidle/state1/time", NULL);
    telemetry_close(t);
}

static void test_telemetry_idle_time_credited_late_is_at_most_the_window(void **state)
{
    /* garbage/t2: cpu0's C1 is credited 3 s in a 1 s window (an idle period
     * that began before it, added by the kernel when it ended) */
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "garbage", "0-1", false, "6.1.0-18-amd64");
    replay_step(&r, "garbage", "t1");
    replay_step(&r, "garbage", "t2");
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_string_equal(f.idle[1].name, "C1");
    assert_figure(f.idle[1].residency_pct, 100, "C1 residency credited late", 0);
    assert_int_equal(f.idle[1].entries, 1);
    telemetry_close(t);
}

static void test_telemetry_msr_registers_count_on_the_cpus_asked_for(void **state)
{
    /* garbage/: cpu0's file ends right after the TSC, cpu1's is 4 bytes */
    struct replay r;
    struct telemetry *t = replay_open(&r, *state, "garbage", "0", false, "6.1.0-18-amd64");
    assert_source(t, TELEMETRY_TSC_MHZ, "msr");
    assert_absent(t, TELEMETRY_BZY_MHZ, "/dev/cpu/N/msr: no APERF register");
    assert_absent(t, TELEMETRY_SMI, "/dev/cpu/N/msr: no SMI count register");
    replay_step(&r, "garbage", "t1");
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_figure(f.tsc_mhz, 0.001, "tsc_mhz (1000 ticks in 1 s)", 0);
    assert_figure(f.avg_mhz, NAN, "avg_mhz", 0);
    telemetry_close(t);
}

/* ---- counters that go backwards -------------------------------------------- */

static void test_telemetry_counter_going_backwards_makes_its_figure_absent(void **state)
{
    const char *root = *state;
    struct replay r;
    struct telemetry *t = replay_open(&r, root, "intel-client", "0-7", false, "6.1.0-18-amd64");
    replay_copy(root, "intel-client", "t1");
    /* CPU 1: APERF and MPERF 1000 below t0's; TSC moved on */
    write_msr(root, 1, 9000000000100 + 3000000000, 1, 4005000000 - 1000, 5007000000 - 1000);
    /* CPU 2: /proc/stat idle below t0's */
    char stat[2048] = "cpu  1 1 1 1 1 1 1 1 1 1\n";
    for (int k = 0; k < 8; k++) {
        char line[160];
        long idle = k == 2 ? 9000000 : 9000000 + 1000 * k + 100;
        snprintf(line, sizeof line, "cpu%d %d %d %d %ld %d %d %d %d %d %d\n", k,
                 100000 + 1000 * k + 1, 500 + k, 40000 + 100 * k, idle, 3000 + k, 2000 + k,
                 1500 + k, 10 + k, 250 + k, 7 + k);
        strcat(stat, line);
    }
    strcat(stat, "ctxt 4999999\n"); /* below t0's 5000000 */
    write_text(root, "/proc/stat", stat);
    /* CPU 3: C8 time below t0's */
    write_text(root, "/sys/devices/system/cpu/cpu3/cpuidle/state4/time", "54000000000\n");
    r.now_ns += NS_PER_S;
    telemetry_snapshot(t);

    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 1, &f);
    assert_figure(f.tsc_mhz, 3000, "tsc_mhz", 1);
    assert_figure(f.avg_mhz, NAN, "avg_mhz (APERF back)", 1);
    assert_figure(f.busy_pct, NAN, "busy_pct (MPERF back)", 1);
    assert_figure(f.bzy_mhz, NAN, "bzy_mhz", 1);
    telemetry_cpu_delta(t, 2, &f);
    assert_figure(f.steal_pct, NAN, "steal_pct (idle ticks back)", 2);
    assert_figure(f.irq_pct, NAN, "irq_pct", 2);
    assert_figure(f.softirq_pct, NAN, "softirq_pct", 2);
    assert_figure(f.busy_pct, 70, "busy_pct (from the MSRs, untouched)", 2);
    telemetry_cpu_delta(t, 3, &f);
    assert_figure(f.idle[4].residency_pct, NAN, "C8 (time back)", 3);
    assert_figure(f.idle[3].residency_pct, 7, "C6", 3);
    assert_figure(f.steal_pct, 0, "steal_pct", 3);
    telemetry_cpu_delta(t, 4, &f);
    assert_figure(f.steal_pct, 0, "steal_pct (100 idle ticks only)", 4);
    assert_int_equal(telemetry_system_ctxt(t), -1);
    telemetry_close(t);
}

static void test_telemetry_irq_count_that_restarts_counts_from_zero(void **state)
{
    /* a line whose count is below the last one was freed and requested again
     * between the snapshots: what it shows now is what it took */
    const char *root = *state;
    struct replay r;
    struct telemetry *t = replay_open(&r, root, "intel-client", "0", false, "6.1.0-18-amd64");
    write_text(root, "/proc/interrupts",
               "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6  "
               "     CPU7       \n"
               "125:          5          0          0          0          0          0          0 "
               "         0  IR-PCI-MSIX-0000:01:00.0   1-edge      nvme0q1\n");
    r.now_ns += NS_PER_S;
    telemetry_snapshot(t);
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_int_equal(f.irqs, 5);
    assert_int_equal(f.nirq, 1);
    assert_string_equal(f.irq[0].name, "nvme0q1");
    telemetry_close(t);
}

/* Interrupt and softirq counts on CPU0 and CPU1 of one snapshot: line 125
 * (nvme0q1) and LOC on both, TIMER and SCHED on CPU0 (the other columns
 * 0). */
struct irq_counts {
    uint64_t nvme[2], loc[2], timer, sched;
};

static void write_irq_counts(const char *root, const struct irq_counts *c)
{
    char text[1024];
    snprintf(text, sizeof text,
             "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6  "
             "     CPU7       \n"
             "125: %10llu %10llu 0 0 0 0 0 0  IR-PCI-MSIX-0000:01:00.0   1-edge      nvme0q1\n"
             "LOC: %10llu %10llu 0 0 0 0 0 0   Local timer interrupts\n",
             (unsigned long long)c->nvme[0], (unsigned long long)c->nvme[1],
             (unsigned long long)c->loc[0], (unsigned long long)c->loc[1]);
    write_text(root, "/proc/interrupts", text);
    snprintf(text, sizeof text,
             "                    CPU0       CPU1\n"
             "       TIMER: %10llu          0\n"
             "       SCHED: %10llu          0\n",
             (unsigned long long)c->timer, (unsigned long long)c->sched);
    write_text(root, "/proc/softirqs", text);
}

/* Telemetry on intel-client CPUs 0-1 whose first snapshot sees `before`
 * and whose second, one second later, sees `after`. */
static struct telemetry *irq_pair(struct replay *r, const char *root,
                                  const struct irq_counts *before, const struct irq_counts *after)
{
    replay_prepare(r, root, "intel-client", "0-1");
    write_irq_counts(root, before);
    struct telemetry *t = replay_start(r, false, "6.1.0-18-amd64");
    write_irq_counts(root, after);
    r->now_ns += NS_PER_S;
    telemetry_snapshot(t);
    return t;
}

/* CPU index i took total interrupts in the window, from two sources: first
 * (its id or its device name) with n_first, then second with n_second. */
static void assert_two_irq_sources(const struct telemetry *t, int i, int64_t total,
                                   const char *first, uint64_t n_first, const char *second,
                                   uint64_t n_second)
{
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, i, &f);
    assert_int_equal(f.irqs, total);
    assert_int_equal(f.nirq, 2);
    const char *what[2] = {first, second};
    const uint64_t count[2] = {n_first, n_second};
    for (int k = 0; k < 2; k++) {
        if (strcmp(f.irq[k].id, what[k]) != 0 && strcmp(f.irq[k].name, what[k]) != 0)
            fail_msg("top irq %d: %s (%s), expected %s", k, f.irq[k].id, f.irq[k].name, what[k]);
        assert_int_equal(f.irq[k].count, count[k]);
    }
}

static int softirq_index(const struct telemetry *t, const char *name)
{
    for (int k = 0; k < telemetry_softirq_count(t); k++)
        if (strcmp(telemetry_softirq_name(t, k), name) == 0)
            return k;
    fail_msg("no softirq vector %s", name);
    return -1;
}

static void test_telemetry_irq_count_that_wraps_at_32_bits_counts_across_the_top(void **state)
{
    /* the per-CPU counts are unsigned int in the kernel: 4294967290 -> 10
     * is 16 interrupts, not 10; 4294967295 -> 99 is 100 softirqs */
    struct replay r;
    const struct irq_counts t0 = {{4294967290u, 1000}, {4294967295u, 7}, 4294967295u, 4294967200u};
    const struct irq_counts t1 = {{10, 1005}, {99, 9}, 99, 4};
    struct telemetry *t = irq_pair(&r, *state, &t0, &t1);

    assert_two_irq_sources(t, 0, 16 + 100, "LOC", 100, "nvme0q1", 16);
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_int_equal(f.softirqs, 100 + 100);
    assert_int_equal(f.softirq[softirq_index(t, "TIMER")], 100);
    assert_int_equal(f.softirq[softirq_index(t, "SCHED")], 100);
    assert_two_irq_sources(t, 1, 5 + 2, "nvme0q1", 5, "LOC", 2); /* no wrap: differences */
    telemetry_close(t);
}

static void test_telemetry_irq_count_reset_is_not_taken_for_a_wrap(void **state)
{
    /* A fall that a 32-bit wrap cannot explain is a restart, counted from
     * zero: a count above 2^32 (the kernel keeps 64 bits), or a wrap that
     * would mean more than 2^31 interrupts in one second. */
    struct replay r;
    const struct irq_counts t0 = {{UINT64_C(4294967396), 1000}, {3000, 7}, 5000, 0};
    const struct irq_counts t1 = {{50, 1005}, {20, 9}, 40, 0};
    struct telemetry *t = irq_pair(&r, *state, &t0, &t1);

    assert_two_irq_sources(t, 0, 50 + 20, "nvme0q1", 50, "LOC", 20);
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_int_equal(f.softirq[softirq_index(t, "TIMER")], 40);
    telemetry_close(t);
}

static void test_telemetry_smi_count_that_falls_a_little_is_reset_not_wrapped(void **state)
{
    /* the SMI count is 32 bits: 0xffffffff -> 1 wrapped (test_telemetry.c);
     * 0xf0000001 -> 0xf0000000 did not take 2^32 - 1 SMIs in a second */
    const char *root = *state;
    struct replay r;
    replay_prepare(&r, root, "intel-client", "0-1");
    write_msr(root, 0, 9000000000000, 0xF0000001u, 4000000000, 5000000000);
    write_msr(root, 1, 9000000000100, 0x7FFFFFF0u, 4005000000, 5007000000);
    struct telemetry *t = replay_start(&r, false, "6.1.0-18-amd64");
    assert_source(t, TELEMETRY_SMI, "msr");
    write_msr(root, 0, 9000000000000 + 3000000000, 0xF0000000u, 4001000000, 5001200000);
    write_msr(root, 1, 9000000000100 + 3000000000, 0x10, 4006000000, 5008200000);
    r.now_ns += NS_PER_S;
    telemetry_snapshot(t);

    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_int_equal(f.smi, -1);
    assert_figure(f.tsc_mhz, 3000, "tsc_mhz (untouched)", 0);
    telemetry_cpu_delta(t, 1, &f);
    assert_int_equal(f.smi, -1);
    telemetry_close(t);
}

static void test_telemetry_rapl_backwards_without_a_range_is_absent(void **state)
{
    /* without max_energy_range_uj a counter that went back cannot be
     * unwrapped: the power is unknown, not 0 W */
    const char *root = *state;
    struct replay r;
    replay_prepare(&r, root, "intel-client", "0");
    remove_file(root, "/sys/class/powercap/intel-rapl:0/max_energy_range_uj");
    struct telemetry *t = replay_start(&r, false, "6.1.0-18-amd64");
    assert_source(t, TELEMETRY_PKG_POWER, "powercap");
    replay_step(&r, "intel-client", "t1");
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_figure(f.pkg_watts, NAN, "pkg_watts (energy_uj back, range unknown)", 0);
    telemetry_close(t);
}

/* ---- CPUs and files that go away ----------------------------------------------- */

static void test_telemetry_cpu_that_loses_its_column_has_no_counts(void **state)
{
    /* CPU 7 went offline between t0 and t1: no column in the tables, no
     * cpu7 line in /proc/stat. Its counts are unknown (-1), not 0. */
    const char *root = *state;
    struct replay r;
    struct telemetry *t = replay_open(&r, root, "intel-client", "6-7", false, "6.1.0-18-amd64");
    replay_copy(root, "intel-client", "t1");
    write_text(root, "/proc/interrupts",
               "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6  "
               "     \n"
               "LOC:     903662     511153    2004411      80416    1200845     300183    1901454  "
               " Local timer interrupts\n");
    write_text(
        root, "/proc/softirqs",
        "                    CPU0       CPU1       CPU2       CPU3       CPU4       CPU5      "
        " CPU6       \n"
        "       TIMER:     400020     400020     400080     400032     400080     400055     "
        "400115\n");
    write_text(root, "/proc/stat",
               "cpu  1 1 1 1 1 1 1 1 1 1\n"
               "cpu6 106050 516 40610 9006025 3007 2007 1507 18 264 16\n");
    r.now_ns += NS_PER_S;
    telemetry_snapshot(t);
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_int_equal(f.cpu, 6);
    assert_int_equal(f.irqs, 998);
    assert_int_equal(f.softirqs, 55);
    assert_figure(f.steal_pct, 2, "steal_pct", 6);
    telemetry_cpu_delta(t, 1, &f);
    assert_int_equal(f.cpu, 7);
    assert_figure(f.steal_pct, NAN, "steal_pct (no cpu7 line)", 7);
    assert_int_equal(f.nirq, 0);
    assert_int_equal(f.irqs, -1);
    assert_int_equal(f.softirqs, -1);
    telemetry_close(t);
}

static void test_telemetry_cpu_that_gains_its_column_has_no_counts_yet(void **state)
{
    /* CPU 7 came online between t0 and t1: t0's tables have no column for
     * it, t1's show what it counted before it went offline (LOC 60024 ...).
     * That is no interval's count: unknown (-1), not the lifetime totals. A
     * row that appears is different: a new line starts at zero. */
    const char *root = *state;
    struct replay r;
    replay_prepare(&r, root, "intel-client", "6-7");
    write_text(root, "/proc/interrupts",
               "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6  "
               "     \n"
               "LOC:     903412     511023    2003411      80412    1200345     300123    1900456  "
               " Local timer interrupts\n");
    struct telemetry *t = replay_start(&r, false, "6.1.0-18-amd64");
    replay_copy(root, "intel-client", "t1");
    write_text(root, "/proc/interrupts",
               "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6  "
               "     CPU7       \n"
               "LOC:     903662     511153    2004411      80416    1200845     300183    1901454  "
               "    60024   Local timer interrupts\n");
    r.now_ns += NS_PER_S;
    telemetry_snapshot(t);
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_int_equal(f.cpu, 6);
    assert_int_equal(f.irqs, 998); /* LOC, as in the full pair */
    telemetry_cpu_delta(t, 1, &f);
    assert_int_equal(f.cpu, 7);
    if (f.irqs != -1)
        fail_msg("CPU 7 irqs %lld (its lifetime counts), want -1", (long long)f.irqs);
    telemetry_close(t);
}

static void test_telemetry_files_that_vanish_leave_their_figures_absent(void **state)
{
    const char *root = *state;
    struct replay r;
    struct telemetry *t = replay_open(&r, root, "intel-client", "0-1", false, "6.1.0-18-amd64");
    replay_copy(root, "intel-client", "t1");
    remove_file(root, "/proc/interrupts");
    remove_file(root, "/proc/stat");
    remove_file(root, "/sys/class/hwmon/hwmon2/temp2_input");
    remove_file(root, "/sys/class/powercap/intel-rapl:0/energy_uj");
    remove_file(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
    r.now_ns += NS_PER_S;
    telemetry_snapshot(t);
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_int_equal(f.irqs, -1);
    assert_figure(f.steal_pct, NAN, "steal_pct", 0);
    assert_int_equal(telemetry_system_ctxt(t), -1);
    assert_figure(f.core_temp_c, NAN, "core_temp_c (Core 0 gone)", 0);
    assert_figure(f.pkg_temp_c, 46, "pkg_temp_c", 0);
    assert_figure(f.pkg_watts, NAN, "pkg_watts", 0);
    assert_int_equal(f.softirqs, 141);
    assert_figure(f.busy_pct, 34, "busy_pct (MSRs)", 0);
    telemetry_cpu_delta(t, 1, &f);
    assert_figure(f.core_temp_c, 44, "core_temp_c", 1);
    telemetry_close(t);
}

/* ---- sensors: the package of a core and the name of a source ---------------- */

static void test_telemetry_coretemp_without_package_label_still_gives_core_temps(void **state)
{
    /* coretemp on CPUs without the package thermal sensor (Core 2, before
     * PTS) has only "Core N" labels; each coretemp device is one package,
     * and this machine has one: the core temperatures are there. */
    const char *root = *state;
    struct replay r;
    replay_prepare(&r, root, "intel-client", "0-7");
    remove_file(root, "/sys/class/hwmon/hwmon2/temp1_label");
    remove_file(root, "/sys/class/hwmon/hwmon2/temp1_input");
    struct telemetry *t = replay_start(&r, false, "6.1.0-18-amd64");
    assert_source(t, TELEMETRY_CORE_TEMP, "hwmon-coretemp");
    r.now_ns += NS_PER_S;
    telemetry_snapshot(t);
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 1, &f);
    assert_figure(f.core_temp_c, 43, "core_temp_c (Core 1 at t0)", 1);
    telemetry_close(t);
}

static void test_telemetry_pkg_temp_source_names_the_sensor_it_reads(void **state)
{
    /* same tree: no coretemp package sensor, so the package temperature
     * comes from thermal_zone1 (x86_pkg_temp, 51 °C at t0); its source must
     * say so */
    const char *root = *state;
    struct replay r;
    replay_prepare(&r, root, "intel-client", "0");
    remove_file(root, "/sys/class/hwmon/hwmon2/temp1_label");
    remove_file(root, "/sys/class/hwmon/hwmon2/temp1_input");
    struct telemetry *t = replay_start(&r, false, "6.1.0-18-amd64");
    r.now_ns += NS_PER_S;
    telemetry_snapshot(t);
    struct telemetry_cpu_figures f;
    telemetry_cpu_delta(t, 0, &f);
    assert_figure(f.pkg_temp_c, 51, "pkg_temp_c (x86_pkg_temp)", 0);
    assert_source(t, TELEMETRY_PKG_TEMP, "thermal");
    telemetry_close(t);
}

/* ---- quiet --------------------------------------------------------------------- */

static void test_telemetry_quiet_never_reads_rapl_even_with_k10temp(void **state)
{
    /* AMD publishes package energy through powercap intel-rapl:N too, read
     * by IPI like Intel's. With k10temp (no IPI) in use, a quiet snapshot
     * must still leave energy_uj alone: garbage written into it after open
     * must not be read (no note). */
    const char *root = *state;
    static const char *const rapl = "/sys/class/powercap/intel-rapl:0";
    for (int quiet = 0; quiet <= 1; quiet++) {
        struct replay r;
        replay_prepare(&r, root, "amd-epyc", "0-7");
        write_text(root, "/sys/class/powercap/intel-rapl:0/name", "package-0\n");
        write_text(root, "/sys/class/powercap/intel-rapl:0/max_energy_range_uj", "65532610987\n");
        write_text(root, "/sys/class/powercap/intel-rapl:0/energy_uj", "1000\n");
        struct telemetry *t = replay_start(&r, quiet != 0, "6.8.0-51-generic");
        write_text(root, "/sys/class/powercap/intel-rapl:0/energy_uj", "read-me\n");
        r.now_ns += NS_PER_S;
        telemetry_snapshot(t);
        char path[128];
        snprintf(path, sizeof path, "%s/energy_uj", rapl);
        if (!quiet) {
            assert_source(t, TELEMETRY_PKG_POWER, "powercap");
            assert_note(t, path, NULL); /* the check sees a read */
        } else {
            assert_null(telemetry_source(t, TELEMETRY_PKG_POWER)->name);
            assert_source(t, TELEMETRY_PKG_TEMP, "hwmon-k10temp");
            if (has_note(t, path, NULL))
                fail_msg("quiet snapshot read %s (RAPL, by IPI)", path);
        }
        telemetry_close(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, temp_tree_setup, temp_tree_teardown)
        T(test_telemetry_garbage_sources_say_what_is_missing),
        T(test_telemetry_garbage_figures_are_absent_not_invented),
        T(test_telemetry_negative_idle_time_is_garbage_not_a_residency),
        T(test_telemetry_idle_time_credited_late_is_at_most_the_window),
        T(test_telemetry_msr_registers_count_on_the_cpus_asked_for),
        T(test_telemetry_counter_going_backwards_makes_its_figure_absent),
        T(test_telemetry_irq_count_that_restarts_counts_from_zero),
        T(test_telemetry_irq_count_that_wraps_at_32_bits_counts_across_the_top),
        T(test_telemetry_irq_count_reset_is_not_taken_for_a_wrap),
        T(test_telemetry_smi_count_that_falls_a_little_is_reset_not_wrapped),
        T(test_telemetry_rapl_backwards_without_a_range_is_absent),
        T(test_telemetry_cpu_that_loses_its_column_has_no_counts),
        T(test_telemetry_cpu_that_gains_its_column_has_no_counts_yet),
        T(test_telemetry_files_that_vanish_leave_their_figures_absent),
        T(test_telemetry_coretemp_without_package_label_still_gives_core_temps),
        T(test_telemetry_pkg_temp_source_names_the_sensor_it_reads),
        T(test_telemetry_quiet_never_reads_rapl_even_with_k10temp),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
