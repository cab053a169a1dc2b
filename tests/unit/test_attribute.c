/*
 * Unit tests for src/trace/attribute.c: synthetic event sequences of one CPU,
 * each built the way the kernel emits them around one late wake-up, and the
 * causes the attribution names for them. Every test checks that the parts add
 * up exactly to the latency, then the parts that matter for its case.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "test_rng.h"

#include "trace/attribute.h"

#define CPU    1
#define TID    4242
#define PLAN   INT64_C(10000000)        /* planned wake-up: 10 ms */
#define TIMER  UINT64_C(0xffff8880aa00) /* the measuring thread's hrtimer */
#define EV_MAX 256

static struct trace_event evs[EV_MAX];
static size_t nev;

static int reset(void **state)
{
    (void)state;
    memset(evs, 0, sizeof evs);
    nev = 0;
    return 0;
}

static struct trace_event *ev_add(int64_t t, unsigned kind, const char *name, uint64_t id)
{
    assert_true(nev < EV_MAX);
    struct trace_event *e = &evs[nev++];
    e->t_ns = t;
    e->kind = (uint16_t)kind;
    e->cpu = CPU;
    e->id = id;
    if (name)
        snprintf(e->name, sizeof e->name, "%s", name);
    return e;
}

static void sw(int64_t t, int32_t prev_pid, const char *prev_comm, int32_t prev_prio,
               int32_t next_pid, const char *next_comm, int32_t next_prio)
{
    struct trace_event *e = ev_add(t, TRACE_SWITCH, next_comm, 0);
    e->pid = next_pid;
    e->prio = next_prio;
    e->prev_pid = prev_pid;
    e->prev_prio = prev_prio;
    snprintf(e->prev_comm, sizeof e->prev_comm, "%s", prev_comm);
}

static void vec(int64_t t_in, int64_t t_out, const char *name)
{
    ev_add(t_in, TRACE_VECTOR_ENTRY, name, 0);
    ev_add(t_out, TRACE_VECTOR_EXIT, name, 0);
}

static void idle(int64_t t, int64_t state)
{
    ev_add(t, TRACE_IDLE, NULL, 0)->arg = state;
}

/* The local timer interrupt at t that expires our timer: vector entry at t,
 * hrtimer_wakeup t+100 .. t+300 (waking TID at t+200), vector exit t+400. */
static void our_timer(int64_t t)
{
    ev_add(t, TRACE_VECTOR_ENTRY, "local_timer", 236);
    ev_add(t + 100, TRACE_HRTIMER_ENTRY, "hrtimer_wakeup", TIMER)->arg = PLAN;
    ev_add(t + 200, TRACE_WAKING, "measure", 0)->pid = TID;
    ev_add(t + 300, TRACE_HRTIMER_EXIT, NULL, TIMER);
    ev_add(t + 400, TRACE_VECTOR_EXIT, "local_timer", 236);
}

/* The thread sleeps on an idle CPU in state until exit_ns (PLAN-relative
 * events): the idle exit, our timer 2 us later, the switch to us 1 us after. */
static void idle_until(int64_t state, int64_t exit_ns)
{
    sw(PLAN - 500000, TID, "measure", 1, 0, "swapper/1", 120);
    idle(PLAN - 499000, state);
    idle(exit_ns, -1);
    our_timer(exit_ns + 2000);
    sw(exit_ns + 3000, 0, "swapper/1", 120, TID, "measure", 1);
}

static struct spike_request request(int64_t wake_ns)
{
    return (struct spike_request){.cpu = CPU,
                                  .tid = TID,
                                  .planned_ns = PLAN,
                                  .wake_ns = wake_ns,
                                  .prev_end_ns = PLAN - 1000000};
}

static void assert_sum_exact(const struct spike *s)
{
    int64_t sum = 0;
    assert_true(s->ncauses <= SPIKE_CAUSES_MAX);
    for (unsigned i = 0; i < s->ncauses; i++) {
        assert_true(s->causes[i].ns >= 0);
        sum += s->causes[i].ns;
    }
    assert_int_equal(sum, s->latency_ns);
    assert_int_equal(s->latency_ns, s->wake_ns - s->planned_ns);
    if (s->ncauses) {
        assert_true(s->dominant < s->ncauses);
        for (unsigned i = 0; i < s->ncauses; i++)
            assert_true(s->causes[i].ns <= s->causes[s->dominant].ns);
    }
}

/* The ns of the part (kind, name); name NULL matches any name. -1 if none. */
static int64_t part_ns(const struct spike *s, unsigned kind, const char *name)
{
    for (unsigned i = 0; i < s->ncauses; i++)
        if (s->causes[i].kind == kind && (!name || strcmp(s->causes[i].name, name) == 0))
            return s->causes[i].ns;
    return -1;
}

static struct spike explain(int64_t wake_ns)
{
    struct spike s;
    struct spike_request req = request(wake_ns);
    attribute_spike(evs, nev, &req, &s);
    assert_sum_exact(&s);
    return s;
}

