/*
 * Unit tests for src/trace/window_explain.c: spikes explained per telemetry
 * window by what stood above the CPU's usual. The baseline is what a quiet
 * window looks like, each figure's lower quartile over all the CPU's windows
 * (upper for the frequency), whatever their samples and spikes; an interrupt
 * source, steal or a frequency drop clearly above (below) it is named, the
 * largest first; a spike window with nothing unusual is "unexplained"; the
 * summary counts windows by dominant cause.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "trace/window_explain.h"

static const char *const softirq_names[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                            "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

/* An ordinary second of CPU cpu: 1000 local timer interrupts, 1000
 * switches, 250 TIMER softirqs, 2096 MHz, no steal. */
static struct telemetry_window quiet_window(int cpu, int64_t t_ns)
{
    struct telemetry_window w = {.t_ns = t_ns, .cpu = cpu, .samples = 1000, .max_ns = 80000};
    struct telemetry_cpu_figures *f = &w.fig;
    f->cpu = cpu;
    f->avg_mhz = 2096;
    f->busy_pct = 2;
    f->bzy_mhz = f->tsc_mhz = f->irq_pct = f->softirq_pct = NAN;
    f->core_temp_c = f->pkg_temp_c = f->pkg_watts = NAN;
    f->steal_pct = 0;
    f->smi = -1;
    f->ctxt = 1000;
    f->irqs = 1000;
    f->nirq = 1;
    snprintf(f->irq[0].id, sizeof f->irq[0].id, "LOC");
    snprintf(f->irq[0].name, sizeof f->irq[0].name, "Local timer interrupts");
    f->irq[0].count = 1000;
    f->softirqs = 250;
    f->softirq[1] = 250;
    return w;
}

static void add_irq(struct telemetry_window *w, const char *id, const char *name, uint64_t n)
{
    struct telemetry_irq *q = &w->fig.irq[w->fig.nirq++];
    snprintf(q->id, sizeof q->id, "%s", id);
    snprintf(q->name, sizeof q->name, "%s", name);
    q->count = n;
    w->fig.irqs += (int64_t)n;
}

