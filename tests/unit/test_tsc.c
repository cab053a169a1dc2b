/*
 * The TSC check below the command (src/crosscpu/tsc_verdict.c, tsc_check.c):
 * warps found in synthetic sequences with their size, offsets recovered
 * from synthetic round trips within their bound (the smallest round trip
 * chosen), rate spreads, the kernel's TSC lines classified, each rule of
 * the verdict on its own, the pair plan for 1 to 256 CPUs, the static part
 * read from the fixture trees, and a short live warp test that reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crosscpu/tsc_check.h"
#include "crosscpu/tsc_verdict.h"
#include "test_fixture.h"

/* ---- warps ---------------------------------------------------------------- */

static void test_warp_scan_of_a_rising_sequence_finds_none(void **state)
{
    (void)state;
    uint64_t seq[] = {100, 100, 101, 5000, 5001, 1ull << 40};
    struct tsc_warp_count w;
    tsc_warp_scan(seq, 6, &w);
    assert_int_equal(w.reads, 5);
    assert_int_equal(w.warps, 0);
    assert_int_equal(w.max_warp_cycles, 0);
    tsc_warp_scan(seq, 0, &w);
    assert_int_equal(w.reads, 0);
    tsc_warp_scan(seq, 1, &w);
    assert_int_equal(w.reads, 0);
}

static void test_warp_scan_finds_a_planted_backwards_step_and_its_size(void **state)
{
    (void)state;
    uint64_t seq[] = {1000, 1100, 1200, 1163, 1300, 1400};
    struct tsc_warp_count w;
    tsc_warp_scan(seq, 6, &w);
    assert_int_equal(w.warps, 1);
    assert_int_equal(w.max_warp_cycles, 37);
    /* two steps: counted both, the larger kept */
    uint64_t two[] = {10, 20, 5, 30, 29, 40};
    tsc_warp_scan(two, 6, &w);
    assert_int_equal(w.warps, 2);
    assert_int_equal(w.max_warp_cycles, 15);
}

/* Two CPUs taking turns: B's TSC runs 30 cycles behind A's, the handoff
 * takes 10 cycles, so every read of B after A steps back by 20. */
static void test_warp_interleaved_cpus_with_an_offset_step_back(void **state)
{
    (void)state;
    struct tsc_warp_count a = {0}, b = {0};
    uint64_t t = 1000000, last = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t va = t;
        tsc_warp_observe(&a, last, va);
        last = va;
        t += 10;
        uint64_t vb = t - 30;
        tsc_warp_observe(&b, last, vb);
        last = vb;
        t += 10;
    }
    assert_int_equal(a.warps, 0);
    assert_int_equal(b.warps, 100);
    assert_int_equal(b.max_warp_cycles, 20);
    struct tsc_warp_count all = a;
    tsc_warp_merge(&all, &b);
    assert_int_equal(all.reads, 200);
    assert_int_equal(all.warps, 100);
    assert_int_equal(all.max_warp_cycles, 20);
}

/* ---- offsets -------------------------------------------------------------- */

static void test_offset_recovered_within_the_bound_from_the_min_rtt(void **state)
{
    (void)state;
    const int64_t truth = 517; /* the other CPU is 517 cycles ahead */
    /* each round: request delay d1, answer delay d2 */
    const struct {
        uint64_t d1, d2;
    } rounds[] = {{400, 900}, {350, 310}, {2000, 40}, {180, 260}, {700, 700}, {190, 900}};
    struct tsc_offset_est e;
    tsc_offset_init(&e);
    uint64_t t0 = 1000000;
    for (size_t i = 0; i < sizeof rounds / sizeof rounds[0]; i++, t0 += 100000) {
        uint64_t tk = t0 + rounds[i].d1 + (uint64_t)truth;
        uint64_t t1 = t0 + rounds[i].d1 + rounds[i].d2;
        tsc_offset_add(&e, t0, tk, t1);
    }
    assert_true(e.valid);
    assert_int_equal(e.samples, 6);
    assert_int_equal(e.rtt_min_cycles, 440); /* {180, 260} */
    assert_int_equal(e.bound_cycles, 220);
    assert_int_equal(e.offset_cycles, truth + 180 - 220); /* tk - midpoint */
    assert_true(llabs(e.offset_cycles - truth) <= (long long)e.bound_cycles);
    assert_int_equal(tsc_offset_excess(&e), (uint64_t)(477 - 220));
}