static void test_cause_kind_names_round_trip(void **state)
{
    (void)state;
    assert_string_equal(cause_kind_name(CAUSE_TIMER_IRQ_LATE), "timer-irq-late");
    assert_string_equal(cause_kind_name(CAUSE_IDLE_EXIT), "idle-exit");
    assert_string_equal(cause_kind_name(CAUSE_VCPU_WAKE_LATE), "vcpu-wake-late");
    assert_string_equal(cause_kind_name(CAUSE_UNEXPLAINED), "unexplained");
    assert_string_equal(cause_kind_name(CAUSE_KIND_COUNT), "?");
    for (unsigned k = 0; k < CAUSE_KIND_COUNT; k++)
        assert_int_equal(cause_kind_from_name(cause_kind_name(k)), (int)k);
    assert_int_equal(cause_kind_from_name("nope"), -1);
    assert_string_equal(cause_policy_name(4), "SCHED_FIFO/RR");
    assert_int_equal(cause_user_priority(4), 95);
    assert_string_equal(cause_policy_name(120), "SCHED_OTHER");
    assert_int_equal(cause_user_priority(120), 0);
    assert_string_equal(cause_policy_name(-1), "SCHED_DEADLINE");
}

/* A SCHED_FIFO 95 task holds the CPU for 2 ms after our timer fired on time. */
static void test_fifo_disturber_is_the_dominant_thread(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 4711, "disturb", 4);
    our_timer(PLAN + 1000);
    sw(PLAN + 2000000, 4711, "disturb", 4, TID, "measure", 1);
    struct spike s = explain(PLAN + 2005000);

    assert_int_equal(s.latency_ns, 2005000);
    assert_int_equal(s.ncauses, 3);
    const struct spike_cause *d = &s.causes[s.dominant];
    assert_int_equal(d->kind, CAUSE_THREAD);
    assert_string_equal(d->name, "disturb");
    assert_int_equal(d->pid, 4711);
    assert_string_equal(cause_policy_name(d->prio), "SCHED_FIFO/RR");
    assert_int_equal(cause_user_priority(d->prio), 95);
    /* from the end of our callback's interrupt to the switch */
    assert_int_equal(d->ns, 2000000 - 1300);
    /* until the interrupt ran our callback */
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), 1100);
    /* our callback, then from the switch to the clock read */
    assert_int_equal(part_ns(&s, CAUSE_WAKEUP, ""), 200 + 5000);
    /* in time order */
    assert_int_equal(s.causes[0].kind, CAUSE_TIMER_IRQ_LATE);
    assert_int_equal(s.flags, 0);
}

/* The capture as it runs: no sched_waking, the thread's own timer known by
 * the hrtimer_start its sleep recorded (in its own context). The parts are
 * those of the same spike told by a waking. */
static void test_expiry_known_by_the_timer_the_thread_armed(void **state)
{
    (void)state;
    ev_add(PLAN - 600000, TRACE_HRTIMER_START, NULL, TIMER)->pid = TID;
    sw(PLAN - 500000, TID, "measure", 1, 4711, "disturb", 4);
    ev_add(PLAN + 1000, TRACE_VECTOR_ENTRY, "local_timer", 236);
    ev_add(PLAN + 1100, TRACE_HRTIMER_ENTRY, "hrtimer_wakeup", TIMER)->arg = PLAN;
    ev_add(PLAN + 1300, TRACE_HRTIMER_EXIT, NULL, TIMER);
    ev_add(PLAN + 1400, TRACE_VECTOR_EXIT, "local_timer", 236);
    sw(PLAN + 2000000, 4711, "disturb", 4, TID, "measure", 1);
    struct spike s = explain(PLAN + 2005000);

    assert_int_equal(s.flags, 0);
    assert_int_equal(s.ncauses, 3);
    assert_int_equal(s.causes[s.dominant].kind, CAUSE_THREAD);
    assert_int_equal(s.causes[s.dominant].pid, 4711);
    assert_int_equal(s.causes[s.dominant].ns, 2000000 - 1300);
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), 1100);
    assert_int_equal(part_ns(&s, CAUSE_WAKEUP, ""), 200 + 5000);
}

/* The same timer address armed by another task is not the thread's: no
 * expiry, and the disturber is named without one. */
static void test_a_timer_armed_by_another_task_is_not_the_expiry(void **state)
{
    (void)state;
    ev_add(PLAN - 600000, TRACE_HRTIMER_START, NULL, TIMER)->pid = 4711;
    sw(PLAN - 500000, TID, "measure", 1, 4711, "disturb", 4);
    ev_add(PLAN + 1100, TRACE_HRTIMER_ENTRY, "hrtimer_wakeup", TIMER)->arg = PLAN;
    ev_add(PLAN + 1300, TRACE_HRTIMER_EXIT, NULL, TIMER);
    sw(PLAN + 2000000, 4711, "disturb", 4, TID, "measure", 1);
    struct spike s = explain(PLAN + 2005000);

    assert_true(s.flags & SPIKE_NO_EXPIRY);
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), -1);
}

/* A device interrupt handler is open across the planned time and keeps the
 * timer interrupt out for 30 us. */
static void test_irq_open_across_planned_time_delays_the_timer(void **state)
{
    (void)state;
    sw(PLAN - 900000, TID, "measure", 1, 300, "make", 120);
    ev_add(PLAN - 5000, TRACE_IRQ_ENTRY, "eth0", 24);
    ev_add(PLAN + 30000, TRACE_IRQ_EXIT, NULL, 24);
    our_timer(PLAN + 31000);
    sw(PLAN + 33000, 300, "make", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 35000);

    const struct spike_cause *d = &s.causes[s.dominant];
    assert_int_equal(d->kind, CAUSE_IRQ);
    assert_string_equal(d->name, "eth0");
    assert_int_equal(d->id, 24);
    assert_int_equal(d->ns, 30000);
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), 1100);
    assert_int_equal(part_ns(&s, CAUSE_THREAD, "make"), 100 + 1600);
}

/* The same, with the array starting inside the handler: its exit alone says
 * it was open from the start. */
