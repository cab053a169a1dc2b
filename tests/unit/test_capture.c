/*
 * Unit tests for the tracepoint capture: the decoder (src/trace/
 * trace_decode.c) on hand-built perf ring buffers (PERF_SAMPLE_TIME | RAW), with the formats of
 * tests/fixtures/trace_formats.h (records that wrap the ring end, a
 * truncated record, a raw field past its record, PERF_RECORD_LOST), and the
 * live capture (src/trace/capture.c) on a pinned sleeper, which needs root
 * and tracefs and otherwise says why it did not run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/units.h"
#include "sys/cpulist.h"
#include "trace/capture.h"
#include "trace/trace_decode.h"
#include "../fixtures/trace_formats.h"
#include "test_perf_records.h"

#define RING_BYTES 4096u

/* A perf data area and the writer's position in it. */
struct ring {
    uint8_t data[RING_BYTES];
    uint64_t head;
};

static struct trace_decoder decoder;
static struct tep_handle *tep;

static int setup(void **state)
{
    (void)state;
    tep = trace_test_decoder(&decoder);
    return tep ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tep_free(tep);
    return 0;
}

static void ring_put(struct ring *r, const void *src, size_t len)
{
    const uint8_t *p = src;
    for (size_t i = 0; i < len; i++)
        r->data[(r->head + i) % RING_BYTES] = p[i];
    r->head += len;
}

static void put_sample(struct ring *r, uint64_t t_ns, uint32_t tid, const void *raw,
                       uint32_t raw_len)
{
    uint8_t rec[PERF_RECORD_MAX];
    ring_put(r, rec, perf_sample_record(rec, t_ns, tid, raw, raw_len));
}

static uint16_t event_id(const char *system, const char *name)
{
    struct tep_event *ev = tep_find_event_by_name(tep, system, name);
    assert_non_null(ev);
    return (uint16_t)ev->id;
}

/* sched_switch raw bytes for the fixture's format. */
static void switch_of(uint8_t raw[64], const char *prev, int32_t prev_pid, int32_t prev_prio,
                      int64_t prev_state, const char *next, int32_t next_pid, int32_t next_prio)
{
    switch_raw(raw, event_id("sched", "sched_switch"), prev, prev_pid, prev_prio, prev_state, next,
               next_pid, next_prio);
}

static size_t decode(struct ring *r, uint64_t *tail, struct trace_event *out, size_t max,
                     uint64_t *lost)
{
    return trace_decode_ring(&decoder, r->data, RING_BYTES, r->head, tail, 1, out, max, lost);
}

static void test_decode_sched_switch_fills_both_tasks(void **state)
{
    (void)state;
    static struct ring r;
    memset(&r, 0, sizeof(r));
    uint8_t raw[64];
    switch_of(raw, "sleeper", 4711, 120, 1, "disturb", 4712, 4);
    put_sample(&r, 123456789, 4711, raw, sizeof(raw));
    struct trace_event ev[4];
    uint64_t tail = 0, lost = 0;
    assert_int_equal(decode(&r, &tail, ev, 4, &lost), 1);
    assert_int_equal(tail, r.head);
    assert_int_equal(lost, 0);
    assert_int_equal(ev[0].kind, TRACE_SWITCH);
    assert_int_equal(ev[0].t_ns, 123456789);
    assert_int_equal(ev[0].cpu, 1);
    assert_int_equal(ev[0].pid, 4712);
    assert_int_equal(ev[0].prio, 4);
    assert_string_equal(ev[0].name, "disturb");
    assert_int_equal(ev[0].prev_pid, 4711);
    assert_int_equal(ev[0].prev_prio, 120);
    assert_string_equal(ev[0].prev_comm, "sleeper");
    assert_int_equal(ev[0].arg, 1);
}