static void test_offset_behind_odd_rtt_and_rejected_rounds(void **state)
{
    (void)state;
    struct tsc_offset_est e;
    tsc_offset_init(&e);
    assert_int_equal(tsc_offset_excess(&e), 0); /* nothing yet */
    tsc_offset_add(&e, 5000, 4000, 4999);       /* t1 < t0: the reference went back */
    assert_false(e.valid);
    assert_int_equal(e.rejected, 1);
    /* 3000 cycles behind, rtt 101: bound rounds up to 51 */
    tsc_offset_add(&e, 10000, 10050 - 3000, 10101);
    assert_true(e.valid);
    assert_int_equal(e.rtt_min_cycles, 101);
    assert_int_equal(e.bound_cycles, 51);
    assert_int_equal(e.offset_cycles, 50 - 3000 - 50);
    assert_int_equal(tsc_offset_excess(&e), 3000 - 51);
    /* synchronised, and the bound holds zero */
    tsc_offset_init(&e);
    tsc_offset_add(&e, 100, 160, 200);
    assert_int_equal(e.offset_cycles, 10);
    assert_int_equal(tsc_offset_excess(&e), 0);
    /* offsets near the counter's wrap stay signed */
    tsc_offset_init(&e);
    tsc_offset_add(&e, UINT64_MAX - 100, 50, UINT64_MAX - 100 + 40);
    assert_int_equal(e.offset_cycles, 151 - 20);
}

/* ---- rates ---------------------------------------------------------------- */

static void test_rate_summary_spread_and_tolerance(void **state)
{
    (void)state;
    struct tsc_rate r[3] = {
        {true, 2096.011e6, 500, 0.15}, {true, 2096.012e6, 500, 0.15}, {false, 0, 0, 0}};
    struct tsc_rate_summary s;
    tsc_rate_summarize(r, 3, &s);
    assert_int_equal(s.n, 2);
    assert_true(s.spread_ppm > 0.4 && s.spread_ppm < 0.5);
    assert_true(s.allowed_ppm > TSC_RATE_TOLERANCE_PPM && s.allowed_ppm < 101);
    assert_false(s.disagree);
    r[1].hz = 2096.011e6 * (1 + 250e-6); /* 250 ppm faster */
    tsc_rate_summarize(r, 3, &s);
    assert_true(s.disagree);
    /* the same spread with a large uncertainty is not evidence */
    r[0].uncertainty_hz = r[1].uncertainty_hz = 2096e6 * 100e-6;
    tsc_rate_summarize(r, 3, &s);
    assert_false(s.disagree);
    /* one rate: nothing to disagree with */
    tsc_rate_summarize(r, 1, &s);
    assert_int_equal(s.n, 1);
    assert_false(s.disagree);
    tsc_rate_summarize(r + 2, 1, &s);
    assert_int_equal(s.n, 0);
}

/* ---- the kernel log ------------------------------------------------------- */

static void expect_kind(const char *text, enum tsc_kmsg_kind want)
{
    struct tsc_kmsg_match m;
    enum tsc_kmsg_kind got = tsc_kmsg_classify(text, &m);
    if (got != want)
        fail_msg("'%s': kind %d, want %d", text, got, want);
}