static void test_a_device_irq_above_the_baseline_is_named(void **state)
{
    (void)state;
    struct telemetry_window w[10];
    for (int k = 0; k < 10; k++)
        w[k] = quiet_window(1, (k + 1) * 1000000000LL);
    w[4].spikes = 3;
    w[4].max_ns = 1500000;
    add_irq(&w[4], "36", "virtio1-req.0", 50);
    struct window_explanation e;
    assert_int_equal(window_explain(w, 10, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 1);
    assert_int_equal(e.spike[0].cpu, 1);
    assert_int_equal(e.spike[0].spikes, 3);
    assert_int_equal(e.spike[0].max_ns, 1500000);
    assert_true(e.spike[0].ncauses >= 1);
    assert_string_equal(e.spike[0].cause[0].kind, "irq");
    assert_string_equal(e.spike[0].cause[0].name, "virtio1-req.0");
    assert_true(e.spike[0].cause[0].value == 50 && e.spike[0].cause[0].baseline == 0);
    assert_int_equal(e.nrows, 1);
    assert_string_equal(e.row[0].kind, "irq");
    assert_int_equal(e.row[0].windows, 1);
    assert_int_equal(e.row[0].spikes, 3);
    assert_true(e.row[0].share == 1.0);
    window_explanation_free(&e);
}

static void test_ordinary_variation_is_not_a_cause(void **state)
{
    (void)state;
    struct telemetry_window w[5];
    for (int k = 0; k < 5; k++)
        w[k] = quiet_window(1, (k + 1) * 1000000000LL);
    w[2].spikes = 1;
    w[2].fig.irq[0].count = 1010; /* 1% more timer interrupts */
    w[2].fig.ctxt = 1050;
    w[2].fig.avg_mhz = 2090;
    struct window_explanation e;
    assert_int_equal(window_explain(w, 5, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 1);
    assert_int_equal(e.spike[0].ncauses, 0);
    assert_int_equal(e.nrows, 1);
    assert_string_equal(e.row[0].kind, "unexplained");
    window_explanation_free(&e);
}

static void test_steal_frequency_and_switches_rank_by_how_far_they_stand_out(void **state)
{
    (void)state;
    struct telemetry_window w[6];
    for (int k = 0; k < 6; k++)
        w[k] = quiet_window(2, (k + 1) * 1000000000LL);
    w[1].spikes = 2;
    w[1].fig.steal_pct = 12; /* far out */
    w[1].fig.avg_mhz = 1500; /* -28% */
    w[1].fig.ctxt = 1400;    /* +400 over 1000: sqrt-scaled, less */
    w[3].spikes = 1;
    w[3].fig.softirq[3] = 400; /* NET_RX from nothing */
    struct window_explanation e;
    assert_int_equal(window_explain(w, 6, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 2);
    assert_int_equal(e.spike[0].ncauses, 3);
    /* frequency -28.4% (28.4), steal +12 points (24), switches z 12.6 */
    assert_string_equal(e.spike[0].cause[0].kind, "frequency");
    assert_true(fabs(e.spike[0].cause[0].excess - 596) < 1e-9);
    assert_string_equal(e.spike[0].cause[1].kind, "steal");
    assert_true(fabs(e.spike[0].cause[1].excess - 12) < 1e-9);
    assert_string_equal(e.spike[0].cause[2].kind, "thread");
    assert_string_equal(e.spike[1].cause[0].kind, "softirq");
    assert_string_equal(e.spike[1].cause[0].name, "NET_RX");
    window_explanation_free(&e);
}

static void test_every_window_spiky_still_names_the_burst(void **state)
{
    (void)state;
    struct telemetry_window w[5];
    for (int k = 0; k < 5; k++) {
        w[k] = quiet_window(1, (k + 1) * 1000000000LL);
        w[k].spikes = 1;
    }
    add_irq(&w[3], "RES", "Rescheduling interrupts", 300);
    struct window_explanation e;
    assert_int_equal(window_explain(w, 5, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 5);
    assert_int_equal(e.spike[3].ncauses, 1);
    assert_string_equal(e.spike[3].cause[0].kind, "ipi");
    assert_string_equal(e.spike[3].cause[0].name, "reschedule");
    assert_int_equal(e.nrows, 2);
    assert_string_equal(e.row[0].kind, "unexplained"); /* 4 windows */
    assert_int_equal(e.row[0].windows, 4);
    assert_true(fabs(e.row[1].share - 0.2) < 1e-9);
    window_explanation_free(&e);
}

static void test_cpus_have_their_own_baselines_and_results_are_in_time_order(void **state)
{
    (void)state;
    struct telemetry_window w[8];
    for (int k = 0; k < 4; k++) {
        w[2 * k] = quiet_window(1, (k + 1) * 1000000000LL);
        w[2 * k + 1] = quiet_window(2, (k + 1) * 1000000000LL);
        w[2 * k + 1].fig.irq[0].count = 100; /* CPU 2 has a slow tick */
    }
    w[7].spikes = 1; /* CPU 2, last window: 1000 timer interrupts is 10x its usual */
    w[7].fig.irq[0].count = 1000;
    w[2].spikes = 1; /* CPU 1, window 2: the same 1000 is its usual */
    struct window_explanation e;
    assert_int_equal(window_explain(w, 8, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 2);
    assert_int_equal(e.spike[0].cpu, 1);
    assert_int_equal(e.spike[0].ncauses, 0);
    assert_int_equal(e.spike[1].cpu, 2);
    assert_string_equal(e.spike[1].cause[0].kind, "timer");
    assert_string_equal(e.spike[1].cause[0].name, "local_timer");
    window_explanation_free(&e);
}

static void test_counts_compare_as_rates_and_a_short_last_window_is_no_baseline(void **state)
{
    (void)state;
    struct telemetry_window w[5];
    for (int k = 0; k < 4; k++) {
        w[k] = quiet_window(1, (k + 1) * 1000000000LL);
        w[k].duration_ns = 1000000000LL;
        w[k].spikes = 1;
    }
    /* the last 1 ms of the run: 1 timer interrupt is the usual rate, and
     * as the only quiet window it must not become the baseline */
    w[4] = quiet_window(1, 4001000000LL);
    w[4].duration_ns = 1000000;
    w[4].fig.irq[0].count = 1;
    w[4].samples = 1;
    add_irq(&w[2], "36", "virtio1-req.0", 300);
    struct window_explanation e;
    assert_int_equal(window_explain(w, 5, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 4);
    assert_int_equal(e.spike[0].ncauses, 0); /* 1000/s is the usual, not 1000x of 1/s */
    assert_int_equal(e.spike[2].ncauses, 1);
    assert_string_equal(e.spike[2].cause[0].name, "virtio1-req.0");
    assert_true(e.spike[2].cause[0].value == 300);
    window_explanation_free(&e);
}

static void test_one_unusually_calm_window_does_not_set_the_baseline(void **state)
{
    (void)state;
    struct telemetry_window w[9];
    for (int k = 0; k < 9; k++) {
        w[k] = quiet_window(1, (k + 1) * 1000000000LL);
        w[k].spikes = k == 4 ? 0 : 1;
    }
    w[4].fig.ctxt = 10; /* the one quiet second happened to be unusually calm */
    struct window_explanation e;
    assert_int_equal(window_explain(w, 9, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 8);
    for (size_t k = 0; k < e.nspike; k++)
        assert_int_equal(e.spike[k].ncauses, 0);
    window_explanation_free(&e);
}

/* noise: every gap is a spike, so a window without a gap has no sample. A
 * lone noisy second among quiet ones is compared with the quiet ones, not
 * with itself. */
static void test_a_lone_noisy_window_is_compared_with_the_windows_without_gaps(void **state)
{
    (void)state;
    struct telemetry_window w[8];
    for (int k = 0; k < 8; k++) {
        w[k] = quiet_window(1, (k + 1) * 1000000000LL);
        w[k].duration_ns = 1000000000LL;
        w[k].samples = 0; /* no gap: nothing for the window's latency figures */
        w[k].max_ns = 0;
    }
    w[5].samples = w[5].spikes = 40;
    w[5].max_ns = 300000;
    add_irq(&w[5], "36", "virtio1-req.0", 2000);
    struct window_explanation e;
    assert_int_equal(window_explain(w, 8, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 1);
    assert_true(e.spike[0].ncauses >= 1);
    assert_string_equal(e.spike[0].cause[0].kind, "irq");
    assert_string_equal(e.spike[0].cause[0].name, "virtio1-req.0");
    assert_true(e.spike[0].cause[0].baseline == 0);
    assert_string_equal(e.row[0].kind, "irq");
    window_explanation_free(&e);
}

/* Every window has gaps (noise on a busy CPU, or run at a low threshold):
 * a softirq burst in three of five windows is still above what a quiet
 * window of this CPU looks like, in each of the three. */
static void test_a_burst_in_most_spiky_windows_still_stands_out(void **state)
{
    (void)state;
    struct telemetry_window w[5];
    for (int k = 0; k < 5; k++) {
        w[k] = quiet_window(1, (k + 1) * 1000000000LL);
        w[k].spikes = 2;
    }
    for (int k = 1; k < 4; k++)
        w[k].fig.softirq[3] = 400; /* NET_RX */
    struct window_explanation e;
    assert_int_equal(window_explain(w, 5, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 5);
    for (int k = 0; k < 5; k++) {
        bool burst = k >= 1 && k < 4;
        assert_int_equal(e.spike[k].ncauses, burst ? 1 : 0);
        if (burst)
            assert_string_equal(e.spike[k].cause[0].name, "NET_RX");
    }
    assert_string_equal(e.row[0].kind, "softirq");
    assert_int_equal(e.row[0].windows, 3);
    window_explanation_free(&e);
}

static void test_no_spike_no_allocation(void **state)
{
    (void)state;
    struct telemetry_window w = quiet_window(1, 1000000000LL);
    struct window_explanation e;
    assert_int_equal(window_explain(&w, 1, softirq_names, 10, &e), 0);
    assert_int_equal(e.nspike, 0);
    assert_null(e.spike);
    assert_int_equal(e.nrows, 0);
    window_explanation_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_device_irq_above_the_baseline_is_named),
        cmocka_unit_test(test_ordinary_variation_is_not_a_cause),
        cmocka_unit_test(test_steal_frequency_and_switches_rank_by_how_far_they_stand_out),
        cmocka_unit_test(test_every_window_spiky_still_names_the_burst),
        cmocka_unit_test(test_cpus_have_their_own_baselines_and_results_are_in_time_order),
        cmocka_unit_test(test_counts_compare_as_rates_and_a_short_last_window_is_no_baseline),
        cmocka_unit_test(test_one_unusually_calm_window_does_not_set_the_baseline),
        cmocka_unit_test(test_a_lone_noisy_window_is_compared_with_the_windows_without_gaps),
        cmocka_unit_test(test_a_burst_in_most_spiky_windows_still_stands_out),
        cmocka_unit_test(test_no_spike_no_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