static void test_decode_names_irq_softirq_vector_and_idle_exit(void **state)
{
    (void)state;
    static struct ring r;
    memset(&r, 0, sizeof(r));
    /* irq_handler_entry: irq at 8, __data_loc name at 12 -> "virtio0" at 16 */
    uint8_t irq[24] = {0};
    uint16_t type = event_id("irq", "irq_handler_entry");
    memcpy(irq, &type, 2);
    int32_t n = 11;
    memcpy(irq + 8, &n, 4);
    uint32_t loc = (8u << 16) | 16u;
    memcpy(irq + 12, &loc, 4);
    memcpy(irq + 16, "virtio0", 8);
    put_sample(&r, 10, 77, irq, sizeof(irq));
    uint8_t soft[12] = {0};
    type = event_id("irq", "softirq_entry");
    memcpy(soft, &type, 2);
    uint32_t vec = 1;
    memcpy(soft + 8, &vec, 4);
    put_sample(&r, 20, 0, soft, sizeof(soft));
    uint8_t lt[12] = {0};
    type = event_id("irq_vectors", "local_timer_entry");
    memcpy(lt, &type, 2);
    int32_t vector = 236;
    memcpy(lt + 8, &vector, 4);
    put_sample(&r, 30, 0, lt, sizeof(lt));
    uint8_t idle[16] = {0};
    type = event_id("power", "cpu_idle");
    memcpy(idle, &type, 2);
    uint32_t st = UINT32_MAX;
    memcpy(idle + 8, &st, 4);
    put_sample(&r, 40, 0, idle, sizeof(idle));
    uint8_t hr[32] = {0};
    type = event_id("timer", "hrtimer_expire_entry");
    memcpy(hr, &type, 2);
    uint64_t timer = 0xffff888001234560ull, now = 39, fn = 0xffffffff81234567ull;
    memcpy(hr + 8, &timer, 8);
    memcpy(hr + 16, &now, 8);
    memcpy(hr + 24, &fn, 8);
    put_sample(&r, 50, 0, hr, sizeof(hr));

    struct trace_event ev[8];
    uint64_t tail = 0, lost = 0;
    assert_int_equal(decode(&r, &tail, ev, 8, &lost), 5);
    assert_int_equal(lost, 0);
    assert_int_equal(ev[0].kind, TRACE_IRQ_ENTRY);
    assert_int_equal(ev[0].pid, 77); /* the task it interrupted: the raw part's common_pid */
    assert_int_equal(ev[0].cpu, 1);  /* the ring's CPU */
    assert_int_equal(ev[0].id, 11);
    assert_string_equal(ev[0].name, "virtio0");
    assert_int_equal(ev[1].kind, TRACE_SOFTIRQ_ENTRY);
    assert_string_equal(ev[1].name, "TIMER");
    assert_int_equal(ev[2].kind, TRACE_VECTOR_ENTRY);
    assert_string_equal(ev[2].name, "local_timer");
    assert_int_equal(ev[2].id, 236);
    assert_int_equal(ev[3].kind, TRACE_IDLE);
    assert_int_equal(ev[3].arg, -1);
    assert_int_equal(ev[4].kind, TRACE_HRTIMER_ENTRY);
    assert_int_equal(ev[4].id, timer);
    assert_int_equal(ev[4].arg, 39);
    assert_string_equal(ev[4].name, "0xffffffff81234567"); /* no symbols loaded */
}

static void test_decode_records_crossing_the_wrap_point(void **state)
{
    (void)state;
    static struct ring r;
    memset(&r, 0, sizeof(r));
    uint8_t raw[64];
    /* Start 40 bytes before the end: the first record's body wraps. */
    r.head = 10 * RING_BYTES - 40;
    uint64_t tail = r.head, lost = 0;
    for (int i = 0; i < 3; i++) {
        switch_of(raw, "a", 100 + i, 120, 0, "b", 200 + i, 120);
        put_sample(&r, (uint64_t)(1000 + i), 1, raw, sizeof(raw));
    }
    struct trace_event ev[4];
    assert_int_equal(decode(&r, &tail, ev, 4, &lost), 3);
    assert_int_equal(lost, 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ev[i].t_ns, 1000 + i);
        assert_int_equal(ev[i].prev_pid, 100 + i);
        assert_int_equal(ev[i].pid, 200 + i);
    }
}