static void test_kmsg_lines_classified(void **state)
{
    (void)state;
    struct tsc_kmsg_match m;
    assert_int_equal(tsc_kmsg_classify("tsc: Detected 2096.011 MHz processor", &m),
                     TSC_KMSG_DETECTED);
    assert_true(m.mhz > 2096.010 && m.mhz < 2096.012);
    assert_int_equal(
        tsc_kmsg_classify("tsc: Refined TSC clocksource calibration: 3593.250 MHz", &m),
        TSC_KMSG_REFINED);
    assert_true(m.mhz > 3593.24 && m.mhz < 3593.26);
    assert_int_equal(tsc_kmsg_classify("tsc: Marking TSC unstable due to boot parameter", &m),
                     TSC_KMSG_BOOT_PARAM);
    assert_string_equal(m.reason, "boot parameter");
    expect_kind("tsc: Marking TSC unstable due to clocksource watchdog", TSC_KMSG_WATCHDOG);
    expect_kind("clocksource: timekeeping watchdog on CPU1: Marking clocksource 'tsc' as unstable "
                "because the skew is too large:",
                TSC_KMSG_WATCHDOG);
    expect_kind("clocksource: timekeeping watchdog on CPU227: wd-tsc-wd excessive read-back delay "
                "of 153560ns vs. limit of 125000ns, wd-wd read-back delay only 11440ns, attempt "
                "3, marking tsc unstable",
                TSC_KMSG_WATCHDOG);
    assert_int_equal(tsc_kmsg_classify("Measured 2876 cycles TSC warp between CPUs, turning off "
                                       "TSC clock.",
                                       &m),
                     TSC_KMSG_SYNC_FAILED);
    assert_int_equal(m.warp_cycles, 2876);
    expect_kind("tsc: Marking TSC unstable due to check_tsc_sync_source failed",
                TSC_KMSG_SYNC_FAILED);
    expect_kind("TSC synchronization [CPU#0 -> CPU#3]: failed", TSC_KMSG_SYNC_FAILED);
    expect_kind("clocksource:         CPUs 0-1,3 ahead of CPU 2 for clocksource tsc.",
                TSC_KMSG_SKEW);
    expect_kind("clocksource:         CPUs 5 behind CPU 2 for clocksource tsc.", TSC_KMSG_SKEW);
    assert_int_equal(tsc_kmsg_classify("tsc: Marking TSC unstable due to TSC halts in idle", &m),
                     TSC_KMSG_UNSTABLE);
    assert_string_equal(m.reason, "TSC halts in idle");
    expect_kind("TSC found unstable after boot, most likely due to broken BIOS. Use "
                "'tsc=unstable'.",
                TSC_KMSG_AFTER_BOOT);
    /* what says nothing about the TSC's health */
    expect_kind("TSC deadline timer available", TSC_KMSG_NOTE);
    expect_kind("[Firmware Bug]: TSC doesn't count with P0 frequency!", TSC_KMSG_NOTE);
    expect_kind("TSC synchronization [CPU#0 -> CPU#1]:", TSC_KMSG_NOTE);
    expect_kind("clocksource: Override clocksource tsc is unstable and not HRT compatible - "
                "cannot switch while in HRT/NOHZ mode",
                TSC_KMSG_NOTE);
    expect_kind("clocksource: Checking clocksource tsc synchronization from CPU 1 to CPUs 0.",
                TSC_KMSG_NOTE);
    expect_kind("tsc: Detected garbage MHz", TSC_KMSG_NOTE);
    expect_kind("clocksource: tsc: mask: 0xffffffffffffffff max_cycles: 0x3282124c47b, "
                "max_idle_ns: 440795239402 ns",
                TSC_KMSG_NONE);
    expect_kind("Kernel command line: tsc=unstable clocksource=tsc", TSC_KMSG_NONE);
    expect_kind("Command line: tsc=reliable", TSC_KMSG_NONE);
    expect_kind("sched_clock: Marking unstable (8511381561, -8990127)", TSC_KMSG_NONE);
    expect_kind("x86/cpu: tsc_reliable set", TSC_KMSG_NONE);
    expect_kind("", TSC_KMSG_NONE);
}

/* A crashed program's segfault line starts with its name (at most 15
 * characters) and names its file: neither is the kernel's verdict. */
static void test_kmsg_phrases_quoted_by_other_records_are_not_verdicts(void **state)
{
    (void)state;
    expect_kind("Marking TSC uns[4242]: segfault at 0 ip 0000560a1b2c3139 sp 00007ffc8e1f2a30 "
                "error 6 in Marking TSC unstable due to clocksource watchdog[560a1b2c3000+1000]",
                TSC_KMSG_NONE);
    expect_kind("tsc: x[4243]: segfault at 0 ip 0000560a1b2c3139 sp 00007ffc8e1f2a30 error 6 in "
                "Marking TSC unstable due to clocksource watchdog[560a1b2c3000+1000]",
                TSC_KMSG_NOTE);
    expect_kind("clocksource: x[1]: segfault at 0 in timekeeping watchdog marking tsc unstable",
                TSC_KMSG_NOTE);
    expect_kind("a.out[7]: segfault at 0 in Measured 9 cycles TSC warp between CPUs[5+1]",
                TSC_KMSG_NONE);
    expect_kind("a.out[7]: segfault at 0 in TSC found unstable after boot[5+1]", TSC_KMSG_NONE);
    expect_kind("a.out[7]: segfault at 0 in tsc: Detected 9999.000 MHz TSC[5+1]", TSC_KMSG_NONE);
    expect_kind("a.out[7]: segfault in CPUs 0 ahead of CPU 1 for clocksource tsc", TSC_KMSG_NONE);
    expect_kind("Measured [7]: segfault in  cycles TSC warp between CPUs", TSC_KMSG_NONE);
}

