/*
 * The pure parts of `jitterlab noise` (src/noise/): the time inside the
 * planned slices of a window, a gap split between report windows, noise
 * summed by cause and the longest gaps kept; and a measurement set up and
 * freed for 256 CPUs without starting a thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "noise/noise.h"
#include "noise/noise_causes.h"

#define MS INT64_C(1000000)
#define S  INT64_C(1000000000)

static void test_slices_overlap(void **state)
{
    (void)state;
    /* one slice (runtime == period): the window clipped to the run */
    assert_int_equal(noise_slices_overlap(0, S, 10 * S, 10 * S, 10 * S), S);
    assert_int_equal(noise_slices_overlap(9 * S, 11 * S, 10 * S, 10 * S, 10 * S), S);
    assert_int_equal(noise_slices_overlap(10 * S, 11 * S, 10 * S, 10 * S, 10 * S), 0);
    /* 950 ms of every second */
    assert_int_equal(noise_slices_overlap(0, S, 950 * MS, S, 10 * S), 950 * MS);
    assert_int_equal(noise_slices_overlap(0, 3 * S, 950 * MS, S, 10 * S), 3 * 950 * MS);
    assert_int_equal(noise_slices_overlap(900 * MS, 1100 * MS, 950 * MS, S, 10 * S),
                     50 * MS + 100 * MS);
    assert_int_equal(noise_slices_overlap(960 * MS, S, 950 * MS, S, 10 * S), 0);
    /* a window beyond the end, or empty */
    assert_int_equal(noise_slices_overlap(5 * S, 5 * S, 950 * MS, S, 10 * S), 0);
    assert_int_equal(noise_slices_overlap(-S, S, 950 * MS, S, 10 * S), 950 * MS);
}

static void test_a_gap_is_split_between_its_windows(void **state)
{
    (void)state;
    struct noise_window w[4];
    memset(w, 0, sizeof w);
    /* 300 ms windows; a 2 ms gap ending 1 ms into the second window */
    assert_true(noise_windows_add_gap(w, 4, 300 * MS, 301 * MS, 2 * MS));
    assert_int_equal(w[0].noise_ns, 1 * MS);
    assert_int_equal(w[1].noise_ns, 1 * MS);
    assert_int_equal(w[0].gaps, 0);
    assert_int_equal(w[1].gaps, 1);
    assert_int_equal(w[1].max_ns, 2 * MS);
    /* a 700 ms gap across three windows */
    assert_true(noise_windows_add_gap(w, 4, 300 * MS, 1000 * MS, 700 * MS));
    assert_int_equal(w[1].noise_ns, 1 * MS + 300 * MS);
    assert_int_equal(w[2].noise_ns, 300 * MS);
    assert_int_equal(w[3].noise_ns, 100 * MS);
    assert_int_equal(w[3].gaps, 1);
    assert_int_equal(w[3].max_ns, 700 * MS);
    /* ending exactly at a boundary: belongs to the window before */
    assert_true(noise_windows_add_gap(w, 4, 300 * MS, 600 * MS, 1000));
    assert_int_equal(w[1].gaps, 2);
    /* beyond the last window: not counted, its part inside still is */
    int64_t before = w[3].noise_ns;
    assert_false(noise_windows_add_gap(w, 4, 300 * MS, 1250 * MS, 100 * MS));
    assert_int_equal(w[3].noise_ns, before + 50 * MS);
    assert_int_equal(w[3].gaps, 1);
    /* nothing kept at all */
    assert_false(noise_windows_add_gap(w, 0, 300 * MS, 10 * MS, 1000));
}

static struct spike gap(int cpu, int64_t wake, int64_t len)
{
    struct spike s = {.cpu = cpu, .planned_ns = wake - len, .wake_ns = wake, .latency_ns = len};
    return s;
}

static void add_cause(struct spike *s, unsigned kind, const char *name, int32_t pid, int64_t ns)
{
    struct spike_cause *c = &s->causes[s->ncauses++];
    memset(c, 0, sizeof *c);
    c->kind = (uint16_t)kind;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->pid = pid;
    c->prio = kind == CAUSE_THREAD ? 4 : 0;
    c->policy = -1;
    c->ns = ns;
}

