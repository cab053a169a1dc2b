/*
 * Unit tests for src/telemetry/run_telemetry.c: a run's telemetry windows.
 * A sample belongs to the window its wake-up falls in, also when it is
 * drained after the snapshot; a CPU that sends nothing is closed at the next
 * snapshot; the windows of a CPU add up to its samples and missed periods
 * (the missed after its last sample go to the last window); the newest
 * `keep` records are kept, oldest first. The telemetry itself runs on a
 * fixture tree with an injected clock, so nothing here reads the machine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_fixture.h"

#include "telemetry/run_telemetry.h"

static int64_t fake_ns;

static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_ns;
}

static struct telemetry *open_on(const char *fixture, const struct cpulist *cpus)
{
    struct sysroot sr;
    fixture_sysroot(&sr, fixture);
    struct telemetry_config cfg = {
        .sr = &sr, .cpus = cpus, .quiet = true, .kernel_release = "6.18.0", .now_ns = fake_clock};
    char err[128];
    struct telemetry *t = telemetry_open(&cfg, err, sizeof err);
    assert_non_null(t);
    return t;
}

static struct cycle_sample sample(int64_t t_ns, int64_t latency_ns, uint32_t missed)
{
    return (struct cycle_sample){.t_ns = t_ns, .latency_ns = latency_ns, .missed = missed};
}

static struct cpulist two_cpus(void)
{
    struct cpulist l = {0};
    cpulist_add(&l, 0);
    cpulist_add(&l, 1);
    return l;
}

static void test_sample_drained_after_the_snapshot_stays_in_its_window(void **state)
{
    (void)state;
    struct cpulist cpus = two_cpus();
    struct telemetry *t = open_on("vm-haltpoll", &cpus);
    struct run_telemetry rt;
    char err[256];
    assert_int_equal(run_telemetry_init(&rt, t, 16, err, sizeof err), 0);
    fake_ns = 0;
    run_telemetry_start(&rt);
    struct cycle_sample s = sample(100, 5000, 0);
    run_telemetry_sample(&rt, 0, &s, false);
    fake_ns = 1000;
    run_telemetry_tick(&rt, 1000);
    /* drained after the tick, but woke before it: still the first window */
    s = sample(900, 9000, 2);
    run_telemetry_sample(&rt, 0, &s, true);
    uint64_t n, dropped;
    run_telemetry_windows(&rt, &n, &dropped);
    assert_int_equal(n, 0); /* not closed until a later sample or snapshot */
    s = sample(1100, 1000, 0);
    run_telemetry_sample(&rt, 0, &s, false);
    const struct telemetry_window *w = run_telemetry_windows(&rt, &n, &dropped);
    assert_int_equal(n, 1);
    assert_int_equal(w[0].cpu, 0);
    assert_int_equal(w[0].t_ns, 1000);
    assert_int_equal(w[0].samples, 2);
    assert_int_equal(w[0].missed, 2);
    assert_int_equal(w[0].spikes, 1);
    assert_int_equal(w[0].max_ns, 9000);
    assert_true(w[0].mean_ns > 6999.9 && w[0].mean_ns < 7000.1);
    run_telemetry_free(&rt);
    telemetry_close(t);
}

static void test_a_silent_cpu_is_closed_at_the_next_snapshot(void **state)
{
    (void)state;
    struct cpulist cpus = two_cpus();
    struct telemetry *t = open_on("vm-haltpoll", &cpus);
    struct run_telemetry rt;
    char err[256];
    assert_int_equal(run_telemetry_init(&rt, t, 16, err, sizeof err), 0);
    fake_ns = 0;
    run_telemetry_start(&rt);
    struct cycle_sample s = sample(10, 100, 0);
    run_telemetry_sample(&rt, 1, &s, false);
    fake_ns = 1000;
    run_telemetry_tick(&rt, 1000);
    fake_ns = 2000;
    run_telemetry_tick(&rt, 2000); /* neither CPU sent anything in between */
    uint64_t n, dropped;
    const struct telemetry_window *w = run_telemetry_windows(&rt, &n, &dropped);
    assert_int_equal(n, 2);
    for (uint64_t k = 0; k < n; k++) {
        assert_int_equal(w[k].t_ns, 1000);
        assert_int_equal(w[k].samples, w[k].cpu == 1 ? 1 : 0);
        assert_int_equal(w[k].max_ns, w[k].cpu == 1 ? 100 : 0);
    }
    run_telemetry_free(&rt);
    telemetry_close(t);
}

