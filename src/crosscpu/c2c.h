/*
 * The core-to-core latency measurement of `jitterlab c2c`: for each ordered
 * pair of CPUs, two pinned threads (a team_run per pair) pass one cache
 * line back and forth, each waiting for the other's value and then writing
 * its own (load-store) or taking the line over with a compare-and-swap
 * (cas). The initiating thread times every round trip with the timebase.
 * Bounded: every wait has a deadline (a wait past it loses the round, a
 * timeout), spinning goes in slices with a rest of 1 ms between them, and a
 * stop request ends the measurement between two slices. Prints nothing.
 */
#ifndef JITTERLAB_CROSSCPU_C2C_H
#define JITTERLAB_CROSSCPU_C2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crosscpu/c2c_matrix.h"
#include "crosscpu/timebase.h"

enum c2c_mode {
    C2C_LOAD_STORE,
    C2C_CAS,
};
/* "load-store", "cas". */
const char *c2c_mode_name(enum c2c_mode m);
/* 0, or -1 when text names no mode. */
int c2c_mode_parse(const char *text, enum c2c_mode *out);

#define C2C_TIMEOUT_NS INT64_C(10000000) /* a wait longer than this: a timeout */
#define C2C_SLICE_NS   INT64_C(10000000) /* the longest stretch of round trips */
#define C2C_REST_NS    INT64_C(1000000)  /* the sleep between two slices */

struct c2c_progress {
    size_t done, total; /* ordered pairs */
    bool realtime;      /* every pair so far ran at SCHED_FIFO */
};

struct c2c_config {
    enum c2c_mode mode;
    int round_trips; /* timed per round */
    int rounds;      /* per pair */
    bool fifo;
    int priority;
    const struct timebase *tb;
    int64_t timeout_ns; /* C2C_TIMEOUT_NS unless a test wants less */
    /* Called after each pair (may be NULL), on the calling thread. */
    void (*progress)(void *arg, const struct c2c_progress *p);
    void *progress_arg;
};

struct c2c_report {
    bool realtime;    /* every pair ran at SCHED_FIFO */
    bool interrupted; /* a stop request ended the measurement */
    size_t pairs_done;
    int64_t timeouts;       /* over every pair */
    size_t pairs_unstarted; /* pairs whose threads could not start (left unmeasured) */
    char start_error[160];  /* why, for the first of them */
};

/* Everything the outputs show: the settings, the matrix with its groups,
 * the topology beside it and the summary per group. */
struct c2c_result {
    const struct c2c_config *cfg;
    const struct c2c_matrix *m;
    const struct cpu_topology *topo;
    struct c2c_report rep;
    struct c2c_group_stats group[CPU_PAIR_GROUPS];
    int ngroups;
    double duration_s;
    const char *hypervisor; /* NULL on bare metal */
};

/* Measures every off-diagonal pair of m (its CPUs, row-major), filling its
 * pairs. A pair whose threads cannot start (a CPU held by a higher-priority
 * thread, gone offline) is left unmeasured and counted in pairs_unstarted,
 * and the others go on. 0 (also when interrupted); -1 with err when memory
 * ran out (the pairs done so far stay). */
int c2c_measure(const struct c2c_config *cfg, struct c2c_matrix *m, struct c2c_report *rep,
                char *err, size_t errlen);

#endif