static void test_kernel_log_collects_verdicts_and_figures(void **state)
{
    (void)state;
    static struct tsc_kernel_log log;
    tsc_kernel_log_init(&log);
    tsc_kernel_log_add(&log, "Linux version 6.1.0");
    tsc_kernel_log_add(&log, "tsc: Detected 3500.000 MHz processor");
    tsc_kernel_log_add(&log, "tsc: Detected 3499.912 MHz TSC");
    tsc_kernel_log_add(&log, "tsc: Detected 3000.000 MHz processor"); /* the TSC's line wins */
    tsc_kernel_log_add(&log, "TSC synchronization [CPU#0 -> CPU#1]:");
    tsc_kernel_log_add(&log, "Measured 4211 cycles TSC warp between CPUs, turning off TSC clock.");
    tsc_kernel_log_add(&log, "tsc: Marking TSC unstable due to check_tsc_sync_source failed");
    assert_true(log.detected_mhz > 3499.9 && log.detected_mhz < 3499.92);
    assert_true(log.sync_failed);
    assert_int_equal(log.sync_warp_cycles, 4211);
    assert_string_equal(log.sync_text,
                        "Measured 4211 cycles TSC warp between CPUs, turning off TSC clock.");
    assert_false(log.watchdog || log.unstable || log.boot_param);
    assert_int_equal(log.nlines, 6);
    for (int i = 0; i < 40; i++)
        tsc_kernel_log_add(&log, "TSC deadline timer available");
    assert_int_equal(log.nlines, TSC_LOG_LINES_MAX);
    assert_int_equal(log.lines_dropped, 6 + 40 - TSC_LOG_LINES_MAX);
}

/* ---- the verdict ---------------------------------------------------------- */

static struct tsc_static st;
static struct tsc_verdict v;
static struct tsc_cpu_result cpus[4];
static struct tsc_pair_result pairs[6];
static struct tsc_results res;

/* An invariant TSC, a clean log, two CPUs measured clean. */
static int clean_setup(void **state)
{
    (void)state;
    memset(&st, 0, sizeof st);
    st.flags = (struct tsc_flags){true, true, true, true, false, true, true};
    snprintf(st.clocksource, sizeof st.clocksource, "tsc");
    snprintf(st.available, sizeof st.available, "tsc hpet");
    tsc_kernel_log_init(&st.log);
    st.log.readable = true;
    memset(cpus, 0, sizeof cpus);
    memset(pairs, 0, sizeof pairs);
    for (int i = 0; i < 2; i++) {
        cpus[i].cpu = i;
        cpus[i].rate = (struct tsc_rate){true, 3e9, 300, 0.15};
    }
    tsc_offset_init(&cpus[1].offset);
    tsc_offset_add(&cpus[1].offset, 1000, 1250, 1500);
    cpus[1].rounds = 1000;
    pairs[0] = (struct tsc_pair_result){0, 1, "smt-sibling", 1000000, 400000, 0, 0, 0.5, true};
    res = (struct tsc_results){.arch_tsc = true,
                               .ncpu = 2,
                               .cpu = cpus,
                               .npairs = 1,
                               .pairs_possible = 1,
                               .pair = pairs,
                               .warp_measured = true,
                               .offsets_measured = true,
                               .rates_measured = true,
                               .realtime = true};
    return 0;
}

static bool has_text(char (*list)[TSC_TEXT_MAX], int n, const char *part)
{
    for (int i = 0; i < n; i++)
        if (strstr(list[i], part))
            return true;
    return false;
}

#define REASON_HAS(part)                                                                           \
    do {                                                                                           \
        if (!has_text(v.reasons, v.nreasons, part))                                                \
            fail_msg("no reason with '%s' (%d reasons, first '%s')", part, v.nreasons,             \
                     v.nreasons ? v.reasons[0] : "");                                              \
    } while (0)
#define NOTE_HAS(part)                                                                             \
    do {                                                                                           \
        if (!has_text(v.notes, v.nnotes, part))                                                    \
            fail_msg("no note with '%s'", part);                                                   \
    } while (0)

static void decide_unsafe(const char *part)
{
    tsc_verdict_decide(&st, &res, &v);
    assert_false(v.safe);
    REASON_HAS(part);
}

