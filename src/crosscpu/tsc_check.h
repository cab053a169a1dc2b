/*
 * The measuring part of the TSC check: what the machine says (CPU flags,
 * clocksources, tsc= on the command line, the kernel log), then on the live
 * CPUs the warp test (every pair of CPUs reading the TSC under one shared
 * lock-free "last value", as the kernel's check_tsc_warp does under a
 * spinlock), each CPU's offset from the reference (the first CPU) by the
 * minimum round trip, and each CPU's TSC rate against CLOCK_MONOTONIC_RAW.
 * Every spin runs in slices (at most TSC_SLICE_SPIN_NS, then a sleep of at
 * least 1 ms) and ends at a deadline, whether the partner answers or not.
 * Prints nothing; tsc_verdict.h judges the results.
 */
#ifndef JITTERLAB_CROSSCPU_TSC_CHECK_H
#define JITTERLAB_CROSSCPU_TSC_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crosscpu/timebase.h"
#include "crosscpu/tsc_verdict.h"
#include "sys/cpu_topology.h"
#include "sys/sysroot.h"

/* The warp test's split: each pair gets at least this much of -D; when all
 * pairs at this floor do not fit, the pairs of each CPU with the reference
 * come first, then neighbours (i, i+1), then the rest, as many as fit. */
#define TSC_PAIR_FLOOR_NS (5 * 1000 * 1000LL)
/* Spin at most this long, then sleep at least TSC_SLICE_SLEEP_NS. */
#define TSC_SLICE_SPIN_NS  (10 * 1000 * 1000LL)
#define TSC_SLICE_SLEEP_NS (1000 * 1000LL)
/* Offsets: at most this many rounds per CPU, in at most 3 slices of 5 ms;
 * a round the partner does not answer within the timeout is a timeout. */
#define TSC_OFFSET_ROUNDS    1000
#define TSC_ROUND_TIMEOUT_NS (100 * 1000LL)
/* Rates: the time between the two clock pairs of each CPU. */
#define TSC_RATE_INTERVAL_NS (150 * 1000 * 1000LL)
/* run --clock tsc: the warp test's total over the run's CPUs. */
#define TSC_QUICK_WARP_NS (150 * 1000 * 1000LL)

/* Fills st from the sysroot (hypervisor: system_info's, "" on bare
 * metal): never fails; what is unreadable says so. */
void tsc_check_static(const struct sysroot *sr, const char *hypervisor, struct tsc_static *st);

/* The flags every CPU's "flags" line of sysroot's /proc/cpuinfo holds. */
void tsc_read_flags(const struct sysroot *sr, struct tsc_flags *f);

/* The pairs of the warp test, as indexes into a CPU list of ncpu: how many
 * fit in total_ns at floor_ns each (at least the ncpu - 1 pairs with index
 * 0; one pair (0, 0) when ncpu is 1), in that order, at most max. Returns
 * the count; *pair_ns is each one's share, *possible all pairs. */
int tsc_plan_pairs(int ncpu, int64_t total_ns, int64_t floor_ns, int *a, int *b, int max,
                   int64_t *pair_ns, uint64_t *possible);

struct tsc_check_config {
    const int *cpus; /* cpus[0] is the reference */
    int ncpu;
    int64_t warp_ns; /* the warp test's total */
    bool offsets, rates;
    bool no_rdtscp; /* the live CPU lacks rdtscp (bare metal): measure nothing */
    bool fifo;
    int priority;
    const struct cpu_topology *topo; /* names each pair's group; may be NULL */
    /* called between steps on the calling thread (progress on a terminal) */
    void (*progress)(void *arg, const char *what, int done, int total);
    void *progress_arg;
};

/* Allocates r for cfg and plans the pairs. 0, or -1 (memory). */
int tsc_results_init(struct tsc_results *r, const struct tsc_check_config *cfg);
void tsc_results_free(struct tsc_results *r);

/* Measures on the live CPUs: warp test, offsets, rates (as cfg asks; none
 * with no_rdtscp, then r->no_rdtscp), each
 * ending early at stop_requested() (then r->interrupted). 0, or -1 with err
 * when a thread could not be started or pinned. */
int tsc_check_measure(const struct tsc_check_config *cfg, const struct timebase *tb,
                      struct tsc_results *r, char *err, size_t errlen);

/* What run --clock tsc asks: the static part from sr and, on the live
 * machine only (sr's prefix empty), a TSC_QUICK_WARP_NS warp test over
 * cpus (one CPU: its monotonicity). 0 with v filled, or -1 with err. */
int tsc_check_quick(const struct sysroot *sr, const char *hypervisor, const int *cpus, int ncpu,
                    struct tsc_verdict *v, char *err, size_t errlen);

#endif