static void test_exit_without_entry_means_open_from_the_start(void **state)
{
    (void)state;
    sw(PLAN - 900000, TID, "measure", 1, 300, "make", 120);
    ev_add(PLAN + 30000, TRACE_IRQ_EXIT, "eth0", 24);
    our_timer(PLAN + 31000);
    sw(PLAN + 33000, 300, "make", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 35000);

    assert_int_equal(s.causes[s.dominant].kind, CAUSE_IRQ);
    assert_int_equal(s.causes[s.dominant].ns, 30000);
}

/* The CPU sleeps in a deep idle state; leaving it takes 80 us. */
static void test_idle_exit_from_a_deep_state(void **state)
{
    (void)state;
    static const char *const names[] = {"POLL", "C1", "C1E", "C6"};
    idle_until(3, PLAN + 80000);
    struct spike s = explain(PLAN + 84000);

    assert_int_equal(part_ns(&s, CAUSE_IDLE_EXIT, "state 3"), 80000);
    assert_int_equal(s.causes[s.dominant].kind, CAUSE_IDLE_EXIT);
    assert_int_equal(s.causes[s.dominant].id, 3);
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), 2000 + 100);
    /* callback, rest of the interrupt and the idle -> us switch, return */
    assert_int_equal(part_ns(&s, CAUSE_WAKEUP, ""), 200 + 700 + 1000);

    struct spike_request req = request(PLAN + 84000);
    req.idle_state_names = names;
    req.idle_state_count = 4;
    attribute_spike(evs, nev, &req, &s);
    assert_sum_exact(&s);
    assert_int_equal(part_ns(&s, CAUSE_IDLE_EXIT, "C6"), 80000);
}

/* A guest without a cpuidle driver halts (state 1 of default idle); the
 * 7 ms until it left the halt are the host running the vCPU late, not an
 * idle state: under a hypervisor that is `vcpu-wake-late` "halt". On bare
 * metal the same events stay `idle-exit`. */
static void test_halted_vcpu_woken_late_is_not_an_idle_exit(void **state)
{
    (void)state;
    idle_until(1, PLAN + 7000000);
    struct spike_request req = request(PLAN + 7004000);
    req.hypervisor = true;
    req.idle_driver = false;
    struct spike s;
    attribute_spike(evs, nev, &req, &s);
    assert_sum_exact(&s);
    assert_int_equal(s.causes[s.dominant].kind, CAUSE_VCPU_WAKE_LATE);
    assert_string_equal(s.causes[s.dominant].name, "halt");
    assert_int_equal(part_ns(&s, CAUSE_VCPU_WAKE_LATE, "halt"), 7000000);
    assert_int_equal(part_ns(&s, CAUSE_IDLE_EXIT, "state 1"), -1);

    req.hypervisor = false; /* bare metal, no driver: the halt is the idle state */
    attribute_spike(evs, nev, &req, &s);
    assert_int_equal(part_ns(&s, CAUSE_IDLE_EXIT, "state 1"), 7000000);
    assert_int_equal(part_ns(&s, CAUSE_VCPU_WAKE_LATE, "halt"), -1);
}

/* With a cpuidle driver in the guest (haltpoll), an idle stretch within ten
 * times the longest declared exit latency is the state's exit; beyond it,
 * the host's late wake-up, named after the state. */
static void test_idle_exit_far_beyond_every_exit_latency_is_the_host(void **state)
{
    (void)state;
    static const char *const names[] = {"POLL", "haltpoll"};
    idle_until(1, PLAN + 20000);
    struct spike_request req = request(PLAN + 24000);
    req.idle_state_names = names;
    req.idle_state_count = 2;
    req.hypervisor = true;
    req.idle_driver = true;
    req.idle_exit_latency_max_ns = 2000; /* 10 x = 20 us: the stretch is within */
    struct spike s;
    attribute_spike(evs, nev, &req, &s);
    assert_int_equal(part_ns(&s, CAUSE_IDLE_EXIT, "haltpoll"), 20000);

    req.idle_exit_latency_max_ns = 1000; /* 10 x = 10 us: far beyond */
    attribute_spike(evs, nev, &req, &s);
    assert_sum_exact(&s);
    assert_int_equal(part_ns(&s, CAUSE_IDLE_EXIT, "haltpoll"), -1);
    assert_int_equal(part_ns(&s, CAUSE_VCPU_WAKE_LATE, "haltpoll"), 20000);
    assert_int_equal(s.causes[s.dominant].id, 1);

    req.idle_exit_latency_max_ns = 0; /* latencies not known: the state's exit */
    attribute_spike(evs, nev, &req, &s);
    assert_int_equal(part_ns(&s, CAUSE_IDLE_EXIT, "haltpoll"), 20000);
}

/* Function-call and reschedule IPIs keep hitting the CPU before the timer. */
static void test_ipi_storm(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 777, "stress", 120);
    for (int k = 0; k < 20; k++)
        vec(PLAN + k * 3000, PLAN + k * 3000 + 2500, k % 4 ? "call_function" : "reschedule");
    our_timer(PLAN + 60000);
    sw(PLAN + 61000, 777, "stress", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 62000);

    assert_int_equal(part_ns(&s, CAUSE_IPI, "call_function"), 15 * 2500);
    assert_int_equal(part_ns(&s, CAUSE_IPI, "reschedule"), 5 * 2500);
    assert_int_equal(s.causes[s.dominant].kind, CAUSE_IPI);
    assert_string_equal(s.causes[s.dominant].name, "call_function");
    /* the gaps between the IPIs, and the interrupt up to our callback */
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), 20 * 500 + 100);
}

