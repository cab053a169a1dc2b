/*
 * One kernel tracepoint event as jitterlab keeps it: decoded once from the
 * perf ring buffer (trace/capture.c) into a fixed-size record, then read by
 * the spike attribution (trace/attribute.c). Timestamps are CLOCK_MONOTONIC
 * nanoseconds (perf use_clockid), the same clock as the engine's planned
 * wake-ups, so the two can be compared directly.
 */
#ifndef JITTERLAB_TRACE_TRACE_EVENT_H
#define JITTERLAB_TRACE_TRACE_EVENT_H

#include <stdint.h>

#define TRACE_COMM_LEN 16

enum trace_kind {
    TRACE_IRQ_ENTRY,     /* irq:irq_handler_entry: id = irq number, name = handler name */
    TRACE_IRQ_EXIT,      /* irq:irq_handler_exit: id = irq number */
    TRACE_SOFTIRQ_ENTRY, /* irq:softirq_entry: id = vector, name = "TIMER", "NET_RX", ... */
    TRACE_SOFTIRQ_EXIT,  /* irq:softirq_exit: id = vector */
    TRACE_VECTOR_ENTRY,  /* irq_vectors:X_entry: id = vector number when the event has one,
                          * name = X ("local_timer", "reschedule", "call_function", ...) */
    TRACE_VECTOR_EXIT,   /* irq_vectors:X_exit: as the entry */
    TRACE_HRTIMER_ENTRY, /* timer:hrtimer_expire_entry: id = hrtimer address,
                          * arg = the timer's expiry time ("now" field),
                          * name = callback symbol ("hrtimer_wakeup", ...) or its address */
    TRACE_HRTIMER_EXIT,  /* timer:hrtimer_expire_exit: id = hrtimer address */
    TRACE_IDLE,          /* power:cpu_idle: arg = state, -1 on exit from idle */
    TRACE_SWITCH,        /* sched:sched_switch: pid/comm/prio = next task,
                          * prev_pid/prev_comm/prev_prio = previous task,
                          * arg = prev_state */
    TRACE_WAKING,        /* sched:sched_waking: pid/comm/prio = woken task,
                          * arg = its target CPU */
    TRACE_WORK_START,    /* workqueue:workqueue_execute_start: id = work address,
                          * name = function symbol or address */
    TRACE_WORK_END,      /* workqueue:workqueue_execute_end: id = work address */
    TRACE_HRTIMER_START, /* timer:hrtimer_start: id = hrtimer address, pid = the task that
                          * armed it (kept only for the measuring thread: its sleep) */
    TRACE_LOST,          /* not a tracepoint: the capture lost records at this point of the
                          * stream (PERF_RECORD_LOST, a malformed record); arg = records
                          * lost, t_ns 0: the records around it bound the gap in time */
    TRACE_KIND_COUNT
};

struct trace_event {
    int64_t t_ns;      /* CLOCK_MONOTONIC */
    uint16_t kind;     /* enum trace_kind */
    int16_t cpu;       /* the CPU the event was recorded on */
    int32_t pid;       /* see enum trace_kind; the current task's tid otherwise */
    int32_t prio;      /* kernel priority (0..99 real-time as 99 - rt_priority, 100..139 normal) */
    int32_t prev_pid;  /* sched_switch only */
    int32_t prev_prio; /* sched_switch only */
    int64_t arg;
    uint64_t id;
    char name[TRACE_COMM_LEN * 2]; /* comm of pid, or the handler/vector/function name */
    char prev_comm[TRACE_COMM_LEN];
};

#endif