static void test_verdict_clean_machine_is_safe(void **state)
{
    (void)state;
    tsc_verdict_decide(&st, &res, &v);
    if (!v.safe)
        fail_msg("unsafe: %s", v.reasons[0]);
    assert_int_equal(v.nreasons, 0);
    assert_int_equal(v.rates.n, 2);
    /* the static part alone (run --clock tsc on a fixture) */
    tsc_verdict_decide(&st, NULL, &v);
    assert_true(v.safe);
}

static void test_verdict_no_tsc_and_no_flags(void **state)
{
    (void)state;
    st.flags.tsc = false;
    decide_unsafe("the CPU has no TSC");
    st.flags.readable = false;
    decide_unsafe("no CPU flags in /proc/cpuinfo");
    clean_setup(state);
    res.arch_tsc = false;
    decide_unsafe("this CPU architecture has no TSC");
    clean_setup(state);
    st.flags.rdtscp = false;
    res.no_rdtscp = true;
    decide_unsafe("the CPU has no rdtscp");
}

static void test_verdict_not_invariant_names_the_missing_flags(void **state)
{
    (void)state;
    st.flags.nonstop_tsc = false;
    decide_unsafe("nonstop_tsc missing");
    assert_null(strstr(v.reasons[0], "constant_tsc"));
    st.flags.nonstop_tsc = true;
    st.flags.constant_tsc = false;
    decide_unsafe("constant_tsc missing");
    st.flags.nonstop_tsc = false;
    decide_unsafe("constant_tsc and nonstop_tsc missing");
}

static void test_verdict_any_warp_is_unsafe(void **state)
{
    (void)state;
    pairs[0].warps = 1;
    pairs[0].max_warp_cycles = 42;
    decide_unsafe("CPUs 0 and 1: 1 TSC warps in 1000000 reads, the largest 42 cycles");
    /* one CPU alone: its TSC going backwards */
    clean_setup(state);
    res.ncpu = 1;
    pairs[0] = (struct tsc_pair_result){3, 3, "", 5000, 0, 2, 7, 0.15, true};
    decide_unsafe("CPU 3: the TSC went backwards 2 times in 5000 reads, by up to 7 cycles");
    NOTE_HAS("one CPU");
}

static void test_verdict_offset_beyond_bound_and_tolerance(void **state)
{
    (void)state;
    /* within the bound: fine (the setup's +0 +-250) */
    tsc_verdict_decide(&st, &res, &v);
    assert_true(v.safe);
    /* beyond the bound by less than the tolerance: fine */
    tsc_offset_init(&cpus[1].offset);
    tsc_offset_add(&cpus[1].offset, 1000, 1000 + 250 + 250 + TSC_OFFSET_TOLERANCE_CYCLES, 1500);
    assert_int_equal(tsc_offset_excess(&cpus[1].offset), TSC_OFFSET_TOLERANCE_CYCLES);
    tsc_verdict_decide(&st, &res, &v);
    assert_true(v.safe);
    /* one cycle more: unsafe */
    tsc_offset_init(&cpus[1].offset);
    tsc_offset_add(&cpus[1].offset, 1000, 1000 + 250 + 250 + TSC_OFFSET_TOLERANCE_CYCLES + 1, 1500);
    decide_unsafe("CPU 1's TSC is 351 cycles ahead of CPU 0's (bound +-250, tolerance 100)");
    tsc_offset_init(&cpus[1].offset);
    tsc_offset_add(&cpus[1].offset, 1000, 1250 - 5000, 1500);
    decide_unsafe("CPU 1's TSC is 5000 cycles behind CPU 0's");
    /* no round answered: a note, not a reason */
    tsc_offset_init(&cpus[1].offset);
    cpus[1].timeouts = 150;
    tsc_verdict_decide(&st, &res, &v);
    assert_true(v.safe);
    NOTE_HAS("CPU 1: no offset round against CPU 0 completed (150 timed out)");
}

static void test_verdict_rates_that_disagree(void **state)
{
    (void)state;
    cpus[1].rate.hz = 3e9 * (1 + 500e-6);
    decide_unsafe("the TSC rates disagree across CPUs");
}