/* After our timer fired, a long softirq runs before the switch to us. */
static void test_softirq_after_the_hrtimer(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 0, "swapper/1", 120);
    idle(PLAN - 499000, 1);
    idle(PLAN + 500, -1);
    our_timer(PLAN + 1000);
    ev_add(PLAN + 1500, TRACE_SOFTIRQ_ENTRY, "RCU", 9);
    ev_add(PLAN + 40000, TRACE_SOFTIRQ_EXIT, "RCU", 9);
    sw(PLAN + 41000, 0, "swapper/1", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 42000);

    assert_int_equal(s.causes[s.dominant].kind, CAUSE_SOFTIRQ);
    assert_string_equal(s.causes[s.dominant].name, "RCU");
    assert_int_equal(s.causes[s.dominant].ns, 38500);
    assert_int_equal(part_ns(&s, CAUSE_IDLE_EXIT, "state 1"), 500);
}

/* Another hrtimer callback, and a workqueue item in a kworker. */
static void test_foreign_timer_and_workqueue(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 55, "kworker/1:1", 120);
    ev_add(PLAN - 1000, TRACE_WORK_START, "vmstat_update", 0xbeef);
    ev_add(PLAN + 20000, TRACE_WORK_END, NULL, 0xbeef);
    ev_add(PLAN + 21000, TRACE_VECTOR_ENTRY, "local_timer", 236);
    ev_add(PLAN + 21100, TRACE_HRTIMER_ENTRY, "tick_sched_timer", 0x1234);
    ev_add(PLAN + 25100, TRACE_HRTIMER_EXIT, NULL, 0x1234);
    ev_add(PLAN + 25200, TRACE_HRTIMER_ENTRY, "hrtimer_wakeup", TIMER);
    ev_add(PLAN + 25300, TRACE_WAKING, "measure", 0)->pid = TID;
    ev_add(PLAN + 25400, TRACE_HRTIMER_EXIT, NULL, TIMER);
    ev_add(PLAN + 25500, TRACE_VECTOR_EXIT, "local_timer", 236);
    sw(PLAN + 26000, 55, "kworker/1:1", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 27000);

    assert_int_equal(part_ns(&s, CAUSE_WORKQUEUE, "vmstat_update"), 20000);
    assert_int_equal(part_ns(&s, CAUSE_TIMER, "tick_sched_timer"), 4000);
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), 1000 + 100 + 100);
    assert_int_equal(part_ns(&s, CAUSE_WAKEUP, ""), 200 + 1000);
    assert_int_equal(part_ns(&s, CAUSE_THREAD, "kworker/1:1"), 100 + 500);
}

/* A local timer interrupt that does not run our timer is a `timer` part. */
static void test_other_local_timer_interrupt_is_a_timer_part(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 300, "make", 120);
    vec(PLAN + 1000, PLAN + 9000, "local_timer");
    our_timer(PLAN + 10000);
    sw(PLAN + 11000, 300, "make", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 12000);
    assert_int_equal(part_ns(&s, CAUSE_TIMER, "local_timer"), 8000);
}

static void test_no_events_is_all_unexplained(void **state)
{
    (void)state;
    struct spike s;
    struct spike_request req = request(PLAN + 123456);
    attribute_spike(NULL, 0, &req, &s);
    assert_sum_exact(&s);
    assert_int_equal(s.ncauses, 1);
    assert_int_equal(s.causes[0].kind, CAUSE_UNEXPLAINED);
    assert_string_equal(s.causes[0].name, "no events");
    assert_int_equal(s.causes[0].ns, 123456);
    assert_true(s.flags & SPIKE_NO_EXPIRY);
}

static void test_lost_events_are_unexplained(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 4711, "disturb", 4);
    our_timer(PLAN + 1000);
    sw(PLAN + 2000000, 4711, "disturb", 4, TID, "measure", 1);
    struct spike s;
    struct spike_request req = request(PLAN + 2005000);
    req.flags = SPIKE_EVENTS_LOST;
    attribute_spike(evs, nev, &req, &s);
    assert_sum_exact(&s);
    assert_int_equal(s.ncauses, 1);
    assert_int_equal(s.causes[0].kind, CAUSE_UNEXPLAINED);
    assert_string_equal(s.causes[0].name, "events lost");
    assert_true(s.flags & SPIKE_EVENTS_LOST);
}

/* An IPI nested in a device interrupt counts for the IPI, not both. */
static void test_nested_vectors_count_for_the_innermost(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 300, "make", 120);
    ev_add(PLAN + 1000, TRACE_IRQ_ENTRY, "ahci", 11);
    vec(PLAN + 2000, PLAN + 3000, "call_function");
    ev_add(PLAN + 5000, TRACE_IRQ_EXIT, NULL, 11);
    our_timer(PLAN + 6000);
    sw(PLAN + 7000, 300, "make", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 8000);
    assert_int_equal(part_ns(&s, CAUSE_IRQ, "ahci"), 3000);
    assert_int_equal(part_ns(&s, CAUSE_IPI, "call_function"), 1000);
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), 1000 + 1000 + 100);
}

/* Deeper than the handler stack: the deepest tracked frame takes the time,
 * and exits still close the right frames. */
