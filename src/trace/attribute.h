/*
 * Why was one cycle late: the kernel events of one CPU around a latency spike
 * turned into causes whose parts add up, to the nanosecond, to the spike's
 * latency (wake_ns - planned_ns). Pure code: no I/O, no allocation, no system
 * call; the caller (trace/capture.c) hands in the decoded events of one CPU in
 * time order, starting at prev_end_ns or earlier.
 *
 * The model. Let E be the expiry of the measuring thread's timer: the
 * hrtimer_expire_entry whose callback wakes the thread (a sched_waking of tid
 * before that callback's hrtimer_expire_exit, or the timer whose
 * hrtimer_start was last recorded in tid: the one its sleep armed; the
 * capture records one of the two, see explain.c); when there are several, the
 * last one at or before wake_ns, and never one before prev_end_ns (that one
 * woke an earlier cycle). Let S be the last sched_switch to tid in
 * (E, wake_ns]. The timeline [planned_ns, wake_ns] is cut at every event and
 * each piece goes to the innermost activity open at that moment:
 *   - an irq_vectors handler: `ipi` named after the vector (reschedule,
 *     call_function, irq_work, ...), or `timer` "local_timer" for the local
 *     timer vector; the one local-timer interrupt that runs our own timer is
 *     not a cause of its own, its time counts by phase as below;
 *   - an irq handler: `irq` (handler name, id = irq number);
 *   - a softirq: `softirq` (vector name);
 *   - an hrtimer callback other than ours: `timer` (callback name);
 *   - a workqueue item: `workqueue` (function);
 *   - else the task running, labelled by phase:
 *       before E: time in an idle state until its exit -> `idle-exit` (name:
 *         the state, "C1" or "state 2"), except under a hypervisor when the
 *         guest has no cpuidle driver (its idle is a plain halt, and the
 *         host decides when the halted vCPU runs again) or when the stretch
 *         lasts more than VCPU_WAKE_LATE_FACTOR times the longest exit
 *         latency any idle state declares: then `vcpu-wake-late` (name:
 *         "halt" without a driver, else the state), the host woke the
 *         halted vCPU late; the rest -> `timer-irq-late` (the timer
 *         interrupt came late: interrupts off, idle exit unseen, ...);
 *       between E and S: another task running -> `thread` (comm, pid, prio);
 *         idle or our own thread (the switch path to us) -> `wakeup`;
 *       after S, and our own hrtimer callback: `wakeup`.
 *   - With SPIKE_BUSY (below), there is no E by definition.
 *   - Without E (no expiry found: events missing, or the thread never slept
 *     because the previous cycle ended after planned_ns): handlers as above,
 *     our own thread after it went to sleep for this cycle (a switch away
 *     from it at or after prev_end_ns) -> `wakeup` (its wake-up left no
 *     events); any other known task running -> `thread` (our own thread
 *     included when it never slept: it was still busy with the previous
 *     cycle), the rest -> `unexplained`.
 * The running task comes from the switches (their next task) and from the
 * task each event was recorded in: a switch's prev task, and for every other
 * event but sched_waking the current tid perf stores with it (0 there says
 * nothing). An event recorded in a task other than the one running means the
 * switch to that task left no event: it takes the whole stretch since the
 * previous event. Some kernels record nothing while the idle task runs (not
 * its switch to the next task, nor the interrupts it takes; Linux 6.18 on a
 * VM does so), so a task woken on an idle CPU first shows in its own events
 * or in the switch that ends its run, and the idle time before it ran cannot
 * be told apart from its own. Its comm and priority come from the nearest
 * switch or waking that names it ("tid N" if none).
 * The state at planned_ns (running task, idle, open handlers) is rebuilt from
 * the events before it; when the array starts inside a handler, an exit
 * without an entry says so; before the first event that tells the running
 * task, that task is taken as running. Events whose range the capture lost
 * (SPIKE_EVENTS_LOST) make the whole latency one `unexplained` part.
 *
 * Hostile input never breaks the sum: timestamps are clamped to be
 * non-decreasing and to [planned_ns, wake_ns]; exits without entries are
 * ignored; handlers nested deeper than a small fixed stack count for the
 * deepest one tracked; causes beyond SPIKE_CAUSES_MAX are folded into one
 * `unexplained` "other causes" part.
 */
#ifndef JITTERLAB_TRACE_ATTRIBUTE_H
#define JITTERLAB_TRACE_ATTRIBUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace_event.h"

