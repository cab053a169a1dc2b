/*
 * What makes parts of different spikes (or gaps) one row of a summary, and
 * which threads a row holds. A row is a source: its kind and name and, for a
 * thread, its scheduling priority and policy, for these are what a fix acts
 * on: two threads called "disturb" at SCHED_FIFO 10 and 5 are two causes. The
 * threads of one source (a disturber that restarts, the workers of a pool)
 * stay one row, so that a machine with thousands of threads still gets a
 * short summary; the row lists each pid with its own count and time, the
 * first CAUSE_PIDS_MAX of them, and sums the later ones as unlisted, which the
 * writers say. Pure code, no allocation.
 */
#ifndef JITTERLAB_TRACE_CAUSE_SOURCE_H
#define JITTERLAB_TRACE_CAUSE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/attribute.h"

#define CAUSE_PIDS_MAX 8

/* A thread's share of its row: spikes (or gaps) and time. */
struct cause_pid {
    int32_t pid;
    uint64_t count;
    int64_t ns;
};

struct cause_pids {
    uint32_t n;                           /* listed */
    struct cause_pid pid[CAUSE_PIDS_MAX]; /* in the order first seen */
    uint64_t unlisted_count;              /* of pids beyond the listed ones */
    int64_t unlisted_ns;
};

/* Whether part c belongs to the row of source (kind, name, prio, policy):
 * the same kind and name, and for a thread the same kernel priority and
 * policy, an unknown policy (-1: the task was gone when it was read) taking
 * either side. */
bool cause_same_source(unsigned kind, const char *name, int32_t prio, int16_t policy,
                       const struct spike_cause *c);

/* count spikes (gaps) and ns of thread pid into its row's list. */
void cause_pids_add(struct cause_pids *p, int32_t pid, uint64_t count, int64_t ns);

/* The listed pids into out (CAUSE_PIDS_MAX), most time first when by_ns,
 * else most spikes first (ties: more of the other, then first seen).
 * Returns how many. */
size_t cause_pids_sorted(const struct cause_pids *p, bool by_ns, struct cause_pid *out);

/* "pids 4711 60%, 4800 40%" (shares of the row's spikes, or of its time
 * when by_ns): the first `shown` pids, the rest and the unlisted ones as
 * "others N%"; "" for a row of one pid. Returns what snprintf returns. */
int cause_pids_text(const struct cause_pids *p, bool by_ns, size_t shown, char *buf, size_t len);

#endif