static void test_verdict_kernel_watchdog_sync_skew_and_reasons(void **state)
{
    (void)state;
    tsc_kernel_log_add(&st.log, "tsc: Marking TSC unstable due to clocksource watchdog");
    decide_unsafe("the kernel's clocksource watchdog marked the TSC unstable");
    clean_setup(state);
    tsc_kernel_log_add(&st.log, "Measured 9 cycles TSC warp between CPUs, turning off TSC clock.");
    decide_unsafe("TSC synchronization check between CPUs failed");
    clean_setup(state);
    tsc_kernel_log_add(&st.log, "clocksource:         CPUs 1 ahead of CPU 0 for clocksource tsc.");
    decide_unsafe("the kernel found CPUs out of step on the TSC");
    clean_setup(state);
    tsc_kernel_log_add(&st.log, "tsc: Marking TSC unstable due to TSC halts in idle");
    decide_unsafe("the kernel marked the TSC unstable due to TSC halts in idle");
    /* "found unstable after boot" repeats the verdict before it... */
    clean_setup(state);
    tsc_kernel_log_add(&st.log, "tsc: Marking TSC unstable due to clocksource watchdog");
    tsc_kernel_log_add(&st.log, "TSC found unstable after boot, most likely due to broken BIOS.");
    tsc_verdict_decide(&st, &res, &v);
    assert_int_equal(v.nreasons, 1);
    /* ...and stands alone when that one is gone */
    clean_setup(state);
    tsc_kernel_log_add(&st.log, "TSC found unstable after boot, most likely due to broken BIOS.");
    decide_unsafe("the kernel found the TSC unstable after boot");
}

static void test_verdict_boot_parameter_is_a_note_not_a_reason(void **state)
{
    (void)state;
    snprintf(st.cmdline_tsc, sizeof st.cmdline_tsc, "reliable,unstable");
    tsc_kernel_log_add(&st.log, "tsc: Marking TSC unstable due to boot parameter");
    tsc_verdict_decide(&st, &res, &v);
    assert_true(v.safe);
    NOTE_HAS("due to a boot parameter (tsc=unstable): the administrator's choice, not evidence");
    NOTE_HAS("tsc=reliable on the kernel command line");
    /* the command line alone, the log unreadable */
    clean_setup(state);
    snprintf(st.cmdline_tsc, sizeof st.cmdline_tsc, "unstable");
    st.log.readable = false;
    snprintf(st.log.why, sizeof st.log.why, "not readable: Permission denied");
    tsc_verdict_decide(&st, &res, &v);
    assert_true(v.safe);
    NOTE_HAS("tsc=unstable on the kernel command line");
    NOTE_HAS("the kernel log (/dev/kmsg) is not readable: Permission denied");
}

static void test_verdict_notes_of_a_vm_and_of_a_tree(void **state)
{
    (void)state;
    snprintf(st.clocksource, sizeof st.clocksource, "kvm-clock");
    snprintf(st.hypervisor, sizeof st.hypervisor, "KVM");
    snprintf(st.sysroot, sizeof st.sysroot, "/fx/tree");
    st.log.detected_mhz = 2999.0;
    pairs[0].handoffs = 0;
    cpus[1].timeouts = 3;
    st.log.start_lost = true;
    st.log.first_seq = 1234;
    tsc_verdict_decide(&st, &res, &v);
    assert_true(v.safe);
    NOTE_HAS("the kernel's clocksource is kvm-clock, not tsc (usual in a virtual machine)");
    NOTE_HAS("a virtual machine (KVM)");
    NOTE_HAS("come from /fx/tree; the warp, offset and rate measurements ran on this machine");
    NOTE_HAS("CPUs 0 and 1: the reads never alternated");
    NOTE_HAS("CPU 1: 3 of 1000 offset rounds timed out");
    NOTE_HAS("the kernel log starts at record 1234");
    /* a tree's Detected figure is not this machine's */
    assert_false(v.vs_kernel_known);
    st.sysroot[0] = '\0';
    tsc_verdict_decide(&st, &res, &v);
    assert_true(v.vs_kernel_known);
    assert_true(v.vs_kernel_ppm > 333 && v.vs_kernel_ppm < 334);
    NOTE_HAS("the kernel detected 2999.000 MHz");
    res.interrupted = true;
    res.offsets_measured = false;
    tsc_verdict_decide(&st, &res, &v);
    NOTE_HAS("interrupted");
    NOTE_HAS("the offsets were not measured");
}