static void test_nesting_deeper_than_the_stack(void **state)
{
    (void)state;
    char name[16];
    sw(PLAN - 500000, TID, "measure", 1, 300, "make", 120);
    for (int k = 0; k < 12; k++) {
        snprintf(name, sizeof name, "v%d", k);
        ev_add(PLAN + 1000 + k * 100, TRACE_VECTOR_ENTRY, name, (uint64_t)k);
    }
    for (int k = 11; k >= 0; k--) {
        snprintf(name, sizeof name, "v%d", k);
        ev_add(PLAN + 4000 - k * 100, TRACE_VECTOR_EXIT, name, (uint64_t)k);
    }
    our_timer(PLAN + 6000);
    sw(PLAN + 7000, 300, "make", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 8000);
    assert_int_equal(part_ns(&s, CAUSE_IPI, "v0"), 100 + 100);
    assert_true(part_ns(&s, CAUSE_IPI, "v7") > 0);
    assert_int_equal(part_ns(&s, CAUSE_IPI, "v8"), -1);
    /* after the last exit the stack is empty again */
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), 1000 + 2000 + 100);
}

/* The thread never slept: the previous cycle ended after the planned time.
 * An older expiry (before prev_end_ns) belongs to the previous cycle. */
static void test_thread_still_running_late_without_sleep(void **state)
{
    (void)state;
    sw(PLAN - 1500000, 0, "swapper/1", 120, TID, "measure", 1);
    our_timer(PLAN - 1600000);
    ev_add(PLAN + 100000, TRACE_IRQ_ENTRY, "eth0", 24);
    ev_add(PLAN + 110000, TRACE_IRQ_EXIT, NULL, 24);
    struct spike s;
    struct spike_request req = request(PLAN + 300500);
    req.prev_end_ns = PLAN + 300000;
    attribute_spike(evs, nev, &req, &s);
    assert_sum_exact(&s);
    assert_true(s.flags & SPIKE_NO_EXPIRY);
    const struct spike_cause *d = &s.causes[s.dominant];
    assert_int_equal(d->kind, CAUSE_THREAD);
    assert_int_equal(d->pid, TID);
    assert_string_equal(d->name, "measure");
    assert_int_equal(d->ns, 290500);
    assert_int_equal(part_ns(&s, CAUSE_IRQ, "eth0"), 10000);
}

/* Without any switch before the planned time, the first switch's prev task
 * was running; without an expiry, idle time is unexplained, and named so
 * when the CPU is known to be idle but nothing recorded how it woke. */
static void test_running_task_from_the_first_switch(void **state)
{
    (void)state;
    sw(PLAN + 5000, 900, "hog", 120, 0, "swapper/1", 120);
    struct spike s = explain(PLAN + 8000);
    assert_int_equal(part_ns(&s, CAUSE_THREAD, "hog"), 5000);
    assert_int_equal(part_ns(&s, CAUSE_UNEXPLAINED, "idle, wake-up not traced"), 3000);
}

/* Recorded beside `spinner 1 95 2000 50300` (FIFO 95, tid 10838) on a Linux
 * 6.18 VM, where nothing is recorded while the idle task runs: not the
 * switch from idle to the spinner nor the interrupts it takes. The measuring
 * thread (tid 10840, FIFO 90) went to sleep; the spinner took the idle CPU
 * unseen. Times relative to the planned wake-up, as captured. */
#define REAL_TID  10840
#define SPIN_TID  10838
#define SPIN_PRIO 4 /* FIFO 95 */

static void real_sleep(int64_t dt)
{
    sw(PLAN + dt, REAL_TID, "jitterlab/1", 9, 0, "swapper/1", 120);
}

static struct trace_event *in_spinner(int64_t dt, unsigned kind, const char *name, uint64_t id)
{
    struct trace_event *e = ev_add(PLAN + dt, kind, name, id);
    e->pid = SPIN_TID; /* perf's sample tid: the task the event was recorded in */
    return e;
}

static struct spike explain_real(int64_t wake_dt, int64_t prev_end_dt)
{
    struct spike s;
    struct spike_request req = request(PLAN + wake_dt);
    req.tid = REAL_TID;
    req.prev_end_ns = PLAN + prev_end_dt;
    attribute_spike(evs, nev, &req, &s);
    assert_sum_exact(&s);
    return s;
}

static void assert_spinner_dominant(const struct spike *s, int64_t ns)
{
    const struct spike_cause *d = &s->causes[s->dominant];
    assert_int_equal(d->kind, CAUSE_THREAD);
    assert_string_equal(d->name, "spinner");
    assert_int_equal(d->pid, SPIN_TID);
    assert_int_equal(cause_user_priority(d->prio), 95);
    assert_int_equal(d->ns, ns);
}

/* Our timer expired 38 us late inside the spinner's context; the first
 * switch is the spinner's to us. Was: timer-irq-late + wakeup 1392997. */
static void test_real_spinner_seen_only_in_its_own_events_is_the_thread(void **state)
{
    (void)state;
    const uint64_t timer = UINT64_C(0xffffc90004fa3c48);
    real_sleep(-1925969);
    real_sleep(-933223);
    in_spinner(37902, TRACE_VECTOR_ENTRY, "local_timer", 0xec);
    in_spinner(38643, TRACE_HRTIMER_ENTRY, "hrtimer_wakeup", timer)->arg = PLAN + 38343;
    struct trace_event *w = ev_add(PLAN + 39435, TRACE_WAKING, "jitterlab/1", 0);
    w->pid = REAL_TID;
    w->prio = 9;
    w->arg = 1;
    in_spinner(40667, TRACE_HRTIMER_EXIT, NULL, timer);
    in_spinner(44004, TRACE_VECTOR_EXIT, "local_timer", 0xec);
    sw(PLAN + 1427392, SPIN_TID, "spinner", SPIN_PRIO, REAL_TID, "jitterlab/1", 9);
    struct spike s = explain_real(1431640, -935167);

    assert_int_equal(s.flags, 0);
    assert_int_equal(s.ncauses, 3);
    assert_int_equal(part_ns(&s, CAUSE_TIMER_IRQ_LATE, ""), 38643);
    /* our callback, then from the switch to the clock read */
    assert_int_equal(part_ns(&s, CAUSE_WAKEUP, ""), 2024 + 4248);
    /* the rest of our interrupt (it interrupted the spinner) and up to the switch */
    assert_spinner_dominant(&s, 1431640 - 38643 - 2024 - 4248);
}