/* The cause kinds, in the order of cause_kind_name's table. */
enum cause_kind {
    CAUSE_TIMER_IRQ_LATE,
    CAUSE_IDLE_EXIT,
    CAUSE_VCPU_WAKE_LATE,
    CAUSE_IRQ,
    CAUSE_SOFTIRQ,
    CAUSE_IPI,
    CAUSE_TIMER,
    CAUSE_THREAD,
    CAUSE_WORKQUEUE,
    CAUSE_WAKEUP,
    CAUSE_UNEXPLAINED,
    CAUSE_KIND_COUNT
};

/* "timer-irq-late", "idle-exit", "vcpu-wake-late", "irq", "softirq", "ipi", "timer", "thread",
 * "workqueue", "wakeup", "unexplained"; "?" out of range. */
const char *cause_kind_name(unsigned kind);
/* The kind named name, or -1. */
int cause_kind_from_name(const char *name);

#define SPIKE_CAUSES_MAX 8

/* One part of a spike's latency. */
struct spike_cause {
    uint16_t kind;                 /* enum cause_kind */
    char name[TRACE_COMM_LEN * 2]; /* comm, handler, vector, callback, function, idle state */
    int32_t pid;                   /* thread: its tid; 0 otherwise */
    int32_t prio;                  /* thread: kernel priority (see trace_event.h); 0 otherwise */
    int16_t policy; /* thread: SCHED_* when the spike was explained, -1 unknown; explain.c
                     * sets it (the attribution itself reads no task) */
    uint64_t id;    /* irq: irq number; idle-exit, vcpu-wake-late: state; 0 otherwise */
    int64_t ns;
};

/* The scheduling policy a kernel priority implies: "SCHED_DEADLINE" (< 0),
 * "SCHED_FIFO/RR" (0..99: the priority cannot tell them apart),
 * "SCHED_OTHER" (>= 100). */
const char *cause_policy_name(int32_t prio);
/* The priority chrt shows: 99 - prio for real-time, 0 otherwise. */
int cause_user_priority(int32_t prio);

/* struct spike_request.flags and struct spike.flags */
#define SPIKE_EVENTS_LOST   0x1u /* the capture lost events in the range */
#define SPIKE_NO_EXPIRY     0x2u /* no expiry of the thread's timer found */
#define SPIKE_CAUSES_FOLDED 0x4u /* more causes than SPIKE_CAUSES_MAX */
#define SPIKE_WINDOW        0x8u /* from the window method, not tracepoints */
/* struct spike_request.flags: the thread never sleeps (`noise`: a gap in a
 * busy loop). It was running at planned_ns and resumes at wake_ns; there
 * is no timer expiry to look for. Handlers and other tasks count as above;
 * the thread's own time inside the gap, which no event accounts for, is
 * `unexplained` "no event" (the hypervisor, an SMI, firmware, or the entry
 * and exit of an interrupt the tracepoints do not see); after a switch
 * away from it, the switch back is `wakeup`; the idle task is `unexplained`
 * "idle". */
#define SPIKE_BUSY 0x10u

/* What the engine knows about the late cycle. */
struct spike_request {
    int cpu;             /* events of other CPUs are ignored */
    int32_t tid;         /* the measuring thread */
    int64_t planned_ns;  /* planned wake-up, CLOCK_MONOTONIC */
    int64_t wake_ns;     /* the thread's clock read after waking */
    int64_t prev_end_ns; /* end of the previous cycle's work, or planned_ns - interval */
    unsigned flags;      /* SPIKE_EVENTS_LOST */
    /* Names of the idle states by number ("POLL", "C1", ...); NULL: "state N". */
    const char *const *idle_state_names;
    unsigned idle_state_count;
    /* What tells a halted vCPU from a guest idle state (the model above):
     * the machine runs under a hypervisor, the guest has a cpuidle driver,
     * the longest exit latency its states declare (<= 0: not known). */
    bool hypervisor;
    bool idle_driver;
    int64_t idle_exit_latency_max_ns;
};

/* Idle time before E longer than this many times the longest declared exit
 * latency is not an idle state's exit but the host's late wake-up. */
#define VCPU_WAKE_LATE_FACTOR 10

/* One explained spike. The parts' ns add up exactly to latency_ns when
 * latency_ns >= 0; a spike with wake_ns < planned_ns has no parts. */
struct spike {
    int32_t cpu;
    int32_t tid;
    int64_t planned_ns;
    int64_t wake_ns;
    int64_t latency_ns; /* wake_ns - planned_ns */
    uint32_t flags;     /* SPIKE_* */
    uint16_t ncauses;
    uint16_t dominant; /* index of the largest part (ties: the first in time) */
    struct spike_cause causes[SPIKE_CAUSES_MAX]; /* in order of first appearance */
};

/* Explains one spike from the events of its CPU (n may be 0, events NULL). */
void attribute_spike(const struct trace_event *events, size_t n, const struct spike_request *req,
                     struct spike *out);

#endif
