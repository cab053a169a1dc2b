/*
 * Unit tests of the engine and collector at machine sizes this host does
 * not have: a 256-CPU engine is built (no thread started), its memory
 * counted and checked against what the process really holds, and the
 * rings' sizes follow the interval, the CPU count and the drain period.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/units.h"
#include "engine/collector.h"
#include "engine/engine.h"
#include "test_fixture.h"

#define MIB ((size_t)1 << 20)

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static size_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* A run's engine and collector for ncpu CPUs at interval_ns, built but not
 * started; their computed size and the growth of the resident set. */
struct built {
    size_t engine_bytes, collector_bytes, resident_growth;
};

static struct built build_and_free(int ncpu, int64_t interval_ns, uint32_t us_rows,
                                   int64_t report_every_ns)
{
    struct cpulist *cpus = calloc(1, sizeof(*cpus));
    assert_non_null(cpus);
    for (int c = 0; c < ncpu; c++)
        cpulist_add(cpus, c);
    struct engine_config cfg = {.interval_ns = interval_ns,
                                .duration_ns = 10 * NS_PER_S,
                                .policy = SCHED_FIFO,
                                .priority = 90,
                                .cpus = cpus,
                                .tolerance_ns = -1,
                                .us_hist_rows = us_rows,
                                .deadline_ns = interval_ns};
    struct collector_config ccfg = {.report_every_ns = report_every_ns, .keep_windows = 3600};
    /* With the process locked first (as the engine locks it as root), the
     * growth is the engine's and collector's own pages, not every page of
     * the libraries that a later mlockall would fault in. */
    bool locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
    size_t before = resident_bytes();
    char err[256];
    struct engine *e = engine_create(&cfg, err, sizeof(err));
    assert_non_null(e);
    struct collector *c = calloc(1, sizeof(*c));
    assert_non_null(c);
    assert_int_equal(collector_init(c, &ccfg, NULL, e, err, sizeof(err)), 0);
    struct built b = {.engine_bytes = engine_memory_bytes(e),
                      .collector_bytes = collector_memory_bytes(c)};
    size_t after = resident_bytes();
    b.resident_growth = after > before ? after - before : 0;
    if (!locked)
        b.resident_growth = SIZE_MAX; /* not comparable: nothing forced resident */
    collector_free(c);
    free(c);
    engine_destroy(e); /* munlockall */
    free(cpus);
    return b;
}

/* 256 CPUs at the default 1 ms: under 64 MiB with every thread's stack
 * counted, and the process grows by what was computed, not more. */
static void test_engine_256_cpus_fit_the_memory_budget(void **state)
{
    (void)state;
    struct built b = build_and_free(256, NS_PER_MS, 0, 0);
    size_t total = b.engine_bytes + b.collector_bytes + 256 * engine_stack_bytes();
    printf("# 256 CPUs, 1 ms: engine %.1f MiB, collector %.1f MiB, stacks %.1f MiB, "
           "resident growth %.1f MiB\n",
           (double)b.engine_bytes / MIB, (double)b.collector_bytes / MIB,
           (double)(256 * engine_stack_bytes()) / MIB, (double)b.resident_growth / MIB);
    assert_true(total < 64 * MIB);
    if (UNDER_ASAN || under_valgrind() || b.resident_growth == SIZE_MAX)
        return; /* shadow memory and redzones are not the program's */
    assert_true(b.resident_growth <= b.engine_bytes + b.collector_bytes + 4 * MIB);
    assert_true(b.resident_growth >= b.engine_bytes * 9 / 10); /* prefaulted */
}

/* The same at 100 us with report windows and a 1 us histogram of 1000 rows
 * (the --histogram-file default): the rings hold 200 ms (32 MiB in all),
 * the total stays far under 256 MiB. */
static void test_engine_256_cpus_at_100us_with_histogram_file(void **state)
{
    (void)state;
    struct built b = build_and_free(256, 100 * NS_PER_US, 1000, NS_PER_S);
    size_t total = b.engine_bytes + b.collector_bytes + 256 * engine_stack_bytes();
    printf("# 256 CPUs, 100 us, --report-every 1s, --histogram-file: %.1f MiB in all\n",
           (double)total / MIB);
    assert_true(total < 256 * MIB);
    if (UNDER_ASAN || under_valgrind() || b.resident_growth == SIZE_MAX)
        return;
    assert_true(b.resident_growth <= b.engine_bytes + b.collector_bytes + 4 * MIB);
}

/* Few CPUs keep two seconds of samples; many CPUs share a budget; never
 * fewer than 256 entries; the drain period leaves room for four passes. */
