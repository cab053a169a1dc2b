/*
 * Unit tests for src/engine/engine.c and engine_threads.c that need no real-time privilege: a
 * short SCHED_OTHER run on CPU 0 of a few cycles; and the collector's running copy of such a
 * run whose ring overflowed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/units.h"
#include "engine/collector.h"
#include "engine/engine.h"
#include "engine/ring.h"
#include "out/report.h"

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

/* What a histogram holds in its buckets and beyond them. */
static uint64_t hist_total(const struct latency_hist *h)
{
    uint64_t n = h->overflow;
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++)
        n += h->buckets[i];
    return n - h->underflow; /* an underflow is in bucket 0 too */
}

static struct engine *create_on_cpu0(struct engine_config *cfg, struct cpulist *cpus,
                                     uint64_t loops, int64_t tolerance_ns, int64_t deadline_ns)
{
    cpulist_add(cpus, 0);
    *cfg = (struct engine_config){.interval_ns = NS_PER_MS,
                                  .loops = loops,
                                  .policy = SCHED_OTHER,
                                  .cpus = cpus,
                                  .tolerance_ns = tolerance_ns,
                                  .deadline_ns = deadline_ns};
    char err[256];
    struct engine *e = engine_create(cfg, err, sizeof(err));
    assert_non_null(e);
    return e;
}

static struct engine *run_on_cpu0(struct engine_config *cfg, struct cpulist *cpus, uint64_t loops)
{
    struct engine *e = create_on_cpu0(cfg, cpus, loops, -1, NS_PER_MS);
    char err[256];
    assert_int_equal(engine_start(e, err, sizeof(err)), 0);
    return e;
}

enum { DROP_LOOPS = 300, DROP_FIT = 100 };

/* A run of DROP_LOOPS cycles whose ring holds only DROP_FIT of them: it is
 * filled before the start with *fakes samples that add nothing but their
 * count, and nothing is drained until the end. Returned joined. */
static struct engine *run_that_drops(struct engine_config *cfg, struct cpulist *cpus,
                                     uint64_t *fakes)
{
    /* tolerance 0 and a 1 ns deadline: every real sample is over both */
    struct engine *e = create_on_cpu0(cfg, cpus, DROP_LOOPS, 0, 1);
    struct sample_ring *ring = engine_ring(e, 0);
    *fakes = ring->mask + 1 - DROP_FIT;
    struct cycle_sample zero = {0};
    for (uint64_t k = 0; k < *fakes; k++)
        assert_true(sample_ring_push(ring, &zero));
    char err[256];
    assert_int_equal(engine_start(e, err, sizeof(err)), 0);
    while (!engine_finished(e))
        usleep(1000);
    engine_join(e);
    assert_int_equal(engine_ring_drops(e, 0), DROP_LOOPS - DROP_FIT);
    return e;
}

/* Period, execution and response statistics, tolerance and deadline
 * counts are counted by the ring's consumer for the samples it takes and
 * by the thread for those the ring drops: the result stays exact when the
 * ring overflows. The ring is filled before the start with samples that
 * add nothing but their count, so that 100 of the run's 300 samples fit
 * and 200 are dropped; nothing is drained until the end. */
static void test_engine_tally_is_exact_when_the_ring_drops(void **state)
{
    (void)state;
    enum { LOOPS = DROP_LOOPS };
    struct cpulist cpus = {0};
    struct engine_config cfg;
    uint64_t fakes;
    struct engine *e = run_that_drops(&cfg, &cpus, &fakes);
    engine_settle(e);
    const struct cpu_result *r = engine_result(e, 0);
    assert_int_equal(r->samples, LOOPS);
    assert_int_equal(r->over_tolerance, LOOPS);
    assert_int_equal(r->deadline_misses, LOOPS);
    assert_int_equal(r->exec.count, fakes + LOOPS);
    assert_int_equal(r->response.count, fakes + LOOPS);
    /* a period for every sample but the first and those after a miss */
    assert_int_equal(r->period.count, LOOPS - 1 - r->missed_events);
    assert_true(r->period.min > 0);
    assert_true(r->response.max >= r->latency.max);
    assert_true(r->exec.max > 0); /* the dropped samples' own, not the zeros */
    assert_int_equal(hist_total(r->exec_hist), fakes + LOOPS);
    assert_int_equal(hist_total(r->response_hist), fakes + LOOPS);
    assert_int_equal(r->exec_hist->count, fakes + LOOPS);
    /* settling again changes nothing */
    struct cpu_result before = *r;
    engine_settle(e);
    assert_memory_equal(&before, engine_result(e, 0), sizeof(before));
    engine_destroy(e);
}

/* The collector's running copy (what SIGUSR1 writes) holds what the ring
 * delivered and knows how many samples the ring dropped; a result so far
 * built from it says it lacks them, the final result lacks nothing. */
static void test_running_copy_knows_what_the_ring_dropped(void **state)
{
    (void)state;
    struct cpulist cpus = {0};
    struct engine_config cfg;
    uint64_t fakes;
    struct engine *e = run_that_drops(&cfg, &cpus, &fakes);
    struct collector_config ccfg = {0};
    struct collector c;
    char err[256];
    assert_int_equal(collector_init(&c, &ccfg, NULL, e, err, sizeof(err)), 0);
    collector_drain(&c);
    const struct cpu_result *running = collector_running_result(&c, 0);
    assert_int_equal(running->samples, fakes + DROP_FIT);
    assert_int_equal(running->ring_drops, DROP_LOOPS - DROP_FIT);
    struct run_report so_far = {.in_progress = true}, final = {.in_progress = false};
    assert_int_equal(run_report_cpu_lacking(&so_far, running), DROP_LOOPS - DROP_FIT);
    engine_settle(e);
    assert_int_equal(engine_result(e, 0)->samples, DROP_LOOPS);
    assert_int_equal(run_report_cpu_lacking(&final, engine_result(e, 0)), 0);
    collector_free(&c);
    engine_destroy(e);
}

