/*
 * Unit tests for `run --explain`'s reading of the trace (src/trace/
 * explain.c) on rings in plain memory (trace_capture_open_memory) filled
 * with hand-built perf records: which spikes wait for their events, and
 * which are flagged when the kernel lost records (a full ring, then
 * PERF_RECORD_LOST written with the first record that fitted again).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "engine/ring.h"
#include "sys/cpulist.h"
#include "trace/attribute.h"
#include "trace/capture.h"
#include "trace/explain.h"
#include "sys/system_info.h"
#include "../fixtures/trace_formats.h"
#include "test_fixture.h"
#include "test_perf_records.h"

#define CPU      1
#define TID      4242
#define START_NS (1000 * NS_PER_MS) /* the run's planned wake-up 0 */
#define LATENCY  (20 * NS_PER_US)   /* an ordinary cycle's */
#define SPIKE    (500 * NS_PER_US)
#define EXEC     (10 * NS_PER_US)

static struct trace_decoder decoder;
static struct tep_handle *tep;
static uint16_t switch_id;

static int setup(void **state)
{
    (void)state;
    tep = trace_test_decoder(&decoder);
    if (!tep)
        return -1;
    switch_id = (uint16_t)tep_find_event_by_name(tep, "sched", "sched_switch")->id;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tep_free(tep);
    return 0;
}

struct fixture {
    struct cpulist cpus;
    struct trace_capture *tc;
    struct explain x;
    int attributed; /* spikes attributed so far */
};

static void count_attributed(void *arg, int i, const struct spike *s)
{
    (void)i;
    (void)s;
    ((struct fixture *)arg)->attributed++;
}

/* An explainer at 1 ms with a 100 us threshold reading one memory ring of
 * ring_bytes for CPU 1. */
static void open_fixture(struct fixture *f, size_t ring_bytes)
{
    memset(f, 0, sizeof(*f));
    cpulist_add(&f->cpus, CPU);
    assert_int_equal(trace_capture_open_memory(&f->cpus, ring_bytes, &decoder, &f->tc), 0);
    struct explain_config cfg = {.cpus = &f->cpus,
                                 .interval_ns = NS_PER_MS,
                                 .threshold_ns = 100 * NS_PER_US,
                                 .keep = 16,
                                 .poll_period_ns = 100 * NS_PER_MS,
                                 .attributed = count_attributed,
                                 .attributed_arg = f,
                                 .capture = f->tc};
    char err[256];
    assert_int_equal(explain_open(&f->x, &cfg, err, sizeof(err)), 0);
    int tids[1] = {TID};
    assert_int_equal(explain_start(&f->x, START_NS, tids), 0);
}

static int64_t latency_of(int k, const int *spikes, size_t nspikes)
{
    for (size_t i = 0; i < nspikes; i++)
        if (spikes[i] == k)
            return SPIKE;
    return LATENCY;
}

/* The kernel's records of cycles [from, to): the switch to the measuring
 * thread at its wake-up and away from it at the end of its work. */
static void write_cycles(struct fixture *f, int from, int to, const int *spikes, size_t nspikes)
{
    uint8_t raw[64], rec[PERF_RECORD_MAX];
    for (int k = from; k < to; k++) {
        int64_t wake = START_NS + k * NS_PER_MS + latency_of(k, spikes, nspikes);
        switch_raw(raw, switch_id, "swapper/1", 0, 120, 0, "jitterlab", TID, 9);
        trace_capture_memory_write(f->tc, 0, rec,
                                   perf_sample_record(rec, (uint64_t)wake, 0, raw, 64));
        switch_raw(raw, switch_id, "jitterlab", TID, 9, 1, "swapper/1", 0, 120);
        trace_capture_memory_write(f->tc, 0, rec,
                                   perf_sample_record(rec, (uint64_t)(wake + EXEC), TID, raw, 64));
    }
}

/* The engine's samples of cycles [from, to), as the collector hands them. */
static void feed_samples(struct fixture *f, int from, int to, const int *spikes, size_t nspikes)
{
    for (int k = from; k < to; k++) {
        int64_t lat = latency_of(k, spikes, nspikes);
        struct cycle_sample s = {.t_ns = k * NS_PER_MS + lat, .latency_ns = lat, .exec_ns = EXEC};
        explain_sample(&f->x, CPU, &s);
    }
}

static const struct spike *kept_at(const struct explain *x, int cycle)
{
    for (size_t i = 0; i < x->kept_count; i++)
        if (x->kept[i].planned_ns == START_NS + cycle * NS_PER_MS)
            return &x->kept[i];
    fail_msg("no kept spike at cycle %d", cycle);
    return NULL;
}

/* A ring that filled up: the records of cycles 19-24 were dropped, the
 * kernel said so only with the first record of cycle 25. The spike of
 * cycle 20 lies in the gap: it waits while the ring reads empty, then is
 * flagged; the spikes of cycles 10 and 30, whose events are all there,
 * are not, though the loss was read in the same pass as cycle 30. */