static void test_engine_ring_follows_interval_and_cpu_count(void **state)
{
    (void)state;
    assert_int_equal(engine_ring_capacity(NS_PER_MS, 2), 2048);
    assert_int_equal(engine_ring_capacity(100 * NS_PER_US, 2), 32768);
    assert_int_equal(engine_ring_capacity(10 * NS_PER_US, 2), 131072);  /* budget-bound */
    assert_int_equal(engine_ring_capacity(100 * NS_PER_US, 256), 2048); /* 200 ms at least */
    assert_int_equal(engine_ring_capacity(50 * NS_PER_US, 256), 4096);  /* 64 MiB in all */
    assert_int_equal(engine_ring_capacity(10 * NS_PER_US, 256), 4096);  /* the limit binds */
    assert_int_equal(engine_ring_capacity(NS_PER_MS, 256), 1024);
    assert_int_equal(engine_ring_capacity(NS_PER_MS, 4096), 256);
    assert_int_equal(engine_ring_capacity(10 * NS_PER_S, 1), 256);
    for (int n = 1; n <= 4096; n *= 2)
        for (int64_t iv = 10 * NS_PER_US; iv <= 10 * NS_PER_MS; iv *= 10) {
            uint64_t cap = engine_ring_capacity(iv, n);
            assert_true((cap & (cap - 1)) == 0);
            assert_true(cap >= 256);
            uint64_t bytes = cap * sizeof(struct cycle_sample) * (uint64_t)n;
            uint64_t held_ms = cap * (uint64_t)iv / 1000000;
            assert_true(bytes <= (64u << 20) || cap == 256);
            /* beyond the 16 MiB budget only to hold 200 ms */
            assert_true(bytes <= (16u << 20) || cap == 256 || held_ms < 400);
        }
}

static void test_engine_drain_period_leaves_four_passes_per_ring(void **state)
{
    (void)state;
    struct cpulist *cpus = calloc(1, sizeof(*cpus));
    assert_non_null(cpus);
    for (int c = 0; c < 256; c++)
        cpulist_add(cpus, c);
    const int64_t intervals[] = {10 * NS_PER_US, 100 * NS_PER_US, 250 * NS_PER_US, NS_PER_MS};
    for (size_t k = 0; k < sizeof(intervals) / sizeof(intervals[0]); k++) {
        struct engine_config cfg = {.interval_ns = intervals[k],
                                    .duration_ns = NS_PER_S,
                                    .policy = SCHED_OTHER,
                                    .cpus = cpus,
                                    .tolerance_ns = -1,
                                    .deadline_ns = intervals[k]};
        char err[256];
        struct engine *e = engine_create(&cfg, err, sizeof(err));
        assert_non_null(e);
        int64_t period = engine_drain_period_ns(e);
        uint64_t cap = engine_ring_capacity(intervals[k], 256);
        assert_true(period <= 100 * NS_PER_MS);
        assert_true(period >= NS_PER_MS);
        if (period > NS_PER_MS) /* the 1 ms floor binds only at 10 us */
            assert_true((uint64_t)(4 * period / intervals[k]) <= cap);
        engine_destroy(e);
    }
    free(cpus);
}

static void *hold_cpu(void *arg)
{
    int64_t until = *(const int64_t *)arg;
    while (monotonic_now_ns() < until) /* bounded: ends by itself */
        ;
    return NULL;
}

/* A CPU held by a task of higher priority never runs its measuring
 * thread's setup: engine_start gives up at its limit and names the CPU
 * instead of waiting for ever, and the engine can still be destroyed. */
static void test_engine_start_gate_is_bounded(void **state)
{
    (void)state;
    /* valgrind runs one thread at a time, whatever their priorities */
    if (geteuid() != 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2 || under_valgrind()) {
        skip();
        return;
    }
    int64_t until = monotonic_now_ns() + 1500 * NS_PER_MS;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(1, &set);
    pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
    struct sched_param sp = {.sched_priority = 99};
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
    pthread_attr_setschedparam(&attr, &sp);
    pthread_t hog;
    assert_int_equal(pthread_create(&hog, &attr, hold_cpu, &until), 0);
    pthread_attr_destroy(&attr);
    usleep(50 * 1000); /* the hog runs */

    struct cpulist cpus = {0};
    cpulist_add(&cpus, 1);
    struct engine_config cfg = {.interval_ns = NS_PER_MS,
                                .duration_ns = NS_PER_S,
                                .policy = SCHED_FIFO,
                                .priority = 50,
                                .cpus = &cpus,
                                .tolerance_ns = -1,
                                .deadline_ns = NS_PER_MS,
                                .start_timeout_ns = 300 * NS_PER_MS};
    char err[256];
    struct engine *e = engine_create(&cfg, err, sizeof(err));
    assert_non_null(e);
    int64_t t0 = monotonic_now_ns();
    int rc = engine_start(e, err, sizeof(err));
    int64_t took = monotonic_now_ns() - t0;
    pthread_join(hog, NULL);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "CPU 1 did not run its measuring thread"));
    assert_true(took < 1000 * NS_PER_MS); /* the 0.3 s limit, not the hog's 1.5 s */
    engine_destroy(e);                    /* or the orphaned thread frees it when it ends */
    usleep(200 * 1000);                   /* it runs now that the hog is gone: nothing leaks */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_256_cpus_fit_the_memory_budget),
        cmocka_unit_test(test_engine_256_cpus_at_100us_with_histogram_file),
        cmocka_unit_test(test_engine_ring_follows_interval_and_cpu_count),
        cmocka_unit_test(test_engine_drain_period_leaves_four_passes_per_ring),
        cmocka_unit_test(test_engine_start_gate_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