static void test_windows_add_up_to_the_run(void **state)
{
    (void)state;
    struct cpulist cpus = two_cpus();
    struct telemetry *t = open_on("vm-haltpoll", &cpus);
    struct run_telemetry rt;
    char err[256];
    assert_int_equal(run_telemetry_init(&rt, t, 64, err, sizeof err), 0);
    fake_ns = 0;
    run_telemetry_start(&rt);
    uint64_t samples[2] = {0}, missed[2] = {0};
    int64_t interval = 100;
    for (int64_t k = 0; k < 50; k++) {
        if (k > 0 && k % 10 == 0) {
            fake_ns = k * interval;
            run_telemetry_tick(&rt, fake_ns);
        }
        for (int i = 0; i < 2; i++) {
            uint32_t m = (uint32_t)((k + i) % 7 == 0);
            struct cycle_sample s = sample(k * interval + 5, 5 + k, m);
            run_telemetry_sample(&rt, i, &s, false);
            samples[i]++;
            missed[i] += m;
        }
    }
    fake_ns = 5000;
    run_telemetry_tick(&rt, 5000);                         /* the end of the run */
    uint64_t total_missed[2] = {missed[0] + 3, missed[1]}; /* 3 after CPU 0's last sample */
    run_telemetry_finish(&rt, total_missed);
    uint64_t n, dropped;
    const struct telemetry_window *w = run_telemetry_windows(&rt, &n, &dropped);
    assert_int_equal(n, 10);
    assert_int_equal(dropped, 0);
    uint64_t got_s[2] = {0}, got_m[2] = {0};
    for (uint64_t k = 0; k < n; k++) {
        got_s[w[k].cpu] += w[k].samples;
        got_m[w[k].cpu] += w[k].missed;
        assert_int_equal(w[k].samples, 10);
    }
    assert_int_equal(got_s[0], samples[0]);
    assert_int_equal(got_s[1], samples[1]);
    assert_int_equal(got_m[0], missed[0] + 3);
    assert_int_equal(got_m[1], missed[1]);
    run_telemetry_free(&rt);
    telemetry_close(t);
}

static void test_keeps_the_newest_oldest_first(void **state)
{
    (void)state;
    struct cpulist cpus = {0};
    cpulist_add(&cpus, 1);
    struct telemetry *t = open_on("vm-haltpoll", &cpus);
    struct run_telemetry rt;
    char err[256];
    assert_int_equal(run_telemetry_init(&rt, t, 2, err, sizeof err), 0);
    fake_ns = 0;
    run_telemetry_start(&rt);
    for (int64_t k = 1; k <= 5; k++) {
        struct cycle_sample s = sample(k * 1000 - 10, k, 0);
        run_telemetry_sample(&rt, 0, &s, false);
        fake_ns = k * 1000;
        run_telemetry_tick(&rt, fake_ns);
    }
    uint64_t miss = 0;
    run_telemetry_finish(&rt, &miss);
    uint64_t n, dropped;
    const struct telemetry_window *w = run_telemetry_windows(&rt, &n, &dropped);
    assert_int_equal(n, 2);
    assert_int_equal(dropped, 3);
    assert_int_equal(w[0].t_ns, 4000);
    assert_int_equal(w[1].t_ns, 5000);
    assert_int_equal(w[0].max_ns, 4);
    assert_int_equal(w[1].max_ns, 5);
    run_telemetry_free(&rt);
    telemetry_close(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_drained_after_the_snapshot_stays_in_its_window),
        cmocka_unit_test(test_a_silent_cpu_is_closed_at_the_next_snapshot),
        cmocka_unit_test(test_windows_add_up_to_the_run),
        cmocka_unit_test(test_keeps_the_newest_oldest_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