static void test_decode_leaves_what_does_not_fit_for_the_next_call(void **state)
{
    (void)state;
    static struct ring r;
    memset(&r, 0, sizeof(r));
    uint8_t raw[64];
    switch_of(raw, "a", 1, 120, 0, "b", 2, 120);
    for (int i = 0; i < 3; i++)
        put_sample(&r, (uint64_t)i, 1, raw, sizeof(raw));
    struct trace_event ev[2];
    uint64_t tail = 0, lost = 0;
    assert_int_equal(decode(&r, &tail, ev, 2, &lost), 2);
    assert_true(tail < r.head);
    assert_int_equal(decode(&r, &tail, ev, 2, &lost), 1);
    assert_int_equal(ev[0].t_ns, 2);
    assert_int_equal(tail, r.head);
}

static void test_decode_counts_a_truncated_record_as_lost(void **state)
{
    (void)state;
    static struct ring r;
    memset(&r, 0, sizeof(r));
    uint8_t raw[64];
    switch_of(raw, "a", 1, 120, 0, "b", 2, 120);
    put_sample(&r, 1, 1, raw, sizeof(raw));
    put_sample(&r, 2, 1, raw, sizeof(raw));
    r.head -= 16; /* the second record claims more than there is */
    struct trace_event ev[4];
    uint64_t tail = 0, lost = 0;
    assert_int_equal(decode(&r, &tail, ev, 4, &lost), 2);
    assert_int_equal(lost, 1);
    assert_int_equal(tail, r.head);
    assert_int_equal(ev[0].t_ns, 1);
    assert_int_equal(ev[1].kind, TRACE_LOST); /* the loss follows the record before it */
    assert_int_equal(ev[1].arg, 1);
}

static void test_decode_counts_fields_past_the_raw_data_as_lost(void **state)
{
    (void)state;
    static struct ring r;
    memset(&r, 0, sizeof(r));
    uint8_t raw[64];
    switch_of(raw, "a", 1, 120, 0, "b", 2, 120);
    put_sample(&r, 1, 1, raw, 40); /* next_comm, next_pid, next_prio cut off */
    uint8_t irq[16] = {0};
    uint16_t type = event_id("irq", "irq_handler_entry");
    memcpy(irq, &type, 2);
    uint32_t loc = (200u << 16) | 16u; /* name runs past the record */
    memcpy(irq + 12, &loc, 4);
    put_sample(&r, 2, 1, irq, sizeof(irq));
    put_sample(&r, 3, 1, raw, sizeof(raw));
    struct trace_event ev[4];
    uint64_t tail = 0, lost = 0;
    assert_int_equal(decode(&r, &tail, ev, 4, &lost), 2);
    assert_int_equal(ev[0].kind, TRACE_LOST); /* two losses in a row: one marker */
    assert_int_equal(ev[0].arg, 2);
    assert_int_equal(ev[1].t_ns, 3);
    assert_int_equal(lost, 2);
}

static void test_decode_adds_perf_record_lost(void **state)
{
    (void)state;
    static struct ring r;
    memset(&r, 0, sizeof(r));
    uint8_t rec[PERF_RECORD_MAX];
    ring_put(&r, rec, perf_lost_record(rec, 42));
    uint8_t raw[64];
    switch_of(raw, "a", 1, 120, 0, "b", 2, 120);
    put_sample(&r, 5, 1, raw, sizeof(raw));
    struct trace_event ev[4];
    uint64_t tail = 0, lost = 0;
    assert_int_equal(decode(&r, &tail, ev, 4, &lost), 2);
    assert_int_equal(lost, 42);
    /* in stream order: the gap lies before the record that follows it */
    assert_int_equal(ev[0].kind, TRACE_LOST);
    assert_int_equal(ev[0].arg, 42);
    assert_int_equal(ev[1].kind, TRACE_SWITCH);
    assert_int_equal(ev[1].t_ns, 5);
}

static void test_decode_distrusts_a_writer_that_lapped_the_reader(void **state)
{
    (void)state;
    static struct ring r;
    memset(&r, 0, sizeof(r));
    r.head = 3 * RING_BYTES;
    struct trace_event ev[4];
    uint64_t tail = 0, lost = 0;
    assert_int_equal(decode(&r, &tail, ev, 4, &lost), 1);
    assert_int_equal(ev[0].kind, TRACE_LOST);
    assert_int_equal(lost, 1);
    assert_int_equal(tail, r.head);
}

