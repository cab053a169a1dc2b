/*
 * Where one CPU's noise went: every part of every attributed gap
 * (trace/attribute.h) summed by source (trace/cause_source.h: kind and
 * name; a thread by its comm, priority and policy, each of its pids
 * counted apart), and the largest gaps kept in full. A gap counts once in
 * each row it has parts in, however many. NOISE_CAUSE_ROWS sources get rows
 * of their own: when a new source comes and every row is taken, the row
 * with least time (ties: hit longest ago; never one the same gap has a part
 * in) is folded into one "other" row, which counts the rows it took, and
 * its place goes to the new source, as in trace/spikes.h. Allocated once by
 * noise_causes_init; adding never allocates. Pure code: runs on the
 * collector.
 */
#ifndef JITTERLAB_NOISE_NOISE_CAUSES_H
#define JITTERLAB_NOISE_NOISE_CAUSES_H

#include <stddef.h>
#include <stdint.h>

#include "trace/attribute.h"
#include "trace/cause_source.h"

#define NOISE_CAUSE_ROWS      32
#define NOISE_LARGEST_DEFAULT 10
#define NOISE_LARGEST_MAX     10000
#define NOISE_OTHER_CAUSES    "other" /* not "other causes": a spike's folded part */

struct noise_cause_row {
    uint16_t kind; /* enum cause_kind */
    char name[TRACE_COMM_LEN * 2];
    int32_t pid;    /* thread: the pid with most time (set by noise_causes_sorted) */
    int32_t prio;   /* thread: its kernel priority */
    int16_t policy; /* thread: SCHED_* as explain read it, -1 unknown */
    uint64_t gaps;  /* gaps this cause had a part in, each once ("other": summed) */
    int64_t ns;
    struct cause_pids pids; /* thread: gaps and time by pid */
    uint64_t last_seen;     /* noise_causes.attributed when a part last came */
    uint64_t folded;        /* "other": rows folded into it to make room */
};

struct noise_causes {
    struct noise_cause_row row[NOISE_CAUSE_ROWS + 1]; /* the last: other causes */
    size_t nrows;                                     /* named rows in use */
    int64_t total_ns;                                 /* every part added */
    uint64_t attributed;                              /* gaps added by noise_causes_add */
    struct spike *largest;                            /* a min-heap on latency_ns of at most cap */
    size_t nlargest, cap;
};

/* 0, or -1 when out of memory (then noise_causes_free is still safe). */
int noise_causes_init(struct noise_causes *c, size_t largest);
void noise_causes_free(struct noise_causes *c);
/* An attributed gap: its parts into the rows, itself among the largest. */
void noise_causes_add(struct noise_causes *c, const struct spike *s);
/* A gap without causes (no tracepoints): only among the largest. */
void noise_largest_add(struct noise_causes *c, const struct spike *s);
/* The rows by time, largest first ("other causes" in its place when in
 * use); out holds NOISE_CAUSE_ROWS + 1. Returns how many. */
size_t noise_causes_sorted(const struct noise_causes *c, struct noise_cause_row *out);
/* The largest gaps, longest first (turns the heap into a sorted array;
 * adding afterwards is not allowed). */
const struct spike *noise_largest_sorted(struct noise_causes *c, size_t *n);

#endif