/* Our timer expired while the CPU was idle (nothing recorded): the only
 * trace of the spinner is the switch that ends its run. Was: unexplained
 * "idle, wake-up not traced" 2056749 + thread jitterlab/1 5501. */
static void test_real_spinner_seen_only_in_its_switch_out_is_the_thread(void **state)
{
    (void)state;
    real_sleep(-1924894);
    real_sleep(-941306);
    sw(PLAN + 2056749, SPIN_TID, "spinner", SPIN_PRIO, REAL_TID, "jitterlab/1", 9);
    struct spike s = explain_real(2062250, -943219);

    assert_true(s.flags & SPIKE_NO_EXPIRY);
    assert_int_equal(s.ncauses, 2);
    assert_spinner_dominant(&s, 2056749);
    /* our thread had gone to sleep: from the switch to it, its wake-up */
    assert_int_equal(part_ns(&s, CAUSE_WAKEUP, ""), 5501);
}

/* As before, with the tick taken in the spinner's context: the thread part
 * is cut by the timer interrupt, and named from the later switch. Was:
 * unexplained 2042654. */
static void test_real_spinner_interrupted_by_the_tick_is_the_thread(void **state)
{
    (void)state;
    const uint64_t tick = UINT64_C(0xffff888627d206f8);
    real_sleep(-876240);
    in_spinner(1547874, TRACE_VECTOR_ENTRY, "local_timer", 0xec);
    in_spinner(1548756, TRACE_HRTIMER_ENTRY, "tick_nohz_handler", tick)->arg = PLAN + 1548456;
    in_spinner(1587159, TRACE_HRTIMER_EXIT, NULL, tick);
    in_spinner(1590716, TRACE_VECTOR_EXIT, "local_timer", 0xec);
    sw(PLAN + 2085496, SPIN_TID, "spinner", SPIN_PRIO, REAL_TID, "jitterlab/1", 9);
    struct spike s = explain_real(2091006, -881420);

    assert_spinner_dominant(&s, 1547874 + (2085496 - 1590716));
    assert_int_equal(part_ns(&s, CAUSE_TIMER, "local_timer"), 882 + 3557);
    assert_int_equal(part_ns(&s, CAUSE_TIMER, "tick_nohz_handler"), 38403);
    assert_int_equal(part_ns(&s, CAUSE_WAKEUP, ""), 5510);
    assert_int_equal(part_ns(&s, CAUSE_UNEXPLAINED, NULL), -1);
}

/* Our thread slept, was switched in unseen (its timer expired in idle) and
 * was preempted by a disturber the tick woke: our thread's own stretches are
 * its wake-up, not a `thread` part of its own. */
static void test_thread_woken_unseen_then_preempted_is_wakeup(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 0, "swapper/1", 120);
    ev_add(PLAN + 1000, TRACE_VECTOR_ENTRY, "local_timer", 236)->pid = TID;
    ev_add(PLAN + 1100, TRACE_HRTIMER_ENTRY, "hrtimer_wakeup", 0x77)->pid = TID;
    ev_add(PLAN + 1200, TRACE_WAKING, "disturb", 0)->pid = 4711;
    ev_add(PLAN + 1300, TRACE_HRTIMER_EXIT, NULL, 0x77)->pid = TID;
    ev_add(PLAN + 1400, TRACE_VECTOR_EXIT, "local_timer", 236)->pid = TID;
    sw(PLAN + 2000, TID, "measure", 1, 4711, "disturb", 4);
    sw(PLAN + 50000, 4711, "disturb", 4, TID, "measure", 1);
    struct spike s = explain(PLAN + 51000);

    assert_true(s.flags & SPIKE_NO_EXPIRY);
    assert_int_equal(part_ns(&s, CAUSE_WAKEUP, ""), 1000 + 600 + 1000);
    assert_int_equal(part_ns(&s, CAUSE_TIMER, "hrtimer_wakeup"), 200);
    assert_int_equal(part_ns(&s, CAUSE_TIMER, "local_timer"), 200);
    assert_int_equal(part_ns(&s, CAUSE_THREAD, "disturb"), 48000);
    assert_int_equal(part_ns(&s, CAUSE_THREAD, "measure"), -1);
}

/* A task seen only in its events' tid, never named by a switch or waking. */
static void test_task_known_only_by_its_tid(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 0, "swapper/1", 120);
    ev_add(PLAN + 3000, TRACE_IRQ_ENTRY, "eth0", 24)->pid = 777;
    ev_add(PLAN + 4000, TRACE_IRQ_EXIT, NULL, 24)->pid = 777;
    struct spike s = explain(PLAN + 6000);

    assert_int_equal(part_ns(&s, CAUSE_THREAD, "tid 777"), 3000 + 2000);
    assert_int_equal(part_ns(&s, CAUSE_IRQ, "eth0"), 1000);
    assert_int_equal(s.causes[s.dominant].pid, 777);
}