/* What each tracepoint recorded, for the cost per tracepoint: the records
 * decoded of each, those with none and the malformed ones left out. */
static void test_capture_counts_records_per_tracepoint(void **state)
{
    (void)state;
    struct cpulist cpus;
    memset(&cpus, 0, sizeof(cpus));
    cpulist_add(&cpus, 1);
    struct trace_capture *tc;
    assert_int_equal(trace_capture_open_memory(&cpus, RING_BYTES, &decoder, &tc), 0);
    uint8_t rec[PERF_RECORD_MAX], raw[64];
    switch_of(raw, "a", 1, 120, 0, "b", 2, 120);
    for (int k = 0; k < 3; k++)
        trace_capture_memory_write(tc, 0, rec, perf_sample_record(rec, 10 + k, 1, raw, 64));
    uint8_t lt[12] = {0};
    uint16_t type = event_id("irq_vectors", "local_timer_entry");
    memcpy(lt, &type, 2);
    trace_capture_memory_write(tc, 0, rec, perf_sample_record(rec, 20, 0, lt, sizeof(lt)));
    /* a switch whose raw part ends before its fields: lost, not counted */
    trace_capture_memory_write(tc, 0, rec, perf_sample_record(rec, 30, 1, raw, 24));
    struct trace_event ev[8];
    assert_int_equal(trace_capture_read(tc, 0, ev, 8), 5);
    const char *event[TRACE_MAX_FORMATS];
    uint64_t count[TRACE_MAX_FORMATS];
    assert_int_equal(trace_capture_counts(tc, event, count, TRACE_MAX_FORMATS), 2);
    assert_string_equal(event[0], "sched:sched_switch");
    assert_int_equal(count[0], 3);
    assert_string_equal(event[1], "irq_vectors:local_timer_entry");
    assert_int_equal(count[1], 1);
    assert_int_equal(trace_capture_counts(tc, event, count, 1), 1); /* at most max */
    assert_int_equal(trace_capture_lost(tc), 1);
    trace_capture_close(tc);
}

static void test_capture_buffer_grows_with_the_event_rate(void **state)
{
    (void)state;
    size_t slow = trace_capture_bytes_for(10 * NS_PER_MS, 100 * NS_PER_MS);
    size_t fast = trace_capture_bytes_for(50 * NS_PER_US, 100 * NS_PER_MS);
    assert_int_equal(slow, 1u << 20);
    assert_true(fast > slow);
    assert_true(fast <= 16u << 20);
    assert_int_equal(fast & (fast - 1), 0);
}

/* The live part: a sleeper pinned to the measured CPU. */
struct sleeper {
    int cpu;
    pid_t tid;
};

static void *sleeper_main(void *arg)
{
    struct sleeper *s = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(s->cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    s->tid = (pid_t)syscall(SYS_gettid);
    for (int i = 0; i < 20; i++) {
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void test_capture_sees_a_pinned_sleeper_switch_in_time(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        print_message("# not run: the live capture needs root\n");
        return;
    }
    struct cpulist cpus = {0};
    int cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
    cpulist_add(&cpus, cpu);
    struct trace_capture *tc = NULL;
    char err[512] = "";
    if (trace_capture_open(&cpus, 1u << 20, &tc, err, sizeof(err)) != 0) {
        print_message("# not run: %s\n", err);
        return;
    }
    struct sleeper s = {.cpu = cpu};
    int64_t before = monotonic_now_ns();
    assert_int_equal(trace_capture_enable(tc), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, sleeper_main, &s), 0);
    pthread_join(t, NULL);
    assert_int_equal(trace_capture_disable(tc), 0);
    int64_t after = monotonic_now_ns();

    static struct trace_event ev[65536];
    size_t n, switches = 0;
    while ((n = trace_capture_read(tc, 0, ev, 65536)) > 0) {
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(ev[i].cpu, cpu);
            assert_true(ev[i].t_ns >= before && ev[i].t_ns <= after);
            if (ev[i].kind == TRACE_SWITCH && ev[i].prev_pid == s.tid)
                switches++;
        }
    }
    assert_true(trace_capture_events(tc) > 0);
    trace_capture_close(tc);
    /* 20 sleeps: the sleeper left the CPU at least 20 times */
    assert_true(switches >= 20);
}

