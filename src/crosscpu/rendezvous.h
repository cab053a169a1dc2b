/*
 * The all-CPU rendezvous of `jitterlab rendezvous`: every CPU of a team spins
 * on one shared semaphore for a few loop iterations, the first CPU (the
 * master) takes a TSC stamp on the first pass and every CPU reads it on the
 * last iteration, as a hypervisor's TSC-calibration rendezvous does. Three
 * layouts of the shared fields are timed, interleaved (rendezvous k uses
 * layout k mod L): the fields on one cache line, the stamp on a line of its
 * own, and the stamp latched into a local at the end of each iteration.
 * The measurement returns raw per-CPU records; rendezvous_stats.h reduces them.
 */
#ifndef JITTERLAB_CROSSCPU_RENDEZVOUS_H
#define JITTERLAB_CROSSCPU_RENDEZVOUS_H

#include <assert.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crosscpu/timebase.h"

#define RV_CACHE_LINE 64

enum rv_layout {
    RV_PACKED,     /* semaphore, master time and stamp on one line (before the fix) */
    RV_PADDED,     /* the stamp on a line of its own, prefetched on earlier iterations */
    RV_LOCAL_COPY, /* packed, the stamp copied into a local at each iteration's end */
    RV_LAYOUT_COUNT,
};

/* "packed", "padded", "local-copy". */
const char *rv_layout_name(enum rv_layout l);
/* The layout named by s[0..len), or -1. */
int rv_layout_find(const char *s, size_t len);

/* The shared fields before the fix: the field every CPU reads on the last
 * iteration sits on the line that every CPU's atomic increment pulls away. */
struct rv_packed {
    alignas(RV_CACHE_LINE) atomic_uint semaphore;
    _Atomic uint64_t master_time;  /* the master's clock when it took the stamp */
    _Atomic uint64_t master_stamp; /* the master's TSC, taken on the first pass */
};

/* The fix: the stamp alone on the next line, never written after the first
 * pass, so it stays shared in every cache. */
struct rv_padded {
    alignas(RV_CACHE_LINE) atomic_uint semaphore;
    _Atomic uint64_t master_time;
    alignas(RV_CACHE_LINE) _Atomic uint64_t master_stamp;
};

#define RV_LINE_OF(type, field) (offsetof(type, field) / RV_CACHE_LINE)

static_assert(alignof(struct rv_packed) == RV_CACHE_LINE, "packed layout is line-aligned");
static_assert(alignof(struct rv_padded) == RV_CACHE_LINE, "padded layout is line-aligned");
static_assert(sizeof(struct rv_packed) == RV_CACHE_LINE, "packed layout is one line");
static_assert(RV_LINE_OF(struct rv_packed, master_stamp) == RV_LINE_OF(struct rv_packed, semaphore),
              "packed: the stamp shares the semaphore's line");
static_assert(RV_LINE_OF(struct rv_packed, master_time) == RV_LINE_OF(struct rv_packed, semaphore),
              "packed: the master time shares the semaphore's line");
static_assert(RV_LINE_OF(struct rv_padded, master_stamp) != RV_LINE_OF(struct rv_padded, semaphore),
              "padded: the stamp is off the semaphore's line");
static_assert(RV_LINE_OF(struct rv_padded, master_stamp) !=
                  RV_LINE_OF(struct rv_padded, master_time),
              "padded: the stamp is off the master time's line");
static_assert(offsetof(struct rv_padded, master_stamp) % RV_CACHE_LINE == 0 &&
                  sizeof(struct rv_padded) - offsetof(struct rv_padded, master_stamp) ==
                      RV_CACHE_LINE,
              "padded: the stamp's line holds nothing else");

/* Bounds of the real-time path. Every spin ends at RV_DEADLINE_NS (from the
 * rendezvous' entry, or from the start of a wait at the start barrier), and a
 * rendezvous longer than that on any CPU counts as a timeout. The master
 * sleeps RV_NAP_NS once it has run RV_SLICE_NS since its last sleep and tells
 * the members to sleep with it (a member sleeps by itself after two slices),
 * so that no thread spins more than ~18 ms at SCHED_FIFO. */
