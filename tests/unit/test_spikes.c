/*
 * Unit tests for src/trace/spikes.c: the store keeps the N largest spikes
 * (ties: the earlier stays), counts all, returns the kept ones in time order,
 * and summarizes by dominant cause (a thread by comm and priority with its
 * pids apart, bounded groups, sorted by count) with a one-line text for
 * people.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "test_rng.h"

#include "trace/spikes.h"

/* A spike at planned_ns with one part of the whole latency. */
static struct spike one_part(int cpu, int64_t planned_ns, int64_t latency_ns, unsigned kind,
                             const char *name, int32_t pid, int32_t prio)
{
    struct spike s = {.cpu = cpu,
                      .planned_ns = planned_ns,
                      .wake_ns = planned_ns + latency_ns,
                      .latency_ns = latency_ns,
                      .ncauses = 1};
    s.causes[0] =
        (struct spike_cause){.kind = (uint16_t)kind, .pid = pid, .prio = prio, .ns = latency_ns};
    snprintf(s.causes[0].name, sizeof s.causes[0].name, "%s", name);
    return s;
}

static void test_keeps_the_largest_in_time_order(void **state)
{
    (void)state;
    struct spike_store st;
    assert_int_equal(spikes_init(&st, 10, 2), 0);
    uint64_t rng = 42;
    int64_t lat[100];
    for (int i = 0; i < 100; i++)
        lat[i] = (i + 1) * 1000;
    for (int i = 99; i > 0; i--) { /* shuffle */
        int j = (int)(rng_next(&rng) % (uint64_t)(i + 1));
        int64_t t = lat[i];
        lat[i] = lat[j];
        lat[j] = t;
    }
    for (int i = 0; i < 100; i++) {
        struct spike s = one_part(i % 2, (int64_t)i * 1000000, lat[i], CAUSE_IRQ, "eth0", 0, 0);
        spikes_add(&st, &s);
    }
    assert_int_equal(st.total, 100);
    assert_int_equal(st.per_cpu[0], 50);
    assert_int_equal(st.per_cpu[1], 50);
    size_t n;
    const struct spike *kept = spikes_sorted_by_time(&st, &n);
    assert_int_equal(n, 10);
    for (size_t i = 0; i < n; i++) {
        assert_true(kept[i].latency_ns > 90000);
        if (i)
            assert_true(kept[i - 1].planned_ns < kept[i].planned_ns);
    }
    /* adding after the sort still keeps the largest */
    struct spike big = one_part(1, 1, 5000000, CAUSE_IRQ, "eth0", 0, 0);
    spikes_add(&st, &big);
    kept = spikes_sorted_by_time(&st, &n);
    assert_int_equal(n, 10);
    assert_int_equal(kept[0].latency_ns, 5000000);
    for (size_t i = 1; i < n; i++)
        assert_true(kept[i].latency_ns > 91000);
    spikes_free(&st);
}

static void test_equal_latency_keeps_the_earlier(void **state)
{
    (void)state;
    struct spike_store st;
    assert_int_equal(spikes_init(&st, 2, 1), 0);
    for (int i = 0; i < 5; i++) {
        struct spike s = one_part(0, i, 1000, CAUSE_WAKEUP, "", 0, 0);
        spikes_add(&st, &s);
    }
    size_t n;
    const struct spike *kept = spikes_sorted_by_time(&st, &n);
    assert_int_equal(n, 2);
    assert_int_equal(kept[0].planned_ns, 0);
    assert_int_equal(kept[1].planned_ns, 1);
    spikes_free(&st);
}

static void test_keep_zero_only_counts(void **state)
{
    (void)state;
    struct spike_store st;
    assert_int_equal(spikes_init(&st, 0, 0), 0);
    struct spike s = one_part(3, 0, 1000, CAUSE_WAKEUP, "", 0, 0);
    spikes_add(&st, &s);
    size_t n = 99;
    spikes_sorted_by_time(&st, &n);
    assert_int_equal(n, 0);
    assert_int_equal(st.total, 1);
    spikes_free(&st);
}

/* A restarted disturber (new pid, same comm and priority) stays one group
 * that counts each pid apart; the summary holds count, share, total, max
 * and median. */
