/*
 * Unit tests for src/engine/engine.c that need no real-time privilege: a
 * short SCHED_OTHER run on CPU 0 of a few cycles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_names_each_thread_by_its_kernel_tid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