static void test_spikes_in_a_gap_wait_for_the_loss_and_only_they_are_flagged(void **state)
{
    (void)state;
    static struct fixture f;
    open_fixture(&f, 16 * 1024); /* small enough to be full at any read */
    const int spikes[] = {10, 20, 30, 35};
    const size_t ns = sizeof(spikes) / sizeof(spikes[0]);

    write_cycles(&f, 0, 19, spikes, ns);
    feed_samples(&f, 0, 21, spikes, ns);
    explain_drained(&f.x);
    /* the trace reaches cycle 18 only: the spike of cycle 20 is not covered */
    assert_int_equal(f.attributed, 1);

    uint8_t rec[PERF_RECORD_MAX];
    trace_capture_memory_write(f.tc, 0, rec, perf_lost_record(rec, 12));
    write_cycles(&f, 25, 33, spikes, ns);
    feed_samples(&f, 21, 33, spikes, ns);
    explain_drained(&f.x);
    assert_int_equal(f.attributed, 3);

    /* cycle 35's spike: no record after it, and the ring may have dropped
     * some that the kernel never reported before the run ended */
    feed_samples(&f, 33, 36, spikes, ns);
    explain_drained(&f.x);
    assert_int_equal(f.attributed, 3);
    explain_finish(&f.x);
    assert_int_equal(f.attributed, 4);

    assert_int_equal(f.x.kept_count, 4);
    assert_int_equal(f.x.events_lost, 12);
    assert_false(kept_at(&f.x, 10)->flags & SPIKE_EVENTS_LOST);
    const struct spike *gap = kept_at(&f.x, 20);
    assert_true(gap->flags & SPIKE_EVENTS_LOST);
    assert_int_equal(gap->ncauses, 1);
    assert_int_equal(gap->causes[0].kind, CAUSE_UNEXPLAINED);
    assert_string_equal(gap->causes[0].name, "events lost");
    assert_false(kept_at(&f.x, 30)->flags & SPIKE_EVENTS_LOST);
    assert_true(kept_at(&f.x, 35)->flags & SPIKE_EVENTS_LOST);
    explain_free(&f.x);
}

/* A ring far from full cannot have dropped anything: a spike is attributed
 * in the pass that reads its ring empty, even with no record after it. */
static void test_a_ring_with_room_explains_a_spike_once_read_empty(void **state)
{
    (void)state;
    static struct fixture f;
    open_fixture(&f, 256 * 1024);
    const int spikes[] = {10};
    write_cycles(&f, 0, 10, spikes, 1);
    uint8_t raw[64], rec[PERF_RECORD_MAX];
    switch_raw(raw, switch_id, "swapper/1", 0, 120, 0, "jitterlab", TID, 9);
    trace_capture_memory_write(
        f.tc, 0, rec,
        perf_sample_record(rec, (uint64_t)(START_NS + 10 * NS_PER_MS + SPIKE), 0, raw, 64));
    feed_samples(&f, 0, 11, spikes, 1);
    explain_drained(&f.x);
    assert_int_equal(f.attributed, 1);
    explain_finish(&f.x);
    assert_int_equal(f.x.kept_count, 1);
    assert_false(f.x.kept[0].flags & SPIKE_EVENTS_LOST);
    explain_free(&f.x);
}

/* The trace's priority names the class; a policy read from the live task
 * refines it only within that class. A task gone by the end (short-lived
 * children of a FIFO parent) is still real-time, never SCHED_OTHER, and
 * never a vague "RT"; a pid now another task's cannot change the class. */
static void test_thread_policy_comes_from_the_trace_priority(void **state)
{
    (void)state;
    assert_string_equal(explain_thread_policy(49, -1), "SCHED_FIFO/RR"); /* FIFO 50, gone */
    assert_string_equal(explain_thread_policy(49, SCHED_FIFO), "SCHED_FIFO");
    assert_string_equal(explain_thread_policy(49, SCHED_RR), "SCHED_RR");
    assert_string_equal(explain_thread_policy(49, SCHED_OTHER), "SCHED_FIFO/RR");
    assert_string_equal(explain_thread_policy(120, SCHED_FIFO), "SCHED_OTHER");
    assert_string_equal(explain_thread_policy(120, SCHED_BATCH), "SCHED_BATCH");
    assert_string_equal(explain_thread_policy(120, -1), "SCHED_OTHER");
    assert_string_equal(explain_thread_policy(-1, SCHED_OTHER), "SCHED_DEADLINE");
    assert_string_equal(cause_policy_name(49), "SCHED_FIFO/RR");
    assert_int_equal(cause_user_priority(49), 50);
}

/* explain_platform_read of fixture name, measuring cpus. */
static struct explain_platform platform_of(const char *name, const char *cpus)
{
    struct sysroot sr;
    struct cpulist list;
    static struct system_info si;
    struct explain_platform pl;
    fixture_sysroot(&sr, name);
    assert_int_equal(cpulist_parse(cpus, &list, NULL), 0);
    system_info_read(&sr, &si);
    explain_platform_read(&sr, &si, &list, &pl);
    return pl;
}

/* What tells a halted vCPU from an idle state, read from fixture trees: the
 * development VM is a guest without a cpuidle driver; the EPYC server is bare
 * metal whose deepest state declares 350 us. */
static void test_platform_read_from_the_machine(void **state)
{
    (void)state;
    struct explain_platform vm = platform_of("vm-haltpoll", "1");
    assert_true(vm.hypervisor);
    assert_false(vm.idle_driver);
    assert_int_equal(vm.idle_exit_latency_max_ns, 0);

    struct explain_platform epyc = platform_of("amd-epyc", "3");
    assert_false(epyc.hypervisor);
    assert_true(epyc.idle_driver);
    assert_int_equal(epyc.idle_exit_latency_max_ns, 350000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spikes_in_a_gap_wait_for_the_loss_and_only_they_are_flagged),
        cmocka_unit_test(test_a_ring_with_room_explains_a_spike_once_read_empty),
        cmocka_unit_test(test_thread_policy_comes_from_the_trace_priority),
        cmocka_unit_test(test_platform_read_from_the_machine),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