static void test_summary_keeps_a_restarted_thread_one_group_by_pid(void **state)
{
    (void)state;
    struct spike_store st;
    assert_int_equal(spikes_init(&st, 5, 2), 0);
    for (int i = 0; i < 6; i++) {
        struct spike s =
            one_part(1, i, (i + 1) * 100000, CAUSE_THREAD, "disturb", i < 3 ? 4711 : 4800, 4);
        spikes_add(&st, &s);
    }
    struct spike s = one_part(1, 10, 50000, CAUSE_IRQ, "eth0", 0, 0);
    spikes_add(&st, &s);
    struct spike_summary_row rows[SPIKES_GROUPS_MAX + 1];
    size_t n = spikes_summary(&st, rows, SPIKES_GROUPS_MAX + 1);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0].kind, CAUSE_THREAD);
    assert_string_equal(rows[0].name, "disturb");
    assert_int_equal(rows[0].pid, 4800); /* as many spikes as 4711, longer ones */
    assert_int_equal(rows[0].count, 6);
    assert_non_null(rows[0].pids);
    assert_int_equal(rows[0].pids->n, 2);
    assert_int_equal(rows[0].pids->pid[0].pid, 4711);
    assert_int_equal(rows[0].pids->pid[0].count, 3);
    assert_int_equal(rows[0].pids->pid[0].ns, 600000);
    assert_int_equal(rows[0].pids->pid[1].count, 3);
    char buf[200];
    spike_summary_text(&rows[0], st.total, "SCHED_FIFO", buf, sizeof buf);
    assert_non_null(
        strstr(buf, "86% of 7 spikes: thread disturb SCHED_FIFO 95 (pids 4800 50%, 4711 50%), "));
    assert_true(rows[0].share > 6.0 / 7 - 1e-9 && rows[0].share < 6.0 / 7 + 1e-9);
    assert_int_equal(rows[0].total_ns, 2100000);
    assert_int_equal(rows[0].max_ns, 600000);
    /* nearest rank 3 of 6: 300 us, within the histogram's 1% */
    assert_true(rows[0].median_ns >= 297000 && rows[0].median_ns <= 303000);
    assert_int_equal(rows[1].kind, CAUSE_IRQ);
    assert_int_equal(rows[1].count, 1);
    assert_int_equal(rows[1].median_ns, 50000);
    spikes_free(&st);
}

/* Two threads of one name at different priorities are two causes: the
 * summary must not hand the one with most spikes the other's pid and
 * priority (122 spikes, 114 of them the SCHED_FIFO 10 thread, the last
 * one the SCHED_FIFO 5 thread). */
static void test_summary_tells_same_named_threads_apart_by_priority(void **state)
{
    (void)state;
    struct spike_store st;
    assert_int_equal(spikes_init(&st, 5, 2), 0);
    for (int i = 0; i < 122; i++) {
        bool low = (i % 15 == 14 && i < 110) || i == 121; /* 8, the last among them */
        struct spike s = one_part(1, i, 100000 + i, CAUSE_THREAD, "disturb", low ? 200 : 100,
                                  low ? 99 - 5 : 99 - 10);
        s.causes[0].policy = 1; /* SCHED_FIFO */
        spikes_add(&st, &s);
    }
    struct spike_summary_row rows[SPIKES_GROUPS_MAX + 1];
    size_t n = spikes_summary(&st, rows, SPIKES_GROUPS_MAX + 1);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].name, "disturb");
    assert_int_equal(rows[0].pid, 100);
    assert_int_equal(rows[0].prio, 89);
    assert_int_equal(rows[0].count, 114);
    assert_string_equal(rows[1].name, "disturb");
    assert_int_equal(rows[1].pid, 200);
    assert_int_equal(rows[1].prio, 94);
    assert_int_equal(rows[1].count, 8);
    char buf[200];
    spike_summary_text(&rows[0], st.total, NULL, buf, sizeof buf);
    assert_non_null(strstr(buf, "thread disturb/100 SCHED_FIFO/RR 10,"));
    spike_summary_text(&rows[1], st.total, NULL, buf, sizeof buf);
    assert_non_null(strstr(buf, "thread disturb/200 SCHED_FIFO/RR 5,"));
    spikes_free(&st);
}

/* A name is shown, not obeyed: an escape sequence and bytes that are not
 * UTF-8 reach the terminal as \xNN. */