#define RV_DEADLINE_NS INT64_C(4000000)
#define RV_SLICE_NS    INT64_C(3000000)
#define RV_NAP_NS      INT64_C(1000000)

struct rv_config {
    const int *cpus; /* cpus[0] is the master */
    int ncpu;        /* >= 2 */
    size_t rendezvous;
    int iterations;
    const enum rv_layout *layouts; /* rendezvous k uses layouts[k % nlayouts] */
    int nlayouts;
    bool fifo;
    int priority;
    int batches; /* the batches of the analysis: the slot rotation is balanced in each */
    const struct timebase *tb;
    int64_t deadline_ns; /* 0: RV_DEADLINE_NS */
};

/* What became of rendezvous r on one CPU. */
enum rv_status {
    RV_NOT_RUN = 0,   /* not attempted here (stopped first, or a member never let in) */
    RV_OK,            /* completed in time */
    RV_TIMEOUT,       /* a spin of this CPU reached its deadline */
    RV_START_TIMEOUT, /* master only: not every CPU came to the start barrier */
};

/* One CPU's records, indexed by rendezvous: in clock ticks (TSC cycles, or
 * ns with the monotonic clock). Only RV_OK records hold values. */
struct rv_cpu_records {
    alignas(RV_CACHE_LINE) uint64_t *loop_exit; /* last-iteration stamp read -> after the loop */
    uint64_t *total;                            /* entry -> after the loop */
    uint8_t *status;                            /* enum rv_status */
    uint64_t sink; /* what was read, so that no read is optimised away */
};
static_assert(sizeof(struct rv_cpu_records) == RV_CACHE_LINE, "each CPU's records own a line");

struct rv_result {
    int ncpu;
    size_t n;         /* rendezvous planned */
    size_t attempted; /* rendezvous the master opened: 0..attempted-1 */
    int nlayouts;
    enum rv_layout layouts[RV_LAYOUT_COUNT];
    struct rv_cpu_records *cpu; /* [ncpu], in the order of the CPU list */
    bool realtime;              /* every thread ran at SCHED_FIFO */
    bool interrupted;           /* stop_requested() ended it early */
};

/* Allocates (and prefaults) the records of n rendezvous on ncpu CPUs, every
 * status RV_NOT_RUN. 0, or -1 when out of memory (nothing to free). */
int rv_result_alloc(struct rv_result *res, int ncpu, size_t n, const enum rv_layout *layouts,
                    int nlayouts);
void rv_result_free(struct rv_result *res);

static inline int rv_layout_index_of(size_t r, int nlayouts)
{
    return (int)(r % (size_t)nlayouts);
}

/* Batches interleave whole rounds (one rendezvous of each layout): round j
 * goes to batch j mod batches, so that a slow drift hits every batch. */
static inline int rv_batch_of(size_t r, int nlayouts, int batches)
{
    return (int)((r / (size_t)nlayouts) % (size_t)batches);
}

/* The memory slot of rendezvous r's fields: in the q-th round of its batch
 * layout index li takes slot (li + q) mod RV_SLOTS, so that within a batch
 * every layout uses every slot alike (over each RV_SLOTS rounds) and no two
 * layouts of a round share one. */
#define RV_SLOTS 3

static inline int rv_slot_of(size_t r, int nlayouts, int batches)
{
    size_t q = r / (size_t)nlayouts / (size_t)batches;
    return (int)((r % (size_t)nlayouts + q) % RV_SLOTS);
}

/* Rendezvous r completed in time on every CPU. */
bool rv_completed(const struct rv_result *res, size_t r);

/* Runs cfg->rendezvous rendezvous (fewer when stop_requested()) on a team
 * pinned to cfg->cpus. 0, or -1 with err filled when the team could not be
 * started (then nothing was measured). Timeouts are results, not errors. */
int rv_run(const struct rv_config *cfg, struct rv_result *res, char *err, size_t errlen);

#endif