static void test_causes_are_summed_by_kind_and_name(void **state)
{
    (void)state;
    struct noise_causes c;
    assert_int_equal(noise_causes_init(&c, 3), 0);
    for (int k = 0; k < 10; k++) {
        struct spike s = gap(1, (k + 1) * MS, 2 * MS + k);
        add_cause(&s, CAUSE_THREAD, "spinner", 4711 + (k == 9), 2 * MS - 500);
        add_cause(&s, CAUSE_UNEXPLAINED, "no event", 0, 500 + k);
        noise_causes_add(&c, &s);
    }
    struct spike s = gap(1, 20 * MS, 3000);
    add_cause(&s, CAUSE_IRQ, "virtio1-req.0", 0, 3000);
    noise_causes_add(&c, &s);
    assert_int_equal(c.attributed, 11);
    struct noise_cause_row rows[NOISE_CAUSE_ROWS + 1];
    size_t n = noise_causes_sorted(&c, rows);
    assert_int_equal(n, 3);
    assert_int_equal(rows[0].kind, CAUSE_THREAD);
    assert_string_equal(rows[0].name, "spinner");
    assert_int_equal(rows[0].pid, 4711); /* the pid with most time; 4712 has a gap too */
    assert_int_equal(rows[0].pids.n, 2);
    assert_int_equal(rows[0].pids.pid[0].count, 9);
    assert_int_equal(rows[0].pids.pid[1].pid, 4712);
    assert_int_equal(rows[0].pids.pid[1].count, 1);
    assert_int_equal(rows[0].gaps, 10);
    assert_int_equal(rows[0].ns, 10 * (2 * MS - 500));
    assert_int_equal(rows[1].kind, CAUSE_UNEXPLAINED);
    assert_int_equal(rows[1].ns, 10 * 500 + 45);
    assert_int_equal(rows[2].kind, CAUSE_IRQ);
    assert_int_equal(c.total_ns, rows[0].ns + rows[1].ns + rows[2].ns);
    /* the three longest, longest first */
    size_t nl;
    const struct spike *l = noise_largest_sorted(&c, &nl);
    assert_int_equal(nl, 3);
    assert_int_equal(l[0].latency_ns, 2 * MS + 9);
    assert_int_equal(l[1].latency_ns, 2 * MS + 8);
    assert_int_equal(l[2].latency_ns, 2 * MS + 7);
    noise_causes_free(&c);
}

/* A gap counts once in a row, however many of its parts the row takes:
 * two threads of one source (same comm and priority) in one gap, and
 * same-named threads at two priorities are two rows. */
static void test_a_gap_counts_once_per_cause_and_priorities_stay_apart(void **state)
{
    (void)state;
    struct noise_causes c;
    assert_int_equal(noise_causes_init(&c, 0), 0);
    for (int k = 0; k < 4; k++) {
        struct spike s = gap(1, (k + 1) * MS, 300000);
        add_cause(&s, CAUSE_THREAD, "worker", 100, 100000);
        add_cause(&s, CAUSE_IRQ, "eth0", 0, 50000);
        add_cause(&s, CAUSE_THREAD, "worker", 101, 100000);
        add_cause(&s, CAUSE_THREAD, "disturb", 300, 40000);
        s.causes[3].prio = 99 - 5;
        add_cause(&s, CAUSE_THREAD, "disturb", 301, 10000);
        s.causes[4].prio = 99 - 10;
        noise_causes_add(&c, &s);
    }
    struct noise_cause_row rows[NOISE_CAUSE_ROWS + 1];
    size_t n = noise_causes_sorted(&c, rows);
    assert_int_equal(n, 4);
    assert_string_equal(rows[0].name, "worker");
    assert_int_equal(rows[0].gaps, 4);
    assert_int_equal(rows[0].ns, 4 * 200000);
    assert_int_equal(rows[0].pids.n, 2); /* each pid had a part in every gap */
    assert_int_equal(rows[0].pids.pid[0].count, 4);
    assert_int_equal(rows[0].pids.pid[1].count, 4);
    assert_string_equal(rows[1].name, "eth0");
    assert_int_equal(rows[1].gaps, 4);
    assert_string_equal(rows[2].name, "disturb");
    assert_int_equal(rows[2].pid, 300);
    assert_int_equal(rows[2].prio, 94);
    assert_int_equal(rows[2].gaps, 4);
    assert_int_equal(rows[2].ns, 4 * 40000);
    assert_string_equal(rows[3].name, "disturb");
    assert_int_equal(rows[3].pid, 301);
    assert_int_equal(rows[3].prio, 89);
    assert_int_equal(rows[3].ns, 4 * 10000);
    noise_causes_free(&c);
}