static void test_verdict_many_warping_pairs_are_summed_up(void **state)
{
    (void)state;
    static struct tsc_pair_result many[20];
    for (int i = 0; i < 20; i++)
        many[i] = (struct tsc_pair_result){0, i + 1, "", 100, 50, 1, 5, 0.01, true};
    res.pair = many;
    res.npairs = 20;
    res.pairs_possible = 20;
    res.offsets_measured = false;
    res.rates_measured = false;
    tsc_verdict_decide(&st, &res, &v);
    assert_false(v.safe);
    assert_int_equal(v.nreasons, TSC_VERDICT_PER_KIND + 1);
    REASON_HAS("and 12 more CPU pairs with TSC warps");
}

/* ---- the pair plan -------------------------------------------------------- */

static void test_plan_pairs_from_one_to_256_cpus(void **state)
{
    (void)state;
    static int a[70000], b[70000];
    int64_t each;
    uint64_t possible;
    assert_int_equal(tsc_plan_pairs(1, 150000000, TSC_PAIR_FLOOR_NS, a, b, 10, &each, &possible),
                     1);
    assert_int_equal(a[0], 0);
    assert_int_equal(b[0], 0);
    assert_int_equal(each, 150000000);
    assert_int_equal(tsc_plan_pairs(2, 2000000000, TSC_PAIR_FLOOR_NS, a, b, 10, &each, &possible),
                     1);
    assert_int_equal(possible, 1);
    assert_int_equal(each, 2000000000);
    /* 4 CPUs: all 6 pairs fit, the star first, then neighbours, then the rest */
    assert_int_equal(tsc_plan_pairs(4, 2000000000, TSC_PAIR_FLOOR_NS, a, b, 100, &each, &possible),
                     6);
    int want[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 3}, {1, 3}};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(a[i], want[i][0]);
        assert_int_equal(b[i], want[i][1]);
    }
    assert_int_equal(each, 2000000000 / 6);
    /* 256 CPUs in 2 s: 400 pairs at the 5 ms floor, the 255 with CPU 0 first */
    int n = tsc_plan_pairs(256, 2000000000, TSC_PAIR_FLOOR_NS, a, b, 70000, &each, &possible);
    assert_int_equal(possible, 256 * 255 / 2);
    assert_int_equal(n, 400);
    assert_int_equal(each, TSC_PAIR_FLOOR_NS);
    for (int i = 0; i < 255; i++)
        assert_true(a[i] == 0 && b[i] == i + 1);
    assert_true(a[255] == 1 && b[255] == 2);
    /* too short for the star: the star still, at the floor each (1.275 s) */
    n = tsc_plan_pairs(256, 100000000, TSC_PAIR_FLOOR_NS, a, b, 70000, &each, &possible);
    assert_int_equal(n, 255);
    assert_int_equal(each, TSC_PAIR_FLOOR_NS);
    /* and never beyond what the caller has room for */
    assert_int_equal(tsc_plan_pairs(256, 2000000000, TSC_PAIR_FLOOR_NS, a, b, 7, &each, &possible),
                     7);
}

/* ---- the static part from the fixture trees ------------------------------ */

static void judge_fixture(const char *name, struct tsc_static *s, struct tsc_verdict *out)
{
    struct sysroot sr;
    fixture_sysroot(&sr, name);
    tsc_check_static(&sr, "", s);
    tsc_verdict_decide(s, NULL, out);
}

static void test_fixture_invariant_clean_is_safe(void **state)
{
    (void)state;
    static struct tsc_static s;
    judge_fixture("tsc-invariant-clean", &s, &v);
    assert_true(s.flags.readable && s.flags.tsc && s.flags.constant_tsc && s.flags.nonstop_tsc &&
                s.flags.rdtscp && s.flags.tsc_known_freq && !s.flags.tsc_reliable);
    assert_string_equal(s.clocksource, "tsc");
    assert_string_equal(s.cmdline_tsc, "");
    assert_true(s.log.readable);
    assert_false(s.log.start_lost);
    assert_true(s.log.detected_mhz > 3499.91 && s.log.detected_mhz < 3499.92);
    assert_true(s.log.refined_mhz > 3499.99 && s.log.refined_mhz < 3500.0);
    assert_true(v.safe);
    assert_true(v.kernel_mhz == s.log.refined_mhz);
    /* the log's user-space records and its crafted segfault line: no verdict */
    assert_false(s.log.watchdog || s.log.boot_param || s.log.after_boot || s.log.skew ||
                 s.log.unstable || s.log.sync_failed);
    for (int i = 0; i < s.log.nlines; i++)
        assert_null(strstr(s.log.lines[i], "due to clocksource watchdog"));
}