/* Without drops, the tally is that of the samples the consumer took, in
 * their order: the same doubles as the statistics counted from them here. */
static void test_engine_tally_is_that_of_the_drained_samples(void **state)
{
    (void)state;
    enum { LOOPS = 40 };
    struct cpulist cpus = {0};
    struct engine_config cfg;
    struct engine *e = run_on_cpu0(&cfg, &cpus, LOOPS);
    struct running_stats period, exec, response;
    running_stats_init(&period);
    running_stats_init(&exec);
    running_stats_init(&response);
    struct cycle_sample buf[8];
    uint64_t seen = 0, late = 0;
    bool finished = false;
    while (!finished) {
        finished = engine_finished(e); /* one more pass after the end */
        uint64_t got;
        while ((got = engine_drain(e, 0, buf, 8)) > 0)
            for (uint64_t k = 0; k < got; k++, seen++) {
                if (buf[k].period_ns > 0)
                    running_stats_add(&period, buf[k].period_ns);
                running_stats_add(&exec, buf[k].exec_ns);
                running_stats_add(&response, buf[k].latency_ns + buf[k].exec_ns);
                late += buf[k].latency_ns + buf[k].exec_ns > NS_PER_MS;
            }
        usleep(2000);
    }
    engine_join(e);
    engine_settle(e);
    assert_int_equal(seen, LOOPS);
    const struct cpu_result *r = engine_result(e, 0);
    assert_memory_equal(&r->period, &period, sizeof(period));
    assert_memory_equal(&r->exec, &exec, sizeof(exec));
    assert_memory_equal(&r->response, &response, sizeof(response));
    assert_int_equal(r->deadline_misses, late);
    assert_int_equal(r->exec_hist->count, LOOPS);
    assert_int_equal(hist_total(r->exec_hist), LOOPS);
    assert_int_equal(hist_total(r->response_hist), LOOPS);
    assert_int_equal(r->response_hist->max_ns, response.max);
    engine_destroy(e);
}

/* The loop writes only the buckets of its histograms; at the end their
 * count, min and max are those of the running statistics of the same
 * values, as a histogram filled the usual way has them. */
static void test_engine_histograms_are_complete_after_the_loop(void **state)
{
    (void)state;
    struct cpulist cpus = {0};
    struct engine_config cfg;
    struct engine *e = run_on_cpu0(&cfg, &cpus, 20);
    while (!engine_finished(e))
        usleep(1000);
    engine_join(e);
    engine_settle(e);
    const struct cpu_result *r = engine_result(e, 0);
    assert_int_equal(r->samples, 20);
    assert_int_equal(r->hist.count, 20);
    assert_int_equal(r->hist.min_ns, r->latency.min);
    assert_int_equal(r->hist.max_ns, r->latency.max);
    assert_true(r->hist.min_ns <= r->hist.max_ns);
    uint64_t in_buckets = 0;
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++)
        in_buckets += r->hist.buckets[i];
    assert_int_equal(in_buckets + r->hist.overflow, 20);
    assert_int_equal(r->exec_hist->count, 20);
    assert_int_equal(r->exec_hist->max_ns, r->exec.max);
    assert_int_equal(r->response_hist->count, 20);
    assert_int_equal(r->response_hist->min_ns, r->response.min);
    assert_true(r->page_faults >= 0);
    engine_destroy(e);
}

/* A fault the loop takes is counted: the ring's pages are given back to
 * the kernel after the start, so that the pushes that follow fault them in
 * again. */
static void test_engine_counts_the_page_faults_of_its_loop(void **state)
{
    (void)state;
    struct cpulist cpus = {0};
    struct engine_config cfg;
    struct engine *e = run_on_cpu0(&cfg, &cpus, 300);
    struct sample_ring *ring = engine_ring(e, 0);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)ring->slots + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)(ring->slots + ring->mask + 1)) & ~(page - 1);
    assert_true(hi > lo);
    munlockall(); /* a locked page cannot be given back */
    assert_int_equal(madvise((void *)lo, hi - lo, MADV_DONTNEED), 0);
    while (!engine_finished(e))
        usleep(1000);
    engine_join(e);
    const struct cpu_result *r = engine_result(e, 0);
    assert_int_equal(r->samples, 300);
    /* 300 samples of 64 bytes span at least four pages, three given back */
    assert_true(r->page_faults >= 3);
    engine_destroy(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_names_each_thread_by_its_kernel_tid),
        cmocka_unit_test(test_engine_keeps_one_overflow_cycle_per_histogram_row),
        cmocka_unit_test(test_engine_histograms_are_complete_after_the_loop),
        cmocka_unit_test(test_engine_counts_the_page_faults_of_its_loop),
        cmocka_unit_test(test_engine_tally_is_exact_when_the_ring_drops),
        cmocka_unit_test(test_running_copy_knows_what_the_ring_dropped),
        cmocka_unit_test(test_engine_tally_is_that_of_the_drained_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