static void test_causes_beyond_the_rows_go_to_other(void **state)
{
    (void)state;
    struct noise_causes c;
    assert_int_equal(noise_causes_init(&c, 0), 0);
    for (int k = 0; k < NOISE_CAUSE_ROWS + 5; k++) {
        char name[16];
        snprintf(name, sizeof name, "irq%d", k);
        struct spike s = gap(1, (k + 1) * MS, 1000);
        add_cause(&s, CAUSE_IRQ, name, 0, 1000);
        noise_causes_add(&c, &s);
    }
    struct noise_cause_row rows[NOISE_CAUSE_ROWS + 1];
    size_t n = noise_causes_sorted(&c, rows);
    assert_int_equal(n, NOISE_CAUSE_ROWS + 1);
    /* the 5 late sources took the places of irq0..irq4, hit longest ago */
    assert_string_equal(rows[0].name, NOISE_OTHER_CAUSES); /* 5 x 1000 ns, the largest */
    assert_int_equal(rows[0].ns, 5000);
    assert_int_equal(rows[0].gaps, 5);
    assert_int_equal(rows[0].folded, 5);
    for (size_t i = 1; i < n; i++)
        assert_true(strcmp(rows[i].name, "irq0") != 0 && strcmp(rows[i].name, "irq4") != 0);
    /* a late source with much time keeps its row; a gap never folds a row
     * it has a part in */
    struct spike s = gap(1, 100 * MS, 50000);
    add_cause(&s, CAUSE_IRQ, "late", 0, 40000);
    add_cause(&s, CAUSE_IRQ, "later", 0, 10000);
    noise_causes_add(&c, &s);
    n = noise_causes_sorted(&c, rows);
    assert_string_equal(rows[0].name, "late");
    assert_string_equal(rows[1].name, "later");
    assert_string_equal(rows[2].name, NOISE_OTHER_CAUSES);
    assert_int_equal(rows[2].folded, 7);
    assert_int_equal(c.total_ns, (NOISE_CAUSE_ROWS + 5) * 1000 + 50000);
    size_t nl;
    noise_largest_sorted(&c, &nl);
    assert_int_equal(nl, 0);
    noise_causes_free(&c);
}

static void test_largest_keeps_the_longest_whatever_the_order(void **state)
{
    (void)state;
    struct noise_causes c;
    assert_int_equal(noise_causes_init(&c, 5), 0);
    static const int64_t lens[] = {7, 3, 9, 1, 12, 5, 11, 2, 8, 10, 4, 6};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        struct spike s = gap(2, (int64_t)(k + 1) * MS, lens[k] * 1000);
        noise_largest_add(&c, &s);
    }
    size_t n;
    const struct spike *l = noise_largest_sorted(&c, &n);
    assert_int_equal(n, 5);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(l[k].latency_ns, (12 - (int64_t)k) * 1000);
    noise_causes_free(&c);
}

/* 256 CPUs set up (slots, rings, windows, 1 us histograms) and freed,
 * without a thread. */
