/*
 * Unit tests for src/trace/cause_source.c: what makes parts one summary row
 * (kind, name, and a thread's priority and policy, an unknown policy
 * matching either), and a row's pids: counted apart, bounded, the rest
 * summed as unlisted and said so in the text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "trace/cause_source.h"

static struct spike_cause thread(const char *comm, int32_t pid, int32_t prio, int16_t policy)
{
    struct spike_cause c = {.kind = CAUSE_THREAD, .pid = pid, .prio = prio, .policy = policy};
    snprintf(c.name, sizeof c.name, "%s", comm);
    return c;
}

static void test_a_thread_source_is_comm_priority_and_policy(void **state)
{
    (void)state;
    struct spike_cause c = thread("disturb", 4711, 89, 1);
    assert_true(cause_same_source(CAUSE_THREAD, "disturb", 89, 1, &c));
    assert_true(cause_same_source(CAUSE_THREAD, "disturb", 89, -1, &c)); /* task gone */
    c.pid = 4800; /* restarted: the same source */
    assert_true(cause_same_source(CAUSE_THREAD, "disturb", 89, 1, &c));
    assert_false(cause_same_source(CAUSE_THREAD, "disturb", 94, 1, &c)); /* FIFO 5, not 10 */
    assert_false(cause_same_source(CAUSE_THREAD, "disturb", 89, 2, &c)); /* SCHED_RR */
    assert_false(cause_same_source(CAUSE_THREAD, "other", 89, 1, &c));
    c.policy = -1;
    assert_true(cause_same_source(CAUSE_THREAD, "disturb", 89, 2, &c));
    struct spike_cause irq = {.kind = CAUSE_IRQ, .prio = 7};
    snprintf(irq.name, sizeof irq.name, "eth0");
    assert_true(cause_same_source(CAUSE_IRQ, "eth0", 0, -1, &irq)); /* priority: threads only */
    assert_false(cause_same_source(CAUSE_THREAD, "eth0", 0, -1, &irq));
}

static void test_pids_are_counted_apart_and_bounded(void **state)
{
    (void)state;
    struct cause_pids p = {0};
    cause_pids_add(&p, 10, 1, 100);
    cause_pids_add(&p, 20, 1, 900);
    cause_pids_add(&p, 10, 1, 100);
    for (int32_t pid = 100; pid < 100 + CAUSE_PIDS_MAX; pid++)
        cause_pids_add(&p, pid, 1, 10);
    assert_int_equal(p.n, CAUSE_PIDS_MAX);
    assert_int_equal(p.pid[0].pid, 10);
    assert_int_equal(p.pid[0].count, 2);
    assert_int_equal(p.pid[0].ns, 200);
    /* pids 100.. beyond the 8 listed (10, 20 and 6 of them) */
    assert_int_equal(p.unlisted_count, 2);
    assert_int_equal(p.unlisted_ns, 20);
    struct cause_pid top[CAUSE_PIDS_MAX];
    assert_int_equal(cause_pids_sorted(&p, false, top), CAUSE_PIDS_MAX);
    assert_int_equal(top[0].pid, 10);
    assert_int_equal(cause_pids_sorted(&p, true, top), CAUSE_PIDS_MAX);
    assert_int_equal(top[0].pid, 20);
    assert_int_equal(top[1].pid, 10);
    assert_int_equal(top[2].pid, 100); /* ties: first seen */
    char buf[128];
    cause_pids_text(&p, true, 2, buf, sizeof buf);
    assert_string_equal(buf, "pids 20 76%, 10 17%, others 7%");
    cause_pids_text(&p, false, 1, buf, sizeof buf);
    assert_string_equal(buf, "pids 10 18%, others 82%");
}

static void test_one_pid_needs_no_list(void **state)
{
    (void)state;
    struct cause_pids p = {0};
    char buf[64] = "x";
    cause_pids_add(&p, 4711, 3, 3000);
    assert_int_equal(cause_pids_text(&p, false, 3, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    struct cause_pids none = {0};
    assert_int_equal(cause_pids_text(&none, true, 3, buf, sizeof buf), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_thread_source_is_comm_priority_and_policy),
        cmocka_unit_test(test_pids_are_counted_apart_and_bounded),
        cmocka_unit_test(test_one_pid_needs_no_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
