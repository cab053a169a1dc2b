/*
 * The spike store of one run: every explained spike passes through
 * spikes_add(); the `keep` largest are kept in full (a min-heap on latency,
 * so a new spike replaces the smallest kept one), all are counted, and all
 * feed a summary by dominant cause. A summary group is a source
 * (trace/cause_source.h): kind + name, and for a thread its comm, priority
 * and policy, with each of its pids counted apart (a restarted disturber
 * stays one group, two threads of one name at two priorities are two).
 * SPIKES_GROUPS_MAX groups are kept: when a new source comes and every
 * group is taken, the group with fewest spikes (ties: the one hit longest
 * ago) is folded into one "other" group, which counts the groups it took,
 * and its place goes to the new source. So a cause that starts late on a
 * machine whose many short-lived processes filled the table still gets its
 * row, and the rows kept hold the most frequent causes. Each group keeps
 * count, total, max and a log-linear histogram for the median. Everything
 * is allocated once by spikes_init; adding never allocates. Pure code, no
 * I/O.
 */
#ifndef JITTERLAB_TRACE_SPIKES_H
#define JITTERLAB_TRACE_SPIKES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/histogram.h"
#include "trace/attribute.h"
#include "trace/cause_source.h"

#define SPIKES_KEEP_DEFAULT 1000
#define SPIKES_GROUPS_MAX   32
/* The name of the group that takes dominant causes beyond SPIKES_GROUPS_MAX. */
#define SPIKES_OTHER_NAME "other"

struct spike_group {
    uint16_t kind; /* enum cause_kind; CAUSE_UNEXPLAINED for "other" */
    char name[TRACE_COMM_LEN * 2];
    int32_t prio;           /* thread: its kernel priority */
    int16_t policy;         /* thread: its policy (spike_cause.policy), the first known one */
    struct cause_pids pids; /* thread: spikes and time by pid */
    uint64_t count;
    uint64_t last_seen; /* the store's total when a spike last went to it */
    uint64_t folded;    /* "other": groups folded into it to make room */
    int64_t total_ns;   /* sum of the dominant parts */
    int64_t max_ns;
    int64_t latency_total_ns; /* sum of the whole latency of its spikes */
    int64_t latency_max_ns;   /* its largest spike */
    struct latency_hist hist; /* of the dominant parts */
};

/* One summary line, as the JSON and text writers print it. */
struct spike_summary_row {
    uint16_t kind;
    const char *name; /* points into the store */
    int32_t pid;      /* thread: the pid with most spikes */
    int32_t prio;
    int16_t policy;
    uint64_t count;
    double share; /* count / all spikes */
    int64_t total_ns;
    int64_t max_ns;
    int64_t median_ns;
    /* the spikes it dominated, whole: their latencies' sum and the largest
     * (what they cost a budget, beyond the dominant part alone) */
    int64_t latency_total_ns;
    int64_t latency_max_ns;
    const struct cause_pids *pids; /* thread: every pid's part; points into the store */
    uint64_t folded;               /* "other": groups folded into it to make room */
};

struct spike_store {
    size_t keep;            /* capacity of kept */
    size_t kept_count;      /* spikes in kept */
    struct spike *kept;     /* a min-heap on latency_ns until spikes_sorted_by_time */
    bool sorted;            /* kept is in time order (no longer a heap) */
    uint64_t total;         /* every spike added */
    int ncpu;               /* size of per_cpu */
    uint64_t *per_cpu;      /* spikes added per CPU id (ids >= ncpu are not counted here) */
    uint64_t *per_cpu_kind; /* per CPU id and dominant cause kind */
    size_t named_groups;    /* groups[0 .. named_groups) */
    /* SPIKES_GROUPS_MAX named groups, then "other" (in use when its count > 0) */
    struct spike_group *groups;
};

/* Allocates for `keep` kept spikes (0 is allowed: only counted) and CPU ids
 * 0..ncpu-1. Returns 0, or -1 when out of memory (the store is then empty
 * and spikes_free is still safe). */
int spikes_init(struct spike_store *store, size_t keep, int ncpu);
void spikes_free(struct spike_store *store);

/* Counts the spike, feeds the summary, keeps it when among the `keep`
 * largest (ties: the earlier one stays). Never allocates. */
void spikes_add(struct spike_store *store, const struct spike *spike);

/* Spikes of CPU id cpu whose dominant cause was of kind `kind`. */
uint64_t spikes_cpu_cause(const struct spike_store *store, int cpu, unsigned kind);

/* The kept spikes in time order (planned_ns, then cpu); *count gets their
 * number. Adding afterwards is allowed (the heap is rebuilt). */
const struct spike *spikes_sorted_by_time(struct spike_store *store, size_t *count);

/* The summary, by count (ties: total_ns, then the group's place); writes at most
 * max rows and returns how many. SPIKES_GROUPS_MAX + 1 rows hold all. */
size_t spikes_summary(const struct spike_store *store, struct spike_summary_row *rows, size_t max);

/* One line for people: "92% of 101 spikes: thread disturb/4711 SCHED_FIFO 95,
 * median 1.9 ms"; a thread source of several pids names the first three by
 * their share of its spikes ("thread disturb SCHED_FIFO 95 (pids 4711 60%,
 * 4800 40%)"), the "other" group says what it holds ("other (5 smaller
 * causes folded)"). policy names a
 * thread's policy when the caller knows it (NULL: derived from the
 * priority). Returns what snprintf returns. */
int spike_summary_text(const struct spike_summary_row *row, uint64_t total_spikes,
                       const char *policy, char *buf, size_t len);

#endif