static void test_summary_text_shows_control_bytes_of_a_name(void **state)
{
    (void)state;
    struct spike_store st;
    assert_int_equal(spikes_init(&st, 5, 2), 0);
    struct spike s = one_part(1, 1, 100000, CAUSE_THREAD, "\x1b[2Jx\xff", 100, 99 - 10);
    spikes_add(&st, &s);
    struct spike_summary_row rows[SPIKES_GROUPS_MAX + 1];
    assert_int_equal(spikes_summary(&st, rows, SPIKES_GROUPS_MAX + 1), 1);
    char buf[200];
    spike_summary_text(&rows[0], st.total, "SCHED_FIFO", buf, sizeof buf);
    assert_non_null(strstr(buf, "thread \\x1b[2Jx\\xff/100 SCHED_FIFO 10,"));
    spikes_free(&st);
}

static void test_summary_keeps_the_last_policy_seen(void **state)
{
    (void)state;
    /* the disturber's last spike was explained after it had exited: the
     * policy read then is unknown, the one seen before stays */
    struct spike_store st;
    assert_int_equal(spikes_init(&st, 5, 2), 0);
    for (int i = 0; i < 3; i++) {
        struct spike s = one_part(1, i, 100000, CAUSE_THREAD, "disturb", 4711, 4);
        s.causes[0].policy = (int16_t)(i < 2 ? 1 /* SCHED_FIFO */ : -1);
        spikes_add(&st, &s);
    }
    struct spike_summary_row rows[SPIKES_GROUPS_MAX + 1];
    assert_int_equal(spikes_summary(&st, rows, SPIKES_GROUPS_MAX + 1), 1);
    assert_int_equal(rows[0].policy, 1);
    spikes_free(&st);
}

/* Sorted by count and bounded: with every group taken, a new source takes
 * the place of the group with fewest spikes (ties: hit longest ago), which
 * goes to "other", and a source that starts late still gets its row. */
static void test_summary_is_sorted_by_count_and_bounded(void **state)
{
    (void)state;
    struct spike_store st;
    char name[16];
    assert_int_equal(spikes_init(&st, 1, 1), 0);
    for (int g = 0; g < SPIKES_GROUPS_MAX + 8; g++) {
        snprintf(name, sizeof name, "dev%d", g);
        for (int k = 0; k <= g % 5; k++) {
            struct spike s = one_part(0, g * 10 + k, 1000, CAUSE_IRQ, name, 0, 0);
            spikes_add(&st, &s);
        }
    }
    struct spike_summary_row rows[SPIKES_GROUPS_MAX + 1];
    size_t n = spikes_summary(&st, rows, SPIKES_GROUPS_MAX + 1);
    assert_int_equal(n, SPIKES_GROUPS_MAX + 1);
    uint64_t sum = 0;
    int other = 0;
    for (size_t i = 0; i < n; i++) {
        sum += rows[i].count;
        if (i)
            assert_true(rows[i - 1].count >= rows[i].count);
        other += strcmp(rows[i].name, SPIKES_OTHER_NAME) == 0;
    }
    assert_int_equal(sum, st.total);
    assert_int_equal(other, 1);
    /* the 8 late groups took the places of dev0, dev5, .., dev30 (1 spike
     * each), the last one (5 spikes) that of dev35 (1 spike, the only one
     * left with fewer than 2) */
    assert_string_equal(rows[0].name, SPIKES_OTHER_NAME);
    assert_int_equal(rows[0].count, 8);
    assert_int_equal(rows[0].folded, 8);
    assert_int_equal(rows[0].max_ns, 1000);
    for (size_t i = 1; i < n; i++)
        assert_true(strcmp(rows[i].name, "dev0") != 0 && strcmp(rows[i].name, "dev35") != 0);
    char buf[160];
    spike_summary_text(&rows[0], st.total, NULL, buf, sizeof buf);
    assert_non_null(strstr(buf, ": other (8 smaller causes folded), median"));
    /* a source that starts now, with every place taken, gets a row */
    for (int k = 0; k < 20; k++) {
        struct spike s = one_part(0, 1000 + k, 5000, CAUSE_THREAD, "late", 77, 4);
        spikes_add(&st, &s);
    }
    n = spikes_summary(&st, rows, SPIKES_GROUPS_MAX + 1);
    assert_string_equal(rows[0].name, "late");
    assert_int_equal(rows[0].count, 20);
    assert_int_equal(rows[0].pid, 77);
    assert_string_equal(rows[1].name, SPIKES_OTHER_NAME);
    assert_int_equal(rows[1].count, 10); /* and dev1, of 2 spikes hit longest ago */
    assert_int_equal(rows[1].folded, 9);
    /* a short rows array gets the first rows */
    assert_int_equal(spikes_summary(&st, rows, 3), 3);
    assert_string_equal(rows[0].name, "late");
    spikes_free(&st);
}

