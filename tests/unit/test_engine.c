/*
 * Unit tests for src/engine/engine.c and engine_threads.c that need no real-time privilege: a
 * short SCHED_OTHER run on CPU 0 of a few cycles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/units.h"
#include "engine/engine.h"

static void test_engine_names_each_thread_by_its_kernel_tid(void **state)
{
    (void)state;
    struct cpulist cpus = {0};
    cpulist_add(&cpus, 0);
    struct engine_config cfg = {.interval_ns = NS_PER_MS,
                                .loops = 3,
                                .policy = SCHED_OTHER,
                                .cpus = &cpus,
                                .tolerance_ns = -1,
                                .deadline_ns = NS_PER_MS};
    char err[256];
    struct engine *e = engine_create(&cfg, err, sizeof(err));
    assert_non_null(e);
    assert_int_equal(engine_start(e, err, sizeof(err)), 0);
    int tid = engine_thread_tid(e, 0);
    assert_true(tid > 0);
    assert_int_not_equal(tid, getpid()); /* the measuring thread, not the caller */
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
    struct stat st;
    assert_int_equal(stat(path, &st), 0); /* a thread of this process */
    while (!engine_finished(e))
        usleep(1000);
    engine_join(e);
    assert_int_equal(engine_result(e, 0)->samples, 3);
    engine_destroy(e);
}

/* The 1 us histogram keeps the cycle numbers of as many overflows as it has
 * rows (cyclictest -h N keeps N), not a fixed number: 3000 rows, 3500
 * overflows: 3000 kept, the first ones, all counted. */
static void test_engine_keeps_one_overflow_cycle_per_histogram_row(void **state)
{
    (void)state;
    enum { ROWS = 3000 };
    struct cpu_result r;
    cpu_result_init(&r, 1);
    r.us_rows = ROWS;
    r.us_hist = calloc(ROWS, sizeof(uint64_t));
    r.overflow_cycles = calloc(ROWS, sizeof(uint64_t));
    assert_non_null(r.us_hist);
    assert_non_null(r.overflow_cycles);
    cpu_result_record_us(&r, 2999 * NS_PER_US + 999, 1); /* the last row */
    for (uint64_t k = 0; k < 3500; k++)
        cpu_result_record_us(&r, 3 * NS_PER_MS + (int64_t)k, 5 + k);
    assert_int_equal(r.us_hist[ROWS - 1], 1);
    assert_int_equal(r.us_overflow, 3500);
    assert_int_equal(r.overflow_cycles[0], 5);
    assert_int_equal(r.overflow_cycles[1024], 5 + 1024);
    assert_int_equal(r.overflow_cycles[ROWS - 1], 5 + ROWS - 1);
    free(r.us_hist);
    free(r.overflow_cycles);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_names_each_thread_by_its_kernel_tid),
        cmocka_unit_test(test_engine_keeps_one_overflow_cycle_per_histogram_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