static void test_fixture_watchdog_unstable_is_unsafe(void **state)
{
    (void)state;
    static struct tsc_static s;
    judge_fixture("tsc-watchdog-unstable", &s, &v);
    assert_true(s.flags.constant_tsc && s.flags.nonstop_tsc);
    assert_string_equal(s.clocksource, "hpet");
    assert_true(s.log.watchdog && s.log.after_boot);
    assert_false(v.safe);
    assert_int_equal(v.nreasons, 1);
    REASON_HAS("clocksource watchdog marked the TSC unstable (kernel log: \"clocksource: "
               "timekeeping watchdog on CPU1: Marking clocksource 'tsc' as unstable");
}

static void test_fixture_not_invariant_is_unsafe(void **state)
{
    (void)state;
    static struct tsc_static s;
    judge_fixture("tsc-not-invariant", &s, &v);
    assert_true(s.flags.tsc && s.flags.constant_tsc);
    assert_false(s.flags.nonstop_tsc || s.flags.rdtscp);
    assert_false(v.safe);
    REASON_HAS("nonstop_tsc missing");
    REASON_HAS("due to TSC halts in idle");
}

/* ---- live, briefly --------------------------------------------------------- */

static void test_live_warp_test_reads_and_ends_on_time(void **state)
{
    (void)state;
    if (!TSC_SUPPORTED || under_valgrind()) /* valgrind has no rdtscp */
        skip();
    int cpu = 0;
    struct tsc_check_config cfg = {.cpus = &cpu, .ncpu = 1, .warp_ns = 20000000, .fifo = false};
    struct tsc_results r;
    assert_int_equal(tsc_results_init(&r, &cfg), 0);
    struct timebase tb;
    timebase_init(&tb, false);
    char err[128];
    int64_t t0 = monotonic_now_ns();
    assert_int_equal(tsc_check_measure(&cfg, &tb, &r, err, sizeof err), 0);
    int64_t took = monotonic_now_ns() - t0;
    assert_true(r.warp_measured);
    assert_int_equal(r.npairs, 1);
    assert_true(r.pair[0].measured && r.pair[0].a == 0 && r.pair[0].b == 0);
    assert_true(r.pair[0].reads > 1000);
    assert_int_equal(r.pair[0].handoffs, 0); /* alone */
    assert_int_equal(r.pair[0].warps, 0);
    assert_false(r.realtime);
    assert_true(took < 2000000000); /* 20 ms asked; a loaded box still ends */
    tsc_results_free(&r);
}

#define T(f) cmocka_unit_test_setup(f, clean_setup)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warp_scan_of_a_rising_sequence_finds_none),
        cmocka_unit_test(test_warp_scan_finds_a_planted_backwards_step_and_its_size),
        cmocka_unit_test(test_warp_interleaved_cpus_with_an_offset_step_back),
        cmocka_unit_test(test_offset_recovered_within_the_bound_from_the_min_rtt),
        cmocka_unit_test(test_offset_behind_odd_rtt_and_rejected_rounds),
        cmocka_unit_test(test_rate_summary_spread_and_tolerance),
        cmocka_unit_test(test_kmsg_lines_classified),
        cmocka_unit_test(test_kmsg_phrases_quoted_by_other_records_are_not_verdicts),
        cmocka_unit_test(test_kernel_log_collects_verdicts_and_figures),
        T(test_verdict_clean_machine_is_safe),
        T(test_verdict_no_tsc_and_no_flags),
        T(test_verdict_not_invariant_names_the_missing_flags),
        T(test_verdict_any_warp_is_unsafe),
        T(test_verdict_offset_beyond_bound_and_tolerance),
        T(test_verdict_rates_that_disagree),
        T(test_verdict_kernel_watchdog_sync_skew_and_reasons),
        T(test_verdict_boot_parameter_is_a_note_not_a_reason),
        T(test_verdict_notes_of_a_vm_and_of_a_tree),
        T(test_verdict_many_warping_pairs_are_summed_up),
        cmocka_unit_test(test_plan_pairs_from_one_to_256_cpus),
        cmocka_unit_test(test_fixture_invariant_clean_is_safe),
        cmocka_unit_test(test_fixture_watchdog_unstable_is_unsafe),
        cmocka_unit_test(test_fixture_not_invariant_is_unsafe),
        cmocka_unit_test(test_live_warp_test_reads_and_ends_on_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