static void test_create_and_free_for_256_cpus(void **state)
{
    (void)state;
    static int cpus[256];
    for (int i = 0; i < 256; i++)
        cpus[i] = i;
    struct timebase tb = {.tsc = false, .hz = 1e9, .ns_per_tick = 1.0};
    struct noise_config cfg = {.cpus = cpus,
                               .n = 256,
                               .duration_ns = 10 * S,
                               .threshold_ns = 1000,
                               .runtime_ns = 10 * S,
                               .period_ns = 10 * S,
                               .window_ns = S,
                               .us_rows = 1000,
                               .tb = &tb};
    struct noise *nz = NULL;
    char err[128];
    assert_int_equal(noise_create(&cfg, &nz, err, sizeof err), 0);
    for (int i = 0; i < 256; i++) {
        const struct noise_slot *s = noise_slot(nz, i);
        assert_int_equal(s->cpu, i);
        assert_int_equal(s->gaps, 0);
        assert_int_equal(s->floor_ns, INT64_MAX);
        assert_int_equal((uintptr_t)s % 64, 0);
        size_t nw;
        uint64_t dropped;
        noise_windows(nz, i, &nw, &dropped);
        assert_int_equal(nw, 0);
        assert_int_equal(dropped, 0);
    }
    noise_free(nz);
    noise_free(NULL);
}

/* A CPU whose time is all gaps (threshold 0: every step is one) measured
 * with ticks 5 % longer than the clock's ns: the gaps' sum comes out 5 %
 * over the span, and the result must still say no more noise than time
 * measured (the reader refuses such a document). 50 ms, SCHED_OTHER. */
static void test_noise_never_exceeds_the_time_measured(void **state)
{
    (void)state;
    int cpu[1] = {sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0};
    struct timebase tb = {.tsc = false, .hz = 1e9 / 1.05, .ns_per_tick = 1.05};
    struct noise_config cfg = {.cpus = cpu,
                               .n = 1,
                               .duration_ns = 50 * 1000 * 1000,
                               .threshold_ns = 0,
                               .runtime_ns = 50 * 1000 * 1000,
                               .period_ns = 50 * 1000 * 1000,
                               .window_ns = 10 * 1000 * 1000,
                               .tb = &tb};
    struct noise *nz = NULL;
    char err[256];
    assert_int_equal(noise_create(&cfg, &nz, err, sizeof err), 0);
    assert_int_equal(noise_run(nz, NULL, err, sizeof err), 0);
    const struct noise_slot *s = noise_slot(nz, 0);
    assert_true(s->gaps > 0);
    assert_true(s->measured_ns > 0);
    assert_true(s->noise_ns <= s->measured_ns);
    /* nearly all of it: the steps between the gaps are the loop's only time */
    assert_true(s->noise_ns * 10 > s->measured_ns * 9);
    size_t nw = 0;
    uint64_t dropped = 0;
    const struct noise_window *w = noise_windows(nz, 0, &nw, &dropped);
    assert_true(nw >= 4);
    for (size_t k = 0; k < nw; k++) {
        assert_true(w[k].measured_ns > 0);
        assert_true(w[k].noise_ns <= w[k].measured_ns);
    }
    noise_free(nz);
}

/* Few CPUs keep 8192 gaps a CPU between two drains; 256 CPUs share 16 MiB
 * (1024 each, drained every 10 ms: 100 k gaps/s a CPU before a drop). */
static void test_noise_rings_shrink_to_a_budget_on_many_cpus(void **state)
{
    (void)state;
    assert_int_equal(noise_ring_slots(1), NOISE_RING_SLOTS);
    assert_int_equal(noise_ring_slots(2), NOISE_RING_SLOTS);
    assert_int_equal(noise_ring_slots(32), NOISE_RING_SLOTS);
    assert_int_equal(noise_ring_slots(64), 4096);
    assert_int_equal(noise_ring_slots(256), 1024);
    assert_int_equal(noise_ring_slots(4096), NOISE_RING_MIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slices_overlap),
        cmocka_unit_test(test_a_gap_is_split_between_its_windows),
        cmocka_unit_test(test_causes_are_summed_by_kind_and_name),
        cmocka_unit_test(test_a_gap_counts_once_per_cause_and_priorities_stay_apart),
        cmocka_unit_test(test_causes_beyond_the_rows_go_to_other),
        cmocka_unit_test(test_largest_keeps_the_longest_whatever_the_order),
        cmocka_unit_test(test_create_and_free_for_256_cpus),
        cmocka_unit_test(test_noise_rings_shrink_to_a_budget_on_many_cpus),
        cmocka_unit_test(test_noise_never_exceeds_the_time_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