static void test_more_causes_than_fit_are_folded(void **state)
{
    (void)state;
    char name[16];
    sw(PLAN - 500000, TID, "measure", 1, 300, "make", 120);
    for (int k = 0; k < 12; k++) {
        snprintf(name, sizeof name, "dev%d", k);
        ev_add(PLAN + k * 10000, TRACE_IRQ_ENTRY, name, (uint64_t)(30 + k));
        ev_add(PLAN + k * 10000 + 1000 + k * 100, TRACE_IRQ_EXIT, NULL, (uint64_t)(30 + k));
    }
    our_timer(PLAN + 130000);
    sw(PLAN + 131000, 300, "make", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 132000);
    assert_int_equal(s.ncauses, SPIKE_CAUSES_MAX);
    assert_true(s.flags & SPIKE_CAUSES_FOLDED);
    assert_int_equal(s.causes[SPIKE_CAUSES_MAX - 1].kind, CAUSE_UNEXPLAINED);
    assert_string_equal(s.causes[SPIKE_CAUSES_MAX - 1].name, "other causes");
    assert_int_equal(s.causes[s.dominant].kind, CAUSE_TIMER_IRQ_LATE);
}

/* Equal parts: the first in time is the dominant one. */
static void test_dominant_tie_goes_to_the_first(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 300, "make", 120);
    ev_add(PLAN, TRACE_IRQ_ENTRY, "b", 2);
    ev_add(PLAN + 1000, TRACE_IRQ_EXIT, NULL, 2);
    ev_add(PLAN + 1000, TRACE_IRQ_ENTRY, "a", 1);
    ev_add(PLAN + 2000, TRACE_IRQ_EXIT, NULL, 1);
    struct spike s = explain(PLAN + 2000);
    assert_int_equal(s.ncauses, 2);
    assert_string_equal(s.causes[s.dominant].name, "b");
}

static void test_events_of_other_cpus_are_ignored(void **state)
{
    (void)state;
    sw(PLAN - 500000, TID, "measure", 1, 300, "make", 120);
    ev_add(PLAN + 100, TRACE_IRQ_ENTRY, "eth0", 24)->cpu = 0;
    our_timer(PLAN + 1000);
    sw(PLAN + 2000, 300, "make", 120, TID, "measure", 1);
    struct spike s = explain(PLAN + 3000);
    assert_int_equal(part_ns(&s, CAUSE_IRQ, NULL), -1);
}

static void test_negative_or_zero_latency_has_no_parts(void **state)
{
    (void)state;
    our_timer(PLAN - 1000);
    struct spike s;
    struct spike_request req = request(PLAN - 10);
    attribute_spike(evs, nev, &req, &s);
    assert_int_equal(s.ncauses, 0);
    assert_int_equal(s.latency_ns, -10);
    req.wake_ns = PLAN;
    attribute_spike(evs, nev, &req, &s);
    assert_int_equal(s.ncauses, 0);
}

/* Unsorted, out-of-range and odd events never break the sum. */
static void test_hostile_events_keep_the_sum_exact(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15u;
    for (int round = 0; round < 2000; round++) {
        reset(NULL);
        size_t n = rng_next(&rng) % EV_MAX;
        for (size_t i = 0; i < n; i++) {
            struct trace_event *e =
                ev_add(PLAN - 50000 + (int64_t)(rng_next(&rng) % 200000),
                       (unsigned)(rng_next(&rng) % (TRACE_KIND_COUNT + 1)),
                       rng_next(&rng) % 2 ? "x" : "local_timer", rng_next(&rng) % 4);
            e->pid = rng_next(&rng) % 3 ? TID : (int32_t)(rng_next(&rng) % 4);
            e->prev_pid = (int32_t)(rng_next(&rng) % 4);
            e->arg = (int64_t)(rng_next(&rng) % 5) - 1;
            e->cpu = rng_next(&rng) % 8 ? CPU : 0;
            memset(e->name, 'n', sizeof e->name); /* no terminating NUL */
        }
        struct spike s;
        struct spike_request req = request(PLAN + (int64_t)(rng_next(&rng) % 100000));
        req.prev_end_ns = PLAN - 60000 + (int64_t)(rng_next(&rng) % 100000);
        if (rng_next(&rng) % 2)
            req.flags |= SPIKE_BUSY;
        attribute_spike(evs, nev, &req, &s);
        if (s.latency_ns > 0)
            assert_sum_exact(&s);
        for (unsigned i = 0; i < s.ncauses; i++)
            assert_true(strlen(s.causes[i].name) < sizeof s.causes[i].name);
    }
}

/* ---- SPIKE_BUSY: a gap in a spinning loop (`noise`) ---- */

static struct spike explain_gap(int64_t from, int64_t to, const struct trace_event *e, size_t n)
{
    struct spike s;
    struct spike_request req = {.cpu = CPU,
                                .tid = TID,
                                .planned_ns = from,
                                .wake_ns = to,
                                .prev_end_ns = from,
                                .flags = SPIKE_BUSY};
    attribute_spike(e, n, &req, &s);
    assert_sum_exact(&s);
    assert_true(s.flags & SPIKE_BUSY);
    assert_false(s.flags & SPIKE_NO_EXPIRY);
    return s;
}

/* A FIFO thread preempts the spinner for 2 ms: the gap is that thread, the
 * switch back is wakeup, the entry before the switch is ours: no event. */