/* Whether the filter text passes tid: each "||" alternative is either
 * "FIELD == N" or "(FIELD >= A && FIELD <= B)"; *ranges counts them. */
static bool filter_passes(const char *filter, int tid, int *ranges)
{
    bool pass = false;
    *ranges = 0;
    for (const char *p = filter; p && *p;) {
        int a, b;
        if (sscanf(p, "(common_pid >= %d && common_pid <= %d)", &a, &b) == 2) {
            assert_true(a < b);
        } else {
            assert_int_equal(sscanf(p, "common_pid == %d", &a), 1);
            b = a;
        }
        pass |= tid >= a && tid <= b;
        (*ranges)++;
        p = strstr(p, " || ");
        if (p)
            p += 4;
    }
    return pass;
}

static void test_tid_filter_is_a_few_ranges_that_pass_every_tid(void **state)
{
    (void)state;
    char f[TRACE_FILTER_RANGES * 96];
    int ranges;
    int one[] = {4242};
    assert_int_equal(trace_capture_tid_filter("common_pid", one, 1, f, sizeof(f)), 0);
    assert_string_equal(f, "common_pid == 4242");
    /* 256 measuring threads created in a row, listed out of order: one range */
    int row[256];
    for (int i = 0; i < 256; i++)
        row[i] = 1000 + (i * 37) % 256;
    assert_int_equal(trace_capture_tid_filter("common_pid", row, 256, f, sizeof(f)), 0);
    assert_string_equal(f, "(common_pid >= 1000 && common_pid <= 1255)");
    /* scattered: every tid passes, at most 8 ranges, what the joins let
     * through lies between the tids */
    int spread[40];
    for (int i = 0; i < 40; i++)
        spread[i] = 500 + i * i * 13 + (i % 3);
    assert_int_equal(trace_capture_tid_filter("common_pid", spread, 40, f, sizeof(f)), 0);
    for (int i = 0; i < 40; i++)
        assert_true(filter_passes(f, spread[i], &ranges));
    assert_true(ranges >= 1 && ranges <= TRACE_FILTER_RANGES);
    assert_false(filter_passes(f, 499, &ranges));
    assert_false(filter_passes(f, spread[39] + 1, &ranges));
    /* the largest gaps stay out: the first tids are close, the last far */
    int far[] = {10, 11, 12, 500000, 500100, 500200, 500300, 500400, 500500, 500600, 500700};
    assert_int_equal(trace_capture_tid_filter("pid", far, 11, f, sizeof(f)), 0);
    assert_non_null(strstr(f, "(pid >= 10 && pid <= 12)"));
    /* nothing to pass, or no room: refused */
    assert_int_equal(trace_capture_tid_filter("common_pid", one, 0, f, sizeof(f)), -1);
    assert_int_equal(trace_capture_tid_filter("common_pid", row, 256, f, 10), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_sched_switch_fills_both_tasks),
        cmocka_unit_test(test_decode_names_irq_softirq_vector_and_idle_exit),
        cmocka_unit_test(test_decode_records_crossing_the_wrap_point),
        cmocka_unit_test(test_decode_leaves_what_does_not_fit_for_the_next_call),
        cmocka_unit_test(test_decode_counts_a_truncated_record_as_lost),
        cmocka_unit_test(test_decode_counts_fields_past_the_raw_data_as_lost),
        cmocka_unit_test(test_decode_adds_perf_record_lost),
        cmocka_unit_test(test_decode_distrusts_a_writer_that_lapped_the_reader),
        cmocka_unit_test(test_capture_counts_records_per_tracepoint),
        cmocka_unit_test(test_capture_buffer_grows_with_the_event_rate),
        cmocka_unit_test(test_capture_sees_a_pinned_sleeper_switch_in_time),
        cmocka_unit_test(test_tid_filter_is_a_few_ranges_that_pass_every_tid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
