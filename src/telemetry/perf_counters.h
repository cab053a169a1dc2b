/*
 * The perf-based telemetry sources, per CPU:
 *  - the msr PMU (events msr/tsc/, msr/aperf/, msr/mperf/, msr/smi/ as
 *    /sys/bus/event_source/devices/msr/events lists them), opened as one
 *    group per CPU so that one read gives all four. A read of another
 *    CPU's counter runs on that CPU by an inter-processor interrupt.
 *  - context switches: the software event sampled at every switch into a
 *    small ring buffer per CPU that is counted, never read() (a read would
 *    interrupt the CPU); PERF_RECORD_LOST keeps the count exact when the
 *    ring fills between two polls.
 * Both need the live machine and, for CPU-wide events, root or
 * CAP_PERFMON (perf_event_paranoid); what cannot be opened says why.
 */
#ifndef JITTERLAB_TELEMETRY_PERF_COUNTERS_H
#define JITTERLAB_TELEMETRY_PERF_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/sysroot.h"

enum msr_counter {
    MSR_COUNTER_TSC,
    MSR_COUNTER_APERF,
    MSR_COUNTER_MPERF,
    MSR_COUNTER_SMI,
    MSR_COUNTERS
};

struct perf_msr_group {
    int ncpu;
    bool have[MSR_COUNTERS]; /* the PMU has the event and it opened */
    int *fd;                 /* ncpu x MSR_COUNTERS, -1 where absent; [i][first have] leads */
    int leader_of[MSR_COUNTERS];
};

/* Opens the msr PMU events that exist on every CPU of cpus. 0 when at least
 * one opened; -1 with why (no msr PMU, not permitted, ...). */
int perf_msr_open(struct perf_msr_group *g, const struct sysroot *sr, const struct cpulist *cpus,
                  char *why, size_t whylen);
/* Reads the group of the CPU of index i: values[k] for every have[k].
 * 0, or -1 when the read failed. */
int perf_msr_read(const struct perf_msr_group *g, int i, uint64_t values[MSR_COUNTERS]);
void perf_msr_close(struct perf_msr_group *g);

struct perf_switch_cpu;

struct perf_switch_counter {
    int ncpu;
    struct perf_switch_cpu *cpu;
};

/* Opens one context-switch ring per CPU. 0, or -1 with why. */
int perf_switch_open(struct perf_switch_counter *c, const struct cpulist *cpus, char *why,
                     size_t whylen);
/* Counts what the rings hold now (call at least every 100 ms). */
void perf_switch_poll(struct perf_switch_counter *c);
/* Context switches counted so far on the CPU of index i. */
uint64_t perf_switch_count(const struct perf_switch_counter *c, int i);
void perf_switch_close(struct perf_switch_counter *c);

#endif