static void test_busy_gap_preempted_by_a_fifo_thread(void **state)
{
    (void)state;
    ev_add(PLAN - 300000, TRACE_IRQ_ENTRY, "virtio1-req.0", 36)->pid = TID; /* before: ignored */
    ev_add(PLAN - 290000, TRACE_IRQ_EXIT, NULL, 36)->pid = TID;
    sw(PLAN + 1000, TID, "jl-noise", 120, 4711, "spinner", 4);
    sw(PLAN + 2001000, 4711, "spinner", 4, TID, "jl-noise", 120);
    struct spike s = explain_gap(PLAN, PLAN + 2003000, evs, nev);
    assert_int_equal(part_ns(&s, CAUSE_THREAD, "spinner"), 2000000);
    assert_int_equal(s.causes[s.dominant].pid, 4711);
    assert_int_equal(part_ns(&s, CAUSE_UNEXPLAINED, "no event"), 1000);
    assert_int_equal(part_ns(&s, CAUSE_WAKEUP, ""), 2000);
}

/* An interrupt and its softirq inside the gap; the rest is ours. */
static void test_busy_gap_irq_then_softirq(void **state)
{
    (void)state;
    ev_add(PLAN + 500, TRACE_VECTOR_ENTRY, "local_timer", 236)->pid = TID;
    ev_add(PLAN + 3500, TRACE_VECTOR_EXIT, "local_timer", 236)->pid = TID;
    ev_add(PLAN + 3600, TRACE_SOFTIRQ_ENTRY, "TIMER", 1)->pid = TID;
    ev_add(PLAN + 5600, TRACE_SOFTIRQ_EXIT, NULL, 1)->pid = TID;
    struct spike s = explain_gap(PLAN, PLAN + 6000, evs, nev);
    assert_int_equal(part_ns(&s, CAUSE_TIMER, "local_timer"), 3000);
    assert_int_equal(part_ns(&s, CAUSE_SOFTIRQ, "TIMER"), 2000);
    assert_int_equal(part_ns(&s, CAUSE_UNEXPLAINED, "no event"), 500 + 100 + 400);
}

/* No event at all inside the gap: the hypervisor or an SMI, unexplained. */
static void test_busy_gap_without_events_is_unexplained(void **state)
{
    (void)state;
    sw(PLAN - 5000000, 0, "swapper/1", 120, TID, "jl-noise", 120);
    struct spike s = explain_gap(PLAN, PLAN + 40000, evs, nev);
    assert_int_equal(s.ncauses, 1);
    assert_int_equal(s.causes[0].kind, CAUSE_UNEXPLAINED);
    assert_string_equal(s.causes[0].name, "no event");
    s = explain_gap(PLAN, PLAN + 40000, NULL, 0);
    assert_int_equal(part_ns(&s, CAUSE_UNEXPLAINED, NULL), 40000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_cause_kind_names_round_trip, reset),
        cmocka_unit_test_setup(test_fifo_disturber_is_the_dominant_thread, reset),
        cmocka_unit_test_setup(test_expiry_known_by_the_timer_the_thread_armed, reset),
        cmocka_unit_test_setup(test_a_timer_armed_by_another_task_is_not_the_expiry, reset),
        cmocka_unit_test_setup(test_irq_open_across_planned_time_delays_the_timer, reset),
        cmocka_unit_test_setup(test_exit_without_entry_means_open_from_the_start, reset),
        cmocka_unit_test_setup(test_idle_exit_from_a_deep_state, reset),
        cmocka_unit_test_setup(test_halted_vcpu_woken_late_is_not_an_idle_exit, reset),
        cmocka_unit_test_setup(test_idle_exit_far_beyond_every_exit_latency_is_the_host, reset),
        cmocka_unit_test_setup(test_ipi_storm, reset),
        cmocka_unit_test_setup(test_softirq_after_the_hrtimer, reset),
        cmocka_unit_test_setup(test_foreign_timer_and_workqueue, reset),
        cmocka_unit_test_setup(test_other_local_timer_interrupt_is_a_timer_part, reset),
        cmocka_unit_test_setup(test_no_events_is_all_unexplained, reset),
        cmocka_unit_test_setup(test_lost_events_are_unexplained, reset),
        cmocka_unit_test_setup(test_nested_vectors_count_for_the_innermost, reset),
        cmocka_unit_test_setup(test_nesting_deeper_than_the_stack, reset),
        cmocka_unit_test_setup(test_thread_still_running_late_without_sleep, reset),
        cmocka_unit_test_setup(test_running_task_from_the_first_switch, reset),
        cmocka_unit_test_setup(test_real_spinner_seen_only_in_its_own_events_is_the_thread, reset),
        cmocka_unit_test_setup(test_real_spinner_seen_only_in_its_switch_out_is_the_thread, reset),
        cmocka_unit_test_setup(test_real_spinner_interrupted_by_the_tick_is_the_thread, reset),
        cmocka_unit_test_setup(test_thread_woken_unseen_then_preempted_is_wakeup, reset),
        cmocka_unit_test_setup(test_task_known_only_by_its_tid, reset),
        cmocka_unit_test_setup(test_more_causes_than_fit_are_folded, reset),
        cmocka_unit_test_setup(test_dominant_tie_goes_to_the_first, reset),
        cmocka_unit_test_setup(test_events_of_other_cpus_are_ignored, reset),
        cmocka_unit_test_setup(test_negative_or_zero_latency_has_no_parts, reset),
        cmocka_unit_test_setup(test_hostile_events_keep_the_sum_exact, reset),
        cmocka_unit_test_setup(test_busy_gap_preempted_by_a_fifo_thread, reset),
        cmocka_unit_test_setup(test_busy_gap_irq_then_softirq, reset),
        cmocka_unit_test_setup(test_busy_gap_without_events_is_unexplained, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