static void test_summary_text(void **state)
{
    (void)state;
    struct spike_store st;
    char buf[160];
    assert_int_equal(spikes_init(&st, 10, 2), 0);
    for (int i = 0; i < 93; i++) {
        struct spike s = one_part(1, i, 1900000, CAUSE_THREAD, "disturb", 4711, 4);
        spikes_add(&st, &s);
    }
    for (int i = 0; i < 8; i++) {
        struct spike s = one_part(1, 100 + i, 120000, CAUSE_IRQ, "eth0", 0, 0);
        spikes_add(&st, &s);
    }
    struct spike_summary_row rows[SPIKES_GROUPS_MAX + 1];
    size_t n = spikes_summary(&st, rows, SPIKES_GROUPS_MAX + 1);
    assert_int_equal(n, 2);
    spike_summary_text(&rows[0], st.total, NULL, buf, sizeof buf);
    assert_string_equal(buf,
                        "92% of 101 spikes: thread disturb/4711 SCHED_FIFO/RR 95, median 1.9 ms");
    spike_summary_text(&rows[1], st.total, NULL, buf, sizeof buf);
    assert_string_equal(buf, "8% of 101 spikes: irq eth0, median 120 us");
    struct spike_summary_row row = {.kind = CAUSE_WAKEUP, .name = "", .count = 1, .median_ns = 500};
    spike_summary_text(&row, 1, NULL, buf, sizeof buf);
    assert_string_equal(buf, "100% of 1 spike: wakeup, median 500 ns");
    row = (struct spike_summary_row){
        .kind = CAUSE_THREAD, .name = "make", .pid = 9, .prio = 120, .count = 1, .median_ns = 1000};
    spike_summary_text(&row, 2, NULL, buf, sizeof buf);
    assert_string_equal(buf, "50% of 2 spikes: thread make/9 SCHED_OTHER, median 1 us");
    /* the policy the caller read from the live task wins over the priority's guess */
    row.prio = 4;
    spike_summary_text(&row, 2, "SCHED_RR", buf, sizeof buf);
    assert_string_equal(buf, "50% of 2 spikes: thread make/9 SCHED_RR 95, median 1 us");
    row = (struct spike_summary_row){
        .kind = CAUSE_UNEXPLAINED, .name = "events lost", .count = 1, .median_ns = 2000};
    spike_summary_text(&row, 1, NULL, buf, sizeof buf);
    assert_string_equal(buf, "100% of 1 spike: unexplained (events lost), median 2 us");
    spikes_free(&st);
}

/* A row holds what its spikes cost whole, not only their dominant parts. */
static void test_summary_sums_the_whole_latency_of_a_rows_spikes(void **state)
{
    (void)state;
    struct spike_store st;
    assert_int_equal(spikes_init(&st, 4, 1), 0);
    struct spike a = one_part(0, 100, 3000, CAUSE_IRQ, "eth0", 0, 0);
    a.causes[0].ns = 2000; /* the rest of its 3 us went elsewhere */
    a.causes[1] = (struct spike_cause){.kind = CAUSE_WAKEUP, .ns = 1000};
    a.ncauses = 2;
    struct spike b = one_part(0, 200, 5000, CAUSE_IRQ, "eth0", 0, 0);
    spikes_add(&st, &a);
    spikes_add(&st, &b);
    struct spike_summary_row rows[2];
    assert_int_equal(spikes_summary(&st, rows, 2), 1);
    assert_int_equal(rows[0].total_ns, 7000);
    assert_int_equal(rows[0].latency_total_ns, 8000);
    assert_int_equal(rows[0].latency_max_ns, 5000);
    spikes_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keeps_the_largest_in_time_order),
        cmocka_unit_test(test_equal_latency_keeps_the_earlier),
        cmocka_unit_test(test_keep_zero_only_counts),
        cmocka_unit_test(test_summary_keeps_a_restarted_thread_one_group_by_pid),
        cmocka_unit_test(test_summary_tells_same_named_threads_apart_by_priority),
        cmocka_unit_test(test_summary_text_shows_control_bytes_of_a_name),
        cmocka_unit_test(test_summary_keeps_the_last_policy_seen),
        cmocka_unit_test(test_summary_is_sorted_by_count_and_bounded),
        cmocka_unit_test(test_summary_text),
        cmocka_unit_test(test_summary_sums_the_whole_latency_of_a_rows_spikes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
